"""What one Triton launch asks the device for: its grid, block-size constexprs and warps (recorded by the runtime
guard inside the sandboxed candidate process; no pydantic here). repair.engine.parallelism turns a forward's
launches into figures and compares two forwards."""
from __future__ import annotations

import inspect
import math
import re

MAX_SHAPES = 32  # distinct launch shapes kept per forward in the guard log (repeats of one are counted)

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
