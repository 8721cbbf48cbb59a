"""A fork server shared by engine processes: `repair server start|stop|status`.

Every engine process otherwise starts its own fork server and pays torch's and triton's imports
(~1-1.3 s here) before its first case; a pipeline that calls `repair eval` once per candidate pays
them every time. A shared server pays them once: while it runs, engines connect to it instead,
each getting a session process of its own (forked ahead from the warm server, its spare children
ready), so any number of engines (a campaign's runs, say) use it at once. When an engine's session
ends, however it ends, its session process kills every process that engine left and removes its
scratch directory. The server exits after an idle timeout with no session.

A server is found by a key over what its children would inherit: the Python executable, the
backend, the environment variables that steer torch/triton/devices, and the size and mtime of every
source file of the packages it imports. Edit the code or change the environment and engines no
longer find the old server (`repair server status` lists it as stale).

Sockets live in $REPAIR_SERVER_DIR, else $XDG_RUNTIME_DIR/nearmiss, else /tmp/nearmiss-UID: a
directory only this user can enter.
"""
from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from provenance.runtime import private_dir, process_running, runtime_dir, sources_stamp
from repair.engine.launch import PKG_ROOT, server_command, server_env
from repair.errors import BadInput, EnvironmentMissing
_PACKAGES = ("repair", "provenance")  # what a fork server and its children import from this checkout
# variables that change what a child does (not those every entry point sets: provenance.offline)
_ENV_PREFIXES = ("TRITON_", "TORCH_", "PYTORCH_", "CUDA_", "CUBLAS_", "ASCEND_", "NPU_", "OMP_", "MKL_", "OPENBLAS_", "LD_", "PYTHON",
                 "MALLOC_")
DEFAULT_IDLE_S = 1800.0


def server_dir(create: bool = True, directory: str | Path | None = None) -> Path | None:
    """The directory of this user's server sockets (`directory` when given); None (or BadInput when creating) if
    it is not safely ours."""
    d = Path(directory) if directory is not None else runtime_dir("REPAIR_SERVER_DIR")
    if private_dir(d, create=create) is None:
        if create:
            raise BadInput(f"{d}: the server directory must belong to this user and be private (mode 700)")
        return None
    return d


def server_key(backend) -> str:
    """What a server's children inherit, hashed: a server whose key differs is never used.

    The environment hashed is the one a server would start with (the backend's own settings applied), so an
    engine with TRITON_INTERPRET=1 exported and one without it agree on triton-cpu, which sets it anyway.
    """
    env = server_env(backend)
    h = hashlib.sha256(f"{sys.executable}\0{backend.name}\0".encode())
    for k in sorted(env):
        if k.startswith(_ENV_PREFIXES):
            h.update(f"{k}={env[k]}\0".encode())
    h.update(sources_stamp(Path(PKG_ROOT), _PACKAGES))
    return h.hexdigest()[:16]


def socket_path(backend, create: bool = True, directory: str | Path | None = None) -> Path | None:
    d = server_dir(create, directory)
    return None if d is None else d / f"{backend.name}-{server_key(backend)}.sock"


SOCKET_PATH_MAX = 107  # bytes in a Unix socket's path (sun_path, less its terminating NUL)


def log_path(sock: Path | str) -> str:
    return str(sock)[: -len(".sock")] + ".log"


def _pid(sock: Path) -> int | None:
    """The server's pid while it runs (an exited server not yet reaped by its parent counts as gone)."""
    try:
        pid = int(Path(f"{sock}.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if process_running(pid) else None


@dataclass
class ServerInfo:
    backend: str
    socket: str
    pid: int | None
    current: bool  # its key matches this code and environment: engines use it

    def as_dict(self) -> dict:
        return {"backend": self.backend, "socket": self.socket, "pid": self.pid, "current": self.current}


def start(backend_name: str | None = None, idle_s: float = DEFAULT_IDLE_S, timeout_s: float = 300.0,
          directory: str | Path | None = None, with_caller: bool = False) -> ServerInfo:
    """Start a shared server for the backend ($REPAIR_BACKEND, else triton-cpu, where None) or find the one
    running; returns once it accepts engines.
    `directory`: the socket directory instead of the user's (engines find it with REPAIR_SERVER_DIR);
    `with_caller`: the server ends when the thread that starts it does (else it outlives the command)."""
    from repair.engine.backends import get_backend

    if idle_s <= 0:
        raise BadInput("the idle timeout must be positive")
    be = get_backend(backend_name)
    be.check_available()
    path = socket_path(be, directory=directory)
    if len(os.fsencode(str(path))) > SOCKET_PATH_MAX:
        raise EnvironmentMissing(f"{path}: longer than a Unix socket's path may be ({SOCKET_PATH_MAX} bytes); "
                                 "set REPAIR_SERVER_DIR to a shorter directory")
    if path.exists() and (pid := _pid(path)) is not None:
        return ServerInfo(be.name, str(path), pid, True)
    for stale in (path, Path(f"{path}.pid")):  # left by a server that was killed: the new one's socket must be awaited
        stale.unlink(missing_ok=True)
    with open(log_path(path), "ab") as log:
        proc = subprocess.Popen(
            server_command("--listen", str(path), be.name, str(idle_s), *([str(os.getpid())] if with_caller else [])),
            env=server_env(be), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            cwd=str(path.parent), start_new_session=True)  # no signal to the caller's process group reaches it
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if proc.poll() is not None:
            try:
                tail = Path(log_path(path)).read_text(errors="replace").strip()[-1500:]
            except OSError:  # a caller's server removes its log when it ends
                tail = f"it exited with code {proc.returncode}"
            raise EnvironmentMissing(f"the shared fork server could not start: {tail}")
        if time.monotonic() > deadline:
            proc.kill()
            raise EnvironmentMissing(f"the shared fork server did not start within {timeout_s:.0f}s")
        time.sleep(0.05)
    return ServerInfo(be.name, str(path), proc.pid, True)


def status(directory: str | Path | None = None) -> list[ServerInfo]:
    """Every server socket in the directory, running or left behind, and whether engines here would use it."""
    from repair.engine.backends import get_backend

    d = server_dir(create=False, directory=directory)
    if d is None:
        return []
    out, current = [], {}
    for sock in sorted(d.glob("*.sock")):
        name = sock.name.rsplit("-", 1)[0]
        if name not in current:
            try:
                current[name] = socket_path(get_backend(name), create=False, directory=d)
            except BadInput:
                current[name] = None
        out.append(ServerInfo(name, str(sock), _pid(sock), sock == current[name]))
    return out


def stop(wait_s: float = 10.0, directory: str | Path | None = None) -> list[ServerInfo]:
    """Stop every shared server (SIGTERM, then SIGKILL); their engines' sessions end with them."""
    stopped = []
    for info in status(directory):
        if info.pid is not None:
            os.kill(info.pid, signal.SIGTERM)
            deadline = time.monotonic() + wait_s
            while _pid(Path(info.socket)) is not None and time.monotonic() < deadline:
                time.sleep(0.05)
            if _pid(Path(info.socket)) is not None:
                os.kill(info.pid, signal.SIGKILL)
        for p in (info.socket, f"{info.socket}.pid"):
            try:
                os.unlink(p)
            except OSError:
                pass
        stopped.append(info)
    return stopped
