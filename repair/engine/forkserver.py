"""Fork server entry: `python -P -m repair.engine.forkserver FD BACKEND ROOT` (one engine's private server), or
`python -P -m repair.engine.forkserver --listen SOCKET BACKEND IDLE_S [PARENT_PID]` (a shared server: `repair server
start`; with PARENT_PID, one that ends with that process: a campaign's server for its runs).

Imports the heavy modules once, then forks a child per spawn request and reports exit statuses.
It never imports a problem or a candidate itself, so every child starts from the same clean state.
A shared server listens on a Unix socket and hands each engine that connects a session process of
its own, forked ahead from itself; when that engine goes, its session process kills every child
the engine left, removes its scratch root and exits.
"""
from __future__ import annotations

import gc
import importlib
import json
import os
import select
import signal
import socket
import sys
import time
import traceback


def _child(req: dict, fds: list[int]) -> None:
    """In a forked process: become the requested child; never returns."""
    code = 70
    try:
        from repair.engine import procmain as _procmain

        code = _procmain.child_main(req["role"], req["config"], fds[0], fds[1], req.get("log"))
    except BaseException:  # noqa: BLE001 — whatever happens, the child must not return into the server loop
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


def _fork_child(sock: socket.socket, req: dict, fds: list[int]) -> int:
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid
    try:
        _forget_server(sock)
    finally:
        _child(req, fds)


_INHERITED: list[socket.socket] = []  # a shared server's listening socket: no child keeps it
# every child of this server that may still run (killed on exit): the pre-forked spares as (pid, control
# socket), and the children spawned and not yet reaped
_SPARE_PIDS: list[tuple[int, socket.socket]] = []
_LIVE: set[int] = set()
_ROOT: list[str] = []  # the engine's scratch root, removed on exit once the children above are dead
_BACKEND: list = []  # the server's backend, once its modules are imported (spares prepare with it)


def _forget_server(sock: socket.socket) -> None:
    """In a forked process: drop the server's sockets (a child cannot ask for more children)."""
    sock.close()
    for other in _INHERITED:
        other.close()
    for _, ctl in _SPARE_PIDS:
        ctl.close()  # another spare must see its control socket close when the server goes
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


# Forking a server with torch imported takes 1.3-2 ms on a quiet machine and 3-10 ms on a busy one (its
# page tables); a spawn request that finds a spare ready skips that wait: the spare, forked earlier, only
# receives its role and socket. On a GPU a spare also starts its device context ahead (Backend.prepare_spare),
# holding it while it waits. $REPAIR_SPARES changes the number.
_SPARES = [2]


def _fork_with_control() -> tuple[int, socket.socket]:
    """fork() with a control socket between the two: (child pid, our end) in the parent, (0, its end) in the child."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid:
        theirs.close()
        return pid, ours
    ours.close()
    return 0, theirs


def _fork_spare(sock: socket.socket) -> tuple[int, socket.socket]:
    pid, ctl = _fork_with_control()
    if pid:
        return pid, ctl
    theirs = ctl
    try:
        _forget_server(sock)
        from repair.engine.sandbox import set_parent_death_signal

        set_parent_death_signal()  # a spare nobody will use dies with the server
        if _BACKEND:
            try:
                _BACKEND[0].prepare_spare()
            except Exception:  # noqa: BLE001 — the child meets it again and reports it
                pass
        msg, fds, _flags, _addr = socket.recv_fds(theirs, 1 << 16, 8)
        theirs.close()
        if not msg or len(fds) != 2:
            os._exit(0)
        req = json.loads(msg)
    except BaseException:  # noqa: BLE001 — a spare never returns into the server loop
        os._exit(0)
    _child(req, fds)


def _spawn(sock: socket.socket, req: dict, fds: list[int]) -> int:
    """A child for the request: a spare when one is ready (forked afresh otherwise)."""
    while _SPARE_PIDS:
        pid, ctl = _SPARE_PIDS.pop(0)
        try:
            socket.send_fds(ctl, [json.dumps(req).encode()], fds)
        except OSError:  # that spare is gone
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            continue
        finally:
            ctl.close()
        for fd in fds:
            os.close(fd)
        return pid
    return _fork_child(sock, req, fds)


_DETACH_GRACE_S = 10.0  # a detached child still alive after this long is killed


def _reap_detached(detached: dict[int, float]) -> None:
    for pid, since in list(detached.items()):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            del detached[pid]
            _LIVE.discard(pid)
        elif time.monotonic() - since > _DETACH_GRACE_S:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def serve(sock: socket.socket) -> None:
    """Answer one engine until it goes; _LIVE holds the children it has not had reaped yet."""
    detached: dict[int, float] = {}  # children the engine will not wait for: reaped here
    while True:
        if detached:
            _reap_detached(detached)
        _kill_orphans(keep={*_LIVE, *detached, *(pid for pid, _ in _SPARE_PIDS)})
        while len(_SPARE_PIDS) < _SPARES[0] and not select.select([sock], [], [], 0)[0]:  # only while no request waits
            _SPARE_PIDS.append(_fork_spare(sock))
        if _TERM_SEEN[0]:  # a SIGTERM that landed during a fork (its SystemExit was lost)
            return
        sock.settimeout(0.5 if detached else None)
        try:
            msg, fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, 8)
        except TimeoutError:
            continue
        except OSError:
            return
        if not msg:
            return  # the engine went away
        req = json.loads(msg)
        if req["op"] == "spawn":
            pid = _spawn(sock, req, fds)
            _LIVE.add(pid)
            sock.send(json.dumps({"op": "spawn", "id": req.get("id"), "pid": pid}).encode())
            continue
        for fd in fds:
            os.close(fd)
        if req["op"] == "detach":
            detached[req["pid"]] = time.monotonic()
        elif req["op"] == "wait":
            try:
                _, status = os.waitpid(req["pid"], 0)
            except ChildProcessError:
                status = None
            _LIVE.discard(req["pid"])
            sock.send(json.dumps({"op": "wait", "id": req.get("id"), "pid": req["pid"], "status": status}).encode())


_TERM_RAISES = [True]  # SIGTERM ends the server's work; once it is winding down, it changes nothing
# A SIGTERM seen. The handler's SystemExit is lost when the signal lands while Python runs its at-fork
# callbacks (their exceptions are ignored: logging registers one), so a loop that forks checks this after.
_TERM_SEEN = [False]


def _exit_on_term(signum, frame) -> None:
    _TERM_SEEN[0] = True
    if _TERM_RAISES[0]:
        raise SystemExit(0)


def main() -> None:
    signal.signal(signal.SIGTERM, _exit_on_term)
    if os.environ.get("REPAIR_SPARES", "").isdigit():
        _SPARES[0] = int(os.environ["REPAIR_SPARES"])
    if sys.argv[1] == "--listen":
        parent = int(sys.argv[5]) if len(sys.argv) > 5 else None
        _run_then_finish(lambda: _shared_main(sys.argv[2], sys.argv[3], float(sys.argv[4]), parent))
    fd, backend_name = int(sys.argv[1]), sys.argv[2]
    _ROOT.append(sys.argv[3])
    sock = socket.socket(fileno=fd)

    def work() -> int:
        from repair.engine.sandbox import prctl, set_parent_death_signal

        set_parent_death_signal(signal.SIGTERM)  # the engine died: clean up (children die with us) and go
        prctl(_PR_SET_CHILD_SUBREAPER, 1)  # what a sandboxed process leaves running is ours to kill (_kill_orphans)
        error = _preload(backend_name)
        if error is not None:  # reported to the engine as a missing environment
            sock.send(json.dumps({"ready": False, "error": error}).encode())
        else:
            sock.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
            serve(sock)
        return 0

    _run_then_finish(work)


def _run_then_finish(work) -> None:
    """work(), then _finish: whatever happens, and however the SIGTERMs fall (an engine's death both closes
    the server's socket and signals it, so serve() may return and the signal land just after)."""
    code = 0
    try:
        code = work()
    except SystemExit:
        pass
    except BaseException:  # noqa: BLE001 — into the server log, which the engine shows
        traceback.print_exc()
        code = 1
    while True:
        try:
            _finish(code)
        except SystemExit:  # landed before _finish disarmed it: finish again
            continue


def _kill(pid: int) -> None:
    """SIGKILL a child, its process group (it made one) and all, and reap it."""
    for kill in (os.killpg, os.kill):  # its group, and itself (if it had not made one yet)
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _finish(code: int) -> None:
    import shutil

    _TERM_RAISES[0] = False  # from here a SIGTERM cannot cut the clean-up short
    for pid in [*_LIVE, *(pid for pid, _ in _SPARE_PIDS)]:  # none may write into the root while it goes
        _kill(pid)
    if _ROOT:  # an engine's server or session (a shared server's children are sessions: their own SIGTERM ends them)
        _kill_orphans(keep=set())
    for root in _ROOT:
        shutil.rmtree(root, ignore_errors=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # no interpreter finalisation: nothing is left to flush, and frozen objects are never
    # freed, which extension modules (triton's nanobind) would report as leaks
    os._exit(code)


# what children use besides the backend's modules: the reference process compares and checks insensitivity
_PRELOAD = ("repair.engine.procmain", "repair.engine.compare", "repair.engine.tolerance", "repair.integrity.runtime", "repair.engine.confine.landlock",
            "repair.engine.confine.seccomp")


def _preload(backend_name: str) -> str | None:
    """Import what every child needs; the traceback when that fails."""
    from provenance.offline import apply_offline_env

    apply_offline_env()
    try:
        from repair.engine.backends import get_backend

        backend = get_backend(backend_name)
        # Importing torch and triton makes ~10^6 objects that live as long as the server: collecting
        # them during the import (or after it) costs ~0.3 s of ~2. Frozen, no collection here or in a
        # child ever walks them again, and their pages stay shared with the children.
        gc.disable()
        try:
            for name in [*backend.preload, *_PRELOAD]:
                importlib.import_module(name)
        finally:
            gc.freeze()
            gc.enable()
        sys.modules["repair.engine.procmain"].warm_up(backend)
        # what a candidate that confines itself needs, made once here and inherited
        sys.modules["repair.engine.confine.landlock"].abi()
        sys.modules["repair.engine.confine.seccomp"].prepare()
        sys.modules["repair.engine.sandbox"].prepare_confinement()
        backend.prepare_server()
        gc.freeze()
        _BACKEND.append(backend)
    except BaseException as e:  # noqa: BLE001
        from repair.errors import EnvironmentMissing

        return str(e) if isinstance(e, EnvironmentMissing) else traceback.format_exc()
    return None


def _shared_main(path: str, backend_name: str, idle_s: float, parent: int | None = None) -> int:
    """A shared server: every engine that connects to `path` gets a session process of its own, forked
    ahead from this warm one (with its spares ready); exits after idle_s with no session, or when `parent`
    (the process that started it) ends."""
    listener = None
    try:
        if parent is not None:
            from repair.engine.sandbox import set_parent_death_signal

            set_parent_death_signal(signal.SIGTERM)  # its sessions end with it, and their children with them
            if os.getppid() != parent:  # it was gone before the signal was armed
                return 0
        error = _preload(backend_name)
        if error is not None:
            print(error, file=sys.stderr)
            return 1
        from repair.engine.sandbox import prctl

        prctl(_PR_SET_CHILD_SUBREAPER, 1)  # what a sandboxed process leaves behind is ours: see _descends_from_us
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        tmp = os.path.join(os.path.dirname(path), f".{os.getpid()}.tmp")  # no longer than the socket's own path
        listener.bind(tmp)
        os.chmod(tmp, 0o600)
        listener.listen(16)
        _INHERITED.append(listener)
        with open(f"{path}.pid", "w") as f:
            f.write(f"{os.getpid()}\n")
        os.replace(tmp, path)  # the socket appears once the server is ready
        print(f"shared fork server {os.getpid()} ready on {path}", flush=True)
        ready = None  # (pid, control socket) of the session process the next engine gets
        sessions: set[int] = set()
        idle_since = time.monotonic()
        while True:
            if ready is None:
                ready = _fork_session()
            if _TERM_SEEN[0]:  # a SIGTERM that landed during that fork (its SystemExit was lost)
                return 0
            for pid in list(sessions):
                if _exited(pid):
                    sessions.discard(pid)
            _kill_orphans(keep={*sessions, ready[0]})
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
    except SystemExit:
        return 0
    finally:
        if listener is not None:
            _unlink_if_ours(path)
        if parent is not None:  # its caller's server: its log goes too, and the directory once nothing else is there
            from repair.engine.shared_server import log_path

            for remove, leftover in ((os.unlink, log_path(path)), (os.rmdir, os.path.dirname(path))):
                try:
                    remove(leftover)
                except OSError:
                    pass


_PR_SET_CHILD_SUBREAPER = 36


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


def _kill_orphans(keep: set[int]) -> None:
    """Kill and reap this process's children other than those in `keep` (the ones it forked and still tracks):
    leftovers of sandboxed processes reparented to it (a grandchild that made its own session escapes the kill
    of the candidate's group)."""
    try:
        with open(f"/proc/{os.getpid()}/task/{os.getpid()}/children") as f:
            children = [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        children = []
    for pid in children:
        if pid not in keep:
            _kill(pid)


def _exited(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


def _fork_session() -> tuple[int, socket.socket]:
    """A session process: forked from the warm shared server, it forks its spares, waits for its engine's
    connection, serves it, then kills whatever the engine left and removes the engine's scratch root."""
    pid, ctl = _fork_with_control()
    if pid:
        return pid, ctl
    theirs = ctl
    try:
        for other in _INHERITED:
            other.close()  # the listener is the shared server's alone
        _INHERITED.clear()
        from repair.engine.sandbox import set_parent_death_signal

        set_parent_death_signal(signal.SIGTERM)  # the shared server stopped: end this session cleanly
        while len(_SPARE_PIDS) < _SPARES[0]:
            _SPARE_PIDS.append(_fork_spare(theirs))
        _msg, fds, _flags, _addr = socket.recv_fds(theirs, 64, 1)
        theirs.close()
    except BaseException:  # noqa: BLE001
        _run_then_finish(lambda: 0)
    if not fds:
        _run_then_finish(lambda: 0)
    _run_then_finish(lambda: _serve_engine(socket.socket(fileno=fds[0])))


def _serve_engine(conn: socket.socket) -> int:
    """One engine's session (in its session process). On exit (_finish) the children it left are killed
    and its scratch root, a temporary directory the engine named in its hello, is removed."""
    from repair.engine.sandbox import ROOT_PREFIX

    try:
        conn.settimeout(10.0)
        hello = json.loads(conn.recv(1 << 16) or b"{}")
        root = hello.get("root") if isinstance(hello, dict) else None
        if isinstance(root, str) and os.path.basename(root).startswith(ROOT_PREFIX) and os.path.isdir(root):
            _ROOT.append(root)
        conn.settimeout(None)
        conn.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
        serve(conn)
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


if __name__ == "__main__":
    main()
