"""Starter rules for counts that stop one block short: loop bounds and launch grids, whatever they are called.

A floor division is a bug where its value reaches a loop's stop or a launch grid (directly, through a
variable, or through a grid lambda); a chunk loop whose stop is the count less one block drops the tail.
"""
from __future__ import annotations

from ingest.rules.model import MetaConstraint
from repair.rules.vocab import GRID, LOOP_STOP, WHILE, flow, rule

# (n + BLOCK - 1) // BLOCK already rounds up; leave it alone
# (n + BLOCK - 1) // BLOCK already rounds up, and n // 2 halves a size (a block count divides by a block size)
_ROUNDED = {"N": MetaConstraint(not_regex=r"-\s*1\s*\)?\s*$"), "B": MetaConstraint(not_regex=r"^[1-9]$")}
_NO_PLUS = {"N": MetaConstraint(not_regex=r"\+")}
_RANGES = ("range", "tl.range")
_PLUS_ONE = ["$_ // $_ + 1"]  # n // BLOCK + 1 over-launches (masked): not short


def loop_tail() -> tuple:
    c = "loop-tail"
    stop = [flow(sink=LOOP_STOP)]
    out = [
        rule("floor-div", c, "$N // $B", "tl.cdiv($N, $B)", context="kernel", where=_ROUNDED, flows=stop,
             title="block-count loop bound rounds down and skips the tail block"),
        rule("int-div", c, "int($N / $B)", "tl.cdiv($N, $B)", context="kernel", flows=stop,
             title="block-count loop bound rounds down and skips the tail block"),
        rule("minus-one", c, "$N - 1", "$N", context="kernel", flows=stop,
             where={"N": MetaConstraint(not_regex=r"[-+]")},
             title="loop stops one element short"),
        rule("minus-remainder", c, "$N - $N % $B", "$N", context="kernel", flows=stop,
             title="loop stop is rounded down to a whole number of blocks"),
        rule("host-floor-div", c, "$N // $B", "triton.cdiv($N, $B)", context="host", where=_ROUNDED, flows=stop,
             not_inside=_PLUS_ONE, title="the block count the kernel loops over is rounded down on the host"),
        rule("while-whole-block", c, "$I + $B <= $N", "$I < $N", context="kernel", flows=[flow(sink=WHILE)],
             title="while loop runs only while a whole block fits, skipping the tail"),
        rule("while-whole-block-strict", c, "$I + $B < $N", "$I < $N", context="kernel", flows=[flow(sink=WHILE)],
             title="while loop runs only while a whole block fits, skipping the tail"),
    ]
    for r in _RANGES:
        out += [
            rule(f"{r.replace('.', '-')}-minus-block-plus-one", c, f"{r}($S, $N - $B + 1, $B)", f"{r}($S, $N, $B)",
                 context="kernel", title="chunk loop stops before the partial last chunk"),
            rule(f"{r.replace('.', '-')}-minus-block", c, f"{r}($S, $N - $B, $B)", f"{r}($S, $N, $B)",
                 context="kernel", title="chunk loop stops a whole chunk early"),
        ]
    return tuple(out)


def grid_floor_div() -> tuple:
    c = "grid-floor-div"
    grid = [flow(sink=GRID)]
    return (
        rule("floor-div", c, "$N // $B", "triton.cdiv($N, $B)", context="host", where=_ROUNDED, flows=grid,
             not_inside=_PLUS_ONE, title="launch grid rounds the program count down"),
        rule("minus-one", c, "($N - 1) // $B", "triton.cdiv($N, $B)", context="host", where=_NO_PLUS, flows=grid,
             title="launch grid counts (n - 1) // BLOCK programs"),
        rule("int-div", c, "int($N / $B)", "triton.cdiv($N, $B)", context="host", flows=grid,
             title="launch grid truncates n / BLOCK"),
        rule("floor", c, "math.floor($N / $B)", "triton.cdiv($N, $B)", context="host", flows=grid,
             title="launch grid floors n / BLOCK"),
    )
