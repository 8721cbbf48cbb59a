"""`repair eval` on an AscendC candidate outside ascendc-cpu (tests/repair/ascendc/test_ascendc_cpu.py): a Triton
backend says the numerics need --backend ascendc-cpu or npu, and npu says which of CANN and torch_npu is missing;
both exit 3 with one line."""
from __future__ import annotations

import importlib.util

import pytest
from click.testing import CliRunner

from ascendc_fixtures import SUITE
from repair.ascendc import load_candidate, missing_for
from repair.cli import cli
from repair.engine import check_candidate_file, evaluate
from repair.errors import EnvironmentMissing

SOFTMAX = SUITE / "softmax"


@pytest.mark.parametrize("candidate", ["correct.py", "correct.json", "answer/0", "nearmiss_unaligned.py"])
def test_a_triton_backend_says_ascendc_needs_ascendc_cpu_or_an_npu(candidate):
    with pytest.raises(EnvironmentMissing) as e:
        evaluate(SOFTMAX / "problem.py", SOFTMAX / candidate, backend="triton-cpu")
    assert e.value.exit_code == 3 and "AscendC numerics need --backend ascendc-cpu" in str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.skipif(importlib.util.find_spec("torch_npu") is not None, reason="torch_npu is installed here")
def test_npu_backend_names_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    cand = load_candidate(SOFTMAX / "correct.json")
    with pytest.raises(EnvironmentMissing, match="torch_npu \\(not importable\\)"):
        evaluate(SOFTMAX / "problem.py", SOFTMAX / "correct.json", backend="npu")
    # a CANN without the format's tool is named too
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert missing_for(cand)[0].startswith("CANN's bisheng")
    assert missing_for(load_candidate(SOFTMAX / "correct.py"))[0].startswith("CANN's msopgen")
    (tmp_path / "bin" / "bisheng").write_text("")
    assert missing_for(cand) == ["torch_npu (not importable)"]


def test_candidate_files_are_checked_before_any_evaluation():
    sha, parses = check_candidate_file(SOFTMAX / "answer" / "0")
    assert parses and sha == load_candidate(SOFTMAX / "answer" / "0").sha256


def test_cli_eval_exits_3_with_one_line():
    r = CliRunner().invoke(cli, ["eval", "--backend", "triton-cpu", str(SOFTMAX / "problem.py"),
                                 str(SOFTMAX / "answer" / "0")])
    assert r.exit_code == 3
    assert [ln for ln in r.output.splitlines() if ln.strip()] == [
        ln for ln in r.output.splitlines() if ln.startswith("error: ") and "--backend ascendc-cpu" in ln]


# (on ascendc-cpu the loop repairs AscendC candidates: tests/repair/ascendc/test_ascendc_repair_loop.py)
@pytest.mark.parametrize("backend, words", [("triton-cpu", "AscendC numerics need --backend ascendc-cpu")])
def test_repair_run_says_so_before_any_attempt(tmp_path, backend, words):
    r = CliRunner().invoke(cli, ["run", str(SOFTMAX / "problem.py"), str(SOFTMAX / "answer" / "0"), "--worker", "rules",
                                 "--backend", backend, "--out", str(tmp_path / "out")])
    assert r.exit_code == 3 and words in r.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("candidate, first, last", [
    ("correct.py", "msopgen", "python"), ("answer/0", "msopgen", "python"), ("correct.json", "bisheng", "python")])
def test_the_npu_build_plan_has_its_files_and_steps(tmp_path, candidate, first, last):
    """The plan only: its commands have never run (no CANN here)."""
    import json as _json

    from repair.ascendc import plan_build

    cand = load_candidate(SOFTMAX / candidate)
    plan = plan_build(cand, tmp_path)
    assert plan.steps[0].argv[0] == first and plan.steps[-1].argv[0] == last
    if first == "msopgen":
        op = _json.loads(plan.files["op.json"])[0]  # NPUKernelBench has none: made from the OpDef
        assert op["op"] == "SoftmaxCustom" and [d["name"] for d in op["output_desc"]] == ["y"]
        assert {"sources/op_host/softmax_custom.cpp", "sources/op_host/softmax_custom_tiling.h",
                "sources/op_kernel/softmax_custom.cpp", "ext/binding.cpp", "ModelNew.py"} <= set(plan.files)
    else:
        assert "kernel/pybind11.cpp" in plan.files and "benchmark_ops" in plan.steps[-1].argv[-1]
