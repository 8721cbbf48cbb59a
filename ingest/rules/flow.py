"""Value flow inside one function: does a value computed at some nodes reach others, through assignments and expressions?

Rules over meaning ask this: does the masked load feed a max (through `.to()`, arithmetic, `tl.where`,
loop-carried accumulators), does a floor division reach a loop bound or a launch grid. The analysis is a
small may-taint pass over the tree-sitter syntax tree, in statement order: an assignment taints its targets
when its value is tainted and clears them when it is not; loop bodies run twice (loop-carried values);
branches join. `tl.where(c, a, b)` with a condition that does not depend on the value re-masks it: the
value in `a` is cut, `b` still flows (a masked select by position, as in `tl.where(mask, x, 0.0)`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

Span = tuple[int, int]

_SCOPES = ("function_definition", "lambda")
_SKIP = {"function_definition", "decorated_definition", "class_definition"}
_WHERE = {"tl.where", "torch.where", "where", "np.where"}


def span(node) -> Span:
    r = node.range()
    return r.start.index, r.end.index


def scope_of(node):
    """The innermost function around node (its module when there is none)."""
    for anc in node.ancestors():
        if anc.kind() == "function_definition":
            return anc
    return node.get_root().root()


def named(node) -> list:
    return [c for c in node.children() if c.is_named() and c.kind() != "comment"]


@dataclass
class _Pass:
    sources: set[Span]
    sinks: list[tuple[Span, object, int]]  # (span, node, tag)
    reached: set[int] = field(default_factory=set)

    # -- expressions ----------------------------------------------------------------------
    def tainted(self, node, names: frozenset[str]) -> bool:
        if span(node) in self.sources:
            return True
        kind = node.kind()
        if kind == "identifier":
            return node.text() in names
        if kind == "attribute":
            obj = node.field("object")
            return obj is not None and self.tainted(obj, names)
        if kind == "keyword_argument":
            value = node.field("value")
            return value is not None and self.tainted(value, names)
        if kind == "call":
            fn, args = node.field("function"), node.field("arguments")
            if fn is not None and fn.text() in _WHERE and args is not None:
                pos = [a for a in named(args) if a.kind() != "keyword_argument"]
                if len(pos) == 3:
                    cond, _value, other = pos
                    return self.tainted(cond, names) or self.tainted(other, names)
        return any(self.tainted(c, names) for c in named(node))

    def contains_source(self, node) -> bool:
        s0, s1 = span(node)
        return any(a <= s0 and s1 <= b for a, b in self.sources)

    def check(self, node, names: frozenset[str]) -> None:
        """Record every sink inside node that the tainted names (or a source) reach."""
        s0, s1 = span(node)
        for (a, b), sink, tag in self.sinks:
            if tag not in self.reached and s0 <= a and b <= s1 and self.tainted(sink, names):
                self.reached.add(tag)

    # -- statements -----------------------------------------------------------------------
    def block(self, node, names: frozenset[str]) -> frozenset[str]:
        for st in named(node):
            names = self.statement(st, names)
        return names

    def statement(self, st, names: frozenset[str]) -> frozenset[str]:
        kind = st.kind()
        if kind in _SKIP:
            return names
        if kind == "expression_statement":
            for child in named(st):
                names = self.expression_statement(child, names)
            return names
        if kind == "for_statement":
            right, left, body = st.field("right"), st.field("left"), st.field("body")
            if right is not None:
                self.check(right, names)
                if left is not None and self.tainted(right, names):
                    names = names | _targets(left)
            return self.loop(body, names)
        if kind == "while_statement":
            cond = st.field("condition")
            if cond is not None:
                self.check(cond, names)
            return self.loop(st.field("body"), names)
        if kind == "if_statement":
            return self.branches(st, names)
        if kind == "with_statement":
            body = st.field("body")
            return self.block(body, names) if body is not None else names
        if kind in ("try_statement",):
            out = names
            for c in named(st):
                if c.kind() == "block":
                    out = out | self.block(c, names)
            return out
        self.check(st, names)
        return names

    def loop(self, body, names: frozenset[str]) -> frozenset[str]:
        if body is None:
            return names
        first = self.block(body, names)
        second = self.block(body, names | first)
        return names | first | second

    def branches(self, st, names: frozenset[str]) -> frozenset[str]:
        cond = st.field("condition")
        if cond is not None:
            self.check(cond, names)
        outs, has_else = [], False
        cons = st.field("consequence")
        if cons is not None:
            outs.append(self.block(cons, names))
        for alt in named(st):
            if alt.kind() == "elif_clause":
                c = alt.field("condition")
                if c is not None:
                    self.check(c, names)
                body = alt.field("consequence")
                if body is not None:
                    outs.append(self.block(body, names))
            elif alt.kind() == "else_clause":
                has_else = True
                body = alt.field("body")
                if body is not None:
                    outs.append(self.block(body, names))
        if not has_else:
            outs.append(names)
        out = frozenset()
        for o in outs:
            out |= o
        return out

    def expression_statement(self, node, names: frozenset[str]) -> frozenset[str]:
        kind = node.kind()
        if kind == "assignment":
            self.check(node, names)
            value, targets = node, set()
            while value is not None and value.kind() == "assignment":  # a = b = value
                left = value.field("left")
                if left is not None:
                    targets |= _targets(left)
                value = value.field("right")
            flows = value is not None and (self.tainted(value, names) or self.contains_source(value))
            left = node.field("left")
            strong = left is not None and left.kind() in ("identifier", "pattern_list", "tuple_pattern")
            if flows:
                return names | targets
            return names - targets if strong else names
        if kind == "augmented_assignment":
            self.check(node, names)
            right, left = node.field("right"), node.field("left")
            if right is not None and (self.tainted(right, names) or self.contains_source(right)) and left is not None:
                return names | _targets(left)
            return names
        self.check(node, names)
        return names


def _targets(node) -> frozenset[str]:
    """Names an assignment target binds (a subscript or attribute target taints its base)."""
    kind = node.kind()
    if kind == "identifier":
        return frozenset([node.text()])
    if kind in ("subscript", "attribute"):
        base = node.field("value") if kind == "subscript" else node.field("object")
        return _targets(base) if base is not None else frozenset()
    out: frozenset[str] = frozenset()
    for c in named(node):
        out |= _targets(c)
    return out


def reaches(scope, sources: list, sinks: list[tuple[object, int]], names: frozenset[str] = frozenset()) -> set[int]:
    """Tags of the sinks (node, tag) that a value computed at any source node (or held by one of `names` on
    entry, such as a parameter) reaches inside scope."""
    if (not sources and not names) or not sinks:
        return set()
    run = _Pass({span(s) for s in sources}, [(span(n), n, tag) for n, tag in sinks])
    body = scope.field("body") if scope.kind() in _SCOPES else scope
    if body is None:
        return set()
    if scope.kind() == "lambda":
        run.check(body, frozenset(names))
    else:
        run.block(body, frozenset(names))
    return run.reached
