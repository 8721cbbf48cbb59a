"""`--backend ascendc-cpu`: AscendC candidates built with g++ against the emulation and evaluated like any other,
every result marked emulated. The faults a near-miss makes get their status within the timeout and the engine
goes on; a candidate that does not compile is a `compile-error` with the compiler's message."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from ascendc_fixtures import SUITE, variant
from repair.ascendc import CompileError, MappingError, emulate, load_candidate
from repair.ascendc.emu.binding import binding_plan, launch_function
from repair.cli import cli
from repair.engine import evaluate, render_table
from repair.errors import BadInput

ADD = SUITE / "add"
FAULTS = Path(__file__).parent / "data" / "faults"


@pytest.mark.parametrize("candidate", ["correct.py", "correct.json", "answer/0"])
def test_the_correct_add_passes_the_full_tier_in_each_format(candidate):
    r = evaluate(ADD / "problem.py", ADD / candidate, backend="ascendc-cpu", seed=3)
    assert r.passed and r.summary["full"].passed == r.summary["full"].total == 5, render_table(r)
    assert r.emulated and r.backend == "ascendc-cpu" and r.integrity.verdict == "clean"
    assert json.loads(r.to_json())["emulated"] is True
    assert "emulated]" in render_table(r)
    # the runtime guard saw the kernel launched on the outputs (no runtime.no-launch, no output-not-from-kernel)
    assert r.cases[0].guard_log["kernels"] == {"add_custom" if candidate != "correct.json" else "launch_add_custom": 1}


def test_a_near_miss_fails_the_tier_its_label_says():
    r = evaluate(ADD / "problem.py", ADD / "nearmiss_tail.py", backend="ascendc-cpu", seed=3, tier="compact")
    assert not r.passed and r.summary["compact"].passed < r.summary["compact"].total
    bad = r.failing_cases()[0]
    # the last core's tail stays unwritten: NaN, as on the Triton backend
    assert bad.status == "mismatch" and bad.nan_count > 0


def test_each_fault_gets_its_status_within_the_timeout_and_the_engine_goes_on():
    emulate(FAULTS.resolve() / "faulty_add.json")  # built ahead (a cold build may take longer than a case)
    r = evaluate(FAULTS / "problem.py", FAULTS / "faulty_add.json", backend="ascendc-cpu", seed=1, timeout_s=4)
    status = {c.params["mode"]: (c.status, c.message) for c in r.cases}
    want = {0: ("pass", ""), 1: ("error", "past the end of the unified buffer"), 2: ("mismatch", ""),
            3: ("crash", "writes bytes [800, 4800) of GM tensor z"), 4: ("crash", "1200 bytes past the end of z"),
            5: ("timeout", "DeQue of an empty queue"), 6: ("timeout", "within 4s"), 7: ("pass", ""),
            8: ("crash", "SIGSEGV")}
    for mode, (st, words) in want.items():
        assert status[mode][0] == st and words in status[mode][1], (mode, status[mode])
    assert "faulty_add.json#kernel/faulty_add_kernel.cpp:" in status[1][1]  # the candidate's own file and line
    # 2: as the NPU, no error: the last partial 32-byte block is not copied, and the case's note says so
    notes = next(c.notes for c in r.cases if c.params["mode"] == 2)
    assert len(notes) == 1 and "DataCopy of 4004 bytes copies 4000" in notes[0] and "faulty_add_kernel.cpp:" in notes[0]
    assert "note: DataCopy of 4004 bytes" in render_table(r)
    # one hang ran to the deadline; the deadlock was found at once (its message names the empty queue, not 4 s)
    assert [m for m, (st, _) in status.items() if st == "timeout" and "within 4s" in _] == [6]
    again = evaluate(FAULTS / "problem.py", FAULTS / "faulty_add.json", backend="ascendc-cpu", seed=2, tier="compact")
    assert again.passed


def test_a_compile_error_is_every_case_with_the_compilers_message(tmp_path):
    broken = variant(ADD / "correct.json", tmp_path, ("Add(zLocal, xLocal, yLocal, count);",
                                                      "Add(zLocal, xLocal, yLocal, count)"))
    r = evaluate(ADD / "problem.py", broken, backend="ascendc-cpu", seed=1, tier="compact")
    assert {c.status for c in r.cases} == {"compile-error"}
    message = r.cases[0].message
    assert "g++ could not build" in message and "correct.json#kernel/add_custom_kernel.cpp:" in message
    assert "expected ';'" in message
    import repair.ascendc.emu.build as build

    def no_compiler(*a, **kw):
        raise AssertionError("the compiler ran again")

    with pytest.MonkeyPatch.context() as mp, pytest.raises(CompileError):  # cached: the answer without compiling again
        mp.setattr(build, "run", no_compiler)  # every compile and link goes through it
        emulate(broken.resolve())


def test_an_api_the_emulation_lacks_is_unsupported_not_a_compile_error(tmp_path):
    sorted_ = variant(ADD / "correct.json", tmp_path, ("Add(zLocal, xLocal, yLocal, count);",
                                                       "Add(zLocal, xLocal, yLocal, count); Sort32(zLocal, xLocal, yLocal, count);"))
    r = evaluate(ADD / "problem.py", sorted_, backend="ascendc-cpu", seed=1, tier="compact")
    assert {c.status for c in r.cases} == {"unsupported"} and r.unsupported and not r.passed
    first = r.cases[0].message.splitlines()[0]
    assert first.startswith("ascendc-cpu does not emulate AscendC's Sort32 (") and \
        "correct.json#kernel/add_custom_kernel.cpp:" in first  # the API and the candidate's line
    table = render_table(r)
    assert "UNSUPPORTED" in table and "'Sort32' was not declared in this scope" in table  # the message in full
    out = CliRunner().invoke(cli, ["eval", "--backend", "ascendc-cpu", "--tier", "compact", "--seed", "1",
                                   str(ADD / "problem.py"), str(sorted_)])
    assert out.exit_code == 3, out.output  # the environment cannot judge it


def test_the_binding_is_read_for_each_name_it_binds():
    ln = SUITE / "layer_norm"
    plan = binding_plan(load_candidate(ln / "answer" / "0"), "layer_norm_custom")
    assert plan.binding.kind == "aclnn" and plan.function == "layer_norm_custom"
    assert plan.params[0][1] == "x" and plan.params[-1][0] == "double"
    assert launch_function(load_candidate(ln / "correct.json")) == "launch_layer_norm_custom"
    with pytest.raises(MappingError, match="runs aclnnAdd, another operator"):
        binding_plan(load_candidate(ADD / "cheat_other_op.py"), "add_custom")
    with pytest.raises(MappingError, match="does not m.def 'nothing'"):
        binding_plan(load_candidate(ADD / "correct.py"), "nothing")


def test_the_emulated_model_runs_in_process():
    """emulate() is the engine's build and load without a sandbox (benches, debugging); the binding's allocation
    gives the output its shape and dtype (row_sum drops the last dimension, cast makes half)."""
    m = emulate(SUITE / "row_sum" / "correct.json")()
    x = torch.randn(3, 5, 700)
    torch.testing.assert_close(m(x), x.sum(-1), rtol=1e-5, atol=1e-4)
    assert m(x).shape == (3, 5)


def test_cheats_do_not_pass_and_say_why():
    r = evaluate(ADD / "problem.py", ADD / "cheat_unlaunched.json", backend="ascendc-cpu", seed=1, tier="compact")
    assert not r.passed and r.integrity.verdict == "violation"
    assert {c.status for c in r.cases} == {"error"} and "nothing of the candidate runs" in r.cases[0].message


def test_backends_take_only_their_own_candidates():
    with pytest.raises(BadInput, match="runs ascendc candidates"):
        evaluate(ADD / "problem.py", Path(__file__).parents[3] / "examples" / "softmax" / "nearmiss_1.py",
                 backend="ascendc-cpu")


def test_cli_eval_on_ascendc_cpu_exits_by_the_verdict():
    ok = CliRunner().invoke(cli, ["eval", "--backend", "ascendc-cpu", "--tier", "compact", "--json", "--seed", "1",
                                  str(ADD / "problem.py"), str(ADD / "answer" / "0")])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["emulated"] is True
    # no --backend (and REPAIR_BACKEND=triton-cpu): AscendC candidates run on the emulation, as in run and campaign
    bad = CliRunner().invoke(cli, ["eval", "--tier", "compact", "--seed", "1", str(ADD / "problem.py"),
                                   str(ADD / "nearmiss_tail.py"), str(ADD / "answer" / "0")],
                             env={"REPAIR_BACKEND": "triton-cpu"})
    assert bad.exit_code == 1 and "1 of 2 candidates passed (emulated)" in bad.output
    assert "backend ascendc-cpu (emulated: not the hardware)" in bad.output


def test_a_binding_builds_its_output_shape_in_a_loop_of_push_backs_and_compound_assignments(tmp_path):
    looped = variant(SUITE / "cast" / "correct.json", tmp_path, (
        "at::Tensor y = at::empty(x.sizes(), x.options().dtype(at::kHalf));",
        "std::vector<int64_t> shape;\n    for (int64_t i = 0; i < x.dim(); i++) {\n"
        "        shape.push_back(x.size(i));\n    }\n    shape[x.dim() - 1] *= 6;\n    shape[x.dim() - 1] /= 3;\n"
        "    shape[x.dim() - 1] /= 2;\n"
        "    torch::IntArrayRef sizes = x.sizes();\n    std::vector<int64_t> copied(sizes.begin(), sizes.end());\n"
        "    copied[copied.size() - 1] = shape[copied.size() - 1];\n"
        "    at::Tensor y = at::empty(copied, x.options().dtype(at::kHalf));"))
    r = evaluate(SUITE / "cast" / "problem.py", looped, backend="ascendc-cpu", seed=1, tier="compact")
    assert r.passed, render_table(r)
