"""AscendC integrity, the kernel's links: it reads its tiling, moves data between global and local memory, computes.

Written from the forms real operators use (NPUKernelBench's answers, MultiKernelBench's examples, Ascend's samples):
- kernel<-tiling: the entry's tiling parameter (msopgen's last) is followed wherever it goes: into GET_TILING_DATA*
  (then the struct it fills), into a callee's parameter (by pointer, reference or value: `op.Init(x, &tilingData)`,
  `op.Init(x, y, tilingGm)`, constructors), through casts and assignments (`auto buf = reinterpret_cast<...>(t)`,
  `this->tiling = tiling`, a class field then read by any method), until something reads it: a field access, a
  dereference, arithmetic, an argument to a library call. Macros are already expanded (TILING_KEY_IS branches,
  `INIT_AND_PROCESS`); `(void)t` is no read.
- kernel->copy: a DataCopy/DataCopyPad touching a GlobalTensor, a scalar GetValue/SetValue on one, or a library
  call handed one (the Matmul API's SetTensorA/IterateAll, a catlass tile copy the candidate does not define).
- kernel->compute: a compute instruction, or, for a kernel that only moves data (a copy, an expand, a zero fill),
  that what it copies in is used (computed with or copied out): a kernel that copies data in and throws it away
  computes nothing. Local tensors are followed by the queue or buffer they come from (AllocTensor/DeQue/Get).
"""
from __future__ import annotations

import re
from functools import lru_cache

from repair.ascendc import Program, callee_name, walk

COPIES = frozenset({"DataCopy", "DataCopyPad"})
# AscendC instructions that compute (vector, cube, the high-level math APIs) and the scalar path's SetValue
COMPUTE = frozenset("""
Add Sub Mul Div Max Min And Or Not Adds Subs Muls Divs Maxs Mins Exp Ln Log Abs Reciprocal Sqrt Rsqrt Relu
LeakyRelu ShiftLeft ShiftRight Axpy Cast CastDeq Compare CompareScalar Select ReduceSum ReduceMax ReduceMin
WholeReduceSum WholeReduceMax WholeReduceMin BlockReduceSum BlockReduceMax BlockReduceMin PairReduceSum
RepeatReduceSum Sum Mean MulAddDst FusedMulAdd AddRelu SubRelu MulCast AddReluCast SubReluCast Mmad Matmul
IterateAll Iterate SoftMax SoftmaxFlash SoftmaxFlashV2 SimpleSoftMax LogSoftMax LayerNorm RmsNorm
BatchNorm Sigmoid Tanh Sin Cos Tan Asin Acos Atan Sinh Cosh Gelu FasterGelu Silu Swish Power Erf Erfc Floor
Ceil Round Trunc Sign Frac Exp2 Log2 Log10 Clamp ClampMax ClampMin Where Xor Cumsum SetValue
""".split())
# a GlobalTensor's own methods, which move no data
GM_METHODS = frozenset("SetGlobalBuffer GetPhyAddr GetSize SetL2CacheHint GetValue SetValue operator".split())
QUEUE_OPS = frozenset("EnQue DeQue AllocTensor FreeTensor InitBuffer".split())  # buffer plumbing, no read
BUFFER_SOURCES = frozenset("AllocTensor DeQue Get GetWithOffset".split())
CASTS = frozenset("reinterpret_cast static_cast const_cast dynamic_cast".split())
_WRAPPERS = ("pointer_expression", "cast_expression", "parenthesized_expression")


def tiling_read(prog: Program, entry) -> tuple[bool, object, int, str]:
    """(read, function, line, what) for the entry's tiling parameter: where it is first read, or where it was
    last seen (and what it went into) when nothing reads it."""
    if not entry.params:
        return False, entry, entry.line, "has no tiling parameter"
    start = entry.params[-1]
    todo, seen = [(entry, start)], set()
    fields: set[str] = set()  # class fields the tiling was stored in
    last = (entry, entry.line, f"never reads its tiling parameter {start}")
    while todo:
        f, name = todo.pop(0)
        if (id(f), name) in seen or len(seen) > 2000:
            continue
        seen.add((id(f), name))
        decl = f.node.child_by_field_name("declarator")
        if f.node.child_by_field_name("body") is None or decl is None:
            continue
        for n in walk(f.node):  # the body and a constructor's initializer list (`: Base(tilingPtr)`)
            if n.type not in ("identifier", "field_identifier") or f.unit.node_text(n) != name or \
                    decl.start_byte <= n.start_byte < decl.end_byte:  # the parameter itself
                continue
            if n.type == "field_identifier" and not _is_this_field(f.unit, n):
                continue
            kind, more = _use(prog, f, n)
            if kind == "read":
                return True, f, n.start_point[0] + 1, f"reads {name}"
            if kind == "into":
                for g, param in more:
                    todo.append((g, param))
                    last = (f, n.start_point[0] + 1, f"hands {name} to {g.qualified}, which never reads it")
            elif kind == "var":
                for var in more:
                    todo.append((f, var))
                    last = (f, n.start_point[0] + 1, f"reads its tiling into {var} and never uses it")
            elif kind == "field":
                for fld in more - fields:
                    fields.add(fld)
                    todo += [(g, fld) for g in prog.functions()]
                    last = (f, n.start_point[0] + 1, f"stores its tiling in {fld}, which nothing reads")
    return False, last[0], last[1], last[2]


def _is_this_field(u, n) -> bool:
    p = n.parent
    return p is not None and p.type == "field_expression" and u.node_text(p.child_by_field_name("argument")) == "this"


def _use(prog: Program, f, n):
    """What an occurrence of a tiling name does: ("read", _), ("into", [(callee, param)]), ("var", {name}),
    ("field", {name}) or ("none", _)."""
    u = f.unit
    node = n.parent if n.type == "field_identifier" else n  # this->field: the whole field expression
    while True:  # through what hands the value on unchanged: &x, (T *)x, (x), reinterpret_cast<T *>(x)
        p = node.parent
        if p is None:
            return "read", None
        if p.type == "pointer_expression":
            if u.node_text(p).lstrip().startswith("*"):
                return "read", None  # a dereference reads it
        elif p.type == "cast_expression":
            if u.node_text(p.child_by_field_name("type") or p).strip("() ") == "void":
                return "none", None  # (void)tiling: the idiom for "unused"
        elif p.type != "parenthesized_expression" and not _is_cast_call(u, p):
            break
        node = p.parent if _is_cast_call(u, p) else p
    args = [c for c in p.named_children if c.type != "comment"] if p.type == "argument_list" else []
    if p.type == "argument_list" and p.parent is not None and p.parent.type == "call_expression":
        name, index = _callee(u, p.parent), args.index(node)
        if name.startswith("GET_TILING_DATA"):  # (var, tiling) or (Struct, var, tiling): fills var
            return ("var", {u.node_text(args[-2]).strip()}) if index == len(args) - 1 and len(args) >= 2 \
                else ("none", None)
        targets = _methods_of(prog, u, p.parent, [g for g in prog.by_name.get(name, [])
                                                  if len(g.params) > index and len(g.params) >= len(args)])
        if not targets:
            return "read", None  # a library call (or one the program does not define) reads what it is handed
        return "into", [(g, g.params[index]) for g in targets]
    if p.type == "argument_list" and p.parent is not None and p.parent.type == "field_initializer":
        target = callee_name(u.node_text(p.parent.named_children[0]))  # a base class, or a field
        index = args.index(node)
        ctors = [g for g in prog.types.constructors.get(target, []) if len(g.params) > index]
        return ("into", [(g, g.params[index]) for g in ctors]) if ctors else ("field", {target})
    if p.type == "argument_list" and p.parent is not None and p.parent.type == "init_declarator":
        decl = p.parent.parent
        t = decl.child_by_field_name("type") if decl is not None else None
        classes = prog.types.classes_of(u.node_text(t)) if t is not None else set()
        index = args.index(node)
        targets = [g for c in sorted(classes) for g in prog.types.constructors.get(c, []) if len(g.params) > index]
        return ("into", [(g, g.params[index]) for g in targets]) if targets else ("read", None)
    if p.type == "init_declarator" and p.child_by_field_name("value") == node:
        return "var", {_declarator_name(u, p.child_by_field_name("declarator"))}
    if p.type == "assignment_expression":
        left = p.child_by_field_name("left")
        if left == node:
            return "none", None
        if left.type == "field_expression" and u.node_text(left.child_by_field_name("argument")) == "this":
            return "field", {u.node_text(left.child_by_field_name("field"))}
        if left.type == "identifier":
            name = u.node_text(left)
            return ("field" if _is_field(f, name) else "var"), {name}
        return "read", None
    if p.type in ("init_declarator", "declaration", "parameter_declaration", "field_declaration",
                  "expression_statement"):
        return "none", None
    return "read", None


def _methods_of(prog: Program, u, call, targets: list) -> list:
    """`obj.Init(...)`: of the same-named functions, those of obj's declared class (or its bases) when it is known."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "field_expression" or not targets:
        return targets
    obj = u.node_text(fn.child_by_field_name("argument")).strip("*& ")
    classes = {c for t in prog.types.declared.get(obj, ()) for c in prog.types.classes_of(t)}
    classes = prog.types.with_bases(classes)
    own = [g for g in targets if g.cls and callee_name(g.cls) in classes]
    return own or targets


def _declarator_name(u, d) -> str:
    """The name a declarator declares (`*__restrict__ tilingData` -> tilingData)."""
    idents = [n for n in walk(d) if n.type in ("identifier", "field_identifier")]
    return u.node_text(idents[-1]) if idents else u.node_text(d).strip("*& ")


def _is_cast_call(u, node) -> bool:
    """The argument list of reinterpret_cast<T>(x) and its kin."""
    return node is not None and node.type == "argument_list" and node.parent is not None and \
        node.parent.type == "call_expression" and _callee(u, node.parent) in CASTS


def _callee(u, call) -> str:
    fn = call.child_by_field_name("function")
    return callee_name(u.node_text(fn)) if fn is not None else ""


def _is_field(f, name: str) -> bool:
    """A bare name assigned in a method that is neither its parameter nor declared in its body: a field."""
    if not f.cls or name in f.params:
        return False
    body = f.node.child_by_field_name("body") or f.node
    return not any(n.type in ("init_declarator", "declaration") and
                   _declares(f.unit, n, name) for n in walk(body))


def _declares(u, n, name: str) -> bool:
    d = n.child_by_field_name("declarator")
    return d is not None and u.node_text(d).strip("*& ").split("[")[0].strip() == name


# -- copies and compute -----------------------------------------------------------------------------

def global_names(prog: Program, calls=()) -> set[str]:
    """Names that hold global tensors: declared GlobalTensor, and the parameters the kernel's own helpers receive
    them in (`DataCopyEx(dst, src, n)` called with `xGm[off]`: its `src`), followed to a fixed point."""
    names = {name for u in prog.units for name, _ in u.declarations(r"GlobalTensor")}
    for _ in range(8):
        more = {g.params[i] for _, c in calls for g in prog.by_name.get(c.name, ())
                for i, a in enumerate(c.args) if i < len(g.params) and _mentions(a, names)} - names
        if not more:
            break
        names |= more
    return names


def _mentions(text: str, names: set[str]) -> bool:
    return bool(names) and _words(frozenset(names)).search(text) is not None


@lru_cache(maxsize=64)
def _words(names: frozenset[str]) -> re.Pattern:
    return re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")


def _root(u, node) -> str:
    """The variable an argument is about: `xLocal[off]`, `(T&)x`, `x.ReinterpretCast<U>()` -> x."""
    while node is not None:
        if node.type in ("identifier", "field_identifier"):
            return u.node_text(node)
        if node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "field_expression":
            arg = node.child_by_field_name("argument")
            if arg is not None and u.node_text(arg) == "this":
                return u.node_text(node.child_by_field_name("field"))
            node = arg
        elif node.type == "call_expression":
            node = node.child_by_field_name("function")
        elif node.type in _WRAPPERS:
            node = node.named_children[-1] if node.named_children else None
        else:
            return ""
    return ""


def copies(prog: Program, calls, gm: set[str]) -> list:
    """The reached calls that move data between global and local memory."""
    out = []
    for _, c in calls:
        if c.name in COPIES and (not gm or any(_mentions(a, gm) for a in c.args)):
            out.append(c)
        elif c.name in ("GetValue", "SetValue") and c.fn_node is not None and c.fn_node.type == "field_expression" \
                and _mentions(c.callee.rsplit(".", 1)[0], gm):
            out.append(c)  # the scalar unit reading or writing global memory
        elif gm and c.name not in prog.by_name and c.name not in GM_METHODS and c.name not in COMPUTE \
                and any(_mentions(a, gm) for a in c.args):
            out.append(c)  # a library routine handed a global tensor (Matmul's SetTensorA, a tile copy)
    return out


def buffers(prog: Program) -> dict[str, set[str]]:
    """Local tensor variable -> the queues/buffers it is taken from (`x = inQueueX.DeQue<T>()`)."""
    out: dict[str, set[str]] = {}
    for u in prog.units:
        for n in walk(u.tree.root_node):
            if n.type == "init_declarator":
                name, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            elif n.type == "assignment_expression":
                name, value = n.child_by_field_name("left"), n.child_by_field_name("right")
            else:
                continue
            if name is None or value is None or value.type != "call_expression":
                continue
            fn = value.child_by_field_name("function")
            if fn is None or fn.type != "field_expression":
                continue
            if callee_name(u.node_text(fn.child_by_field_name("field"))) in BUFFER_SOURCES:
                out.setdefault(_root(u, name), set()).add(_root(u, fn.child_by_field_name("argument")))
    return out


def unused_input(prog: Program, calls, gm: set[str]):
    """The first copy-in whose data nothing reads (no compute, no copy-out), or None when every copy-in is read or
    cannot be followed."""
    bufs = buffers(prog)
    group = lambda v: bufs.get(v, set()) | {v}  # noqa: E731
    ins = []
    for f, c in calls:
        if c.name in COPIES and len(c.arg_nodes) >= 2 and _mentions(c.args[1], gm) and not _mentions(c.args[0], gm):
            v = _root(f.unit, c.arg_nodes[0])
            if not v or v not in bufs:
                return None  # a destination not taken from a queue or buffer here: not followed
            ins.append((f, c, v))
    if not ins:
        return None
    used: set[str] = set()
    for f, c in calls:
        if c.name in QUEUE_OPS:
            continue
        for i, a in enumerate(c.arg_nodes):
            if i > 0 or c.name not in COPIES:
                used |= group(_root(f.unit, a))
        if c.fn_node is not None and c.fn_node.type == "field_expression" and c.name not in QUEUE_OPS | BUFFER_SOURCES:
            used |= group(_root(f.unit, c.fn_node.child_by_field_name("argument")))
    for f, c, v in ins:
        if group(v) & used:
            return None
    return ins[0]
