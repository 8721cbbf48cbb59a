"""How parallel a forward's kernel launches are, and whether a repair shrank that: the parallelism guard.

On the CPU backends a kernel's time says nothing about its speed on the device it was written for, but what it
asks the device for does: how many programs its grid launches, how many elements each program works on at once
(the product of its block-size constexprs) and its `num_warps`. A repair that makes a near-miss correct by
serialising it (a grid of one program, `BLOCK_SIZE` 1, `num_warps` 1) asks for much less; this module records
the figures per launch (repair.integrity.launchshape, in the sandboxed candidate process) and compares two forwards.

Figures are capped by the work there is: a launch's programs count as many as could each have an element of the
largest tensor it was handed (an over-launched grid, most programs masked off, is not more parallel than the one
its repair launches), and a program's elements as at most that tensor's.
"""
from __future__ import annotations

import math

PARALLELISM_FACTOR = 4.0  # a repair may cut any figure by up to this factor before it is flagged
DEFAULT_WARPS = 4  # Triton's num_warps when a launch names none

def forward_figures(shapes: list[dict]) -> dict | None:
    """A forward's parallelism from its launches' shapes: programs (summed over launches, each capped by its
    work), elements per program and warps (means over those programs); None without a launch that gave one."""
    total = per = warps = 0.0
    work_max = 0
    for s in shapes:
        work = s.get("elements") or 0
        work_max = max(work_max, work)
        each = min(s["per_program"], work) if work else s["per_program"]
        programs = min(s["programs"], math.ceil(work / each)) if work and each else s["programs"]
        programs *= s.get("count", 1)
        total += programs
        per += programs * each
        warps += programs * (s.get("num_warps") or DEFAULT_WARPS)
    if not shapes or total <= 0:
        return None
    return {"launches": sum(s.get("count", 1) for s in shapes), "programs": int(total), "per_program": round(per / total, 2),
            "num_warps": round(warps / total, 2), "elements": work_max}


def eval_figures(result) -> dict[str, dict]:
    """Each case's figures ({case_id: figures}) from an evaluation's guard logs (cases without launches left out)."""
    return eval_figures_of(getattr(result, "cases", None) or [])


def eval_figures_of(cases) -> dict[str, dict]:
    out = {}
    for case in cases:
        shapes = (case.guard_log or {}).get("shapes") if case.guard_log else None
        figures = forward_figures(shapes) if shapes else None
        if figures is not None:
            out[case.case_id] = figures
    return out


MEASURES = ("programs", "per_program", "num_warps")


def compare_parallelism(before: dict[str, dict], after: dict[str, dict],
                        factor: float = PARALLELISM_FACTOR) -> dict | None:
    """Whether `after` (an attempt's case figures) shrank `before`'s (the near-miss's) by more than `factor` on any
    measure, on the cases both ran: the worst shrink, its case and measure; None when no case is common."""
    common = [c for c in before if c in after]
    if not common:
        return None
    worst = {"ratio": 1.0, "case": common[0], "measure": "programs"}
    for c in common:
        for m in MEASURES:
            b, a = before[c].get(m) or 0, after[c].get(m) or 0
            ratio = b / a if a > 0 else (math.inf if b > 0 else 1.0)
            if ratio > worst["ratio"]:
                worst = {"ratio": ratio, "case": c, "measure": m}
    c, m = worst["case"], worst["measure"]
    flagged = worst["ratio"] > factor
    return {"flagged": flagged, "factor": factor, "measure": m, "case": c,
            "ratio": round(worst["ratio"], 2) if math.isfinite(worst["ratio"]) else None,
            "near_miss": before[c], "attempt": after[c],
            "message": (f"parallelism shrank: {_label(m)} {_fmt(before[c][m])} -> {_fmt(after[c][m])} on case {c} "
                        f"(more than {factor:g}x fewer)") if flagged else ""}


def _label(measure: str) -> str:
    return {"programs": "programs", "per_program": "elements per program", "num_warps": "warps"}[measure]


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def parallelism_summary(figures: dict[str, dict]) -> dict | None:
    """An evaluation's figures in a record: its largest case (the most elements handed to a launch)."""
    if not figures:
        return None
    case = max(figures, key=lambda c: (figures[c].get("elements", 0), figures[c]["programs"]))
    return {"case": case, **figures[case]}
