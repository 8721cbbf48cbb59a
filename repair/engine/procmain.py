"""What a forked sandbox process runs: its common set-up, then the reference role or the candidate role.

The reference imports the problem, builds each case's constructor arguments and inputs from a
seed, and later runs `Model` on its own pristine copy of them and compares the candidate's outputs
with its own (which never leave it). The candidate imports only the
candidate file (after its limits are set), builds `ModelNew` under the same seed and returns its
outputs and the runtime guard's findings. Neither sees the other's module; the candidate never
sees expected outputs. Each role has its module: repair/engine/reference_role.py, repair/engine/candidate_role.py.
"""
from __future__ import annotations

import faulthandler
import importlib
import os
import sys
from contextlib import nullcontext

from repair.engine.backends import get_backend
from repair.engine.candidate_role import CandidateRole
from repair.engine.confine.limits import apply_limits, set_parent_death_signal
from repair.engine.launch import PKG_ROOT
from repair.engine.reference_role import ReferenceRole
from repair.engine.role import runtime_guard, seed_all
from repair.engine.values import decode_values, encode_values


def warm_up(backend) -> None:
    """Run in the fork server once: pay the lazy imports every child would otherwise repeat.

    The first interpreted Triton launch imports ~50 modules, the first seeding numpy.random; doing
    them here keeps every candidate process's first case as fast as its last.
    Only tiny single-threaded work runs here (no OpenMP pool, no device context before forking).
    """
    if "torch" not in sys.modules:
        return
    import torch

    _deterministic()
    seed_all(0)  # numpy.random is imported lazily by its first use (~10 ms in every child otherwise)
    desc, data = encode_values([torch.zeros(2), torch.zeros(2, 3).t()])
    decode_values(desc, bytearray(data))
    for name in ("repair.integrity.runtime", "repair.integrity.rules"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    guard = runtime_guard([])
    with torch.no_grad(), (guard if guard is not None else nullcontext()):
        out = torch.zeros(8) + 1  # the guard's dispatch mode (and its launch hook, below) used once
        if backend.warm_kernel:
            from repair.engine.warmkernel import launch_once

            launch_once()
    if guard is not None:
        guard.findings(inputs_before=[], inputs_after=[], outputs=out)


def child_main(role: str, config: dict, rfd: int, wfd: int, log_path: str | None) -> int:
    os.setsid()  # own process group: the engine kills the child and anything it started at once
    set_parent_death_signal()
    if log_path:
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    faulthandler.enable(file=sys.stderr)  # a segfault leaves its Python stack in the log
    os.chdir(config["cwd"])
    backend = get_backend(config["backend"])
    for name in backend.child_imports:
        importlib.import_module(name)
    _deterministic()  # torch.empty comes back NaN-filled: unwritten outputs show
    apply_limits(mem_limit_mb=config.get("mem_limit_mb"), memory_rlimit=backend.memory_rlimit,
                 cpu_seconds=config.get("cpu_seconds"), fsize_mb=config.get("fsize_mb"))
    while PKG_ROOT in sys.path:  # the repository (examples/, tests/) is not importable from a sandbox
        sys.path.remove(PKG_ROOT)
    role_cls = {"reference": ReferenceRole, "candidate": CandidateRole}[role]
    return role_cls(config, backend, rfd, wfd).serve()


def _deterministic() -> None:
    import torch

    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is not None:  # the public wrapper also imports torch._inductor (~2 s, ~900 modules)
        setter(True, warn_only=True)
    else:
        torch.use_deterministic_algorithms(True, warn_only=True)
