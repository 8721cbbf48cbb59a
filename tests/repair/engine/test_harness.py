"""evaluate() end to end on tiny fixture problems: tiers, seeds, KernelBench format, diagnostics, isolation."""
from __future__ import annotations

from pathlib import Path

import pytest

from repair.engine.backends import get_backend
from repair.errors import BadInput
from repair.engine.harness import evaluate
from repair.engine.problem import case_set_sha256
from repair.engine.processes import load_problem_spec
from repair.engine.sandbox import fork_server

DATA = Path(__file__).parent / "data"
PROBLEM = DATA / "addrelu_problem.py"


@pytest.fixture(scope="module", autouse=True)
def warm_server():
    """Pay the fork server's start (torch + triton imports) once for the module."""
    fork_server(get_backend("triton-cpu")).ensure_ready()


def test_correct_candidate_passes_both_tiers():
    r = evaluate(PROBLEM, DATA / "addrelu_correct.py", seed=11)
    assert r.passed and r.numerics_passed and r.integrity.verdict == "clean"
    assert [(c.case_id, c.tier, c.status) for c in r.cases] == [
        ("c0", "compact", "pass"), ("c1", "full", "pass"), ("c2", "full", "pass")]
    assert (r.summary["compact"].passed, r.summary["compact"].total) == (1, 1)
    assert (r.summary["full"].passed, r.summary["full"].total) == (3, 3) and r.match == 1.0
    spec = load_problem_spec(PROBLEM)
    assert r.case_set_sha256 == case_set_sha256(spec.cases) and r.operator_id == "test_add_relu"
    assert r.seed == 11 and r.kernel_seconds > 0 and r.wall_seconds >= r.kernel_seconds
    assert all(c.max_abs_err is not None and c.max_abs_err <= 1e-6 for c in r.cases)
    assert '"schema": "repair.eval/v1"' in r.to_json()
    log = r.cases[0].guard_log  # the runtime guard ran inside the candidate process
    assert log is not None and log["launches"] == 1 and log["kernels"] == {"add_relu_kernel": 1}


def test_compact_tier_runs_only_compact_cases():
    r = evaluate(PROBLEM, DATA / "addrelu_correct.py", tier="compact", seed=1)
    assert [c.case_id for c in r.cases] == ["c0"] and r.match is None and set(r.summary) == {"compact"}
    assert r.case_set_sha256 != evaluate(PROBLEM, DATA / "addrelu_correct.py", seed=1).case_set_sha256


def test_seed_fixes_inputs_and_fresh_seeds_differ():
    a = evaluate(PROBLEM, DATA / "cand_tail.py", seed=5)
    b = evaluate(PROBLEM, DATA / "cand_tail.py", seed=5)
    c = evaluate(PROBLEM, DATA / "cand_tail.py")
    d = evaluate(PROBLEM, DATA / "cand_tail.py")
    assert a.cases[2].diagnostics.reference_stats == b.cases[2].diagnostics.reference_stats
    assert c.seed != d.seed and c.cases[2].diagnostics.reference_stats != d.cases[2].diagnostics.reference_stats


def test_unwritten_tail_is_located_and_labelled():
    r = evaluate(PROBLEM, DATA / "cand_tail.py", seed=3)
    assert [c.status for c in r.cases] == ["pass", "pass", "mismatch"]
    assert r.summary["compact"].passed == 1 and r.match == pytest.approx(2 / 3) and not r.passed
    tail = r.cases[2]
    assert tail.first_mismatch == [2048] and tail.nan_count == 3000 - 2048
    assert tail.mismatch_frac == pytest.approx(952 / 3000)
    assert (tail.diagnostics.location, tail.diagnostics.symptom) == ("last-block", "nan-introduced")
    assert tail.diagnostics.reference_stats.std is not None and tail.diagnostics.output_stats.mean is not None


def test_kernelbench_problem_without_cases_and_matching_weights():
    r = evaluate(DATA / "kb_problem.py", DATA / "kb_candidate.py")
    assert [(c.case_id, c.tier, c.status) for c in r.cases] == [("default", "compact", "pass")]
    assert r.operator_id == "kb_problem" and r.summary["full"].total == 1 and r.match == 1.0


def test_candidate_process_never_holds_the_problem_module():
    r = evaluate(PROBLEM, DATA / "cand_spy.py", seed=2)
    assert r.numerics_passed, [c.message for c in r.cases]


def test_output_cache_fails_the_second_seed():
    r = evaluate(PROBLEM, DATA / "cand_cache.py", seed=4)
    first = r.cases[0]
    assert first.status == "mismatch" and "second" in first.message and not r.passed
    rules = {f.rule for f in r.integrity.findings}
    assert "runtime.insensitive-output" in rules or "runtime.no-launch" in rules


def test_unimportable_candidates_are_results():
    r = evaluate(PROBLEM, DATA / "cand_syntax.py", seed=1)
    assert [c.status for c in r.cases] == ["error"] * 3 and "SyntaxError" in r.cases[0].message
    r = evaluate(PROBLEM, DATA / "cand_import_error.py", tier="compact", seed=1)
    assert r.cases[0].status == "error" and "no such kernel library" in r.cases[0].message


def test_bad_inputs_name_the_file(tmp_path):
    text = PROBLEM.read_text()
    bad = tmp_path / "bad_cases.py"
    bad.write_text(text.replace('"tier": "full", "N": 1}', '"tier": "huge", "N": 1}'))
    with pytest.raises(BadInput, match=r"bad_cases\.py: CASES\[1\] has tier 'huge'"):
        evaluate(bad, DATA / "addrelu_correct.py")
    broken = tmp_path / "broken_inputs.py"
    broken.write_text(text.replace("return [torch.randn(N), torch.randn(N)]", "raise KeyError('no N')"))
    with pytest.raises(BadInput, match=r"broken_inputs\.py: reference get_init_inputs/get_inputs .*KeyError"):
        evaluate(broken, DATA / "addrelu_correct.py")
    with pytest.raises(BadInput, match=r"cand_no_modelnew\.py: candidate defines no ModelNew"):
        evaluate(PROBLEM, DATA / "cand_no_modelnew.py")
    with pytest.raises(BadInput, match="unknown backend"):
        evaluate(PROBLEM, DATA / "addrelu_correct.py", backend="tpu")
    with pytest.raises(BadInput, match="unknown tier"):
        evaluate(PROBLEM, DATA / "addrelu_correct.py", tier="medium")


def test_one_fork_server_per_engine_process():
    server = fork_server(get_backend("triton-cpu"))
    evaluate(PROBLEM, DATA / "addrelu_correct.py", tier="compact")
    evaluate(DATA / "kb_problem.py", DATA / "kb_candidate.py")
    assert fork_server(get_backend("triton-cpu")) is server and server.alive()


_TIMED = '''
import time
import torch
import torch.nn as nn

CASES = [{"tier": "compact", "N": 1}, {"tier": "full", "N": 2}, {"tier": "full", "N": 3}]


class CLS(nn.Module):
    def forward(self, x):
        with open(LOG, "a") as f:
            f.write(f"ROLE start {x.numel()}\\n")
        time.sleep(0.05)  # a window another forward would have to fall into to overlap
        with open(LOG, "a") as f:
            f.write(f"ROLE end {x.numel()}\\n")
        return x * 2


def get_inputs(N=1):
    return [torch.ones(N)]
'''


def test_the_candidate_runs_each_case_first_and_no_two_forwards_overlap(tmp_path, monkeypatch):
    """A problem and a candidate that log each forward's start and end: the reference's forward of a case
    starts only once the candidate's run of it is over, and every forward is timed alone."""
    monkeypatch.setenv("REPAIR_CONFINE", "off")  # the candidate writes its log outside its scratch directory
    log = tmp_path / "forwards.log"
    problem, candidate = tmp_path / "timed_problem.py", tmp_path / "timed_candidate.py"
    for path, cls, role in ((problem, "Model", "reference"), (candidate, "ModelNew", "candidate")):
        path.write_text(_TIMED.replace("CLS", cls).replace("LOG", repr(str(log))).replace("ROLE", role))
    r = evaluate(problem, candidate, seed=1, integrity=False)
    assert r.numerics_passed, [c.message for c in r.cases]
    events = [tuple(line.split()) for line in log.read_text().splitlines()]  # in the order they happened
    assert len(events) == 12
    # no two forwards overlap: every start is followed by its own end before anything else starts
    assert all(a[1] == "start" and b == (a[0], "end", a[2]) for a, b in zip(events[0::2], events[1::2]))
    for n in ("1", "2", "3"):
        assert events.index(("reference", "start", n)) > events.index(("candidate", "end", n))


def test_cuda_preparation_before_forking_starts_no_device_context():
    """The fork server runs it before forking: a CUDA context there would be unusable in every child."""
    import subprocess
    import sys

    code = ("import torch, triton\nfrom repair.engine.backends import get_backend\nget_backend('cuda').prepare_server()\n"
            "import triton.runtime.cache as c\n"
            "print(torch.cuda.is_initialized(), getattr(c, 'triton_key', None) and c.triton_key.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    initialized, cached = out.stdout.split()
    assert initialized == "False" and cached in ("1", "None")  # triton's source hash is computed once, here


def test_the_fork_server_imports_no_pydantic():
    """What sandboxed processes import makes plain data; pydantic validates it in the engine. Importing it in
    the fork server would add ~60 ms to every server's start (the first `repair eval` of every command)."""
    import subprocess
    import sys

    code = ("import sys\nfrom repair.engine.preload import _PRELOAD\nfrom repair.engine.backends import get_backend\n"
            "import importlib\nfor m in [*get_backend('triton-cpu').preload, *_PRELOAD, 'repair.integrity.rules']:\n"
            "    importlib.import_module(m)\nprint(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_an_interpreter_that_cannot_run_runtime_loop_bounds_is_named_not_blamed_on_candidates():
    """triton 3.6's interpreter under numpy >= 2.4 fails every loop with a runtime bound (seen on a GPU
    machine's image): the fork server's warm-up kernel has such a loop and turns that failure into one line."""
    from triton.runtime.errors import InterpreterError

    from repair.engine.warmkernel import _broken_interpreter

    why = _broken_interpreter(InterpreterError(repr(TypeError("only 0-dimensional arrays can be converted to "
                                                              "Python scalars"))))
    assert why is not None and "cannot run a loop with a runtime bound" in why and "numpy<2.4" in why
    assert _broken_interpreter(InterpreterError("IndexError('index 8 is out of bounds')")) is None


def test_autotuned_kernels_run_on_the_interpreter_with_their_first_config(tmp_path):
    """Under TRITON_INTERPRET there is no benchmarker: every config runs once and the first one is kept."""
    if get_backend().name != "triton-cpu":
        pytest.skip("on a GPU the autotuner times its configs")
    src = (DATA / "cand_autotune.py").read_text()
    for first, second, status in ((1, 2, "pass"), (2, 1, "mismatch")):
        cand = tmp_path / f"autotune_{first}{second}.py"
        cand.write_text(src.replace("FIRST", str(first)).replace("SECOND", str(second)))
        r = evaluate(DATA / "addrelu_problem.py", cand, seed=1)
        assert {c.status for c in r.cases} == {status}, [c.message for c in r.cases]
        assert r.integrity.verdict == "clean"
        assert r.cases[0].guard_log["kernels"] == {"add_relu_kernel": 1}  # its name, not "Autotuner"


def test_libdevice_math_runs_on_the_interpreter(tmp_path):
    """libdevice calls (tanh, sqrt, pow), which the interpreter alone leaves as stubs returning None."""
    if get_backend().name != "triton-cpu":
        pytest.skip("a GPU compiles libdevice")
    example = Path(__file__).resolve().parents[3] / "examples" / "tanh_scaled"
    cand = tmp_path / "libdevice_tanh.py"  # the example's kernel, its tanh from libdevice (|t| * sign(t): more symbols)
    cand.write_text((example / "correct.py").read_text().replace(
        "import triton.language as tl\n", "import triton.language as tl\nfrom triton.language.extra import libdevice\n"
        "from triton.language.extra.libdevice import pow as lpow\n").replace(
        "t = 1.0 - 2.0 / (tl.exp(2.0 * z) + 1.0)",
        "t = libdevice.tanh(z)\n    t = lpow(libdevice.sqrt(t * t), 1.0) * tl.where(t < 0, -1.0, 1.0)"))
    assert "libdevice.tanh(z)" in cand.read_text()
    r = evaluate(example / "problem.py", cand, seed=1)
    assert r.passed, [c.message for c in r.cases]


def test_libdevice_symbols_map_to_numpy_by_base_name():
    from repair.engine.interpreter import _base_name, _libdevice_ops

    ops = _libdevice_ops()
    assert [_base_name(s, ops) for s in ("__nv_tanhf", "__nv_tanh", "__nv_erff", "__nv_isfinited", "__nv_fmaf_rn",
                                         "__nv_fast_expf")] == ["tanh", "tanh", "erf", "isfinite", "fma", "fast_exp"]
    assert _base_name("__nv_erfinvf", ops) is None and _base_name("__nv_popc", ops) is None  # raise NotImplementedError


def test_a_candidate_written_only_for_cuda_gets_a_hint_on_the_cpu_stand_in(tmp_path):
    if get_backend().name != "triton-cpu":
        pytest.skip("the hint is the CPU stand-in's")
    example = Path(__file__).resolve().parents[3] / "examples" / "tanh_scaled"
    cand = tmp_path / "cuda_only.py"
    cand.write_text((example / "correct.py").read_text().replace(
        "out = torch.empty_like(x)", 'assert x.is_cuda, "x must be a CUDA tensor"\n        out = torch.empty_like(x)'))
    r = evaluate(example / "problem.py", cand, tier="compact", seed=1)
    assert {c.status for c in r.cases} == {"error"}
    message = r.cases[0].message
    assert message.startswith("hint: the candidate assumes CUDA tensors") and message.endswith("CUDA tensor")
    cpu = get_backend("triton-cpu")
    assert cpu.hint("ValueError: deliberate failure in forward") is None
    assert cpu.hint("AssertionError: Torch not compiled with CUDA enabled") is not None
    assert cpu.hint('    assert x.device.type == "cuda", "Input tensor must be on CUDA"\nAssertionError') is not None
    assert cpu.hint("    if x.device.type != 'cuda':\nRuntimeError: GPU only") is not None
    assert "driver" in cpu.hint("RuntimeError: 0 active drivers ([]). There should only be one.")


def test_evaluate_many_runs_jobs_at_once_in_order_and_stops_at_an_error(monkeypatch):
    """With jobs=2 the first evaluation is still running when the second starts (it waits for that); results come
    in the pairs' order; an evaluation's exception is raised in its turn, and pairs not yet started never start."""
    import threading
    import time

    from repair.engine import harness

    started, second_started = [], threading.Event()

    def fake(problem, candidate, **options):
        started.append(candidate)
        if candidate == "c1":
            second_started.set()
        if candidate == "c0":
            assert second_started.wait(10), "the second evaluation did not start while the first ran"
        if candidate == "c2":
            raise BadInput("c2: broken")
        if candidate in ("c3", "c4"):  # both workers busy while the caller meets c2's error
            time.sleep(1.0)
        return (candidate, options)

    monkeypatch.setattr(harness, "evaluate", fake)
    pairs = [("p", f"c{i}") for i in range(6)]
    assert list(harness.evaluate_many(pairs[:2], jobs=2, tier="full")) == [("c0", {"tier": "full"}),
                                                                           ("c1", {"tier": "full"})]
    started.clear()
    got = harness.evaluate_many(pairs, jobs=2)
    assert [next(got), next(got)] == [("c0", {}), ("c1", {})]
    with pytest.raises(BadInput, match="c2: broken"):
        next(got)
    assert {"c0", "c1", "c2"} <= set(started)
    assert "c5" not in started  # no worker was free for it before c2's error came back: it never starts
    with pytest.raises(BadInput, match="jobs"):
        list(harness.evaluate_many(pairs, jobs=0))


def test_numerics_only_runs_no_guard_in_the_candidate():
    """integrity=False (`--no-integrity`) switches the runtime guards off in the candidate process too: no op
    recording and no copy of the inputs for the mutation check (KernelBench's 98_KLDivLoss, 2 GiB of inputs,
    ran out of an 8 GiB limit with them); it used to only replace the verdict."""
    guarded = evaluate(PROBLEM, DATA / "addrelu_correct.py", seed=2)
    bare = evaluate(PROBLEM, DATA / "addrelu_correct.py", seed=2, integrity=False)
    assert guarded.cases[0].guard_log["launches"] == 1 and guarded.cases[0].guard_log["rules_off"] == []
    assert bare.passed and bare.cases[0].guard_log["launches"] == 0 and bare.cases[0].guard_log["ops"] == {}
    assert set(bare.cases[0].guard_log["rules_off"]) <= set(bare.integrity.rules_off)
    assert {"runtime.input-mutated", "runtime.framework-compute"} <= set(bare.integrity.rules_off)


def test_a_problem_that_builds_cuda_tensors_says_so_on_the_cpu_stand_in(tmp_path):
    """KernelBench's 97_ScaledDotProductAttention builds its inputs with device='cuda': one line that says why."""
    problem = tmp_path / "cuda_inputs.py"
    problem.write_text(PROBLEM.read_text().replace("torch.randn(N), torch.randn(N)",
                                                   "torch.randn(N, device='cuda'), torch.randn(N, device='cuda')"))
    with pytest.raises(BadInput) as e:
        evaluate(problem, DATA / "addrelu_correct.py", seed=1)
    msg = str(e.value)
    assert "\n" not in msg and "Torch not compiled with CUDA enabled" in msg
    assert "the problem builds CUDA tensors" in msg and "--backend cuda" in msg
