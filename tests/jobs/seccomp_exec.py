"""Load docker/worker-seccomp.json as Docker would (libseccomp, the same rules and
default action) into this process, then exec the given command under it: what runs in
the worker's container, without Docker. Run with a Python that has Debian's
python3-seccomp (the system /usr/bin/python3):

    /usr/bin/python3 tests/jobs/seccomp_exec.py PROFILE.json COMMAND [ARG ...]
"""

import json
import os
import sys

import seccomp

OPS = {"SCMP_CMP_EQ": seccomp.EQ, "SCMP_CMP_NE": seccomp.NE, "SCMP_CMP_MASKED_EQ": seccomp.MASKED_EQ}


def action(rule: dict):
    if rule["action"] == "SCMP_ACT_ALLOW":
        return seccomp.ALLOW
    if rule["action"] == "SCMP_ACT_ERRNO":
        return seccomp.ERRNO(rule.get("errnoRet", 1))
    raise SystemExit(f"seccomp_exec: action {rule['action']} is not used by the profile")


def main() -> None:
    profile = json.load(open(sys.argv[1]))
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
    f = seccomp.SyscallFilter(defaction=seccomp.ERRNO(profile.get("defaultErrnoRet", 1)))
    unknown = []
    for rule in profile["syscalls"]:
        args = [seccomp.Arg(a["index"], OPS[a["op"]], a["value"]) for a in rule.get("args", [])]
        for name in rule["names"]:
            try:
                f.add_rule(action(rule), name, *args)
            except (RuntimeError, ValueError, OSError):
                unknown.append(name)  # as Docker does: a name this libseccomp does not know is left out
    # Root with CAP_SYS_ADMIN may load a filter without no_new_privs, as runc does for a container.
    f.set_attr(seccomp.Attr.CTL_NNP, 0)
    f.load()
    if unknown:
        print(f"seccomp_exec: left out names libseccomp does not know: {unknown}", file=sys.stderr)
    os.execvp(sys.argv[2], sys.argv[2:])


if __name__ == "__main__":
    main()
