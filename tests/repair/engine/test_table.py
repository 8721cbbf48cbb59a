"""`repair eval`'s table (issue 37): 100 columns, the error whole, the diagnosis notes printed, backend, emulation
and the tolerance compared with on the header."""
from repair.engine.result import CaseResult, EvalResult, TierSummary
from repair.engine.table import WIDTH, render_table

LONG = ("RuntimeError: the kernel's launch grid (4097, 1, 1) reads past the end of buffer x at element 16781313 "
        "of 16781312 in the tail block, while writing output row 4096; nothing was written")


def _result(**kw) -> EvalResult:
    cases = [
        CaseResult(case_id="c0", tier="compact", params={"batch_size": 128, "dim": 16384}, status="pass"),
        CaseResult(case_id="c1", tier="full", params={"variant": "past-pow2", "batch_size": 33, "dim": 4097},
                   status="error", message=LONG),
        CaseResult(case_id="c2", tier="full", params={"variant": "odd", "batch_size": 25, "dim": 3841},
                   status="mismatch", mismatch_frac=1.0, max_abs_err=0.5, max_rel_err=0.5,
                   diagnostics={"symptom": "uniform-drift", "location": "everywhere",
                                "notes": ["each failing row is a constant multiple of the reference's "
                                          "(0.481..0.8226): a wrong per-row normaliser?"]}),
    ]
    base = dict(operator_id="23_Softmax", family="kernelbench-level1", problem_path="p.py", problem_sha256="0",
                candidate_path="tests/repair/kernelbench/data/candidates/2_Softmax/tail.py", candidate_sha256="0",
                backend="triton-cpu", tier="full", seed=1, case_set_sha256="0", cases=cases,
                summary={"compact": TierSummary(passed=1, total=1), "full": TierSummary(passed=1, total=3)},
                match=0.333, numerics_passed=False, passed=False, confined=True, landlock=7)
    return EvalResult(**{**base, **kw})


def test_fits_100_columns_and_keeps_the_error_whole():
    text = render_table(_result(tolerance={"atol": 1e-2, "rtol": 1e-2}))
    assert max(map(len, text.splitlines())) <= WIDTH, text
    assert " ".join(text.split()).count(" ".join(LONG.split())) == 1  # wrapped, not cut
    assert "tolerance atol=0.01 rtol=0.01 (its TOLERANCE)" in text
    assert "backend triton-cpu  tier full" in text


def test_prints_the_diagnosis_and_says_emulated():
    text = render_table(_result(backend="ascendc-cpu", emulated=True))
    assert "diagnosis:\n  c2: each failing row is a constant multiple of the reference's" in text
    assert "(0.481..0.8226): a wrong per-row normaliser?" in " ".join(text.split())
    assert "backend ascendc-cpu (emulated: not the hardware)" in text and "emulated]" in text
    assert "tolerance by dtype (fp64/fp32 0.0001, fp16/bf16 0.01)" in " ".join(text.split())


def test_a_candidate_that_does_not_load_is_named_with_its_line():
    text = render_table(_result(load_error="cand.py:12: cannot be imported: it does not parse (unmatched ')')"))
    assert "does not load: cand.py:12: cannot be imported" in text
    assert "integrity not scanned (the candidate does not load)" in text and "integrity clean" not in text


def test_long_params_go_under_their_case():
    r = _result()
    r.cases[0].params = {"variant": "one-batch_size", "batch_size": 1, "in_channels": 3, "out_channels": 16,
                         "height": 255, "width": 255, "layout": "strided"}
    text = render_table(r)
    assert max(map(len, text.splitlines())) <= WIDTH, text
    assert "variant=one-batch_size,batch_size=1,in_channels=3" in text
