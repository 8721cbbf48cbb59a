"""Fork server entry: `python -P -m repair._forkserver FD BACKEND ROOT`.

Imports the heavy modules once, then forks a child per spawn request and reports exit statuses.
It never imports a problem or a candidate itself, so every child starts from the same clean state.
"""
from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import sys
import time
import traceback


def _fork_child(sock: socket.socket, req: dict, fds: list[int]) -> int:
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid
    code = 70
    try:
        sock.close()  # a child cannot ask for more children
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from repair import _procmain

        code = _procmain.child_main(req["role"], req["config"], fds[0], fds[1], req.get("log"))
    except BaseException:  # noqa: BLE001 — whatever happens, the child must not return into the server loop
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


_DETACH_GRACE_S = 10.0  # a detached child still alive after this long is killed


def _reap_detached(detached: dict[int, float]) -> None:
    for pid, since in list(detached.items()):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            del detached[pid]
        elif time.monotonic() - since > _DETACH_GRACE_S:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def serve(sock: socket.socket) -> None:
    detached: dict[int, float] = {}  # children the engine will not wait for: reaped here
    while True:
        if detached:
            _reap_detached(detached)
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
            pid = _fork_child(sock, req, fds)
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
            sock.send(json.dumps({"op": "wait", "id": req.get("id"), "pid": req["pid"], "status": status}).encode())


def _exit_on_term(signum, frame) -> None:
    raise SystemExit(0)


def main() -> None:
    fd, backend_name, root = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    sock = socket.socket(fileno=fd)
    from repair.sandbox import set_parent_death_signal

    signal.signal(signal.SIGTERM, _exit_on_term)
    set_parent_death_signal(signal.SIGTERM)  # the engine died: clean up (children die with us) and go
    try:
        _start_and_serve(sock, backend_name)
    finally:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


def _start_and_serve(sock: socket.socket, backend_name: str) -> None:
    from provenance.offline import apply_offline_env

    apply_offline_env()
    try:
        from repair.backends import get_backend

        backend = get_backend(backend_name)
        for name in [*backend.preload, "repair._procmain"]:
            importlib.import_module(name)
        sys.modules["repair._procmain"].warm_up(backend)
    except BaseException:  # noqa: BLE001 — reported to the engine as a missing environment
        sock.send(json.dumps({"ready": False, "error": traceback.format_exc()}).encode())
        return
    sock.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
    serve(sock)


if __name__ == "__main__":
    main()
