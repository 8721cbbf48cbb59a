"""The engine's handle on one forked sandbox process: request/reply frames with a deadline, and its exit status."""
from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

from provenance.runtime import process_running
from repair.engine.wire import recv_frame, send_frame
from repair.engine.wire_errors import WireClosed, WireError, WireTimeout
from repair.errors import EnvironmentMissing


class ChildTimeout(Exception):
    """The child gave no answer before the deadline (it is still running)."""


class ChildDied(Exception):
    """The child's socket closed: it exited or was killed."""

    def __init__(self, status: "ExitStatus", reason: str = ""):
        super().__init__(f"{reason}; {status.describe()}" if reason else status.describe())
        self.status, self.reason = status, reason


@dataclass
class ExitStatus:
    code: int | None = None  # exit code when it exited
    signal: int | None = None  # signal number when a signal killed it

    def describe(self) -> str:
        if self.signal is not None:
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = f"signal {self.signal}"
            return f"killed by {name}"
        if self.code is None:
            return "exit status unknown"
        return f"exited with code {self.code}"


class Child:
    """One forked reference or candidate process, driven by request/reply frames (`server`: the ForkServer
    that forked it)."""

    def __init__(self, server, spawn_id: int, req_fd: int, resp_fd: int, log_path: str | None):
        self.server, self.log_path = server, log_path
        self._spawn_id, self._pid = spawn_id, None
        self._req, self._resp = req_fd, resp_fd
        self.status: ExitStatus | None = None

    @property
    def pid(self) -> int:
        """The child's pid (the fork server's answer is read on first use, so spawning does not wait for it)."""
        if self._pid is None:
            self._pid = self.server.spawned(self._spawn_id)
        return self._pid

    def request(self, header: dict, payload: bytes = b"", timeout: float | None = None,
                max_payload: int = 1 << 36, shared: bool = False) -> tuple[dict, bytearray]:
        """Send a frame and wait for the reply; ChildTimeout past the deadline, ChildDied when the child is gone.
        shared: the reply may carry a shared payload (a reference's case inputs; repair/engine/memfd.py)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            send_frame(self._req, header, payload, deadline)
        except WireTimeout:
            raise ChildTimeout() from None
        except WireClosed:
            raise ChildDied(self.reap(grace_s=5.0)) from None
        return self._receive(deadline, max_payload, shared)

    def send(self, header: dict, payload: bytes = b"", timeout: float | None = None, sink: int | None = None) -> None:
        """Send a frame without waiting for the reply; ChildTimeout when it could not be written in time.
        sink: a memfd for the reply's payload, passed along (repair/engine/memfd.py).

        A child that is gone is not reported here: the next receive() reads what it wrote before it
        went (its greeting, say), then raises ChildDied.
        """
        try:
            send_frame(self._req, header, payload, None if timeout is None else time.monotonic() + timeout, sink=sink)
        except WireTimeout:
            raise ChildTimeout() from None
        except WireClosed:
            pass

    def receive(self, timeout: float | None = None, max_payload: int = 1 << 36) -> tuple[dict, bytearray]:
        """Wait for the next frame: the child's greeting, or the reply to what `send` sent."""
        return self._receive(None if timeout is None else time.monotonic() + timeout, max_payload)

    def _receive(self, deadline: float | None, max_payload: int, shared: bool = False) -> tuple[dict, bytearray]:
        try:
            return recv_frame(self._resp, deadline, max_payload, accept_shared=shared)
        except WireTimeout:
            raise ChildTimeout() from None
        except WireClosed:
            raise ChildDied(self.reap(grace_s=5.0)) from None
        except WireError as e:  # the child wrote something that is not our protocol: it is not trusted again
            raise ChildDied(self.kill(), reason=f"malformed reply ({e})") from None

    def _known_pid(self) -> int | None:
        try:
            return self.pid
        except EnvironmentMissing:  # the server died before it answered: there is no child to signal
            return None

    def kill(self) -> ExitStatus:
        if self.status is None and (pid := self._known_pid()) is not None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        return self.reap(grace_s=10.0)

    def reap(self, grace_s: float) -> ExitStatus:
        """Collect the exit status; a child that has not exited within grace_s is killed."""
        if self.status is None:
            pid = self._known_pid()
            self.status = self.server.wait(pid, grace_s) if pid is not None else ExitStatus()
            for fd in (self._req, self._resp):
                try:
                    os.close(fd)
                except OSError:
                    pass
        return self.status

    def close(self, wait: bool = False) -> ExitStatus:
        """Ask the child to exit. Without `wait` the fork server reaps it (and kills it if it lingers)."""
        if self.status is None:
            try:
                send_frame(self._req, {"op": "exit"}, b"", None)
            except (WireClosed, OSError):
                pass
            if wait:
                return self.reap(grace_s=5.0)
            self.status = ExitStatus()  # not collected: detached
            for fd in (self._req, self._resp):
                try:
                    os.close(fd)
                except OSError:
                    pass
            if (pid := self._known_pid()) is not None:
                self.server.detach(pid)
        return self.status

    def running(self) -> bool:
        """The process exists and has not exited (it is the fork server's child: /proc tells, not waitpid)."""
        pid = self._known_pid()
        return self.status is None and pid is not None and process_running(pid)

    def log_tail(self, max_chars: int = 2000) -> str:
        if not self.log_path:
            return ""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - max_chars))
                return f.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
