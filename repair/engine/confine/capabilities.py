"""Linux capabilities: a confined candidate gives up every one of them for good."""
from __future__ import annotations

import ctypes
import functools

from repair.engine.confine.libc import error, libc, no_new_privs

_CAP_VERSION_3 = 0x20080522
_PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4


@functools.cache
def _cap_last() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 63


def prepare_confinement() -> None:
    """In the fork server, before forking: what drop_capabilities needs, loaded once (children inherit it)."""
    lib = libc()
    lib.prctl, lib.capset, lib.capget  # noqa: B018 — ctypes resolves a symbol once, then keeps it
    _cap_last()


def drop_capabilities() -> None:
    """Give up every Linux capability for good, this process and what it starts: root keeps its uid but loses
    its privileges (it could otherwise lift its own rlimits with CAP_SYS_RESOURCE, load modules, open raw
    sockets, reboot, ...). OSError when the kernel refuses."""
    prepare_confinement()
    lib = libc()
    no_new_privs()
    for cap in range(_cap_last() + 1):  # the bounding set: an exec (of a setuid binary, or as root) regains nothing
        lib.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # needs CAP_SETPCAP: a process without it has none to drop
    lib.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: empty (two 32-bit halves)
    if lib.capset(header, data) != 0:
        raise error("capset")
    if lib.capget(header, data) != 0 or any(data):
        raise OSError(f"capabilities left after capset: {list(data)}")
