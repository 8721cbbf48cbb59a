"""ModelNew read, never run: which of forward's inputs and __init__'s attributes the extension call receives.

`ModelNew.forward`'s call of the extension (`custom_ops_lib.add_custom(x, y, self.eps)`) says which of the forward's
inputs, `__init__`'s attributes and constants go to the bound C++ function, in order (repair/ascendc/emu/binding.py
takes it from there). Anything else is a MappingError naming the line; every case then errors.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from repair.ascendc.candidate import AscendCCandidate
from repair.errors import RepairError


class MappingError(RepairError):
    """The candidate's model or binding says something ascendc-cpu cannot map onto the operator (every case errors)."""

    case_status = "error"


_REQUIRED = object()


@dataclass
class ForwardCall:
    """What ModelNew does with its arguments: `__init__` stores attributes, `forward` calls the extension once."""

    init_params: list[tuple[str, Any]]  # (name, default or _REQUIRED)
    attrs: dict[str, tuple[str, Any]]  # self.<name> -> ("param", init parameter) | ("const", value)
    forward_params: list[str]
    function: str  # the extension function forward calls
    args: list[ast.expr]
    where: str  # file:line of the call

    def init_values(self, init: list) -> dict[str, Any]:
        """The attributes ModelNew(*init) stores."""
        params: dict[str, Any] = {}
        for i, (name, default) in enumerate(self.init_params):
            if i < len(init):
                params[name] = init[i]
            elif default is not _REQUIRED:
                params[name] = default
        if len(init) > len(self.init_params):
            raise MappingError(f"{self.where}: ModelNew takes {len(self.init_params)} arguments, the problem's "
                               f"get_init_inputs gives {len(init)}")
        out = {}
        for name, (kind, value) in self.attrs.items():
            if kind == "const":
                out[name] = value
            elif value in params:
                out[name] = params[value]
        return out

    def call_args(self, attrs: dict[str, Any], inputs: list) -> list:
        """The extension call's arguments for one forward."""
        if len(inputs) != len(self.forward_params):
            raise MappingError(f"{self.where}: forward takes {len(self.forward_params)} inputs, the case has "
                               f"{len(inputs)}")
        env = dict(zip(self.forward_params, inputs))
        return [self._value(a, env, attrs) for a in self.args]

    def _value(self, node: ast.expr, env: dict, attrs: dict) -> Any:
        if isinstance(node, ast.Name) and node.id in env:
            return env[node.id]
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
                and node.attr in attrs):
            return attrs[node.attr]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return -node.operand.value
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args
                and node.func.attr in ("contiguous", "clone")):  # the same values, laid out as the kernel reads them
            return self._value(node.func.value, env, attrs).contiguous()
        raise MappingError(f"{self.where}: ascendc-cpu maps forward's own inputs, self attributes and constants onto "
                           f"the extension call, not `{ast.unparse(node)}`")


def forward_call(cand: AscendCCandidate) -> ForwardCall:
    """ModelNew's mapping onto the extension, read from its source (MappingError when it has none)."""
    model = cand.model
    tree = ast.parse(model.text)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"), None)
    if cls is None:
        raise MappingError(f"{model.label()}: defines no class ModelNew")
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    init_params, attrs = _init(methods.get("__init__"))
    forward = methods.get("forward")
    if forward is None:
        raise MappingError(f"{model.label()}: ModelNew defines no forward")
    names = {cand.extension} | {a.asname for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
                                if a.name == cand.extension and a.asname}
    calls = [n for n in ast.walk(forward) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Name) and n.func.value.id in names]
    file, line = model.where(forward.lineno)
    if not calls:
        raise MappingError(f"{file}:{line}: ModelNew.forward calls no function of the extension "
                           f"{cand.extension or '(the binding names none)'}: nothing of the candidate runs on "
                           "ascendc-cpu")
    call = calls[0]
    if call.keywords:
        raise MappingError(f"{file}:{model.where(call.lineno)[1]}: keyword arguments to {call.func.attr} "
                           "(pybind11 maps positional ones here)")
    params = [a.arg for a in forward.args.args[1:]]
    return ForwardCall(init_params, attrs, params, call.func.attr, list(call.args),
                       f"{file}:{model.where(call.lineno)[1]}")


def _init(init: ast.FunctionDef | None) -> tuple[list[tuple[str, Any]], dict[str, tuple[str, Any]]]:
    if init is None:
        return [], {}
    args = init.args.args[1:]
    defaults = [_REQUIRED] * (len(args) - len(init.args.defaults)) + [
        d.value if isinstance(d, ast.Constant) else _REQUIRED for d in init.args.defaults]
    params = [(a.arg, d) for a, d in zip(args, defaults)]
    names = {a.arg for a in args}
    attrs: dict[str, tuple[str, Any]] = {}
    for node in ast.walk(init):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        t = node.targets[0]
        if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in names:
            attrs[t.attr] = ("param", node.value.id)
        elif isinstance(node.value, ast.Constant):
            attrs[t.attr] = ("const", node.value.value)
        elif (isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
              and node.value.func.id in ("float", "int", "bool") and len(node.value.args) == 1
              and isinstance(node.value.args[0], ast.Name) and node.value.args[0].id in names):
            attrs[t.attr] = ("param", node.value.args[0].id)
    return params, attrs
