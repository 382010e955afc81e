"""A seccomp filter, written as a classic BPF program, handed to bubblewrap with
`--seccomp FD` (bwrap installs it right before it executes the command).

No libseccomp binding is needed: a classic BPF program is an array of 8-byte
instructions `struct sock_filter {u16 code; u8 jt; u8 jf; u32 k;}` that the kernel
runs on `struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6];}`.

What it does, in order:
- a foreign syscall ABI (i386 via int 0x80) kills the process: the numbers below are
  x86_64 numbers and would mean other calls there;
- x32 calls (numbers with bit 30 set) fail with ENOSYS, for the same reason;
- socket and socketpair are allowed for the families in SOCKET_FAMILIES only (AF_UNIX,
  AF_INET, AF_INET6, AF_NETLINK: what Python, torch and glibc use; the net namespace
  leaves inet sockets nothing but the sandbox's own loopback); every other family
  (AF_VSOCK, which the net namespace does not cover, TIPC, RDS, ALG, KCM, XDP, PACKET,
  Bluetooth, CAN...) fails with EAFNOSUPPORT, as if the kernel lacked it;
- the listed calls fail with EPERM;
- clone3 fails with ENOSYS (its flags live in memory a filter cannot read; glibc
  then falls back to clone), and clone with any namespace flag fails with EPERM;
- everything else is allowed.
"""

from __future__ import annotations

import errno
import platform
import struct

# x86_64 syscall numbers (asm/unistd_64.h).
DENIED_X86_64: dict[str, int] = {
    "ptrace": 101,
    "mount": 165,
    "umount2": 166,
    "unshare": 272,
    "setns": 308,
    "bpf": 321,
    "perf_event_open": 298,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "pivot_root": 155,
    "chroot": 161,
    # The new mount API reaches what mount(2) does.
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "open_tree_attr": 467,
    # Reading and writing another process's memory or descriptors: ptrace by other means.
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "pidfd_getfd": 438,  # take a descriptor out of another process (the supervisor's report)
    "kcmp": 312,  # compare kernel objects of two processes (descriptor and address probing)
    "process_madvise": 440,  # act on another process's memory
    "move_pages": 279,  # move (or probe) another process's pages
    "migrate_pages": 256,
    # File handles bypass path-based checks (the classic container escape).
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    # POSIX message queues outlive their process in the IPC namespace, and a warm
    # sandbox's supervisor cannot list them to remove them between two runs.
    "mq_open": 240,
}
CLONE = 56
CLONE3 = 435
SOCKET = 41
SOCKETPAIR = 53
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
SOCKET_FAMILIES = {"AF_UNIX": AF_UNIX, "AF_INET": AF_INET, "AF_INET6": AF_INET6, "AF_NETLINK": AF_NETLINK}

# Namespace flags of clone(2): CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

AUDIT_ARCH_X86_64 = 62 | 0x80000000 | 0x40000000
X32_SYSCALL_BIT = 0x40000000

# BPF opcodes
LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RET_K = 0x06  # BPF_RET | BPF_K

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0_LOW = 16  # args[0], low 32 bits (little endian)


class SeccompUnsupported(RuntimeError):
    pass


def _insn(code: int, jt: int, jf: int, k: int) -> tuple[int, int, int, int]:
    return (code, jt, jf, k)


def program(denied: dict[str, int] = DENIED_X86_64) -> list[tuple[int, int, int, int]]:
    """The filter as a list of (code, jt, jf, k) instructions."""
    eperm = RET_ERRNO | errno.EPERM
    p = [
        _insn(LD_W_ABS, 0, 0, OFFSET_ARCH),
        _insn(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        _insn(RET_K, 0, 0, RET_KILL_PROCESS),
        _insn(LD_W_ABS, 0, 0, OFFSET_NR),
        _insn(JGE_K, 0, 1, X32_SYSCALL_BIT),
        _insn(RET_K, 0, 0, RET_ERRNO | errno.ENOSYS),
    ]
    families = sorted(SOCKET_FAMILIES.values())
    n = len(families)
    p += [_insn(JEQ_K, 1, 0, SOCKET), _insn(JEQ_K, 0, n + 3, SOCKETPAIR), _insn(LD_W_ABS, 0, 0, OFFSET_ARG0_LOW)]
    for i, family in enumerate(families):
        p.append(_insn(JEQ_K, n - i, 0, family))  # to the RET_ALLOW after the RET_ERRNO below
    p += [_insn(RET_K, 0, 0, RET_ERRNO | errno.EAFNOSUPPORT), _insn(RET_K, 0, 0, RET_ALLOW)]
    for nr in sorted(set(denied.values())):
        p += [_insn(JEQ_K, 0, 1, nr), _insn(RET_K, 0, 0, eperm)]
    p += [
        _insn(JEQ_K, 0, 1, CLONE3),
        _insn(RET_K, 0, 0, RET_ERRNO | errno.ENOSYS),
        _insn(JEQ_K, 0, 3, CLONE),
        _insn(LD_W_ABS, 0, 0, OFFSET_ARG0_LOW),
        _insn(JSET_K, 0, 1, CLONE_NAMESPACE_FLAGS),
        _insn(RET_K, 0, 0, eperm),
        _insn(RET_K, 0, 0, RET_ALLOW),
    ]
    return p


def build_filter(denied: dict[str, int] = DENIED_X86_64) -> bytes:
    """The filter in the binary form bwrap's --seccomp reads (native byte order)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        raise SeccompUnsupported("the seccomp filter is written for x86_64 syscall numbers; "
                                 f"this machine is {platform.machine()}")
    return b"".join(struct.pack("=HBBI", *insn) for insn in program(denied))


def describe(denied: dict[str, int] = DENIED_X86_64) -> str:
    return (f"seccomp ({len(denied)} syscalls denied with EPERM, ptrace-class calls included; sockets of "
            f"{', '.join(SOCKET_FAMILIES)} only, other families EAFNOSUPPORT; clone with namespace flags denied, "
            f"clone3 ENOSYS, non-x86_64 ABIs blocked)")
