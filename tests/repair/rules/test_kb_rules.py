"""Rules in the knowledge base: the starter records go through `kb ingest` like any other, entries carry
their rules (distilled when a record has none), and the gate refuses rules that are broken or wrong."""
from __future__ import annotations

import pytest

from ingest.entry import pattern_from_record
from ingest.gate import gate
from ingest.record import RepairRecord
from ingest.synthetic import make_record
from ingest.rules import Rule, apply_rule, equivalent, rules_of
from repair.rules.build_starter import STARTER_DIR
from repair.rules.catalog import STARTER


@pytest.fixture
def kb(tmp_path, monkeypatch):
    monkeypatch.setenv("KB_EMBEDDER", "hash")  # the MiniLM embedder is not what is tested here
    monkeypatch.setenv("ANONYMIZED_TELEMETRY", "False")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "kb"


def test_starter_records_are_ingested_and_retrieved_with_their_rules(kb):
    from ingest.api import ingest
    from kbstore.retrieve import search

    report = ingest([STARTER_DIR], kb)
    assert report.count("admitted") == len(STARTER) and report.entries_added == len(STARTER)
    assert ingest([STARTER_DIR], kb).count("duplicate") == len(STARTER)  # the same records twice: no-op
    hits = search(kb, "masked load has no other value so padding wins the max", k=3)
    by_class = {h.bug_class: h for h in hits}
    assert "missing-other" in by_class
    rules = rules_of({"rules": list(by_class["missing-other"].rules)})
    assert [r.id for r in rules] == [r.id for r in next(p for p in STARTER if p.bug_class == "missing-other").rules]


def test_an_entry_without_rules_gets_distilled_ones_that_reproduce_its_fix():
    record = make_record(3, bug_class="grid-floor-div")
    assert record.rules == []
    entry = pattern_from_record(record)
    rules = [Rule.model_validate(r) for r in entry.rules]
    assert rules and all(r.origin == "distilled" for r in rules)
    assert any(equivalent(a.patched_source, record.repaired.code) for a in apply_rule(rules[0], record.source.code))
    assert pattern_from_record(record).id == entry.id  # distillation is deterministic: the id is stable


def test_an_entry_whose_fix_no_rule_expresses_stays_text_only():
    record = make_record(1, bug_class="grid-floor-div")
    source = record.source.code + "\nX = 1\nY = 2\nZ = 3\n"
    repaired = record.source.code + "\nW = [1, 2]\nV = {3}\n"
    record = make_record(1, bug_class="grid-floor-div", source=source, repaired=repaired)
    assert pattern_from_record(record).rules == []


def _with_rules(rules: list[dict]) -> RepairRecord:
    return make_record(2, bug_class="grid-floor-div", rules=rules)


def test_gate_refuses_broken_or_wrong_rules_and_admits_right_ones():
    base = make_record(2, bug_class="grid-floor-div")
    assert gate(base) == []
    broken = _with_rules([{"id": "x", "pattern": "$A // $B"}])  # no rewrite
    assert [r.code for r in gate(broken)] == ["rules-invalid"]
    unparsable = _with_rules([Rule(id="x", pattern="tl.load(", rewrite="y").to_dict()])
    assert [r.code for r in gate(unparsable)] == ["rules-invalid"]
    wrong = _with_rules([Rule(id="x", pattern="$A // $B", rewrite="$A * $B").to_dict()])
    assert [r.code for r in gate(wrong)] == ["rules-do-not-reproduce"]
    right = _with_rules([Rule(id="x", pattern="($N // $B,)", rewrite="(triton.cdiv($N, $B),)").to_dict()])
    assert gate(right) == []


def test_a_kb_retriever_offers_every_rule_carrying_entry_ranked_for_the_symptom(kb):
    from ingest.api import ingest
    from repair.loop.retrieve import KBRetriever
    from repair.loop.symptom import make_eval_result

    ingest([STARTER_DIR], kb)
    retriever = KBRetriever(kb)
    result = make_eval_result("grid-floor-div")
    top = retriever.query(result, "", 3)
    free = retriever.rule_patterns(result, "")
    assert len(top) == 3 and len(free) == len(STARTER) and all(p.rules for p in free)
    assert [p.id for p in free[:3]] == [p.id for p in top]  # the same ranking, continued past k
