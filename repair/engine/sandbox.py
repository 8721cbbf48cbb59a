"""Sandboxed processes: a pre-imported fork server per backend, and the engine's client of it.

The engine starts one fork server per backend (a fresh interpreter that imports torch and triton
once and then only forks). Each child gets its own process group, a socket to the engine passed over
a Unix socket, resource limits, and a scratch working directory. The engine talks to a child in
frames with a deadline (repair/engine/child.py); a hang is killed with its whole process group, a death
is read back as an exit status. No child is ever a fork of the engine, so none can see the engine's memory.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from repair.engine import shared_server
from repair.engine.child import Child, ChildTimeout, ExitStatus
from repair.engine.launch import server_command, server_env
from repair.engine.scratch import new_root
from repair.errors import BadInput, EnvironmentMissing


class ForkServer:
    """A warm interpreter with torch and triton imported that forks sandboxed children on request."""

    def __init__(self, backend):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = server_env(backend)
        # every scratch directory of this server's children lives under root; the server removes it when it
        # exits, so an engine killed mid-evaluation leaves nothing behind
        self.root = new_root()
        self._log_path = os.path.join(self.root, "server.log")
        self._log = open(self._log_path, "wb")
        self.proc = subprocess.Popen(
            server_command(str(theirs.fileno()), backend.name, self.root), pass_fds=[theirs.fileno()], env=env,
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, cwd=self.root,
            # its own session: a SIGKILL to the engine's process group (a campaign killing a run) leaves it
            # the moment to kill its children and remove root once it sees the engine gone
            start_new_session=True)
        theirs.close()
        self._sock = ours
        self._lock = threading.Lock()
        self._ready = False
        self._next_id = 0
        self._mail: dict[int, dict] = {}  # replies read while waiting for another one
        self._shared: int | None = None  # on a shared server: the pid of this engine's session process

    @classmethod
    def connect_shared(cls, backend) -> "ForkServer | None":
        """A session of this engine's own on a running shared server (`repair server start`) for the backend,
        or None: none is running for this code and environment, or it does not answer."""
        path = shared_server.socket_path(backend, create=False)
        if path is None or not path.exists():
            return None
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        root = new_root()
        try:
            sock.settimeout(5.0)
            sock.connect(str(path))
            sock.send(json.dumps({"op": "hello", "root": root}).encode())
            reply = json.loads(sock.recv(1 << 16) or b"{}")
            if not reply.get("ready"):
                raise ValueError("not ready")
            sock.settimeout(None)
        except (OSError, ValueError):
            sock.close()
            shutil.rmtree(root, ignore_errors=True)
            return None
        self = cls.__new__(cls)
        self.root, self.proc, self._sock = root, None, sock
        self._log_path, self._log = shared_server.log_path(path), None
        self._lock, self._ready, self._next_id, self._mail = threading.Lock(), True, 0, {}
        self._shared = int(reply["pid"])  # the session process serving this engine
        return self

    def _send(self, msg: dict, fds: list[int] | None = None) -> int:
        """Send a request (caller holds the lock); returns its id, which the server's reply carries."""
        self._next_id += 1
        data = json.dumps({**msg, "id": self._next_id}).encode()
        if fds:
            socket.send_fds(self._sock, [data], fds)
        else:
            self._sock.send(data)
        return self._next_id

    def _recv(self, timeout: float | None, rid: int | None = None) -> dict:
        """The reply to request `rid` (caller holds the lock); replies to other requests wait in the mailbox."""
        if rid is not None and rid in self._mail:
            return self._mail.pop(rid)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self._sock.settimeout(None if deadline is None else max(0.0, deadline - time.monotonic()))
            try:
                msg = self._sock.recv(1 << 16)
            except socket.timeout:
                raise ChildTimeout() from None
            if not msg:
                raise EnvironmentMissing(f"sandbox fork server died: {self._server_log()}")
            reply = json.loads(msg)
            if rid is None or reply.get("id") == rid:
                return reply
            if reply.get("id") is not None:
                self._mail[reply["id"]] = reply

    def _server_log(self) -> str:
        try:
            return Path(self._log_path).read_text(errors="replace").strip()[-1500:] or "(no output)"
        except OSError:
            return "(no log)"

    def ensure_ready(self, timeout: float = 300.0) -> None:
        with self._lock:
            if self._ready:
                return
            try:
                msg = self._recv(timeout)
            except ChildTimeout:
                raise EnvironmentMissing(f"sandbox fork server did not start within {timeout:.0f}s") from None
            if not msg.get("ready"):
                raise EnvironmentMissing(f"sandbox fork server could not start: {msg.get('error', '')[-1500:]}")
            self._ready = True

    def alive(self) -> bool:
        if self._shared is not None:
            try:
                os.kill(self._shared, 0)
                return self._sock.fileno() != -1
            except OSError:
                return False
        return self.proc.poll() is None

    @property
    def shared(self) -> bool:
        """A session on a shared server (`repair server start`), not this engine's own server."""
        return self._shared is not None

    def scratch(self, prefix: str) -> str:
        """A fresh directory under this server's root (removed with it at the latest)."""
        return tempfile.mkdtemp(prefix=prefix, dir=self.root)

    def spawn(self, role: str, config: dict, log_path: str | None = None) -> Child:
        """Ask for a child; returns at once (the fork happens in the server while the engine goes on).

        Engine and child talk over a Unix stream socket (a descriptor can go with a frame: repair/engine/wire.py); each
        side holds it as two descriptors, one it writes requests or replies to, one it reads from."""
        self.ensure_ready()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        req, resp = ours.detach(), None
        try:
            resp = os.dup(req)
            with self._lock:
                rid = self._send({"op": "spawn", "role": role, "config": config, "log": log_path},
                                 [theirs.fileno(), theirs.fileno()])
        except BaseException:
            for fd in (req, resp):
                if fd is not None:
                    os.close(fd)
            raise
        finally:
            theirs.close()
        return Child(self, rid, req, resp, log_path)

    def spawned(self, rid: int) -> int:
        """The pid of the child that spawn request `rid` forked."""
        with self._lock:
            try:
                return self._recv(60.0, rid)["pid"]
            except ChildTimeout:
                raise EnvironmentMissing("sandbox fork server did not fork a child within 60s") from None

    def detach(self, pid: int) -> None:
        """The engine will not wait for this child: the server reaps it when it exits."""
        with self._lock:
            try:
                self._send({"op": "detach", "pid": pid})
            except OSError:
                pass

    def wait(self, pid: int, grace_s: float) -> ExitStatus:
        with self._lock:
            try:
                rid = self._send({"op": "wait", "pid": pid})
                try:
                    reply = self._recv(grace_s, rid)
                except ChildTimeout:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                    reply = self._recv(30.0, rid)
            except (OSError, EnvironmentMissing, ChildTimeout):
                return ExitStatus()
        raw = reply.get("status")
        if raw is None:
            return ExitStatus()
        code = os.waitstatus_to_exitcode(raw)
        return ExitStatus(signal=-code) if code < 0 else ExitStatus(code=code)

    def close(self) -> None:
        if self._shared is not None:  # the session process kills what this engine left and exits
            try:
                self._sock.close()
            finally:
                shutil.rmtree(self.root, ignore_errors=True)
            return
        try:
            self._sock.close()
            if not self._ready:  # still importing (started ahead, then not needed): nothing to wind down
                self.proc.kill()
        finally:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self._log.close()
            shutil.rmtree(self.root, ignore_errors=True)


_SERVERS: dict[str, ForkServer] = {}
_SERVERS_LOCK = threading.Lock()
_AT_FORK: list[bool] = []  # the at-fork hook is registered once


def _forget_servers_in_child() -> None:
    """A process forked from an engine is not that engine: it drops the handles (its parent keeps them)."""
    for server in _SERVERS.values():
        try:
            server._sock.close()
        except OSError:
            pass
    _SERVERS.clear()


def hide_own_environment() -> None:
    """Make this process unreadable through /proc by other processes of its user when its environment holds a
    secret: sandboxed processes start without the engine's keys (launch.sandbox_environ), and an unconfined
    candidate could otherwise read them back from /proc/<engine pid>/environ. Core dumps and attaching a
    debugger then need root, so an environment without secrets leaves the engine as it is (provenance.runtime)."""
    from provenance.runtime import hide_environment

    hide_environment()


def fork_server(backend) -> ForkServer:
    """The engine process's fork server for this backend, started on first use and reused after."""
    with _SERVERS_LOCK:
        hide_own_environment()  # every time: a key set since the last call is held too
        if not _AT_FORK:
            os.register_at_fork(after_in_child=_forget_servers_in_child)
            _AT_FORK.append(True)
        server = _SERVERS.get(backend.name)
        if server is None or not server.alive():
            if server is not None:
                server.close()
            server = ForkServer.connect_shared(backend) or ForkServer(backend)
            _SERVERS[backend.name] = server
        return server


def prestart(backend_name: str | None) -> None:
    """Start the backend's fork server now, so that its imports (seconds) overlap the engine's own.

    Nothing is reported here: an unknown or missing backend is evaluate()'s to report.
    """
    from repair.engine.backends import get_backend

    try:
        fork_server(get_backend(backend_name))
    except (BadInput, OSError):
        pass


@atexit.register
def shutdown_fork_servers() -> None:
    with _SERVERS_LOCK:
        for server in _SERVERS.values():
            try:
                server.close()
            except Exception:
                pass
        _SERVERS.clear()
