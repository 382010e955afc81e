"""The seccomp program, run through a small classic-BPF interpreter: every jump offset
and return value is checked without a kernel (the attack tests check it with one)."""

from __future__ import annotations

import errno
import struct

import pytest

from bot.sandbox import seccomp

ALLOW = seccomp.RET_ALLOW
EPERM = seccomp.RET_ERRNO | errno.EPERM
ENOSYS = seccomp.RET_ERRNO | errno.ENOSYS
KILL = seccomp.RET_KILL_PROCESS


def run_bpf(program: bytes, nr: int, arch: int = seccomp.AUDIT_ARCH_X86_64, args=(0,) * 6) -> int:
    data = struct.pack("<iIQ6Q", nr, arch, 0, *args)
    insns = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        if code == seccomp.LD_W_ABS:
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == seccomp.RET_K:
            return k
        elif code in (seccomp.JEQ_K, seccomp.JGE_K, seccomp.JSET_K):
            taken = {seccomp.JEQ_K: acc == k, seccomp.JGE_K: acc >= k, seccomp.JSET_K: bool(acc & k)}[code]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unknown opcode {code:#x}")
        pc += 1


@pytest.fixture(scope="module")
def program() -> bytes:
    return seccomp.build_filter()


@pytest.mark.parametrize("name", sorted(seccomp.DENIED_X86_64))
def test_denied_syscalls_get_eperm(program, name):
    assert run_bpf(program, seccomp.DENIED_X86_64[name]) == EPERM


@pytest.mark.parametrize("name, nr", [("read", 0), ("write", 1), ("openat", 257), ("mmap", 9), ("ioctl", 16),
                                      ("fork", 57), ("execve", 59), ("wait4", 61), ("futex", 202),
                                      ("getpid", 39), ("prctl", 157), ("memfd_create", 319)])
def test_ordinary_syscalls_are_allowed(program, name, nr):
    assert run_bpf(program, nr) == ALLOW


def test_brief_list_is_covered():
    required = {"ptrace", "mount", "umount2", "unshare", "setns", "bpf", "perf_event_open", "keyctl", "add_key",
                "request_key", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load",
                "kexec_file_load", "init_module", "finit_module", "delete_module", "pivot_root", "chroot"}
    assert required <= set(seccomp.DENIED_X86_64)


def test_clone_with_namespace_flags_is_denied_plain_clone_allowed(program):
    sigchld = 17
    thread_flags = 0x003D0F00  # what glibc passes for a pthread
    assert run_bpf(program, seccomp.CLONE, args=(sigchld, 0, 0, 0, 0, 0)) == ALLOW
    assert run_bpf(program, seccomp.CLONE, args=(thread_flags, 0, 0, 0, 0, 0)) == ALLOW
    for flag in (0x10000000, 0x20000000, 0x40000000, 0x00020000, 0x04000000, 0x08000000, 0x02000000):
        assert run_bpf(program, seccomp.CLONE, args=(flag | sigchld, 0, 0, 0, 0, 0)) == EPERM
    assert run_bpf(program, seccomp.CLONE3) == ENOSYS


def test_foreign_abis_are_refused(program):
    assert run_bpf(program, 39, arch=0x40000003) == KILL  # AUDIT_ARCH_I386
    assert run_bpf(program, 39 | seccomp.X32_SYSCALL_BIT) == ENOSYS


def test_program_fits_the_kernel_limit(program):
    assert len(program) % 8 == 0 and len(program) // 8 < 4096


@pytest.mark.parametrize("nr", [seccomp.SOCKET, seccomp.SOCKETPAIR])
def test_socket_families_are_allow_listed(program, nr):
    eafnosupport = seccomp.RET_ERRNO | errno.EAFNOSUPPORT
    for family in seccomp.SOCKET_FAMILIES.values():
        assert run_bpf(program, nr, args=(family, 1, 0, 0, 0, 0)) == ALLOW
    # AF_PACKET 17, AF_RDS 21, AF_TIPC 30, AF_BLUETOOTH 31, AF_ALG 38, AF_VSOCK 40, AF_KCM 41, AF_XDP 44, AF_CAN 29
    for family in (0, 3, 4, 5, 17, 21, 29, 30, 31, 38, 40, 41, 44, 45, 46, 255, 0xFFFF):
        assert run_bpf(program, nr, args=(family, 1, 0, 0, 0, 0)) == eafnosupport, family
    # the rest of the filter still runs after the socket block
    assert run_bpf(program, seccomp.DENIED_X86_64["ptrace"]) == EPERM
    assert run_bpf(program, 0) == ALLOW


def test_ptrace_class_calls_are_denied(program):
    for name in ("pidfd_getfd", "kcmp", "move_pages", "migrate_pages", "process_madvise", "process_vm_readv",
                 "process_vm_writev", "ptrace"):
        assert run_bpf(program, seccomp.DENIED_X86_64[name]) == EPERM, name
