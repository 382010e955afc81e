"""Running bubblewrap as an unprivileged host user when the worker is root.

Why: bwrap maps the sandbox's user onto the uid that started it. Started by root,
the sandbox's "uid 65534" is host uid 0 to the kernel: without capabilities, but the
owner of every root-owned file. It could then chmod the host's /dev/null (bound into
/dev) or write global sysctls such as kernel.core_pattern through /proc/sys. So a
root worker drops to an unprivileged uid (nobody by default) before exec'ing bwrap.

bwrap resolves bind sources as the user that runs it, and the base Python may live
where that user cannot go (here /root/.pyenv, under a 0700 /root). Such folders are
first bind-mounted onto a reachable staging folder, in a private mount namespace of
the child alone: the host's mount table is never touched.

Everything in `enter_child` runs between fork and exec, so it only makes plain
system calls (the libc functions are looked up at import time).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import stat
from dataclasses import dataclass, field

DEFAULT_UID = 65534  # nobody
DEFAULT_GID = 65534  # nogroup

CLONE_NEWNS = 0x00020000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_unshare = _libc.unshare
_unshare.argtypes = [ctypes.c_int]
_mount = _libc.mount
_mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]


@dataclass(frozen=True)
class Drop:
    """Who bwrap runs as, and which folders to stage first (source, staging mount point)."""

    uid: int
    gid: int
    groups: tuple[int, ...] = ()
    stage: tuple[tuple[str, str], ...] = field(default_factory=tuple)


def reachable_by(path: str, uid: int, gid: int, *, list_it: bool = True) -> bool:
    """Can uid/gid (not root, no capabilities) walk down to `path` (and list it, if a
    folder and `list_it`)?"""
    path = os.path.realpath(path)
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        d = "/".join(parts[:i]) or "/"
        try:
            st = os.stat(d)
        except OSError:
            return False
        if st.st_uid == uid:
            bits = (st.st_mode >> 6) & 7
        elif st.st_gid == gid:
            bits = (st.st_mode >> 3) & 7
        else:
            bits = st.st_mode & 7
        if d != path:
            need = 1  # walk through
        elif stat.S_ISDIR(st.st_mode):
            need = 5 if list_it else 1
        else:
            need = 4  # read the file

        if bits & need != need:
            return False
    return True


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def enter_child(drop: Drop) -> None:
    """In the child, before exec: stage unreachable folders, then become drop.uid."""
    if drop.stage:
        _check(_unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _check(_mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
        for source, target in drop.stage:
            _check(_mount(source.encode(), target.encode(), None, MS_BIND | MS_REC, None), f"bind {source}")
            _check(_mount(None, target.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
                   f"read-only {target}")
    os.setgroups(list(drop.groups))
    os.setresgid(drop.gid, drop.gid, drop.gid)
    os.setresuid(drop.uid, drop.uid, drop.uid)
