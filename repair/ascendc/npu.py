"""An AscendC candidate on a real Ascend NPU: built with CANN by `repair.ascendc.build`'s plan, then imported.

The engine's `npu` backend hands an AscendC candidate to an `NpuLoader` inside the candidate's own process, as
ascendc-cpu hands it to the emulation's loader: `build()` writes the plan's files under the candidate's scratch
directory and runs its steps (msopgen, the operator project's build.sh and installer, the torch extension; or
`bisheng -xasc` for a direct launch), and `load()` imports the candidate's ModelNew with the built extension on
its path. A failing step is a `compile-error` result carrying the step's output.

NOT YET RUN ON AN NPU: this machine has neither CANN nor torch_npu. What is tested here is the plumbing (steps in
order, failures as compile errors, the extension found at import) with a stand-in plan; the CANN commands
themselves follow the documented flows and have never executed (bench/npu_check.sh runs them on an Ascend host).
"""
from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import types
from pathlib import Path

from repair.ascendc.build import BuildPlan, plan_build, run_build
from repair.ascendc.load import load_candidate
from repair.ascendc.toolchain import cann_home

SOC_ENV = "REPAIR_ASCEND_SOC"  # the chip the kernels are built for (msopgen's ai_core-<soc>, bisheng --npu-arch)
DEFAULT_SOC = "Ascend910B"


class NpuLoader:
    """An AscendC candidate for one candidate process on an NPU: `writable`, then `build()`, then `load()`."""

    def __init__(self, path: str | Path, *, build_timeout_s: float = 900.0):
        self.cand = load_candidate(path)
        # under the candidate's scratch directory (the candidate role points TMPDIR there), removed with it
        self.work = Path(tempfile.mkdtemp(prefix="ascendc-npu-"))
        self.plan: BuildPlan = plan_build(self.cand, self.work, soc=os.environ.get(SOC_ENV, DEFAULT_SOC),
                                          cann=cann_home())
        self.writable = [str(self.work)]
        self.build_timeout_s = build_timeout_s
        self.built = False

    def build(self) -> None:
        """CANN's toolchain: BuildFailed (a `compile-error` result with the step's output) when a step fails."""
        run_build(self.plan, self.work, timeout_s=self.build_timeout_s)
        self.built = True

    def load(self) -> types.ModuleType:
        """The candidate's ModelNew module, importing the extension the build made (the custom operator package
        installed under the work directory is found through the plan's environment)."""
        if not self.built:
            self.build()
        os.environ.update(self.plan.env)
        for p in reversed(self.plan.python_path):
            if p not in sys.path:
                sys.path.insert(0, p)
        spec = importlib.util.spec_from_file_location("_repair_candidate", self.work / self.plan.model)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
