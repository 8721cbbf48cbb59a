"""How a transfer between the engine and a sandbox process fails: a deadline, a closed peer, bad data, no memory."""
from __future__ import annotations

import errno


class WireTimeout(Exception):
    """No complete frame within the deadline."""


class WireClosed(Exception):
    """The other end closed its socket (it exited or died)."""


class WireError(ValueError):
    """A value that cannot travel (not a tensor, scalar, string, dtype, None or list of those)."""


_OOM_TEXT = ("can't allocate memory", "out of memory", "DefaultCPUAllocator", "Cannot allocate memory")


def is_oom(e: BaseException) -> bool:
    """An allocation that failed: MemoryError, mmap's ENOMEM, or torch's allocators' RuntimeError."""
    return (isinstance(e, MemoryError) or (isinstance(e, OSError) and e.errno == errno.ENOMEM)
            or (isinstance(e, RuntimeError) and any(s in str(e) for s in _OOM_TEXT)))
