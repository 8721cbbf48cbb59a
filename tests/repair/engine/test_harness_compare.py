"""Comparison, diagnostics, problem validation and the value wire format: no subprocesses."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from repair.engine.values import decode_values, encode_parts, encode_values
from repair.engine.compare import compare_one, compare_outputs
from repair.engine.diagnose import diagnose, locate
from repair.errors import BadInput
from repair.engine.harness import case_seed
from repair.engine.problem import CaseSpec, case_set_sha256, check_candidate_file, check_problem_file, spec_from_report
from repair.engine.tolerance import resolve_tolerance

TOL = {"atol": 1e-4, "rtol": 1e-4}
DATA = Path(__file__).parent / "data"


# -- the element rule -----------------------------------------------------------------------------

def test_element_fails_only_when_both_abs_and_rel_exceed():
    exp = torch.tensor([1000.0, 1e-6, 1.0])
    act = torch.tensor([1000.05, 1e-6 + 5e-5, 1.0])  # abs 5e-2 but rel 5e-5; rel 50 but abs 5e-5
    assert compare_one(exp, act, TOL).status == "pass"
    act[2] = 1.001  # abs 1e-3 and rel 1e-3
    c = compare_one(exp, act, TOL)
    assert c.status == "mismatch" and c.first_mismatch == [2] and c.mismatch_frac == pytest.approx(1 / 3)


def test_nonfinite_rules():
    exp = torch.tensor([1.0, float("nan"), float("inf"), 2.0])
    assert compare_one(exp, exp.clone(), TOL).status == "pass"  # NaN and Inf matched exactly
    act = exp.clone()
    act[0] = float("nan")
    c = compare_one(exp, act, TOL)
    assert c.status == "mismatch" and c.nan_count == 2 and c.diagnostics.symptom == "nan-introduced"
    act = exp.clone()
    act[2] = 3.0  # a finite value where the reference is inf
    assert compare_one(exp, act, TOL).status == "mismatch"


def test_shape_dtype_and_count_mismatch():
    exp = torch.zeros(4, 3)
    c = compare_one(exp, torch.zeros(3, 4), TOL)
    assert c.status == "mismatch" and c.diagnostics.symptom == "shape-mismatch" and c.expected_shape == [4, 3]
    c = compare_one(exp, torch.zeros(4, 3, dtype=torch.float16), TOL)
    assert c.status == "mismatch" and c.diagnostics.symptom == "dtype-mismatch"
    c = compare_outputs([exp], [exp, exp], lambda d: TOL)
    assert c.status == "mismatch" and c.diagnostics.symptom == "output-count"


def test_promote_compares_as_a_benchmark_check_does():
    """COMPARE = {"promote": True}: another dtype compares in the promoted one, the same elements in another shape
    compare reshaped; a few values never broadcast over a whole output."""
    exp = torch.tensor([1.0, 2.0, 3.0])
    assert compare_one(exp, exp.half(), TOL).status == "mismatch"  # strict by default
    assert compare_one(exp, exp.half(), TOL, promote=True).status == "pass"
    assert compare_one(exp, exp.half() + 1, TOL, promote=True).status == "mismatch"
    assert compare_one(torch.tensor(2.5), torch.tensor([2.5]), TOL, promote=True).status == "pass"
    assert compare_one(torch.full((4,), 2.5), torch.tensor([2.5]), TOL, promote=True).message.startswith("shape")
    assert compare_outputs([exp], [exp.double().reshape(3, 1)], lambda d: TOL, promote=True).status == "pass"


def test_promote_zips_the_outputs_as_the_benchmark_check_does():
    """NPUKernelBench's check zips the reference's outputs with the candidate's: under COMPARE promote the outputs
    both lists hold are compared (a wrong one still fails); an empty list is no comparison; strict counts them."""
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0])
    assert compare_outputs([a, b], [a.clone()], lambda d: TOL, promote=True).status == "pass"
    assert compare_outputs([a, b], [a + 1], lambda d: TOL, promote=True).status == "mismatch"
    assert compare_outputs([a, b], [], lambda d: TOL, promote=True).diagnostics.symptom == "output-count"
    assert compare_outputs([a, b], [a.clone()], lambda d: TOL).diagnostics.symptom == "output-count"


def test_compare_is_validated():
    ok = spec_from_report("p.py", "0" * 64, {"COMPARE": {"promote": True}})
    assert ok.compare == {"promote": True}
    for bad in ({"promote": 1}, {"broadcast": True}, ["promote"]):
        with pytest.raises(BadInput, match="COMPARE must be"):
            spec_from_report("p.py", "0" * 64, {"COMPARE": bad})


def test_integers_compare_exactly_and_second_output_is_named():
    exp = torch.arange(10)
    act = exp.clone()
    act[9] += 1
    tol_for = lambda d: resolve_tolerance({"atol": 5.0, "rtol": 5.0}, d)  # noqa: E731 — flat tolerance: floats only
    ok = torch.ones(3)
    c = compare_outputs([ok, exp], [ok.clone(), act], tol_for)
    assert c.status == "mismatch" and c.first_mismatch == [9] and c.message.startswith("output 1 of 2")


def test_a_fraction_lets_that_share_of_elements_past_the_bounds_and_no_more():
    """TOLERANCE's frac (NPUKernelBench's quantising checks): an output fails only when more than that fraction of
    its elements is beyond atol and more than it beyond rtol; an int8 output follows the same rule."""
    tol = resolve_tolerance({"atol": 1e-3, "rtol": 1e-3, "frac": 1e-3}, "int8")
    assert tol == {"atol": 1e-3, "rtol": 1e-3, "frac": 1e-3}
    exp = torch.zeros(4000, dtype=torch.int8) + 7
    act = exp.clone()
    act[:4] += 1  # 4 of 4000 one off: the fraction 1e-3 allows 4
    c = compare_one(exp, act, tol)
    assert c.status == "pass" and c.mismatch_frac == pytest.approx(1e-3) and "within the fraction" in c.message
    act[4] += 1  # 5 of 4000
    assert compare_one(exp, act, tol).status == "mismatch"
    assert compare_one(exp, act, {"atol": 1e-3, "rtol": 1e-3}).status == "mismatch"  # no frac: every element
    f = torch.ones(4000)
    g = f.clone()
    g[0] = float("nan")  # a NaN where the reference is finite fails whatever the fraction
    assert compare_one(f, g, {"atol": 1e-3, "rtol": 1e-3, "frac": 1e-3}).status == "mismatch"


def test_a_fractions_relative_error_is_against_the_larger_of_expected_and_actual():
    """Under frac, relative error is NPUKernelBench's |a-e| / (max(|e|, |a|) + 1e-7): five of 4000 elements 1.0005e-3
    above an expected 1 are beyond atol but within rtol there (1.0005e-3 / 1.0010005 < 1e-3), so the output passes;
    against |e| alone they would be beyond both, and five is more than the fraction allows. The same error below the
    expected value (the larger is then |e|) is beyond both, as before."""
    tol = {"atol": 1e-3, "rtol": 1e-3, "frac": 1e-3}
    exp = torch.ones(4000, dtype=torch.float64)
    above, below = exp.clone(), exp.clone()
    above[:5] += 1.0005e-3
    below[:5] -= 1.0005e-3
    c = compare_one(exp, above, tol)
    assert c.status == "pass" and "within the fraction" in c.message, c.message
    assert compare_one(exp, below, tol).status == "mismatch"
    assert compare_one(exp, above, {"atol": 1e-3, "rtol": 1e-3}).status == "mismatch"  # elementwise: against |e|


def test_tolerance_resolution():
    assert resolve_tolerance(None, "float16") == {"atol": 1e-2, "rtol": 1e-2}
    assert resolve_tolerance(None, "float32") == {"atol": 1e-4, "rtol": 1e-4}
    assert resolve_tolerance(None, "int32") == {"atol": 0.0, "rtol": 0.0}
    per = {"float16": {"atol": 5e-2}, "float32": {"atol": 1e-3, "rtol": 1e-3}}
    assert resolve_tolerance(per, "float16") == {"atol": 5e-2, "rtol": 1e-2}
    assert resolve_tolerance(per, "float32") == {"atol": 1e-3, "rtol": 1e-3}


# -- diagnostics ----------------------------------------------------------------------------------

def _diag(exp, act):
    return compare_one(exp, act, TOL).diagnostics


def test_tail_columns_with_block_hint():
    exp = torch.randn(8, 100) + 5
    act = exp.clone()
    act[:, 64:] = 0.0
    d = _diag(exp, act)
    assert (d.location, d.symptom) == ("tail-columns", "tail-localized")
    assert any("multiple of 64" in n and "partial" in n for n in d.notes)


def test_single_row_tail_rows_and_last_block():
    exp = torch.randn(16, 32) + 5
    act = exp.clone()
    act[3, 5:9] += 1
    assert _diag(exp, act).location == "single-row"
    act = exp.clone()
    act[12:] *= 2
    assert _diag(exp, act).location == "tail-rows"
    exp1 = torch.randn(3000) + 5
    act1 = exp1.clone()
    act1[2048:] = float("nan")  # never written: NaN-filled allocation
    d = _diag(exp1, act1)
    assert (d.location, d.symptom) == ("last-block", "nan-introduced")
    assert any("never written" in n for n in d.notes)
    d = _diag(exp1, torch.full_like(exp1, float("nan")))  # a grid of zero programs writes nothing
    assert (d.location, d.symptom) == ("everywhere", "nan-introduced")
    assert any("nothing written" in n for n in d.notes)
    assert _diag(torch.tensor([2.0]), torch.tensor([3.0])).location == "everywhere"  # one element is not "sparse"


def test_symptoms():
    torch.manual_seed(0)
    exp = torch.randn(64, 64) + 3
    assert _diag(exp, torch.zeros_like(exp)).symptom == "zero-output"
    assert _diag(exp, exp * 1.5).symptom == "scaled-output"
    assert _diag(exp, exp + 0.5).symptom == "offset-output"
    assert _diag(exp, exp * (1 + 1e-3 * torch.randn_like(exp))).symptom == "uniform-drift"
    sparse = exp.clone()
    sparse[5, 7] = 100.0
    sparse[40, 2] = -100.0
    d = _diag(exp, sparse)
    assert (d.location, d.symptom) == ("sparse", "sparse-outliers")
    d = _diag(exp, torch.randn_like(exp))
    assert (d.location, d.symptom) == ("everywhere", "all-wrong")
    rows = exp * torch.linspace(0.5, 0.9, 64).unsqueeze(1)
    assert _diag(exp, rows).symptom == "row-scaled-output"


def test_stats_and_no_failure():
    exp = torch.tensor([[0.0, 2.0], [4.0, 6.0]])
    d = diagnose(exp, exp, torch.zeros(2, 2, dtype=torch.bool))
    assert d.location == "none" and d.symptom == "none"
    assert d.reference_stats.mean == 3.0 and d.reference_stats.frac_zero == 0.25 and d.reference_stats.max == 6.0
    assert locate(torch.zeros(5, dtype=torch.bool)) == ("none", [])



def _outputs_of_every_kind():
    """(expected, actual) pairs covering each location and symptom, non-finite values and integers."""
    torch.manual_seed(1)
    exp = torch.randn(48, 70) + 3
    tail = exp.clone()
    tail[:, 64:] = 0.0
    rows = exp.clone()
    rows[40:] *= 2
    sparse = exp.clone()
    sparse[5, 7], sparse[40, 2] = 100.0, -100.0
    nan_tail = exp.clone().reshape(-1)
    nan_tail[3000:] = float("nan")
    ref_inf = exp.clone()
    ref_inf[7, 7] = float("inf")
    ints = torch.arange(500)
    return [(exp, exp.clone()), (exp, tail), (exp, rows), (exp, sparse), (exp, exp * 1.5), (exp, exp + 0.5),
            (exp, exp * (1 + 1e-3 * torch.randn_like(exp))), (exp, torch.randn_like(exp)),
            (exp, exp * torch.linspace(0.5, 0.9, 48).unsqueeze(1)), (exp.reshape(-1), nan_tail),
            (ref_inf, ref_inf.clone()), (ref_inf, exp), (exp, torch.zeros_like(exp)), (ints, ints.flip(0))]


def test_chunked_comparison_agrees_with_one_piece(monkeypatch):
    """Outputs are compared and diagnosed chunk by chunk (a 6 GiB output in one float64 piece ran the reference
    out of memory): with chunks of 7 elements every figure and label is the one a single chunk gives."""
    import repair.engine.diagnose as diagnose_module

    whole = [compare_one(e, a, TOL) for e, a in _outputs_of_every_kind()]
    monkeypatch.setattr(diagnose_module, "_CHUNK", 7)
    for one, c in zip(whole, (compare_one(e, a, TOL) for e, a in _outputs_of_every_kind())):
        assert (c.status, c.nan_count, c.inf_count, c.first_mismatch, c.message) == (
            one.status, one.nan_count, one.inf_count, one.first_mismatch, one.message)
        for name in ("max_abs_err", "max_rel_err", "mismatch_frac"):
            assert getattr(c, name) == pytest.approx(getattr(one, name), rel=1e-12)
        if one.diagnostics is None:
            assert c.diagnostics is None
            continue
        d, d1 = c.diagnostics, one.diagnostics
        assert (d.symptom, d.location) == (d1.symptom, d1.location)
        if d.symptom != "row-scaled-output":  # its note names the ratios of the rows it looked at (fewer here)
            assert d.notes == d1.notes
        for stats, stats1 in ((d.output_stats, d1.output_stats), (d.reference_stats, d1.reference_stats)):
            assert stats.__dict__ == pytest.approx(stats1.__dict__, rel=1e-9)
    assert [c.diagnostics.symptom for c in whole if c.diagnostics] == [
        "tail-localized", "tail-localized", "sparse-outliers", "scaled-output", "offset-output", "uniform-drift",
        "all-wrong", "row-scaled-output", "nan-introduced", "row-localized", "zero-output", "all-wrong"]

# -- the wire format ------------------------------------------------------------------------------

def test_wire_round_trip():
    class Sub(torch.Tensor):
        pass

    values = [[torch.randn(3, 4), torch.ones(2, dtype=torch.float16), torch.ones(5, dtype=torch.bfloat16)],
              (torch.tensor(True), torch.arange(6).reshape(2, 3).t(), torch.empty(0, 3), torch.tensor(2.5)),
              None, 3, 1.5, "s", torch.float16, torch.randn(4).as_subclass(Sub)]
    desc, payload = encode_values(values)
    out = decode_values(desc, bytearray(payload))
    assert isinstance(out[1], tuple) and out[2:7] == [None, 3, 1.5, "s", torch.float16]
    for a, b in zip(values[0] + list(values[1]) + [values[7]], out[0] + list(out[1]) + [out[7]]):
        assert type(b) is torch.Tensor and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    with pytest.raises(ValueError):
        encode_values([object()])


def test_a_copy_that_does_not_fit_is_out_of_memory_not_a_malformed_description(monkeypatch):
    """KernelBench's 33_BatchNorm (4 GiB of input under an 8 GiB limit) failed in the candidate while its input
    was copied out of the mapping: that was reported as "error: WireError: malformed tensor description"."""
    from repair.engine.wire_errors import WireError, is_oom

    desc, payload = encode_values([torch.ones(4)])
    real = torch.frombuffer

    def failing(message):
        class View:
            def __init__(self, *a, **k):
                self.t = real(*a, **k)

            def clone(self):
                raise RuntimeError(message)
        return View

    monkeypatch.setattr(torch, "frombuffer", failing("[enforce fail at alloc_cpu.cpp:127] err == 0. "
                                                     "DefaultCPUAllocator: can't allocate memory: you tried to "
                                                     "allocate 4294967296 bytes. Error code 12"))
    with pytest.raises(RuntimeError) as e:
        decode_values(desc, bytearray(payload))
    assert not isinstance(e.value, WireError) and is_oom(e.value)  # the candidate process reports "oom"
    monkeypatch.setattr(torch, "frombuffer", failing("some other failure"))
    with pytest.raises(WireError, match="malformed tensor description"):
        decode_values(desc, bytearray(payload))


def test_wire_keeps_input_layout_and_flattens_outputs():
    base = torch.arange(24.0).reshape(4, 6)
    views = [base.t(), base[:, 1:4], base[::2, ::3], torch.randn(3, 1).expand(3, 5), base.permute(1, 0)[2:]]
    desc, payload = encode_values(views)
    for a, b in zip(views, decode_values(desc, bytearray(payload))):
        assert torch.equal(a, b) and a.stride() == b.stride() and not b.is_contiguous()
    desc, payload = encode_values(views, keep_layout=False)
    assert all(b.is_contiguous() and torch.equal(a, b) for a, b in zip(views, decode_values(desc, bytearray(payload))))



def test_a_shared_payload_travels_as_a_sealed_memfd_the_relay_never_reads():
    """A reference's case inputs go to the engine as a sealed memfd passed with the frame, and on to the candidate
    as the same descriptor (through the socket they were copied four times on the way)."""
    import fcntl
    import os
    import socket

    from repair.engine.memfd import Shared
    from repair.engine.wire import recv_frame, send_frame
    from repair.engine.wire_errors import WireError

    values = [torch.randn(300, 100), torch.arange(7)]
    desc, parts = encode_parts(values)
    ref, engine_in = socket.socketpair()
    engine_out, cand = socket.socketpair()
    send_frame(ref.fileno(), {"values": desc}, parts, share_from=1024)
    header, shared = recv_frame(engine_in.fileno(), accept_shared=True)
    assert isinstance(shared, Shared) and header == {"values": desc}
    send_frame(engine_out.fileno(), {"values": desc}, shared)  # the relay: the descriptor, not the bytes
    shared.close()
    header, got = recv_frame(cand.fileno(), accept_shared=True)
    with got.mapped() as view:
        out = decode_values(header["values"], view)
    assert all(torch.equal(a, b) for a, b in zip(values, out))
    with pytest.raises(OSError):  # sealed: nobody changes it once sent
        os.write(got.fd, b"x")
    views = decode_values(header["values"], got.private(), copy=False)  # the reference's way: no copy
    views[0].add_(1)  # what its reader writes stays its own
    with got.mapped() as view:
        assert torch.equal(decode_values(header["values"], view)[0], values[0])
    # a receiver that takes no shared payload (the engine reading a candidate) refuses the frame
    send_frame(ref.fileno(), {"values": desc}, parts, share_from=1024)
    with pytest.raises(WireError, match="0 came"):
        recv_frame(engine_in.fileno())
    # a memfd that is not sealed (a forged one) is refused where it is read, as is one of another size
    fd = os.memfd_create("forged", os.MFD_ALLOW_SEALING)
    os.write(fd, b"\0" * 4096)
    with pytest.raises(WireError, match="not sealed"):
        with Shared(fd, 4096).mapped():
            pass
    fd = os.memfd_create("short", os.MFD_ALLOW_SEALING)
    os.write(fd, b"\0" * 64)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
    with pytest.raises(WireError, match="4096 declared"):
        with Shared(fd, 4096).mapped():
            pass
    for sock in (ref, engine_in, engine_out, cand):
        sock.close()

# -- problem validation ---------------------------------------------------------------------------

@pytest.mark.parametrize("report, needle", [
    ({"has_cases": True, "CASES": "big"}, "CASES must be a non-empty list"),
    ({"has_cases": True, "CASES": []}, "CASES must be a non-empty list"),
    ({"has_cases": True, "CASES": [{"tier": "medium", "N": 1}]}, "CASES[0] has tier 'medium'"),
    ({"has_cases": True, "CASES": [{"tier": "full", "N": 1}]}, "no compact case"),
    ({"has_cases": True, "CASES": [{"tier": "compact"}, 3]}, "CASES[1] is a int"),
    ({"has_cases": False, "TOLERANCE": {"atol": -1}}, "non-negative"),
    ({"has_cases": False, "TOLERANCE": {"float16": {"eps": 1}}}, "only 'atol'/'rtol'"),
    ({"has_cases": False, "TOLERANCE": {"atol": 1e-3, "rtol": 1e-3, "frac": 1.0}}, "['frac'] must be a non-negative number below 1"),
    ({"has_cases": False, "OPERATOR": "softmax"}, "OPERATOR must be a dict"),
])
def test_bad_problem_reports(report, needle):
    with pytest.raises(BadInput) as e:
        spec_from_report("x/prob.py", "0" * 64, report)
    assert needle in str(e.value) and "x/prob.py" in str(e.value)


def test_spec_ids_tiers_and_case_hash():
    spec = spec_from_report("ops/softmax/problem.py", "0" * 64, {
        "has_cases": True, "OPERATOR": {"family": "softmax"},
        "CASES": [{"tier": "compact", "N": 4}, {"tier": "full", "N": 5}]})
    assert spec.operator_id == "softmax" and spec.family == "softmax"  # default id: the directory for problem.py
    assert [c.case_id for c in spec.cases_for("compact")] == ["c0"]
    assert [c.params for c in spec.cases_for("full")] == [{"N": 4}, {"N": 5}]
    kb = spec_from_report("kb/19_ReLU.py", "0" * 64, {"has_cases": False})
    assert kb.operator_id == "19_ReLU" and [(c.case_id, c.tier) for c in kb.cases] == [("default", "compact")]
    a = case_set_sha256([CaseSpec(case_id="c0", tier="compact", params={"N": 4})])
    assert a != case_set_sha256([CaseSpec(case_id="c0", tier="compact", params={"N": 5})]) and len(a) == 64


def test_static_file_checks(tmp_path):
    with pytest.raises(BadInput, match="not found"):
        check_problem_file(tmp_path / "missing.py")
    bad = tmp_path / "p.py"
    bad.write_text("def get_inputs():\n    return []\n")
    with pytest.raises(BadInput, match=r"p\.py: problem defines no Model"):
        check_problem_file(bad)
    bad.write_text("class Model(:\n")
    with pytest.raises(BadInput, match="does not parse"):
        check_problem_file(bad)
    with pytest.raises(BadInput, match="defines no ModelNew"):
        check_candidate_file(DATA / "cand_no_modelnew.py")
    assert check_candidate_file(DATA / "cand_syntax.py")[1] is False  # a result, not bad input


def test_case_seeds_are_stable_and_distinct():
    assert case_seed(7, "c0") == case_seed(7, "c0")
    assert len({case_seed(7, "c0"), case_seed(7, "c1"), case_seed(8, "c0"), case_seed(7, "c0", "reseed")}) == 4
    assert all(0 <= case_seed(s, "c0") < 2**31 for s in range(50))


def test_every_comparison_field_is_a_case_result_field():
    """The reference process's comparison becomes CaseResult(**comparison): a field CaseResult lacks would be
    dropped silently (pydantic ignores unknown keys)."""
    from repair.engine.compare import Comparison
    from repair.engine.result import CaseResult

    c = compare_outputs([torch.zeros(3)], [torch.ones(3)], lambda d: resolve_tolerance(None, d)).as_dict()
    assert set(c) == set(Comparison.__dataclass_fields__) <= set(CaseResult.model_fields)
    r = CaseResult(case_id="c0", tier="compact", **c)
    assert {k: getattr(r, k) for k in c if k != "diagnostics"} == {k: v for k, v in c.items() if k != "diagnostics"}
