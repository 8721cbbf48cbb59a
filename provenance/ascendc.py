"""AscendC source as tree-sitter-cpp reads it: qualifiers and launches blanked in place, six-source files lifted out.

Plain C++ grammar does not know AscendC's qualifiers or the launch syntax, so each `__aicore__`/`__global__`/
`__gm__`/`__ubuf__` becomes spaces of the same length and `k<<<grid, l2, stream>>>(args)` becomes
`k(  grid, l2, stream)  (args)`: the parse is clean and every byte offset and line is the source's own.
A MultiKernelBench six-source file (Python assigning `kernel_src = \"\"\"...\"\"\"` and its siblings) is read as
its C++ sources laid over the file's own lines, everything else blanked.
"""
from __future__ import annotations

import re

from provenance.opwalker import node_text

QUALIFIER = re.compile(r"\b__(?:aicore|global|gm|ubuf)__\b")
LAUNCH = re.compile(r"<<<([^;{}]*?)>>>")
# `__aicore__` is AscendC's alone (CUDA has `__global__`, `__device__`); kernel_operator.h is its one header
_MARKER = re.compile(r"\b__aicore__\b|#\s*include\s*[<\"]kernel_operator\.h[>\"]")
# the six-source format's C++ strings (project_json_src is JSON, model_src Python)
CXX_SOURCES = ("host_tiling_src", "host_operator_src", "kernel_src", "python_bind_src")


def blank(text: str) -> tuple[str, dict[int, str], set[int]]:
    """(parseable text, {offset: qualifier} for each qualifier blanked, offsets of each `<<<` launch).

    Offsets are of the UTF-8 bytes, as tree-sitter's are.
    """
    quals: dict[int, str] = {}
    launches: set[int] = set()

    def qual(m: re.Match) -> str:
        quals[len(text[:m.start()].encode())] = m.group(0)
        return " " * len(m.group(0))

    def launch(m: re.Match) -> str:
        launches.add(len(out[:m.start()].encode()))
        return "(  " + m.group(1) + ")  "

    out = QUALIFIER.sub(qual, text)
    out = LAUNCH.sub(launch, out)
    return out, quals, launches


def is_ascendc(code: str) -> bool:
    """Does C++ (or a six-source file's kernel) use AscendC's `__aicore__` or include kernel_operator.h?"""
    return _MARKER.search(code) is not None


def six_source_view(code: str, python_root) -> str | None:
    """A six-source Python file's C++ strings at their own byte offsets, everything else blanked (newlines kept);
    None when code (parsed as Python: python_root) is not such a file (no `kernel_src` string that is AscendC)."""
    data = code.encode("utf-8")
    spans, kernel = [], False
    for stmt in python_root.named_children:
        node = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if node is None or node.type != "assignment":
            continue
        name, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        if name is None or value is None or value.type != "string" or name.text.decode() not in CXX_SOURCES:
            continue
        for part in value.named_children:
            if part.type == "string_content":
                spans.append((part.start_byte, part.end_byte))
                kernel = kernel or (name.text == b"kernel_src" and is_ascendc(part.text.decode("utf-8", "replace")))
    if not kernel:
        return None
    out = bytearray(b if b in b"\r\n" else 32 for b in data)
    for a, b in spans:
        out[a:b] = data[a:b]
    return out.decode("utf-8", "replace")


# The kernel template every AscendC vector kernel is written on (Init/Process/CopyIn/Compute/CopyOut over TQue
# queues): calls that only move tensors through queues and buffers, read the tiling or sync the pipes.
PLUMBING_CALLS = frozenset("""
AllocTensor EnQue DeQue FreeTensor InitBuffer SetGlobalBuffer Get GetWithOffset GetBlockIdx GetBlockNum
GET_TILING_DATA GET_TILING_DATA_WITH_STRUCT GetTPipePtr FetchEventID SetFlag WaitFlag PipeBarrier SyncAll
Init Process KERNEL_TASK_TYPE_DEFAULT SetAtomicNone SetMaskNorm SetVectorMask ResetMask
""".split())
_FLOAT_TYPE = re.compile(r"^(?:const\s+)?(?:float|double|half|bfloat16_t|float16_t|__fp16)\b")
_STATEMENTS = frozenset({"expression_statement", "declaration", "return_statement"})
BRANCHES = {"for_statement": ("body",), "for_range_loop": ("body",), "while_statement": ("body",),
            "do_statement": ("body",), "if_statement": ("consequence", "alternative"), "else_clause": ()}
_ARITHMETIC = frozenset("+ - * / % += -= *= /=".split())
_OPERATORS = frozenset({"binary_expression", "unary_expression", "assignment_expression"})


def callee(fn) -> str:
    """The called name of a tree-sitter-cpp call's function node: `q.EnQue<float>` and `AscendC::Add` -> EnQue, Add."""
    while fn is not None and fn.type in ("field_expression", "qualified_identifier", "template_function",
                                         "template_method"):
        fn = fn.child_by_field_name("field" if fn.type == "field_expression" else "name")
    return fn.text.decode("utf-8", "replace") if fn is not None else ""


def walk(node):
    """node and every node under it, in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


class ComputeView:
    """Which statements of an AscendC file compute: the rest is the kernel template every kernel shares.

    A statement computes when it calls the vector API (Add, Exp, ReduceSum, Muls, Duplicate, Cast, ...) or is
    float arithmetic on the scalar unit (`float mean = ScalarOf(work) / cols;`, `acc += v;`, `expf(x)`). Copies
    (DataCopy), queue and buffer calls, tiling and index arithmetic, signatures, members and the `__global__` entry that
    runs the class are template: a renamed copy keeps every computing statement, another operator written on
    the same template shares few of them.
    """

    def __init__(self, root):
        from provenance.optables import ASCENDC_VECTOR, C_CALLS

        self.vector, self.scalar = frozenset(ASCENDC_VECTOR), frozenset(C_CALLS)
        self.floats = {name for d in walk(root)
                       if d.type in ("declaration", "field_declaration", "parameter_declaration")
                       and _FLOAT_TYPE.match(node_text(d.child_by_field_name("type")))
                       for name in declared_names(d)}
        self._memo: dict[int, bool] = {}
        self._computes: dict[int, bool] = {}

    def computes(self, node) -> bool:
        """Is this statement (or declaration) one that computes?"""
        if node.type not in _STATEMENTS:
            return False
        got = self._computes.get(node.id)
        if got is None:
            got = self._computes[node.id] = self._statement_computes(node)
        return got

    def _statement_computes(self, node) -> bool:
        calls, arithmetic, target = set(), False, None
        for n in walk(node):
            if n.type == "call_expression":
                calls.add(callee(n.child_by_field_name("function")))
            elif not n.is_named:
                arithmetic = arithmetic or (n.type in _ARITHMETIC and n.parent.type in _OPERATORS)
            elif target is None and n.type in ("assignment_expression", "update_expression"):
                target = n.child_by_field_name("left" if n.type == "assignment_expression" else "argument")
        if calls & self.vector:
            return True
        if node.type == "declaration":
            is_float = _FLOAT_TYPE.match(node_text(node.child_by_field_name("type"))) is not None
        else:
            is_float = target is not None and _name(target) in self.floats
        return is_float and (arithmetic or bool(calls & self.scalar))

    def holds(self, node) -> bool:
        """Does this node contain a statement that computes?"""
        got = self._memo.get(node.id)
        if got is None:
            got = self._memo[node.id] = self.computes(node) or any(self.holds(c) for c in node.named_children)
        return got


def _name(node) -> str:
    """The variable an lvalue names: `acc`, `this->acc`, `mu` -> acc, acc, mu."""
    if node.type == "field_expression":
        node = node.child_by_field_name("field")
    return node_text(node)


def declared_names(decl) -> list[str]:
    """The names a declaration, member or parameter declares (`GlobalTensor<float> xGm, yGm;` -> xGm, yGm)."""
    out = []
    for d in decl.children_by_field_name("declarator"):
        while d is not None and d.type not in ("identifier", "field_identifier"):
            d = d.child_by_field_name("declarator")
        if d is not None:
            out.append(node_text(d))
    return out
