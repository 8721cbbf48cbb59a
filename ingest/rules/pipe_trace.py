"""What an AscendC kernel hands from one pipe to another, read from its C++: the unordered hand-overs.

An instruction runs on one of four pipes (MTE2: a copy GM -> UB; the vector pipe: a vector instruction or a UB -> UB
copy; MTE3: a copy UB -> GM; the scalar pipe: `GetValue`, `SetValue`, a tensor's `t(i)`), and nothing orders two
pipes but a `SetFlag`/`WaitFlag<HardEvent::A_B>` pair (or `wait_flag(PIPE_A, PIPE_B, id)`, or a macro of the file
whose body waits on a HardEvent it is given), a `PipeBarrier<PIPE_ALL>`, or a queue's `EnQue`/`DeQue` (which orders
the copy pipes and the vector pipe, never the scalar one): the model ascendc-cpu checks with
`REPAIR_ASCENDC_AUTO_SYNC=off` (README, "Pipes as the hardware has them").

Each function of the file is traced in program order, calls to the file's own functions inlined (their parameters
bound to the caller's tensors), each UB tensor named by the buffer it comes from (`b.Get<T>()`: the TBuf b;
`q.AllocTensor<T>()`/`q.DeQue<T>()`: the queue q; `t[i]`, `t.ReinterpretCast<U>()`: t's), with a vector clock per
pipe; a read (or scalar write) of bytes another pipe wrote whose pipe has not seen that write is a hand-over with no
flag. Loops are read once, in order: a hazard carried from one iteration to the next (a copy-in overwriting what the
last iteration's vector instruction read) is not modelled.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ingest.rules.cpp_functions import functions

PIPES = ("MTE2", "V", "S", "MTE3")
QUEUE_ORDERS = (("MTE2", "V"), ("V", "MTE3"), ("MTE2", "MTE3"))  # what an EnQue/DeQue hand-over orders
_COPIES = {"DataCopy", "DataCopyPad"}
_NOT_VECTOR = {"SetFlag", "WaitFlag", "PipeBarrier", "SyncAll", "static_cast", "reinterpret_cast", "sizeof",
               "GetBlockIdx", "GetBlockNum", "GetTPipePtr", "set_flag", "wait_flag", "pipe_barrier", "min", "max",
               "DataCopyExtParams", "DataCopyPadExtParams", "DataCopyParams", "GET_TILING_DATA", "printf"}
_DEPTH = 4


@dataclass(frozen=True)
class Hazard:
    """A read on pipe `dst` (at `call`, a call of the traced function) of a buffer `src` wrote, with no flag."""

    src: str
    dst: str
    buffer: str
    call: tuple[int, int]  # the call's byte range in the traced function
    stmt: tuple[int, int]  # the statement of the traced function it is part of


@dataclass
class _State:
    clock: dict = field(default_factory=lambda: {p: 0 for p in PIPES})
    seen: dict = field(default_factory=lambda: {p: {q: 0 for q in PIPES} for p in PIPES})
    writes: dict = field(default_factory=dict)  # buffer -> (pipe, stamp, top call range)

    def wait(self, a: str, b: str) -> None:
        if a in PIPES and b in PIPES:
            for q in PIPES:
                self.seen[b][q] = max(self.seen[b][q], self.seen[a][q])
            self.seen[b][a] = max(self.seen[b][a], self.clock[a])

    def barrier(self) -> None:
        for a in PIPES:
            for b in PIPES:
                self.wait(a, b)


def _strip(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def _base(expr: str) -> str | None:
    m = re.match(r"\s*[(&*\s]*(?:this\s*->\s*)?([A-Za-z_]\w*)", expr)
    return m.group(1) if m else None


@dataclass(frozen=True)
class _Origins:
    """Where the file's tensors come from: name -> buffer key, and the names that are GM tensors."""

    buffers: dict
    queues: frozenset
    globals_: frozenset
    event_macros: dict  # macro name -> index of the parameter naming the HardEvent


def _origins(code: str) -> _Origins:
    buffers: dict[str, str] = {}
    for m in re.finditer(r"(?:this\s*->\s*)?\b([A-Za-z_]\w*)\s*=\s*(?:this\s*->\s*)?([A-Za-z_]\w*)\s*(?:\.|->)\s*"
                         r"(?:template\s+)?(Get|GetWithOffset|AllocTensor|DeQue)\b", code):
        kind = "buf" if m.group(3).startswith("Get") else "que"
        buffers.setdefault(m.group(1), f"{kind}:{m.group(2)}")
    queues = frozenset(re.findall(r"\bTQue(?:Bind)?\s*<[^;]*?>\s*([A-Za-z_]\w*)", code))
    for m in re.finditer(r"(?:this\s*->\s*)?\b([A-Za-z_]\w*)\s*=\s*(?:this\s*->\s*)?([A-Za-z_]\w*)\s*(?:\[|\.\s*"
                         r"(?:template\s+)?ReinterpretCast\b)", code):
        if m.group(2) in buffers:
            buffers.setdefault(m.group(1), buffers[m.group(2)])
    globals_ = set()
    for m in re.finditer(r"\bGlobalTensor\s*<[^;<>]*(?:<[^;<>]*>)?[^;<>]*>\s*([^;(){}]*)", code):
        globals_.update(re.findall(r"&?\s*([A-Za-z_]\w*)\s*(?:[,=]|$)", m.group(1)))
    macros = {}
    for m in re.finditer(r"#\s*define\s+([A-Za-z_]\w*)\s*\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", code):
        params = [p.strip() for p in m.group(2).split(",")]
        w = re.search(r"WaitFlag\s*<\s*(?:\w+\s*::\s*)*HardEvent\s*::\s*(\w+)\s*>", m.group(3))
        if w and w.group(1) in params:
            macros[m.group(1)] = params.index(w.group(1))
    return _Origins(buffers, queues, frozenset(globals_), macros)


def _callee(call) -> tuple[str, object | None]:
    """(the called name, the receiver node or None): `a.GetValue(0)` -> (GetValue, a); `this->F(x)` -> (F, this)."""
    fn = call.field("function")
    if fn is None:
        return "", None
    if fn.kind() == "template_function":
        name = fn.field("name")
        return (name.text().split("::")[-1].strip() if name is not None else ""), None
    if fn.kind() == "field_expression":
        f = fn.field("field")
        ftext = f.text() if f is not None else ""
        if f is not None and f.kind() == "template_method":
            ftext = (f.field("name").text() if f.field("name") is not None else ftext)
        return re.sub(r"<.*", "", ftext).strip(), fn.field("argument")
    return fn.text().split("::")[-1].strip(), None


def _args(call) -> list:
    a = call.field("arguments")
    return [c for c in a.children() if c.is_named() and c.kind() != "comment"] if a is not None else []


def _event(call) -> tuple[str, str] | None:
    """The pipes of a SetFlag/WaitFlag<HardEvent::A_B> or wait_flag(PIPE_A, PIPE_B, id) call."""
    text = call.text()
    m = re.search(r"HardEvent\s*::\s*([A-Z0-9]+)_([A-Z0-9]+)", text)
    if m:
        return m.group(1), m.group(2)
    m = re.search(r"PIPE_(\w+)\s*,\s*PIPE_(\w+)", text)
    return (m.group(1), m.group(2)) if m else None


class _Tracer:
    def __init__(self, root, code: str):
        self.code = code
        self.origins = _origins(code)
        # name -> (parameter names, body node, offset of the body's text in the file: cpp_functions.functions)
        self.functions = functions(root, code)
        self.shift = 0  # the offset of the function traced now (a body parsed on its own)

    def key(self, expr, env: dict) -> str | None:
        """The buffer a UB tensor expression names (None: not a local tensor)."""
        name = _base(expr.text() if hasattr(expr, "text") else expr)
        if name is None or name in self.origins.globals_:
            return None
        if name in env:
            return env[name]
        if name in self.origins.buffers:
            return self.origins.buffers[name]
        return None

    def trace(self, fn_name: str, env: dict, depth: int, top, state: _State, hazards: list, stack: tuple):
        params, body, shift = self.functions[fn_name]
        if top is None:
            self.shift = shift
        for call in _calls_in_order(body):
            here = top if top is not None else call
            self.call(call, env, depth, here, state, hazards, stack)

    def call(self, call, env, depth, here, state, hazards, stack):
        name, recv = _callee(call)
        args = _args(call)
        if name in ("SetFlag", "set_flag"):
            return
        if name in ("WaitFlag", "wait_flag") or name in self.origins.event_macros:
            ev = _event(call)
            if ev is None and name in self.origins.event_macros:
                i = self.origins.event_macros[name]
                if i < len(args):
                    m = re.fullmatch(r"\s*(?:\w+\s*::\s*)*([A-Z0-9]+)_([A-Z0-9]+)\s*", args[i].text())
                    ev = (m.group(1), m.group(2)) if m else None
            if ev:
                state.wait(*ev)
            return
        if name in ("PipeBarrier", "pipe_barrier", "SyncAll") and (name == "SyncAll" or "ALL" in call.text()):
            state.barrier()
            return
        if name in ("EnQue", "DeQue") and recv is not None:
            for a, b in QUEUE_ORDERS:
                state.wait(a, b)
            return
        if name in ("GetValue", "SetValue") and recv is not None:
            k = self.key(recv, env)
            if k is not None:
                self.access(k, "S", name == "SetValue", here, state, hazards)
            return
        if recv is None and name in self.functions and name not in stack and depth < _DEPTH:
            params = self.functions[name][0]
            sub = {}
            for p, a in zip(params, args):
                k = self.key(a, env)
                if p and k is not None:
                    sub[p] = k
            self.trace(name, sub, depth + 1, here, state, hazards, stack + (name,))
            return
        if recv is not None and re.fullmatch(r"\s*this\s*", recv.text()) and name in self.functions \
                and name not in stack and depth < _DEPTH:
            params = self.functions[name][0]
            sub = {p: self.key(a, env) for p, a in zip(params, args) if p and self.key(a, env) is not None}
            self.trace(name, sub, depth + 1, here, state, hazards, stack + (name,))
            return
        fn = call.field("function")
        if fn is not None and fn.kind() in ("identifier", "field_expression") and not args[1:] and \
                self.key(fn, env) is not None and name not in self.functions:
            self.access(self.key(fn, env), "S", False, here, state, hazards)  # t(i): a scalar read
            return
        if recv is not None or name in _NOT_VECTOR or not name[:1].isupper():
            return
        keys = [self.key(a, env) for a in args]
        if name in _COPIES and len(args) >= 2:
            dst_local, src_local = keys[0] is not None, keys[1] is not None
            if dst_local and not src_local and _base(args[1].text()) in self.origins.globals_:
                self.access(keys[0], "MTE2", True, here, state, hazards)
            elif src_local and not dst_local and _base(args[0].text()) in self.origins.globals_:
                self.access(keys[1], "MTE3", False, here, state, hazards)
            elif dst_local and src_local:
                self.access(keys[1], "V", False, here, state, hazards)
                self.access(keys[0], "V", True, here, state, hazards)
            return
        if keys and keys[0] is not None:
            for k in keys[1:]:
                if k is not None:
                    self.access(k, "V", False, here, state, hazards)
            self.access(keys[0], "V", True, here, state, hazards)

    def access(self, k: str, pipe: str, write: bool, here, state: _State, hazards: list):
        last = state.writes.get(k)
        at = self._span(here)
        if last is not None and last[0] != pipe and state.seen[pipe][last[0]] < last[1] and last[2] != at:
            if not (k.startswith("que:") and (last[0], pipe) in QUEUE_ORDERS):
                hazards.append(Hazard(last[0], pipe, k.split(":", 1)[1], at, self._span(_outer_statement(here))))
        if write:
            state.clock[pipe] += 1
            state.writes[k] = (pipe, state.clock[pipe], at)

    def _span(self, node) -> tuple[int, int]:
        r = node.range()
        return r.start.index + self.shift, r.end.index + self.shift


def _span(node) -> tuple[int, int]:
    r = node.range()
    return r.start.index, r.end.index


_NESTED = {"if_statement", "for_statement", "while_statement", "do_statement"}
_STATEMENTS = {"expression_statement", "declaration", "return_statement", "if_statement", "for_statement",
               "while_statement", "do_statement", "switch_statement"}


def _stmt(node):
    while node is not None and node.kind() not in _STATEMENTS:
        node = node.parent()
    return node


def _outer_statement(node):
    """The statement a call is part of, or the braceless if/for/while whose body that statement is."""
    stmt = _stmt(node)
    while stmt is not None and stmt.parent() is not None and stmt.parent().kind() in _NESTED:
        stmt = _stmt(stmt.parent())
    return stmt if stmt is not None else node


def _calls_in_order(body) -> list:
    """The call expressions of a body, each after the calls in its arguments (the order they run in)."""
    out = []

    def walk(n):
        for c in n.children():
            walk(c)
        if n.kind() == "call_expression":
            out.append(n)
    if body is not None:
        walk(body)
    return out


def _first_branch(code: str) -> str:
    """The code with each `#else`/`#elif` branch blanked (offsets and lines kept): the `#if` branch is read, as one
    preprocessor pass would (an `#if` whose branches each open a brace leaves the braces balanced)."""
    lines = code.split("\n")
    stack: list[bool] = []  # per open #if: inside a branch after the first
    out = []
    for ln in lines:
        d = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b", ln)
        if d and d.group(1) in ("if", "ifdef", "ifndef"):
            stack.append(False)
        elif d and d.group(1) in ("elif", "else") and stack:
            stack[-1] = True
        elif d and d.group(1) == "endif" and stack:
            stack.pop()
            out.append(ln)
            continue
        out.append(" " * len(ln) if any(stack) and not (d and d.group(1) in ("if", "ifdef", "ifndef")) else ln)
    return "\n".join(out)


@lru_cache(maxsize=32)
def _hazards_cached(code: str) -> tuple[tuple[str, tuple[Hazard, ...]], ...]:
    from ast_grep_py import SgRoot

    code = _first_branch(code)
    root = SgRoot(code, "cpp").root()
    tracer = _Tracer(root, _strip(code))
    out = []
    for name in tracer.functions:
        found: list[Hazard] = []
        try:
            tracer.trace(name, {}, 0, None, _State(), found, (name,))
        except RecursionError:
            continue
        out.append((name, tuple(dict.fromkeys(found))))
    return tuple(out)


def unordered_handovers(view_code: str) -> list[Hazard]:
    """Every unordered hand-over of the file (its AscendC qualifiers blanked: ingest.rules.cpp_view.view), each
    found in the function that holds both ends."""
    seen, out = set(), []
    for _name, hz in _hazards_cached(view_code):
        for h in hz:
            if (h.src, h.dst, h.stmt) not in seen:
                seen.add((h.src, h.dst, h.stmt))
                out.append(h)
    return out


def flagged_pairs(code: str) -> set[frozenset]:
    """The pairs of pipes the file orders by hand somewhere (SetFlag/WaitFlag, wait_flag, a macro's HardEvent)."""
    text = _strip(code)
    pairs = {frozenset(m.groups()) for m in re.finditer(r"WaitFlag\s*<\s*(?:\w+\s*::\s*)*HardEvent\s*::\s*"
                                                          r"([A-Z0-9]+)_([A-Z0-9]+)", text)}
    pairs |= {frozenset(m.groups()) for m in re.finditer(r"wait_flag\s*\(\s*PIPE_(\w+)\s*,\s*PIPE_(\w+)", text)}
    for name in _origins(text).event_macros:
        pairs |= {frozenset(m.groups()) for m in re.finditer(rf"\b{name}\s*\([^;]*?\b([A-Z0-9]+)_([A-Z0-9]+)\s*\)",
                                                             text)}
    return pairs
