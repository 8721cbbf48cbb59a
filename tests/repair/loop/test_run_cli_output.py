"""What `repair run` says (issue 37): at once when the rules worker has no patterns, each step on stderr while it
runs, and at the end the near-miss's diagnosis, why it stopped, what each attempt did and what to try next."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from repair.cli import cli

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    from provenance.offline import OFFLINE_ENV

    for k, v in {**OFFLINE_ENV, "TRITON_INTERPRET": "1"}.items():
        monkeypatch.setenv(k, v)


def test_the_rules_worker_without_patterns_says_how_to_get_them_before_any_evaluation(tmp_path):
    d = EXAMPLES / "softmax"
    r = CliRunner().invoke(cli, ["run", str(d / "problem.py"), str(d / "nearmiss_1.py"), "--worker", "rules",
                                 "--out", str(tmp_path / "out")])
    assert r.exit_code == 2, r.output
    assert "--worker rules has no patterns to apply (no --kb or --snapshot given)" in r.stderr
    assert "kb ingest repair/rules/starter --kb DIR" in r.stderr
    assert not (tmp_path / "out").exists()  # nothing ran
    r = CliRunner().invoke(cli, ["run", str(d / "problem.py"), str(d / "nearmiss_1.py")])
    assert r.exit_code == 2 and "--worker rules --kb DIR" in r.stderr  # the default worker without --script


@pytest.mark.slow
def test_a_run_that_stops_says_why_and_what_to_try(tmp_path):
    d = EXAMPLES / "softmax"
    script = tmp_path / "script.yaml"  # one proposal that changes nothing of substance: not improved
    script.write_text(yaml.safe_dump({"steps": [{"file": "same.py", "diagnosis": {
        "title": "Nothing changes", "bug_class": "none", "root_cause": "-", "fix": "-"}}]}))
    (tmp_path / "same.py").write_text((d / "nearmiss_1.py").read_text() + "\n# touched\n")
    r = CliRunner().invoke(cli, ["run", str(d / "problem.py"), str(d / "nearmiss_1.py"), "--script", str(script),
                                 "--seed", "0"])
    assert r.exit_code == 1, r.output
    out, err = r.stdout, r.stderr
    assert out.startswith("worker-exhausted: 1 attempts (not-improved)")
    assert "diagnosis: nan-introduced @ scattered in the full tier" in out
    assert "  attempt 1: not-improved: Nothing changes" in out and "best: attempt 0" in out
    assert "next: the worker had nothing more to propose" in out
    steps = [ln.split("] ", 1)[1] for ln in err.splitlines() if ln.startswith("repair run [")]
    assert steps[0].startswith("start: worker scripted, backend triton-cpu")
    assert any(s.startswith("forensics: nan-introduced") for s in steps)
    assert "attempt 1: proposal (file, cites none, 0 tokens)" in steps and "attempt 1: integrity gate: clean" in steps
    assert steps[-1].startswith("end: worker-exhausted")
    assert max(map(len, (out + err).splitlines())) <= 100


def test_the_rules_check_reads_the_retrievers_patterns():
    from types import SimpleNamespace

    from repair.errors import BadInput
    from repair.loop.run import check_rule_patterns

    def retriever(*patterns):
        return SimpleNamespace(_kb=SimpleNamespace(rows=[{"pattern": p} for p in patterns]),
                               source=SimpleNamespace(kb_path="/kb"))

    check_rule_patterns(retriever({"rules": []}, {"rules": [{"id": "r"}]}))  # one carries rules: fine
    with pytest.raises(BadInput, match="/kb holds 2 entries, none with rules; get the starter patterns"):
        check_rule_patterns(retriever({"rules": []}, {}))


def test_campaign_progress_is_a_plain_line_per_run_when_not_a_terminal(capsys):
    from repair.campaign.outcome import RunOutcome
    from repair.campaign.progress import ProgressBar, Tally
    from repair.campaign.spec import RunSpec

    specs = [RunSpec(f"op/n{i}", "op", "fam", Path("/p.py"), Path(f"/n{i}.py"), 0, None) for i in range(3)]
    tally = Tally(specs, {})
    with ProgressBar(tally, enabled=True) as bar:  # capsys: stderr is not a terminal
        for s in specs[:2]:
            tally.finish(s, RunOutcome(key=s.key, status="repaired"))
            bar.update()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(ln.startswith("repair campaign [") for ln in err)
    assert "2/3 runs  operators 0/1  repaired 2  failed 0  tokens 0  eta " in err[1]
