"""Attacks: reaching the worker's services over the network, reading its secrets."""

from __future__ import annotations

import socket
import threading
import uuid

from bot.settings import REPO_ROOT

from .sandbox_helpers import LIMITS, show


def test_attack_network_loopback_to_worker_service(contained):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            accepted.append(conn.recv(100))
            conn.close()

    t = threading.Thread(target=accept)
    t.start()
    try:
        code = (
            "import socket\n"
            "for port in (%d, 6379, 5432):\n"
            "    try:\n"
            "        s = socket.create_connection(('127.0.0.1', port), timeout=2)\n"
            "        s.sendall(b'from the sandbox')\n"
            "        print('CONNECTED', port)\n"
            "    except OSError as e:\n"
            "        print('refused', port, type(e).__name__)\n"
        ) % port
        r = contained.run(code, limits=LIMITS)
    finally:
        stop.set()
        t.join()
        server.close()
    assert r.exit_reason == "ok", show(r)
    assert "CONNECTED" not in r.output
    assert r.output.count("refused") == 3
    assert accepted == []


def test_attack_network_external_address(contained):
    code = (
        "import socket\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 53), timeout=2)\n"
        "    print('CONNECTED')\n"
        "except OSError as e:\n"
        "    print('no route', e.errno)\n"
        "print(sorted(i[1] for i in socket.if_nameindex()))\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert "CONNECTED" not in r.output
    assert "no route 101" in r.output  # ENETUNREACH: no interface but loopback
    assert "['lo']" in r.output


def test_attack_read_secret_from_environment(contained, monkeypatch):
    secret = "xoxb-" + uuid.uuid4().hex
    monkeypatch.setenv("SLACK_BOT_TOKEN", secret)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", secret)
    monkeypatch.setenv("REDIS_URL", f"redis://:{secret}@127.0.0.1:6379/0")
    monkeypatch.setenv("DATABASE_URL", f"postgresql://postgres:{secret}@127.0.0.1/db")
    code = "import os\nprint(dict(os.environ))\nprint(os.environ.get('SLACK_BOT_TOKEN'))\n"
    r = contained.run(code, limits=LIMITS)
    assert r.exit_reason == "ok"
    assert secret not in r.output
    assert "SLACK" not in r.output and "REDIS_URL" not in r.output and "DATABASE_URL" not in r.output


def test_attack_read_secret_from_proc_environ(contained, monkeypatch):
    secret = "xoxb-" + uuid.uuid4().hex
    monkeypatch.setenv("SLACK_BOT_TOKEN", secret)
    code = (
        "import os\n"
        "print('pids', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()), 'own', os.getpid())\n"
        "for p in ['1', 'self', '2', '3'] + [p for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    for name in ('environ', 'cmdline'):\n"
        "        try:\n"
        "            print(p, name, open(f'/proc/{p}/{name}', 'rb').read())\n"
        "        except OSError as e:\n"
        "            print(p, name, 'denied', e.errno)\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    assert secret not in r.output
    assert "SLACK" not in r.output
    # pid 1 is the sandbox's supervisor (harness.py): non-dumpable, so even its clean
    # environment is out of the snippet's reach; the snippet's own process is readable.
    assert "1 environ denied 13" in r.output
    assert "self environ b'" in r.output
    # Only the sandbox's processes: pid 1 and the snippet's (and what it started since).
    pids, own = r.output.splitlines()[0].removeprefix("pids ").split(" own ")
    others = [int(p) for p in pids.strip("[]").split(", ") if p != "1"]
    assert int(own) in others and all(p >= int(own) for p in others), r.output.splitlines()[0]


def test_attack_read_secret_files_outside_the_sandbox(contained, tmp_path):
    secret = "secret-" + uuid.uuid4().hex
    outside = tmp_path / "worker-secret.txt"
    outside.write_text(secret)
    in_checkout = REPO_ROOT / f".sandbox-test-secret-{uuid.uuid4().hex}"
    in_checkout.write_text(secret)
    try:
        paths = [str(outside), str(in_checkout), "/etc/shadow", "/root/.bash_history",
                 str(REPO_ROOT / "pyproject.toml"), str(REPO_ROOT / "bot" / "settings.py"), "/proc/1/root/etc/shadow"]
        code = (
            "import os\n"
            f"for p in {paths!r}:\n"
            "    try:\n"
            "        print('READ', p, open(p).read())\n"
            "    except OSError as e:\n"
            "        print('no', p, e.errno)\n"
            f"for d in ['/', '/root', '/work', {str(REPO_ROOT)!r}, {str(tmp_path)!r}, '/usr/local']:\n"
            "    print(d, os.path.exists(d))\n"
            "try:\n"
            "    import bot\n"
            "    print('IMPORTED bot from', bot.__file__)\n"
            "except ImportError:\n"
            "    print('bot not importable')\n"
        )
        r = contained.run(code, limits=LIMITS)
    finally:
        in_checkout.unlink()
    assert r.exit_reason == "ok", show(r)
    assert secret not in r.output
    assert "READ" not in r.output
    assert f"{REPO_ROOT} False" in r.output and f"{tmp_path} False" in r.output
    assert "/work False" in r.output and "/usr/local False" in r.output
    assert "bot not importable" in r.output
