"""The compose stack end to end, as an operator runs it without a GPU: build both images,
`up` with the CPU override, then check what a user and Slack see. Not part of the test
suite (it needs a Docker daemon, Compose v2 and the base images); see docker/README.md.

    PYTHONPATH=$PWD python docker/compose_smoke.py [--keep] [--no-build] [--port 3300] [--json]

Checks, in order: every service healthy; /health; /kb/ (the knowledge pages); a signed
Slack request (the URL check) and a signed mention answered through a fake Slack Web API
(run here, reached from the bot's container as host.docker.internal); `troubleshoot
ask` in the bot's container; `troubleshoot verify --queue` of the seed repro through
Redis to the worker's sandbox: reproduced, a fix verified, torch's version in the
report. Prints each step's time and the images' sizes; exits 1 at the first failure
(the stack's logs are printed), 0 when all passed. The stack is taken down (volumes
too) unless --keep.
"""

from __future__ import annotations

import argparse
import json
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "slack"))

from slack_fake_api import FakeSlack  # noqa: E402 - the test suite's fake Slack Web API
from slack_harness import SlackSender, event_body  # noqa: E402

SEED = REPO / "tests" / "verify" / "data" / "seed000_backward_twice.py"
ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"
IMAGES = ("troubleshoot-bot", "troubleshoot-gpu-worker")


class SmokeFailed(Exception):
    pass


class Stack:
    def __init__(self, project: str, env_file: Path, override: Path):
        self.base = ["docker", "compose", "-p", project, "--env-file", str(env_file), "-f", "docker-compose.yml",
                     "-f", "docker-compose.cpu.yml", "-f", str(override)]

    def run(self, *args: str, timeout: float, stdin: bytes | None = None, check: bool = True
            ) -> subprocess.CompletedProcess:
        # From the project folder: compose reads the seccomp profile's path relative to it.
        out = subprocess.run([*self.base, *args], cwd=REPO, input=stdin, capture_output=True, timeout=timeout)
        if check and out.returncode != 0:
            raise SmokeFailed(f"docker compose {' '.join(args)} exited {out.returncode}:\n"
                              f"{out.stderr.decode(errors='replace')[-3000:]}")
        return out

    def exec_bot(self, *command: str, stdin: bytes | None = None, timeout: float = 600) -> str:
        out = self.run("exec", "-T", "bot", *command, stdin=stdin, timeout=timeout, check=False)
        if out.returncode not in (0, 4):  # verify: 4 when no fix worked
            raise SmokeFailed(f"{' '.join(command)} in the bot's container exited {out.returncode}:\n"
                              f"{out.stderr.decode(errors='replace')[-3000:]}")
        return out.stdout.decode(errors="replace")


def get(url: str, timeout: float = 10) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def image_sizes() -> dict[str, int | None]:
    sizes: dict[str, int | None] = {}
    for image in IMAGES:
        out = subprocess.run(["docker", "image", "inspect", "--format", "{{.Size}}", image], capture_output=True,
                             text=True, timeout=60)
        sizes[image] = int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip().isdigit() else None
    return sizes


def smoke(args: argparse.Namespace, timings: dict[str, float], facts: dict) -> None:
    fake = FakeSlack(host="0.0.0.0").start()
    secret = secrets.token_hex(16)
    work = Path(tempfile.mkdtemp(prefix="compose-smoke-"))
    env_file = work / "smoke.env"
    env_file.write_text(
        f"SLACK_BOT_TOKEN={fake.bot_token}\nSLACK_SIGNING_SECRET={secret}\nPOSTGRES_PASSWORD={secrets.token_hex(12)}\n"
        f"SLACK_API_URL=http://host.docker.internal:{fake.port}/api/\nBOT_PORT={args.port}\n"
        # Jobs run on the CPU here: the seed's variants need more than the GPU default budget on a busy machine.
        "TROUBLESHOOT_JOB_SECONDS=600\n")
    override = work / "smoke.override.yml"
    override.write_text("services:\n  bot:\n    extra_hosts: [\"host.docker.internal:host-gateway\"]\n")
    stack = Stack(args.project, env_file, override)
    step = time.monotonic()

    def mark(name: str) -> None:
        nonlocal step
        now = time.monotonic()
        timings[name] = round(now - step, 1)
        step = now
        print(f"compose smoke: {name} ok ({timings[name]} s)", flush=True)

    try:
        if not args.no_build:
            stack.run("build", timeout=3600)
            mark("build")
        facts["image_bytes"] = image_sizes()
        stack.run("up", "-d", "--wait", "--wait-timeout", "900", timeout=960)
        mark("up (every service healthy)")
        base = f"http://127.0.0.1:{args.port}"
        status, body = get(base + "/health")
        if status != 200 or json.loads(body).get("ok") is not True:
            raise SmokeFailed(f"/health answered {status}: {body[:500]!r}")
        status, body = get(base + "/kb/")
        if status != 200 or b"backward" not in body.lower():
            raise SmokeFailed(f"/kb/ answered {status} without the knowledge pages: {body[:300]!r}")
        mark("/health and /kb/")

        sender = SlackSender(base, secret)
        challenge = secrets.token_hex(8)
        reply = sender.raw(json.dumps({"type": "url_verification", "challenge": challenge, "token": "x"}).encode(),
                           "application/json")
        if reply.status != 200 or challenge not in reply.body.decode():
            raise SmokeFailed(f"the signed URL check answered {reply.status}: {reply.body[:300]!r}")
        if sender.raw(b"{}", "application/json", secret="wrong-secret").status != 401:
            raise SmokeFailed("a request signed with another secret was not refused with 401")
        ts = f"{int(time.time())}.000100"
        event = {"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts, "event_ts": ts,
                 "text": f"<@{fake.bot_user_id}> {ERROR}"}
        reply = sender.raw(json.dumps(event_body(event)).encode(), "application/json")
        if reply.status != 200:
            raise SmokeFailed(f"the signed mention answered {reply.status}")
        fake.wait_for(lambda: fake.bodies("chat.postMessage"), timeout=180, what="the bot's answer in Slack")
        answer = json.dumps(fake.bodies("chat.postMessage")[0])
        if "pytorch/backward-twice" not in answer:
            raise SmokeFailed(f"the answer in Slack does not name pytorch/backward-twice: {answer[:500]}")
        mark("signed Slack requests (URL check, a mention answered)")

        out = stack.exec_bot("troubleshoot", "ask", "--json", ERROR, timeout=300)
        if "pytorch/backward-twice" not in out:
            raise SmokeFailed(f"ask did not find pytorch/backward-twice: {out[:500]}")
        mark("ask")

        out = stack.exec_bot("troubleshoot", "verify", "-", "--queue", "--json", stdin=SEED.read_bytes(), timeout=900)
        report = json.loads(out)
        fixed = [f for f in report.get("fixes", []) if f.get("status") == "fixed"]
        torch = (report.get("environment") or {}).get("torch")
        facts["verify"] = {"reproduced": report.get("reproduced"), "fixed": len(fixed), "torch": torch,
                           "worker": (report.get("environment") or {}).get("worker", {}).get("name")}
        if not report.get("reproduced") or not fixed:
            raise SmokeFailed(f"verify --queue: reproduced={report.get('reproduced')}, no fix verified: {out[:800]}")
        if not torch:
            raise SmokeFailed("verify --queue: the report names no torch version (environment.torch is null)")
        mark("verify --queue (reproduced, a fix verified, torch named)")
    except SmokeFailed:
        logs = stack.run("logs", "--no-color", "--tail", "80", timeout=120, check=False)
        print(logs.stdout.decode(errors="replace")[-12000:], file=sys.stderr)
        raise
    finally:
        fake.stop()
        if not args.keep:
            stack.run("down", "-v", "--remove-orphans", timeout=300, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", default="troubleshoot-smoke", help="the compose project name")
    parser.add_argument("--port", type=int, default=3300, help="the bot's published port")
    parser.add_argument("--no-build", action="store_true", help="use the images built before")
    parser.add_argument("--keep", action="store_true", help="leave the stack running")
    parser.add_argument("--json", action="store_true", help="print the timings as JSON at the end")
    args = parser.parse_args()
    version = subprocess.run(["docker", "compose", "version", "--short"], capture_output=True, text=True)
    if version.returncode != 0:
        print("compose smoke: needs Docker with the Compose v2 plugin (`docker compose version` failed)",
              file=sys.stderr)
        return 2
    timings: dict[str, float] = {}
    facts: dict = {"compose": version.stdout.strip()}
    started = time.monotonic()
    try:
        smoke(args, timings, facts)
    except (SmokeFailed, subprocess.TimeoutExpired, AssertionError, OSError, ValueError) as exc:
        print(f"compose smoke: FAILED: {exc}", file=sys.stderr)
        return 1
    facts["total_seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps({"timings": timings, **facts}, indent=2))
    else:
        print(f"compose smoke: all passed in {facts['total_seconds']} s; {facts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
