"""Whether candidate processes confine themselves: $REPAIR_CONFINE and the backend's default."""
from __future__ import annotations

import os

from repair.engine.confine import landlock
from repair.errors import BadInput, EnvironmentMissing

_CONFINE_MODES = {"auto": "auto", "": "auto", "on": "on", "1": "on", "off": "off", "0": "off"}


def confine_candidates(backend) -> bool:
    """Whether candidate processes confine themselves (drop_capabilities, then Landlock where the kernel has it:
    repair/engine/confine/landlock.py, then no sockets nor, where its backend allows, processes:
    repair/engine/confine/seccomp.py), from $REPAIR_CONFINE: `auto` (the default: on backends that have been run
    confined), `on` (every backend; EnvironmentMissing where the kernel has no Landlock) or `off`."""
    raw = os.environ.get("REPAIR_CONFINE", "auto")
    mode = _CONFINE_MODES.get(raw.strip().lower())
    if mode is None:
        raise BadInput(f"REPAIR_CONFINE={raw!r}: expected auto, on or off")
    if mode == "on" and landlock.abi() <= 0:
        raise EnvironmentMissing("REPAIR_CONFINE=on, but this kernel has no Landlock (Linux >= 5.13 with landlock "
                                 "among its LSMs): set REPAIR_CONFINE=auto or off")
    return mode == "on" or (mode == "auto" and backend.confine_default)
