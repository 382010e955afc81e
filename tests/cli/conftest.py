"""Helpers for the command-line robustness tests: the CLI as a subprocess with a
private state folder, and fake services on 127.0.0.1 that accept connections and never
answer (the failure a timeout must catch)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env: dict | None = None, stdin_data: bytes | str | None = None, timeout: float = 180,
            **kw) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(REPO), "TROUBLESHOOT_RECORD_ASK": "0", **(env or {})}
    data = stdin_data.encode("utf-8") if isinstance(stdin_data, str) else stdin_data
    run = subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=REPO, env=full_env, input=data,
                         capture_output=True, timeout=timeout, **kw)
    run.stdout = run.stdout.decode("utf-8", "replace")
    run.stderr = run.stderr.decode("utf-8", "replace")
    return run


class Blackhole:
    """A TCP server that accepts every connection and never sends a byte."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._conns: list[socket.socket] = []
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            self._conns.append(conn)

    def close(self) -> None:
        self._stop = True
        self.thread.join(2)
        for conn in self._conns:
            conn.close()
        self.sock.close()


@pytest.fixture
def blackhole():
    hole = Blackhole()
    yield hole
    hole.close()


class Timer:
    def __enter__(self):
        self.start = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.seconds = time.monotonic() - self.start
        return False
