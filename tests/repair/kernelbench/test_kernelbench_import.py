"""`repair import kernelbench`: KernelBench-layout files become problems whose cases are derived from their own size
constants (checked against the reference), beside the file unchanged, in a cohort manifest kb freeze matches."""
from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kernelbench_fixtures import DATA, FROZEN, PROBLEMS
from provenance.canonical import sha256_text
from provenance.cohort import load_manifest
from repair.cli import cli
from repair.errors import BadInput
from repair.kernelbench import CPU_BUDGET, Options, import_problems, upstream_of


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(f"kb_{path.parent.name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _params(case: dict) -> dict:
    return {k: v for k, v in case.items() if k != "tier"}


def _build(mod, case: dict, device: str = "meta"):
    """(init, inputs, outputs, flops) of a case of an imported problem, as the reference process builds it."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    torch.manual_seed(0)
    with torch.device(device), torch.no_grad():
        init, inputs = mod.get_init_inputs(**_params(case)), mod.get_inputs(**_params(case))
        with FlopCounterMode(display=False) as fc:
            out = mod.Model(*init)(*inputs)
    return init, inputs, out if isinstance(out, (list, tuple)) else [out], fc.get_total_flops()


def test_every_problem_imports_beside_the_file_unchanged(imported):
    out, done, refused, _ = imported
    assert refused == [] and sorted(done) == sorted(p.stem for p in PROBLEMS)
    for src in PROBLEMS:
        p = done[src.stem]
        text = Path(p.problem).read_text()
        assert upstream_of(text) == src.read_text()  # the Model and everything else, byte for byte
        sha = sha256_text(src.read_bytes())
        assert p.upstream_sha256 == sha and Path(p.upstream_copy).read_bytes() == src.read_bytes()
        assert f"'sha256': '{sha}'" in text
        meta = yaml.safe_load((out / src.stem / "meta.yaml").read_text())
        entry = meta["candidates"][src.name]
        assert entry["kind"] == "upstream" and entry["sha256"] == sha
        assert p.operator_id == src.stem and p.family == f"kernelbench-{src.parent.name}"
        assert "TOLERANCE = {'atol': 0.01, 'rtol': 0.01}  # KernelBench's check" in text


def test_the_compact_case_is_upstream_scaled_down_and_every_case_fits_the_budget(imported):
    out, done, _, _ = imported
    compact = {name: _params(p.derivation.cases[0]) for name, p in done.items()}
    assert compact["1_ReLU"] == {"variant": "scaled", "batch_size": 64, "dim": 16384}  # 2048 x 524288, 2^30 elements
    assert compact["5_Matmul"] == {"variant": "scaled", "M": 256, "K": 256, "N": 512}  # 4096 x 4096 x 8192
    assert compact["3_Sum_reduction_over_a_dimension"] == {"variant": "scaled", "batch_size": 16, "dim1": 512,
                                                           "dim2": 128}
    for name, p in done.items():
        mod = _module(Path(p.problem))
        assert mod.CASES == p.derivation.cases and mod.CASES[0]["tier"] == "compact"
        for case in mod.CASES:
            _, inputs, outs, flops = _build(mod, case)
            elements = sum(t.numel() for t in [*inputs, *outs])
            assert elements <= CPU_BUDGET.elements and flops <= CPU_BUDGET.flops, (name, case)
        assert all(v == p.derivation.constants[k] for k, v in mod.UPSTREAM["sizes"].items())


def test_the_full_tier_adds_odd_sizes_tails_a_size_of_1_and_strided_inputs(imported):
    out, done, _, _ = imported
    relu = _module(Path(done["1_ReLU"].problem))
    by = {c["variant"]: c for c in relu.CASES}
    assert set(by) == {"scaled", "odd", "past-pow2", "strided", "one-batch_size", "one-dim"}
    assert by["odd"]["batch_size"] % 2 and by["odd"]["dim"] % 2
    assert by["past-pow2"]["dim"] == 8193 and by["past-pow2"]["batch_size"] == 33
    assert by["one-dim"]["dim"] == 1 and by["one-batch_size"]["batch_size"] == 1
    assert all(c["tier"] == "full" for v, c in by.items() if v != "scaled")
    _, inputs, _, _ = _build(relu, by["strided"], device="cpu")
    _, same, _, _ = _build(relu, {k: v for k, v in by["strided"].items() if k != "layout"}, device="cpu")
    assert not inputs[0].is_contiguous() and inputs[0].stride() == (2 * by["strided"]["dim"], 2)
    assert inputs[0].equal(same[0])  # the same values, other storage


def test_what_the_import_records_and_leaves_out(imported):
    _, done, _, _ = imported
    conv = done["6_conv_standard_2D"].derivation
    assert conv.sizes == ["height", "width"] and set(conv.kept) == {"batch_size", "in_channels"}
    assert "at most 16" in conv.kept["in_channels"]
    dropped = {d.variant: d.reason for d in conv.dropped}
    assert set(dropped) == {"one-height", "one-width"} and "Kernel size can't be greater" in dropped["one-height"]
    row = done["8_Row_sum_reads_global"].derivation
    assert row.sizes == ["batch_size"] and row.kept == {"dim": "Model reads it as a global, so a case cannot set it"}
    assert all(row.checked[c["variant"]] == "cpu" for c in row.cases)
    assert done["1_ReLU"].derivation.original.elements == 2 * 2048 * 524288
    grouped = done["3_Conv2d_grouped_ReLU"].derivation  # odd channels break groups=4: they stay as in the full tier
    assert grouped.adjusted["odd"].startswith("in_channels=4, not 3: the reference rejects that (ValueError")
    assert {c["variant"]: c["in_channels"] for c in grouped.cases}["odd"] == 4
    norm = done["4_Linear_LayerNorm"].derivation  # the LayerNorm's width comes from elsewhere: dim cannot scale
    assert norm.sizes == ["batch_size"] and norm.kept["dim"].startswith("the reference rejects the case with it scaled")
    assert _params(norm.cases[0]) == {"variant": "scaled", "batch_size": 256}


def test_derived_constants_follow_the_sizes_and_upstream_values_come_back(imported):
    _, done, _, _ = imported
    cumsum = _module(Path(done["7_cumsum"].problem))
    assert cumsum.CASES[0]["input_shape"] == [8192] and cumsum._KB_TUPLES == ("input_shape",)
    for case in cumsum.CASES:
        _, inputs, _, _ = _build(cumsum, case)
        assert tuple(inputs[0].shape) == (case["batch_size"], *case["input_shape"])
    assert cumsum.input_shape == (65536,) and cumsum.batch_size == 1024  # put back after each case
    conv = _module(Path(done["1_Conv2d_BiasAdd_ReLU"].problem))
    assert "in_channels" in conv.UPSTREAM["sizes"]
    for case in conv.CASES:
        init, inputs, _, _ = _build(conv, case)
        assert init[0] == inputs[0].shape[1] == case["in_channels"]  # constructor and input agree
        assert tuple(inputs[0].shape[2:]) == (case["height"], case["width"])
    gemm = _module(Path(done["2_Gemm_BiasAdd_ReLU"].problem))
    init, inputs, _, _ = _build(gemm, gemm.CASES[0])
    assert init[0] == inputs[0].shape[1] == gemm.CASES[0]["in_features"] and init[2] == (8192,)


def test_the_cohort_manifest_a_campaign_and_kb_freeze_read(imported):
    from kbstore.freeze import provenance_rule
    from repair.campaign.spec import load_operators

    out, done, _, manifest = imported
    m = load_manifest(manifest)
    assert m.cohort == "kernelbench" and m.operator_ids() == set(done) and m.frozen_at == FROZEN
    ops = {op.id: op for op in load_operators(manifest)}
    assert all(op.candidates == () for op in ops.values())  # the upstream copy is not a near-miss
    relu = done["1_ReLU"]
    evidence = [{"entry_id": "e1", "run_id": "r1", "record_sha256": "x", "operator_id": "relu_somewhere_else",
                 "problem_sha256": relu.upstream_sha256, "source_sha256": None, "repaired_sha256": None}]
    match = provenance_rule(evidence, m.files(), m.operator_ids())["e1"]
    assert match[0]["match"] == "problem_sha256" and match[0]["cohort_file"] == "1_ReLU/1_ReLU.py"


def test_refusals_say_why_in_one_line(tmp_path):
    files = [DATA / "refused" / n for n in ("literal_shapes.py", "broken_inputs.py", "needs_cuda.py")]
    done, refused, manifest = import_problems(files, tmp_path, Options(jobs=2, timeout_s=120))
    assert done == [] and manifest is None
    _, late, _ = import_problems([DATA / "refused" / "sleeps.py"], tmp_path, Options(timeout_s=3))
    why = {Path(r.upstream).stem: r.refused for r in refused + late}
    assert why["literal_shapes"].startswith("no module constant changes get_inputs()'s shapes")
    assert "1,073,741,824 elements, over 4,194,304 elements" in why["literal_shapes"]
    assert why["broken_inputs"] == ("get_inputs() fails at upstream's sizes (on the meta device): RuntimeError: "
                                    "this problem's inputs come from a file that is not here")
    assert "CUDA" in why["needs_cuda"] and why["sleeps"] == "deriving its cases took more than 3 s (--timeout)"
    assert all("\n" not in r for r in why.values())


def test_a_fixed_scale_and_a_gpu_backend(tmp_path):
    done, _, _ = import_problems([DATA / "level1" / "5_Matmul.py"], tmp_path / "a", Options(scale=0.5))
    assert _params(done[0].derivation.cases[0]) == {"variant": "scaled", "M": 2048, "K": 2048, "N": 4096}
    assert done[0].derivation.checked["scaled"] == "meta"  # 20M elements: sized and run on the meta device only
    done, _, _ = import_problems([DATA / "level1" / "1_ReLU.py"], tmp_path / "b", Options(backend="cuda"))
    d = done[0].derivation
    assert _params(d.cases[0]) == {"variant": "upstream", "batch_size": 2048, "dim": 524288} and d.scale == 1.0
    assert d.checked["upstream"] == "meta" and d.cases[1]["batch_size"] < 2048  # the full tier stays small


def test_the_command(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["import", "kernelbench", str(DATA / "level1" / "1_ReLU.py"),
                              str(DATA / "refused" / "literal_shapes.py"), "--out", str(tmp_path / "o"), "--jobs", "2"])
    assert res.exit_code == 1, res.output
    lines = res.stdout.splitlines()
    assert max(map(len, lines)) <= 100 or all(" " not in ln.strip() for ln in lines if len(ln) > 100)
    starts = [ln for ln in lines if not ln.startswith(" ")]  # a line of more than 100 columns folds, indented
    assert starts[0].startswith("1_ReLU: ") and "batch_size 2048->64, dim 524288->16384" in " ".join(lines)
    assert starts[1].startswith("refused: ") and (f"{DATA / 'refused' / 'literal_shapes.py'}: no module constant"
                                                  in " ".join(res.stdout.split()))
    assert starts[2].startswith("imported 1, refused 1; cohort manifest:")
    probed = {ln.split(" probed: ", 1)[1] for ln in res.stderr.splitlines() if ln.startswith("repair import [")}
    assert probed == {"1_ReLU (cases derived)", "literal_shapes (refused)"}  # on stderr as each probe ends
    res = runner.invoke(cli, ["import", "kernelbench", str(DATA / "level1" / "1_ReLU.py"), "--out", str(tmp_path / "j"),
                              "--json", "--full-cases", "2", "--budget", "65536", "--frozen-at", "2026-11-30T00:00:00Z"])
    assert res.exit_code == 0, res.output
    assert yaml.safe_load((tmp_path / "j" / "cohort.yaml").read_text())["frozen_at"] == "2026-11-30T00:00:00Z"
    rec = json.loads(res.output)
    assert rec["schema"] == "repair.kernelbench.import/v1" and rec["compact"] == 1 and rec["full"] == 3
    assert rec["derivation"]["compact"]["elements"] <= 65536
    assert {d["variant"]: d["reason"] for d in rec["derivation"]["dropped"]}["strided"] == "past --full-cases 2"


def test_bad_input_writes_nothing(tmp_path):
    not_kb = tmp_path / "x.py"
    not_kb.write_text("import torch\nclass Model(torch.nn.Module):\n    pass\n")
    ours = tmp_path / "ours.py"
    ours.write_text((DATA / "level1" / "1_ReLU.py").read_text() + "\nCASES = [{'tier': 'compact'}]\n")
    runner = CliRunner()
    for args, what in [([str(not_kb)], "defines no get_inputs"), ([str(ours)], "already defines CASES"),
                       ([str(DATA / "level1" / "1_ReLU.py")] * 2, "two problem files are named 1_ReLU"),
                       ([str(DATA / "level1" / "1_ReLU.py"), "--scale", "2"], "--scale must be auto or a factor"),
                       ([str(DATA / "level1" / "1_ReLU.py"), "--frozen-at", "2026-11-30"], "has no time zone")]:
        res = runner.invoke(cli, ["import", "kernelbench", *args, "--out", str(tmp_path / "out")])
        assert res.exit_code == 2 and what in res.output, res.output
    assert not (tmp_path / "out").exists()
    with pytest.raises(BadInput, match="no PROBLEM_FILE"):
        import_problems([], tmp_path / "out")


def test_cases_are_plain_literals(imported):
    """CASES is written as a literal: a reader (or `repair eval`'s engine) takes it without running the file."""
    _, done, _, _ = imported
    for p in done.values():
        tree = ast.parse(Path(p.problem).read_text())
        cases = [n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "CASES"]
        assert len(cases) == 1 and ast.literal_eval(cases[0].value) == p.derivation.cases
