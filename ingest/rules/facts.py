"""Named facts a rule's `derive` may ask about the program: each binds a metavariable (or only filters) at a match.

A fact answers with options: each option is the text its metavariable stands for, plus edits elsewhere in
the file that the rewrite needs (a kernel parameter added, a launch argument threaded through). No option
means the fact does not hold and the rule does not fire there. Facts read the file through
ingest.rules.program (kernels, launches, constructor) and ingest.rules.flow (what reaches what); this
module holds the registry and the facts about values and masks, ingest.rules.facts_program those about
launches and the constructor.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from ingest.rules.flow import named, reaches, scope_of, span
from ingest.rules.program import Module, arguments, keyword, number, positional

Edit = tuple[int, int, str]


@dataclass(frozen=True)
class Option:
    text: str = ""
    edits: tuple[Edit, ...] = ()


@dataclass
class FactContext:
    source: str
    root: object
    module: Module
    match: object
    env: dict[str, str] = field(default_factory=dict)  # metavariables derived so far
    # the other sources of the same candidate (an AscendC bundle's other C++ files: the host beside the kernel, the
    # tiling header beside the host), for facts that follow a value from one file into another
    companions: tuple[str, ...] = ()

    def node(self, name: str | None):
        if not name:
            return self.match
        return self.match.get_match(name.lstrip("$"))


FACTS: dict[str, Callable[[FactContext, dict], list[Option]]] = {}
PASS = [Option()]


def fact(name: str):
    def register(fn):
        FACTS[name] = fn
        return fn
    return register


def _loads_reaching(ctx: FactContext, target) -> list:
    """Masked tl.load calls whose value reaches the target node."""
    scope = scope_of(target)
    out = []
    for load in scope.find_all(pattern="tl.load($$$)"):
        if mask_of(load) is not None and reaches(scope, [load], [(target, 0)]):
            out.append(load)
    return out


def mask_of(load):
    args = arguments(load)
    mask = keyword(args, "mask")
    if mask is not None:
        return mask
    given = positional(args)
    return given[1] if len(given) > 1 else None


def mask_definition(mask):
    """A mask given by name: the expression it was assigned (the last assignment before the use)."""
    if mask.kind() != "identifier":
        return mask
    scope = scope_of(mask)
    best = None
    for asg in scope.find_all(kind="assignment"):
        left, right = asg.field("left"), asg.field("right")
        if left is not None and right is not None and left.text() == mask.text() and span(asg)[0] < span(mask)[0]:
            best = right
    return best if best is not None else mask


@fact("constexpr")
def _constexpr(ctx: FactContext, args: dict) -> list[Option]:
    """The node is a block size: a tl.constexpr parameter of its kernel, or an all-capitals name."""
    node = ctx.node(args.get("of"))
    text = node.text()
    kernel = ctx.module.kernel_of(node)
    param = kernel.param(text) if kernel is not None else None
    if param is not None:
        return PASS if param.constexpr else []
    return PASS if re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", text) else []


def _axis_of_index(index) -> int | None:
    """The axis an index vector runs along in a 2-D tile: i[:, None] is axis 0, i[None, :] axis 1."""
    text = re.sub(r"\s+", "", index.text())
    if text.endswith("[:,None]"):
        return 0
    if text.endswith("[None,:]"):
        return 1
    return None


def _reduced_axes(target) -> set[int | None]:
    """Axes of the tl.sum reductions whose value reaches the node (None: unknown or 1-D)."""
    scope = scope_of(target)
    axes: set[int | None] = set()
    for call in scope.find_all(pattern="tl.sum($$$)"):
        if not reaches(scope, [call], [(target, 0)]):
            continue
        args = arguments(call)
        axis_node, given = keyword(args, "axis"), positional(args)
        axis = axis_node.text() if axis_node is not None else given[1].text() if len(given) > 1 else None
        axes.add(int(axis) if axis is not None and axis.lstrip("-").isdigit() else None)
    return axes


@fact("mask-bound")
def _mask_bound(ctx: FactContext, args: dict) -> list[Option]:
    """The element count the masks of the loads feeding the node compare against on the reduced axis
    (`offs < N` gives N; in a 2-D tile reduced over axis 0, the bound of the `[:, None]` index)."""
    target = ctx.node(args.get("of"))
    axes = _reduced_axes(target)
    axis = next(iter(axes)) if len(axes) == 1 else None
    bounds: list[str] = []
    for load in _loads_reaching(ctx, target):
        expr = mask_definition(mask_of(load))
        for cmp in [expr, *expr.find_all(kind="comparison_operator")]:
            if cmp.kind() != "comparison_operator":
                continue
            kids = named(cmp)
            ops = [c.text() for c in cmp.children() if not c.is_named()]
            if len(kids) == 2 and ops in (["<"], ["<="]):
                index_axis = _axis_of_index(kids[0])
                if axis is not None and index_axis is not None and index_axis != axis:
                    continue
                bound = kids[1]
                if bound.kind() not in ("integer", "float") and bound.text() not in bounds:
                    bounds.append(bound.text())
    unless = ctx.node(args["unless"]).text() if args.get("unless") else None
    if unless is not None and unless in bounds:
        return []  # already divides by a count the masks use
    return [Option(b) for b in bounds]


@fact("load-mask")
def _load_mask(ctx: FactContext, args: dict) -> list[Option]:
    """The mask of the masked loads whose value reaches the node, as written there."""
    target = ctx.node(args.get("of"))
    masks: list[str] = []
    for load in _loads_reaching(ctx, target):
        m = mask_of(load).text()
        if m not in masks:
            masks.append(m)
    return [Option(m) for m in masks]


@fact("masked-no-other")
def _masked_no_other(ctx: FactContext, args: dict) -> list[Option]:
    """The match is a tl.load with a mask (by keyword or position) and no other= (by keyword or position)."""
    load_args = arguments(ctx.match)
    given = len(positional(load_args))
    has_mask = keyword(load_args, "mask") is not None or given > 1
    has_other = keyword(load_args, "other") is not None or given > 2
    return PASS if has_mask and not has_other else []


@fact("position-only")
def _position_only(ctx: FactContext, args: dict) -> list[Option]:
    """No loaded value reaches the node: it selects lanes by position (a mask), not by data."""
    node = ctx.node(args.get("of"))
    scope = scope_of(node)
    loads = list(scope.find_all(pattern="tl.load($$$)"))
    return [] if loads and reaches(scope, loads, [(node, 0)]) else PASS


@fact("pads-with")
def _pads_with(ctx: FactContext, args: dict) -> list[Option]:
    """Every masked load reaching the node pads with `value` (no other= pads with 0 here)."""
    target = ctx.node(args.get("of"))
    want = number(str(args.get("value", "0")))
    loads = _loads_reaching(ctx, target)
    if not loads:
        return []
    for load in loads:
        other = keyword(arguments(load), "other")
        value = 0.0 if other is None else number(other.text())
        if value != want:
            return []
    return PASS


_MAX_OUT = ["tl.max($$$)", "tl.maximum($$$)", "tl.argmax($$$)"]
_EXPS = ["tl.exp($X)", "tl.exp2($X)", "tl.math.exp($X)", "libdevice.exp($X)"]
_SUMS = ["tl.sum($$$)", "$_ += $SINK", "tl.cumsum($$$)"]


def _maxes(scope) -> list:
    return [n for p in _MAX_OUT for n in scope.find_all(pattern=p)]


@fact("unshifted-exp")
def _unshifted_exp(ctx: FactContext, args: dict) -> list[Option]:
    """The match's value reaches an exp no max reaches, and that exp's result is summed (softmax, log-sum-exp)."""
    scope = scope_of(ctx.match)
    maxes = _maxes(scope)
    sums = [((m.get_match("SINK") or m), 0) for p in _SUMS for m in scope.find_all(pattern=p)]
    for p in _EXPS:
        for call in scope.find_all(pattern=p):
            arg = call.get_match("X")
            if "abs(" in arg.text() or not reaches(scope, [ctx.match], [(arg, 0)]):  # exp(-|x|) cannot overflow
                continue
            if maxes and reaches(scope, maxes, [(arg, 0)]):
                continue
            if reaches(scope, [call], sums):
                return PASS
    return []


@fact("unshifted")
def _unshifted(ctx: FactContext, args: dict) -> list[Option]:
    """No max (tl.max, tl.maximum, tl.argmax) reaches the node: an exp of it is not stabilised."""
    node = ctx.node(args.get("of"))
    scope = scope_of(node)
    maxes = _maxes(scope)
    return [] if maxes and reaches(scope, maxes, [(node, 0)]) else PASS


@fact("reached-by")
def _reached_by(ctx: FactContext, args: dict) -> list[Option]:
    """A value computed by a match of `pattern` (or of any of `patterns`) reaches the node."""
    node = ctx.node(args.get("of"))
    scope = scope_of(node)
    pats = args.get("patterns") or [args.get("pattern", "")]
    sources = [n for p in pats for n in scope.find_all(pattern=p)]
    return PASS if sources and reaches(scope, sources, [(node, 0)]) else []


@fact("not-reached-by")
def _not_reached_by(ctx: FactContext, args: dict) -> list[Option]:
    """No value computed by a match of `pattern` (or `patterns`) reaches the node."""
    return [] if _reached_by(ctx, args) else PASS
