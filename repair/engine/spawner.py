"""A fork server's work for one engine: forking children (from spares forked ahead), reaping them, exiting clean.

It never imports a problem or a candidate itself, so every child starts from the same clean state.
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import time
import traceback

from repair.engine.confine.limits import prctl, set_parent_death_signal

INHERITED: list[socket.socket] = []  # a shared server's listening socket: no child keeps it
# every child of this server that may still run (killed on exit): the pre-forked spares as (pid, control
# socket), and the children spawned and not yet reaped
SPARE_PIDS: list[tuple[int, socket.socket]] = []
LIVE: set[int] = set()
ROOTS: list[str] = []  # the engine's scratch root, removed on exit once the children above are dead
BACKEND: list = []  # the server's backend, once its modules are imported (spares prepare with it)

# Forking a server with torch imported takes 1.3-2 ms on a quiet machine and 3-10 ms on a busy one (its
# page tables); a spawn request that finds a spare ready skips that wait: the spare, forked earlier, only
# receives its role and socket. On a GPU a spare also starts its device context ahead (Backend.prepare_spare),
# holding it while it waits. $REPAIR_SPARES changes the number.
SPARES = [2]


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


def _forget_server(sock: socket.socket) -> None:
    """In a forked process: drop the server's sockets (a child cannot ask for more children)."""
    sock.close()
    for other in INHERITED:
        other.close()
    for _, ctl in SPARE_PIDS:
        ctl.close()  # another spare must see its control socket close when the server goes
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def fork_with_control() -> tuple[int, socket.socket]:
    """fork() with a control socket between the two: (child pid, our end) in the parent, (0, its end) in the child."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid:
        theirs.close()
        return pid, ours
    ours.close()
    return 0, theirs


def fork_spare(sock: socket.socket) -> tuple[int, socket.socket]:
    pid, ctl = fork_with_control()
    if pid:
        return pid, ctl
    theirs = ctl
    try:
        _forget_server(sock)
        set_parent_death_signal()  # a spare nobody will use dies with the server
        if BACKEND:
            try:
                BACKEND[0].prepare_spare()
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
    while SPARE_PIDS:
        pid, ctl = SPARE_PIDS.pop(0)
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
            LIVE.discard(pid)
        elif time.monotonic() - since > _DETACH_GRACE_S:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def serve(sock: socket.socket) -> None:
    """Answer one engine until it goes; LIVE holds the children it has not had reaped yet."""
    detached: dict[int, float] = {}  # children the engine will not wait for: reaped here
    while True:
        if detached:
            _reap_detached(detached)
        kill_orphans(keep={*LIVE, *detached, *(pid for pid, _ in SPARE_PIDS)})
        while len(SPARE_PIDS) < SPARES[0] and not select.select([sock], [], [], 0)[0]:  # only while no request waits
            SPARE_PIDS.append(fork_spare(sock))
        if TERM_SEEN[0]:  # a SIGTERM that landed during a fork (its SystemExit was lost)
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
            LIVE.add(pid)
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
            LIVE.discard(req["pid"])
            sock.send(json.dumps({"op": "wait", "id": req.get("id"), "pid": req["pid"], "status": status}).encode())


_TERM_RAISES = [True]  # SIGTERM ends the server's work; once it is winding down, it changes nothing
# A SIGTERM seen. The handler's SystemExit is lost when the signal lands while Python runs its at-fork
# callbacks (their exceptions are ignored: logging registers one), so a loop that forks checks this after.
TERM_SEEN = [False]


def exit_on_term(signum, frame) -> None:
    TERM_SEEN[0] = True
    if _TERM_RAISES[0]:
        raise SystemExit(0)


def run_then_finish(work) -> None:
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
    for pid in [*LIVE, *(pid for pid, _ in SPARE_PIDS)]:  # none may write into the root while it goes
        _kill(pid)
    if ROOTS:  # an engine's server or session (a shared server's children are sessions: their own SIGTERM ends them)
        kill_orphans(keep=set())
    for root in ROOTS:
        shutil.rmtree(root, ignore_errors=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # no interpreter finalisation: nothing is left to flush, and frozen objects are never
    # freed, which extension modules (triton's nanobind) would report as leaks
    os._exit(code)


_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Orphans of this process's descendants are reparented to it (not to init): kill_orphans finds them."""
    prctl(_PR_SET_CHILD_SUBREAPER, 1)


def kill_orphans(keep: set[int]) -> None:
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
