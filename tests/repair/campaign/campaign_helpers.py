"""Shared by the campaign tests (a unique module name: tests/ are not packages)."""
from pathlib import Path

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[3]


def outcome_facts(o) -> dict:
    """What must not depend on the executor, the machine or the clock."""
    return {
        "status": o.status, "stop_reason": o.stop_reason, "attempts": o.attempts, "turns": o.turns,
        "tokens": (o.prompt_tokens, o.completion_tokens, o.cached_tokens),
        "gates": (o.workflow_accepted, o.integrity_rejected, o.full_rejected, o.gate_rejected),
        "findings": sorted({(f.attempt, f.rule) for f in o.findings}),
        "attempt_outcomes": [a.outcome for a in o.attempt_rows],
    }


# The mini campaign (tests/repair/campaign/data: mini.yaml, scripts/, --max-attempts 1), counted by hand.
EXPECTED = {
    "add_relu/nearmiss_1": {
        "status": "repaired", "stop_reason": "repaired", "attempts": 1, "turns": 1, "tokens": (1000, 200, 400),
        # the near-miss passes the compact tier; on a full case smaller than a block its grid is empty, so
        # its output stays unwritten (the full tier rejects it; an empty launch is no integrity finding);
        # the fix passes
        "gates": (2, 0, 1, 1), "findings": [], "attempt_outcomes": ["accepted"],
    },
    "leaky_relu/nearmiss_1": {
        "status": "failed", "stop_reason": "attempts", "attempts": 1, "turns": 1, "tokens": (800, 100, 0),
        # the near-miss fails the full tier; the cheat would pass the compact tier but the gate rejects it
        "gates": (2, 1, 1, 2),
        "findings": [(1, "runtime.framework-compute"), (1, "runtime.output-not-from-kernel"), (1, "static.framework-compute")],
        "attempt_outcomes": ["integrity-violation"],
    },
}
