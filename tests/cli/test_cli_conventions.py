"""The command-line conventions (issue 19): --version, help with examples, settings and
exit codes, the subcommand's usage on errors with a hint to quote an error message,
`serve` argument and port errors, a malformed DATABASE_URL, and one top-level handler
that turns an unexpected error into one line and a log file."""

from __future__ import annotations

import socket

import pytest

from bot.cli import main
from bot.cli.common import EXIT_CODES

from .conftest import run_cli


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("troubleshoot ")


def test_top_level_help_lists_exit_codes_and_docs(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for code in EXIT_CODES:
        assert f"  {code} " in out
    assert "docs/cli.md" in out and "examples:" in out


@pytest.mark.parametrize("argv, setting", [
    (["ask"], "TROUBLESHOOT_MAX_INPUT_BYTES"), (["eval"], "TROUBLESHOOT_MAX_EVAL_BYTES"),
    (["verify"], "TROUBLESHOOT_MAX_SNIPPET_BYTES"), (["stats"], "DATABASE_URL"),
    (["serve"], "TROUBLESHOOT_SLACK_TIMEOUT_SECONDS"), (["worker"], "TROUBLESHOOT_REDIS_TIMEOUT_SECONDS"),
    (["kb", "add"], "TROUBLESHOOT_MAX_ARTICLE_BYTES"), (["index", "build"], "TROUBLESHOOT_INDEX_DIR"),
    (["kb", "check"], "TROUBLESHOOT_KNOWLEDGE_DIR"),
])
def test_every_command_has_a_description_an_example_and_its_settings(capsys, argv, setting):
    assert main([*argv, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"troubleshoot {argv[0]}" in out.split("examples:\n  ")[1]
    assert "settings it reads" in out and setting in out


def test_an_unquoted_error_gets_the_subcommand_usage_and_a_hint(capsys):
    code = main(["ask", "RuntimeError:", "CUDA", "out", "of", "memory"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("usage: troubleshoot ask")
    assert "unrecognized arguments: CUDA out of memory" in err and "must be quoted" in err


def test_a_bad_option_of_a_nested_command_shows_that_command(capsys):
    assert main(["kb", "list", "--nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: troubleshoot kb list") and "unrecognized arguments: --nope" in err
    assert "quoted" not in err


@pytest.mark.parametrize("argv, message", [
    (["serve", "--http", "--port", "70000"], "a port is 0 to 65535, got 70000"),
    (["serve", "--http", "--port", "http"], "not a port number: 'http'"),
    (["worker", "--concurrency", "0"], "must be at least 1, got 0"),
])
def test_bad_numbers_are_usage_errors(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_malformed_database_url_is_one_line():
    run = run_cli("stats", env={"DATABASE_URL": "not a url"})
    assert run.returncode == 2
    assert run.stderr.strip() == ("troubleshoot stats: bad setting: DATABASE_URL=(hidden): not a database URL "
                                  "(expected e.g. postgresql+psycopg://user:password@host:5432/db or "
                                  "sqlite:////path/to/file.db)")


def _serve_env(**extra):
    # A fake Slack that answers auth.test would be needed to get further; these checks
    # happen before any network use, so the tokens are never sent anywhere.
    return {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": "s", **extra}


def test_serve_with_the_port_in_use_or_a_bad_host(monkeypatch, capsys):
    """make_http_server's errors, without Slack: build_context is replaced by a stub."""
    from bot.cli import serve as serve_module

    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    monkeypatch.setattr(serve_module, "build_context", lambda settings: object())
    monkeypatch.setattr(serve_module, "build_app", lambda ctx: object())
    monkeypatch.setattr(serve_module, "start_warm_up", lambda ctx: None)
    monkeypatch.setattr(serve_module, "_log_knowledge_problems", lambda: None)

    def make_http_server(app, ctx, host, port, threads=8):  # the real server, serving nothing
        from bot.slack.app import HttpServer

        return HttpServer(lambda environ, start_response: [], host, port, threads)

    monkeypatch.setattr(serve_module, "make_http_server", make_http_server)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        assert main(["serve", "--http", "--host", "127.0.0.1", "--port", str(port)]) == 2
        err = capsys.readouterr().err
        assert f"troubleshoot serve: cannot listen on 127.0.0.1:{port} (Address already in use)" in err
    finally:
        taken.close()
    assert main(["serve", "--http", "--host", "no-such-host.invalid", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "troubleshoot serve: cannot listen on no-such-host.invalid:0" in err and "Traceback" not in err


def test_an_unexpected_error_is_one_line_and_a_log_file(monkeypatch, capsys, tmp_path):
    from bot.cli import stats as stats_module

    monkeypatch.setenv("TROUBLESHOOT_VAR_DIR", str(tmp_path))

    def broken(_args):
        raise RuntimeError("a bug deep inside\nsecond line")

    monkeypatch.setattr(stats_module, "stats", broken)
    assert main(["stats"]) == 5
    err = capsys.readouterr().err
    log = tmp_path / "logs" / "cli.log"
    assert err.strip() == (f"troubleshoot stats: internal error: RuntimeError: a bug deep inside "
                           f"(the traceback is in {log}; please report it)")
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "a bug deep inside" in text


def test_output_the_terminal_cannot_encode_is_replaced(tmp_path):
    """kb add prints the title of a Korean article; an ASCII stdout gets '?' instead of a crash."""
    import shutil

    from .conftest import REPO

    kb = tmp_path / "knowledge"
    shutil.copytree(REPO / "knowledge", kb)
    article = tmp_path / "note.md"
    article.write_text("역전파 두 번: RuntimeError: Trying to backward through the graph a second time\n"
                       "retain_graph=True 를 첫 번째 backward 에 주세요.\n", encoding="utf-8")
    run = run_cli("kb", "add", "--dir", str(kb), "--dry-run", str(article), env={"PYTHONIOENCODING": "ascii"})
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "title: ?" in run.stdout
