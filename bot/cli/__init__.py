"""The `troubleshoot` command.

The argument contract lives here (README.md lists the commands); each
subcommand is carried out by a `run(args) -> int` function in the module of its
part of the flow, imported only when that subcommand runs, so `troubleshoot kb
check` does not pay for loading torch or the embedding model.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from bot import logs
from bot.settings import SettingsError, get_settings
from bot.text.lang import LANGUAGES

# Long-running commands: their logs carry time, level and every library's records.
SERVICES = ("serve", "worker")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="troubleshoot", description="Answer PyTorch errors and verify fixes by running them.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ask = sub.add_parser("ask", help="answer one pasted error")
    ask.add_argument("text", nargs="?", default=None, help="the error text; '-' or nothing reads stdin")
    ask.add_argument("--json", action="store_true", help="print the JSON answer")
    ask.add_argument("--lang", choices=LANGUAGES, help="answer language (default: the asker's language)")
    ask.add_argument("--top", type=int, default=3, help="how many matches to show (default 3)")
    ask.add_argument("--retriever", choices=("hybrid", "signature", "bm25", "dense"), default="hybrid",
                     help=argparse.SUPPRESS)
    ask.set_defaults(handler="bot.cli.ask:ask")

    ev = sub.add_parser("eval", help="measure retrieval on a JSONL file of {text, expected}")
    ev.add_argument("file")
    ev.add_argument("--json", action="store_true")
    ev.add_argument("--retriever", choices=("hybrid", "signature", "bm25", "dense"), default="hybrid")
    ev.set_defaults(handler="bot.cli.ask:evaluate")

    kb = sub.add_parser("kb", help="check, list and add knowledge")
    kb_sub = kb.add_subparsers(dest="kb_command", required=True, metavar="KB_COMMAND")
    check = kb_sub.add_parser("check", help="validate every knowledge file (exit 1 on any problem)")
    check.add_argument("--dir", help="knowledge folder (default: the project's knowledge/)")
    check.set_defaults(handler="bot.cli.kb:check")
    lst = kb_sub.add_parser("list", help="list the entries")
    lst.add_argument("--json", action="store_true")
    lst.add_argument("--dir")
    lst.set_defaults(handler="bot.cli.kb:list_entries")
    add = kb_sub.add_parser("add", help="store raw or curated articles beside the entries")
    add.add_argument("files", nargs="+")
    add.add_argument("--source", help="where the text came from (URL); default file:<name>")
    add.add_argument("--dry-run", action="store_true", help="say what would be stored, write nothing")
    add.add_argument("--json", action="store_true")
    add.add_argument("--dir")
    add.set_defaults(handler="bot.cli.kb:add")
    kbv = kb_sub.add_parser("verify", help="run each entry's repro and check its claims (exit 1 when one fails)")
    kbv.add_argument("ids", nargs="*", metavar="ID", help="entry ids or aliases (default: every entry)")
    kbv.add_argument("--json", action="store_true")
    kbv.add_argument("--no-record", action="store_true", help="do not store the outcomes as evidence")
    kbv.add_argument("--dir")
    kbv.set_defaults(handler="bot.cli.kb:verify")

    index = sub.add_parser("index", help="build the search index")
    index_sub = index.add_subparsers(dest="index_command", required=True, metavar="INDEX_COMMAND")
    build = index_sub.add_parser("build", help="build or refresh the index (only changed files are re-embedded)")
    build.add_argument("--full", action="store_true", help="re-embed everything")
    build.set_defaults(handler="bot.cli.ask:build_index")

    verify = sub.add_parser("verify", help="run a repro snippet in the sandbox and try each fix")
    verify.add_argument("file")
    verify.add_argument("--fixed", help="a fixed version of the snippet to verify as well")
    verify.add_argument("--queue", action="store_true", help="run through the broker (REDIS_URL) on a GPU worker")
    verify.add_argument("--json", action="store_true")
    verify.add_argument("--no-record", action="store_true",
                        help="do not record the outcome as evidence (recorded by default; see troubleshoot stats)")
    verify.add_argument("--keep-snippet", action="store_true",
                        help="store the snippet's text with the evidence (by default only its sha256 is kept)")
    verify.set_defaults(handler="bot.cli.verify:verify")

    stats = sub.add_parser("stats", help="evidence per entry and workaround")
    stats.add_argument("--json", action="store_true")
    stats.set_defaults(handler="bot.cli.stats:stats")

    serve = sub.add_parser("serve", help="run the Slack bot (Socket Mode, or --http)")
    serve.add_argument("--http", action="store_true", help="listen for Slack's HTTP requests at /slack/events")
    serve.add_argument("--port", type=int, default=3000)
    serve.add_argument("--host", default="0.0.0.0")
    serve.set_defaults(handler="bot.cli.serve:serve")

    worker = sub.add_parser("worker", help="run a verification worker on the gpu queue")
    worker.add_argument("--concurrency", type=int, default=None, help="jobs at a time (default: one per GPU)")
    worker.set_defaults(handler="bot.cli.worker:worker")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    module_name, func_name = args.handler.split(":")
    module = importlib.import_module(module_name)
    try:
        get_settings()  # a malformed setting stops here, named, before anything loads
        logs.configure(service=args.command in SERVICES)
        return int(getattr(module, func_name)(args) or 0)
    except SettingsError as exc:
        print(f"troubleshoot {args.command}: bad setting: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
