import pytest

from repair.campaign.runner import debug_config
from repair.campaign.spec import check_ablations, load_operators, plan_debug, plan_regenerate, script_for
from repair.errors import BadInput
from repair.campaign.regenerate import problem_operator, regenerate_config

from campaign_helpers import DATA, ROOT


def test_manifest_candidates_skip_the_problem_and_the_answer_key():
    ops = load_operators(DATA / "mini.yaml")
    assert [o.id for o in ops] == ["add_relu", "leaky_relu"]
    assert [c.name for c in ops[0].candidates] == ["nearmiss_1.py"]  # correct.py is kind: correct in meta.yaml
    specs = plan_debug(ops)
    assert [s.key for s in specs] == ["add_relu/nearmiss_1", "leaky_relu/nearmiss_1"]
    assert [s.key for s in plan_regenerate(ops, 2)] == [
        "add_relu/trial-0", "add_relu/trial-1", "leaky_relu/trial-0", "leaky_relu/trial-1"]


def test_example_cohort_plans_one_run_per_near_miss():
    specs = plan_debug(load_operators(ROOT / "manifests" / "examples.yaml"))
    near_misses = sorted(ROOT.glob("examples/*/nearmiss_*.py"))
    assert len(specs) == len(near_misses) > 10
    assert all(s.candidate.name.startswith("nearmiss_") for s in specs)


def test_per_run_scripts_are_found_and_missing_ones_reported(tmp_path):
    specs = plan_debug(load_operators(DATA / "mini.yaml"))
    assert script_for(specs[0], DATA / "scripts").name == "nearmiss_1.yaml"
    (tmp_path / "add_relu").mkdir()
    (tmp_path / "add_relu.yaml").write_text("steps: [{candidate: x}]\n")
    assert script_for(specs[0], tmp_path).name == "add_relu.yaml"
    with pytest.raises(BadInput, match="no script for leaky_relu/nearmiss_1"):
        debug_config(DATA / "mini.yaml", script=tmp_path)


def test_bad_inputs_are_one_line_errors(tmp_path):
    with pytest.raises(BadInput, match="unknown ablation no-such"):
        check_ablations(["no-kb", "no-such"])
    with pytest.raises(BadInput, match="no such manifest"):
        debug_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("cohort: x\nfrozen_at: '2026-01-01T00:00:00Z'\noperators:\n  - id: a\n    files: [nope/problem.py]\n")
    with pytest.raises(BadInput, match="bad.yaml"):
        debug_config(bad)
    with pytest.raises(BadInput, match="bound attempts"):
        debug_config(DATA / "mini.yaml", script=DATA / "scripts", bounds={"attempts": 0})


def test_regenerate_plans_trials_for_a_problem_or_a_manifest():
    op = problem_operator(ROOT / "examples" / "leaky_relu" / "problem.py")
    assert (op.id, op.family) == ("leaky_relu", "elementwise")
    script = DATA / "regen" / "add_relu.yaml"
    config, specs = regenerate_config(ROOT / "examples" / "leaky_relu" / "problem.py", 3, script=script)
    assert config.kind == "regenerate" and config.trials == 3
    assert [s.key for s in specs] == ["leaky_relu/trial-0", "leaky_relu/trial-1", "leaky_relu/trial-2"]
    _, specs = regenerate_config(DATA / "mini.yaml", 2, script=script)
    assert len(specs) == 4 and all(s.candidate is None for s in specs)
    with pytest.raises(BadInput, match="at least 1"):
        regenerate_config(DATA / "mini.yaml", 0, script=script)


def test_a_malformed_script_is_bad_input_before_any_run(tmp_path):
    (tmp_path / "add_relu").mkdir()
    (tmp_path / "add_relu" / "nearmiss_1.yaml").write_text("steps: [{nothing: 1}]\n")
    (tmp_path / "leaky_relu.yaml").write_text("steps: [{candidate: x}]\n")
    with pytest.raises(BadInput, match="nearmiss_1.yaml: step 1: a step needs exactly one of"):
        debug_config(DATA / "mini.yaml", script=tmp_path)


@pytest.mark.slow  # imports litellm (~5-9 s)
def test_a_missing_provider_key_stops_before_any_run(monkeypatch):
    from repair.errors import EnvironmentMissing

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EnvironmentMissing, match="OPENAI_API_KEY"):
        debug_config(DATA / "mini.yaml", worker="litellm", model="openai/gpt-4o-mini")
