"""The program that runs INSIDE the sandbox: it runs the snippet as `__main__` and
writes a JSON result for the host.

It imports nothing from the project (the checkout is not visible in the sandbox) and
takes its settings as one JSON argument:
    {"snippet": path, "result": path, "site_packages": [dirs], "gpu": index or null,
     "ready_fd": fd}
The harness writes one byte to `ready_fd` and closes it before the snippet runs: that
byte is the host's proof that the sandbox was set up (the snippet cannot forge it).

The snippet runs in this same process, so it can tamper with what is written here;
the host therefore treats the result as untrusted data and trusts only what it
measures itself (exit status, wall time, cgroup counters).
"""

import json
import os
import resource
import site
import sys
import time
import traceback  # imported up front: after the snippet, there may be no file descriptor left
import types

# Held before the snippet runs, so that a snippet that replaces them in their modules
# does not take the result writing with it by accident.
_dumps = json.dumps
_open = os.open
_exit = os._exit
_perf = time.perf_counter
_getrusage = resource.getrusage

MAX_MESSAGE = 8192
MAX_TRACEBACK = 65536
MAX_FRAMES = 200


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


def _torch_version_without_import():
    """torch's version for a snippet that did not import it: read from torch/version.py
    (importing torch takes seconds, importlib.metadata tens of milliseconds)."""
    import importlib.util
    import re
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        try:
            with open(os.path.join(folder, "version.py"), encoding="utf-8") as f:
                m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", f.read(), re.M)
        except OSError:
            continue
        if m:
            return m.group(1)
    return None


def _environment(config):
    env = {
        "python": sys.version.split()[0],
        "torch": None,
        "cuda_available": None,
        "device_name": None,
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    torch = sys.modules.get("torch")
    peak_gpu = None
    try:
        if torch is None:
            env["torch"] = _torch_version_without_import()
        else:
            env["torch"] = str(torch.__version__)
            env["cuda_available"] = bool(torch.cuda.is_available())
            if torch.cuda.is_initialized():
                env["device_name"] = torch.cuda.get_device_name()
                peak_gpu = max(torch.cuda.max_memory_allocated(d) for d in range(torch.cuda.device_count()))
    except Exception:
        pass
    return env, peak_gpu


def main():
    config = json.loads(sys.argv[1])
    ready_fd = config.get("ready_fd")
    if isinstance(ready_fd, int):
        try:
            os.write(ready_fd, b"1")
        finally:
            os.close(ready_fd)
    snippet = config["snippet"]
    # Opened before the snippet runs, so that a snippet that uses up its file
    # descriptors or changes directory does not cost the result.
    result_fd = _open(config["result"], os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
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

    error = None
    exit_code = 0
    started = _perf()
    try:
        exec(compile(source, snippet, "exec"), module.__dict__)
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
    seconds = _perf() - started

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    env, peak_gpu = _environment(config)
    usage = _getrusage(resource.RUSAGE_SELF).ru_maxrss + _getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = {
        "exit_code": exit_code,
        "error": error,
        "snippet_seconds": seconds,
        "peak_rss_bytes": usage * 1024,
        "peak_gpu_memory_bytes": peak_gpu,
        "environment": env,
    }
    try:
        data = _dumps(result, default=str).encode()
        os.ftruncate(result_fd, 0)
        view = memoryview(data)
        offset = 0
        while offset < len(data):
            offset += os.pwrite(result_fd, view[offset:], offset)
    except Exception:
        pass  # the host falls back to the exit status
    # Exit at once: atexit handlers and leftover threads of the snippet do not get to
    # run after the result is written.
    _exit(exit_code)


if __name__ == "__main__":
    main()
