"""This user's private runtime directory and process liveness: what the KB server and the engine server share.

Sockets live in the directory an environment variable names, else $XDG_RUNTIME_DIR/nearmiss/..., else
/tmp/nearmiss-UID/... (or, when another user took that name first, ~/.cache/nearmiss/run-HOST/...); a directory
that another user owns or that others may read is never used, nor one beneath a directory others may change.
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
    shared = Path(tempfile.gettempdir(), f"nearmiss-{os.getuid()}")
    if not os.path.lexists(shared) or private_dir(shared, create=False) is not None:
        return shared.joinpath(*sub)
    # another user made /tmp/nearmiss-UID (or made it readable): it would block this user's servers, or let that
    # user swap their sockets; a directory in this user's home is out of their reach
    import socket

    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home, "nearmiss", f"run-{socket.gethostname().split('.')[0]}", *sub)


def private_dir(d: Path, *, create: bool) -> Path | None:
    """d when it belongs to this user with mode 700 (made so with `create`) and no other user can change a
    directory above it (dir_problem), else None."""
    if create:  # every directory made here is private, the parents too (nearmiss-UID holds the engine's sockets)
        for parent in reversed([d, *d.parents]):
            if not parent.exists():
                try:
                    parent.mkdir(mode=0o700, exist_ok=True)
                except OSError:
                    return None
    try:
        st = os.lstat(d)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
        return None
    return d if dir_problem(d) is None else None


def dir_problem(d: str | os.PathLike, *, private: bool = False) -> str | None:
    """Why `d` cannot hold this user's own state (a cache, sockets), or None: it must be a directory of this user's
    that nobody else may write (with `private`, nor read), and no other user may change a directory above it
    (owned by this user or root, and writable by others only when sticky, as /tmp is), so none can rename it
    away and put another in its place. A symlink is followed only when this user or root made it."""
    uid = os.getuid()
    try:
        link = os.lstat(d)
        real = Path(os.path.realpath(d))
        st = os.stat(real)
    except OSError as e:
        return f"cannot be used ({e.strerror or e})"
    if stat.S_ISLNK(link.st_mode) and link.st_uid not in (uid, 0):
        return f"is a symlink made by uid {link.st_uid}"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if st.st_uid != uid:
        return f"belongs to uid {st.st_uid}, not to this user (uid {uid})"
    mode = stat.S_IMODE(st.st_mode)
    if mode & (0o077 if private else 0o022):
        return f"is {'open to' if private else 'writable by'} other users (mode {mode:o}; chmod 700 it)"
    for parent in real.parents:
        try:
            pst = os.stat(parent)
        except OSError as e:
            return f"has a parent {parent} that cannot be checked ({e.strerror or e})"
        if pst.st_uid not in (uid, 0):
            return f"is beneath {parent}, which belongs to uid {pst.st_uid}"
        if pst.st_mode & 0o022 and not pst.st_mode & stat.S_ISVTX:
            return f"is beneath {parent}, which other users may write (mode {stat.S_IMODE(pst.st_mode):o})"
    return None


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


def holds_secret() -> bool:
    """Whether this process's environment holds a secret-named value: as it is now, or as it started (what
    /proc/PID/environ shows others, whatever was unset since)."""
    from provenance.redact import secret_names

    if secret_names():
        return True
    try:
        with open("/proc/self/environ", "rb") as f:
            start = dict(kv.split("=", 1) for kv in f.read().decode("utf-8", "replace").split("\0") if "=" in kv)
    except OSError:
        return False
    return bool(secret_names(start))


def hide_environment() -> bool:
    """Make this process not dumpable when its environment holds a secret (holds_secret): other processes of this
    user (an unconfined candidate, a problem file's code) can then read neither its /proc/PID/environ nor its memory;
    root without CAP_SYS_PTRACE cannot either. Core dumps and attaching a debugger then need that capability, so a
    process without secrets is left as it is. True when it hid itself. Called again, it costs a scan of the
    environment; a child made by exec (not by fork) must call it for itself."""
    if not holds_secret():
        return False
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        return False
    return True
