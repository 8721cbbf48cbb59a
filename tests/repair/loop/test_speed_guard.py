"""The parallelism guard in the repair loop, on triton-cpu: a repair that serialises add_relu's near-miss passes
every check, is flagged, and is refused under --keep-speed; the honest repair is accepted unflagged; the figures
reach the trajectory, the record and the run summary. Each run evaluates Triton kernels in the interpreter."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ingest.gate import gate
from ingest.patch import unified_diff
from ingest.record import RepairRecord
from repair.loop.bounds import Bounds
from repair.loop.run import repair_run, summary
from repair.loop.speed import SPEED_RULE, SpeedOptions
from repair.loop.trajectory import read_trajectory
from tests.repair.engine.test_parallelism import ADD_RELU_SERIAL

pytestmark = pytest.mark.slow
OP = Path(__file__).resolve().parents[3] / "examples" / "add_relu"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    from provenance.offline import OFFLINE_ENV

    for k, v in {**OFFLINE_ENV, "TRITON_INTERPRET": "1"}.items():
        monkeypatch.setenv(k, v)


def _run(tmp_path: Path, steps: list[dict], speed: SpeedOptions, name: str):
    script = tmp_path / f"{name}.yaml"
    script.write_text(yaml.safe_dump({"steps": steps}))
    out = tmp_path / name
    outcome = repair_run(OP / "problem.py", OP / "nearmiss_1.py", script=script, out=out, seed=3,
                         bounds=Bounds(attempts=3), speed=speed)
    return outcome, out


def test_serialising_repair_is_refused_under_keep_speed_and_the_honest_one_kept(tmp_path):
    source, correct = (OP / "nearmiss_1.py").read_text(), (OP / "correct.py").read_text()
    honest = {"diff": unified_diff(source, correct, path="nearmiss_1.py")}
    outcome, out = _run(tmp_path, [{"candidate": ADD_RELU_SERIAL}, honest], SpeedOptions(keep=1.0), "keep")
    assert [a.outcome for a in outcome.attempts] == ["speed-refused", "accepted"], outcome.why
    refused, accepted = outcome.attempts
    assert refused.rules == (SPEED_RULE,) and refused.speed["refused"]
    assert refused.speed["parallelism"]["measure"] == "programs" and refused.speed["candidate"]["programs"] == 1
    assert not accepted.speed["flagged"] and accepted.rules == ()
    events = [e for e in read_trajectory(out / "trajectory.jsonl") if e["event"] == "speed"]
    assert [e["attempt"] for e in events] == [1, 2] and events[0]["refused"] and not events[1]["flagged"]
    assert (out / "final.py").read_text() == correct
    record = RepairRecord.model_validate(json.loads((out / "record.json").read_text()))
    assert record.speed is not None and not record.speed.flagged and record.speed.keep_speed == 1.0
    assert record.speed.repaired["programs"] >= record.speed.near_miss["programs"] and record.speed.timing is None
    assert gate(record, require_speed=True) == []
    info = summary(outcome)
    assert len(info["speed_flags"]) == 1 and "refused" in info["speed_flags"][0]


def test_a_flagged_repair_is_accepted_without_keep_speed_and_the_gate_can_refuse_it(tmp_path):
    outcome, out = _run(tmp_path, [{"candidate": ADD_RELU_SERIAL}], SpeedOptions(), "flag")
    assert [a.outcome for a in outcome.attempts] == ["accepted"]
    assert outcome.attempts[0].rules == (SPEED_RULE,)
    assert "parallelism shrank: programs" in summary(outcome)["speed_flags"][0]
    record = RepairRecord.model_validate(json.loads((out / "record.json").read_text()))
    assert record.speed.flagged and record.speed.measure == "programs" and record.speed.shrink > 4
    assert gate(record) == []  # the speed requirement is the KB's to ask for
    refused = gate(record, require_speed=True)
    assert [r.code for r in refused] == ["speed-flagged"] and "programs" in refused[0].message


def test_repair_eval_time_on_the_cpu_says_nothing_is_timed():
    from click.testing import CliRunner

    from repair.cli import cli

    res = CliRunner().invoke(cli, ["eval", str(OP / "problem.py"), str(OP / "correct.py"), "--seed", "1", "--time",
                                   "--backend", "triton-cpu"])
    assert res.exit_code == 0, res.output
    assert "parallelism (case c4): 40 programs x 1024 elements per program, 4 warps, 1 launch(es)" in res.output
    assert "timing: none (timings are measured on device backends only (cuda, npu)" in res.output
    res = CliRunner().invoke(cli, ["eval", str(OP / "problem.py"), str(OP / "correct.py"), "--time", "--json",
                                   "--backend", "triton-cpu"])
    out = json.loads(res.output)
    assert out["timing"] is None and "triton-cpu" in out["timing_note"] and out["parallelism"]["programs"] == 40
