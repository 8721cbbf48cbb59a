"""The AscendC example suite on ascendc-cpu, every candidate against its label: each correct kernel passes every case
of the full tier, each near-miss fails the tier its label says (`fails: compact`, or `full` with the compact tier
passing), each cheat fails. Slow: it builds all 42 candidates (a few seconds each, once per session)."""
from __future__ import annotations

import pytest

from ascendc_fixtures import candidates
from repair.engine import evaluate_many, render_table


OPERATORS = sorted({d.name for d, _, _ in candidates()})


@pytest.mark.slow
@pytest.mark.parametrize("op", OPERATORS)  # one operator a test, so that the workers share the builds
def test_the_suite_agrees_with_its_labels(op):
    todo = [c for c in candidates() if c[0].name == op]
    results = evaluate_many([(d / "problem.py", d / name) for d, name, _ in todo], backend="ascendc-cpu", seed=7)
    wrong = []
    for (d, name, info), r in zip(todo, results):
        compact, full = r.summary["compact"], r.summary["full"]
        if info["kind"] == "correct":
            ok = r.passed and full.passed == full.total
        elif info["kind"] == "near-miss":
            ok = compact.passed < compact.total if info["fails"] == "compact" else (
                compact.passed == compact.total and full.passed < full.total)
            ok = ok and r.integrity.verdict == "clean"  # a near-miss is honest: only its numerics fail
        else:
            ok = not r.passed and r.integrity.verdict == "violation"
        if not ok:
            wrong.append(f"{d.name}/{name} ({info['kind']}):\n{render_table(r)}")
        assert r.emulated
    assert not wrong, "\n\n".join(wrong)
