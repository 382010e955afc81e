"""bot/sandbox/procio.py on plain pipes and sockets (no sandbox needed): what the runner
and the warm sandbox read and check around a run's process."""

from __future__ import annotations

import os
import socket
import time

import pytest

from bot.sandbox import procio
from bot.sandbox.limits import KiB, Limits


@pytest.fixture
def pipe():
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        try:
            os.close(fd)
        except OSError:
            pass


def test_output_is_read_until_every_writer_is_gone(pipe):
    r, w = pipe
    os.write(w, "loss: nan\n손실이 발산합니다\n".encode())
    os.close(w)
    got, ended = procio.read_output(r, 1024, time.monotonic() + 30)
    assert ended and not got.truncated and not got.timed_out
    assert got.output.decode() == "loss: nan\n손실이 발산합니다\n"


def test_output_past_the_cap_is_cut_at_the_cap(pipe):
    r, w = pipe
    os.write(w, b"x" * 5000)
    got, ended = procio.read_output(r, 4096, time.monotonic() + 30)
    assert got.truncated and not ended and not got.timed_out
    assert got.output == b"x" * 4096


def test_a_writer_that_stays_open_runs_into_the_deadline(pipe):
    r, w = pipe
    os.write(w, b"still running")
    got, ended = procio.read_output(r, 1024, time.monotonic() + 0.2)
    assert got.timed_out and not ended
    assert got.output == b"still running"


def test_with_a_control_socket_the_run_ends_at_its_message(pipe):
    r, w = pipe
    host, supervisor = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with host, supervisor:
        os.write(w, b"done soon")
        os.close(w)
        supervisor.send(b'{"done": {}}')
        messages = []
        got, ended = procio.read_output(r, 1024, time.monotonic() + 30,
                                        control=(host, lambda: messages.append(host.recv(100))))
        assert ended and messages == [b'{"done": {}}']
        assert got.output == b"done soon" and not got.timed_out


def test_with_a_control_socket_a_closed_pipe_alone_does_not_end_the_run(pipe):
    r, w = pipe
    host, supervisor = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with host, supervisor:
        os.close(w)
        got, ended = procio.read_output(r, 1024, time.monotonic() + 0.2,
                                        control=(host, lambda: pytest.fail("no message was sent")))
        assert got.timed_out and not ended


def test_read_available_takes_what_is_there_without_waiting(pipe):
    r, w = pipe
    os.write(w, b"1")
    assert procio.read_available(r) == b"1"
    assert procio.read_available(r) == b""  # the writer is still open: nothing more, no wait


def test_memfd_holds_the_data_from_its_start():
    fd = procio.memfd("snippet", "print('héllo')".encode())
    try:
        assert os.read(fd, 100) == "print('héllo')".encode()
    finally:
        os.close(fd)


def test_inputs_are_checked():
    limits = Limits(tmp_bytes=64 * KiB)
    assert procio.check_inputs("print(1)", None, limits) == {}
    assert procio.check_inputs("print(1)", {"data.pt": b"\0"}, limits) == {"data.pt": b"\0"}
    with pytest.raises(TypeError, match="code must be str"):
        procio.check_inputs(b"print(1)", None, limits)
    with pytest.raises(ValueError, match="bad file name '../x'"):
        procio.check_inputs("print(1)", {"../x": b""}, limits)
    with pytest.raises(ValueError, match="at most 32 files"):
        procio.check_inputs("print(1)", {f"f{i}": b"" for i in range(33)}, limits)
    with pytest.raises(ValueError, match="more than half the home folder"):
        procio.check_inputs("print(1)", {"big.bin": bytes(32 * KiB)}, limits)
