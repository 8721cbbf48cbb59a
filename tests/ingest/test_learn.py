"""Learning at ingest (ingest.learn): an admitted repair becomes a derived rule entry that repairs other operators,
carries its sources' cohort exposure, and shows in `kb log` and `kb show`."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from ingest.record import Diagnosis
from ingest.synthetic import make_record, write_record

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "tests" / "repair" / "rules" / "data" / "dev"
EXAMPLES = ROOT / "examples"
GRID = "grid-floor-div"


def _repair(i: int, op_dir: Path, nearmiss: str, operator: str, bug_class: str = GRID):
    """A recorded repair of one operator (near-miss -> its correct kernel), as an LLM's would be: no rules of its own."""
    before, after = (op_dir / nearmiss).read_text(), (op_dir / "correct.py").read_text()
    r = make_record(i, bug_class="grid-floor-div", operator_id=operator, family=op_dir.name, source=before,
                    repaired=after, run_id=f"run-{operator}-{i}")
    return r.model_copy(update={"diagnosis": Diagnosis(
        title="Grid launches n // BLOCK programs", bug_class=bug_class,
        root_cause="the grid floor-divides the size by the block, so the last partial block never runs",
        fix="launch triton.cdiv(n, BLOCK) programs")})


def _reach(rules, before: str, after: str, depth: int = 2) -> bool:
    from ingest.rules import apply_rules, equivalent

    frontier = [before]
    for _ in range(depth):
        frontier = [a.patched_source for s in frontier for a in apply_rules(rules, s)]
        if any(equivalent(s, after) for s in frontier):
            return True
    return False


def _rules(pattern: dict):
    from ingest.rules import Rule

    return [Rule.model_validate(r) for r in pattern["rules"]]


@pytest.fixture(scope="module")
def corpus():
    from ingest.learn import correct_corpus

    return correct_corpus(EXAMPLES)


def test_a_repair_of_one_operator_ingested_repairs_a_near_miss_of_another(tmp_path, corpus):
    from ingest.api import ingest
    from kbstore.views import log, show

    path = write_record(_repair(1, DEV / "clamp_scale", "nearmiss_grid.py", "op_a"), tmp_path / "a.json")
    report = ingest([path], tmp_path / "kb", learn=True, corpus=corpus)
    assert report.count("admitted") == 1 and len(report.learned) == 1
    learned = report.learned[0]
    assert learned["bug_class"] == GRID and all(r.startswith("learned/") for r in learned["rules"])
    own = report.outcomes[0].entry_id
    assert learned["sources"] == [own] and report.entries_added == 2

    entry = show(tmp_path / "kb", learned["entry_id"])
    rules = _rules(entry["pattern"])
    assert {r.origin for r in rules} == {"learned"} and entry["evidence"][0]["operator_id"] == "op_a"
    assert any(s["relation"] == "wasDerivedFrom" and s["object"] == f"nm:entry/{own}" for s in entry["provenance"])
    b = EXAMPLES / "add_relu"  # operator B: another kernel, names and launch
    assert _reach(rules, (b / "nearmiss_1.py").read_text(), (b / "correct.py").read_text())
    from ingest.rules import apply_rules, equivalent

    assert not [t for t in corpus for a in apply_rules(rules, t) if not equivalent(a.patched_source, t)]
    assert log(tmp_path / "kb")[-1]["learned"] == [learned["entry_id"]]


def test_without_learn_or_from_a_record_with_its_own_rules_nothing_is_derived(tmp_path, corpus):
    from ingest.api import ingest
    from ingest.rules import distill

    rec = _repair(2, DEV / "col_mean", "nearmiss_grid.py", "op_c")
    assert ingest([write_record(rec, tmp_path / "c.json")], tmp_path / "kb1").learned == []
    own = [r.to_dict() for r in distill(rec.source.code, rec.repaired.code, "triton", bug_class=GRID)]
    assert own
    hand = make_record(3, bug_class=GRID, source=rec.source.code, repaired=rec.repaired.code, rules=own)
    assert ingest([write_record(hand, tmp_path / "h.json")], tmp_path / "kb2", learn=True, corpus=corpus).learned == []


def test_a_derived_rule_with_one_cohort_source_never_reaches_the_snapshot(tmp_path, corpus):
    from ingest.api import ingest
    from kbstore.freeze import freeze
    from kbstore.snapshot import read_manifest

    kb = tmp_path / "kb"
    first = ingest([write_record(_repair(4, DEV / "clamp_scale", "nearmiss_grid.py", "op_a"), tmp_path / "a.json")],
                   kb, learn=True, corpus=corpus)
    second = ingest([write_record(_repair(5, DEV / "col_mean", "nearmiss_grid.py", "op_cohort"),
                                  tmp_path / "b.json")], kb, learn=True, corpus=corpus)
    both = [x for x in second.learned if len(x["sources"]) == 2]
    assert both, second.learned  # the two fixes anti-unify into one rule derived from both entries
    cohort_file = tmp_path / "op_cohort.py"
    cohort_file.write_text((DEV / "col_mean" / "correct.py").read_text())
    manifest = tmp_path / "cohort.yaml"
    frozen_at = datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")
    manifest.write_text(f'cohort: c\nfrozen_at: "{frozen_at}"\noperators:\n  - id: op_cohort\n    family: x\n'
                        f"    files: [{cohort_file}]\n")
    snap = read_manifest(Path(freeze(manifest, kb, allow_outside=True).path))
    excluded = {e.id: set(e.rules) for e in snap.excluded}
    op_a = first.outcomes[0].entry_id
    assert op_a in snap.identity.entries and first.learned[0]["entry_id"] in snap.identity.entries
    assert all("provenance" in excluded.get(x["entry_id"], ()) for x in both)
    assert second.outcomes[0].entry_id in excluded


def test_kb_ingest_learn_log_and_show_name_the_learned_rules(tmp_path):
    from click.testing import CliRunner
    from kbstore.cli import cli

    path = write_record(_repair(6, DEV / "softmax_tile", "nearmiss_grid.py", "op_s"), tmp_path / "s.json")
    run = CliRunner().invoke(cli, ["ingest", "--learn", "--corpus", str(EXAMPLES), str(path)])
    assert run.exit_code == 0 and f"[{GRID}] from 1 entries: learned/" in run.output, run.output
    learned = run.output.split("  learned ", 1)[1].split()[0]
    log = CliRunner().invoke(cli, ["log"]).output
    assert f"learned 1 rule entries: {learned}" in log
    shown = CliRunner().invoke(cli, ["show", learned]).output
    assert "Learned rule:" in shown and "learned at ingest from 1 entries" in shown
