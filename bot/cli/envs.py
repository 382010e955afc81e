"""`troubleshoot envs add VERSION | list | remove VERSION`: the torch environments this
machine holds (bot/envs), which `verify --torch` and `kb verify --torch` run on."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

from bot.errors import ConfigurationError
from bot.sandbox.limits import format_bytes

if TYPE_CHECKING:
    from bot.envs import Environment, EnvStore

PROG = "troubleshoot envs"


def _store(args: argparse.Namespace) -> EnvStore:
    from bot.envs import EnvStore

    return EnvStore(getattr(args, "dir", None) or None)


def add(args: argparse.Namespace) -> int:
    from bot.envs import EnvError

    store = _store(args)
    verbose = getattr(args, "verbose", False)

    def log(line: str) -> None:
        if verbose:
            print(f"  pip: {line}", file=sys.stderr, flush=True)

    failed = 0
    results: list[Environment] = []
    for version in args.versions:
        print(f"{PROG} add: installing torch {version} into {store.root} ...", file=sys.stderr, flush=True)
        started = time.monotonic()
        try:
            env = store.add(version, log=log, check_index=not args.no_index_check)
        except EnvError as exc:  # UnknownVersion among them
            print(f"{PROG} add: {exc}", file=sys.stderr)
            failed += 1
            continue
        results.append(env)
        if not args.json:
            print(f"torch {env.torch} ({env.build}, Python {env.python}) in {env.path}: installed in "
                  f"{env.install_seconds:.0f} s ({time.monotonic() - started:.0f} s with the check), "
                  f"{format_bytes(env.size_bytes)} on disk; torch imports from there in {env.checked.get('seconds')} s")
    if args.json:
        print(json.dumps([e.as_json() for e in results], indent=2))
    if failed:
        raise ConfigurationError("")  # each failure is said above
    return 0


def list_envs(args: argparse.Namespace) -> int:
    store = _store(args)
    envs = store.list()
    if args.json:
        print(json.dumps({"dir": str(store.root), "environments": [e.as_json() for e in envs]}, indent=2))
        return 0
    if not envs:
        print(f"no torch environments in {store.root}; make one with `troubleshoot envs add 2.13.0`")
        return 0
    rows = [("version", "torch", "build", "python", "size", "install", "path")]
    for e in envs:
        rows.append((e.version, e.torch, e.build, e.python, format_bytes(e.size_bytes), f"{e.install_seconds:.0f} s",
                     e.path))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    print(f"{len(envs)} environment(s), {format_bytes(sum(e.size_bytes for e in envs))} in all")
    return 0


def remove(args: argparse.Namespace) -> int:
    from bot.envs import EnvError

    store = _store(args)
    failed = False
    for version in args.versions:
        try:
            env = store.remove(version)
        except EnvError as exc:
            print(f"{PROG} remove: {exc}", file=sys.stderr)
            failed = True
            continue
        print(f"removed torch {env.torch} ({format_bytes(env.size_bytes)} freed) from {env.path}")
    if failed:
        raise ConfigurationError("")  # each failure is said above
    return 0
