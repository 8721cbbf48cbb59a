"""Sandboxed processes: a pre-imported fork server and the reference/candidate children it forks.

The engine starts one fork server per backend (a fresh interpreter that imports torch and triton
once and then only forks). Each child gets its own process group, a socket to the engine passed over
a Unix socket, resource limits, and a scratch working directory. The engine talks to a child in
frames with a deadline; a hang is killed with its whole process group, a death is read back as an
exit status. No child is ever a fork of the engine, so none can see the engine's memory.
"""
from __future__ import annotations

import atexit
import ctypes
import functools
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from repair.engine.confine.libc import error, libc, no_new_privs
from repair.engine.wire import WireClosed, WireError, WireTimeout, recv_frame, send_frame
from repair.errors import BadInput, EnvironmentMissing

_MB = 1 << 20
_PKG_ROOT = str(Path(__file__).resolve().parents[2])


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


# -- inside a child -----------------------------------------------------------------------------

def prctl(option: int, arg: int) -> None:
    """Linux prctl(2); nothing where there is none."""
    try:
        libc().prctl(option, arg)
    except (OSError, AttributeError):
        pass


def set_parent_death_signal(sig: int = signal.SIGKILL) -> None:
    """Linux: die with the parent, so no sandboxed process outlives its engine."""
    prctl(1, int(sig))  # PR_SET_PDEATHSIG


def _vm_bytes(field: str) -> int:
    """A size from /proc/self/status (VmSize: address space, VmData: private writable memory)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _user_tasks() -> int:
    uid, n = os.getuid(), 0
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if p.stat().st_uid == uid:
                    n += len(os.listdir(p / "task"))
            except OSError:
                continue
    return n


_MEMORY_RLIMITS = {"as": (resource.RLIMIT_AS, "VmSize"), "data": (resource.RLIMIT_DATA, "VmData")}


_CAP_VERSION_3 = 0x20080522
_PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4


@functools.cache
def _cap_last() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 63


def prepare_confinement() -> None:
    """In the fork server, before forking: what drop_capabilities needs, loaded once (children inherit it)."""
    lib = libc()
    lib.prctl, lib.capset, lib.capget  # noqa: B018 — ctypes resolves a symbol once, then keeps it
    _cap_last()


def drop_capabilities() -> None:
    """Give up every Linux capability for good, this process and what it starts: root keeps its uid but loses
    its privileges (it could otherwise lift its own rlimits with CAP_SYS_RESOURCE, load modules, open raw
    sockets, reboot, ...). OSError when the kernel refuses."""
    prepare_confinement()
    lib = libc()
    no_new_privs()
    for cap in range(_cap_last() + 1):  # the bounding set: an exec (of a setuid binary, or as root) regains nothing
        lib.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)  # needs CAP_SETPCAP: a process without it has none to drop
    lib.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: empty (two 32-bit halves)
    if lib.capset(header, data) != 0:
        raise error("capset")
    if lib.capget(header, data) != 0 or any(data):
        raise OSError(f"capabilities left after capset: {list(data)}")


def apply_limits(*, mem_limit_mb: int | None, cpu_seconds: int | None, fsize_mb: int | None,
                 memory_rlimit: str | None = "as", extra_tasks: int | None = 128) -> dict:
    """Set rlimits on this process (irreversibly: soft == hard where the kernel allows). Returns what was set.

    The memory limit caps the address space ("as") or the private writable memory ("data"; see
    Backend.memory_rlimit); None sets no memory limit.
    """
    done: dict = {}
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a segfaulting candidate writes no core file
    if mem_limit_mb and memory_rlimit:
        which, field = _MEMORY_RLIMITS[memory_rlimit]
        # torch + triton already use ~1 GB of it; the candidate gets mem_limit_mb on top of that
        lim = _vm_bytes(field) + mem_limit_mb * _MB
        resource.setrlimit(which, (lim, lim))
        done[f"{memory_rlimit}_bytes"] = lim
    if cpu_seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        done["cpu_seconds"] = cpu_seconds
    if fsize_mb:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize_mb * _MB, fsize_mb * _MB))
        done["fsize_bytes"] = fsize_mb * _MB
    if extra_tasks and os.geteuid() != 0:  # root ignores RLIMIT_NPROC
        n = _user_tasks() + extra_tasks
        resource.setrlimit(resource.RLIMIT_NPROC, (n, n))
        done["nproc"] = n
    return done


@contextmanager
def memory_ceiling(memory_rlimit: str | None, headroom: int):
    """While the block runs, this process may take `headroom` more bytes of its memory limit's kind ("as" or
    "data", as Backend.memory_rlimit; None: no ceiling) than it holds now: an allocation past it fails at once
    (MemoryError, or torch's allocator's RuntimeError). Only the soft limit moves, and back after the block;
    a limit already at least as low stays as it is."""
    if memory_rlimit is None:
        yield
        return
    which, field = _MEMORY_RLIMITS[memory_rlimit]
    soft, hard = resource.getrlimit(which)
    ceiling = _vm_bytes(field) + headroom
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    if soft != resource.RLIM_INFINITY and soft <= ceiling:
        yield
        return
    resource.setrlimit(which, (ceiling, hard))
    try:
        yield
    finally:
        resource.setrlimit(which, (soft, hard))


# -- in the engine ------------------------------------------------------------------------------

ROOT_PREFIX = "repair-sandbox-"  # every engine scratch root starts so (the shared server removes only such)


def new_root() -> str:
    """A fresh scratch root for this engine's sandbox processes, named after the engine
    (repair-sandbox-PID-...). Roots of this user's engines that are gone are removed first: the fork
    server removes its engine's root when the engine dies, but an engine killed between creating the root
    and starting its server (or its session) leaves it behind, and nothing else would."""
    import shutil

    uid = os.getuid()
    for p in Path(tempfile.gettempdir()).glob(f"{ROOT_PREFIX}*-*"):
        pid = p.name[len(ROOT_PREFIX):].split("-", 1)[0]
        try:
            ours = p.stat().st_uid == uid
        except OSError:
            continue
        if ours and pid.isdigit() and int(pid) != os.getpid() and not process_running(int(pid)):
            shutil.rmtree(p, ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-")


def process_running(pid: int) -> bool:
    """The process exists and has not exited (one that exited and was not yet reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


class Child:
    """One forked reference or candidate process, driven by request/reply frames."""

    def __init__(self, server: "ForkServer", spawn_id: int, req_fd: int, resp_fd: int, log_path: str | None):
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
        shared: the reply may carry a shared payload (a reference's case inputs; repair/engine/wire.py)."""
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
        sink: a memfd for the reply's payload, passed along (repair/engine/wire.py).

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
        # -P: the server's cwd is not on sys.path (children chdir, and must not import from there)
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "repair.engine.forkserver", str(theirs.fileno()), backend.name, self.root],
            pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL, stdout=self._log,
            stderr=subprocess.STDOUT, cwd=self.root,
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
        import shutil

        from repair.engine import shared_server

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
        import shutil

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


_CONFINE_MODES = {"auto": "auto", "": "auto", "on": "on", "1": "on", "off": "off", "0": "off"}


def confine_candidates(backend) -> bool:
    """Whether candidate processes confine themselves (drop_capabilities, then Landlock where the kernel has it:
    repair/engine/confine/landlock.py, then no sockets nor, where its backend allows, processes: repair/engine/confine/seccomp.py), from
    $REPAIR_CONFINE: `auto` (the default: on backends that have been run confined),
    `on` (every backend; EnvironmentMissing where the kernel has no Landlock) or `off`."""
    from repair.engine.confine import landlock

    raw = os.environ.get("REPAIR_CONFINE", "auto")
    mode = _CONFINE_MODES.get(raw.strip().lower())
    if mode is None:
        raise BadInput(f"REPAIR_CONFINE={raw!r}: expected auto, on or off")
    if mode == "on" and landlock.abi() <= 0:
        raise EnvironmentMissing("REPAIR_CONFINE=on, but this kernel has no Landlock (Linux >= 5.13 with landlock "
                                 "among its LSMs): set REPAIR_CONFINE=auto or off")
    return mode == "on" or (mode == "auto" and backend.confine_default)


def server_env(backend) -> dict[str, str]:
    """The environment a fork server (and so every child) starts with."""
    env = dict(os.environ)
    if not env.get("REPAIR_SPARES", "0").isdigit():
        raise BadInput(f"REPAIR_SPARES={env['REPAIR_SPARES']!r}: not a whole number (how many processes a fork "
                       "server keeps forked ahead)")
    for k in backend.env_remove:
        env.pop(k, None)
    env.update(backend.env)
    for k, v in backend.env_defaults.items():
        env.setdefault(k, v)
    env.setdefault("MALLOC_ARENA_MAX", "2")  # fewer per-thread arenas: less address space per thread
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PKG_ROOT, env.get("PYTHONPATH")) if p)
    return env


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


def fork_server(backend) -> ForkServer:
    """The engine process's fork server for this backend, started on first use and reused after."""
    with _SERVERS_LOCK:
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
