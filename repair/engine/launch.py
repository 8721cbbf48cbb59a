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


# What sandboxed processes may inherit: what Python, torch, Triton, CUDA and CANN read, and our own settings.
# Anything else (provider keys, tokens, the user's other settings) stays with the engine.
PASS_NAMES = frozenset("""
PATH HOME USER LOGNAME LANG LANGUAGE TZ TMPDIR TERM SHELL PWD PYTHONPATH PYTHONHASHSEED PYTHONDONTWRITEBYTECODE
PYTHONUNBUFFERED PYTHONWARNINGS PYTHONFAULTHANDLER PYTHONMALLOC VIRTUAL_ENV CONDA_PREFIX LD_LIBRARY_PATH
LIBRARY_PATH CPATH CC CXX MALLOC_ARENA_MAX XDG_RUNTIME_DIR XDG_CACHE_HOME SOC_VERSION TOOLCHAIN_HOME
""".split())
PASS_PREFIXES = ("LC_", "REPAIR_", "TRITON_", "TORCH_", "TORCHINDUCTOR_", "PYTORCH_", "CUDA_", "CUDNN_", "NVIDIA_",
                 "NCCL_", "CUBLAS", "ASCEND_", "ACL_", "HCCL_", "NPU_", "TBE_", "OPP_", "OMP_", "KMP_", "GOMP_",
                 "MKL_", "OPENBLAS_", "ONEDNN_", "DNNL_")
PASS_EXTRA = "REPAIR_PASS_ENV"  # comma-separated names the user passes on purpose


def sandbox_environ(environ: dict[str, str]) -> dict[str, str]:
    """The part of `environ` sandboxed processes inherit: the allow-list, less anything named like a secret
    (a TRITON_API_TOKEN is still a token), plus the names REPAIR_PASS_ENV lists on purpose."""
    from provenance.redact import is_secret_name

    extra = {n.strip() for n in environ.get(PASS_EXTRA, "").split(",") if n.strip()}
    return {k: v for k, v in environ.items()
            if k in extra or ((k in PASS_NAMES or k.startswith(PASS_PREFIXES)) and not is_secret_name(k))}


def server_env(backend) -> dict[str, str]:
    """The environment a fork server (and so every child) starts with."""
    env = sandbox_environ(dict(os.environ))
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
