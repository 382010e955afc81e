"""Text from outside reaches the terminal and the reports safely (issue 27): control
characters (ESC, CR, OSC 8 links, C1, bidi overrides) are written escaped on every CLI
stream; lone surrogates become U+FFFD instead of crashing a report; JSON nested too
deeply is refused with exit 1 by every reader (bot/text/jsonin.py)."""

from __future__ import annotations

import json

import pytest

from bot.cli import main

from .conftest import run_cli

HOSTILE = "a\x1b[31mred\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ \rOVER\x9b2J\u202eevil"


def test_control_characters_are_escaped_and_json_stays_the_same_document():
    from bot.text.terminal import escape_controls

    shown = escape_controls(HOSTILE + "\nnext\tcolumn")
    assert not any(ch in shown for ch in "\x1b\r\x9b\u202e")
    assert shown.endswith("\nnext\tcolumn")  # newline and tab are text
    assert "\\u001b]8;;http://evil.example" in shown and "\\u000dOVER" in shown
    # Inside a JSON string the escape is JSON's own: the same document comes back.
    doc = {"output": HOSTILE + "\x7f\x85"}
    assert json.loads(escape_controls(json.dumps(doc, ensure_ascii=False))) == doc


def test_every_cli_stream_escapes_what_it_is_given(kb_slice, monkeypatch, capsys):
    """`ask` with an escape-laden error, and undecodable argv bytes (a lone surrogate by
    PEP 383): an answer, exit 0, and no raw control character on stdout or stderr."""
    knowledge, index = kb_slice
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(knowledge))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(index))
    monkeypatch.setenv("TROUBLESHOOT_RECORD_ASK", "0")
    question = ("RuntimeError: Trying to backward through the graph a second time " + HOSTILE + " \udcff")
    assert main(["ask", question]) == 0
    out, err = capsys.readouterr()
    assert "backward-twice" in out
    for stream in (out, err):
        assert not any(ch in stream for ch in "\x1b\r\x9b\u202e\udcff"), stream[:300]
    # What goes to stderr too: an unknown id, named with its escapes shown.
    assert main(["kb", "show", "pytorch/no-such\x1b]8;;http://x\x1b\\"]) != 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err


@pytest.mark.parametrize("levels", [150, 200_000])
def test_eval_refuses_too_deep_nesting_with_exit_1(tmp_path, levels):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"text": "RuntimeError: x", "expected": null}\n'
                    '{"text": "x", "expected": ' + "[" * levels + "]" * levels + "}\n")
    run = run_cli("eval", str(path), timeout=120)
    assert run.returncode == 1, run.stderr
    assert f"{path}:2: not a JSON object (the JSON nests more than 100 levels deep)" in run.stderr
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr


def test_json_readers_refuse_too_deep_nesting():
    from bot.errors import InputError
    from bot.sandbox.result import parse_result, parse_supervisor
    from bot.slack.app import parse_body
    from bot.text.jsonin import loads

    deep = "[" * 200_000 + "]" * 200_000
    with pytest.raises(InputError, match="stats.json: the JSON nests more than 100 levels deep"):
        loads(deep, where="stats.json")
    assert loads("[" * 100 + "]" * 100) is not None  # the limit itself is fine
    with pytest.raises(InputError):
        loads('{"a": ' + "[" * 101 + "]" * 101 + "}")
    # The sandbox's reports and Slack's bodies: refused as malformed, never a RecursionError.
    assert parse_result('{"exit_code": 1, "error": ' + deep + "}") is None
    assert parse_supervisor(('{"supervisor": 1, "x": ' + deep + "}").encode()) is None
    assert parse_body(('{"a": ' + deep + "}").encode(), "application/json")[0] is None


def test_an_exception_message_with_a_lone_surrogate_is_replaced_not_a_crash():
    from bot.sandbox.result import parse_result

    got = parse_result(json.dumps({"exit_code": 1, "error": {"type": "RuntimeError\x00", "message": "bad \ud800 x",
                                                             "traceback": "t \udfff", "frames": []}}))
    assert got is not None and got["error"]["message"] == "bad \ufffd x"
    assert got["error"]["type"] == "RuntimeError\ufffd" and got["error"]["traceback"] == "t \ufffd"
    got["error"]["message"].encode("utf-8")  # encodable: the embedder, the store and the terminal take it


@pytest.mark.requires_sandbox
def test_verify_reports_a_hostile_snippet_escaped_and_replaced(tmp_path):
    """The real path: a snippet that prints escapes and raises a message with a lone
    surrogate. Before: exit 3 (UnicodeEncodeError), raw ESC on the terminal."""
    snippet = tmp_path / "hostile.py"
    snippet.write_text(f"print({HOSTILE!r})\nraise RuntimeError('bad \\ud800 \\x1b[2J x')\n")
    run = run_cli("verify", str(snippet), "--no-record", timeout=300)
    assert run.returncode == 4, run.stderr  # reproduced; no entry, nothing verified
    assert "bad \ufffd \\u001b[2J x" in run.stdout
    assert not any(ch in run.stdout + run.stderr for ch in "\x1b\r\x9b")
    run = run_cli("verify", str(snippet), "--no-record", "--json", timeout=300)
    report = json.loads(run.stdout)
    assert report["error"]["message"] == "bad \ufffd \x1b[2J x"  # the JSON keeps the text, escaped by JSON
    assert "\x1b]8;;http://evil.example" in report["output"]
