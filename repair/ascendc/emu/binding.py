"""The binding read for evaluation: each bound C++ function, the helpers it calls, and what runs the operator.

The functions ModelNew calls are found through PYBIND11_MODULE's m.defs (repair/ascendc/emu/forward.py). Two kinds
of call run the operator wherever they stand in the function or a helper it calls (under an `if`, in a loop): an
`EXEC_NPU_CMD(aclnn<Op>, ...)` (the OpDef's inputs, attributes and outputs, in order) or a call, direct or through a
macro, of a direct launch's host function (one whose body launches a kernel with `<<<>>>`). The statements are
evaluated per call by repair/ascendc/emu/cxxeval.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from repair.ascendc.candidate import AscendCCandidate, SourceFile
from repair.ascendc.cxx import Func, Program, Unit, unit
from repair.ascendc.emu.forward import MappingError, bound_names


@dataclass
class BindingProgram:
    """The binding's sources read together: bound names, helpers, globals, launchers."""

    cand: AscendCCandidate
    program: Program
    sources: dict[int, SourceFile]  # id(unit) -> its source
    bound: dict[str, tuple[str, list[str]]]  # Python name -> (C++ function, py::arg names)
    launchers: set[str]  # a direct launch's host functions (their body has a <<<>>> launch)
    kind: str  # "aclnn" (msopgen formats) or "launch" (a direct launch)

    def where(self, u: Unit, node) -> str:
        src = self.sources.get(id(u))
        if src is None:
            return f"line {node.start_point[0] + 1}"
        file, line = src.where(node.start_point[0] + 1)
        return f"{file}:{line}"

    def function(self, name: str) -> Func | None:
        """The binding's own function `name` (a helper or a bound function), not a kernel or launcher."""
        funcs = [f for f in self.program.by_name.get(name, []) if f.name != "PYBIND11_MODULE" and not f.is_global
                 and id(f.unit) in self.sources and self.sources[id(f.unit)].role == "binding"]
        return funcs[0] if funcs else None

    def operator_call(self, u: Unit, call) -> tuple[str, str] | None:
        """("aclnn", "aclnnAddCustom") for an EXEC_NPU_CMD, ("launch", host function) for a direct launch's
        host function, else None."""
        fn = call.child_by_field_name("function")
        if fn is None:
            return None
        names = re.findall(r"[A-Za-z_]\w*", u.node_text(fn))
        if not names:
            return None
        expanded = self.program.expand(names[-1])
        args = call.child_by_field_name("arguments")
        if "EXEC_NPU_CMD" in expanded and args is not None and args.named_children:
            return "aclnn", u.node_text(args.named_children[0]).strip()
        hit = sorted(expanded & self.launchers)
        return ("launch", hit[0]) if hit else None

    def plan(self, function: str) -> "BindingPlan":
        """The bound function ModelNew calls as `function` (MappingError naming the line when there is none)."""
        binding = self.cand.of("binding")[0]
        if function not in self.bound:
            raise MappingError(f"{binding.label()}: the binding does not m.def {function!r}, which ModelNew calls")
        target = self.bound[function][0]
        f = self.function(target)
        if f is None:
            raise MappingError(f"{binding.label()}: m.def({function!r}) binds {target}, which no binding source "
                               "defines (ascendc-cpu maps a named function, not a lambda)")
        return BindingPlan(function, f, _params(f), self)

    def reached(self, f: Func, seen: set[int] | None = None) -> list[tuple[str, str, str]]:
        """Every operator call the function and its helpers could make: (kind, name, where)."""
        seen = set() if seen is None else seen
        if id(f.node) in seen:
            return []
        seen.add(id(f.node))
        out = []
        for node in _calls(f.node.child_by_field_name("body")):
            hit = self.operator_call(f.unit, node)
            if hit is not None:
                out.append((*hit, self.where(f.unit, node)))
                continue
            fn = node.child_by_field_name("function")
            names = re.findall(r"[A-Za-z_]\w*", f.unit.node_text(fn)) if fn is not None else []
            helper = self.function(names[-1]) if names else None
            if helper is not None:
                out += self.reached(helper, seen)
        return out


@dataclass
class BindingPlan:
    """One bound C++ function: its parameters and statements, and the binding it belongs to."""

    name: str  # the Python name ModelNew calls
    func: Func
    params: list[tuple[str, str]]  # (type, name): ("const at::Tensor", "x"), ("double", "eps")
    binding: BindingProgram = field(repr=False)

    @property
    def function(self) -> str:
        return self.func.name

    @property
    def unit(self) -> Unit:
        return self.func.unit

    @property
    def source(self) -> SourceFile:
        return self.binding.sources[id(self.func.unit)]

    @property
    def statements(self) -> list:
        body = self.func.node.child_by_field_name("body")
        return [s for s in body.named_children if s.type != "comment"]

    def where(self, node) -> str:
        return self.binding.where(self.func.unit, node)

    def check_op_api(self) -> None:
        """OpApiUnsupported when this function runs only op-API functions of the candidate's (aclnn<Name> over
        l0op:: calls), never its operator directly: checked at the build, before any of the candidate's code runs."""
        reached = self.binding.reached(self.func)
        if any(r[0] == "launch" or r[1] == f"aclnn{self.binding.cand.op}" for r in reached):
            return
        for kind, acl, where in reached:
            if kind == "aclnn":
                op_api_unsupported(self.binding.cand, acl, where)

    def check_reaches_operator(self) -> None:
        """MappingError when nothing this function can reach runs the candidate's own operator."""
        reached = self.binding.reached(self.func)
        cand = self.binding.cand
        own = [r for r in reached if r[0] == "launch" or r[1] == f"aclnn{cand.op}"]
        if own:
            return
        other = [r for r in reached if r[0] == "aclnn"]
        if other:
            kind, acl, where = other[0]
            raise MappingError(f"{where}: the binding runs {acl}, another operator than the candidate's own "
                               f"(aclnn{cand.op}): on the NPU that is CANN's kernel, not the candidate's, and nothing "
                               "of the candidate runs on ascendc-cpu")
        raise MappingError(f"{self.where(self.func.node)}: {self.function} runs no EXEC_NPU_CMD(aclnn"
                           f"{cand.op or '<Op>'}, ...) and calls no host function that launches a kernel: nothing of "
                           "the candidate runs on ascendc-cpu")


class OpApiUnsupported(MappingError):
    """The binding calls an op-API function of the candidate's (aclnn<Name> over l0op:: calls): a layer ascendc-cpu
    does not emulate, so the case is `unsupported` (this environment cannot judge it), not wrong."""

    case_status = "unsupported"


def op_api_unsupported(cand: AscendCCandidate, name: str, where: str) -> None:
    """OpApiUnsupported when a host source of `cand` defines `name` as an op-API function (`<name>GetWorkspaceSize`
    beside it, over l0op:: calls): on the NPU it runs the candidate's kernel among CANN's operators."""
    from repair.ascendc.emu.api import Unsupported

    for s in cand.of("host_operator"):
        if re.search(rf"\b{re.escape(name)}GetWorkspaceSize\s*\(", s.text) and re.search(r"\bl0op::", s.text):
            raise OpApiUnsupported(f"{Unsupported('l0op', where, False).message()}: the binding runs {name}, an "
                                   f"op-API function {s.name} defines over l0op:: calls around the kernel of "
                                   f"aclnn{cand.op}")


def binding_program(cand: AscendCCandidate) -> BindingProgram:
    direct = cand.format == "mkb-direct"
    sources = cand.of("binding", "launch", *(("kernel",) if direct else ()))
    program = Program(unit(s.text) for s in sources)
    launchers = {g.name for u in (unit(s.text) for s in cand.of("kernel", "launch")) for g in u.funcs
                 if not g.is_global and any(c.launch for c in u.calls(g.node))}
    return BindingProgram(cand, program, {id(unit(s.text)): s for s in sources}, bound_names(cand), launchers,
                          "launch" if direct else "aclnn")


def binding_plan(cand: AscendCCandidate, function: str) -> BindingPlan:
    """The bound function `function` (the name ModelNew calls), checked to reach the candidate's operator."""
    plan = binding_program(cand).plan(function)
    plan.check_reaches_operator()
    return plan


def launch_function(cand: AscendCCandidate) -> str | None:
    """The direct launch's host function the build exports: the first one a bound function reaches."""
    if cand.format != "mkb-direct":
        return None
    b = binding_program(cand)
    for name in b.bound:
        f = b.function(b.bound[name][0])
        if f is None:
            continue
        hits = [r[1] for r in b.reached(f) if r[0] == "launch"]
        if hits:
            return hits[0]
    return sorted(b.launchers)[0] if b.launchers else None


def _params(f: Func) -> list[tuple[str, str]]:
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


def _calls(root) -> list:
    out, stack = [], [root] if root is not None else []
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            out.append(n)
        stack.extend(reversed(n.children))
    return out


def statement_call(st) -> Any:
    if st.type != "expression_statement" or not st.named_children:
        return None
    e = st.named_children[0]
    return e if e.type == "call_expression" else None
