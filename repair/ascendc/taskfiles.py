"""Reading an AscendC candidate's or NPUKernelBench task's files as untrusted input: regular files inside the tree.

A task directory comes from a download: a file in it may be a symlink to /etc/shadow (whose text would then be
copied into --out and shown to a model), to /dev/zero (a copy that never ends), a FIFO (a read that never
returns), a symlink loop, or simply gigabytes. Every file is listed without following symlinks; a symlink is
taken only when it resolves to a regular file inside the tree it must stay in; anything else is bad input naming
the file, and every read is bounded (provenance.readfile).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from provenance.readfile import describe, read_bytes
from repair.errors import BadInput

MAX_SOURCE_BYTES = 4 << 20  # NPUKernelBench's largest source is 163 KB
MAX_TREE_BYTES = 64 << 20  # everything one candidate or task directory may hold


def read_source(path: Path, *, within: Path | None = None, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """A source file's text; BadInput (one line naming it) when it is not a readable regular UTF-8 file."""
    try:
        return read_bytes(path, max_bytes=max_bytes, within=within).decode("utf-8")
    except OSError as e:
        raise BadInput(f"cannot read {describe(e)}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: cannot read (not UTF-8)") from None


def list_files(root: Path, *, within: Path | None = None) -> list[Path]:
    """Every regular file beneath `root` (sorted), symlinks not followed; BadInput for a special file, a symlink
    that leaves `within` (default: root) or names no regular file, and a tree past MAX_TREE_BYTES."""
    within = Path(within or root)
    out, total = [], 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=_raise):
        for name in sorted(dirnames):
            d = Path(dirpath, name)
            if d.is_symlink():  # a symlinked directory could be a loop, or the whole of /
                raise BadInput(f"{d}: a symlink to a directory (give the files themselves)")
        for name in sorted(filenames):
            p = Path(dirpath, name)
            total += _check_file(p, within)
            if total > MAX_TREE_BYTES:
                raise BadInput(f"{root}: more than {MAX_TREE_BYTES >> 20} MiB of files")
            out.append(p)
    return sorted(out)


def _check_file(p: Path, within: Path) -> int:
    """The file's size once it is known to be a regular file, or a symlink to one, inside `within`."""
    try:
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            target = p.resolve(strict=True)
            if not target.is_relative_to(within.resolve()):
                raise BadInput(f"{p}: a symlink to {target}, outside {within}")
            st = os.stat(target)
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop (Python < 3.13)
        reason = e.strerror if isinstance(e, OSError) and e.strerror else "a symlink loop"
        raise BadInput(f"{p}: cannot read ({reason})") from None
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{p}: not a regular file")
    if st.st_size > MAX_SOURCE_BYTES:
        raise BadInput(f"{p}: {st.st_size / 2**20:.1f} MiB, more than the {MAX_SOURCE_BYTES >> 20} MiB a source may be")
    return st.st_size


def _raise(e: OSError) -> None:
    raise BadInput(f"cannot read {describe(e)}")


def read_tree(root: Path, *, within: Path | None = None) -> dict[str, bytes]:
    """Every file beneath root (list_files), read: relative POSIX path -> bytes."""
    within = Path(within or root)
    out = {}
    for p in list_files(root, within=within):
        try:
            out[p.relative_to(root).as_posix()] = read_bytes(p, max_bytes=MAX_SOURCE_BYTES, within=within)
        except OSError as e:
            raise BadInput(f"cannot read {describe(e)}") from None
    return out
