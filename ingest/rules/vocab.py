"""What Triton code means, as patterns: the sinks a value can reach (reductions, exp, masks, loop bounds, grids, pointers).

Rules over meaning name these instead of one spelling: "the masked load reaches a max" is a flow whose
sinks are every way a kernel takes a max. A sink pattern's `$SINK` is the part the value must reach.
CATEGORIES names them for distillation, which learns which of them a fixed site reaches.
"""
from __future__ import annotations

NEG_INF = '-float("inf")'
POS_INF = 'float("inf")'


def _calls(*names: str) -> list[str]:
    """The first argument of each call, with or without more arguments."""
    return [p for n in names for p in (f"{n}($SINK)", f"{n}($SINK, $$$)")]


# reductions and the running (elementwise, loop-carried) forms of them
MAX = [*_calls("tl.max", "tl.argmax"), "$A_ = tl.maximum($A_, $SINK)", "$A_ = tl.maximum($SINK, $A_)"]
MIN = [*_calls("tl.min", "tl.argmin"), "$A_ = tl.minimum($A_, $SINK)", "$A_ = tl.minimum($SINK, $A_)"]
SUM = [*_calls("tl.sum", "tl.cumsum", "tl.dot"), "tl.dot($_, $SINK)", "tl.dot($_, $SINK, $$$)", "$_ += $SINK",
       "$A_ = $A_ + $SINK", "$A_ = $SINK + $A_", "tl.atomic_add($_, $SINK)", "tl.atomic_add($_, $SINK, $$$)"]
PROD = ["$_ *= $SINK", "$A_ = $A_ * $SINK"]
EXP = [*_calls("tl.exp", "tl.exp2", "tl.math.exp", "tl.math.exp2", "libdevice.exp")]
# the accumulator itself (not the added term) of a running sum or dot
ACC_SUM = ["$SINK += $_", "$SINK = $SINK + $_", "$SINK = $_ + $SINK", "tl.dot($_, $_, $SINK)",
           "tl.dot($_, $_, acc=$SINK)", "tl.dot($_, $_, $SINK, $$$)"]
# masks of memory accesses (keyword or positional)
MASK = ["tl.load($_, mask=$SINK)", "tl.load($_, mask=$SINK, $$$)", "tl.load($_, $SINK)", "tl.load($_, $SINK, $$$)",
        "tl.store($_, $_, mask=$SINK)", "tl.store($_, $_, mask=$SINK, $$$)", "tl.store($_, $_, $SINK)",
        "tl.store($_, $_, $SINK, $$$)", "tl.atomic_add($_, $_, mask=$SINK)", "tl.atomic_add($_, $_, mask=$SINK, $$$)"]
# the stop of a loop (range, tl.range, tl.static_range), and a launch grid
_RANGES = ("range", "tl.range", "tl.static_range")
LOOP_STOP = [p for r in _RANGES for p in (f"{r}($SINK)", f"{r}($_, $SINK)", f"{r}($_, $SINK, $$$)")]
GRID = ["$_K[$SINK]($$$)"]
WHILE = ["while $SINK: $$$"]
# a value divided (mean, variance, normalisation)
DIVIDED = ["$SINK / $_"]
SQUARES = ["tl.sum($X * $X)", "tl.sum($X * $X, $$$)", "tl.sum($X ** 2)", "tl.sum($X ** 2, $$$)",
           "$_ += $X * $X", "$_ += $X ** 2"]
POINTER = ["tl.load($SINK)", "tl.load($SINK, $$$)", "tl.store($SINK, $$$)", "tl.atomic_add($SINK, $$$)"]

# name -> (sinks, then): what a fixed site's value may be learned to reach, the most telling first
CATEGORIES: dict[str, tuple[list[str], list[str]]] = {
    "loop-stop": (LOOP_STOP, []), "grid": (GRID, []), "max": (MAX, []), "min": (MIN, []), "exp-sum": (EXP, SUM),
    "divided": (DIVIDED, []), "mask": (MASK, []), "sum": (SUM, []), "pointer": (POINTER, []),
}
