"""A small C++ evaluator for a binding's statements over real tensors' metadata (ascendc-cpu's mapping).

It runs a bound function's statements: declarations, if, for and while (bounded), return/break/continue, checks
(TORCH_CHECK raises as the extension would), helpers of the binding; expressions are cxxexpr.py, library calls
cxxlib.py and the values cxxvalues.py. The operator call (EXEC_NPU_CMD, a direct launch) is handed to a callback;
anything else is a MappingError naming the line.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from repair.ascendc.emu.binding import BindingPlan
from repair.ascendc.emu.cxxexpr import Expressions
from repair.ascendc.emu.cxxlib import Library
from repair.ascendc.emu.cxxvalues import (BindingCheckFailed, BindingOutOfRange, Opaque, Options, Ptr,  # noqa: F401
                                          _is_tensor, convert)
from repair.ascendc.emu.forward import MappingError

_CHECKS = {"TORCH_CHECK", "TORCH_INTERNAL_ASSERT", "AT_ASSERT", "TORCH_WARN", "C10_LOG", "AT_ASSERTM", "static_assert"}


class _Flow(Exception):
    """`return`, `break` or `continue` leaving the statements that run it."""

    def __init__(self, kind: str, value: Any = None):
        super().__init__(kind)
        self.kind, self.value = kind, value


_LOOP_LIMIT = 1 << 16  # iterations of one loop in a binding (they loop over dimensions, not elements)


class Evaluator(Expressions, Library):
    """Runs a bound function's statements (and its helpers') over real tensors' metadata; each call that runs the
    operator (EXEC_NPU_CMD, a direct launch's host function) goes to `on_call(kind, name, values, texts, where)`."""

    def __init__(self, plan: BindingPlan, allocate: Callable[[tuple, Any, str, Any], Any]):
        self.plan, self.allocate = plan, allocate
        self.binding = plan.binding
        self.unit = plan.unit
        self._globals: dict[str, Any] = {}
        self._depth = 0

    def text(self, node) -> str:
        return self.unit.node_text(node)

    def where(self, node) -> str:
        return self.binding.where(self.unit, node)

    def fail(self, node, what: str):
        raise MappingError(f"{self.where(node)}: ascendc-cpu cannot evaluate `{self.text(node)[:80]}` in the "
                           f"binding ({what})")

    def run(self, args: list, on_call: Callable) -> Any:
        self.on_call = on_call
        return self.invoke(self.plan.func, self.plan.params, args)

    def invoke(self, func, params: list[tuple[str, str]], args: list) -> Any:
        """A binding function called with `args` (by value; tensors are handles, as at::Tensor is)."""
        if len(args) != len(params):
            raise MappingError(f"{self.where(func.node)}: {func.name} takes {len(params)} arguments, it is given "
                               f"{len(args)}")
        self._depth += 1
        if self._depth > 16:
            self.fail(func.node, "calls nested more than 16 deep")
        saved, self.unit = self.unit, func.unit
        try:
            env = {name: convert(t, v) if not _is_tensor(v) else v for (t, name), v in zip(params, args)}
            body = func.node.child_by_field_name("body")
            self.block([s for s in body.named_children if s.type != "comment"], env)
            return None
        except _Flow as f:
            if f.kind != "return":
                self.fail(func.node, f"a {f.kind} outside a loop")
            return f.value
        finally:
            self.unit = saved
            self._depth -= 1

    def block(self, statements, env: dict) -> None:
        for st in statements:
            self.statement(st, env)

    def statement(self, st, env: dict) -> None:
        t = st.type
        if t == "compound_statement":
            self.block(st.named_children, env)
        elif t == "if_statement":
            cond = st.child_by_field_name("condition")
            cond = cond.named_children[-1] if cond.type == "condition_clause" else cond
            branch = st.child_by_field_name("consequence") if self.truth(self.eval(cond, env), cond) else \
                st.child_by_field_name("alternative")
            if branch is not None and branch.type == "else_clause":
                branch = branch.named_children[0] if branch.named_children else None
            if branch is not None:
                self.statement(branch, env)
        elif t == "for_statement":
            self.loop(st, env)
        elif t == "while_statement":
            self.loop(st, env, init=None)
        elif t == "declaration":
            self.declare(st, env)
        elif t == "expression_statement":
            self.expression_statement(st, env)
        elif t == "return_statement":
            raise _Flow("return", self.eval(st.named_children[0], env) if st.named_children else None)
        elif t in ("break_statement", "continue_statement"):
            raise _Flow(t.split("_")[0])
        elif t in ("comment", "empty_statement"):
            return
        else:
            self.fail(st, f"a {t.replace('_', ' ')}; ascendc-cpu reads declarations, expressions, if, for, while "
                          "and return")

    def loop(self, st, env: dict, init="initializer") -> None:
        first = st.child_by_field_name("initializer") if init else None
        if first is not None:
            self.statement(first, env) if first.type == "declaration" else self.eval(first, env)
        cond = st.child_by_field_name("condition")
        if cond is not None and cond.type == "condition_clause":
            cond = cond.named_children[-1]
        update, body = st.child_by_field_name("update"), st.child_by_field_name("body")
        for _ in range(_LOOP_LIMIT):
            if cond is not None and not self.truth(self.eval(cond, env), cond):
                return
            try:
                self.statement(body, env)
            except _Flow as f:
                if f.kind == "break":
                    return
                if f.kind != "continue":
                    raise
            if update is not None:
                self.eval(update, env)
        self.fail(st, f"a loop of more than {_LOOP_LIMIT} iterations")

    def truth(self, v: Any, node) -> bool:
        if isinstance(v, (Opaque, Ptr)):
            self.fail(node, "a condition on a value it does not model")
        if _is_tensor(v):
            return True  # a defined at::Tensor
        return bool(v)

    def declare(self, st, env: dict) -> None:
        type_node = st.child_by_field_name("type")
        type_text = self.text(type_node) if type_node is not None else "auto"
        for d in st.children_by_field_name("declarator"):
            if d.type != "init_declarator":
                name = re.findall(r"[A-Za-z_]\w*", self.text(d))
                if not name:
                    continue
                if re.search(r"\b(vector|SmallVector)\s*<", type_text):
                    env[name[-1]] = []  # `std::vector<at::Tensor> out;` an empty vector
                elif re.search(r"\b(unordered_)?map\s*<", type_text):
                    env[name[-1]] = {}
                else:  # `at::Tensor out;` is an undefined tensor; a stream or handle is opaque
                    env[name[-1]] = None if re.search(r"\bTensor\b", type_text) else Opaque(self.text(d))
                continue
            name = re.findall(r"[A-Za-z_]\w*", self.text(d.child_by_field_name("declarator")))[-1]
            value = d.child_by_field_name("value")
            if value.type == "argument_list":  # at::Tensor y(at::empty_like(x)); std::vector<int64_t> v(a, b);
                if len(value.named_children) == 1:
                    value = value.named_children[0]
                else:
                    env[name] = self.construct(type_text, [self.eval(a, env) for a in value.named_children], value)
                    continue
            try:
                v = self.eval(value, env)
            except MappingError:
                if self.calls_operator(value):
                    raise
                v = Opaque(self.text(value))  # unused (a stream), or an error where it is used
            env[name] = convert(type_text, v)

    def check(self, macro: str, e, env: dict) -> None:
        """TORCH_CHECK(cond, message...): raises as the extension would where the condition evaluates false here
        (one this evaluator cannot read is skipped: the kernel's own checks still run)."""
        if macro not in ("TORCH_CHECK", "TORCH_INTERNAL_ASSERT", "AT_ASSERT", "AT_ASSERTM"):
            return
        args = [a for a in e.child_by_field_name("arguments").named_children if a.type != "comment"]
        if not args:
            return
        try:
            ok = self.truth(self.eval(args[0], env), args[0])
        except MappingError:
            return
        if not ok:
            words = "".join(str(self._message_part(a, env)) for a in args[1:])
            raise BindingCheckFailed(f"{self.where(e)}: {macro}({self.text(args[0])}) failed in the binding"
                                     f"{': ' + words if words else ''}")

    def _message_part(self, a, env: dict) -> Any:
        """One argument of a check's message as c10::str prints it: a literal as written, a value as it is."""
        if a.type == "string_literal":
            return self.eval(a, env)
        try:
            v = self.eval(a, env)
        except MappingError:
            return self.text(a)
        return v if isinstance(v, (int, float, str)) else self.text(a)

    def calls_operator(self, node) -> bool:
        return any(self.binding.operator_call(self.unit, c) is not None for c in _calls_under(node))

    def expression_statement(self, st, env: dict) -> None:
        e = st.named_children[0] if st.named_children else None
        if e is None:
            return
        if e.type == "call_expression":
            fn = e.child_by_field_name("function")
            name = re.findall(r"[A-Za-z_]\w*", self.text(fn))
            if name and name[0] in _CHECKS:
                self.check(name[0], e, env)
                return
            hit = self.binding.operator_call(self.unit, e)
            helper = self.binding.function(name[-1]) if name and fn.type != "field_expression" else None
            if hit is None and helper is None and fn.type != "field_expression" and name:
                return  # another call (a print, a log): not one that runs the candidate's kernel
        self.eval(e, env)

    # -- expressions ----------------------------------------------------------------------------------------


def _calls_under(node) -> list:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            out.append(n)
        stack.extend(n.children)
    return out
