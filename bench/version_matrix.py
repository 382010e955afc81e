"""Build torch environments for real and verify the seed 000 repro on each.

    python bench/version_matrix.py --torch 2.9.1,2.13.0 [--envs-dir DIR] [--keep]

For each release: `envs add` (pip into a folder of its own; the time and the disk it
takes), then `verify --torch` of tests/verify/data/seed000_backward_twice.py on all of
them, printing per release whether it reproduced, with which wording, and which fixes
held. An environment already in DIR is reused (its recorded install time is shown).

Sizes seen on an x86_64 machine: the local CPU wheel of 2.13.0 makes an environment of
about 820 MiB; PyPI's default x86_64 builds are CUDA builds (2.14.1: about 5.5 GB with its
nvidia-* packages; 2.9.1 likewise several GB), so building one costs that download
unless pip finds the wheels on local disk or TROUBLESHOOT_ENVS_INDEX_URL names an index
with CPU builds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SEED = REPO / "tests" / "verify" / "data" / "seed000_backward_twice.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", default="2.9.1,2.13.0")
    parser.add_argument("--envs-dir", default=None, help="default: a new temporary folder (removed unless --keep)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from bot.envs import EnvError, EnvStore
    from bot.sandbox.limits import format_bytes
    from bot.verify.matrix import format_matrix, run_matrix

    root = Path(args.envs_dir) if args.envs_dir else Path(tempfile.mkdtemp(prefix="bench-envs-"))
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    store = EnvStore(root)
    versions = [v.strip() for v in args.torch.split(",") if v.strip()]
    built, out = [], {"environments": [], "failed": {}}
    for version in versions:
        env = store.get(version)
        started = time.monotonic()
        if env is None:
            try:
                env = store.add(version, log=lambda line: None)
            except EnvError as exc:
                print(f"torch {version}: not built: {exc}", file=sys.stderr)
                out["failed"][version] = str(exc)
                continue
            took = time.monotonic() - started
            print(f"torch {env.torch}: built in {took:.0f} s (pip {env.install_seconds:.0f} s), "
                  f"{format_bytes(env.size_bytes)} on disk, {env.build}")
        else:
            print(f"torch {env.torch}: reused ({env.install_seconds:.0f} s when built, {format_bytes(env.size_bytes)})")
        built.append(env)
        out["environments"].append(env.as_json())
    if built:
        started = time.monotonic()
        report = run_matrix(SEED.read_text(), built)
        out["verify_seconds"] = round(time.monotonic() - started, 1)
        out["report"] = {"versions": report.versions, "matrix": report.matrix,
                         "summary": report.version_summary}
        print(format_matrix(report))
        print(f"verified on {len(built)} release(s) in {out['verify_seconds']} s")
    if args.json:
        print(json.dumps(out, indent=2))
    if not args.keep and not args.envs_dir:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    return 0 if built and not out["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())
