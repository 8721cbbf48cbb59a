"""Linux Landlock for candidate processes: what a candidate may still do once its process is confined.

Landlock (Linux >= 5.13) lets a process give up rights for itself and everything it starts, root or not.
A confined candidate may read and execute any file (it imports torch, triton, numpy lazily) but write only
under the directories it is given (its scratch directory), and /dev/null. Depending on the kernel's Landlock
ABI it also may not open TCP connections or bind TCP ports (ABI >= 4), nor signal processes outside its
domain (the engine, the fork server, the reference; ABI >= 6). Landlock also forbids ptrace, and so reading
/proc/PID/mem, of any process outside the domain, whatever the uid: a candidate running as root cannot read
the reference process's memory.

The three system calls have the same numbers on every Linux architecture (x86_64, aarch64, ...).
"""
from __future__ import annotations

import ctypes
import functools
import os

from repair.engine.confine.libc import error, libc, no_new_privs

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

# filesystem access rights, and the ABI that introduced each
_FS = {"execute": (1 << 0, 1), "write_file": (1 << 1, 1), "read_file": (1 << 2, 1), "read_dir": (1 << 3, 1),
       "remove_dir": (1 << 4, 1), "remove_file": (1 << 5, 1), "make_char": (1 << 6, 1), "make_dir": (1 << 7, 1),
       "make_reg": (1 << 8, 1), "make_sock": (1 << 9, 1), "make_fifo": (1 << 10, 1), "make_block": (1 << 11, 1),
       "make_sym": (1 << 12, 1), "refer": (1 << 13, 2), "truncate": (1 << 14, 3), "ioctl_dev": (1 << 15, 5)}
_FILE_ONLY = ("execute", "write_file", "read_file", "truncate", "ioctl_dev")  # the rights a rule on a file may grant
_NET_TCP = (1 << 0) | (1 << 1)  # bind, connect (ABI 4)
_SCOPES = (1 << 0) | (1 << 1)  # abstract unix sockets, signals (ABI 6)


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@functools.cache
def abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (an old kernel, Landlock not enabled, not Linux)."""
    try:
        v = libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(v), 0)


def _rights(version: int, names=None) -> int:
    return sum(bit for name, (bit, since) in _FS.items() if since <= version and (names is None or name in names))


def restrict(writable: list[str], *, files: list[str] = ("/dev/null",)) -> int:
    """Confine this process (and its future children) for good: read and execute anywhere, write only beneath
    `writable` (directories) and to `files`; no TCP and no signals outside (where the ABI has them).
    Returns the ABI used, 0 when the kernel has none (nothing done). OSError when the kernel refuses."""
    version = abi()
    if version <= 0:
        return 0
    lib = libc()
    handled = _rights(version)
    # struct landlock_ruleset_attr grew with the ABI: pass only the fields this kernel knows
    fields = [handled] + ([_NET_TCP] if version >= 4 else []) + ([_SCOPES] if version >= 6 else [])
    attr = (ctypes.c_uint64 * len(fields))(*fields)
    fd = lib.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if fd < 0:
        raise error("landlock_create_ruleset")
    try:
        rules = [("/", _rights(version, ("execute", "read_file", "read_dir")))]
        rules += [(d, handled) for d in writable]
        rules += [(f, _rights(version, ("read_file", "write_file"))) for f in files if os.path.exists(f)]
        for path, allowed in rules:
            if not os.path.isdir(path):
                allowed &= _rights(version, _FILE_ONLY)
            _add_rule(lib, fd, path, allowed)
        no_new_privs()
        if lib.syscall(_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            raise error("landlock_restrict_self")
    finally:
        os.close(fd)
    return version


def _add_rule(lib, ruleset_fd: int, path: str, allowed: int) -> None:
    pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = _PathBeneath(allowed, pfd)
        if lib.syscall(_ADD_RULE, ctypes.c_int(ruleset_fd), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                        ctypes.c_uint32(0)) != 0:
            raise error(f"landlock_add_rule({path})")
    finally:
        os.close(pfd)
