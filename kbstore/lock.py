"""One writer at a time: an exclusive, non-blocking flock on <kb>/write.lock, retried for a short wait.

The kernel drops a flock when its process dies (even by SIGKILL), so a crashed writer never leaves the
KB locked. The lock file is never deleted (deleting a flock file races with the next locker); it holds
the current holder's pid for the error message.
"""
from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from kbstore.errors import LockHeld

DEFAULT_WAIT_S = 5.0


def lock_wait_s() -> float:
    return float(os.environ.get("KB_LOCK_WAIT", DEFAULT_WAIT_S))


@contextmanager
def write_lock(path: Path, *, wait_s: float | None = None, what: str = "write") -> Iterator[None]:
    """Hold the KB's write lock; raise LockHeld (naming the holder's pid) if it stays taken for wait_s."""
    wait_s = lock_wait_s() if wait_s is None else wait_s
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockHeld(f"{path.parent}: the KB is locked by another writer ({_holder(fd)}); "
                                   f"waited {wait_s:g} s; retry when it finishes") from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid={os.getpid()} since={datetime.now(timezone.utc).isoformat(timespec='seconds')} op={what}\n".encode(), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    return text or "holder unknown"
