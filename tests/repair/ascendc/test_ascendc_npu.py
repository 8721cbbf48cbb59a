"""The npu backend's AscendC path (repair/ascendc/npu.py): the plumbing around CANN's build, with stand-in steps.

CANN, torch_npu and an NPU are not here: the stand-in plan's steps are Python commands that make what CANN's would
(an extension module ModelNew imports), so what is checked is the order of the steps, their failures as
`compile-error`, and the import of ModelNew with the built extension on its path.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from repair.ascendc.build import BuildFailed, BuildPlan, Step, run_build

ROOT = Path(__file__).resolve().parents[3]
ADD = ROOT / "examples" / "ascendc" / "add"

# what CANN's build would leave: the extension ModelNew imports (here computing with torch) and torch_npu
_EXT = "import torch\n\ndef add_custom(x, y):\n    return x + y\n"
_MAKE_EXT = ("import pathlib; pathlib.Path('ext').mkdir(exist_ok=True); "
             f"pathlib.Path('ext/custom_ops_lib.py').write_text({_EXT!r}); "
             "pathlib.Path('ext/torch_npu.py').write_text('')")


def _stand_in(plan: BuildPlan, steps: list[Step]) -> BuildPlan:
    return BuildPlan(plan.files, steps, plan.python_path, plan.env, model=plan.model)


def test_a_failing_step_is_a_compile_error_with_its_output(tmp_path):
    plan = BuildPlan({"a.txt": "x"}, [Step([sys.executable, "-c", "print('first')"], str(tmp_path)),
                                      Step([sys.executable, "-c", "import sys; print('bad op'); sys.exit(4)"],
                                           str(tmp_path)),
                                      Step([sys.executable, "-c", "open('never', 'w')"], str(tmp_path))], [], {})
    with pytest.raises(BuildFailed) as e:
        run_build(plan, tmp_path)
    assert e.value.case_status == "compile-error"
    assert "exited 4" in str(e.value) and "bad op" in str(e.value)
    assert (tmp_path / "a.txt").read_text() == "x" and not (tmp_path / "never").exists()  # stopped at the failure


def test_a_missing_tool_is_a_compile_error(tmp_path):
    plan = BuildPlan({}, [Step(["no-such-msopgen-here", "gen"], str(tmp_path))], [], {})
    with pytest.raises(BuildFailed, match="no-such-msopgen-here"):
        run_build(plan, tmp_path)


def test_the_npu_backend_hands_ascendc_candidates_to_the_npu_loader(tmp_path, monkeypatch):
    import tempfile

    from repair.engine.backends import Npu

    # the loader's work directory goes where TMPDIR points (a candidate process's scratch directory): here tmp_path,
    # not the machine's /tmp, which kept an empty ascendc-npu-* per run of this test
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    be = Npu()
    assert "ascendc" in be.languages and be.build_s > 0
    assert be.candidate_loader(str(ROOT / "examples" / "add_relu" / "correct.py")) is None  # Triton: imported as is
    loader = be.candidate_loader(str(ADD / "correct.py"))
    assert type(loader).__name__ == "NpuLoader" and loader.writable == [str(loader.work)]
    assert loader.work.parent == tmp_path
    assert loader.plan.steps[0].argv[0] == "msopgen"


def test_without_cann_the_npu_backend_says_what_is_missing():
    from repair.ascendc import load_candidate, require_backend
    from repair.errors import EnvironmentMissing

    with pytest.raises(EnvironmentMissing, match="CANN toolkit.*torch_npu"):
        require_backend(load_candidate(ADD / "correct.py"), "npu")


@pytest.mark.parametrize("candidate", ["correct.py", "correct.json"])
def test_the_loader_builds_then_imports_modelnew_with_the_built_extension(tmp_path, candidate):
    """In a child process: the stand-in extension and torch_npu must not leak into the test process's imports."""
    script = f"""
import json, os, sys, tempfile
import torch
tempfile.tempdir = {str(tmp_path)!r}
from repair.ascendc.build import Step
from repair.ascendc.npu import NpuLoader
loader = NpuLoader({str(ADD / candidate)!r})
ext = os.path.join(str(loader.work), "ext")
loader.plan.python_path[:] = [ext]
loader.plan.steps[:] = [Step([sys.executable, "-c", {_MAKE_EXT!r}.replace("custom_ops_lib", loader.cand.extension)],
                             str(loader.work))]
module = loader.load()
x, y = torch.randn(1000), torch.randn(1000)
out = module.ModelNew()(x, y)
print(json.dumps({{"ok": bool(torch.equal(out, x + y)), "work": str(loader.work), "files": sorted(loader.plan.files)}}))
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["ok"] and got["work"].startswith(str(tmp_path))  # built under the candidate's scratch directory
    assert ("ModelNew.py" in got["files"]) and (Path(got["work"]) / "ModelNew.py").is_file()
