"""A shared fork server (`repair server start`): it listens, and hands each engine that connects a session process.

Every session process is forked ahead from the warm server, with its spares ready; when its engine goes, it
kills every child the engine left, removes the engine's scratch root and exits. The server exits after an
idle timeout with no session, or with the process that started it.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time

from repair.engine import spawner
from repair.engine.confine.limits import set_parent_death_signal
from repair.engine.preload import preload
from repair.engine.scratch import ROOT_PREFIX


def shared_main(path: str, backend_name: str, idle_s: float, parent: int | None = None) -> int:
    """A shared server: every engine that connects to `path` gets a session process of its own, forked
    ahead from this warm one (with its spares ready); exits after idle_s with no session, or when `parent`
    (the process that started it) ends."""
    listener = None
    try:
        if parent is not None:
            set_parent_death_signal(signal.SIGTERM)  # its sessions end with it, and their children with them
            if os.getppid() != parent:  # it was gone before the signal was armed
                return 0
        error = preload(backend_name)
        if error is not None:
            print(error, file=sys.stderr)
            return 1
        spawner.become_subreaper()  # what a sandboxed process leaves behind is ours: see _descends_from_us
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        _listen(listener, path)
        return _hand_out_sessions(listener, idle_s)
    except SystemExit:
        return 0
    finally:
        if listener is not None:
            _unlink_if_ours(path)
        if parent is not None:  # its caller's server: its log goes too, and the directory once nothing else is there
            _remove_caller_leftovers(path)


def _listen(listener: socket.socket, path: str) -> None:
    """Listen on `path`, which appears (with its .pid file) once the server is ready."""
    tmp = os.path.join(os.path.dirname(path), f".{os.getpid()}.tmp")  # no longer than the socket's own path
    listener.bind(tmp)
    os.chmod(tmp, 0o600)
    listener.listen(16)
    spawner.INHERITED.append(listener)
    with open(f"{path}.pid", "w") as f:
        f.write(f"{os.getpid()}\n")
    os.replace(tmp, path)  # the socket appears once the server is ready
    print(f"shared fork server {os.getpid()} ready on {path}", flush=True)


def _hand_out_sessions(listener: socket.socket, idle_s: float) -> int:
    """Give every engine that connects the session process forked ahead for it, until idle_s pass with none."""
    ready = None  # (pid, control socket) of the session process the next engine gets
    sessions: set[int] = set()
    idle_since = time.monotonic()
    while True:
        if ready is None:
            ready = _fork_session()
        if spawner.TERM_SEEN[0]:  # a SIGTERM that landed during that fork (its SystemExit was lost)
            return 0
        for pid in list(sessions):
            if _exited(pid):
                sessions.discard(pid)
        spawner.kill_orphans(keep={*sessions, ready[0]})
        if sessions:
            idle_since = time.monotonic()
        left = idle_s - (time.monotonic() - idle_since)
        if left <= 0:
            print("idle: exiting", flush=True)
            return 0
        listener.settimeout(min(left, 1.0))
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        if _descends_from_us(conn):  # a sandboxed process: a session would fork children outside its sandbox
            conn.close()
            continue
        pid, ctl = ready
        ready = None
        try:
            socket.send_fds(ctl, [b"engine"], [conn.fileno()])
            sessions.add(pid)
        except OSError:  # that session process is gone: this engine's hello goes unanswered, it starts its own
            _exited(pid)
        finally:
            conn.close()
            ctl.close()


def _remove_caller_leftovers(path: str) -> None:
    """A caller's server's log, and its socket directory once nothing else is there."""
    from repair.engine.shared_server import log_path

    for remove, leftover in ((os.unlink, log_path(path)), (os.rmdir, os.path.dirname(path))):
        try:
            remove(leftover)
        except OSError:
            pass


def _descends_from_us(conn: socket.socket) -> bool:
    """Whether the process at the other end of `conn` is a descendant of this server (a candidate or reference
    process, or anything one of them started) or another user's: such a peer gets no session, whose children
    it would choose (a candidate could run code outside its confinement). Orphans of our descendants are
    reparented to this server (a child subreaper), so a double fork does not hide one. Unknown: True."""
    import struct

    try:
        pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                               struct.calcsize("3i")))
        if uid != os.getuid():
            return True
        for _ in range(4096):
            if pid == os.getpid():
                return True
            if pid == 1:
                return False
            if pid <= 0:  # not visible from here (another pid namespace): unknown
                return True
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])  # its parent
    except (OSError, ValueError, struct.error):
        pass
    return True


def _exited(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


def _fork_session() -> tuple[int, socket.socket]:
    """A session process: forked from the warm shared server, it forks its spares, waits for its engine's
    connection, serves it, then kills whatever the engine left and removes the engine's scratch root."""
    pid, ctl = spawner.fork_with_control()
    if pid:
        return pid, ctl
    theirs = ctl
    try:
        for other in spawner.INHERITED:
            other.close()  # the listener is the shared server's alone
        spawner.INHERITED.clear()
        set_parent_death_signal(signal.SIGTERM)  # the shared server stopped: end this session cleanly
        while len(spawner.SPARE_PIDS) < spawner.SPARES[0]:
            spawner.SPARE_PIDS.append(spawner.fork_spare(theirs))
        _msg, fds, _flags, _addr = socket.recv_fds(theirs, 64, 1)
        theirs.close()
    except BaseException:  # noqa: BLE001
        spawner.run_then_finish(lambda: 0)
    if not fds:
        spawner.run_then_finish(lambda: 0)
    spawner.run_then_finish(lambda: _serve_engine(socket.socket(fileno=fds[0])))


def _serve_engine(conn: socket.socket) -> int:
    """One engine's session (in its session process). On exit (spawner's finish) the children it left are killed
    and its scratch root, a temporary directory the engine named in its hello, is removed."""
    try:
        conn.settimeout(10.0)
        hello = json.loads(conn.recv(1 << 16) or b"{}")
        root = hello.get("root") if isinstance(hello, dict) else None
        if isinstance(root, str) and os.path.basename(root).startswith(ROOT_PREFIX) and os.path.isdir(root):
            spawner.ROOTS.append(root)
        conn.settimeout(None)
        conn.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
        spawner.serve(conn)
    except (OSError, ValueError):
        pass
    finally:
        conn.close()
    return 0


def _unlink_if_ours(path: str) -> None:
    try:
        with open(f"{path}.pid") as f:
            ours = int(f.read().strip() or 0) == os.getpid()
    except (OSError, ValueError):
        ours = False
    if ours:
        for p in (path, f"{path}.pid"):
            try:
                os.unlink(p)
            except OSError:
                pass
