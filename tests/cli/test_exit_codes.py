"""Every command's documented failures, each run for real, with its exit code checked
against the table of docs/cli.md (parsed here, so the document and the code cannot
drift): `bot.cli.main` maps the kinds of failure of bot/errors.py to those codes in one
place (issue 23).

Each case also names the words of the table's examples that promise it, so a failure
the table does not document cannot be added here unnoticed. The sandbox is made
unavailable the way a host without bubblewrap is: TROUBLESHOOT_BWRAP names a binary
that does not exist. Services that never answer are the Blackhole of conftest.py.
Cases run in-process through `main()` unless they need a process of their own (a
signal, a service that runs until stopped, Celery's or the Slack client's threads).

`pytest -s tests/cli/test_exit_codes.py` prints the table of what ran: command, case,
the code docs/cli.md gives, the code it exited with.
"""

from __future__ import annotations

import fcntl
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.cli import main

from .conftest import REPO, Blackhole

DOC = REPO / "docs" / "cli.md"
FIXTURE_KB = REPO / "tests" / "retrieval" / "fixtures" / "knowledge"

INPUT = "a problem with the input"
USAGE = "usage or configuration"
UNAVAILABLE = "a service or resource is unreachable"
NOTHING = "it ran, but nothing was verified"
BUG = "internal error (a bug)"
INTERRUPTED = "interrupted"


def doc_table() -> dict[str, tuple[int, str]]:
    """docs/cli.md's exit-code table: meaning -> (code, its examples)."""
    section = DOC.read_text(encoding="utf-8").split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \| (.+) \|$", section, re.M)
    return {meaning.strip(): (int(code), examples) for code, meaning, examples in rows}


@dataclass
class Case:
    command: str
    case: str
    meaning: str  # the table's row
    documented: str  # words of that row's examples that promise this failure
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)  # created under the test's folder first
    stdin: bytes | None = None
    process: bool = False  # a subprocess instead of main() in this process
    needs: tuple[str, ...] = ()  # "blackhole", "index", "fake_env", "slack", "port_taken", "redis", "bug"


NO_SANDBOX = {"TROUBLESHOOT_BWRAP": "{tmp}/no-such-bwrap"}
SMALL_KB = {"TROUBLESHOOT_KNOWLEDGE_DIR": str(FIXTURE_KB), "TROUBLESHOOT_INDEX_DIR": "{tmp}/index"}
DATABASE_AWAY = {"DATABASE_URL": "postgresql+psycopg://u:pw@127.0.0.1:{port}/db",
                 "TROUBLESHOOT_DB_TIMEOUT_SECONDS": "1"}
BROKER_AWAY = {"REDIS_URL": "redis://127.0.0.1:{port}/0", "TROUBLESHOOT_REDIS_TIMEOUT_SECONDS": "1"}
CODE = b"import json\nprint(json.dumps({'a': 1}))\n"  # Python without an error message
BOOM = b"raise ValueError('no entry knows this one')\n"
BAD_KB = {"badkb/entries/broken.yml": b"id: [unclosed\n"}

CASES = [
    # ask
    Case("ask", "empty text", INPUT, "empty", ["ask", "   "]),
    Case("ask", "@FILE that does not exist", INPUT, "a file that is missing", ["ask", "@{tmp}/missing.txt"]),
    Case("ask", "@FILE with NUL bytes", INPUT, "binary", ["ask", "@{tmp}/blob.txt"],
         files={"blob.txt": b"RuntimeError\x00\x01\x02"}),
    Case("ask", "stdin over TROUBLESHOOT_MAX_INPUT_BYTES", INPUT, "too large", ["ask", "-"],
         env={"TROUBLESHOOT_MAX_INPUT_BYTES": "100"}, stdin=b"RuntimeError: x\n" * 20),
    Case("ask", "an unquoted error message", USAGE, "a bad option", ["ask", "RuntimeError:", "CUDA", "error"]),
    Case("ask", "a malformed DATABASE_URL", USAGE, "`DATABASE_URL='not a url'`", ["ask", "RuntimeError: x"],
         env={"DATABASE_URL": "not a url"}),
    Case("ask", "an index of another embedder", USAGE, "an index of another embedder", ["ask", "RuntimeError: x"],
         env={**SMALL_KB, "TROUBLESHOOT_EMBEDDER": "{tmp}/no-such-model"}, needs=("index",)),
    Case("ask", "an index folder that cannot be written", UNAVAILABLE, "an index folder that cannot be written",
         ["ask", "RuntimeError: x"], env={**SMALL_KB, "TROUBLESHOOT_INDEX_DIR": "{tmp}/a-file/index"},
         files={"a-file": b""}),
    Case("ask", "FILE.py without a sandbox", UNAVAILABLE, "the sandbox", ["ask", "{tmp}/train.py"],
         env=NO_SANDBOX, files={"train.py": CODE}),
    # eval
    Case("eval", "a file that does not exist", INPUT, "a file that is missing", ["eval", "{tmp}/missing.jsonl"]),
    Case("eval", "a malformed line", INPUT, "malformed eval lines", ["eval", "{tmp}/bad.jsonl"],
         files={"bad.jsonl": b"not json\n"}),
    # index build
    Case("index build", "an index folder that cannot be written", UNAVAILABLE,
         "an index folder that cannot be written", ["index", "build"],
         env={**SMALL_KB, "TROUBLESHOOT_INDEX_DIR": "{tmp}/a-file/index"}, files={"a-file": b""}),
    # verify
    Case("verify", "a snippet that does not exist", INPUT, "a file that is missing", ["verify", "{tmp}/missing.py"]),
    Case("verify", "an empty snippet", INPUT, "empty", ["verify", "{tmp}/empty.py"], files={"empty.py": b"\n"}),
    Case("verify", "a snippet that is not UTF-8", INPUT, "not UTF-8", ["verify", "{tmp}/latin.py"],
         files={"latin.py": b"print('caf\xe9')\n"}),
    Case("verify", "a snippet that is not Python", INPUT, "a snippet that is not Python",
         ["verify", "{tmp}/error.py"], files={"error.py": b"RuntimeError: CUDA out of memory\n"}),
    Case("verify", "stdin as the snippet and --fixed", USAGE, "a bad option", ["verify", "-", "--fixed", "-"]),
    Case("verify", "no sandbox", UNAVAILABLE, "the sandbox", ["verify", "{tmp}/boom.py", "--no-record"],
         env=NO_SANDBOX, files={"boom.py": BOOM}),
    Case("verify", "no known entry to try", NOTHING, "no known entry to try",
         ["verify", "{tmp}/boom.py", "--no-record"], env=SMALL_KB, files={"boom.py": BOOM}, needs=("sandbox",)),
    Case("verify --torch", "a release with no environment here", USAGE, "a torch release with no environment here",
         ["verify", "{tmp}/boom.py", "--torch", "2.9.1", "--envs-dir", "{tmp}/envs"], files={"boom.py": BOOM}),
    Case("verify --torch", "no sandbox", UNAVAILABLE, "the sandbox",
         ["verify", "{tmp}/boom.py", "--torch", "2.9.1", "--envs-dir", "{envs}", "--no-record"],
         env=NO_SANDBOX, files={"boom.py": BOOM}, needs=("fake_env",)),
    Case("verify --torch", "nothing verified on any release", NOTHING, "`verify --torch`: so on every release",
         ["verify", "{tmp}/boom.py", "--torch", "2.9.1", "--envs-dir", "{envs}", "--no-record"],
         env=SMALL_KB, files={"boom.py": BOOM}, needs=("fake_env", "sandbox")),
    Case("verify --queue", "no REDIS_URL", USAGE, "`--queue` without `REDIS_URL`",
         ["verify", "{tmp}/boom.py", "--queue"], env={"REDIS_URL": ""}, files={"boom.py": BOOM}),
    Case("verify --queue", "a broker that never answers", UNAVAILABLE, "the broker (Redis)",
         ["verify", "{tmp}/boom.py", "--queue"], env=BROKER_AWAY, files={"boom.py": BOOM}, process=True,
         needs=("blackhole",)),
    # kb
    Case("kb check", "a knowledge file with errors", INPUT, "`kb check`", ["kb", "check", "--dir", "{tmp}/badkb"],
         files=BAD_KB),
    Case("kb add", "a rejected file", INPUT, "`kb add` rejected a file",
         ["kb", "add", "--dry-run", "--dir", str(FIXTURE_KB), "{tmp}/blob.md"], files={"blob.md": b"a\x00b\n"}),
    Case("kb add", "stdin named twice", USAGE, "a bad option", ["kb", "add", "-", "-"]),
    Case("kb verify", "knowledge with errors", INPUT, "`kb verify` found problems",
         ["kb", "verify", "--dir", "{tmp}/badkb"], files=BAD_KB),
    Case("kb verify", "an unknown entry id", USAGE, "an unknown entry id", ["kb", "verify", "no/such-entry"]),
    Case("kb verify", "no sandbox", UNAVAILABLE, "the sandbox", ["kb", "verify", "pytorch/backward-twice"],
         env=NO_SANDBOX),
    Case("kb export", "DIR is a file", USAGE, "`kb export` into a file that is not a folder",
         ["kb", "export", "{tmp}/a-file"], files={"a-file": b""}),
    Case("kb draft", "a database that never answers", UNAVAILABLE, "the database", ["kb", "draft", "1"],
         env=DATABASE_AWAY, needs=("blackhole",)),
    # gaps, stats
    Case("gaps", "--limit below 0", USAGE, "a bad option", ["gaps", "--limit", "-1"]),
    Case("gaps", "a database that never answers", UNAVAILABLE, "the database", ["gaps"], env=DATABASE_AWAY,
         needs=("blackhole",)),
    Case("stats", "a malformed DATABASE_URL", USAGE, "`DATABASE_URL='not a url'`", ["stats"],
         env={"DATABASE_URL": "not a url"}),
    Case("stats", "a database that never answers", UNAVAILABLE, "the database", ["stats"], env=DATABASE_AWAY,
         needs=("blackhole",)),
    Case("stats", "a bug", BUG, "one line on stderr naming the log file", ["stats"], needs=("bug",)),
    # envs
    Case("envs remove", "a release not installed", USAGE, "`envs remove`",
         ["envs", "remove", "9.9.9", "--dir", "{tmp}/envs"]),
    # serve
    Case("serve", "no SLACK_BOT_TOKEN", USAGE, "a bad option or setting", ["serve"], env={"SLACK_BOT_TOKEN": ""}),
    Case("serve", "a port in use", USAGE, "a port in use",
         ["serve", "--http", "--host", "127.0.0.1", "--port", "{taken}"],
         env={**SMALL_KB, "SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": "s", "SLACK_API_URL": "{slack}"},
         process=True, needs=("slack", "port_taken")),
    Case("serve", "a Slack API that never answers", UNAVAILABLE, "the Slack API", ["serve", "--http", "--port", "0"],
         env={"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": "s",
              "SLACK_API_URL": "http://127.0.0.1:{port}/api/", "TROUBLESHOOT_SLACK_TIMEOUT_SECONDS": "1"},
         process=True, needs=("blackhole",)),
    # worker
    Case("worker", "no REDIS_URL", USAGE, "a bad option or setting", ["worker"], env={"REDIS_URL": ""}),
    Case("worker", "a broker that never answers", UNAVAILABLE, "the broker (Redis)", ["worker"], env=BROKER_AWAY,
         process=True, needs=("blackhole",)),
    Case("worker", "no sandbox", UNAVAILABLE, "the sandbox", ["worker"], env={**NO_SANDBOX, "REDIS_URL": "{redis}"},
         process=True, needs=("redis",)),
]

RESULTS: list[tuple[str, str, int, int]] = []  # (command, case, expected, got), printed at the end


@pytest.fixture(scope="module", autouse=True)
def _print_the_table():
    yield
    width = max((len(c) + len(k) for c, k, _, _ in RESULTS), default=0) + 3
    print(f"\n{'command: case':<{width}} expected  got")
    for command, case, expected, got in RESULTS:
        print(f"{command + ': ' + case:<{width}} {expected:>8}  {got:>3}")


def test_the_table_names_every_code_the_cli_gives():
    from bot.cli.common import EXIT_CODES

    assert sorted(code for code, _ in doc_table().values()) == sorted(EXIT_CODES)


def _marks(case: Case) -> list[pytest.MarkDecorator]:
    slow = case.process or bool({"sandbox", "blackhole", "redis"} & set(case.needs))
    return ([pytest.mark.requires_sandbox] if "sandbox" in case.needs else []) + ([pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("case", [pytest.param(c, id=f"{c.command}: {c.case}", marks=_marks(c)) for c in CASES])
def test_each_documented_failure_exits_with_the_documented_code(case, tmp_path, monkeypatch, capsys):
    code, examples = doc_table()[case.meaning]
    assert case.documented in examples, f"docs/cli.md does not list {case.documented!r} under {case.meaning!r}"
    with _Setting(case, tmp_path, monkeypatch) as setting:
        got, err = _run(case, setting, tmp_path, monkeypatch, capsys)
    RESULTS.append((case.command, case.case, code, got))
    assert got == code, err
    if case.meaning != BUG:
        assert "Traceback" not in err
    assert err.strip(), "a failure says why on stderr"


class _Setting:
    """What a case needs around it, started and stopped; the values its argv and env
    name in braces."""

    def __init__(self, case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
        self.case, self.tmp, self.monkeypatch = case, tmp_path, monkeypatch
        self.values = {"tmp": str(tmp_path)}
        self._stops: list = []

    def __enter__(self) -> _Setting:
        for name, data in self.case.files.items():
            (self.tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (self.tmp / name).write_bytes(data)
        needs = set(self.case.needs)
        if "blackhole" in needs:
            hole = Blackhole()
            self._stops.append(hole.close)
            self.values["port"] = str(hole.port)
            from bot import backoff
            from bot.evidence.db import forget

            for reset in (backoff.reset, forget):  # no failure remembered from another test, none left behind
                reset()
                self._stops.append(reset)
        if "index" in needs:
            self.monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(FIXTURE_KB))
            self.monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(self.tmp / "index"))
            assert main(["-q", "index", "build"]) == 0
        if "fake_env" in needs:
            self.values["envs"] = _fake_environment(self._stops)
        if "slack" in needs:
            self.values["slack"] = _fake_slack(self._stops)
        if "port_taken" in needs:
            taken = socket.socket()
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            self._stops.append(taken.close)
            self.values["taken"] = str(taken.getsockname()[1])
        if "redis" in needs:
            self.values["redis"] = _private_redis(self.tmp, self._stops)
        if "bug" in needs:
            from bot.cli import stats as stats_module

            def broken(_args):
                raise RuntimeError("a bug deep inside")

            self.monkeypatch.setattr(stats_module, "stats", broken)
        return self

    def fill(self, text: str) -> str:
        return text.format(**self.values)

    def __exit__(self, *exc: object) -> None:
        for stop in reversed(self._stops):
            stop()


def _run(case: Case, setting: _Setting, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[int, str]:
    argv = [setting.fill(a) for a in case.argv]
    env = {"TROUBLESHOOT_VAR_DIR": str(tmp_path / "var"), "TROUBLESHOOT_RECORD_ASK": "0",
           **{k: setting.fill(v) for k, v in case.env.items()}}
    if case.process:
        full = {**os.environ, "PYTHONPATH": str(REPO), **env}
        run = subprocess.run([sys.executable, "-m", "bot.cli", *argv], cwd=REPO, env=full, input=case.stdin or b"",
                             capture_output=True, timeout=180)
        return run.returncode, run.stderr.decode("utf-8", "replace")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if case.stdin is not None:
        (tmp_path / "stdin").write_bytes(case.stdin)
        stdin = open(tmp_path / "stdin", encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", stdin)
    try:
        got = main(argv)
    finally:
        if case.stdin is not None:
            stdin.close()
    return got, capsys.readouterr().err


def _fake_environment(stops: list) -> str:
    """An envs folder holding "2.9.1" as EnvStore lists it (its env.json and a torch
    folder); the sandbox mounts it, so it is made outside pytest's 0700 tmp folder."""
    root = Path(tempfile.mkdtemp(prefix="troubleshoot-test-fake-envs-"))
    stops.append(lambda: shutil.rmtree(root, ignore_errors=True))
    folder = root / "torch-2.9.1"
    (folder / "site-packages" / "torch").mkdir(parents=True)
    (folder / "env.json").write_text(json.dumps({
        "version": "2.9.1", "path": str(folder), "torch": "2.9.1+cpu", "cuda": None, "python": "3.11",
        "installed_at": 0, "install_seconds": 0, "size_bytes": 0}))
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return str(root)


def _fake_slack(stops: list) -> str:
    """A Slack Web API that answers auth.test (all `serve` asks before it listens)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.dumps({"ok": True, "url": "https://fake.slack.test/", "team": "T", "user": "bot",
                               "team_id": "T0FAKE", "user_id": "UBOT01", "bot_id": "B0FAKE"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stops.append(server.server_close)
    stops.append(server.shutdown)
    return f"http://127.0.0.1:{server.server_address[1]}/api/"


def _private_redis(tmp: Path, stops: list) -> str:
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not installed: `worker` needs a broker that answers to reach its sandbox check")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stops.append(lambda: (proc.terminate(), proc.wait(10)))
    import redis

    client = redis.Redis(port=port, socket_connect_timeout=1)
    for _ in range(200):  # until it answers, or it ended
        try:
            client.ping()
            return f"redis://127.0.0.1:{port}/0"
        except redis.RedisError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    pytest.fail(f"the private redis-server on port {port} did not answer")


@pytest.mark.slow  # a CLI process of its own, to send it SIGINT
def test_ctrl_c_exits_130(tmp_path):
    """`ask -` reading a pipe that has not ended; SIGINT once it took what was sent (the
    pipe is empty: it is inside main(), reading)."""
    code, _ = doc_table()[INTERRUPTED]
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "ask", "-"], cwd=REPO, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(REPO), "TROUBLESHOOT_VAR_DIR": str(tmp_path),
                                 "TROUBLESHOOT_STDIN_IDLE_SECONDS": "0"})
    try:
        proc.stdin.write(b"RuntimeError: CUDA out of memory\n")
        proc.stdin.flush()
        while _unread(proc.stdin.fileno()) and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
        err = proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    RESULTS.append(("ask", "Ctrl-C while reading stdin", code, proc.returncode))
    assert proc.returncode == code, err
    assert err.decode().strip() == "troubleshoot ask: interrupted"


def _unread(fd: int) -> int:
    """Bytes still in the pipe (FIONREAD works on either end of a Linux pipe)."""
    buf = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    return int.from_bytes(buf, sys.byteorder)
