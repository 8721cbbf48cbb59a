"""A seccomp filter for candidate processes: no new sockets.

A kernel computes on tensors it is handed; it has no use for a socket. Landlock (repair/landlock.py) stops TCP,
but not UDP, raw or netlink sockets, nor connecting to a Unix socket by its path (a shared fork server's, or a
container's docker.sock). This filter makes socket(2) fail with EPERM, for the process and everything it starts,
and io_uring_setup(2) too (io_uring can open sockets without calling socket(2)); socketpair(2), which reaches
nothing outside, stays. System calls of another ABI (i386 or x32 on x86_64) fail alike, since their numbers
differ. Needs no privilege (no_new_privs is set first). x86_64 and aarch64; elsewhere nothing is installed.
"""
from __future__ import annotations

import ctypes
import os
import platform
import struct

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_RET_ALLOW, _RET_EPERM = 0x7FFF0000, 0x00050000 | 1
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_X32_BIT = 0x40000000
# machine -> (AUDIT_ARCH_*, the numbers of socket and io_uring_setup)
_ARCHES = {"x86_64": (0xC000003E, 41, 425), "aarch64": (0xC00000B7, 198, 425)}


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def _program(arch: int, nr_socket: int, nr_io_uring_setup: int) -> bytes:
    return b"".join([
        _insn(_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _insn(_JEQ_K, 1, 0, arch),
        _insn(_RET_K, 0, 0, _RET_EPERM),  # another ABI: its numbers mean other calls
        _insn(_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        _insn(_JGE_K, 3, 0, _X32_BIT),  # x32 calls carry this bit on x86_64
        _insn(_JEQ_K, 2, 0, nr_socket),
        _insn(_JEQ_K, 1, 0, nr_io_uring_setup),
        _insn(_RET_K, 0, 0, _RET_ALLOW),
        _insn(_RET_K, 0, 0, _RET_EPERM),
    ])


def deny_sockets() -> bool:
    """Install the filter on this process for good. False where it cannot be (another machine, no seccomp);
    OSError when the kernel refuses it."""
    spec = _ARCHES.get(platform.machine())
    if spec is None:
        return False
    code = _program(*spec)

    class _Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    prog = _Fprog(len(code) // 8, code)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        if err == 22:  # EINVAL: a kernel without seccomp filters
            return False
        raise OSError(err, f"seccomp: {os.strerror(err)}")
    return True
