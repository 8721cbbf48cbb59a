import pytest

from ingest.gate import gate
from ingest.patch import unified_diff
from ingest.synthetic import BUG_CLASSES, make_record
from provenance.canonical import sha256_text


@pytest.mark.parametrize("bug_class", sorted(BUG_CLASSES))
def test_good_records_pass(bug_class):
    assert gate(make_record(3, bug_class=bug_class)) == []


def _codes(record, **kw):
    return [r.code for r in gate(record, **kw)]


def _edit(record, **changes):
    return record.model_copy(update=changes)


def test_failed_status():
    assert _codes(make_record(1, status="failed")) == ["not-repaired"]


def test_match_below_threshold_and_threshold_is_a_parameter():
    r = make_record(1, full=(19, 20))  # 0.95
    assert _codes(r) == []
    assert _codes(r, min_match=0.96) == ["match-below-threshold"]
    assert _codes(make_record(1, full=(18, 20))) == ["match-below-threshold"]


def test_match_must_agree_with_the_counts():
    r = make_record(1, full=(10, 20))
    r = _edit(r, evidence=r.evidence.model_copy(update={"match": 1.0}))
    assert _codes(r) == ["evidence-inconsistent"]


def test_no_full_tier():
    assert _codes(make_record(1, full=(0, 0))) == ["no-full-tier"]


def test_every_attempt_must_be_clean_not_only_the_last():
    r = make_record(1, verdicts=("clean", "violation", "clean"))
    reasons = gate(r)
    assert [x.code for x in reasons] == ["integrity-not-clean"] and "attempt 2" in reasons[0].message
    # a refused (unparsable, empty) proposal is not a cheat; the final attempt must be clean
    assert _codes(make_record(1, verdicts=("not-run", "clean"))) == []
    assert _codes(make_record(1, verdicts=("clean", "not-run"))) == ["integrity-not-clean"]


def test_empty_integrity_history():
    assert _codes(make_record(1, verdicts=())) == ["integrity-missing"]


@pytest.mark.parametrize("field", ["run_id", "tool_version"])
def test_missing_provenance(field):
    assert _codes(_edit(make_record(1), **{field: " "})) == ["provenance-missing"]


def test_missing_worker_and_bad_hashes_and_times():
    r = make_record(1)
    assert _codes(_edit(r, worker=r.worker.model_copy(update={"kind": ""}))) == ["provenance-missing"]
    assert _codes(_edit(r, operator=r.operator.model_copy(update={"problem_sha256": "abc"}))) == ["provenance-invalid"]
    assert _codes(_edit(r, started_at="yesterday")) == ["provenance-invalid"]
    assert _codes(_edit(r, started_at="2026-01-01T00:00:00")) == ["provenance-invalid"]  # no timezone
    assert _codes(_edit(r, finished_at="2025-01-01T00:00:00Z")) == ["provenance-invalid"]


def test_code_hash_must_match_code():
    r = make_record(1)
    assert _codes(_edit(r, source=r.source.model_copy(update={"sha256": sha256_text("other")}))) == ["sha256-mismatch"]


def test_diff_must_reproduce_the_repaired_code():
    r = make_record(1)
    other = r.repaired.code.replace("tl.store", "tl.store ", 1)
    wrong = unified_diff(r.source.code, other)
    assert _codes(_edit(r, diff=wrong)) == ["diff-mismatch"]
    assert _codes(_edit(r, diff="@@ -1,1 +1,1 @@\n-nothing\n+like this\n")) == ["diff-mismatch"]


def test_no_change():
    r = make_record(1)
    same = r.source.code
    assert "no-change" in _codes(_edit(r, repaired=r.source, diff=unified_diff(same, same)))


def test_several_problems_are_all_reported():
    r = _edit(make_record(1, status="failed", full=(1, 20), verdicts=("violation",)), run_id="")
    assert set(_codes(r)) == {"not-repaired", "match-below-threshold", "integrity-not-clean", "provenance-missing"}


def test_the_gate_requires_the_strict_integrity_policy_unless_told():
    r = make_record(1)
    lax = r.model_copy(update={"integrity_history": [a.model_copy(update={"policy": "epilogue"})
                                                     for a in r.integrity_history]})
    assert _codes(lax) == ["integrity-policy"] * len(r.integrity_history)
    assert "requires strict" in gate(lax)[0].message
    assert _codes(lax, accept_policy="epilogue") == []
    # a strict record dumps as it did before the field existed (its hash is unchanged)
    assert "policy" not in r.integrity_history[0].model_dump(by_alias=True, exclude_none=True)
    assert lax.integrity_history[0].model_dump()["policy"] == "epilogue"
