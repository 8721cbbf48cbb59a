"""The C library through ctypes, loaded once: in the fork server, so that every child inherits it with the
symbols it resolved. For the system calls that confine a sandboxed process (limits, capabilities, landlock, seccomp)."""
from __future__ import annotations

import ctypes
import functools
import os

_PR_SET_NO_NEW_PRIVS = 38


@functools.cache
def libc() -> ctypes.CDLL:
    lib = ctypes.CDLL(None, use_errno=True)
    lib.syscall.restype = ctypes.c_long
    return lib


def error(what: str) -> OSError:
    """The OSError for the call that just failed (errno read now)."""
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


def no_new_privs() -> None:
    """From now on no exec (a setuid binary, file capabilities) gives this process a privilege it lacks: asked
    before a seccomp filter or a Landlock domain without CAP_SYS_ADMIN, and with capabilities dropped."""
    if libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise error("prctl(PR_SET_NO_NEW_PRIVS)")
