"""Scratch roots: the directory an engine's sandbox processes work under, removed once that engine is gone."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from provenance.runtime import process_running

ROOT_PREFIX = "repair-sandbox-"  # every engine scratch root starts so (the shared server removes only such)


def new_root() -> str:
    """A fresh scratch root for this engine's sandbox processes, named after the engine
    (repair-sandbox-PID-...). Roots of this user's engines that are gone are removed first: the fork
    server removes its engine's root when the engine dies, but an engine killed between creating the root
    and starting its server (or its session) leaves it behind, and nothing else would."""
    import shutil

    uid = os.getuid()
    for p in Path(tempfile.gettempdir()).glob(f"{ROOT_PREFIX}*-*"):
        pid = p.name[len(ROOT_PREFIX):].split("-", 1)[0]
        try:
            ours = p.stat().st_uid == uid
        except OSError:
            continue
        if ours and pid.isdigit() and int(pid) != os.getpid() and not process_running(int(pid)):
            shutil.rmtree(p, ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-")


