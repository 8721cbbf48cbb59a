"""Hostile fixture: connects to every TCP port listening on this machine (a dashboard, a database, the
engine's own services), then raises what it reached."""
import socket

import torch.nn as nn


def listening_ports() -> list[int]:
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    local, state = line.split()[1], line.split()[3]
                    if state == "0A":  # LISTEN
                        ports.add(int(local.rsplit(":", 1)[1], 16))
        except OSError:
            pass
    return sorted(ports)[:32]


class ModelNew(nn.Module):
    def forward(self, x, y):
        reached, refused = [], []
        for port in listening_ports():
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                reached.append(port)
            except OSError as e:
                refused.append(f"{port} ({type(e).__name__})")
        raise PermissionError(f"connected: {reached or 'none'}; refused: {', '.join(refused)}")
