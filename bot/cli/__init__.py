"""The `troubleshoot` command.

The argument contract lives here and in docs/cli.md (commands, exit codes, JSON
output); each subcommand is carried out by a `run(args) -> int` function in the module
of its part of the flow, imported only when that subcommand runs, so `troubleshoot kb
check` does not pay for loading torch or the embedding model.

`main()` is the one top-level handler and the one place exit codes are chosen: a
usage error prints the subcommand's usage (exit 2); a command raises one of the
failures of bot/errors.py, said in one line and mapped to its code by EXIT_OF (input 1,
configuration 2, unavailable 3, nothing verified 4); Ctrl-C stops with one line (exit
130), and an unexpected error prints one line naming the log file that holds its
traceback (exit 5). No traceback reaches the user, and output the terminal cannot
encode is replaced, not a crash.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from bot import logs
from bot.cli.common import (EXIT_CODES, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_NOTHING_VERIFIED,
                            EXIT_SERVICE, EXIT_USAGE, log_traceback, safe_streams, set_verbosity)
from bot.errors import ConfigurationError, Failure, InputError, NothingVerified, Unavailable
from bot.settings import SettingsError, get_settings
from bot.text.lang import LANGUAGES

# Long-running commands: their logs carry time, level and every library's records.
SERVICES = ("serve", "worker")
BY_PROG: dict[str, argparse.ArgumentParser] = {}  # "troubleshoot kb add" -> its parser
RETRIEVERS = ("hybrid", "signature", "bm25", "dense")
DOCS = "docs/cli.md"

# The one mapping from a kind of failure to its exit code (docs/cli.md, "Exit codes").
EXIT_OF: tuple[tuple[type[Failure], int], ...] = (
    (InputError, EXIT_INPUT),
    (ConfigurationError, EXIT_USAGE),
    (Unavailable, EXIT_SERVICE),
    (NothingVerified, EXIT_NOTHING_VERIFIED),
)


def exit_code(failure: Failure) -> int:
    return next((code for kind, code in EXIT_OF if isinstance(failure, kind)), EXIT_INTERNAL)


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("troubleshoot-bot")
    except (ImportError, PackageNotFoundError):  # run from a checkout without installing
        return "0.1.0"


def _exit_codes_text() -> str:
    return "exit codes:\n" + "\n".join(f"  {code:<4} {text}" for code, text in EXIT_CODES.items())


class Parser(argparse.ArgumentParser):
    """argparse with the subcommand's own usage on errors, and a hint when an unquoted
    error message spilled into several arguments."""

    def error(self, message: str) -> NoReturn:
        hint = ""
        if self.prog == "troubleshoot ask" and "unrecognized arguments" in message:
            hint = ("\nhint: an error message with spaces must be quoted, e.g.\n"
                    "  troubleshoot ask \"RuntimeError: CUDA out of memory\"\n"
                    "or piped in: pbpaste | troubleshoot ask -")
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}{hint}\n")


def _sub(sub: Any, name: str, *, help: str, description: str, examples: list[str],  # noqa: A002 - argparse's word
         settings: list[str] | None = None, **kw: Any) -> argparse.ArgumentParser:
    epilog = "examples:\n" + "\n".join(f"  {e}" for e in examples)
    if settings:
        epilog += "\n\nsettings it reads (environment; see .env.example):\n  " + ", ".join(settings)
    epilog += f"\n\nexit codes and JSON output: {DOCS}"
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, description=description, epilog=epilog,
                                                     formatter_class=argparse.RawDescriptionHelpFormatter, **kw)
    BY_PROG[parser.prog] = parser
    return parser


def _common(parser: argparse.ArgumentParser) -> None:
    """-q/-v after the subcommand too (`troubleshoot ask -q ...`)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_const", const=0, dest="sub_verbosity", default=None,
                       help="print errors only (no notes or warnings)")
    group.add_argument("-v", "--verbose", action="store_const", const=2, dest="sub_verbosity",
                       help="print more about what happens (log messages at INFO)")


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {value!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, got {port}")
    return port


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


STORE = ["DATABASE_URL", "TROUBLESHOOT_DB_TIMEOUT_SECONDS", "TROUBLESHOOT_DB_STATEMENT_SECONDS"]
SEARCH = ["TROUBLESHOOT_KNOWLEDGE_DIR", "TROUBLESHOOT_INDEX_DIR", "TROUBLESHOOT_EMBEDDER"]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="troubleshoot",
        description="Answer PyTorch errors and verify fixes by running them in a sandbox.",
        epilog=("examples:\n"
                "  troubleshoot ask \"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\"\n"
                "  python train.py 2>&1 | tail -n 60 | troubleshoot ask -\n"
                "  troubleshoot verify repro.py\n"
                "  troubleshoot COMMAND --help      (each command's options, examples and settings)\n\n"
                + _exit_codes_text() + f"\n\nSettings are environment variables (.env.example lists them all); "
                f"the contracts are in {DOCS}."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"troubleshoot {_version()}")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_const", const=0, dest="verbosity", default=1,
                       help="print errors only (no notes or warnings)")
    group.add_argument("-v", "--verbose", action="store_const", const=2, dest="verbosity",
                       help="print more about what happens (log messages at INFO)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    ask = _sub(sub, "ask", help="answer one pasted error",
               description="Answer one pasted error: the known error it is, its cause, the fixes ranked by how "
                           "often they work, and the dead ends. The text is an argument (quote it), '-' for "
                           "stdin, or @FILE.",
               examples=['troubleshoot ask "RuntimeError: Trying to backward through the graph a second time"',
                         "troubleshoot ask - < error.txt",
                         "troubleshoot ask @error.txt --json --lang ko"],
               settings=SEARCH + ["TROUBLESHOOT_MAX_INPUT_BYTES", "TROUBLESHOOT_STDIN_IDLE_SECONDS",
                                  "TROUBLESHOOT_RECORD_ASK"] + STORE)
    ask.add_argument("text", nargs="?", default=None,
                     help="the error text (quoted); '-' reads stdin, @FILE reads a file; FILE.py (or code "
                          "without an error message) is run in the sandbox and answered from its real error")
    ask.add_argument("--no-run", action="store_true",
                     help="code without an error message: only say it is code, do not run it")
    ask.add_argument("--json", action="store_true", help="print the JSON answer (docs/cli.md)")
    ask.add_argument("--lang", choices=LANGUAGES, help="answer language (default: the asker's language)")
    ask.add_argument("--top", type=_positive, default=3, help="how many matches to show (default 3)")
    ask.add_argument("--pick", type=_positive, metavar="N",
                     help="after a choices answer: answer with choice N of the same message (and keep the pick "
                          "for `kb learn`)")
    ask.add_argument("--retriever", choices=RETRIEVERS, default="hybrid", help=argparse.SUPPRESS)
    _common(ask)
    ask.set_defaults(handler="bot.cli.ask:ask")

    ev = _sub(sub, "eval", help="measure retrieval on a JSONL file of {text, expected}",
              description="Measure top-1, top-3, MRR and latency over a JSONL file with one "
                          '{"text": ..., "expected": ENTRY_ID} object a line.',
              examples=["troubleshoot eval my-errors.jsonl", "cat a.jsonl b.jsonl | troubleshoot eval - --json"],
              settings=SEARCH + ["TROUBLESHOOT_MAX_EVAL_BYTES"])
    ev.add_argument("file", help="the JSONL file, or '-' for stdin")
    ev.add_argument("--json", action="store_true", help="print the JSON report")
    ev.add_argument("--retriever", choices=RETRIEVERS, default="hybrid", help="which retriever to measure")
    _common(ev)
    ev.set_defaults(handler="bot.cli.ask:evaluate")

    kb = _sub(sub, "kb", help="check, list, add and verify knowledge",
              description="Check, list, extend and verify the knowledge base.",
              examples=["troubleshoot kb check", "troubleshoot kb list --json", "troubleshoot kb add post.md",
                        "troubleshoot kb verify pytorch/backward-twice"],
              settings=["TROUBLESHOOT_KNOWLEDGE_DIR"])
    kb_sub = kb.add_subparsers(dest="kb_command", required=True, metavar="KB_COMMAND", parser_class=Parser)
    check = _sub(kb_sub, "check", help="validate every knowledge file (exit 1 on any problem)",
                 description="Validate every knowledge file; each problem is printed with its file, line and "
                             "field.",
                 examples=["troubleshoot kb check", "troubleshoot kb check --dir my-knowledge/"],
                 settings=["TROUBLESHOOT_KNOWLEDGE_DIR"])
    check.add_argument("--dir", help="knowledge folder (default: the project's knowledge/)")
    _common(check)
    check.set_defaults(handler="bot.cli.kb:check")
    lst = _sub(kb_sub, "list", help="list the entries", description="List the entries with their languages, "
               "fixes, dead ends and articles.", examples=["troubleshoot kb list", "troubleshoot kb list --json"],
               settings=["TROUBLESHOOT_KNOWLEDGE_DIR"])
    lst.add_argument("--json", action="store_true", help="print a JSON list")
    lst.add_argument("--dir", help="knowledge folder (default: the project's knowledge/)")
    _common(lst)
    lst.set_defaults(handler="bot.cli.kb:list_entries")
    add = _sub(kb_sub, "add", help="store articles: text, Markdown, saved web pages, folders, wiki or Slack exports",
               description="Store raw (.txt/.md) or curated (front matter) articles, saved web pages (.html: the "
                           "main text only), whole folders (recursively) and .zip exports: a Slack workspace export "
                           "(one article per thread that answers an error) or a wiki export. The language, the "
                           "entries they are about, a title and where each came from are detected and reported, "
                           "file by file. Adding a changed file again replaces its article; --sync also removes "
                           "the articles of files that are gone. Rejections go to stderr.",
               examples=["troubleshoot kb add notes/oom-on-a100.md --source https://example.org/post",
                         "troubleshoot kb add saved/blog-post.html",
                         "troubleshoot kb add runbooks/ --sync",
                         "troubleshoot kb add slack-export.zip --channels ml-help,infra "
                         "--workspace-url https://acme.slack.com",
                         "curl -s URL | troubleshoot kb add - --dry-run"],
               settings=["TROUBLESHOOT_KNOWLEDGE_DIR", "TROUBLESHOOT_MAX_ARTICLE_BYTES",
                         "TROUBLESHOOT_MAX_IMPORT_BYTES", "TROUBLESHOOT_SLACK_EXPORT_NAMES"])
    add.add_argument("files", nargs="+", metavar="FILE",
                     help="article files, folders or .zip exports; '-' reads one article from stdin")
    add.add_argument("--source", help="where the text came from (URL); default file:<name>")
    add.add_argument("--dry-run", action="store_true", help="say what would be stored, write nothing")
    add.add_argument("--sync", action="store_true",
                     help="also remove the articles of files no longer in the folder or zip (and of threads "
                          "no longer kept from a Slack export's channels)")
    add.add_argument("--channels", help="a Slack export: only these channels (comma-separated names)")
    add.add_argument("--names", choices=["display", "id"],
                     help="a Slack export: who answered, by display name or user id "
                          "(default: TROUBLESHOOT_SLACK_EXPORT_NAMES)")
    add.add_argument("--workspace-url", help="a Slack export: https://TEAM.slack.com, for each thread's permalink")
    add.add_argument("--json", action="store_true", help="print a JSON list of the results")
    add.add_argument("--dir", help="knowledge folder (default: the project's knowledge/)")
    _common(add)
    add.set_defaults(handler="bot.cli.kb:add")
    kbv = _sub(kb_sub, "verify", help="run each entry's repro and check its claims (exit 1 when one fails)",
               description="Run each entry's repro snippet in the sandbox and check every claim it makes about "
                           "its fixes and dead ends.",
               examples=["troubleshoot kb verify", "troubleshoot kb verify pytorch/backward-twice --json",
                         "troubleshoot kb verify --export", "troubleshoot kb verify --torch 2.9.1 --export"],
               settings=["TROUBLESHOOT_KNOWLEDGE_DIR", "TROUBLESHOOT_SANDBOX_CPUS"] + STORE)
    kbv.add_argument("ids", nargs="*", metavar="ID", help="entry ids or aliases (default: every entry)")
    kbv.add_argument("--json", action="store_true", help="print the JSON results")
    kbv.add_argument("--no-record", action="store_true", help="do not store the outcomes as evidence")
    kbv.add_argument("--dir", help="knowledge folder (default: the project's knowledge/)")
    kbv.add_argument("--torch", metavar="V1,V2", help="run on these torch environments (see `troubleshoot envs`) "
                     "and record each release's outcome")
    kbv.add_argument("--export", action="store_true",
                     help="write the claims proven into the knowledge base's proofs.json (one row per entry, claim and "
                          "torch release; other releases' rows are kept), which answers show as proven")
    kbv.add_argument("--envs-dir", help=argparse.SUPPRESS)
    _common(kbv)
    kbv.set_defaults(handler="bot.cli.kb:verify")

    export = _sub(kb_sub, "export", help="write the knowledge pages (HTML, Markdown, JSON; en/ko/zh) as static files",
                  description="Write every entry's knowledge page, in en/ko/zh, as static HTML, Markdown and JSON.",
                  examples=["troubleshoot kb export site/", "troubleshoot kb export site/ --format md"],
                  settings=["TROUBLESHOOT_KNOWLEDGE_DIR"] + STORE)
    export.add_argument("out", metavar="DIR", help="the folder to write into (created if missing)")
    export.add_argument("--format", action="append", choices=("html", "md", "json"),
                        help="only this format (repeatable; default: all three)")
    export.add_argument("--dir", help="knowledge folder (default: the project's knowledge/)")
    _common(export)
    export.set_defaults(handler="bot.cli.kb:export")

    draft = _sub(kb_sub, "draft", help="write a skeleton entry for an unanswered error (see `troubleshoot gaps`)",
                 description="Write a skeleton knowledge entry for an unanswered error: a signature from its "
                             "normalised message, the example, empty prose for en/ko/zh. `kb check` then says "
                             "what is left to fill in.",
                 examples=["troubleshoot kb draft 1", "troubleshoot kb draft 1 --dir drafts/"],
                 settings=STORE)
    draft.add_argument("gap", metavar="GAP", help="the gap's rank in `troubleshoot gaps` or the start of its key")
    where = draft.add_mutually_exclusive_group()
    where.add_argument("--dir", help="a knowledge folder to write it into (DIR/entries/<id>.yml; "
                                     "`kb check --dir DIR` then checks it); default: print it")
    where.add_argument("-o", "--output", help="the file to write it to; default: print it")
    draft.add_argument("--force", action="store_true", help="overwrite an existing file")
    _common(draft)
    draft.set_defaults(handler="bot.cli.gaps:draft")
    learn = _sub(kb_sub, "learn", help="review the examples askers tied to entries (picks, 👍)",
                 description="List the questions askers tied to an entry (a pick among choices, a 👍 on an answer), "
                             "by entry, most often seen first; `accept KEY` adds one to its entry's examples "
                             "(checked as `kb check` does), `reject KEY` drops it for good.",
                 examples=["troubleshoot kb learn", "troubleshoot kb learn accept 3f2a9c", "troubleshoot kb learn "
                           "reject 3f2a9c"],
                 settings=["TROUBLESHOOT_KNOWLEDGE_DIR"] + STORE)
    learn.add_argument("action", nargs="?", choices=("accept", "reject"), help="what to do with one example")
    learn.add_argument("key", nargs="?", metavar="KEY", help="the example's key (at least 6 characters)")
    learn.add_argument("--json", action="store_true", help="print JSON")
    learn.add_argument("--dir", help="knowledge folder (default: the project's knowledge/)")
    _common(learn)
    learn.set_defaults(handler="bot.cli.gaps:learn")

    gaps = _sub(sub, "gaps", help="unanswered errors, most asked first (work for the knowledge writers)",
                description="Rank the errors asked without a confident answer by how often they were asked.",
                examples=["troubleshoot gaps", "troubleshoot gaps --json --limit 0"], settings=STORE)
    gaps.add_argument("--json", action="store_true", help="print the JSON list")
    gaps.add_argument("--limit", type=int, default=20, help="how many to list (default 20; 0: all)")
    gaps.add_argument("--all", action="store_true", help="include questions without error text (greetings, words)")
    _common(gaps)
    gaps.set_defaults(handler="bot.cli.gaps:gaps")

    index = _sub(sub, "index", help="build the search index", description="Build the search index.",
                 examples=["troubleshoot index build", "troubleshoot index build --full"], settings=SEARCH)
    index_sub = index.add_subparsers(dest="index_command", required=True, metavar="INDEX_COMMAND",
                                     parser_class=Parser)
    build = _sub(index_sub, "build", help="build or refresh the index (only changed files are re-embedded)",
                 description="Build or refresh the search index: only changed knowledge files are re-embedded, "
                             "and index files that fail their check (size, count, hash) are rebuilt. The progress "
                             "bar is drawn only on a terminal.",
                 examples=["troubleshoot index build", "troubleshoot index build --full"],
                 settings=SEARCH + ["TROUBLESHOOT_APPROX_THRESHOLD", "TROUBLESHOOT_EMBED_THREADS"])
    build.add_argument("--full", action="store_true", help="re-embed everything")
    _common(build)
    build.set_defaults(handler="bot.cli.ask:build_index")

    verify = _sub(sub, "verify", help="run a repro snippet in the sandbox and try each fix",
                  description="Run a repro snippet in the sandbox, classify its error, apply each known fix and "
                              "dead end to it and run it again. Exit 0 when a fix worked (or the snippet runs "
                              "cleanly), 4 when none did or the run timed out.",
                  examples=["troubleshoot verify repro.py", "troubleshoot verify repro.py --fixed fixed.py --json",
                            "pbpaste | troubleshoot verify -", "troubleshoot verify repro.py --queue"],
                  settings=["TROUBLESHOOT_JOB_SECONDS", "TROUBLESHOOT_MAX_SNIPPET_BYTES", "TROUBLESHOOT_SANDBOX_CPUS",
                            "REDIS_URL", "TROUBLESHOOT_REDIS_TIMEOUT_SECONDS", "TROUBLESHOOT_QUEUE_WAIT_SECONDS"]
                  + STORE)
    verify.add_argument("file", help="the snippet (.py), or '-' for stdin")
    verify.add_argument("--fixed", help="a fixed version of the snippet to verify as well ('-' for stdin)")
    verify.add_argument("--queue", action="store_true", help="run through the broker (REDIS_URL) on a GPU worker")
    verify.add_argument("--json", action="store_true", help="print the JSON report")
    verify.add_argument("--no-record", action="store_true",
                        help="do not record the outcome as evidence (recorded by default; see troubleshoot stats)")
    verify.add_argument("--keep-snippet", action="store_true",
                        help="store the snippet's text with the evidence (by default only its sha256 is kept)")
    verify.add_argument("--torch", metavar="V1,V2",
                        help="verify on each of these torch releases (environments from `troubleshoot envs add`)")
    verify.add_argument("--envs-dir", help=argparse.SUPPRESS)
    _common(verify)
    verify.set_defaults(handler="bot.cli.verify:verify")

    envs = _sub(sub, "envs", help="the torch environments this machine verifies on",
                description="Install, list and remove the torch releases verification can run on "
                            "(one environment each).",
                examples=["troubleshoot envs add 2.13.0", "troubleshoot envs list --json"],
                settings=["TROUBLESHOOT_ENVS_DIR", "TROUBLESHOOT_ENVS_INDEX_URL"])
    envs_sub = envs.add_subparsers(dest="envs_command", required=True, metavar="ENVS_COMMAND",
                                   parser_class=Parser)
    env_add = envs_sub.add_parser("add", help="install a torch release into an environment of its own")
    env_add.add_argument("versions", nargs="+", metavar="VERSION", help="torch release, e.g. 2.9.1")
    env_add.add_argument("--json", action="store_true")
    env_add.add_argument("--pip-output", dest="verbose", action="store_true", help="show pip's output")
    env_add.add_argument("--no-index-check", action="store_true",
                         help="do not ask the package index for its releases first (pip still refuses an unknown one)")
    env_add.add_argument("--dir", help="environments folder (default TROUBLESHOOT_ENVS_DIR or <var dir>/envs)")
    env_add.set_defaults(handler="bot.cli.envs:add")
    env_list = envs_sub.add_parser("list", help="the environments, with their size and install time")
    env_list.add_argument("--json", action="store_true")
    env_list.add_argument("--dir")
    env_list.set_defaults(handler="bot.cli.envs:list_envs")
    env_rm = envs_sub.add_parser("remove", help="delete an environment")
    env_rm.add_argument("versions", nargs="+", metavar="VERSION")
    env_rm.add_argument("--dir")
    env_rm.set_defaults(handler="bot.cli.envs:remove")

    stats = _sub(sub, "stats", help="evidence per entry and workaround",
                 description="Evidence per entry and workaround: runs, votes, fix rates and coverage gaps.",
                 examples=["troubleshoot stats", "troubleshoot stats --json"],
                 settings=["TROUBLESHOOT_KNOWLEDGE_DIR"] + STORE)
    stats.add_argument("--json", action="store_true", help="print the JSON document")
    _common(stats)
    stats.set_defaults(handler="bot.cli.stats:stats")

    serve = _sub(sub, "serve", help="run the Slack bot (Socket Mode, or --http)",
                 description="Run the Slack bot: Socket Mode when SLACK_APP_TOKEN is set, otherwise (or with "
                             "--http) an HTTP server for Slack's requests at /slack/events.",
                 examples=["troubleshoot serve", "troubleshoot serve --http --port 3000 --workers 8"],
                 settings=["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL",
                           "TROUBLESHOOT_SLACK_TIMEOUT_SECONDS", "REDIS_URL", "TROUBLESHOOT_WORK_LEASE_SECONDS",
                           "TROUBLESHOOT_WORK_ATTEMPTS", "TROUBLESHOOT_STOP_SECONDS",
                           "TROUBLESHOOT_HTTP_MAX_BODY_BYTES", "TROUBLESHOOT_HTTP_IDLE_SECONDS"] + STORE)
    serve.add_argument("--http", action="store_true", help="listen for Slack's HTTP requests at /slack/events")
    serve.add_argument("--port", type=_port, default=3000, help="port to listen on, 0-65535 (default 3000)")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    serve.add_argument("--workers", type=_positive, default=8,
                       help="HTTP request threads (default 8); the answers run on their own pool")
    _common(serve)
    serve.set_defaults(handler="bot.cli.serve:serve")

    worker = _sub(sub, "worker", help="run a verification worker on the gpu queue",
                  description="Run a verification worker that takes jobs from the gpu queue (Celery over Redis).",
                  examples=["REDIS_URL=redis://bot-host:6379/0 troubleshoot worker",
                            "troubleshoot worker --concurrency 2"],
                  settings=["REDIS_URL", "TROUBLESHOOT_REDIS_TIMEOUT_SECONDS", "TROUBLESHOOT_WORKER_CONCURRENCY",
                            "TROUBLESHOOT_WORKER_NAME", "TROUBLESHOOT_JOB_SECONDS"])
    worker.add_argument("--concurrency", type=_positive, default=None,
                        help="jobs at a time (default: one per GPU)")
    worker.add_argument("--envs-dir", help="its torch environments (default TROUBLESHOOT_ENVS_DIR or <var dir>/envs): "
                        "it listens on a queue for each")
    _common(worker)
    worker.set_defaults(handler="bot.cli.worker:worker")
    return parser


def _prog(args: argparse.Namespace) -> str:
    parts = ["troubleshoot", getattr(args, "command", None), getattr(args, "kb_command", None),
             getattr(args, "index_command", None)]
    return " ".join(p for p in parts if p)


def _say(prog: str, message: str) -> None:
    print(f"{prog}: {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    safe_streams()
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # said by the subcommand's parser, with its usage (and the quoting hint for ask)
            BY_PROG.get(_prog(args), parser).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # usage errors (2), --help and --version (0): returned like every exit code
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    level: int = args.sub_verbosity if getattr(args, "sub_verbosity", None) is not None else args.verbosity
    set_verbosity(level)
    prog = _prog(args)
    module_name, func_name = args.handler.split(":")
    try:
        module = importlib.import_module(module_name)
        try:
            get_settings()  # a malformed setting stops here, named, before anything loads
        except SettingsError as exc:
            args.prog = f"troubleshoot {args.command}"
            raise ConfigurationError(f"bad setting: {exc}") from None
        # Logging, configured once: -q keeps notices back; -v (and the services) log every
        # library's records with time and level.
        logs.configure(level="WARNING" if level <= 0 else None, service=args.command in SERVICES or level >= 2)
        command: Callable[[argparse.Namespace], int | None] = getattr(module, func_name)
        return command(args) or 0
    except Failure as exc:
        # Said under the name the command gave itself (`verify --torch`), else its own; an
        # empty message: the command already said why.
        if str(exc):
            _say(getattr(args, "prog", None) or prog, str(exc))
        return exit_code(exc)
    except KeyboardInterrupt as exc:  # its message, if any, says what was stopped and cleaned up
        print(f"\n{prog}: interrupted" + (f"; {exc}" if str(exc) else ""), file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except Exception as exc:  # noqa: BLE001 - the one top-level handler: one line, the traceback in a file
        where = log_traceback(prog, exc)
        detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
        _say(prog, f"internal error: {type(exc).__name__}" + (f": {detail}" if detail else "")
             + (f" (the traceback is in {where}; please report it)" if where else ""))
        return EXIT_INTERNAL


def _silence_stdout() -> None:
    """After a closed pipe (`| head`), flushing at exit must not raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
