"""The program that runs INSIDE the sandbox, as its pid 1 (bwrap --as-pid-1): a small
supervisor that runs the snippet in a child process and reports how that child ended.

It imports nothing from the project (the checkout is not visible in the sandbox) and
takes its settings as one JSON argument:
    {"snippet": path, "site_packages": [dirs], "gpu": index or null,
     "ready_fd": fd, "report_fd": fd}

Who can write what:
- `ready_fd`: one byte before anything else, the host's proof that the sandbox was set up.
- `report_fd` (a memfd the host made): the supervisor's report, written after the child
  is reaped. The child closes this descriptor before any snippet code runs, and the
  supervisor makes itself non-dumpable, so nothing of the run can reach it again
  (/proc/1/fd and /proc/1/mem need ptrace access; ptrace, pidfd_getfd and
  process_vm_writev are denied by seccomp). The supervisor is the pid namespace's init:
  the kernel drops signals sent to it from inside unless it handles them, and it
  handles only SIGUSR1 (the "read its own source" flag below) and ignores SIGINT.
- What the supervisor reports is what it observed: the child's wait status (exit code
  or signal, core dump), its resource usage from wait4 (CPU time, peak RSS) and the
  time from fork to reaping. The child's own account (the exception it raised) is
  passed on as `child_report`, raw: the host parses it as untrusted data.
- The child installs an audit hook before the snippet runs: when code of the snippet
  opens the snippet's own file (by any path: the inode is compared), or takes the code
  object of a function or frame, the hook signals the supervisor at once (SIGUSR1 to
  pid 1); a signal already sent cannot be taken back by the snippet. The host then
  marks the run `reads_own_source` and evidence does not count it.
"""

import ctypes
import importlib
import json
import os
import resource
import signal
import site
import socket
import stat
import sys
import time
import traceback  # imported up front: after the snippet, there may be no file descriptor left
import types

# Held before the snippet runs, so that a snippet that replaces them in their modules
# does not take the result writing with it by accident.
_dumps = json.dumps
_exit = os._exit
_perf = time.perf_counter
_kill = os.kill
_stat = os.stat
_getframe = sys._getframe

MAX_MESSAGE = 8192
MAX_TRACEBACK = 65536
MAX_FRAMES = 200
MAX_CHILD_REPORT = 1 << 20
PR_SET_DUMPABLE = 4
# The first lines of an exception message, the part the host reads (MAX_MESSAGE).


def _frames(exc, snippet, workdir):
    """The traceback's frames, without this harness's own frame at the top."""
    out = []
    for fs in traceback.extract_tb(exc.__traceback__):
        if fs.filename == __file__:
            continue
        out.append({
            "file": fs.filename,
            "line": fs.lineno,
            "function": fs.name,
            "in_snippet": fs.filename == snippet or fs.filename.startswith(workdir + os.sep),
        })
    return out[-MAX_FRAMES:]


def _error(exc, snippet, workdir):
    frames = _frames(exc, snippet, workdir)
    snippet_line = None
    for f in frames:
        if f["file"] == snippet:
            snippet_line = f["line"]  # the deepest frame in the snippet wins
    if isinstance(exc, SyntaxError) and exc.filename == snippet and snippet_line is None:
        snippet_line = exc.lineno
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    text = "".join(line for line in lines if __file__ not in line)
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ in user code may raise anything
        message = "<unprintable message>"
    cls = type(exc)
    name = cls.__qualname__ if cls.__module__ in ("builtins", "__main__") else f"{cls.__module__}.{cls.__qualname__}"
    return {
        "type": name,
        "message": message[:MAX_MESSAGE],
        "traceback": text[-MAX_TRACEBACK:],
        "frames": frames,
        "snippet_line": snippet_line,
    }


def _set_dumpable(value):
    """prctl(PR_SET_DUMPABLE): 0 makes /proc/<pid>/fd, mem, environ ... of this process
    unreachable for processes without CAP_SYS_PTRACE, its own children included."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE)")


# --- the child: runs the snippet -------------------------------------------------------------

def _audit_hook(snippet, workdir):
    """Signal the supervisor when the snippet's own code reads the snippet's source."""
    try:
        st = _stat(snippet)
        ident = (st.st_dev, st.st_ino)
    except OSError:
        ident = None
    told = [False]
    busy = [False]  # the hook's own frame walk raises audit events too
    benign = ("/traceback.py", "/logging/__init__.py", "/warnings.py", "/pdb.py", "/bdb.py")
    code_attrs = frozenset(("__code__", "f_code", "gi_code", "cr_code", "ag_code"))

    def from_snippet():
        f = _getframe(3)  # from_snippet <- check <- hook <- the code that raised the event
        while f is not None:
            name = f.f_code.co_filename
            if name == snippet or name.startswith(workdir + "/"):
                return True
            # A library (torch.jit reading source is its business), or a module that
            # only shows code the snippet cannot take back (tracebacks, logging, warnings).
            if "site-packages" in name or name.endswith(benign):
                return False
            f = f.f_back
        return False

    def hook(event, args):
        if told[0] or busy[0]:
            return
        busy[0] = True
        try:
            if not check(event, args):
                return
        finally:
            busy[0] = False
        told[0] = True
        try:
            _kill(1, signal.SIGUSR1)
        except OSError:
            pass

    def check(event, args):
        if event == "open":
            path = args[0]
            if ident is None or not isinstance(path, (str, bytes)):
                return False
            try:
                st = _stat(path)
            except (OSError, ValueError):
                return False
            return (st.st_dev, st.st_ino) == ident and from_snippet()
        if event == "object.__getattr__":
            return len(args) >= 2 and args[1] in code_attrs and from_snippet()
        if event in ("gc.get_objects", "gc.get_referrers", "gc.get_referents"):
            return from_snippet()
        return False
    return hook


def _child(config, child_fd):
    snippet = config["snippet"]
    workdir = os.path.dirname(snippet)
    for d in config.get("site_packages", []):  # beyond the venv's own, which Python adds
        site.addsitedir(d)
    with open(snippet, encoding="utf-8", errors="surrogateescape") as f:
        source = f.read()
    module = types.ModuleType("__main__")
    module.__file__ = snippet
    module.__builtins__ = __builtins__
    sys.modules["__main__"] = module
    sys.argv = [snippet]
    sys.path[0] = workdir
    sys.addaudithook(_audit_hook(snippet, workdir))

    error = None
    exit_code = 0
    try:
        code = compile(source, snippet, "exec")
        del source
        exec(code, module.__dict__)
    except SystemExit as e:
        code = e.code
        if code is None or code == 0:
            exit_code = 0
        elif isinstance(code, int):
            exit_code = code & 0xFF or 1
            error = _error(e, snippet, workdir)
        else:  # sys.exit("message") prints the message and exits 1
            print(code, file=sys.stderr)
            exit_code = 1
            error = _error(e, snippet, workdir)
    except BaseException as e:  # noqa: BLE001 - the snippet may raise anything; it becomes the report's error
        exit_code = 1
        error = _error(e, snippet, workdir)
        try:
            sys.stderr.write(error["traceback"])
        except Exception:  # noqa: BLE001 - the snippet may have replaced or closed stderr
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - the snippet may have replaced or broken the stream
            pass
    try:
        data = _dumps({"exit_code": exit_code, "error": error}, default=str).encode("utf-8", "replace")
        os.ftruncate(child_fd, 0)
        view = memoryview(data)
        offset = 0
        while offset < len(data):
            offset += os.pwrite(child_fd, view[offset:], offset)
    except Exception:  # noqa: BLE001 - the supervisor still reports the exit status
        pass
    # Exit at once: atexit handlers and leftover threads of the snippet do not get to
    # run after the report is written.
    _exit(exit_code)


# --- the supervisor (pid 1) ------------------------------------------------------------------

def _status(status):
    if os.WIFSIGNALED(status):
        return {"exited": None, "signal": os.WTERMSIG(status), "core_dumped": bool(os.WCOREDUMP(status))}
    if os.WIFEXITED(status):
        return {"exited": os.WEXITSTATUS(status), "signal": None, "core_dumped": False}
    return {"exited": None, "signal": None, "core_dumped": False}


def _read_child_report(fd):
    try:
        size = os.fstat(fd).st_size
        if size == 0 or size > MAX_CHILD_REPORT:
            return None
        data = os.pread(fd, size, 0)
        return data.decode("utf-8", "replace")
    except OSError:
        return None


def _become_supervisor(config):
    """Prove the start to the host, become non-dumpable, and take SIGUSR1 as the "read
    its own source" flag; returns the flags."""
    ready_fd = config.get("ready_fd")
    if isinstance(ready_fd, int):
        try:
            os.write(ready_fd, b"1")
        finally:
            os.close(ready_fd)
    _set_dumpable(0)
    flags = {"reads_own_source": False}

    def flagged(_signum, _frame):
        flags["reads_own_source"] = True

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGUSR1, flagged)
    return flags


def _as_child():
    """In the forked child, before anything of the snippet: undo the supervisor's signal
    handling."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)


def _reap(pid, started, flags, child_fd):
    """Wait for the child and make the supervisor's report of how it ended."""
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            break
        except ChildProcessError:
            status, usage = 0, None
            break
        except InterruptedError:
            continue
    return {
        "supervisor": 1,
        "status": _status(status),
        "snippet_seconds": _perf() - started,
        "cpu_seconds": (usage.ru_utime + usage.ru_stime) if usage else None,
        "max_rss_bytes": usage.ru_maxrss * 1024 if usage else None,
        "reads_own_source": flags["reads_own_source"],
        "child_report": _read_child_report(child_fd),
    }


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def main():
    config = json.loads(sys.argv[1])
    report_fd = config["report_fd"]
    flags = _become_supervisor(config)
    child_fd = os.memfd_create("child-report")  # close-on-exec: programs the snippet starts lack it

    started = _perf()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(report_fd)
            _as_child()
            _set_dumpable(1)
        except BaseException:  # noqa: BLE001 - a child that cannot set itself up must not run the snippet
            _exit(126)
        _child(config, child_fd)
        _exit(1)  # not reached
    _write_all(report_fd, _dumps(_reap(pid, started, flags, child_fd)).encode())
    # pid 1 exiting ends the pid namespace: whatever the snippet left running is killed.
    _exit(0)


# --- the zygote (a warm sandbox): one supervisor, one child per run ------------------------
#
# In zygote mode ({"zygote": true, "control_fd": fd, "preload": [...], "clean_dirs": ...})
# the supervisor imports the preload list once and then serves runs one at a time over
# `control_fd`, a SOCK_SEQPACKET socket whose other end only the host holds:
#   host -> {"preload": [names]}                       supervisor -> {"preloaded": info}
#   host -> {"run": {"files": [names]}} + descriptors [output pipe, snippet, report, files...]
#                                                      supervisor -> {"forked": pid}
#   host -> {"go": true}  (the host has moved the child into its own cgroup by then)
#                                                      supervisor -> {"done": true}, {"clean": info}
# The child waits for "go" before it runs anything of the snippet, and closes every
# descriptor of the supervisor's (the control socket, the report) first, as in one-run
# mode. Between two children the supervisor kills every other process of the pid
# namespace, empties /tmp, the home folder and /dev/shm, and removes the SysV IPC
# objects, so that a child finds nothing a sibling left; only then does it say "clean".

def _send(sock, message):
    sock.sendmsg([_dumps(message).encode()])


def _recv(sock, max_fds=0):
    data, fds, _flags, _addr = socket.recv_fds(sock, 65536, max_fds) if max_fds else \
        (sock.recv(65536), [], 0, None)
    if not data:
        for fd in fds:
            os.close(fd)
        _exit(0)  # the host closed its end: nothing more to do
    return json.loads(data), list(fds)


def _tasks():
    return len(os.listdir("/proc/self/task"))


def _gpu_fds():
    """Descriptors of this process open on an NVIDIA device node (/dev/nvidia0,
    nvidiactl, nvidia-uvm...): CUDA, NVML or a driver probe touched the GPU, and a forked
    child would share that state. Stricter than torch.cuda.is_initialized(), which stays
    False after is_available() or device_count() opened the driver."""
    found = []
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return found
    for name in names:
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if "/dev/nvidia" in target:
            found.append(target)
    return sorted(found)


def _preload(names, baseline):
    """Import `names` (installed modules only: the home folder is not on sys.path here)
    and say whether forking stays safe: no Python thread, no native thread beyond the
    baseline, CUDA not initialised."""
    done, failed = [], []
    started = _perf()
    for name in names:
        try:
            importlib.import_module(name)
            done.append(name)
        except BaseException as exc:  # noqa: BLE001 - a module that fails to import is not preloaded
            failed.append(f"{name} ({type(exc).__name__})")
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    unsafe = None
    threading = sys.modules.get("threading")
    torch = sys.modules.get("torch")
    if threading is not None and threading.active_count() > 1:
        unsafe = f"a preloaded module started {threading.active_count() - 1} Python thread(s) at import"
    elif baseline is not None and _tasks() > baseline:
        unsafe = f"a preloaded module started {_tasks() - baseline} native thread(s) at import"
    elif torch is not None and getattr(getattr(torch, "cuda", None), "is_initialized", lambda: False)():
        unsafe = "CUDA was initialised at import (a forked child cannot use it)"
    elif _gpu_fds():
        unsafe = (f"a preloaded module opened the GPU's device nodes ({', '.join(_gpu_fds()[:4])}): "
                  f"a forked child cannot use that driver state")
    return {"preloaded": done, "failed": failed, "seconds": round(_perf() - started, 4), "unsafe": unsafe}


def _remove_tree(path):
    """Remove `path` whatever its modes (every file in the sandbox is this uid's)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        os.chmod(path, 0o700)
        for name in os.listdir(path):
            _remove_tree(os.path.join(path, name))
        os.rmdir(path)
    else:
        os.unlink(path)


def _sysv_ids(kind):
    try:
        with open(f"/proc/sysvipc/{kind}") as f:
            lines = f.read().splitlines()[1:]
    except OSError:
        return []
    return [int(line.split()[1]) for line in lines if len(line.split()) > 1]


def _sweep(clean_dirs, deadline_seconds=5.0):
    """Kill every process but this one, then empty the run folders and the IPC namespace.
    Returns what was removed, or raises RuntimeError when something could not be."""
    killed = set()
    deadline = _perf() + deadline_seconds
    while True:
        while True:  # reap every zombie this init inherited
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != 1]
        if not others:
            break
        if _perf() > deadline:
            raise RuntimeError(f"processes {sorted(others)[:10]} survived SIGKILL")
        for pid in others:
            try:
                _kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        time.sleep(0.001)
    files = 0
    for root, mode in clean_dirs:
        os.chmod(root, mode)
        for name in os.listdir(root):
            _remove_tree(os.path.join(root, name))
            files += 1
        for attr in os.listxattr(root):
            try:
                os.removexattr(root, attr)
            except OSError:
                pass
        if os.listdir(root):
            raise RuntimeError(f"{root} could not be emptied")
    libc = ctypes.CDLL(None, use_errno=True)
    ipc_rmid = 0
    ipc = 0
    for kind in ("shm", "sem", "msg"):
        for ident in _sysv_ids(kind):
            if kind == "shm":
                libc.shmctl(ident, ipc_rmid, None)
            elif kind == "sem":
                libc.semctl(ident, 0, ipc_rmid)
            else:
                libc.msgctl(ident, ipc_rmid, None)
            ipc += 1
        if _sysv_ids(kind):
            raise RuntimeError(f"SysV {kind} objects could not be removed")
    return {"processes_killed": len(killed), "entries_removed": files, "ipc_removed": ipc}


def _write_file(path, fd):
    size = os.fstat(fd).st_size
    out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        offset = 0
        while offset < size:
            chunk = os.pread(fd, min(1 << 20, size - offset), offset)
            if not chunk:
                break
            os.write(out, chunk)
            offset += len(chunk)
    finally:
        os.close(out)


def _serve_one(control, config, spec, fds, flags):
    out_fd, snippet_fd, report_fd, *file_fds = fds
    home = os.path.dirname(config["snippet"])
    _write_file(config["snippet"], snippet_fd)
    for name, fd in zip(spec.get("files", []), file_fds, strict=True):
        _write_file(os.path.join(home, os.path.basename(name)), fd)
    for fd in [snippet_fd, *file_fds]:
        os.close(fd)
    child_fd = os.memfd_create("child-report")
    go_r, go_w = os.pipe()
    flags["reads_own_source"] = False
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(out_fd, 1)
            os.dup2(out_fd, 2)
            for fd in (out_fd, report_fd, go_w, control.fileno()):
                os.close(fd)
            _as_child()
            cpu = spec.get("rlimit_cpu")
            if cpu:  # this run's own CPU time limit (a fork starts with a zero count)
                resource.setrlimit(resource.RLIMIT_CPU, (int(cpu[0]), int(cpu[1])))
            _set_dumpable(1)
            go = os.read(go_r, 1)
            os.close(go_r)
        except BaseException:  # noqa: BLE001 - a child that cannot set itself up must not run the snippet
            _exit(126)
        if go != b"g":
            _exit(125)  # the host called the run off
        _child(config, child_fd)
        _exit(1)  # not reached
    os.close(out_fd)
    os.close(go_r)
    _send(control, {"forked": pid})
    message, _ = _recv(control)
    started = _perf()
    if message.get("go") is True:
        os.write(go_w, b"g")
    os.close(go_w)
    report = _reap(pid, started, flags, child_fd)
    os.close(child_fd)
    _write_all(report_fd, _dumps(report).encode())
    os.close(report_fd)
    _send(control, {"done": True})
    try:
        _send(control, {"clean": _sweep(config["clean_dirs"])})
    except Exception as exc:  # noqa: BLE001 - the host then throws this zygote away
        _send(control, {"dirty": f"{type(exc).__name__}: {exc}"[:500]})
        _exit(3)


def zygote_main(config):
    flags = _become_supervisor(config)
    os.close(config["report_fd"])  # one-run mode's report: each run brings its own here
    control = socket.socket(fileno=config["control_fd"])
    for d in config.get("site_packages", []):
        site.addsitedir(d)
    info = _preload(config.get("preload", []), None)
    baseline = _tasks()  # the base preload's pools (torch's, OpenBLAS's) handle fork
    _send(control, {"ready": info})
    while True:
        message, fds = _recv(control, max_fds=40)
        if "preload" in message:
            _send(control, {"preloaded": _preload(message["preload"], baseline)})
        elif "run" in message and len(fds) >= 3:
            _serve_one(control, config, message["run"], fds, flags)
        else:
            for fd in fds:
                os.close(fd)
            _send(control, {"error": "unknown message"})


if __name__ == "__main__":
    _config = json.loads(sys.argv[1])
    if _config.get("zygote"):
        zygote_main(_config)
    else:
        main()
