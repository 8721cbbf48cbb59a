"""The rules' own development set (tests/repair/rules/data/dev): well-formed, and the harness agrees with its labels.

These operators and near-misses were written for developing the starter rules (never taken from the
held-out suite): each correct kernel passes both tiers, each near-miss fails as its meta.yaml says.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

DEV = Path(__file__).resolve().parent / "data" / "dev"
OP_DIRS = sorted(p.parent for p in DEV.glob("*/meta.yaml"))


def candidates():
    for d in OP_DIRS:
        for name, info in yaml.safe_load((d / "meta.yaml").read_text())["candidates"].items():
            yield d, name, info


CANDIDATES = [pytest.param(d, n, i, id=f"{d.name}/{n}") for d, n, i in candidates()]


def test_every_operator_is_complete():
    assert len(OP_DIRS) >= 10
    for d in OP_DIRS:
        meta = yaml.safe_load((d / "meta.yaml").read_text())
        assert (d / "problem.py").is_file() and meta["candidates"].get("correct.py") == {"kind": "correct"}
        listed = set(meta["candidates"])
        assert listed == {p.name for p in d.glob("*.py")} - {"problem.py"}, d.name
        for name, info in meta["candidates"].items():
            if info["kind"] == "near-miss":
                assert info["expected"] in ("compact", "full-only") and info["bug_class"], (d.name, name)


@pytest.mark.slow
@pytest.mark.parametrize("op_dir,name,info", CANDIDATES)
def test_harness_agrees_with_label(op_dir: Path, name: str, info: dict):
    from repair.engine.harness import evaluate

    result = evaluate(op_dir / "problem.py", op_dir / name, tier="full", seed=0)
    compact, full = result.summary["compact"], result.summary["full"]
    statuses = {c.case_id: (c.status, c.message[-200:]) for c in result.cases}
    assert result.integrity.findings == [], result.integrity.findings
    if info["kind"] == "correct":
        assert compact.passed == compact.total and full.passed == full.total, statuses
    elif info["expected"] == "full-only":
        assert compact.passed == compact.total, statuses
        assert full.passed < full.total, statuses
    else:
        assert compact.passed < compact.total, statuses
