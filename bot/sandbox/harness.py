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

import json
import os
import resource
import signal
import site
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
    except Exception:  # a broken __str__ in user code
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
    import ctypes
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
    except BaseException as e:
        exit_code = 1
        error = _error(e, snippet, workdir)
        try:
            sys.stderr.write(error["traceback"])
        except Exception:
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        data = _dumps({"exit_code": exit_code, "error": error}, default=str).encode("utf-8", "replace")
        os.ftruncate(child_fd, 0)
        view = memoryview(data)
        offset = 0
        while offset < len(data):
            offset += os.pwrite(child_fd, view[offset:], offset)
    except Exception:
        pass  # the supervisor still reports the exit status
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


def main():
    config = json.loads(sys.argv[1])
    ready_fd = config.get("ready_fd")
    report_fd = config["report_fd"]
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
    child_fd = os.memfd_create("child-report")  # close-on-exec: programs the snippet starts lack it

    started = _perf()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(report_fd)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGUSR1, signal.SIG_DFL)
            _set_dumpable(1)
        except BaseException:
            _exit(126)
        _child(config, child_fd)
        _exit(1)  # not reached
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            break
        except ChildProcessError:
            status, usage = 0, None
            break
    seconds = _perf() - started
    report = {
        "supervisor": 1,
        "status": _status(status),
        "snippet_seconds": seconds,
        "cpu_seconds": (usage.ru_utime + usage.ru_stime) if usage else None,
        "max_rss_bytes": usage.ru_maxrss * 1024 if usage else None,
        "reads_own_source": flags["reads_own_source"],
        "child_report": _read_child_report(child_fd),
    }
    data = _dumps(report).encode()
    view = memoryview(data)
    while view:
        view = view[os.write(report_fd, view):]
    # pid 1 exiting ends the pid namespace: whatever the snippet left running is killed.
    _exit(0)


if __name__ == "__main__":
    main()
