"""How a fork server process starts: its command line and its environment."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from repair.errors import BadInput

PKG_ROOT = str(Path(__file__).resolve().parents[2])  # the checkout or site-packages holding our packages


def server_command(*args: str) -> list[str]:
    """The fork server's command line (repair/engine/forkserver.py says what `args` may be).

    -P: the server's cwd is not on sys.path (children chdir, and must not import from there)."""
    return [sys.executable, "-P", "-m", "repair.engine.forkserver", *args]


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
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_ROOT, env.get("PYTHONPATH")) if p)
    return env
