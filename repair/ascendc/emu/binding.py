"""The binding read, never run: the bound C++ function and the statement that runs the operator.

The function ModelNew calls is found through PYBIND11_MODULE's m.def; its statement that runs the operator is an
`EXEC_NPU_CMD(aclnn<Op>, ...)` (the OpDef's inputs, attributes and outputs, in order) or a call, direct or through a
macro, of the direct launch's host function (the one whose body launches a kernel with `<<<>>>`). The statements are
evaluated per forward by repair/ascendc/emu/cxxeval.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from repair.ascendc.candidate import AscendCCandidate, SourceFile
from repair.ascendc.cxx import Program, Unit, unit
from repair.ascendc.emu.forward import MappingError


@dataclass
class BindingPlan:
    """The bound C++ function: its parameters, its statements, and the one that runs the operator."""

    function: str
    params: list[tuple[str, str]]  # (type, name): ("const at::Tensor", "x"), ("double", "eps")
    statements: list  # tree-sitter nodes of its body, in order
    call: Any  # the statement that runs the operator
    kind: str  # "aclnn" (EXEC_NPU_CMD) or "launch" (a direct launch's host function)
    launch_fn: str | None  # the host function a direct launch calls
    source: SourceFile
    unit: Unit = field(repr=False)

    def where(self, node) -> str:
        file, line = self.source.where(node.start_point[0] + 1)
        return f"{file}:{line}"


def binding_plan(cand: AscendCCandidate, function: str) -> BindingPlan:
    """The bound function `function` (the name ModelNew calls) and how it reaches the operator."""
    direct = cand.format == "mkb-direct"
    sources = cand.of("binding", "launch", *(("kernel",) if direct else ()))
    program = Program(unit(s.text) for s in sources)
    src_of = {id(unit(s.text)): s for s in sources}
    target = None
    for f in program.functions():
        if f.name != "PYBIND11_MODULE":
            continue
        for c in f.unit.calls(f.node):
            if c.name == "def" and len(c.args) >= 2 and c.args[0].strip('"') == function:
                target = re.sub(r"^&", "", c.args[1].strip()).split("::")[-1]
    binding = cand.of("binding")[0]
    if target is None:
        raise MappingError(f"{binding.label()}: the binding does not m.def {function!r}, which ModelNew calls")
    funcs = [f for f in program.by_name.get(target, []) if f.name != "PYBIND11_MODULE"]
    if not funcs:
        raise MappingError(f"{binding.label()}: m.def({function!r}) binds {target}, which no binding source defines "
                           "(ascendc-cpu maps a named function, not a lambda)")
    f = funcs[0]
    src = src_of[id(f.unit)]
    body = f.node.child_by_field_name("body")
    statements = [s for s in body.named_children if s.type != "comment"]
    params = _params(f)
    # a direct launch's host functions: those whose body launches a kernel with <<<>>>
    launchers = {g.name for u in (unit(s.text) for s in cand.of("kernel", "launch")) for g in u.funcs
                 if not g.is_global and any(c.launch for c in u.calls(g.node))}
    for st in statements:
        call = statement_call(st)
        if call is None:
            continue
        fn = call.child_by_field_name("function")
        name = re.findall(r"[A-Za-z_]\w*", f.unit.node_text(fn))[-1] if fn is not None else ""
        names = program.expand(name)
        args = call.child_by_field_name("arguments")
        if "EXEC_NPU_CMD" in names and args is not None and args.named_children:
            acl = f.unit.node_text(args.named_children[0]).strip()
            if cand.op is None or acl != f"aclnn{cand.op}":
                raise MappingError(f"{_at(src, st)}: the binding runs {acl}, another operator than the candidate's "
                                   f"own (aclnn{cand.op}): nothing of the candidate runs on ascendc-cpu")
            return BindingPlan(target, params, statements, st, "aclnn", None, src, f.unit)
        hit = sorted(names & launchers)
        if hit:
            return BindingPlan(target, params, statements, st, "launch", hit[0], src, f.unit)
    raise MappingError(f"{_at(src, f.node)}: {target} runs no EXEC_NPU_CMD(aclnn{cand.op or '<Op>'}, ...) "
                       "and calls no host function that launches a kernel: nothing of the candidate runs on "
                       "ascendc-cpu")


def _params(f) -> list[tuple[str, str]]:
    """(type, name) of each parameter of a function (a pointer's type ends with `*`)."""
    out = []
    for p in f.node.child_by_field_name("declarator").child_by_field_name("parameters").named_children:
        t, d = p.child_by_field_name("type"), p.child_by_field_name("declarator")
        if t is None or d is None:
            continue
        decl = f.unit.node_text(d)
        name = re.findall(r"[A-Za-z_]\w*", decl)
        out.append((f.unit.node_text(t) + (" *" if "*" in decl else ""), name[-1] if name else ""))
    return out


def _at(src: SourceFile, node) -> str:
    file, line = src.where(node.start_point[0] + 1)
    return f"{file}:{line}"


def statement_call(st):
    if st.type != "expression_statement" or not st.named_children:
        return None
    e = st.named_children[0]
    return e if e.type == "call_expression" else None
