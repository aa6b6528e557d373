#!/usr/bin/env python3
"""Runs a command under a Docker-style seccomp profile (JSON, the format of Docker's default
profile), as a container started with Docker's default capabilities would get it: for
scripts/intercept-probe.sh, which shows what the seccomp-notification backend can and cannot do
inside a plain `docker run` without starting Docker (docs/interception-backends.md).

    docker-profile-run.py PROFILE.json -- CMD [ARGS...]

Rules whose `includes` ask for a capability outside Docker's default set (CAP_SYS_PTRACE,
CAP_SYS_ADMIN, ...) are left out, and rules whose `excludes` name one of the default set too,
as the engine does when it builds a container's filter; `minKernel` is compared with this
kernel. Only x86-64 rules are loaded (plus the profile's i386/x32 architectures, as the engine
adds them). Needs python3-seccomp (libseccomp's bindings, Debian).
"""
import json
import os
import platform
import sys

import seccomp

# Docker's default capability set (moby's oci/caps/defaults.go).
DEFAULT_CAPS = {
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
    "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
    "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
}
OPS = {
    "SCMP_CMP_NE": seccomp.NE, "SCMP_CMP_LT": seccomp.LT, "SCMP_CMP_LE": seccomp.LE,
    "SCMP_CMP_EQ": seccomp.EQ, "SCMP_CMP_GE": seccomp.GE, "SCMP_CMP_GT": seccomp.GT,
    "SCMP_CMP_MASKED_EQ": seccomp.MASKED_EQ,
}


def kernel_at_least(version):
    have = [int(x) for x in platform.release().split("-")[0].split(".")[:2]]
    want = [int(x) for x in version.split(".")[:2]]
    return have >= want


def applies(rule):
    inc, exc = rule.get("includes") or {}, rule.get("excludes") or {}
    if inc.get("caps") and not set(inc["caps"]) <= DEFAULT_CAPS:
        return False
    if inc.get("arches") and not {"amd64", "x86_64"} & set(inc["arches"]):
        return False
    if inc.get("minKernel") and not kernel_at_least(inc["minKernel"]):
        return False
    if exc.get("caps") and set(exc["caps"]) & DEFAULT_CAPS:
        return False
    if exc.get("arches") and {"amd64", "x86_64"} & set(exc["arches"]):
        return False
    return True


def action(name, errno_ret, default_errno):
    if name == "SCMP_ACT_ALLOW":
        return seccomp.ALLOW
    if name == "SCMP_ACT_ERRNO":
        return seccomp.ERRNO(errno_ret if errno_ret is not None else default_errno)
    if name == "SCMP_ACT_LOG":
        return seccomp.LOG
    raise SystemExit(f"docker-profile-run: unsupported action {name}")


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        raise SystemExit("usage: docker-profile-run.py PROFILE.json -- CMD [ARGS...]")
    profile = json.load(open(sys.argv[1]))
    default_errno = profile.get("defaultErrnoRet", 1)
    f = seccomp.SyscallFilter(defaction=action(profile["defaultAction"], default_errno, default_errno))
    for arch in (seccomp.Arch.X86, seccomp.Arch.X32):
        try:
            f.add_arch(arch)
        except Exception:  # already there, or not supported by this libseccomp
            pass
    loaded = skipped = 0
    for rule in profile["syscalls"]:
        if not applies(rule):
            skipped += 1
            continue
        act = action(rule["action"], rule.get("errnoRet"), default_errno)
        args = [seccomp.Arg(a["index"], OPS[a["op"]], a["value"], a.get("valueTwo", 0))
                for a in rule.get("args") or []]
        for name in rule["names"]:
            try:
                f.add_rule(act, name, *args)
                loaded += 1
            except Exception:  # a name this libseccomp or architecture does not know
                pass
    f.set_attr(seccomp.Attr.CTL_NNP, True)
    f.load()
    print(f"docker-profile-run: {loaded} rules loaded, {skipped} left out (capabilities outside the default set)",
          file=sys.stderr)
    os.execvp(sys.argv[3], sys.argv[3:])


if __name__ == "__main__":
    main()
