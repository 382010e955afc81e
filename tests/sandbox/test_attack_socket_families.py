"""Attacks through socket families the network namespace does not cover (AF_VSOCK
reaches the host's vsock port space from any net namespace) or that are kernel attack
surface (TIPC, RDS, ALG, KCM, XDP, PACKET...): the seccomp filter refuses every family
but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK with EAFNOSUPPORT. Each test is followed
by an ordinary run (the `contained` fixture)."""

from __future__ import annotations

import errno

import pytest

from .sandbox_helpers import LIMITS, show

FAMILIES = {"AF_VSOCK": 40, "AF_TIPC": 30, "AF_RDS": 21, "AF_ALG": 38, "AF_KCM": 41, "AF_XDP": 44,
            "AF_PACKET": 17, "AF_BLUETOOTH": 31, "AF_CAN": 29, "AF_APPLETALK": 5, "AF_X25": 9, "AF_LLC": 26,
            "AF_IEEE802154": 36, "AF_QIPCRTR": 42, "AF_MCTP": 45, "AF_SMC": 43}

PROBE = (
    "import ctypes, socket\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def raw(family, kind=socket.SOCK_STREAM):\n"
    "    ctypes.set_errno(0)\n"
    "    fd = libc.socket(family, kind, 0)\n"
    "    return fd, ctypes.get_errno()\n"
    "def pair(family):\n"
    "    sv = (ctypes.c_int * 2)()\n"
    "    ctypes.set_errno(0)\n"
    "    return libc.socketpair(family, socket.SOCK_STREAM, 0, sv), ctypes.get_errno()\n"
)


def _run(box, body):
    r = box.run(PROBE + body, limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    return r.output


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_attack_socket_family(contained, name):
    family = FAMILIES[name]
    out = _run(contained, (
        f"for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET, socket.SOCK_RAW):\n"
        f"    print('socket', raw({family}, kind))\n"
        f"print('pair', pair({family}))\n"
    ))
    assert out.count(f"(-1, {errno.EAFNOSUPPORT})") == 5, out


def test_attack_vsock_bind_to_the_host_port_space(contained):
    out = _run(contained, (
        "try:\n"
        "    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)\n"
        "    s.bind((socket.VMADDR_CID_ANY, 5555)); s.listen(1)\n"
        "    print('BOUND')\n"
        "except OSError as e:\n"
        "    print('refused', e.errno)\n"
        "try:\n"
        "    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)\n"
        "    s.settimeout(1); s.connect((2, 22)); print('CONNECTED')\n"  # CID 2: the host
        "except OSError as e:\n"
        "    print('refused', e.errno)\n"
    ))
    assert "BOUND" not in out and "CONNECTED" not in out
    assert out.count(f"refused {errno.EAFNOSUPPORT}") == 2, out


def test_attack_alg_socket_kernel_crypto(contained):
    out = _run(contained, (
        "try:\n"
        "    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)\n"
        "    s.bind(('hash', 'sha256')); print('BOUND')\n"
        "except OSError as e:\n"
        "    print('refused', e.errno)\n"
    ))
    assert out.strip() == f"refused {errno.EAFNOSUPPORT}", out


def test_allowed_families_still_work(contained):
    # Loopback TCP inside the sandbox's own net namespace, a Unix socket pair and a
    # netlink socket (glibc's getifaddrs): what Python, torch and Gloo need.
    out = _run(contained, (
        "a, b = socket.socketpair(); a.sendall(b'unix ok'); print(b.recv(10).decode())\n"
        "srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1)\n"
        "c = socket.create_connection(srv.getsockname()); conn, _ = srv.accept(); c.sendall(b'tcp ok')\n"
        "print(conn.recv(10).decode())\n"
        "s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); print('inet6 ok')\n"
        "n = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print('netlink ok')\n"
        "print('ifaces', [i[1] for i in socket.if_nameindex()])\n"
    ))
    for word in ("unix ok", "tcp ok", "inet6 ok", "netlink ok", "ifaces ['lo']"):
        assert word in out, out


def test_torch_distributed_gloo_on_loopback(contained):
    # torch.distributed with the gloo backend in one process: TCP store, loopback, netlink.
    code = (
        "import os, torch, torch.distributed as dist\n"
        "os.environ.update(MASTER_ADDR='127.0.0.1', MASTER_PORT='29511', GLOO_SOCKET_IFNAME='lo')\n"
        "dist.init_process_group('gloo', rank=0, world_size=1)\n"
        "t = torch.ones(3); dist.all_reduce(t); print('gloo ok', t.tolist())\n"
        "dist.destroy_process_group()\n"
    )
    from .sandbox_helpers import limits
    r = contained.run(code, limits=limits(wall_seconds=60))
    assert r.exit_reason == "ok" and "gloo ok [1.0, 1.0, 1.0]" in r.output, show(r)
