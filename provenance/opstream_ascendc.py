"""Op stream of AscendC kernels: the vector API on the op vocabulary, calls followed in the order they run.

See provenance.opstream for the vocabulary and the rules. What AscendC adds:
- an AscendC kernel is a class whose methods run in the order Process calls them (CopyIn, Compute, CopyOut
  per tile), not the order they are written: the walk starts at the functions nothing else in the snippet
  calls (the `__global__` entry, or Init and Process of a class alone) and follows each call to a function
  defined here, parameters bound to the arguments; a function called again with only index and length
  arguments (the tail tile, a second pass) is the same computation and is walked once; host code (tiling,
  OpDef, bindings: functions that never reach the AscendC API) is not walked;
- `DataCopy`/`DataCopyPad` from a GlobalTensor is a load, taken where the local tensor is first used (through
  EnQue/DeQue and parameters), as Triton's deferred tl.load is; into a GlobalTensor it is a store;
  `GetValue`/`SetValue` on a GlobalTensor likewise;
- vector calls write their first argument: `Add(d, a, b, n)` is ADD, `Muls(d, a, 0.5f, n)` K:0.5 MUL,
  `Adds(d, a, -m, n)` SUB, `Muls(d, a, 1.0f / s, n)` DIV, `ReduceSum` REDUCE_SUM, `Cast` nothing; a tensor
  `Duplicate`d from a literal is that constant where it is an operand; `Add(acc, acc, x, n)` in a loop, acc not
  yet written in the iteration, accumulates (REDUCE_SUM, and REDUCE_MAX/REDUCE_MIN for Max/Min);
- the scalar unit's code is C (CWalker): `float m = red.GetValue(0)` is data, `1.0f / m` K:1.0 DIV.
"""
from __future__ import annotations

import re

from provenance.ascendc import PLUMBING_CALLS, callee, declared_names, walk
from provenance.optables import ASCENDC_VECTOR
from provenance.opstream_c import CWalker, _args, _function_declarator
from provenance.opwalker import const_token, node_text, strip_parens

MAX_DEPTH = 16  # calls followed inside one another
_LOADS = frozenset({"DataCopy", "DataCopyPad"})
_API = frozenset(ASCENDC_VECTOR) | _LOADS | {"GetValue", "SetValue"}
_GM_TYPE = re.compile(r"^(?:AscendC::)?GlobalTensor\b")
_ACCUMULATE = {"ADD": ("REDUCE_SUM",), "MAX": ("REDUCE_MAX",), "MIN": ("REDUCE_MIN",)}
_VIEW = re.compile(r"\s+|\bthis->")


def _key(node) -> str:
    """A tensor operand as written, `this->` and spaces dropped: `x`, `gb[tileLen]`."""
    return _VIEW.sub("", node_text(strip_parens(node)))


def _base(node) -> str:
    """The tensor a view or member names: `xGm[off]`, `this->xGm` and `xGm` -> xGm."""
    node = strip_parens(node)
    while node is not None and node.type in ("subscript_expression", "cast_expression", "field_expression",
                                             "pointer_expression"):
        if node.type == "field_expression":
            node = node.child_by_field_name("field")
            break
        node = node.child_by_field_name("value" if node.type == "cast_expression" else "argument")
        node = strip_parens(node)
    return node_text(node)


def _function_name(fn) -> tuple[str, str | None]:
    """(name, class) of a function_definition: `void KernelAdd::Init(...)` -> (Init, KernelAdd)."""
    decl = _function_declarator(fn)
    inner = decl.child_by_field_name("declarator") if decl is not None else None
    name, cls = node_text(inner), None
    if inner is not None and inner.type == "qualified_identifier":
        cls = node_text(inner.child_by_field_name("scope")) or None
        name = callee(inner)
    p = fn.parent
    while p is not None and cls is None:
        if p.type in ("class_specifier", "struct_specifier"):
            cls = node_text(p.child_by_field_name("name")) or None
        p = p.parent
    return name, cls


def _params(fn) -> list[str]:
    decl = _function_declarator(fn)
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    out = []
    for p in plist.named_children if plist is not None else []:
        d = p.child_by_field_name("declarator")
        while d is not None and d.type not in ("identifier", "field_identifier"):
            d = d.child_by_field_name("declarator") or next(
                (c for c in d.named_children if c.type in ("identifier", "field_identifier")), None)
        out.append(node_text(d) if d is not None else "")
    return out


class AscendCWalker(CWalker):
    """CWalker over a whole AscendC snippet (program(root)), vector calls and the functions it defines followed."""

    INLINE = False  # it follows calls its own way (program), not through Walker.inline

    def __init__(self) -> None:
        self.fresh: list[set[str]] = []  # per enclosing loop: tensors written in its current iteration
        self.active: list[object] = []  # functions being walked, innermost last
        self.returns: list[bool] = []  # does the innermost followed call return data?
        self.functions: dict[str, list] = {}  # name -> its definitions
        self.class_of: dict[int, str | None] = {}  # definition -> its class
        self.gm: set[str] = set()  # GlobalTensor names
        self.reached: set[int] = set()  # definitions walked
        super().__init__()

    def _reset(self) -> None:
        super()._reset()
        self.staged: dict[str, str] = {}  # local tensor (or view) -> the GlobalTensor it was copied from, unread
        self.queued: dict[str, list[dict[str, str]]] = {}  # queue -> staged loads EnQue'd, in order
        self.consts: dict[str, str] = {}  # tensor -> K:<value> it was Duplicate'd from
        self.walked: dict[tuple, bool] = {}  # (definition, its data and literal arguments) walked -> returns data

    # -- the program: roots in source order, calls followed ------------------------------------------------------
    def program(self, root) -> None:
        fns = [n for n in walk(root) if n.type == "function_definition" and n.child_by_field_name("body") is not None]
        names = {}
        for fn in fns:
            names[fn.id], self.class_of[fn.id] = _function_name(fn)
            self.functions.setdefault(names[fn.id], []).append(fn)
        self.gm = {n for d in walk(root) if d.type in ("declaration", "field_declaration", "parameter_declaration")
                   and _GM_TYPE.match(node_text(d.child_by_field_name("type")))
                   for n in declared_names(d)}
        calls = {fn.id: {callee(n.child_by_field_name("function")) for n in walk(fn.child_by_field_name("body"))
                         if n.type == "call_expression"} for fn in fns}
        called = {c for fn in fns for c in calls[fn.id] - {names[fn.id]}}
        # device code is what reaches the AscendC API; host code (tiling, OpDef, bindings) computes nothing here
        device = {fn.id for fn in fns if calls[fn.id] & _API}
        while True:
            more = {fn.id for fn in fns if fn.id not in device
                    and any(f.id in device for c in calls[fn.id] for f in self.functions.get(c, ()))}
            if not more:
                break
            device |= more
        roots = [f for f in fns if names[f.id] not in called and (f.id in device or not device)]
        for fn in roots + [f for f in fns if f.id in device or not device]:  # then any only a cycle reaches
            if fn.id not in self.reached:
                saved = self.new_scope()
                self.follow(fn, [])
                self.restore(saved)

    def follow(self, fn, args: list) -> bool:
        """Walk a function's body where it is called (args: the call's argument nodes); True if it returns data."""
        self.reached.add(fn.id)
        for param, arg in zip(_params(fn), args):
            if param:
                self.alias(param, arg)
        self.active.append(fn)
        self.returns.append(False)
        self.stmt(fn.child_by_field_name("body"))
        self.active.pop()
        return self.returns.pop()

    def alias(self, name: str, arg) -> None:
        """A parameter bound to an argument: its data, its unread loads and its constant go with it."""
        key = _key(arg)
        for k in [k for k in self.staged if k == key or k.startswith(key + "[")]:
            self.staged[name + k[len(key):]] = self.staged[k]
        if key in self.consts:
            self.consts[name] = self.consts[key]
        base = _base(arg)
        if base in self.gm:
            self.gm.add(name)
        if base in self.values:
            self.values.add(name)
        elif base:
            self.roots[name] = self.resolve(base)

    def target(self, name: str, nargs: int):
        """The function defined here that a call names: the caller's class first, then by arity."""
        fns = self.functions.get(name)
        if not fns:
            return None
        cls = self.class_of.get(self.active[-1].id) if self.active else None
        fns = [f for f in fns if self.class_of.get(f.id) == cls] or fns
        return next((f for f in fns if len(_params(f)) == nargs), fns[0])

    # -- statements ---------------------------------------------------------------------------------------------
    def stmt(self, node) -> None:
        if node is None:
            return
        t = node.type
        if t == "function_definition":
            return  # a local class's methods are walked where they are called
        if t == "return_statement" and self.returns:
            for c in node.named_children:
                self.returns[-1] = self.expr(c) or self.returns[-1]
            return
        if t in ("for_statement", "while_statement", "do_statement", "for_range_loop"):
            self.fresh.append(set())
            super().stmt(node)
            self.fresh.pop()
            return
        super().stmt(node)

    def bind(self, name: str | None, value) -> bool:
        """`x = q.DeQue<T>()` takes what was EnQue'd on q: its unread loads follow x."""
        inner = strip_parens(value)
        if name and inner is not None and inner.type == "call_expression":
            fn = inner.child_by_field_name("function")
            if callee(fn) == "DeQue" and fn.type == "field_expression":
                q = _key(fn.child_by_field_name("argument"))
                if self.queued.get(q):
                    for k, src in self.queued[q].pop(0).items():
                        self.staged[name + k] = src
                self.assign(name, True, None)
                return True
        return super().bind(name, value)

    # -- calls --------------------------------------------------------------------------------------------------
    def call(self, node) -> bool:
        fn = node.child_by_field_name("function")
        name, args = callee(fn), _args(node)
        if name in ASCENDC_VECTOR and args:
            return self.vector(name, args, node)
        if name in _LOADS and len(args) >= 2:
            return self.copy(args[0], args[1], node)
        if name in ("GetValue", "SetValue") and fn.type == "field_expression":
            return self.scalar_access(name, fn.child_by_field_name("argument"), args, node)
        if name == "EnQue" and fn.type == "field_expression" and args:
            key = _key(args[0])
            moved = {k[len(key):]: self.staged.pop(k) for k in list(self.staged)
                     if k == key or k.startswith(key + "[")}
            self.queued.setdefault(_key(fn.child_by_field_name("argument")), []).append(moved)
            return False
        if name == "DeQue":
            return True
        target = self.target(name, len(args))
        if target is not None and target not in self.active and len(self.active) < MAX_DEPTH:
            data = [self.expr(a) for a in args]
            key = (target.id, tuple(_key(a) if d or const_token(a) else "" for a, d in zip(args, data)))
            if key in self.walked:  # the tail tile, a second pass over the same tiles: computed already
                return self.walked[key]
            self.walked[key] = got = self.follow(target, args)
            return got
        if name in PLUMBING_CALLS:
            return False
        return super().call(node)

    def copy(self, dst, src, node) -> bool:
        d, s = _base(dst), _base(src)
        if self.is_gm(s) and not self.is_gm(d):
            self.wrote(dst)
            self.staged[_key(dst)] = self.resolve(s)
        elif self.is_gm(d):
            self.read(src)
            self.access("WRITE", self.resolve(d), node)
        else:  # local to local: a move
            self.read(src)
            if _key(src) in self.consts:
                self.consts[_key(dst)] = self.consts[_key(src)]
            self.wrote(dst)
        return False

    def scalar_access(self, name: str, obj, args, node) -> bool:
        base = _base(obj)
        if name == "GetValue":
            if self.is_gm(base):
                self.access("READ", self.resolve(base), node)
                return True
            self.read(obj)
            return base in self.values
        for a in args[1:]:
            self.expr(a)
        if self.is_gm(base):
            self.access("WRITE", self.resolve(base), node)
        else:
            self.wrote(obj)
        return False

    def vector(self, name: str, args, node) -> bool:
        """A vector call: its sources read, its scalar operand walked, its ops, its first argument written."""
        kind, ops = ASCENDC_VECTOR[name]
        dst, rest = args[0], args[1:]
        if kind == "dup":  # Duplicate(dst, scalar, n)
            k = const_token(rest[0]) if rest else None
            if rest and not k:
                self.expr(rest[0])
            self.wrote(dst)
            if k:
                self.consts[_key(dst)] = k
            return False
        n_src = {"unary": 1, "binary": 2, "scalar": 1, "reduce": 1, "select": 3, "cmp_scalar": 1, "move": 1}[kind]
        srcs = rest[:n_src]
        for s in srcs:
            self.read(s)
        carried = kind == "binary" and ops[0] in _ACCUMULATE and _key(dst) in map(_key, srcs) and bool(self.fresh) \
            and _key(dst) not in self.fresh[-1]
        if carried:  # acc = acc + x across iterations; acc's initial value (a Duplicate'd 0 or -inf) is no operand
            ops = _ACCUMULATE[ops[0]]
        consts = [k for k in (self.consts.get(_key(s)) or const_token(s) for s in srcs
                              if not (carried and _key(s) == _key(dst))) if k]
        if kind in ("scalar", "cmp_scalar") and len(rest) > 1:
            ops = self.scalar_op(name, ops, rest[1], consts)
        line = node.start_point[0] + 1
        for op in (*consts, *ops):
            self.events.append((op, line, None))
        self.wrote(dst)
        return False

    def scalar_op(self, name: str, ops: tuple, scalar, consts: list) -> tuple:
        """The op of a vector-scalar call: `-m` added is SUB, `1 / s` multiplied DIV, a literal its K:."""
        s = strip_parens(scalar)
        if name == "Adds" and s.type == "unary_expression" and node_text(s.child_by_field_name("operator")) == "-" \
                and not const_token(s):
            self.expr(s.child_by_field_name("argument"))
            return ("SUB",)
        if name == "Muls" and s.type == "binary_expression" and node_text(s.child_by_field_name("operator")) == "/" \
                and const_token(s.child_by_field_name("left")) == "K:1.0":
            self.expr(s.child_by_field_name("right"))
            return ("DIV",)
        k = const_token(s)
        if k:
            consts.append(k)
        else:
            self.expr(s)
        return ops

    # -- tensors ------------------------------------------------------------------------------------------------
    def is_gm(self, name: str) -> bool:
        if self.gm:
            return name in self.gm
        return "gm" in name.lower() or "global" in name.lower()

    def read(self, src) -> None:
        """A local tensor used as a source: a load staged into it (or into the whole of a view of it) happens here."""
        key = _key(src)
        for k in [k for k in self.staged if k == key or key.startswith(k + "[")]:
            self.access("READ", self.staged.pop(k), src)

    def wrote(self, dst) -> None:
        key, base = _key(dst), _base(dst)
        self.values.add(base)
        self.consts.pop(key, None)
        self.staged.pop(key, None)
        for fresh in self.fresh:
            fresh.add(key)
        if self.computed:  # an in-place write changes what an expression reading the tensor computes
            rx = re.compile(rf"\b{re.escape(base)}\b")
            self.computed = {c for c in self.computed if not rx.search(c)}
