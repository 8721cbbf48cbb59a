"""This user's private runtime directory and process liveness: what the KB server and the engine server share.

Sockets live in the directory an environment variable names, else $XDG_RUNTIME_DIR/nearmiss/..., else
/tmp/nearmiss-UID/...; a directory that another user owns or that others may read is never used.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def runtime_dir(env_var: str, *sub: str) -> Path:
    """Where a server's sockets go: $ENV_VAR as given, else under this user's runtime directory."""
    if os.environ.get(env_var):
        return Path(os.environ[env_var])
    if os.environ.get("XDG_RUNTIME_DIR"):
        return Path(os.environ["XDG_RUNTIME_DIR"], "nearmiss", *sub)
    return Path(tempfile.gettempdir(), f"nearmiss-{os.getuid()}", *sub)


def private_dir(d: Path, *, create: bool) -> Path | None:
    """d when it belongs to this user with mode 700 (made so with `create`), else None."""
    if create:  # every directory made here is private, the parents too (nearmiss-UID holds the engine's sockets)
        for parent in reversed([d, *d.parents]):
            if not parent.exists():
                parent.mkdir(mode=0o700, exist_ok=True)
    try:
        st = d.stat()
    except OSError:
        return None
    if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
        return None
    return d


def process_running(pid: int) -> bool:
    """The process exists and has not exited (one that exited and was not yet reaped counts as gone)."""
    if pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def sources_stamp(root: Path, packages: tuple[str, ...]) -> bytes:
    """Every .py file of the packages under root, by path, mtime and size: a server started from other code differs."""
    out = []
    for pkg in packages:
        for p in sorted((Path(root) / pkg).rglob("*.py")):
            st = p.stat()
            out.append(f"{p.relative_to(root)} {st.st_mtime_ns} {st.st_size}\0")
    return "".join(out).encode()
