"""Resource limits of a sandboxed process: rlimits, a temporary memory ceiling, and dying with its parent."""
from __future__ import annotations

import os
import resource
import signal
from contextlib import contextmanager
from pathlib import Path

from repair.engine.confine.libc import libc

_MB = 1 << 20


def prctl(option: int, arg: int) -> None:
    """Linux prctl(2); nothing where there is none."""
    try:
        libc().prctl(option, arg)
    except (OSError, AttributeError):
        pass


def set_parent_death_signal(sig: int = signal.SIGKILL) -> None:
    """Linux: die with the parent, so no sandboxed process outlives its engine."""
    prctl(1, int(sig))  # PR_SET_PDEATHSIG


def _vm_bytes(field: str) -> int:
    """A size from /proc/self/status (VmSize: address space, VmData: private writable memory)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _user_tasks() -> int:
    uid, n = os.getuid(), 0
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if p.stat().st_uid == uid:
                    n += len(os.listdir(p / "task"))
            except OSError:
                continue
    return n


_MEMORY_RLIMITS = {"as": (resource.RLIMIT_AS, "VmSize"), "data": (resource.RLIMIT_DATA, "VmData")}


def apply_limits(*, mem_limit_mb: int | None, cpu_seconds: int | None, fsize_mb: int | None,
                 memory_rlimit: str | None = "as", extra_tasks: int | None = 128) -> dict:
    """Set rlimits on this process (irreversibly: soft == hard where the kernel allows). Returns what was set.

    The memory limit caps the address space ("as") or the private writable memory ("data"; see
    Backend.memory_rlimit); None sets no memory limit.
    """
    done: dict = {}
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a segfaulting candidate writes no core file
    if mem_limit_mb and memory_rlimit:
        which, field = _MEMORY_RLIMITS[memory_rlimit]
        # torch + triton already use ~1 GB of it; the candidate gets mem_limit_mb on top of that
        lim = _vm_bytes(field) + mem_limit_mb * _MB
        resource.setrlimit(which, (lim, lim))
        done[f"{memory_rlimit}_bytes"] = lim
    if cpu_seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        done["cpu_seconds"] = cpu_seconds
    if fsize_mb:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize_mb * _MB, fsize_mb * _MB))
        done["fsize_bytes"] = fsize_mb * _MB
    if extra_tasks and os.geteuid() != 0:  # root ignores RLIMIT_NPROC
        n = _user_tasks() + extra_tasks
        resource.setrlimit(resource.RLIMIT_NPROC, (n, n))
        done["nproc"] = n
    return done


@contextmanager
def memory_ceiling(memory_rlimit: str | None, headroom: int):
    """While the block runs, this process may take `headroom` more bytes of its memory limit's kind ("as" or
    "data", as Backend.memory_rlimit; None: no ceiling) than it holds now: an allocation past it fails at once
    (MemoryError, or torch's allocator's RuntimeError). Only the soft limit moves, and back after the block;
    a limit already at least as low stays as it is."""
    if memory_rlimit is None:
        yield
        return
    which, field = _MEMORY_RLIMITS[memory_rlimit]
    soft, hard = resource.getrlimit(which)
    ceiling = _vm_bytes(field) + headroom
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    if soft != resource.RLIM_INFINITY and soft <= ceiling:
        yield
        return
    resource.setrlimit(which, (ceiling, hard))
    try:
        yield
    finally:
        resource.setrlimit(which, (soft, hard))


def file_limit() -> int:
    """The largest file this process may write (RLIMIT_FSIZE; a memfd counts)."""
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return soft if soft != resource.RLIM_INFINITY else 1 << 62
