"""The walker base both op-stream walkers share: data-flow state, loops, accumulators, emitted events.

See provenance.opstream for the vocabulary and the rules; provenance.opstream_py and opstream_c subclass Walker.
"""
from __future__ import annotations

import re

_REDUCE_OF = {("MAX",): "REDUCE_MAX", ("MIN",): "REDUCE_MIN"}


class Walker:
    """Shared state: which names hold data, which array each pointer name derives from, the loops.

    Helper functions defined in the same snippet are followed where they are called (`inline`), their ops
    emitted at the call's line, when an argument is data (or, with INLINE_POINTERS, an array): a type-3 copy
    that extracts a helper computes the same ops in the same order as the kernel it came from. A function
    followed so is not walked on its own as well (op_stream walks twice: the first walk finds them)."""

    INLINE = False  # the language walker can follow calls (prepare() collects the functions)
    INLINE_POINTERS = False  # also follow a call whose arguments are arrays only
    MAX_INLINE = 4  # helpers followed inside one another

    def __init__(self, skip: frozenset[str] = frozenset()) -> None:
        self.events: list[tuple[str, int, object]] = []  # (op | READ | WRITE, line, array key)
        self.scope = 0
        self.functions: dict[str, tuple[list[str], object]] = {}  # name -> (parameters, body)
        self.skip = skip  # functions followed at their calls: not walked on their own
        self.inlined: set[str] = set()
        self._inlining: list[str] = []
        self._returns: list[bool] = []
        self._line: int | None = None
        self._reset()

    def _reset(self) -> None:
        self.values: set[str] = set()
        self.roots: dict[str, str] = {}
        self.pending: dict[str, str | None] = {}  # name -> array: loaded, LOAD emitted at first use
        self.defined_at: dict[str, int] = {}  # loop depth where a name was first assigned
        self.loops: list[tuple[set[str], set[str]]] = []  # (loop variables, names assigned in the body)
        self.computed: set[str] = set()  # expressions already computed (common subexpressions)

    def new_scope(self) -> tuple:
        saved = (self.values, self.roots, self.pending, self.defined_at, self.loops, self.computed)
        self._reset()
        self.scope += 1
        return saved

    def restore(self, saved: tuple) -> None:
        self.values, self.roots, self.pending, self.defined_at, self.loops, self.computed = saved

    CSE_TYPES: frozenset[str] = frozenset()

    def expr(self, node) -> bool:
        """Walk an expression, emitting its data ops in evaluation order; True if it yields data.

        An expression computed before in the same function (same text, array subscripts ignored) is
        reused, not recomputed: `expf(x[j] - m)` written twice is one EXP, as a temporary would be.
        """
        if node is None or node.type not in self.CSE_TYPES:
            return self._expr(node)
        key = _SUBSCRIPT.sub(r"\1", "".join(node_text(node).split()))
        if key in self.computed:
            return True
        n = len(self.events)
        v = self._expr(node)
        if v and any(op not in ("READ", "WRITE") for op, _, _ in self.events[n:]):
            self.computed.add(key)
        return v

    def _expr(self, node) -> bool:
        raise NotImplementedError

    @property
    def depth(self) -> int:
        return len(self.loops)

    def line_of(self, node) -> int:
        """node's line, or the call's while a helper is followed."""
        return self._line if self._line is not None else node.start_point[0] + 1

    def inline(self, name: str, call, bindings: list[tuple[str, object]]) -> tuple[bool, bool]:
        """Follow a call to helper `name` (bindings: (parameter, argument node)): (followed, it returns data).

        The arguments are walked in the caller; the helper runs in its own names (parameters bound to data or
        to the caller's arrays), its loops its own, its ops at the call's line."""
        vals = [(p, self.expr(a), a) for p, a in bindings]
        roots = {p: self.root_of(a) for p, v, a in vals if not v}
        if not (any(v for _, v, _ in vals) or (self.INLINE_POINTERS and any(roots.values()))):
            return False, False
        params_body = self.functions[name]
        saved = (self.values, self.roots, self.pending, self.defined_at, self.loops, self.computed)
        self.values, self.roots, self.pending, self.defined_at, self.loops, self.computed = set(), {}, {}, {}, [], set()
        for p, v, _ in vals:
            if v:
                self.values.add(p)
                self.defined_at[p] = 0
            elif roots[p] and roots[p] != p:
                self.roots[p] = roots[p]
        line, self._line = self._line, self.line_of(call)
        self._returns.append(False)
        self._inlining.append(name)
        self.inlined.add(name)
        try:
            self.stmt(params_body[1])
        finally:
            data = self._returns.pop()
            self._inlining.pop()
            self._line = line
            self.values, self.roots, self.pending, self.defined_at, self.loops, self.computed = saved
        return True, data

    def can_inline(self, name: str | None) -> bool:
        return (self.INLINE and name in self.functions and name not in self._inlining
                and len(self._inlining) < self.MAX_INLINE)

    def returned(self, is_data: bool) -> None:
        """A return statement: inside a followed helper, whether it returns data."""
        if self._returns:
            self._returns[-1] = self._returns[-1] or is_data

    def emit(self, ops, node, operands=()) -> None:
        """Append ops (after the constants among operands) at node's line."""
        line = self.line_of(node)
        for k in filter(None, map(const_token, operands)):
            self.events.append((k, line, None))
        for op in ops:
            self.events.append((op, line, None))

    def access(self, kind: str, root: str | None, node) -> None:
        key = (self.scope, root) if root else (self.scope, "?", len(self.events))
        self.events.append((kind, self.line_of(node), key))

    def use(self, node) -> bool:
        """An identifier read: a deferred load becomes a LOAD here (load-early and load-at-use agree)."""
        name = node_text(node)
        if name in self.pending:
            self.access("READ", self.pending.pop(name), node)
        return name in self.values

    def resolve(self, name: str | None) -> str | None:
        seen = set()
        while name in self.roots and name not in seen:
            seen.add(name)
            name = self.roots[name]
        return name

    def is_accumulator(self, name: str) -> bool:
        """Loop-carried: first assigned outside the innermost loop and assigned again inside it."""
        return bool(self.loops) and self.defined_at.get(name, 0) < self.depth and name in self.loops[-1][1]

    def carries(self, node) -> bool:
        """Does the expression read a loop-carried name (s in `s * alpha + v`)?"""
        stack = [node]
        while stack:
            n = stack.pop()
            if n is None:
                continue
            if n.type == "identifier" and self.is_accumulator(node_text(n)):
                return True
            stack.extend(n.named_children)
        return False

    def reduce_of(self, ops: tuple[str, ...], args) -> tuple[str, ...]:
        """max(m, v) with m loop-carried is a running max: REDUCE_MAX (and min likewise)."""
        if ops in _REDUCE_OF and any(self.is_accumulator(node_text(strip_parens(a))) for a in args):
            return (_REDUCE_OF[ops],)
        return ops

    def running_select(self, cond, then, other):
        """`v > m ? v : m` (or tl.where) with m loop-carried: (REDUCE_MAX, v-node), else None."""
        c = strip_parens(cond)
        if not self.loops or c is None or c.named_child_count != 2:
            return None
        for side in map(strip_parens, c.named_children):
            if side.type == "identifier" and self.is_accumulator(node_text(side)):
                hit = select_reduce(c, then, other, node_text(side))
                if hit:
                    return hit
        return None

    def assign(self, name: str, is_value: bool, root: str | None, loaded_from: object = False) -> None:
        self.defined_at.setdefault(name, self.depth)
        self.pending.pop(name, None)
        if loaded_from is not False:
            self.pending[name] = loaded_from
            self.values.add(name)
        elif is_value:
            self.values.add(name)
        else:
            self.values.discard(name)
            if root and root != name:
                self.roots[name] = root

    def finish(self) -> tuple[list[str], list[int]]:
        last_read = {key: i for i, (op, _, key) in enumerate(self.events) if op == "READ"}
        seen: set = set()
        written: set = set()
        ops: list[str] = []
        lines: list[int] = []
        for i, (op, line, key) in enumerate(self.events):
            if op == "READ":
                out = "LOAD" if key not in seen and key not in written else None
                seen.add(key)
            elif op == "WRITE":
                written.add(key)
                out = "STORE" if last_read.get(key, -1) < i else None
            else:
                out = op
            if out is None or (out.startswith("REDUCE_") and ops and ops[-1] == out):
                continue
            ops.append(out)
            lines.append(line)
        return ops, lines


def node_text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def strip_parens(node):
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


_SUBSCRIPT = re.compile(r"(\w+)\[[^\[\]]*\]")
_LITERAL_TYPES = frozenset({"integer", "float", "number_literal"})


def const_token(node) -> str | None:
    """`K:0.5` for a numeric literal operand (also `-1.0f`, `1e-5`): formula constants survive a port."""
    node = strip_parens(node)
    sign = ""
    if node is not None and node.type in ("unary_operator", "unary_expression") and node.named_child_count == 1:
        if node_text(node.children[0]) != "-":
            return None
        sign, node = "-", strip_parens(node.named_children[0])
    if node is None or node.type not in _LITERAL_TYPES:
        return None
    text = node_text(node).lower().replace("_", "").replace("'", "")
    text = text.rstrip("ul") if text.startswith("0x") else text.rstrip("fulh")
    try:
        v = float(int(text, 0)) if text.startswith("0x") else float(text)
    except ValueError:
        return None
    return f"K:{sign}{float(f'{v:.6g}')!r}"


def select_reduce(cond, then, other, target: str) -> tuple[str, object] | None:
    """`v > m ? v : m` and `if (v > m) m = v` are max-accumulations of v into m: (REDUCE_MAX, v-node)."""
    cond = strip_parens(cond)
    if cond is None or cond.named_child_count != 2:
        return None
    op = next((c.type for c in cond.children if not c.is_named), None)
    if op not in ("<", ">", "<=", ">="):
        return None
    lhs, rhs = (strip_parens(c) for c in cond.named_children)
    if node_text(lhs) == target:
        v, greater = rhs, op in ("<", "<=")  # m < v: v is greater
    elif node_text(rhs) == target:
        v, greater = lhs, op in (">", ">=")
    else:
        return None
    then_t, other_t = node_text(strip_parens(then)), node_text(strip_parens(other)) if other is not None else target
    if then_t == node_text(v) and other_t == target:
        return ("REDUCE_MAX" if greater else "REDUCE_MIN"), v
    if then_t == target and other_t == node_text(v):
        return ("REDUCE_MIN" if greater else "REDUCE_MAX"), v
    return None
