"""The repair loop on the example suite's real near-misses: the harness, the integrity gate and the ingest gate.

Each run starts the harness's sandboxes and evaluates Triton kernels in the interpreter (~3 s per evaluation).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ingest.patch import unified_diff
from repair.loop.bounds import Bounds
from repair.loop.run import repair_run, static_operator_id
from repair.loop.trajectory import read_trajectory

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    from provenance.offline import OFFLINE_ENV

    for k, v in {**OFFLINE_ENV, "TRITON_INTERPRET": "1"}.items():
        monkeypatch.setenv(k, v)


def op(name: str) -> Path:
    return EXAMPLES / name


def script(tmp_path: Path, steps: list[dict]) -> Path:
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump({"steps": steps}))
    return path


def test_cheat_then_worse_then_rollback_then_repair(tmp_path):
    """sum_lastdim's mask-off-by-one: a framework-op cheat is refused, a worse patch rolls back, the fix is accepted."""
    source = (op("sum_lastdim") / "nearmiss_2.py").read_text()
    correct = (op("sum_lastdim") / "correct.py").read_text()
    cheat = source.replace("        return out\n", "        return torch.sum(x, dim=-1)\n")
    worse = source.replace("mask=cols <= n_cols", "mask=cols < n_cols - 1")
    assert cheat != source and worse != source
    steps = [{"candidate": cheat}, {"candidate": worse}, {"diff": unified_diff(source, correct, path="nearmiss_2.py")}]
    out = tmp_path / "out"
    outcome = repair_run(op("sum_lastdim") / "problem.py", op("sum_lastdim") / "nearmiss_2.py",
                         script=script(tmp_path, steps), out=out, seed=7, bounds=Bounds(attempts=4))
    assert outcome.status == "repaired", [e for e in read_trajectory(out / "trajectory.jsonl")][-3:]
    assert [a.outcome for a in outcome.attempts] == ["integrity-violation", "not-improved", "accepted"]
    events = read_trajectory(out / "trajectory.jsonl")
    rollback = [e for e in events if e["event"] == "rollback"]
    assert len(rollback) == 1 and rollback[0]["to_attempt"] == 0 and rollback[0]["changed"]
    record = json.loads((out / "record.json").read_text())
    assert [h["verdict"] for h in record["integrity_history"]] == ["violation", "clean", "clean"]
    assert record["integrity_history"][0]["rules"]  # the rule ids that caught the cheat
    assert (out / "final.py").read_text() == correct
    assert record["evidence"]["seed"] == 7 and record["evidence"]["full_passed"] == record["evidence"]["full_total"]


def test_compact_passing_full_failing_patch_is_not_accepted(tmp_path):
    """max_lastdim: the reduction-init fix alone passes the compact tier but not the full one (missing `other`)."""
    d = op("max_lastdim")
    full_only, correct = (d / "nearmiss_1.py").read_text(), (d / "correct.py").read_text()
    steps = [{"candidate": full_only}, {"diff": unified_diff(full_only, correct, path="nearmiss_2.py")}]
    out = tmp_path / "out"
    outcome = repair_run(d / "problem.py", d / "nearmiss_2.py", script=script(tmp_path, steps), out=out, seed=3)
    assert outcome.status == "repaired"
    assert [a.outcome for a in outcome.attempts] == ["improved", "accepted"]
    evaluations = [(e["attempt"], e["tier"]) for e in read_trajectory(out / "trajectory.jsonl") if e["event"] == "evaluate"]
    assert evaluations == [(0, "compact"), (1, "compact"), (1, "full"), (2, "compact"), (2, "full")]
    first_full = next(e for e in read_trajectory(out / "trajectory.jsonl") if e["event"] == "evaluate" and e["tier"] == "full")
    assert first_full["passed"] is False


def test_a_clean_repair_yields_a_record_kb_ingest_admits(tmp_path, monkeypatch):
    from ingest.api import ingest
    from ingest.gate import gate
    from ingest.load import load_record

    monkeypatch.setenv("KB_EMBEDDER", "hash")

    d = op("sum_lastdim")
    source, correct = (d / "nearmiss_2.py").read_text(), (d / "correct.py").read_text()
    from click.testing import CliRunner

    from repair.cli import cli

    steps = [{"diff": unified_diff(source, correct, path="nearmiss_2.py"),
              "diagnosis": {"title": "Load mask lets one element past the row", "bug_class": "mask-off-by-one",
                            "root_cause": "mask uses <= n_cols", "fix": "mask with cols < n_cols"}}]
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(d / "problem.py"), str(d / "nearmiss_2.py"), "--script",
                                      str(script(tmp_path, steps)), "--out", str(out), "--seed", "11", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["status"] == "repaired" and summary["record_status"] == "repaired" and summary["attempts"] == 1
    loaded = load_record(out / "record.json")
    record = getattr(loaded, "record", loaded)
    assert gate(record) == []
    assert record.operator.id == static_operator_id(d / "problem.py") == "sum_lastdim"
    assert record.diagnosis.bug_class == "mask-off-by-one" and record.symptom.failed_tier == "compact"
    report = ingest([out / "record.json"], tmp_path / "kb")
    assert [o.outcome for o in report.outcomes] == ["admitted"] and report.version == 1
