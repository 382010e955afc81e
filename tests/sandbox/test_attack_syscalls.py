"""Attacks through system calls: ptrace, unshare, mount, new namespaces, and the other
calls the seccomp filter denies.

Several of these calls would fail anyway for a user without capabilities; the tests
pick forms that an unprivileged process may normally make (PTRACE_TRACEME,
unshare(CLONE_NEWUSER), io_uring_setup with a NULL pointer -> EFAULT) so that EPERM
proves the filter did it.
"""

from __future__ import annotations

import errno

from .sandbox_helpers import LIMITS, show

LIBC = (
    "import ctypes, os\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "libc.syscall.restype = ctypes.c_long\n"
    "def call(name, *args):\n"
    "    ctypes.set_errno(0)\n"
    "    ret = getattr(libc, name)(*args)\n"
    "    return ret, ctypes.get_errno()\n"
    "def sys(nr, *args):\n"
    "    args = [ctypes.c_long(a) for a in args] + [ctypes.c_long(0)] * (6 - len(args))\n"
    "    return call('syscall', ctypes.c_long(nr), *args)\n"
)


def run(box, body):
    r = box.run(LIBC + body, limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    return r.output


def test_attack_ptrace(contained):
    out = run(contained, (
        "print('traceme', call('ptrace', 0, 0, 0, 0))\n"  # PTRACE_TRACEME: normally allowed
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    import time; time.sleep(5); os._exit(0)\n"
        "print('attach', call('ptrace', 16, pid, 0, 0))\n"  # PTRACE_ATTACH to its own child
        "os.kill(pid, 9)\n"
        "print('vm_readv', sys(310, pid, 0, 0, 0, 0, 0))\n"
    ))
    assert f"traceme (-1, {errno.EPERM})" in out
    assert f"attach (-1, {errno.EPERM})" in out
    assert f"vm_readv (-1, {errno.EPERM})" in out


def test_attack_unshare_and_setns(contained):
    out = run(contained, (
        "for name, flag in [('user', 0x10000000), ('mount', 0x20000), ('net', 0x40000000), ('pid', 0x20000000)]:\n"
        "    print('unshare', name, call('unshare', flag))\n"
        "fd = os.open('/proc/self/ns/mnt', os.O_RDONLY)\n"
        "print('setns', call('setns', fd, 0))\n"
        "print('clone newuser', sys(56, 0x10000000 | 17, 0, 0, 0, 0))\n"  # clone(CLONE_NEWUSER|SIGCHLD)
        "print('clone3', sys(435, 0, 0))\n"
    ))
    for name in ("user", "mount", "net", "pid"):
        assert f"unshare {name} (-1, {errno.EPERM})" in out, out
    assert f"setns (-1, {errno.EPERM})" in out
    assert f"clone newuser (-1, {errno.EPERM})" in out
    assert f"clone3 (-1, {errno.ENOSYS})" in out
    # plain fork (clone without namespace flags) still works: the fork tests rely on it


def test_attack_mount(contained):
    out = run(contained, (
        "print('mount', call('mount', b'none', b'/tmp', b'tmpfs', 0, None))\n"
        "print('remount', call('mount', None, b'/', None, 32 | 1, None))\n"
        "print('umount2', call('umount2', b'/proc', 2))\n"
        "print('fsopen', sys(430, 0, 0))\n"
        "print('open_tree', sys(428, -100, 0, 0))\n"
        "print('pivot_root', call('pivot_root', b'/tmp', b'/tmp'))\n"
        "print('chroot', call('chroot', b'/tmp'))\n"
    ))
    for name in ("mount", "remount", "umount2", "fsopen", "open_tree", "pivot_root", "chroot"):
        assert f"{name} (-1, {errno.EPERM})" in out, out


def test_attack_other_denied_syscalls(contained):
    out = run(contained, (
        "for name, nr in [('bpf', 321), ('perf_event_open', 298), ('keyctl', 250), ('add_key', 248),\n"
        "                 ('request_key', 249), ('userfaultfd', 323), ('io_uring_setup', 425),\n"
        "                 ('io_uring_enter', 426), ('io_uring_register', 427), ('kexec_load', 246),\n"
        "                 ('kexec_file_load', 320), ('init_module', 175), ('finit_module', 313),\n"
        "                 ('delete_module', 176), ('open_by_handle_at', 304)]:\n"
        "    print(name, sys(nr, 1, 0))\n"
        "st = open('/proc/self/status').read()\n"
        "print([l for l in st.splitlines() if l.startswith(('Seccomp', 'NoNewPrivs', 'CapEff', 'CapBnd'))])\n"
    ))
    lines = dict(line.split(" ", 1) for line in out.splitlines()[:-1])
    assert all(v == f"(-1, {errno.EPERM})" for v in lines.values()), lines
    assert len(lines) == 15
    assert "'Seccomp:\\t2'" in out and "'NoNewPrivs:\\t1'" in out
    assert "'CapEff:\\t0000000000000000'" in out


def test_attack_i386_syscall_abi_is_killed(contained):
    # int 0x80 uses the i386 table, where the x86_64 numbers mean other calls: the
    # filter kills the process instead of guessing.
    code = (
        "import ctypes, mmap\n"
        "buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
        "buf.write(bytes([0xb8, 20, 0, 0, 0, 0xcd, 0x80, 0xc3]))\n"  # mov eax, 20 (getpid); int 0x80; ret
        "addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))\n"
        "print('before', flush=True)\n"
        "ctypes.CFUNCTYPE(ctypes.c_long)(addr)()\n"
        "print('AFTER')\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert r.exit_reason == "killed", show(r)
    assert r.signal == 31  # SIGSYS
    assert "AFTER" not in r.output


def test_attack_ptrace_class_calls(contained):
    # Each of these reaches into another process (descriptors, memory, pages); pid 1 is
    # the supervisor that holds the report. EPERM from the filter, whatever the kernel
    # would have said.
    out = run(contained, (
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    import time; time.sleep(5); os._exit(0)\n"
        "pidfd = os.pidfd_open(pid)\n"
        "print('pidfd_getfd', sys(438, pidfd, 0, 0))\n"
        "print('pidfd_getfd_pid1', sys(438, os.pidfd_open(1), 3, 0))\n"
        "print('kcmp', sys(312, os.getpid(), pid, 0, 0, 0))\n"  # KCMP_FILE
        "print('process_madvise', sys(440, pidfd, 0, 0, 0, 0))\n"
        "print('move_pages', sys(279, pid, 0, 0, 0, 0, 0))\n"
        "print('migrate_pages', sys(256, pid, 0, 0, 0))\n"
        "print('process_vm_writev', sys(311, 1, 0, 0, 0, 0, 0))\n"
        "os.kill(pid, 9)\n"
    ))
    for name in ("pidfd_getfd", "pidfd_getfd_pid1", "kcmp", "process_madvise", "move_pages", "migrate_pages",
                 "process_vm_writev"):
        assert f"{name} (-1, {errno.EPERM})" in out, out


def test_attack_write_pid1_memory(contained):
    # /proc/1/mem of the supervisor: not writable (nor readable): it is not dumpable.
    out = run(contained, (
        "for path in ('/proc/1/mem', '/proc/1/fd/0', '/proc/1/environ', '/proc/1/map_files'):\n"
        "    for mode in (os.O_RDWR, os.O_RDONLY):\n"
        "        try:\n"
        "            os.close(os.open(path, mode)); print('OPENED', path, mode)\n"
        "        except OSError as e:\n"
        "            print('denied', path, e.errno)\n"
    ))
    assert "OPENED" not in out, out
    assert f"denied /proc/1/mem {errno.EACCES}" in out, out
