"""Confining a process that is about to run someone else's code, in one call (no build step in between)."""
from __future__ import annotations


def confine_self(writable: list[str], *, confine: bool = True, processes: bool = False, memfd: bool = False) -> int:
    """Give up every capability; with `confine`, also Landlock (read anywhere, write only beneath `writable`, no
    TCP, no signals out) and seccomp (no sockets, namespaces, memfds unless `memfd`, processes unless `processes`).
    Returns the Landlock ABI used (0: none). OSError when the kernel refuses a step: the caller reports it as the
    environment's failure, never runs the code unconfined."""
    from repair.engine.confine import landlock, seccomp
    from repair.engine.confine.capabilities import drop_capabilities

    drop_capabilities()
    if not confine:
        return 0
    abi = landlock.restrict(writable)
    seccomp.restrict(processes=processes, memfd=memfd)
    return abi
