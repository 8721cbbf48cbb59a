"""What a fork server imports once, before it forks: the backend's modules, the children's, and their warm-up."""
from __future__ import annotations

import gc
import importlib
import sys
import traceback

from repair.engine import spawner

# what children use besides the backend's modules: the reference process compares and checks insensitivity
_PRELOAD = ("repair.engine.procmain", "repair.engine.compare", "repair.engine.tolerance", "repair.integrity.runtime",
            "repair.engine.confine.capabilities", "repair.engine.confine.landlock", "repair.engine.confine.seccomp")


def preload(backend_name: str) -> str | None:
    """Import what every child needs; the traceback when that fails."""
    from provenance.offline import apply_offline_env

    apply_offline_env()
    try:
        from repair.engine.backends import get_backend

        backend = get_backend(backend_name)
        # Importing torch and triton makes ~10^6 objects that live as long as the server: collecting
        # them during the import (or after it) costs ~0.3 s of ~2. Frozen, no collection here or in a
        # child ever walks them again, and their pages stay shared with the children.
        gc.disable()
        try:
            for name in [*backend.preload, *_PRELOAD]:
                importlib.import_module(name)
        finally:
            gc.freeze()
            gc.enable()
        sys.modules["repair.engine.procmain"].warm_up(backend)
        # what a candidate that confines itself needs, made once here and inherited
        sys.modules["repair.engine.confine.landlock"].abi()
        sys.modules["repair.engine.confine.seccomp"].prepare()
        sys.modules["repair.engine.confine.capabilities"].prepare_confinement()
        backend.prepare_server()
        gc.freeze()
        spawner.BACKEND.append(backend)
    except BaseException as e:  # noqa: BLE001
        from repair.errors import EnvironmentMissing

        return str(e) if isinstance(e, EnvironmentMissing) else traceback.format_exc()
    return None
