"""A language-neutral stream of kernel operations, the same for a Triton kernel and its C/C++ port.

Token-level fingerprints compare one language at a time, so a Triton kernel rewritten as C loops (as
when a pattern learned on GPUs is carried to AscendC) shares none of them. This module maps both into
one vocabulary of data operations in evaluation order (operands before operators):

  LOAD STORE  ADD SUB MUL DIV NEG POW MOD  EXP EXP2 LOG LOG2 SQRT TANH ERF ABS SIN COS  MAX MIN
  CMP SELECT  REDUCE_SUM REDUCE_MAX REDUCE_MIN REDUCE_ARGMAX REDUCE_ARGMIN SCAN_SUM
  K:<value>   a numeric literal operand of a data op (``x * 0.5`` is K:0.5 MUL), since a port keeps
              its formula's constants and an independent implementation often does not

What makes the two languages line up:
- only *data* is followed: a value is what a load returns and whatever is computed from one; index
  and address arithmetic (program ids, offsets, masks, subscripts, loop bounds) emits nothing, since
  Triton computes it on blocks and C in scalar loop headers; a select on a bounds mask
  (``tl.where(cols < n, x, 0)``, ``i < n ? x[i] : 0``) is masking, not data, and emits nothing;
- a reduction is ``tl.sum/tl.max`` in Triton and a loop-carried accumulator in C (``s += v``,
  ``m = fmaxf(m, v)``, ``if (v > m) m = v``, ``m = v > m ? v : m``, ``s = s * a + v``); ``tl.dot`` is
  MUL REDUCE_SUM; composite functions are spelled out (``rsqrt`` = SQRT K:1.0 DIV, ``sigmoid`` =
  NEG EXP K:1.0 ADD K:1.0 DIV);
- memory traffic is counted the way a register-blocked kernel does it: a load into a name is emitted
  where the name is first used (load early and load at use agree), the first read of an array is a
  LOAD and re-reads are not (C re-reads x in every pass, Triton keeps the row in registers), and a
  store to an array that is read back later is an intermediate, not a STORE;
- an expression computed twice in one function is computed once (``expf(x[j] - m)`` recomputed in a
  last pass is the temporary a Triton kernel keeps);
- loops and masks are *not* tokens: Triton's element loop is implicit in the block, C's is explicit,
  and a mask in one is a loop bound in the other; emitting them would separate exact ports.
Consecutive identical reductions collapse (a tiled ``acc += x`` followed by ``tl.sum(acc)``).
Limits (measured): kernels of fewer than 7 ops are not told apart across languages (a matmul and a
row-wise dot product are both LOAD LOAD MUL REDUCE_SUM STORE); a port that rearranges its formula
(``x * 0.5 * (1 + erf(x * M_SQRT1_2))`` for ``0.5 * (1 + erf(x * 0.7071)) * x``) shares few 4-grams.

AscendC vector intrinsics (``Exp(dst, src, n)``, ``ReduceMax``, ``DataCopy`` between GM and local
tensors) are mapped as well, best effort: their dataflow goes through queues the walker does not follow.
"""
from __future__ import annotations

import re

_MATH = {
    "exp": ("EXP",), "exp2": ("EXP2",), "log": ("LOG",), "log2": ("LOG2",), "log1p": ("K:1.0", "ADD", "LOG"),
    "expm1": ("EXP", "K:1.0", "SUB"), "sqrt": ("SQRT",), "rsqrt": ("SQRT", "K:1.0", "DIV"), "tanh": ("TANH",),
    "erf": ("ERF",), "abs": ("ABS",), "sin": ("SIN",), "cos": ("COS",), "pow": ("POW",),
    "fma": ("MUL", "ADD"), "sigmoid": ("NEG", "EXP", "K:1.0", "ADD", "K:1.0", "DIV"),
}
TRITON_CALLS = {
    **_MATH, "sqrt_rn": ("SQRT",), "div_rn": ("DIV",), "fdiv": ("DIV",), "maximum": ("MAX",),
    "minimum": ("MIN",), "clamp": ("MAX", "MIN"), "where": ("SELECT",), "dot": ("MUL", "REDUCE_SUM"),
    "sum": ("REDUCE_SUM",), "max": ("REDUCE_MAX",), "min": ("REDUCE_MIN",), "argmax": ("REDUCE_ARGMAX",),
    "argmin": ("REDUCE_ARGMIN",), "cumsum": ("SCAN_SUM",),
    "softmax": ("REDUCE_MAX", "SUB", "EXP", "REDUCE_SUM", "DIV"),
}
TRITON_DATA_ARGS = {"sum": 1, "max": 1, "min": 1, "argmax": 1, "argmin": 1, "cumsum": 1, "softmax": 1}
C_CALLS = {
    **{f"{n}f": ops for n, ops in _MATH.items()}, **_MATH,
    "__expf": ("EXP",), "__logf": ("LOG",), "__fsqrt_rn": ("SQRT",), "hexp": ("EXP",),
    "fmaxf": ("MAX",), "fmax": ("MAX",), "max": ("MAX",), "fminf": ("MIN",), "fmin": ("MIN",), "min": ("MIN",),
    "fabsf": ("ABS",), "fabs": ("ABS",),
}
ASCENDC_CALLS = {
    "Exp": ("EXP",), "Ln": ("LOG",), "Sqrt": ("SQRT",), "Rsqrt": ("SQRT", "K:1.0", "DIV"), "Abs": ("ABS",),
    "Add": ("ADD",), "Sub": ("SUB",), "Mul": ("MUL",), "Div": ("DIV",), "Max": ("MAX",), "Min": ("MIN",),
    "Adds": ("ADD",), "Muls": ("MUL",), "Maxs": ("MAX",), "Mins": ("MIN",), "Reciprocal": ("K:1.0", "DIV"),
    "Relu": ("MAX",), "Tanh": ("TANH",), "Select": ("SELECT",), "Compare": ("CMP",), "Compares": ("CMP",),
    "ReduceMax": ("REDUCE_MAX",), "WholeReduceMax": ("REDUCE_MAX",), "BlockReduceMax": ("REDUCE_MAX",),
    "ReduceSum": ("REDUCE_SUM",), "WholeReduceSum": ("REDUCE_SUM",), "BlockReduceSum": ("REDUCE_SUM",),
    "ReduceMin": ("REDUCE_MIN",), "Mmad": ("MUL", "REDUCE_SUM"),
}
_BINOPS = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV", "//": "DIV", "%": "MOD", "**": "POW", "@": "DOT"}
_CMPS = {"<", ">", "<=", ">=", "==", "!="}
_REDUCE_OF = {("MAX",): "REDUCE_MAX", ("MIN",): "REDUCE_MIN"}


class _Walker:
    """Shared state: which names hold data, which array each pointer name derives from, the loops."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int, object]] = []  # (op | READ | WRITE, line, array key)
        self.scope = 0
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
        key = _SUBSCRIPT.sub(r"\1", "".join(_text(node).split()))
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

    def emit(self, ops, node, operands=()) -> None:
        """Append ops (after the constants among operands) at node's line."""
        line = node.start_point[0] + 1
        for k in filter(None, map(const_token, operands)):
            self.events.append((k, line, None))
        for op in ops:
            self.events.append((op, line, None))

    def access(self, kind: str, root: str | None, node) -> None:
        key = (self.scope, root) if root else (self.scope, "?", len(self.events))
        self.events.append((kind, node.start_point[0] + 1, key))

    def use(self, node) -> bool:
        """An identifier read: a deferred load becomes a LOAD here (load-early and load-at-use agree)."""
        name = _text(node)
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
            if n.type == "identifier" and self.is_accumulator(_text(n)):
                return True
            stack.extend(n.named_children)
        return False

    def reduce_of(self, ops: tuple[str, ...], args) -> tuple[str, ...]:
        """max(m, v) with m loop-carried is a running max: REDUCE_MAX (and min likewise)."""
        if ops in _REDUCE_OF and any(self.is_accumulator(_text(_strip_parens(a))) for a in args):
            return (_REDUCE_OF[ops],)
        return ops

    def running_select(self, cond, then, other):
        """`v > m ? v : m` (or tl.where) with m loop-carried: (REDUCE_MAX, v-node), else None."""
        c = _strip_parens(cond)
        if not self.loops or c is None or c.named_child_count != 2:
            return None
        for side in map(_strip_parens, c.named_children):
            if side.type == "identifier" and self.is_accumulator(_text(side)):
                hit = _select_reduce(c, then, other, _text(side))
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


def _text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _strip_parens(node):
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


_SUBSCRIPT = re.compile(r"(\w+)\[[^\[\]]*\]")
_LITERAL_TYPES = frozenset({"integer", "float", "number_literal"})


def const_token(node) -> str | None:
    """`K:0.5` for a numeric literal operand (also `-1.0f`, `1e-5`): formula constants survive a port."""
    node = _strip_parens(node)
    sign = ""
    if node is not None and node.type in ("unary_operator", "unary_expression") and node.named_child_count == 1:
        if _text(node.children[0]) != "-":
            return None
        sign, node = "-", _strip_parens(node.named_children[0])
    if node is None or node.type not in _LITERAL_TYPES:
        return None
    text = _text(node).lower().replace("_", "").replace("'", "")
    text = text.rstrip("ul") if text.startswith("0x") else text.rstrip("fulh")
    try:
        v = float(int(text, 0)) if text.startswith("0x") else float(text)
    except ValueError:
        return None
    return f"K:{sign}{float(f'{v:.6g}')!r}"


def _select_reduce(cond, then, other, target: str) -> tuple[str, object] | None:
    """`v > m ? v : m` and `if (v > m) m = v` are max-accumulations of v into m: (REDUCE_MAX, v-node)."""
    cond = _strip_parens(cond)
    if cond is None or cond.named_child_count != 2:
        return None
    op = next((c.type for c in cond.children if not c.is_named), None)
    if op not in ("<", ">", "<=", ">="):
        return None
    lhs, rhs = (_strip_parens(c) for c in cond.named_children)
    if _text(lhs) == target:
        v, greater = rhs, op in ("<", "<=")  # m < v: v is greater
    elif _text(rhs) == target:
        v, greater = lhs, op in (">", ">=")
    else:
        return None
    then_t, other_t = _text(_strip_parens(then)), _text(_strip_parens(other)) if other is not None else target
    if then_t == _text(v) and other_t == target:
        return ("REDUCE_MAX" if greater else "REDUCE_MIN"), v
    if then_t == target and other_t == _text(v):
        return ("REDUCE_MIN" if greater else "REDUCE_MAX"), v
    return None


def op_stream(root, language: str) -> tuple[list[str], list[int]]:
    """(ops, 1-based line of each) for a parsed tree; language is 'python' or 'cpp'."""
    if language == "python":
        from provenance.opstream_py import PythonWalker as W
    else:
        from provenance.opstream_c import CWalker as W
    w = W()
    w.stmt(root)
    return w.finish()


def ops_of(code: str, language: str) -> list[str]:
    """The op stream of a snippet (for inspection and tests)."""
    from provenance.fingerprint import normalize_language, parse

    lang = normalize_language(language)
    return op_stream(parse(code, lang).root_node, lang)[0]
