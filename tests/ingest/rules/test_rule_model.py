"""The rule record: validation, canonical JSON, and its place in a repair record."""
from __future__ import annotations

import pytest

from ingest.record import RepairRecord
from ingest.rules import BadRule, MetaConstraint, Rule, check_rule, rule_from_dict, rules_of


def test_rewrite_must_not_use_an_unbound_metavariable():
    with pytest.raises(ValueError, match=r"\$C"):
        Rule(id="x", pattern="$A < $B", rewrite="$A < $C")


def test_constraint_must_name_a_bound_metavariable():
    with pytest.raises(ValueError, match=r"\$Z"):
        Rule(id="x", pattern="$A < $B", rewrite="$A <= $B", where={"Z": MetaConstraint(kind="identifier")})


def test_metavariables_bound_by_requires_may_be_used():
    r = Rule(id="x", pattern="tl.sum($X) / $B", rewrite="tl.sum($X) / $N", requires=["$C < $N"])
    assert r.rewrite.endswith("$N")


@pytest.mark.parametrize("bad_id", ["", "Has Caps", "a" * 200, "-leading"])
def test_rule_ids_are_short_lowercase_slugs(bad_id):
    with pytest.raises(ValueError):
        Rule(id=bad_id, pattern="$A < $B", rewrite="$A <= $B")


def test_identity_rewrite_is_refused():
    with pytest.raises(ValueError, match="equals pattern"):
        Rule(id="x", pattern="$A < $B", rewrite="$A < $B")


def test_canonical_json_is_stable_and_carries_the_schema():
    a = Rule(id="x", pattern="$A <= $B", rewrite="$A < $B", context="kernel")
    b = Rule.model_validate(a.to_dict())
    assert a.to_dict()["schema"] == "repair.rule/v1"
    assert a.canonical() == b.canonical() and a.sha256() == b.sha256()
    assert a.sha256() != Rule(id="x", pattern="$A <= $B", rewrite="$A < $B").sha256()  # context is content


def test_rule_from_dict_names_the_bad_field():
    with pytest.raises(BadRule, match=r"record rules\[0\]: context"):
        rule_from_dict({"id": "x", "pattern": "a", "rewrite": "b", "context": "gpu"}, where="record rules[0]")
    with pytest.raises(BadRule, match="unknown_field"):
        rule_from_dict({"id": "x", "pattern": "a", "rewrite": "b", "unknown_field": 1})


def test_a_pattern_that_does_not_parse_is_a_bad_rule():
    with pytest.raises(BadRule, match="does not parse"):
        check_rule(Rule(id="x", pattern="tl.load(", rewrite="tl.load()"))
    with pytest.raises(BadRule, match="requires"):
        check_rule(Rule(id="x", pattern="$A", rewrite="$A + 1", requires=["def ("]))


def test_rules_travel_inside_a_repair_record_and_come_back(tmp_path):
    rule = Rule(id="starter/x/y", pattern="$A <= $B", rewrite="$A < $B")
    record_rules = [rule.to_dict()]
    payload = {"rules": record_rules}
    assert rules_of(payload) == [rule]
    assert "rules" in RepairRecord.model_fields
