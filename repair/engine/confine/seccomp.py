"""A seccomp filter for candidate processes: no new sockets, and (where asked) no new processes.

A kernel computes on tensors it is handed; it has no use for a socket, nor for a namespace: unshare(CLONE_NEWUSER)
(or a clone or setns into one) would make it root, with every capability, inside a user namespace of its own,
and the filter refuses it (EPERM; clone3, whose flags it cannot read, answers ENOSYS). Landlock (repair/engine/confine/landlock.py) stops TCP,
but not UDP, raw or netlink sockets, nor connecting to a Unix socket by its path (a shared fork server's, or a
container's docker.sock). This filter makes socket(2) fail with EPERM, for the process and everything it starts,
and io_uring_setup(2) too (io_uring can open sockets without calling socket(2)); socketpair(2), which reaches
nothing outside, stays. memfd_create(2) fails too: what is written into a memfd counts against no memory limit
of the writer's (RLIMIT_AS and RLIMIT_DATA count mappings), so a candidate could fill the machine's memory one
memfd at a time; a candidate needs none (it maps the memfds the engine passes it). With `processes=False` it
also refuses fork, vfork and a clone that is not a thread's (threads stay: clone3 answers ENOSYS, and the C
library then creates them with clone): a fork bomb stops there, even as root, whom RLIMIT_NPROC does not hold. System calls of another ABI (i386 or x32 on x86_64) fail alike,
since their numbers differ. Needs no privilege (no_new_privs is set first). x86_64 and aarch64; elsewhere
nothing is installed.
"""
from __future__ import annotations

import ctypes
import functools
import platform
import struct

from repair.engine.confine.libc import error, libc, no_new_privs

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW, _RET_EPERM, _RET_ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_X32_BIT, _CLONE_THREAD = 0x40000000, 0x00010000
_ARCH, _NR, _ARG0 = 4, 0, 16  # offsets in struct seccomp_data (the low half of args[0], little-endian)
# machine -> AUDIT_ARCH_*, and the system call numbers the filter names (no fork/vfork on aarch64)
_ARCHES = {
    "x86_64": (0xC000003E, {"socket": 41, "io_uring_setup": 425, "memfd_create": 319, "clone": 56, "fork": 57,
                            "vfork": 58, "clone3": 435, "unshare": 272, "setns": 308}),
    "aarch64": (0xC00000B7, {"socket": 198, "io_uring_setup": 425, "memfd_create": 279, "clone": 220,
                             "clone3": 435, "unshare": 97, "setns": 268}),
}
# the namespace flags: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; NEWTIME (0x80) only for
# unshare (in clone's flags that byte is the exit signal)
_CLONE_NS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
_UNSHARE_NS = _CLONE_NS | 0x00000080


def _assemble(program: list[tuple]) -> bytes:
    """(code, jt, jf, k) instructions, where a jump target may name a label ("label", name) placed in the list."""
    labels, insns = {}, []
    for item in program:
        if item[0] == "label":
            labels[item[1]] = len(insns)
        else:
            insns.append(item)
    out = []
    for i, (code, jt, jf, k) in enumerate(insns):
        jt, jf = (labels[j] - i - 1 if isinstance(j, str) else j for j in (jt, jf))
        out.append(struct.pack("HBBI", code, jt, jf, k))
    return b"".join(out)


def _program(arch: int, nr: dict[str, int], processes: bool, memfd: bool = False) -> bytes:
    deny = [(_JEQ_K, "eperm", 0, nr[n]) for n in ("socket", "io_uring_setup", *([] if memfd else ["memfd_create"]))]
    # no namespaces: in a user namespace of its own a process is root again, with every capability there
    deny += [(_JEQ_K, "eperm", 0, nr["setns"]), (_JEQ_K, "unshare", 0, nr["unshare"]),
             # clone3's flags are behind a pointer a filter cannot read: "not implemented", and the C library
             # falls back to clone, whose flags it can
             (_JEQ_K, "enosys", 0, nr["clone3"]), (_JEQ_K, "clone", 0, nr["clone"])]
    if not processes:
        deny += [(_JEQ_K, "eperm", 0, nr[n]) for n in ("fork", "vfork") if n in nr]
    return _assemble([
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 0, "eperm", arch),  # another ABI: its numbers mean other calls
        (_LD_W_ABS, 0, 0, _NR),
        (_JGE_K, "eperm", 0, _X32_BIT),  # x32 calls carry this bit on x86_64
        *deny,
        (_RET_K, 0, 0, _RET_ALLOW),
        ("label", "clone"),
        (_LD_W_ABS, 0, 0, _ARG0),  # clone's flags
        (_JSET_K, "eperm", 0, _CLONE_NS),
        *([] if processes else [(_JSET_K, "allow", "eperm", _CLONE_THREAD)]),  # a thread, not a process
        (_RET_K, 0, 0, _RET_ALLOW),
        ("label", "unshare"),
        (_LD_W_ABS, 0, 0, _ARG0),
        (_JSET_K, "eperm", "allow", _UNSHARE_NS),
        ("label", "allow"),
        (_RET_K, 0, 0, _RET_ALLOW),
        ("label", "enosys"),
        (_RET_K, 0, 0, _RET_ENOSYS),
        ("label", "eperm"),
        (_RET_K, 0, 0, _RET_EPERM),
    ])


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


@functools.cache
def _code(processes: bool, memfd: bool = False) -> bytes | None:
    """The filter for this machine, None where there is none for it; made once (in the fork server, by
    prepare(), so that every candidate inherits it)."""
    spec = _ARCHES.get(platform.machine())
    return None if spec is None else _program(*spec, processes, memfd)


def prepare() -> None:
    _code(True), _code(False), _code(True, True), libc().prctl  # noqa: B018 — libc's prctl resolved once


def restrict(*, processes: bool = True, memfd: bool = False) -> bool:
    """Install the filter on this process for good: no sockets, no namespaces, no memfd (unless `memfd`: the
    reference makes the sealed memfds a case's inputs travel in); with processes=False no new processes either.
    False where it cannot be (another machine, no seccomp); OSError when the kernel refuses it."""
    code = _code(processes, memfd)
    if code is None:
        return False
    no_new_privs()
    prog = _Fprog(len(code) // 8, code)
    if libc().prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        if ctypes.get_errno() == 22:  # EINVAL: a kernel without seccomp filters
            return False
        raise error("seccomp")
    return True
