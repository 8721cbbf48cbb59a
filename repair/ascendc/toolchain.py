"""What running an AscendC candidate needs: ascendc-cpu (g++), or an NPU backend with CANN and torch_npu.

ascendc-cpu emulates the vector subset on the CPU (repair/ascendc/emu/); the NPU build in repair/ascendc/build.py
has never met CANN. Every refusal is EnvironmentMissing, one line, exit 3.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

from repair.ascendc.candidate import AscendCCandidate
from repair.errors import EnvironmentMissing

CANN_DEFAULT = Path("/usr/local/Ascend/ascend-toolkit/latest")


def cann_home() -> Path | None:
    """The CANN toolkit: $ASCEND_HOME_PATH or $ASCEND_TOOLKIT_HOME (CANN's set_env.sh sets them), else its
    default install directory."""
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        if os.environ.get(var) and Path(os.environ[var]).is_dir():
            return Path(os.environ[var])
    return CANN_DEFAULT if CANN_DEFAULT.is_dir() else None


def tool(name: str) -> str | None:
    """A CANN tool on PATH or in the toolkit's bin directories."""
    found = shutil.which(name)
    if found:
        return found
    home = cann_home()
    for d in ("bin", "compiler/ccec_compiler/bin", "python/site-packages/bin", "tools/msopgen/bin"):
        if home is not None and (home / d / name).is_file():
            return str(home / d / name)
    return None


def missing_for(cand: AscendCCandidate) -> list[str]:
    """What this machine lacks to build and run the candidate on an NPU, in words; empty when nothing."""
    out = []
    home = cann_home()
    needed = "bisheng" if cand.format == "mkb-direct" else "msopgen"
    if home is None:
        out.append("the CANN toolkit (no $ASCEND_HOME_PATH, no /usr/local/Ascend/ascend-toolkit/latest; "
                   "source CANN's set_env.sh)")
    elif tool(needed) is None:
        out.append(f"CANN's {needed} (not on PATH nor in {home})")
    if not torch_npu_importable():
        out.append("torch_npu (not importable)")
    return out


def torch_npu_importable() -> bool:
    """Whether the real torch_npu is there. A module without a spec in sys.modules is ascendc-cpu's stand-in
    (emu/forward.py installs it for a candidate's model imported in this process), not torch_npu."""
    mod = sys.modules.get("torch_npu")
    if mod is not None and getattr(mod, "__spec__", None) is None:
        return False
    try:
        return importlib.util.find_spec("torch_npu") is not None
    except (ImportError, ValueError):
        return False


def require_backend(cand: AscendCCandidate, backend: str) -> None:
    """Raise EnvironmentMissing saying why this candidate's numerics cannot run on `backend` here; return when they
    can (ascendc-cpu evaluates, and the repair loop runs on it; npu builds it with CANN: repair/ascendc/npu.py)."""
    if backend == "ascendc-cpu":
        return
    if backend != "npu":
        raise EnvironmentMissing(
            f"{cand.path}: AscendC numerics need --backend ascendc-cpu (emulated on the CPU with g++) or --backend npu "
            f"(an Ascend NPU with CANN and torch_npu); {backend} runs Triton kernels")
    missing = missing_for(cand)
    if missing:
        raise EnvironmentMissing(f"backend npu: {cand.path} needs {' and '.join(missing)}")
