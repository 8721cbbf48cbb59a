"""The derived tiers do their job on triton-cpu: a correct Triton candidate passes every case; one with a tail bug
passes the compact tier (tidy sizes, like upstream's) and fails the full tier (odd sizes, tails). What a case may
cost is a work bound (elements and FLOPs within CPU_BUDGET: test_kernelbench_import); how long the slowest case takes
is bench/bench_kernelbench.py's `slowest` column (target: under 5 s), not something a test reads off the clock."""
from __future__ import annotations

from pathlib import Path

import pytest

from kernelbench_fixtures import CANDIDATES

pytestmark = pytest.mark.slow


def _pairs(out: Path, kind: str) -> list[tuple[Path, Path]]:
    return [(out / d.name / "problem.py", d / f"{kind}.py") for d in sorted(CANDIDATES.iterdir())
            if (d / f"{kind}.py").is_file()]


def test_a_correct_candidate_passes_every_case(imported):
    from repair.harness import evaluate_many

    out = imported[0]
    pairs = _pairs(out, "correct")
    assert len(pairs) == 6  # activation, softmax, reduction, norm, matmul, conv
    for (problem, cand), r in zip(pairs, evaluate_many(pairs, tier="full", backend="triton-cpu", seed=1)):
        assert r.passed, (problem.parent.name, [(c.params.get("variant"), c.status) for c in r.failing_cases()])
        assert len(r.cases) >= 3 and {c.tier for c in r.cases} == {"compact", "full"}, problem.parent.name


def test_a_tail_bug_passes_the_compact_tier_and_fails_the_full_tier(imported):
    from repair.engine import render_table
    from repair.harness import evaluate_many

    out = imported[0]
    pairs = _pairs(out, "tail")
    assert len(pairs) == 5
    for (problem, cand), r in zip(pairs, evaluate_many(pairs, tier="full", backend="triton-cpu", seed=1)):
        name = problem.parent.name
        assert r.tolerance == {"atol": 1e-2, "rtol": 1e-2}, name  # KernelBench's own check, carried by the import
        text = render_table(r)
        assert "tolerance atol=0.01 rtol=0.01 (its TOLERANCE)" in text
        # 100 columns, but for a path longer than that, which stays whole on a line of its own
        assert all(len(ln) <= 100 for ln in text.splitlines() if not ln.startswith("  candidate ")), text
        assert r.summary["compact"].passed == r.summary["compact"].total == 1, name
        failed = {c.params["variant"] for c in r.failing_cases()}
        assert "odd" in failed and "past-pow2" in failed and "strided" not in failed, (name, failed)
