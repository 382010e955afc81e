"""docker-compose.yml, the Dockerfiles and .env.example, checked without a Docker
engine: the file's structure, every setting documented, the GPU reservation, no
Slack secrets on the worker; and each service started as the plain command it runs
in its container (redis-server, postgres, `troubleshoot worker`, `troubleshoot
serve --http`), with the environment the compose file gives it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml

from .conftest import REPO, PrivateRedis, Worker, free_port, wait_for

COMPOSE = REPO / "docker-compose.yml"
COMPOSE_CPU = REPO / "docker-compose.cpu.yml"
SECCOMP = REPO / "docker" / "worker-seccomp.json"
ENV_EXAMPLE = REPO / ".env.example"
VAR = re.compile(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")
SETTING = re.compile(r"\"((?:TROUBLESHOOT|SLACK)_[A-Z0-9_]+|REDIS_URL|DATABASE_URL)\"")
# The command each service runs, as a plain command on a machine without Docker.
SERVICE_COMMANDS = {
    "redis": "redis-server",
    "postgres": "postgres",
    "bot": "troubleshoot serve --http",
    "gpu-worker": "troubleshoot worker",
}


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def documented() -> set[str]:
    return set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", ENV_EXAMPLE.read_text(), re.M))


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's ${VAR}, ${VAR:-default} and ${VAR:?error}; $$ is a literal $."""
    def one(m: re.Match) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3)
        have = env.get(name)
        if op and op.endswith("-") and not have:
            return arg
        if op and op.endswith("?") and not have:
            raise AssertionError(f"{name} is required: {arg}")
        return have or ""

    return VAR.sub(one, value).replace("$$", "$")


def service_env(service: dict, env: dict[str, str]) -> dict[str, str]:
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        raw = dict(item.split("=", 1) for item in raw)
    return {k: interpolate(str(v), env) for k, v in raw.items() if v is not None}


# --- the file ----------------------------------------------------------------------------

def test_services_and_their_builds(compose):
    services = compose["services"]
    assert set(services) == set(SERVICE_COMMANDS)
    for name, svc in services.items():
        assert "image" in svc or "build" in svc, f"{name}: neither image nor build"
        build = svc.get("build")
        if build:
            context = REPO / (build if isinstance(build, str) else build.get("context", "."))
            dockerfile = context / (build.get("dockerfile", "Dockerfile") if isinstance(build, dict) else "Dockerfile")
            assert dockerfile.is_file(), f"{name}: {dockerfile} does not exist"
            for line in dockerfile.read_text().splitlines():  # what it copies in must exist
                if line.startswith("COPY ") and "--from" not in line:
                    for src in line.split()[1:-1]:
                        assert (context / src).exists(), f"{name}: {dockerfile.name} copies missing {src}"
        assert svc.get("healthcheck", {}).get("test"), f"{name}: no healthcheck"


def test_every_setting_is_documented(compose):
    known = documented()
    referenced = set(VAR.findall(COMPOSE.read_text()))
    missing = {name for name, _, _ in referenced} - known
    assert not missing, f"used in docker-compose.yml but not in .env.example: {sorted(missing)}"
    read_by_code = set()
    for path in (REPO / "bot").rglob("*.py"):
        read_by_code |= set(SETTING.findall(path.read_text(encoding="utf-8")))
    missing = read_by_code - known
    assert not missing, f"read by the code but not in .env.example: {sorted(missing)}"


def test_gpu_worker_reserves_gpus_and_holds_no_slack_secret(compose):
    worker = compose["services"]["gpu-worker"]
    devices = worker["deploy"]["resources"]["reservations"]["devices"]
    assert any(d.get("driver") == "nvidia" and "gpu" in d.get("capabilities", []) for d in devices)
    env = worker.get("environment") or {}
    names = env if isinstance(env, dict) else [e.split("=", 1)[0] for e in env]
    assert not [n for n in names if n.startswith("SLACK_")]
    assert "env_file" not in worker  # an env_file would hand it the whole .env, secrets included
    assert not [line for line in (REPO / "docker" / "worker.Dockerfile").read_text().splitlines()
                if "SLACK_" in line and not line.lstrip().startswith("#")]
    # What bwrap needs in a container (see the README): no longer seccomp=unconfined, a
    # profile of its own.
    assert set(worker["security_opt"]) == {"seccomp=./docker/worker-seccomp.json", "apparmor=unconfined",
                                           "systempaths=unconfined"}


def test_volumes_for_the_index_and_the_store(compose):
    declared = set(compose["volumes"])
    mounts = {name: [v.split(":")[:2] for v in svc.get("volumes", [])] for name, svc in compose["services"].items()}
    assert ["index", "/data/index"] in mounts["bot"]
    assert ["postgres-data", "/var/lib/postgresql/data"] in mounts["postgres"]
    for name, pairs in mounts.items():
        for src, _ in pairs:
            assert src.startswith("/") or src in declared, f"{name}: volume {src} is not declared"
    bot_env = compose["services"]["bot"]["environment"]
    assert bot_env["DATABASE_URL"].startswith("postgresql+psycopg://") and "@postgres:" in bot_env["DATABASE_URL"]


def test_commands_match_the_services(compose):
    for name, command in SERVICE_COMMANDS.items():
        svc = compose["services"][name]
        if "command" in svc:
            assert " ".join(svc["command"]).startswith(command), (name, svc["command"])
        else:  # the image's own command (postgres)
            assert svc["image"].startswith(command)


# --- the services as plain commands ----------------------------------------------------------

def test_redis_service_starts(tmp_path):
    server = PrivateRedis(tmp_path)  # skips where redis-server is missing
    try:
        import redis

        assert redis.Redis.from_url(server.url).ping()
    finally:
        server.stop()


def test_postgres_service_command_is_there():
    exe = shutil.which("postgres")
    if exe is None:
        pytest.skip("postgres is not installed here (the compose file uses the postgres image)")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and "PostgreSQL" in out.stdout


def test_gpu_worker_service_starts_with_its_compose_environment(compose, redis_url, sandbox_ok, tmp_path):
    svc = compose["services"]["gpu-worker"]
    env = service_env(svc, {})
    assert env.pop("REDIS_URL") == "redis://redis:6379/0"  # the compose project's own broker by default
    assert service_env(svc, {"WORKER_REDIS_URL": "redis://gpu-host:6379/1"})["REDIS_URL"] == "redis://gpu-host:6379/1"
    env = {k: v for k, v in env.items() if v}  # unset ones take the code's defaults
    worker = Worker(redis_url, tmp_path, extra_env=env)
    try:
        worker.wait_ready()
        assert "no GPU: jobs run on the CPU" in worker.log
        # The compose health check of this service, run here.
        health = subprocess.run([sys.executable, *svc["healthcheck"]["test"][2:]], cwd=REPO, capture_output=True,
                                text=True, timeout=60, env={**os.environ, "REDIS_URL": redis_url,
                                                            "PYTHONPATH": str(REPO)})
        assert health.returncode == 0 and worker.name in health.stdout, health.stderr
    finally:
        worker.stop()


def test_bot_service_starts_and_answers_its_health_check(compose, redis_url, tmp_path):
    slack_tests = REPO / "tests" / "slack"
    sys.path.insert(0, str(slack_tests))
    try:
        from slack_fake_api import FakeSlack
    finally:
        sys.path.remove(str(slack_tests))
    fake = FakeSlack().start()
    svc = compose["services"]["bot"]
    port = free_port()
    env = service_env(svc, {"SLACK_BOT_TOKEN": fake.bot_token, "SLACK_SIGNING_SECRET": "test-signing-secret",
                            "SLACK_API_URL": fake.api_url, "POSTGRES_PASSWORD": "unused"})
    env.update(REDIS_URL=redis_url, DATABASE_URL=f"sqlite:///{tmp_path / 'bot.db'}")
    env = {k: v for k, v in env.items() if v}
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TROUBLESHOOT_"))}
    full_env.update(env, PYTHONPATH=str(REPO), TROUBLESHOOT_VAR_DIR=str(tmp_path / "var"),
                    TROUBLESHOOT_INDEX_DIR=str(tmp_path / "index"))
    command = [sys.executable, "-m", "bot.cli", *svc["command"][1:]]
    command[command.index("--port") + 1] = str(port)
    log = open(tmp_path / "bot.log", "wb")
    proc = subprocess.Popen(command + ["--host", "127.0.0.1"], cwd=REPO, env=full_env, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        def healthy():
            if proc.poll() is not None:
                raise AssertionError((tmp_path / "bot.log").read_text())
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
                    return reply.status == 200 and json.load(reply)
            except OSError:
                return None

        body = wait_for(healthy, 120, "the bot's /health")
        assert body["ok"] is True
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        fake.stop()


# --- the images ------------------------------------------------------------------------------

DOCKERFILES = {"bot": REPO / "docker" / "bot.Dockerfile", "gpu-worker": REPO / "docker" / "worker.Dockerfile"}


def dockerignored(path: str) -> bool:
    """.dockerignore's rules for one path of the build context: the last pattern that
    matches the path (or a folder above it) decides; `!` lets it in again."""
    import fnmatch

    ignored = False
    parts = path.split("/")
    for raw in (REPO / ".dockerignore").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        pattern = line.lstrip("!").rstrip("/").removeprefix("**/")
        anywhere = line.lstrip("!").startswith("**/")
        candidates = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        if anywhere:
            candidates += parts
        if any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
            ignored = not keep
    return ignored


@pytest.mark.parametrize("service", sorted(DOCKERFILES))
def test_images_build_from_any_index_with_dependencies_before_the_code(service):
    text = DOCKERFILES[service].read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    for arg in ("TORCH_VERSION", "TORCH_INDEX_URL", "PYPI_INDEX_URL"):
        assert any(line.startswith(f"ARG {arg}=") for line in lines), f"{service}: no build argument {arg}"
    torch_install = next(i for i, line in enumerate(lines) if "pip install \"torch==" in line)
    assert '--index-url "${TORCH_INDEX_URL' in lines[torch_install]  # (worker: PyTorch's index for TORCH_CUDA if empty)
    assert "download.pytorch.org" not in "\n".join(lines[torch_install + 1:])
    assert '--index-url "${PYPI_INDEX_URL}"' in text
    deps = next(i for i, line in enumerate(lines) if "deps.py" in line and line.startswith("RUN"))
    code = next(i for i, line in enumerate(lines) if line.startswith("COPY bot"))
    assert torch_install < deps < code, f"{service}: dependencies must be installed before the code is copied"
    assert any("pip install --no-deps -e ." in line for line in lines[code:])


def test_deps_lists_every_dependency_but_torch(tmp_path):
    out = subprocess.run([sys.executable, str(REPO / "docker" / "deps.py"), "postgres"], cwd=REPO,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    listed = out.stdout.split()
    assert not [r for r in listed if r.startswith("torch=")]
    wanted = project["dependencies"] + project["optional-dependencies"]["postgres"]
    assert set(listed) == {r.replace(" ", "") for r in wanted if not r.startswith("torch=")}
    bad = subprocess.run([sys.executable, str(REPO / "docker" / "deps.py"), "gpu"], cwd=REPO,
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode != 0 and "no extra 'gpu'" in bad.stderr


def test_dockerignore_keeps_secrets_and_local_builds_out_of_the_context():
    for path in (".env", ".venv/bin/python", "index/faiss.index", "var/troubleshoot.db", ".git/HEAD",
                 "tests/conftest.py", "bot/__pycache__/x.pyc"):
        assert dockerignored(path), f"{path} would be sent to the Docker daemon"
    for dockerfile in DOCKERFILES.values():
        for line in dockerfile.read_text().splitlines():
            if line.startswith("COPY ") and "--from" not in line:
                for src in line.split()[1:-1]:
                    assert not dockerignored(src), f"{dockerfile.name} copies {src}, which .dockerignore leaves out"
    assert not dockerignored("bot/sandbox/runner.py") and not dockerignored("knowledge/pytorch")


# --- without a GPU, required secrets, the Compose version -------------------------------------

class ComposeLoader(yaml.SafeLoader):
    """yaml with Compose's merge tags: `!reset` removes what the files before set."""


RESET = object()
ComposeLoader.add_constructor("!reset", lambda _loader, _node: RESET)


def merge(base, override):
    """Compose's merge rules for what these files use: mappings merge key by key, `!reset`
    removes the key, anything else replaces."""
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for key, value in override.items():
            if value is RESET:
                out.pop(key, None)
            else:
                out[key] = merge(base.get(key), value) if key in base else value
        return out
    return override


def test_cpu_override_drops_the_gpu_reservation_and_cuda(compose):
    cpu = yaml.load(COMPOSE_CPU.read_text(), Loader=ComposeLoader)
    assert set(cpu["services"]) == {"gpu-worker"}
    merged = merge(compose, cpu)
    worker = merged["services"]["gpu-worker"]
    assert "deploy" not in worker, "a reservation of an nvidia device fails where there is none"
    assert worker["build"]["args"]["TORCH_CUDA"] == "cpu"
    assert worker["build"]["dockerfile"] == "docker/worker.Dockerfile"  # the rest of the service stays
    assert worker["security_opt"] == compose["services"]["gpu-worker"]["security_opt"]
    assert "deploy" in compose["services"]["gpu-worker"]  # the file itself is still the GPU one
    # The command in the file's own header and the README's steps use it the same way.
    command = "docker compose -f docker-compose.yml -f docker-compose.cpu.yml up -d --build"
    for doc in (COMPOSE_CPU, COMPOSE, REPO / "README.md", REPO / "bot" / "jobs" / "README.md"):
        assert command in doc.read_text(), f"{doc.name} does not show how to run without a GPU"


@pytest.mark.parametrize("secret", ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "POSTGRES_PASSWORD"])
def test_a_missing_secret_stops_compose_naming_it(compose, secret):
    given = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s3cret", "POSTGRES_PASSWORD": "pw"}
    text = COMPOSE.read_text()
    interpolate(text, given)  # all there: fine
    for missing in ({k: v for k, v in given.items() if k != secret}, {**given, secret: ""}):
        with pytest.raises(AssertionError, match=f"{secret} is required: set {secret} in .env"):
            interpolate(text, missing)


def test_the_compose_version_is_stated_truthfully():
    text = (REPO / "bot" / "jobs" / "README.md").read_text()
    assert "1.28" not in text and "Compose v2" in text
    assert "docker-compose 1.x rejects" in COMPOSE.read_text()


# --- the worker's seccomp profile ---------------------------------------------------------------

BWRAP_NEEDS = {"clone", "unshare", "mount", "umount2", "pivot_root", "setns", "sethostname"}
# Allowed by Docker's profile only with capabilities a container does not get by default.
NEVER = {"bpf", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "ptrace",
         "process_vm_readv", "process_vm_writev", "perf_event_open", "keyctl", "add_key", "request_key",
         "userfaultfd", "open_by_handle_at", "reboot", "swapon", "swapoff", "acct", "iopl", "ioperm",
         "settimeofday", "clock_settime", "syslog", "quotactl", "lookup_dcookie", "fsopen", "fsmount",
         "move_mount", "open_tree", "mbind", "set_mempolicy", "kcmp", "pidfd_getfd", "vhangup"}


def seccomp_profile() -> dict:
    return json.loads(SECCOMP.read_text())


def allowed_calls(profile: dict) -> set[str]:
    return {n for rule in profile["syscalls"] if rule["action"] == "SCMP_ACT_ALLOW" and not rule.get("args")
            for n in rule["names"]}


def test_seccomp_profile_is_the_default_list_plus_what_bwrap_needs():
    profile = seccomp_profile()
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO" and profile["defaultErrnoRet"] == 1  # EPERM
    assert [a["architecture"] for a in profile["archMap"]] == ["SCMP_ARCH_X86_64"]
    allowed = allowed_calls(profile)
    assert BWRAP_NEEDS <= allowed
    assert not allowed & NEVER, sorted(allowed & NEVER)
    clone3 = [r for r in profile["syscalls"] if "clone3" in r["names"]]
    assert clone3 == [{"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38,
                       "comment": clone3[0]["comment"]}]  # ENOSYS: glibc falls back to clone
    socket = [r for r in profile["syscalls"] if "socket" in r["names"]]
    assert socket[0]["args"] == [{"index": 0, "value": 40, "op": "SCMP_CMP_NE"}]  # no AF_VSOCK
    for rule in profile["syscalls"]:
        assert set(rule) <= {"names", "action", "args", "errnoRet", "comment"}, rule
        assert rule["action"] in ("SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO") and rule["names"]


@pytest.mark.slow
def test_a_sandboxed_run_makes_only_calls_the_profile_allows(sandbox_ok, tmp_path):
    """Every system call of a cold and a warm sandboxed torch run (the worker's side,
    bwrap, the supervisor and the snippet: the container's filter covers them all) is
    one the profile allows, or one Docker's default refuses too and torch goes on
    without (mbind: NUMA placement, CAP_SYS_NICE only)."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (Debian: apt-get install strace)")
    program = (
        "from bot.sandbox import run_snippet\n"
        "from bot.sandbox.warm import WarmRunner\n"
        "code = 'import torch; print(torch.ones(3).sum().item())'\n"
        "assert run_snippet(code).exit_reason == 'ok'\n"
        "with WarmRunner(preload=['torch']) as run:\n"
        "    r = run(code)\n"
        "assert r.exit_reason == 'ok' and '3.0' in r.output, r.output\n"
    )
    trace = tmp_path / "trace.txt"
    out = subprocess.run([strace, "-f", "-qq", "-o", str(trace), sys.executable, "-c", program], cwd=REPO,
                         capture_output=True, text=True, timeout=240,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    if out.returncode != 0 and "ptrace" in out.stderr.lower():
        pytest.skip(f"strace cannot trace here: {out.stderr.strip()[-200:]}")
    assert out.returncode == 0, out.stderr
    used = set(re.findall(r"^\d+\s+(?:<\.\.\. )?([a-z_0-9]+)[( ]", trace.read_text(), re.M))
    assert {"clone", "unshare", "pivot_root", "mount"} <= used, sorted(used)  # bwrap's calls were seen
    profile = seccomp_profile()
    conditional = {n for rule in profile["syscalls"] if rule.get("args") for n in rule["names"]}
    refused = used - allowed_calls(profile) - conditional - {"clone3"}
    assert refused <= {"mbind", "get_mempolicy", "set_mempolicy"}, sorted(refused)


SECCOMP_EXEC = REPO / "tests" / "jobs" / "seccomp_exec.py"
UNDER_PROFILE = (
    "import ctypes\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "print('keyctl', libc.syscall(250, 0, 0, 0, 0, 0), ctypes.get_errno())\n"  # refused: EPERM
    "from bot.sandbox import run_snippet\n"
    "from bot.sandbox.warm import WarmRunner\n"
    "code = 'import torch; print(torch.ones(3).sum().item())'\n"
    "print('cold', run_snippet(code).exit_reason)\n"
    "with WarmRunner(preload=['torch']) as run:\n"
    "    r = run(code)\n"
    "print('warm', r.exit_reason, r.output.strip(), len(r.notes or []))\n"
)


def run_under(profile: Path) -> subprocess.CompletedProcess:
    system_python = shutil.which("python3", path="/usr/bin")
    probe = subprocess.run([system_python or "/usr/bin/python3", "-c", "import seccomp"], capture_output=True)
    if system_python is None or probe.returncode != 0:
        pytest.skip("libseccomp's Python binding is not installed (Debian: apt-get install python3-seccomp)")
    return subprocess.run([system_python, str(SECCOMP_EXEC), str(profile), sys.executable, "-c", UNDER_PROFILE],
                          cwd=REPO, capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.slow
def test_the_sandbox_works_under_the_workers_seccomp_profile(sandbox_ok, tmp_path):
    """The profile loaded by libseccomp as Docker loads it, around a process that runs a
    cold and a warm sandboxed torch run; without bwrap's extra calls the sandbox cannot
    start (so the profile is what let it)."""
    out = run_under(SECCOMP)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "keyctl -1 1" in out.stdout  # the filter was in force: a call outside the list got EPERM
    assert "cold ok" in out.stdout and "warm ok 3.0 0" in out.stdout, out.stdout  # warm: no fallback note
    narrower = seccomp_profile()
    for rule in narrower["syscalls"]:
        rule["names"] = [n for n in rule["names"] if n not in BWRAP_NEEDS - {"clone"}]
    (tmp_path / "narrower.json").write_text(json.dumps(narrower))
    refused = run_under(tmp_path / "narrower.json")
    assert refused.returncode != 0 and "cannot create namespaces here" in refused.stderr, refused.stderr[-2000:]
