"""Starter rules for AscendC near-misses (C++: the kernel and its host tiling), whatever the variables are called.

What LLM-written AscendC gets wrong while still compiling and running: the work split (the block count given to
SetBlockDim and the divisor of each core's share disagree; a share rounded down; the tail tile skipped on some
core; a loop that stops after the first tile or counts tiles before the double-buffer split), the data movement
(DataCopy with a length that is not a multiple of 32 bytes where DataCopyPad is needed; a global buffer without
the core's offset; a buffer sized in elements where InitBuffer takes bytes), the queue protocol (a tensor
enqueued before it is written, freed before its last use) and the arithmetic (an accumulator that does not start
at the reduction's identity; exp without the max shift). Each rule keys on what the code does (which value
SetBlockDim launches and which one comes from the core count, what a tensor is declared as, which statements use
a tensor, whether a condition reads the core index), not on the names the suites use
(ingest.rules.facts_cpp reads those facts).
"""
from __future__ import annotations

from ingest.rules.model import Fact, MetaConstraint, Rule

LANG = "cpp"
_NUMBER = MetaConstraint(kind="number")
_ZERO_RX = r"^[\s(]*(\([\w ]+\))?[\s(]*0(\.0*)?[fFuUlL]*[\s)]*$"  # 0, 0.0f, (float)0, (half)(0)
_NOT_ZERO = MetaConstraint(not_regex=_ZERO_RX)
_LOWEST = "-3.40282347e+38f"  # the float lowest: the identity of a max (INFINITY is not in every AscendC toolchain)
_HIGHEST = "3.40282347e+38f"


def rule(id: str, bug_class: str, pattern: str, rewrite: str, **kw) -> Rule:
    """An AscendC starter rule, named starter/<bug class>/ascendc-<id>."""
    if bug_class == "reduction-init":
        kw.setdefault("context", "kernel")  # an accumulator is the kernel's (a host's `n += 1` is arithmetic)
    return Rule(id=f"starter/{bug_class}/ascendc-{id}", bug_class=bug_class, language=LANG, pattern=pattern,
                rewrite=rewrite, **kw)


# -- the work split ---------------------------------------------------------------------------------

_CORE_COUNT = [f"$TY $C = {call};" for call in (
    "$P.GetCoreNumAiv()", "$P->GetCoreNumAiv()", "$P.GetCoreNum()", "$P->GetCoreNum()", "$P.GetCoreNumAic()",
    "$P->GetCoreNumAic()", "$P::GetInstance()->GetCoreNumAiv()", "$P::GetInstance()->GetCoreNum()")]
_LAUNCHED = ["$X->SetBlockDim($D)", "$X.SetBlockDim($D)"]


def wrong_core_count() -> tuple:
    """The share each core computes divides by the chip's core count while SetBlockDim launches a different number."""
    c = "wrong-core-count"
    out = []
    for launch in _LAUNCHED:
        tag = "ptr" if "->" in launch else "ref"
        out += [
            rule(f"ceil-share-{tag}", c, "($N + $C - 1) / $C", "($N + $D - 1) / $D", requires=[launch],
                 requires_any=_CORE_COUNT, where={"D": MetaConstraint(kind="identifier")},
                 title="each core's share is split over every core of the chip, not over the blocks launched"),
            rule(f"floor-share-{tag}", c, "$N / $C", "($N + $D - 1) / $D", requires=[launch], requires_any=_CORE_COUNT,
                 where={"D": MetaConstraint(kind="identifier"), "C": MetaConstraint(kind="identifier"),
                        "N": MetaConstraint(not_regex=r"-\s*1\s*\)$")},
                 title="each core's share is split over every core of the chip, not over the blocks launched"),
            rule(f"ceil-helper-{tag}", c, "$F($N, $C)", "$F($N, $D)", requires=[launch], requires_any=_CORE_COUNT,
                 where={"D": MetaConstraint(kind="identifier"), "F": MetaConstraint(regex=r"(?i)ceil|div_?up")},
                 title="each core's share is split over every core of the chip, not over the blocks launched"),
            rule(f"launch-all-{tag}", c, launch, launch.replace("$D", "$C"), requires=["($_ + $C - 1) / $C"],
                 requires_any=_CORE_COUNT, where={"D": MetaConstraint(kind="identifier")},
                 title="fewer blocks are launched than the cores each core's share was split over"),
        ]
    return tuple(out)


def tail_tile_dropped() -> tuple:
    """The remainder is never processed: the tail tile is guarded by a condition on the core index (so some core
    skips it), or each core's share is the work divided by the blocks launched, rounded down."""
    c = "tail-tile-dropped"
    core = {"_B": Fact(fact="cpp-core-index", of="B"), "_A": Fact(fact="cpp-core-index", of="A", args={"negate": True})}
    out = [
        rule("guard-after", c, "if ($A && $B) $S", "if ($A) $S", derive=core,
             title="the tail tile is processed only on some cores (a core-index test guards it)"),
        rule("guard-before", c, "if ($B && $A) $S", "if ($A) $S", derive=core,
             title="the tail tile is processed only on some cores (a core-index test guards it)"),
    ]
    for launch in _LAUNCHED:
        tag = "ptr" if "->" in launch else "ref"
        # a share whose remainder the tiling hands out itself (`tail = n % d`: big and small cores) is right
        out.append(rule(f"floor-share-{tag}", c, "$TY $S = $N / $D;", "$TY $S = ($N + $D - 1) / $D;",
                        requires=[launch], forbids=["$N % $D", "($N) % $D"],
                        where={"D": MetaConstraint(kind="identifier"), "N": MetaConstraint(not_regex=r"-\s*1\s*\)$")},
                        title="each core's share rounds down, so the remainder of the division is never processed"))
    return tuple(out)


def tile_loop_bound() -> tuple:
    """The tile loop is capped (only the first tile runs) or counts tiles of another size than the ones copied."""
    c = "tile-loop-bound"
    return (
        rule("capped-after", c, "for ($D $I = $S; $I < $N && $I < $K; $U) $B", "for ($D $I = $S; $I < $N; $U) $B",
             where={"K": _NUMBER}, title="the tile loop also stops after a constant number of tiles"),
        rule("capped-before", c, "for ($D $I = $S; $I < $K && $I < $N; $U) $B", "for ($D $I = $S; $I < $N; $U) $B",
             where={"K": _NUMBER}, title="the tile loop also stops after a constant number of tiles"),
        rule("capped-after-assign", c, "for ($I = $S; $I < $N && $I < $K; $U) $B", "for ($I = $S; $I < $N; $U) $B",
             where={"K": _NUMBER}, title="the tile loop also stops after a constant number of tiles"),
        rule("capped-min", c, "for ($D $I = $S; $I < $M($N, $K); $U) $B", "for ($D $I = $S; $I < $N; $U) $B",
             where={"K": _NUMBER, "M": MetaConstraint(regex=r"^(std::|AscendC::)?min$")},
             title="the tile loop also stops after a constant number of tiles"),
        rule("buffer-num", c, "for ($D $I = 0; $I < $T; $U) $S", "for ($D $I = 0; $I < $T * $BN; $U) $S",
             derive={"BN": Fact(fact="cpp-split-factor", of="T")},
             title="the loop counts tiles before the double-buffer split, so half of each core's share is skipped"),
    )


# -- data movement --------------------------------------------------------------------------------------

_EXT = "DataCopyExtParams{{1, static_cast<uint32_t>(({n}) * sizeof({t})), 0, 0, 0}}"
_PAD = "DataCopyPadExtParams<{t}>{{false, 0, 0, 0}}"


def unaligned_datacopy() -> tuple:
    """DataCopy between global and local memory moves whole 32-byte blocks: a length that is not a multiple of 32
    bytes reads or writes the wrong elements; DataCopyPad takes a byte length."""
    c = "unaligned-datacopy"
    local = {"T": Fact(fact="cpp-tensor", of="L", args={"template": "LocalTensor"})}
    out = []
    for form, gm in (("indexed", "$G[$O]"), ("whole", "$G")):
        glob = {"_G": Fact(fact="cpp-tensor", of="G", args={"template": "GlobalTensor"})}
        out += [
            rule(f"copy-in-{form}", c, f"DataCopy($L, {gm}, $N)",
                 f"DataCopyPad($L, {gm}, {_EXT.format(n='$N', t='$T')}, {_PAD.format(t='$T')})",
                 derive={**local, **glob},
                 title="copy-in with DataCopy, whose length must be a multiple of 32 bytes"),
            rule(f"copy-out-{form}", c, f"DataCopy({gm}, $L, $N)",
                 f"DataCopyPad({gm}, $L, {_EXT.format(n='$N', t='$T')})", derive={**local, **glob},
                 title="copy-out with DataCopy, whose length must be a multiple of 32 bytes"),
        ]
    return tuple(out)


def missing_block_offset() -> tuple:
    """One global buffer is set without the core's offset the others add, so every core reads (or writes) the
    first core's share."""
    c = "missing-block-offset"
    out = []
    for form, ptr in (("cast", "($PT)$P"), ("reinterpret", "reinterpret_cast<$PT>($P)")):
        for other in ("$H.SetGlobalBuffer(($PT2)$P2 + $OFF, $LEN)",
                      "$H.SetGlobalBuffer(reinterpret_cast<$PT2>($P2) + $OFF, $LEN)"):
            # a peer with the same per-core length adds an offset this one lacks (a bias or a weight read whole
            # by every core has another length)
            out.append(rule(f"{form}-{'reinterpret' if 'reinterpret' in other else 'cast'}-peer", c,
                            f"$G.SetGlobalBuffer({ptr}, $LEN)", f"$G.SetGlobalBuffer({ptr} + $OFF, $LEN)",
                            requires=[other],
                            title="a global buffer misses the core's offset the other buffers add"))
    return tuple(out)


# -- the queue protocol ---------------------------------------------------------------------------------

def queue_out_of_order() -> tuple:
    """EnQue hands a tensor to the next stage and FreeTensor returns it to its queue: both must follow the last
    statement that writes or reads it."""
    c = "queue-out-of-order"
    enque_until = r"\bDeQue\b"  # the next stage takes it back: later uses are the next stage's
    free_until = r"(^|[;{])\s*(\w+\s*<[^;]*>\s*)?$NAME\s*=[^=]"  # the name is bound to another tensor
    out = []
    for form, pattern in (("enque", "$Q.EnQue($Y);"), ("enque-typed", "$Q.EnQue<$T>($Y);")):
        out.append(rule(f"{form}-before-write", c, pattern, pattern,
                        derive={"_M": Fact(fact="cpp-last-use", of="Y", args={"until": enque_until})},
                        title="a tensor is enqueued for the next stage before the statements that write it"))
    out.append(rule("free-before-use", c, "$Q.FreeTensor($Y);", "$Q.FreeTensor($Y);",
                    derive={"_M": Fact(fact="cpp-last-use", of="Y", args={"until": free_until})},
                    title="a tensor is freed back to its queue before its last use"))
    return tuple(out)


# -- arithmetic -----------------------------------------------------------------------------------------

_SUMS = ["$ACC += $_;", "$ACC = $ACC + $_;", "$ACC = $_ + $ACC;"]
_MAXES = ["$ACC = $_ > $ACC ? $_ : $ACC;", "$ACC = $ACC > $_ ? $ACC : $_;", "$ACC = max($ACC, $_);",
          "$ACC = std::max($ACC, $_);", "$ACC = $ACC < $_ ? $_ : $ACC;", "if ($_ > $ACC) { $$$ }"]
_MINS = ["$ACC = $_ < $ACC ? $_ : $ACC;", "$ACC = $ACC < $_ ? $ACC : $_;", "$ACC = min($ACC, $_);",
         "$ACC = std::min($ACC, $_);", "$ACC = $ACC > $_ ? $_ : $ACC;", "if ($_ < $ACC) { $$$ }"]
_VMAX = ["Max($ACC, $ACC, $_, $_)", "Max($ACC, $_, $ACC, $_)"]
_VMIN = ["Min($ACC, $ACC, $_, $_)", "Min($ACC, $_, $ACC, $_)"]
_VSUM = ["Add($ACC, $ACC, $_, $_)", "Add($ACC, $_, $ACC, $_)"]


def reduction_init() -> tuple:
    """A running sum, max or min starts from something other than its identity (0, lowest, highest)."""
    c = "reduction-init"
    out = [
        rule("scalar-sum", c, "$TY $ACC = $E;", "$TY $ACC = 0;", where={"E": _NOT_ZERO},
             requires_any=_SUMS, forbids=_MAXES + _MINS,
             title="a running sum starts from a value other than 0"),
        rule("scalar-max", c, "$TY $ACC = $E;", f"$TY $ACC = {_LOWEST};",
             where={"E": MetaConstraint(not_regex=r"3\.4028\d*e\+?38|FLT_MAX|INFINITY|numeric_limits")},
             requires_any=_MAXES, forbids=_SUMS + _MINS, title="a running max starts above the lowest value"),
        rule("scalar-min", c, "$TY $ACC = $E;", f"$TY $ACC = {_HIGHEST};",
             where={"E": MetaConstraint(not_regex=r"3\.4028\d*e\+?38|FLT_MAX|INFINITY|numeric_limits")},
             requires_any=_MINS, forbids=_SUMS + _MAXES, title="a running min starts below the highest value"),
        rule("duplicate-max", c, "Duplicate($ACC, $E, $N)", f"Duplicate($ACC, {_LOWEST}, $N)",
             where={"E": MetaConstraint(not_regex=r"-\s*3\.4028\d*e\+?38|FLT_MAX|INFINITY|numeric_limits")},
             requires_any=_VMAX, forbids=_VSUM + _VMIN,
             title="a vector running max is filled with a value above the lowest"),
        rule("duplicate-sum", c, "Duplicate($ACC, $E, $N)", "Duplicate($ACC, 0.0f, $N)", where={"E": _NOT_ZERO},
             requires_any=_VSUM, forbids=_VMAX + _VMIN, title="a vector running sum is filled with a non-zero value"),
    ]
    # a TBuf scratch tensor that is read-modify-written (a queue's tensors are written before they are read)
    decl = "LocalTensor<$T> $ACC = $B.Get<$T>();"
    for op, reads in (("sum", _VSUM), ("max", _VMAX)):
        fill = "0" if op == "sum" else _LOWEST
        out.append(rule(f"missing-duplicate-{op}-get", c, decl, f"{decl}\nDuplicate($ACC, ($T)({fill}), $N);",
                        requires=[reads[0].replace("$_)", "$N)")],
                        forbids=["Duplicate($ACC, $$$)"] + [p for p in _VSUM + _VMAX + _VMIN if p not in reads],
                        title=f"a vector running {op} is never filled with its identity"))
    return tuple(out)


def buffer_bytes() -> tuple:
    """InitBuffer takes a length in bytes; a length in elements makes the buffer a quarter (float) too small."""
    c = "buffer-bytes"
    return (
        rule("elements", c, "$P.InitBuffer($Q, $NB, $LEN)", "$P.InitBuffer($Q, $NB, ($LEN) * sizeof($T))",
             where={"LEN": MetaConstraint(not_regex=r"sizeof|\d+\s*\*|\*\s*\d+|^\d+$")},
             derive={"_E": Fact(fact="cpp-element-count", of="LEN"), "T": Fact(fact="cpp-queue-type", of="Q")},
             title="a queue buffer is sized in elements where InitBuffer takes bytes"),
    )


def missing_max_subtraction() -> tuple:
    """Exp of a row that was never shifted by its max overflows to inf for large inputs (inf / inf = nan)."""
    c = "missing-max-subtraction"
    shift = """ReduceMax($W, $X, $TMP, $N);
event_t shiftEvt_ = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
SetFlag<HardEvent::V_S>(shiftEvt_);
WaitFlag<HardEvent::V_S>(shiftEvt_);
$T shiftMax_ = $W.GetValue(0);
Adds($X, $X, ($T)(-shiftMax_), $N);
"""
    return (
        rule("row", c, "Exp($Y, $X, $N);", shift + "Exp($Y, $X, $N);",
             requires=["ReduceSum($W, $_, $TMP, $_)"], forbids=["ReduceMax($$$)", "Max($$$)"],
             derive={"T": Fact(fact="cpp-tensor", of="X", args={"template": "LocalTensor"})},
             title="exp of a row not shifted by its max overflows for large inputs"),
    )
