"""The one way a command reads a file someone else gave it: a regular file, at most so many bytes.

A path named by a user, a manifest or a result may be a FIFO (a read that never ends), a device (/dev/zero: a
read that never stops), a symlink to either, or a file of gigabytes. `read_bytes` opens it without blocking
(O_NONBLOCK: opening a FIFO with no writer returns at once), refuses anything fstat does not call a regular
file, and reads at most `max_bytes` (+1 to tell a file that grew past the limit). With `within`, the path must
also resolve inside that directory (a symlink out of a candidate's tree is refused). Every refusal is a
`FileRefused`, an OSError naming the file, so callers that already turn an OSError into a one-line bad input
keep doing so.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

DEFAULT_MAX_BYTES = 16 << 20  # a kernel, a problem, a record or a result: far more than any real one


class FileRefused(OSError):
    """Not a regular file, too large, or outside the directory it must stay in."""


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"


def inside(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Whether `path`, symlinks resolved, is `root` or beneath it (root resolved too)."""
    try:
        Path(path).resolve(strict=True).relative_to(Path(root).resolve(strict=True))
        return True
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return False


def read_bytes(path: str | os.PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES,
               within: str | os.PathLike | None = None) -> bytes:
    """The bytes of the regular file at `path` (at most `max_bytes`); FileRefused otherwise, OSError when unreadable."""
    p = os.fspath(path)
    if within is not None and not inside(p, within):
        raise FileRefused(errno.EXDEV, f"resolves outside {os.fspath(within)}", p)
    fd = _open_regular(p, max_bytes)
    try:
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew since fstat (or /proc-like files that report size 0)
        raise FileRefused(errno.EFBIG, f"more than the {_mib(max_bytes)} limit", p)
    return data


def _open_regular(p: str, max_bytes: int) -> int:
    """A read descriptor of the regular file at p. The file is looked at through an O_PATH descriptor first: opening
    a device for reading may do something (a tape rewinds, a watchdog starts), and a FIFO's open may block."""
    try:
        pin = os.open(p, os.O_PATH | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise FileRefused(errno.ELOOP, "a symlink loop", p) from None
        raise
    try:
        st = os.fstat(pin)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(errno.EINVAL, f"not a regular file ({_kind(st.st_mode)})", p)
        if st.st_size > max_bytes:
            raise FileRefused(errno.EFBIG, f"{_mib(st.st_size)}, more than the {_mib(max_bytes)} limit", p)
        try:  # the inode pinned above, whatever the path names by now
            return os.open(f"/proc/self/fd/{pin}", os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:  # no /proc: open the path again, without blocking, and check it is the same file
            fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
            again = os.fstat(fd)
            if (again.st_dev, again.st_ino) != (st.st_dev, st.st_ino):
                os.close(fd)
                raise FileRefused(errno.ESTALE, "changed while it was opened", p) from None
            os.set_blocking(fd, True)
            return fd
    finally:
        os.close(pin)


def read_text(path: str | os.PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES, within: str | os.PathLike | None = None,
              errors: str = "strict") -> str:
    """read_bytes decoded as UTF-8 (UnicodeDecodeError with errors="strict")."""
    return read_bytes(path, max_bytes=max_bytes, within=within).decode("utf-8", errors)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def describe(e: OSError) -> str:
    """`PATH: what is wrong`, one line, for an OSError raised while reading a file."""
    what = e.strerror or str(e)
    return f"{e.filename}: {what}" if e.filename else what
