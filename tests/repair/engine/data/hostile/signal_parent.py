"""Hostile fixture: signals the processes around it: SIGTERM and SIGKILL to its parent (the fork server),
killpg of the parent's group, SIGKILL to its siblings (the reference process, spare children), and signal 0
(the permission check only) to the engine and its process group; then raises what got through."""
import os
import signal

import torch.nn as nn


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _children_of(pid: int) -> set[int]:
    kids = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            kids |= {int(p) for p in f.read().split()}
    return kids


class ModelNew(nn.Module):
    def forward(self, x, y):
        server = os.getppid()
        engine = _parent_of(server)
        attempts = [(f"SIGTERM to the server {server}", lambda: os.kill(server, signal.SIGTERM)),
                    (f"killpg of the server's group", lambda: os.killpg(os.getpgid(server), signal.SIGKILL)),
                    (f"SIGKILL to the server {server}", lambda: os.kill(server, signal.SIGKILL))]
        attempts[1:1] = [(f"SIGKILL to sibling {pid}", lambda pid=pid: os.kill(pid, signal.SIGKILL))
                         for pid in sorted(_children_of(server) - {os.getpid()})]
        attempts += [(f"signal 0 to the engine {engine}", lambda: os.kill(engine, 0)),
                     ("signal 0 to the engine's group", lambda: os.killpg(os.getpgid(engine), 0))]
        done, refused = [], []
        for what, attempt in attempts:
            try:
                attempt()
                done.append(what)
            except OSError as e:
                refused.append(f"{what} ({type(e).__name__})")
        raise PermissionError(f"signalled: {', '.join(done) or 'none'}; refused: {'; '.join(refused)}")
