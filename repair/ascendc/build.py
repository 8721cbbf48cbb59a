"""The NPU build of an AscendC candidate as a plan: files to write and commands to run, in order.

NEVER RUN ON AN NPU: this machine has no CANN, no torch_npu and no NPU. The steps follow the documented flows
(msopgen's custom-operator project, `build.sh`, the `.run` installer, an NPU torch extension calling `EXEC_NPU_CMD`;
for a direct launch `bisheng -xasc` and a pybind11 module). The engine's `npu` backend runs the plan in the
candidate's process (repair/ascendc/npu.py); here `plan_build` is tested for its shape and `run_build` with
stand-in steps only.
"""
from __future__ import annotations

import json
import re
import subprocess
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from repair.ascendc.candidate import AscendCCandidate, snake
from repair.errors import RepairError

GE_TYPES = {"DT_FLOAT": "float", "DT_FLOAT16": "float16", "DT_BF16": "bfloat16", "DT_INT32": "int32",
            "DT_INT64": "int64", "DT_INT8": "int8", "DT_UINT8": "uint8", "DT_BOOL": "bool"}


class BuildFailed(RepairError):
    """A build step exited non-zero: the candidate does not compile (a `compile-error` result, exit 1)."""

    case_status = "compile-error"


@dataclass
class Step:
    argv: list[str]
    cwd: str
    env: dict[str, str] = field(default_factory=dict)  # added to the environment
    glob_argv: bool = False  # expand `*` in argv (the installer's name carries the OS and architecture)


@dataclass
class BuildPlan:
    files: dict[str, str]  # path under the work directory -> text
    steps: list[Step]
    python_path: list[str]  # where the built extension and ModelNew can be imported from
    env: dict[str, str]  # what the evaluating process needs (the installed custom operator package)
    model: str = "ModelNew.py"  # the file, among `files`, that defines ModelNew


def plan_build(cand: AscendCCandidate, work: Path, *, soc: str = "Ascend910B", cann: Path | None = None) -> BuildPlan:
    work = Path(work)
    if cand.format == "mkb-direct":
        return _direct(cand, work, soc, cann)
    return _msopgen(cand, work, soc)


def _msopgen(cand: AscendCCandidate, work: Path, soc: str) -> BuildPlan:
    op, s = cand.op, snake(cand.op)
    project = f"{op}"
    json_src = cand.of("project_json")
    op_json = json_src[0].text if json_src else json.dumps(_json_from_opdef(cand), indent=2)
    files = {"op.json": op_json}
    for src in cand.of("host_tiling"):
        files[f"sources/op_host/{s}_tiling.h" if src.name.endswith("_src") else f"sources/{src.name}"] = src.text
    for src in cand.of("host_operator"):
        files[f"sources/op_host/{s}.cpp" if src.name.endswith("_src") else f"sources/{src.name}"] = src.text
    for src in cand.of("kernel"):
        files[f"sources/op_kernel/{s}.cpp" if src.name.endswith("_src") else f"sources/{src.name}"] = src.text
    binding = cand.of("binding")[0].text
    files["ext/binding.cpp"] = binding
    files["ext/setup.py"] = _SETUP.format(name=cand.extension)
    files["ModelNew.py"] = cand.model.text
    opp = work / "opp"
    steps = [
        Step(["msopgen", "gen", "-i", "op.json", "-c", f"ai_core-{soc}", "-lan", "cpp", "-out", project], str(work)),
        Step(["cp", "-r", "sources/op_host", "sources/op_kernel", project + "/"], str(work)),
        Step(["bash", "build.sh"], str(work / project)),
        Step([f"{project}/build_out/custom_opp_*.run", f"--install-path={opp}"], str(work), glob_argv=True),
        Step(["python", "setup.py", "build_ext", "--inplace"], str(work / "ext"),
             env={"ASCEND_CUSTOM_OPP_PATH": str(opp / "vendors" / "customize")}),
    ]
    return BuildPlan(files, steps, [str(work / "ext"), str(work)],
                     {"ASCEND_CUSTOM_OPP_PATH": str(opp / "vendors" / "customize")})


def _direct(cand: AscendCCandidate, work: Path, soc: str, cann: Path | None) -> BuildPlan:
    files = {s.name: s.text for s in cand.sources}
    kernels = [s.name for s in cand.of("kernel")]
    binding = cand.of("binding")[0].name
    inc = [f"-I{cann / 'include'}"] if cann else []
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    steps = [
        Step(["bisheng", "-xasc", f"--npu-arch={soc.lower()}", "-O2", "-fPIC", "-shared", *inc, *kernels,
              "-o", "libkernels.so"], str(work)),
        Step(["python", "-c", _PYBIND.format(binding=binding, out=f"{cand.extension}{suffix}")], str(work)),
    ]
    return BuildPlan(files, steps, [str(work)], {"LD_LIBRARY_PATH": str(work)}, model=cand.model.name)


def run_build(plan: BuildPlan, work: Path, *, timeout_s: float = 900.0) -> None:
    """Write the files and run the steps (never run here); BuildFailed with the step's output tail on failure."""
    import glob
    import os

    work = Path(work)
    for rel, text in plan.files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text, encoding="utf-8")
    for step in plan.steps:
        argv = [m for a in step.argv for m in (sorted(glob.glob(a, root_dir=step.cwd)) or [a])] \
            if step.glob_argv else step.argv
        try:
            r = subprocess.run(argv, cwd=step.cwd, env={**os.environ, **step.env}, capture_output=True, text=True,
                               timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise BuildFailed(f"{' '.join(argv[:3])} ran past {timeout_s:g} s") from None
        except OSError as e:  # the tool is missing or not executable
            raise BuildFailed(f"{' '.join(argv[:3])}: {e.strerror}") from None
        if r.returncode != 0:
            tail = (r.stdout + r.stderr).strip().splitlines()[-20:]
            raise BuildFailed(f"{' '.join(argv[:3])} exited {r.returncode}: " + " | ".join(tail))


def _json_from_opdef(cand: AscendCCandidate) -> list[dict]:
    """An msopgen JSON for a solution that has none (NPUKernelBench): inputs and outputs as its OpDef declares."""
    host = "\n".join(s.text for s in cand.of("host_operator"))
    desc: dict[str, list] = {"Input": [], "Output": []}
    for kind, name, types in re.findall(r'this->(Input|Output)\("(\w+)"\)[^;]*?\.DataType\(\{([^}]*)\}\)', host, re.S):
        ts = [GE_TYPES.get(t.strip().split("::")[-1], "float") for t in types.split(",") if t.strip()]
        desc[kind].append({"name": name, "param_type": "required", "format": ["ND"] * len(ts), "type": ts})
    return [{"op": cand.op, "language": "cpp", "input_desc": desc["Input"], "output_desc": desc["Output"]}]


_SETUP = """from setuptools import setup
from torch.utils.cpp_extension import BuildExtension
from torch_npu.utils.cpp_extension import NpuExtension

setup(name="{name}", ext_modules=[NpuExtension("{name}", ["binding.cpp"])],
      cmdclass={{"build_ext": BuildExtension}})
"""

_PYBIND = """import os, subprocess, sysconfig, torch, torch_npu, pybind11
from torch.utils import cpp_extension
inc = cpp_extension.include_paths() + [pybind11.get_include(), sysconfig.get_paths()["include"],
      torch_npu.__path__[0] + "/include", os.path.dirname("{binding}") or "."]
lib = cpp_extension.library_paths() + [torch_npu.__path__[0] + "/lib"]
subprocess.run(["c++", "-O2", "-shared", "-fPIC", "-std=c++17", "{binding}", *["-I" + i for i in inc],
                *["-L" + d for d in lib], "-L.", "-lkernels", "-ltorch", "-ltorch_cpu", "-lc10", "-ltorch_python",
                "-ltorch_npu", "-Wl,-rpath,$ORIGIN", "-o", "{out}"], check=True)
"""
