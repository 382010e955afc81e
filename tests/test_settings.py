"""One settings module: every variable declared once (bot/settings.py), documented in
.env.example, read nowhere else, and a bad value named in one line."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import SettingsError, get_settings, setting_names, settings_from

REPO = Path(__file__).resolve().parent.parent
# Besides bot/settings.py, only these may read the process environment: the harness runs
# inside the sandbox, and the allow-list decides what a sandboxed run may see.
ENV_READERS = {"bot/settings.py", "bot/sandbox/harness.py", "bot/sandbox/environment.py"}


def test_every_setting_is_in_env_example():
    documented = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (REPO / ".env.example").read_text(), re.M))
    missing = set(setting_names()) - documented
    assert not missing, f"declared in bot/settings.py but not in .env.example: {sorted(missing)}"


def test_every_setting_has_a_description():
    for name, description in setting_names().items():
        assert len(description) > 10, name


def _reads_environment(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        # os.environ.get(...), os.environ[...], os.getenv(...), `name in os.environ`
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv") \
                and isinstance(node.value, ast.Name) and node.value.id == "os":
            lines.append(node.lineno)
    return lines


def test_no_module_reads_the_environment_outside_the_settings():
    offenders = {}
    for path in sorted((REPO / "bot").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel in ENV_READERS:
            continue
        source = path.read_text(encoding="utf-8")
        lines = _reads_environment(ast.parse(source))
        # Writing is allowed where a comment says why (the worker dropping Slack secrets,
        # a pool process pinning its GPU): those lines assign or delete, never read.
        reads = [n for n in lines if not re.search(r"^\s*(del os\.environ\[|os\.environ\[[^]]+\]\s*=)|ENV-WRITE",
                                                   source.splitlines()[n - 1])]
        if reads:
            offenders[rel] = reads
    assert not offenders, f"read the environment outside bot/settings.py: {offenders}"


@pytest.mark.parametrize("env, words", [
    ({"TROUBLESHOOT_VERIFY_THREADS": "two"}, ["TROUBLESHOOT_VERIFY_THREADS='two'", "not a whole number"]),
    ({"TROUBLESHOOT_MAX_FILE_BYTES": "0"}, ["TROUBLESHOOT_MAX_FILE_BYTES", "at least 1"]),
    ({"TROUBLESHOOT_RECORD_ASK": "maybe"}, ["TROUBLESHOOT_RECORD_ASK", "true/false"]),
    ({"TROUBLESHOOT_LOG_LEVEL": "loud"}, ["TROUBLESHOOT_LOG_LEVEL", "DEBUG"]),
    ({"TROUBLESHOOT_RATES_TTL": "nan"}, ["TROUBLESHOOT_RATES_TTL", "finite"]),
    ({"REDIS_URL": "http://user:pw@example.org"}, ["REDIS_URL=(hidden)", "not a Redis URL"]),
])
def test_a_bad_value_is_named_with_the_expected_form(env, words):
    with pytest.raises(SettingsError) as err:
        settings_from(env)
    for word in words:
        assert word in str(err.value)
    assert "pw" not in str(err.value)


def test_empty_values_mean_the_default():
    s = settings_from({"TROUBLESHOOT_JOB_SECONDS": "", "TROUBLESHOOT_AUTO_CHANNELS": " C1 ,C2,"})
    assert s.job_seconds == 600 and s.auto_channels == {"C1", "C2"}


def test_the_settings_follow_the_environment(monkeypatch):
    monkeypatch.setenv("TROUBLESHOOT_RECORD_ASK", "off")
    assert get_settings().record_ask is False
    monkeypatch.setenv("TROUBLESHOOT_RECORD_ASK", "yes")
    assert get_settings().record_ask is True


@pytest.mark.slow
def test_the_cli_stops_on_a_bad_setting_with_one_line():
    env = {"PATH": "/usr/bin:/bin", "TROUBLESHOOT_VERIFY_THREADS": "-1", "TROUBLESHOOT_RECORD_ASK": "0"}
    run = subprocess.run([sys.executable, "-m", "bot.cli", "kb", "list"], capture_output=True, text=True,
                         env=env, cwd=REPO, timeout=120)
    assert run.returncode == 2
    assert run.stderr.strip() == "troubleshoot kb: bad setting: TROUBLESHOOT_VERIFY_THREADS='-1': must be at least 1"
    assert "Traceback" not in run.stderr
