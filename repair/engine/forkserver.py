"""Fork server entry: `python -P -m repair.engine.forkserver FD BACKEND ROOT` (one engine's private server), or
`python -P -m repair.engine.forkserver --listen SOCKET BACKEND IDLE_S [PARENT_PID]` (a shared server: `repair server
start`; with PARENT_PID, one that ends with that process: a campaign's server for its runs).

Imports the heavy modules once (repair/engine/preload.py), then forks a child per spawn request and reports exit
statuses (repair/engine/spawner.py). A shared server listens on a Unix socket and hands each engine that connects
a session process of its own (repair/engine/sessions.py).
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sys

from repair.engine import spawner
from repair.engine.confine.limits import set_parent_death_signal
from repair.engine.preload import preload
from repair.engine.sessions import shared_main


def main() -> None:
    signal.signal(signal.SIGTERM, spawner.exit_on_term)
    if os.environ.get("REPAIR_SPARES", "").isdigit():
        spawner.SPARES[0] = int(os.environ["REPAIR_SPARES"])
    if sys.argv[1] == "--listen":
        parent = int(sys.argv[5]) if len(sys.argv) > 5 else None
        spawner.run_then_finish(lambda: shared_main(sys.argv[2], sys.argv[3], float(sys.argv[4]), parent))
    fd, backend_name = int(sys.argv[1]), sys.argv[2]
    spawner.ROOTS.append(sys.argv[3])
    sock = socket.socket(fileno=fd)

    def work() -> int:
        set_parent_death_signal(signal.SIGTERM)  # the engine died: clean up (children die with us) and go
        spawner.become_subreaper()  # what a sandboxed process leaves running is ours to kill (kill_orphans)
        error = preload(backend_name)
        if error is not None:  # reported to the engine as a missing environment
            sock.send(json.dumps({"ready": False, "error": error}).encode())
        else:
            sock.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
            spawner.serve(sock)
        return 0

    spawner.run_then_finish(work)


if __name__ == "__main__":
    main()
