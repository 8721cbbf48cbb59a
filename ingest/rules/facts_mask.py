"""Facts about boundary masks: the mask an unmasked access needs, and the bound a mask should compare an index with.

An access's pointer is read as a sum of terms: the base pointer, offsets that do not move with the block (a row
offset: the program id times a stride), and indices that do (anything a `tl.arange` reaches), each scaled by a
stride or not. Each index needs `index < extent`; the extent is found by meaning (ingest.rules.extents), in this
order of evidence: the same index already compared elsewhere in the kernel (another access's mask), the stop of
the chunk loop whose variable it adds, the grid axis (or tile loop) whose program id or tile variable scales it,
the dimension its stride or its place in the pointer says it walks (read from the launch: `x.shape[1]`,
`M, N = x.shape`, `x.numel()`). A 2-D tile's mask is the `&` of its indices' comparisons. Names never decide.

Evidence for the class: unmasked `tl.load`/`tl.store` and masks built from the wrong extent are the boundary
errors reported most for LLM-written Triton kernels (TritonBench, arXiv:2502.14752; "The Correctness Illusion in
LLM-Generated GPU Kernels", arXiv:2606.20128; the tile-program bug study arXiv:2605.19652, boundary guards and
predicate masks) and in review threads (ggml-org forks: "performs unmasked tl.load/tl.store ... incorrect for
arbitrary n_elements"; triton-lang/triton#630, a K tail without a mask).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product

from ingest.rules.extents import (Extent, Host, definition, grid_axes, host_of, loop_stops, param_extents,
                                  param_stride, param_tensor, program_ids, squash)
from ingest.rules.facts import FactContext, Option, fact
from ingest.rules.flow import named, reaches, span
from ingest.rules.program import Kernel, arguments, keyword, positional

MAX_BOUNDS = 3  # bounds offered per index when the evidence does not single one out
_BCAST = re.compile(r"\[\s*(?::\s*,\s*None|None\s*,\s*:)\s*\]$")


@dataclass
class Index:
    text: str  # as written in the pointer: rm[:, None], cols, start + offs
    nodes: list  # the pointer's terms it is made of
    stride: str | None = None  # the parameter that scales it (a stride or a size), None when unscaled


@dataclass
class Access:
    call: object  # the tl.load / tl.store call
    indices: list[Index]
    base: str | None  # the pointer parameter
    row_offset: bool  # a term that moves with the program but not with the block (row * stride)
    mask: object | None


class _Ctx:
    """One kernel, its first launch and the launching function, read once per question."""

    def __init__(self, module, kernel: Kernel):
        self.module, self.kernel = module, kernel
        launches = module.launches_of(kernel)
        self.launch = launches[0] if launches else None
        self.host = host_of(self.launch) if self.launch is not None else Host()
        self.extents = param_extents(kernel, self.launch, self.host) if self.launch is not None else {}
        self.aranges = list(kernel.node.find_all(pattern="tl.arange($$$)"))
        self.pids = program_ids(kernel)
        self.loops = loop_stops(kernel)

    def moves(self, node) -> bool:
        """A tl.arange reaches the node: it differs between the lanes of a block."""
        return bool(self.aranges) and bool(reaches(self.kernel.node, self.aranges, [(node, 0)]))

    def constexpr(self, text: str) -> bool:
        p = self.kernel.param(text)
        return (p is not None and p.constexpr) or bool(re.fullmatch(r"[A-Z][A-Z0-9_]*", text) and p is None)


def _terms(node) -> list:
    """The node as a sum: its + operands, through parentheses."""
    if node.kind() == "parenthesized_expression":
        inner = named(node)
        return _terms(inner[0]) if len(inner) == 1 else [node]
    if node.kind() == "binary_operator" and [c.text() for c in node.children() if not c.is_named()] == ["+"]:
        return _terms(node.field("left")) + _terms(node.field("right"))
    return [node]


def _product(node):
    """(factor a tl.arange reaches, other factor) of a product term; None when it is not one."""
    if node.kind() != "binary_operator" or [c.text() for c in node.children() if not c.is_named()] != ["*"]:
        return None
    return node.field("left"), node.field("right")


def pointer_of(ctx: _Ctx, call):
    """The pointer expression of an access, an identifier followed to the expression it was first given."""
    args = positional(arguments(call))
    ptr = args[0] if args else keyword(arguments(call), "pointer")
    if ptr is None:
        return None
    if ptr.kind() == "identifier" and ctx.kernel.param(ptr.text()) is None:
        first = None
        for asg in ctx.kernel.node.find_all(kind="assignment"):
            left, right = asg.field("left"), asg.field("right")
            if left is not None and right is not None and left.text() == ptr.text() and span(asg)[0] < span(call)[0]:
                first = first or right  # a pointer advanced in a loop keeps its first lanes' layout
        return first
    return ptr


def access(ctx: _Ctx, call) -> Access | None:
    """The access's pointer as indices (None when no index moves with the block: a scalar access)."""
    ptr = pointer_of(ctx, call)
    if ptr is None:
        return None
    indices: list[Index] = []
    unscaled: list = []
    base, row = None, False
    for term in _expanded(ctx, ptr, span(call)[0]):
        text = term.text()
        if term.kind() == "identifier" and ctx.kernel.param(text) is not None and not ctx.moves(term):
            if base is None and not _is_size(ctx, text):
                base = text
                continue
        prod = _product(term)
        if prod is not None:
            left, right = prod
            lm, rm = ctx.moves(left), ctx.moves(right)
            if lm != rm:
                index, scale = (left, right) if lm else (right, left)
                if ctx.constexpr(squash(scale.text())):
                    unscaled.append(term)  # pid * BLOCK (+ arange): the block's start, part of one index
                else:
                    indices.append(Index(_strip(index.text()), [term], squash(scale.text())))
                continue
            if not lm:
                if ctx.constexpr(squash(left.text())) or ctx.constexpr(squash(right.text())):
                    unscaled.append(term)
                else:
                    row = True  # row * stride: the program's row, the same for every lane
                continue
        if ctx.moves(term) or _block_start(ctx, term):
            unscaled.append(term)  # the index, or a loop offset or block start added to it
        else:
            row = True
    if unscaled and any(ctx.moves(t) for t in unscaled):
        indices.append(Index(" + ".join(t.text() for t in unscaled), unscaled))
    if not indices:
        return None
    return Access(call, indices, base, row, _mask_arg(call))


def _block_start(ctx: _Ctx, node, depth: int = 0) -> bool:
    """The term is where the block starts: a chunk loop's variable, or a program id times a block size (through the
    kernel's assignments); a row offset (the program id times a stride or a size) is not."""
    if node.kind() == "parenthesized_expression" and len(named(node)) == 1:
        return _block_start(ctx, named(node)[0], depth)
    if node.kind() == "identifier":
        name = node.text()
        if name in ctx.loops:
            loop = next((lp for lp in ctx.kernel.node.find_all(kind="for_statement")
                         if lp.field("left") is not None and lp.field("left").text() == name), None)
            args = positional(arguments(loop.field("right"))) if loop is not None else []
            return len(args) == 3
        d = definition(ctx.kernel, name, span(node)[0])
        return d is not None and depth < 3 and _block_start(ctx, d, depth + 1)
    prod = _product(node)
    if prod is not None:
        return any(ctx.constexpr(squash(side.text())) for side in prod)
    terms = _terms(node)
    return len(terms) > 1 and all(_block_start(ctx, t, depth + 1) for t in terms)


def _expanded(ctx: _Ctx, ptr, before: int, depth: int = 0) -> list:
    """The pointer's terms, a name that holds a sum of offsets (offs = rows * s + cols) read as its terms."""
    out = []
    for term in _terms(ptr):
        if term.kind() == "identifier" and depth < 2 and ctx.kernel.param(term.text()) is None:
            d = definition(ctx.kernel, term.text(), before)
            if d is not None and ctx.moves(term) and any(_strided(ctx, t) for t in _terms(d)):
                out += _expanded(ctx, d, before, depth + 1)
                continue
        out.append(term)
    return out


def _strided(ctx: _Ctx, term) -> bool:
    """An offset term of a layout: scaled by a stride or a size, or broadcast along a tile axis."""
    prod = _product(term)
    if prod is not None and not any(ctx.constexpr(squash(f.text())) for f in prod):
        return True
    return bool(_BCAST.search(squash(term.text())))


def _strip(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and text.count("(") == text.count(")") and _inner_ok(text):
        text = text[1:-1].strip()
    return text


def _inner_ok(text: str) -> bool:
    depth = 0
    for ch in text[1:-1]:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _is_size(ctx: _Ctx, name: str) -> bool:
    return name in ctx.extents


def _mask_arg(call):
    args = arguments(call)
    m = keyword(args, "mask")
    if m is not None:
        return m
    given = positional(args)
    want = 2 if call.text().startswith("tl.store") else 1
    return given[want] if len(given) > want else None


def accesses(ctx: _Ctx) -> list[Access]:
    out = []
    for pattern in ("tl.load($$$)", "tl.store($$$)"):
        for call in ctx.kernel.node.find_all(pattern=pattern):
            a = access(ctx, call)
            if a is not None:
                out.append(a)
    return sorted(out, key=lambda a: span(a.call)[0])


def _base_var(text: str) -> str:
    return squash(_BCAST.sub("", squash(text)))


def _bcast(text: str) -> str:
    m = _BCAST.search(squash(text))
    return m.group(0) if m else ""


# -- evidence for an index's extent ------------------------------------------------------------------------------

def _compared(ctx: _Ctx, index: Index, skip=None) -> list[str]:
    """Bounds the same index (whatever its broadcast) is compared against elsewhere in the kernel: `i < B`, `B > i`."""
    want = _base_var(index.text)
    out = []
    for cmp in ctx.kernel.node.find_all(kind="comparison_operator"):
        if skip is not None and span(cmp) == span(skip):
            continue
        kids = named(cmp)
        ops = [c.text() for c in cmp.children() if not c.is_named()]
        if len(kids) != 2 or ops not in (["<"], [">"]):
            continue
        idx, bound = (kids[0], kids[1]) if ops == ["<"] else (kids[1], kids[0])
        if _base_var(idx.text()) == want and not ctx.moves(bound) and bound.text() not in out:
            out.append(bound.text())
    return out


def _names_in(ctx: _Ctx, index: Index, depth: int = 2) -> set[str]:
    """Identifiers the index is computed from, through the kernel's assignments (a few levels)."""
    names: set[str] = set()
    frontier = [n for node in index.nodes for n in [node, *node.find_all(kind="identifier")] if n.kind() == "identifier"]
    at = span(index.nodes[0])[0]
    for _ in range(depth + 1):
        nxt = []
        for n in frontier:
            if n.text() in names:
                continue
            names.add(n.text())
            d = definition(ctx.kernel, n.text(), at)
            if d is not None:
                nxt += [x for x in [d, *d.find_all(kind="identifier")] if x.kind() == "identifier"]
        frontier = nxt
    return names


def _by_loop(ctx: _Ctx, index: Index) -> list[str]:
    """The stop of a chunk loop `for start in range(0, N, BLOCK)` whose variable the index adds."""
    out = []
    for v in _names_in(ctx, index):
        loop = next((lp for lp in ctx.kernel.node.find_all(kind="for_statement")
                     if lp.field("left") is not None and lp.field("left").text() == v), None)
        if loop is None or v not in ctx.loops:
            continue
        args = [a for a in named(loop.field("right").field("arguments")) if a.kind() != "keyword_argument"]
        if len(args) == 3 and ctx.loops[v] not in out:  # a stepped loop: its variable is an element offset
            out.append(ctx.loops[v])
    return out


def _params_for_host(ctx: _Ctx, host_expr: str) -> list[str]:
    """Kernel parameters whose launch argument is (or has the extent of) a host expression."""
    if not host_expr or ctx.launch is None:
        return []
    value = ctx.host.resolve(host_expr)
    wanted = ctx.host.extents(host_expr)
    out = []
    for p in ctx.kernel.params:
        arg = ctx.launch.arg_for(p.name)
        if arg is None or p.constexpr:
            continue
        if ctx.host.resolve(arg.text()) == value or (wanted and wanted & ctx.extents.get(p.name, set())):
            out.append(p.name)
    return out


def _counted(ctx: _Ctx, count_text: str) -> list[str]:
    """What a tile count divides: `tl.cdiv(K, BLOCK)` in the kernel gives K; a parameter the host binds to
    `triton.cdiv(K, BLOCK)` gives the parameter that receives K."""
    from ingest.rules.extents import _CDIV

    text = squash(count_text)
    m = _CDIV.match(text)
    if m:
        return [next(g for g in m.groups() if g)]
    p = ctx.kernel.param(text)
    if p is not None and ctx.launch is not None:
        arg = ctx.launch.arg_for(text)
        if arg is not None:
            m = _CDIV.match(ctx.host.resolve(arg.text()))
            if m:
                return _params_for_host(ctx, next(g for g in m.groups() if g))
    return []


def _by_grid(ctx: _Ctx, index: Index) -> list[str]:
    """What the grid axis (or the tile loop) whose program id (tile variable) scales the index divides."""
    out = []
    names = _names_in(ctx, index)
    axes = grid_axes(ctx.launch, ctx.host) if ctx.launch is not None else []
    for v in names:
        if v in ctx.pids and ctx.pids[v] < len(axes):
            out += [p for p in _params_for_host(ctx, axes[ctx.pids[v]]) if p not in out]
        elif v in ctx.loops and not _by_loop(ctx, Index(v, index.nodes)):
            out += [b for b in _counted(ctx, ctx.loops[v]) if b not in out]
    for m in re.finditer(r"tl\.program_id\((?:axis=)?(\d)\)", " ".join(n.text() for n in index.nodes)):
        if int(m.group(1)) < len(axes):
            out += [p for p in _params_for_host(ctx, axes[int(m.group(1))]) if p not in out]
    return out


def _by_dimension(ctx: _Ctx, acc: Access, index: Index) -> list[str]:
    """Parameters the host binds to the extent of the dimension the index walks."""
    if ctx.launch is None:
        return []
    want: list[Extent] = []
    tensor = param_tensor(ctx.launch, ctx.host, acc.base) if acc.base else None
    if index.stride is not None:
        s = param_stride(ctx.launch, ctx.host, index.stride)
        if s is not None:
            want.append(s)
        else:
            for e in ctx.extents.get(index.stride, ()):  # i * N + j on a row-major [M, N]: i walks dim 0
                if isinstance(e.dim, int) and e.dim > 0:
                    want.append(Extent(e.tensor, e.dim - 1))
    elif tensor is not None:
        if acc.row_offset or len(acc.indices) > 1 or _bcast(index.text):
            n = ctx.host.ndim.get(tensor)
            dims = {e.dim for es in ctx.extents.values() for e in es if e.tensor == tensor and isinstance(e.dim, int)}
            last = n - 1 if n else max(dims, default=-1)
            want += [Extent(tensor, last), Extent(tensor, -1)]
        else:
            want.append(Extent(tensor, "numel"))
            if ctx.host.ndim.get(tensor) == 1:
                want.append(Extent(tensor, 0))
    out = []
    for e in want:
        for p in ctx.kernel.params:
            if not p.constexpr and e in ctx.extents.get(p.name, ()) and p.name not in out:
                out.append(p.name)
    return out


def _sizes(ctx: _Ctx) -> list[str]:
    """Kernel parameters the host binds to some extent (a size), in signature order."""
    return [p.name for p in ctx.kernel.params if not p.constexpr and p.name in ctx.extents][:MAX_BOUNDS]


def bounds(ctx: _Ctx, acc: Access, index: Index, *, reuse: bool = True) -> list[str]:
    """The extents the index may be bounded by, from the strongest evidence that gives any."""
    levels = [lambda: _by_loop(ctx, index), lambda: _by_grid(ctx, index), lambda: _by_dimension(ctx, acc, index)]
    if reuse:
        levels.insert(0, lambda: _compared(ctx, index))
    for level in levels:
        found = [b for b in level() if not _full_block(ctx, index, b)]
        if found:
            return found[:MAX_BOUNDS]
    return []


def _full_block(ctx: _Ctx, index: Index, bound: str) -> bool:
    """The index's block is exactly the bound (BLOCK=N at the launch): no lane is ever out of range."""
    if ctx.launch is None:
        return False
    bound_arg = ctx.launch.arg_for(bound)
    if bound_arg is None:
        return False
    for ar in ctx.aranges:
        if not any(reaches(ctx.kernel.node, [ar], [(n, 0)]) for n in index.nodes):
            continue
        args = positional(arguments(ar))
        end = ctx.launch.arg_for(args[1].text()) if len(args) == 2 else None
        if end is not None and ctx.host.resolve(end.text()) == ctx.host.resolve(bound_arg.text()):
            return True
    return False


def _render(pairs: list[tuple[str, str]]) -> str:
    if len(pairs) == 1:
        return f"{pairs[0][0]} < {pairs[0][1]}"
    return " & ".join(f"({i} < {b})" for i, b in pairs)


def masks_for(ctx: _Ctx, acc: Access) -> list[str]:
    """Masks for an unmasked access, best first: another access's mask over the same indices, then built."""
    out = []
    mine = sorted(squash(i.text) for i in acc.indices)
    for other in accesses(ctx):
        if other.mask is None or span(other.call) == span(acc.call):
            continue
        if sorted(squash(i.text) for i in other.indices) == mine:
            text = other.mask.text()
            if other.mask.kind() == "identifier":
                d = definition(ctx.kernel, text, span(acc.call)[0])
                if d is None:  # defined after this access: spell it out
                    d = definition(ctx.kernel, text, span(other.call)[0])
                    text = d.text() if d is not None else ""
            if text and text not in out:
                out.append(text)
    per_index = [bounds(ctx, acc, i) for i in acc.indices]
    if all(per_index):
        for combo in product(*per_index):
            text = _render([(i.text, b) for i, b in zip(acc.indices, combo)])
            if text not in out:
                out.append(text)
            if len(out) >= MAX_BOUNDS + 1:
                break
    return out


def _ctx_of(fctx: FactContext, node) -> _Ctx | None:
    kernel = fctx.module.kernel_of(node)
    return _Ctx(fctx.module, kernel) if kernel is not None else None


def _pad(ctx: _Ctx, call) -> str:
    """other= for a load: the identity of the reduction its value reaches ("" when it reaches none: no padding is
    read)."""
    from ingest.rules.holds import flow_holds
    from ingest.rules.model import Flow
    from ingest.rules.vocab import EXP, MAX, MIN, NEG_INF, POS_INF, SUM

    for sinks, then, value in ((MAX, (), NEG_INF), (EXP, SUM, NEG_INF), (MIN, (), POS_INF), (SUM, (), "0.0")):
        if flow_holds(Flow(sink=list(sinks), then=list(then)), call, ctx.module):
            return value
    return ""


def _mask_edit(ctx: _Ctx, acc: Access, mask: str):
    """The edit that gives an unmasked access `mask` (and a load its padding, when it has none)."""
    args = arguments(acc.call)
    last = args[-1]
    end = span(last)[1]
    extra = f", mask={mask}"
    pad = _pad(ctx, acc.call) if acc.call.text().startswith("tl.load") and keyword(args, "other") is None else ""
    if pad:
        extra += f", other={pad}"
    return end, end, extra


@fact("access-mask")
def _access_mask(fctx: FactContext, args: dict) -> list[Option]:
    """The match is a tl.load/tl.store without a mask whose pointer moves with the block: bind the mask it needs.
    The first options also mask the kernel's other unmasked accesses of that kind (a kernel that forgot its
    masks forgot them everywhere); the last, this access alone."""
    call = fctx.match
    ctx = _ctx_of(fctx, call)
    if ctx is None or _mask_arg(call) is not None:
        return []
    acc = access(ctx, call)
    if acc is None:
        return []
    masks = masks_for(ctx, acc)
    if not masks:
        return []
    others = [a for a in accesses(ctx) if a.mask is None and span(a.call) != span(call)]
    edits = []
    for other in others:
        found = masks_for(ctx, other)
        if found:
            edits.append(_mask_edit(ctx, other, found[0]))
    out = [Option(m, tuple(edits)) for m in masks] if edits else []
    return out + [Option(m) for m in masks]


@fact("wrong-bound")
def _wrong_bound(fctx: FactContext, args: dict) -> list[Option]:
    """The match compares an index with a size parameter other than the extent the index walks (read from the
    loop, the grid or the dimension, never from the masks themselves): bind that extent, where exactly one is."""
    index_node, bound_node = fctx.node(args.get("of")), fctx.node(args.get("bound"))
    ctx = _ctx_of(fctx, fctx.match)
    if ctx is None or index_node is None or bound_node is None:
        return []
    bound = squash(bound_node.text())
    p = ctx.kernel.param(bound)
    if p is None or p.constexpr or not ctx.moves(index_node) or ctx.moves(bound_node):
        return []
    want = _base_var(index_node.text())
    found: list[str] = []
    for acc in accesses(ctx):
        if acc.mask is None or not reaches(ctx.kernel.node, [fctx.match], [(acc.mask, 0)]):
            continue
        for index in acc.indices:
            if _base_var(index.text) != want:
                continue
            for b in bounds(ctx, acc, index, reuse=False):
                if b not in found:
                    found.append(b)
    if len(found) != 1 or found[0] == bound:
        return []
    return [Option(found[0])]


@fact("not-grid-extent")
def _not_grid_extent(fctx: FactContext, args: dict) -> list[Option]:
    """The node is not the number of programs the grid launches along an axis (a mean over programs divides by
    that: one program per row, each adding its row's share)."""
    node = fctx.node(args.get("of"))
    kernel = fctx.module.kernel_of(node)
    if kernel is None:
        return [Option()]
    ctx = _Ctx(fctx.module, kernel)
    arg = ctx.launch.arg_for(node.text()) if ctx.launch is not None else None
    if arg is None:
        return [Option()]
    value = ctx.host.resolve(arg.text())
    return [] if value in grid_axes(ctx.launch, ctx.host, counts=True) else [Option()]


@fact("not-partials")
def _not_partials(fctx: FactContext, args: dict) -> list[Option]:
    """The node's loaded values are not partial results: no load reaching it reads a tensor that another kernel
    launch of the module also receives (the second stage of a two-stage reduction sums per-program partial sums,
    so its mean divides by the element count, not by the number of partials its mask bounds)."""
    node = fctx.node(args.get("of"))
    kernel = fctx.module.kernel_of(node) if node is not None else None
    if kernel is None:
        return [Option()]
    ctx = _Ctx(fctx.module, kernel)
    if ctx.launch is None:
        return [Option()]
    for call in kernel.node.find_all(pattern="tl.load($$$)"):
        if not reaches(kernel.node, [call], [(node, 0)]):
            continue
        acc = access(ctx, call)
        tensor = param_tensor(ctx.launch, ctx.host, acc.base) if acc is not None and acc.base else None
        if tensor is None:
            continue
        for other in fctx.module.launches:
            if other.kernel is kernel:
                continue
            if any(a.kind() == "identifier" and ctx.host.root(a.text()) == tensor
                   for a in [*positional(other.args), *[keyword(other.args, p.name) for p in other.kernel.params]]
                   if a is not None):
                return []
    return [Option()]
