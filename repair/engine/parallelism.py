"""How parallel a forward's kernel launches are, and whether a repair shrank that: the parallelism guard.

On the CPU backends a kernel's time says nothing about its speed on the device it was written for, but what it
asks the device for does: how many programs its grid launches, how many elements each program works on at once
(the product of its block-size constexprs) and its `num_warps`. A repair that makes a near-miss correct by
serialising it (a grid of one program, `BLOCK_SIZE` 1, `num_warps` 1) asks for much less; this module records
the figures per launch (inside the sandboxed candidate process, no pydantic here) and compares two forwards.

Figures are capped by the work there is: a launch's programs count as many as could each have an element of the
largest tensor it was handed (an over-launched grid, most programs masked off, is not more parallel than the one
its repair launches), and a program's elements as at most that tensor's.
"""
from __future__ import annotations

import inspect
import math
import re

DEFAULT_FACTOR = 4.0  # a repair may cut any figure by up to this factor before it is flagged
MAX_SHAPES = 32  # distinct launch shapes kept per forward in the guard log (repeats of one are counted)
DEFAULT_WARPS = 4  # Triton's num_warps when a launch names none

# constexpr parameters that size a program's tile: BLOCK_SIZE, BLOCK_M, XBLOCK, TILE_N, ... (not GROUP_SIZE_M,
# NUM_STAGES or other counts, which say how tiles are ordered, not how big they are)
_BLOCK_NAME = re.compile(r"BLOCK|TILE|CHUNK|^[XYZR]?BLOCK|_SIZE$|^SIZE$", re.IGNORECASE)
_NOT_BLOCK = re.compile(r"GROUP|NUM|STAGE|WARP", re.IGNORECASE)


def _function(kernel):
    """The Python function under a launched kernel (JITFunction, InterpretedFunction, an autotuner's fn chain)."""
    fn = getattr(kernel, "fn", None)
    for _ in range(8):
        if fn is None or inspect.isfunction(fn):
            break
        fn = getattr(fn, "fn", None)
    return fn if inspect.isfunction(fn) else None


def _numel(v) -> int:
    n = getattr(v, "numel", None)
    try:
        return int(n()) if callable(n) else 0
    except Exception:  # noqa: BLE001  (a tensor-like of the candidate's own making)
        return 0


def launch_shape(kernel, args: tuple, kwargs: dict) -> dict | None:
    """One launch's grid, block constexprs and warps, as the launch asked (None where it names no grid)."""
    fn = _function(kernel)
    if fn is None or "grid" not in kwargs:
        return None
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    bound = {p.name: p.default for p in params.values() if p.default is not inspect.Parameter.empty}
    bound.update(zip(params, args))
    bound.update((k, v) for k, v in kwargs.items() if k in params)
    grid = kwargs["grid"]
    try:
        grid = grid(dict(bound, **{k: v for k, v in kwargs.items() if k != "grid"})) if callable(grid) else grid
        grid = [int(g) for g in (grid if isinstance(grid, (tuple, list)) else (grid,))][:3]
    except Exception:  # noqa: BLE001  (the candidate's grid function failed here: the launch itself will say)
        return None
    blocks = {}
    for name, p in params.items():
        if "constexpr" in str(p.annotation) and _BLOCK_NAME.search(name) and not _NOT_BLOCK.search(name):
            v = bound.get(name)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                blocks[name] = v
    elements = max([_numel(v) for v in (*args, *kwargs.values())] or [0])
    warps, stages = kwargs.get("num_warps"), kwargs.get("num_stages")
    return {"kernel": getattr(fn, "__name__", "?"), "grid": grid, "programs": math.prod(grid),
            "blocks": blocks, "per_program": math.prod(blocks.values()), "elements": elements,
            "num_warps": warps if isinstance(warps, int) else None,
            "num_stages": stages if isinstance(stages, int) else None}


def add_shape(shapes: list[dict], shape: dict) -> None:
    """Append a launch's shape to a forward's list; a repeat of the last one (a launch in a loop) counts there.
    Past MAX_SHAPES distinct shapes the rest are not recorded (the figures then cover the first ones)."""
    if shapes and {k: v for k, v in shapes[-1].items() if k != "count"} == shape:
        shapes[-1]["count"] = shapes[-1].get("count", 1) + 1
    elif len(shapes) < MAX_SHAPES:
        shapes.append(shape)


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


def compare(before: dict[str, dict], after: dict[str, dict], factor: float = DEFAULT_FACTOR) -> dict | None:
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


def summary(figures: dict[str, dict]) -> dict | None:
    """An evaluation's figures in a record: its largest case (the most elements handed to a launch)."""
    if not figures:
        return None
    case = max(figures, key=lambda c: (figures[c].get("elements", 0), figures[c]["programs"]))
    return {"case": case, **figures[case]}
