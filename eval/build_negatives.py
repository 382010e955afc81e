"""Build the negative set and the code-only set and split them into dev and held-out.

    python -m eval.build_negatives                  # (re)write eval/{dev,heldout}/{negatives,code_only}.jsonl
    python -m eval.build_negatives --run            # first run every code-only snippet, store what it raised
    python -m eval.build_negatives --check          # exit 1 if the files are stale, or a snippet now raises
                                                    # something else than what is stored (runs them all)
    python -m eval.build_negatives --check --no-run # the file comparison only (fast)

The lines live in eval/negatives_*.py, eval/through_library.py and eval/code_only.py.
What each code-only snippet raised on this machine's torch is stored in
eval/code_only_observed.json (written by --run) and copied into the line's `observed` key,
so the set can be checked without running anything, and --check proves it still holds.

Snippets run in a child Python (this interpreter) that imports torch once and forks a
fresh process per snippet, each in its own empty temporary directory with a time limit;
what a snippet prints is discarded. No clock and no random generator decide anything
here: the output is the same every run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from . import code_only, negatives_chat, negatives_install, negatives_libraries, negatives_pytorch, through_library
from .negative_line import NEGATIVE_KINDS, POSITIVE_KIND

HERE = Path(__file__).resolve().parent
REQUIRED_IDS = HERE.parent / "knowledge" / "required-ids.txt"
OBSERVED = HERE / "code_only_observed.json"
DEV_SHARE = 0.6
SNIPPET_TIMEOUT_S = 60
NEGATIVES = (negatives_pytorch.ITEMS + negatives_libraries.ITEMS + negatives_install.ITEMS
             + negatives_chat.ITEMS + through_library.ITEMS)
CODE_ONLY = code_only.ITEMS
LINE_KEYS = ("text", "expected", "kind", "lang", "note", "library", "observed")

# Runs in a child interpreter: read [[key, code], ...] as JSON on stdin, print {key: result}.
# torch is imported once, then every snippet runs in a forked process of its own.
RUNNER = r'''
import json, os, runpy, signal, sys, tempfile, time
import numpy, torch
snippets = json.load(sys.stdin)
limit = float(sys.argv[1])
results = {}
for key, code in snippets:
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "snippet.py"), "w") as f:
            f.write(code)
        out = os.path.join(work, "result.json")
        pid = os.fork()
        if pid == 0:
            os.chdir(work)
            os.setsid()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            try:
                runpy.run_path("snippet.py", run_name="__main__")
                res = {"type": None, "message": None}
            except BaseException as exc:
                t = type(exc)
                name = t.__qualname__ if t.__module__ == "builtins" else t.__module__ + "." + t.__qualname__
                res = {"type": name, "message": str(exc)}
            with open(out, "w") as f:
                json.dump(res, f)
            os._exit(0)
        deadline = time.monotonic() + limit
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.02)
        try:
            with open(out) as f:
                results[key] = json.load(f)
        except OSError:
            results[key] = {"type": "<no result: timeout or crash>", "message": None}
json.dump({"torch": torch.__version__, "results": results}, sys.stdout)
'''


class BuildError(Exception):
    """A source line is malformed, or a snippet did not behave as its line says."""


def required_ids() -> list[str]:
    lines = REQUIRED_IDS.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def code_key(item: dict) -> str:
    return hashlib.sha1(item["code"].encode("utf-8")).hexdigest()


def text_key(item: dict) -> str:
    return hashlib.sha1(item["text"].encode("utf-8")).hexdigest()


def check_sources(ids: list[str]) -> None:
    seen: dict[str, str] = {}
    for name, items in (("negatives", NEGATIVES), ("code_only", CODE_ONLY)):
        for n, item in enumerate(items):
            where = f"{name} item {n} ({item['text'][:50]!r})"
            if item["expected"] is not None and item["expected"] not in ids:
                raise BuildError(f"{where}: expected id {item['expected']!r} is not in {REQUIRED_IDS.name}")
            if name == "negatives":
                allowed = NEGATIVE_KINDS | {POSITIVE_KIND}
                if (item["kind"] == POSITIVE_KIND) == (item["expected"] is None):
                    raise BuildError(f"{where}: only {POSITIVE_KIND} lines have an expected id")
            else:
                allowed = code_only.CODE_KINDS
                if item["code"].rstrip("\n") not in item["text"]:
                    raise BuildError(f"{where}: the text does not contain the code that is run")
            if item["kind"] not in allowed:
                raise BuildError(f"{where}: kind {item['kind']!r} does not belong in {name}")
            if item["text"] in seen:
                raise BuildError(f"{where}: same text as {seen[item['text']]}")
            seen[item["text"]] = where


def run_snippets(items: list[dict]) -> dict:
    """Run every snippet; {"torch": version, "results": {code key: {"type", "message"}}}."""
    payload = json.dumps([[code_key(i), i["code"]] for i in items])
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(SNIPPET_TIMEOUT_S)], input=payload,
                          capture_output=True, text=True, timeout=SNIPPET_TIMEOUT_S * len(items) + 300)
    if proc.returncode != 0:
        raise BuildError(f"the snippet runner failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def verify_observation(item: dict, observed: dict) -> None:
    """An erroring snippet must raise its class's message; a clean one must not raise."""
    where = f"code_only {item['expected'] or 'clean'} snippet {item['code'].splitlines()[-1]!r}"
    if item["expected"] is None:
        if observed["type"] is not None:
            raise BuildError(f"{where}: should run cleanly but raised {observed['type']}: {observed['message']}")
        return
    if observed["type"] is None:
        raise BuildError(f"{where}: ran without an exception")
    shown = f"{observed['type']}: {observed['message']}"
    if item["must_contain"] not in shown:
        raise BuildError(f"{where}: raised {shown[:300]!r}, which lacks {item['must_contain']!r}")


def load_observed() -> dict:
    if not OBSERVED.exists():
        raise BuildError(f"{OBSERVED.name} is missing; run python -m eval.build_negatives --run")
    return json.loads(OBSERVED.read_text(encoding="utf-8"))


def observed_json(run: dict) -> str:
    return json.dumps({"torch": run["torch"], "python": sys.version.split()[0],
                       "snippets": dict(sorted(run["results"].items()))},
                      ensure_ascii=False, indent=1) + "\n"


def split(items: list[dict]) -> tuple[list[dict], list[dict]]:
    """Stratified by kind: within a kind the lines are ordered by a hash of their text and the
    first ~60% go to dev. The leftover fractions are given out by largest remainder (ties by a
    hash of the kind) so the whole set is as close to 60/40 as it can be, and every kind with
    two lines or more has at least one line in each part."""
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        by_kind[item["kind"]].append(item)
    kinds = sorted(by_kind)
    exact = {k: DEV_SHARE * len(by_kind[k]) for k in kinds}
    quota = {k: int(exact[k]) for k in kinds}
    left = round(DEV_SHARE * len(items)) - sum(quota.values())
    tie = {k: hashlib.sha1(k.encode()).hexdigest() for k in kinds}
    for k in sorted(kinds, key=lambda k: (-(exact[k] - quota[k]), tie[k]))[:left]:
        quota[k] += 1
    dev, heldout = [], []
    for k in kinds:
        ordered = sorted(by_kind[k], key=text_key)
        n_dev = min(max(quota[k], 1), len(ordered) - 1) if len(ordered) > 1 else quota[k]
        dev += ordered[:n_dev]
        heldout += ordered[n_dev:]
    return dev, heldout


def to_jsonl(items: list[dict]) -> str:
    lines = []
    for item in items:
        line = {k: item[k] for k in LINE_KEYS if k in item}
        lines.append(json.dumps(line, ensure_ascii=False) + "\n")
    return "".join(lines)


def build(observed: dict) -> dict[Path, str]:
    """Every output file and its content, from the sources and the stored observations."""
    ids = required_ids()
    check_sources(ids)
    code_lines = []
    for item in CODE_ONLY:
        result = observed["snippets"].get(code_key(item))
        if result is None:
            raise BuildError(f"no stored observation for snippet {item['code'].splitlines()[-1]!r}; "
                             "run python -m eval.build_negatives --run")
        verify_observation(item, result)
        line = {k: v for k, v in item.items() if k in LINE_KEYS}
        line["observed"] = {"type": result["type"], "message": result["message"], "torch": observed["torch"]}
        code_lines.append(line)
    files = {}
    for name, items in (("negatives", NEGATIVES), ("code_only", code_lines)):
        dev, heldout = split(items)
        files[HERE / "dev" / f"{name}.jsonl"] = to_jsonl(dev)
        files[HERE / "heldout" / f"{name}.jsonl"] = to_jsonl(heldout)
    return files


def rerun_and_compare(observed: dict) -> list[str]:
    """Run every snippet again; the differences from the stored observations."""
    run = run_snippets(CODE_ONLY)
    problems = []
    if run["torch"] != observed["torch"]:
        problems.append(f"torch is {run['torch']}, the observations were made on {observed['torch']}")
    for item in CODE_ONLY:
        key = code_key(item)
        now, then = run["results"][key], observed["snippets"].get(key)
        if now != then:
            problems.append(f"snippet {item['code'].splitlines()[-1]!r}: stored {then}, now {now}")
        try:
            verify_observation(item, now)
        except BuildError as exc:
            problems.append(str(exc))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="store_true", help="run every snippet and store what it raised")
    parser.add_argument("--check", action="store_true", help="compare with the files on disk instead of writing")
    parser.add_argument("--no-run", action="store_true", help="with --check: do not re-run the snippets")
    args = parser.parse_args(argv)
    try:
        if args.run:
            run = run_snippets(CODE_ONLY)
            for item in CODE_ONLY:
                verify_observation(item, run["results"][code_key(item)])
            OBSERVED.write_text(observed_json(run), encoding="utf-8")
            print(f"ran {len(CODE_ONLY)} snippets on torch {run['torch']}; wrote {OBSERVED.relative_to(HERE.parent)}")
        observed = load_observed()
        files = build(observed)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.check:
        stale = [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"out of date: {p.relative_to(HERE.parent)} (run python -m eval.build_negatives)", file=sys.stderr)
        problems = [] if args.no_run else rerun_and_compare(observed)
        for problem in problems:
            print(f"snippet check: {problem}", file=sys.stderr)
        return 1 if stale or problems else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parent)}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
