"""What a kernel file declares, read from its syntax tree: kernels and their parameters, launches, and the module's constructor.

Facts about meaning need these links: which launch argument feeds which kernel parameter (a stride, a
shape, a constructor attribute), which parameters a kernel never reads, what a constructor parameter
defaults to.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from ingest.rules.flow import named, span

_JIT = re.compile(r"\bjit\b")


@dataclass(frozen=True)
class Param:
    name: str
    constexpr: bool
    node: object
    default: str | None = None


@dataclass
class Kernel:
    name: str
    node: object  # function_definition
    params: list[Param]

    @cached_property
    def body(self):
        return self.node.field("body")

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    @cached_property
    def reads(self) -> set[str]:
        """Identifiers the body reads (a name the body never mentions is an unused parameter)."""
        return {n.text() for n in _identifiers(self.body)} if self.body is not None else set()

    def unused(self) -> list[Param]:
        return [p for p in self.params if p.name not in self.reads]


@dataclass
class Launch:
    kernel: Kernel
    call: object  # the call node kernel[grid](...)
    grid: object
    args: list  # argument nodes, positional then keyword_argument
    host: object  # the function the launch is in (its scope)

    def arg_for(self, name: str):
        """The argument node that binds kernel parameter `name` (the keyword's value for a keyword)."""
        value = keyword(self.args, name)
        if value is not None:
            return value
        given = positional(self.args)
        for i, p in enumerate(self.kernel.params):
            if p.name == name:
                return given[i] if i < len(given) else None
        return None


@dataclass
class Module:
    """The file: its kernels, the launches of them, and ModelNew's constructor."""

    root: object
    kernels: dict[str, Kernel] = field(default_factory=dict)
    launches: list[Launch] = field(default_factory=list)
    init: object | None = None  # ModelNew.__init__ (any class with a forward, else None)
    forward: object | None = None
    init_defaults: dict[str, str] = field(default_factory=dict)  # constructor parameter -> default text
    attrs: dict[str, str] = field(default_factory=dict)  # self.<attr> -> constructor parameter it stores

    def kernel_of(self, node) -> Kernel | None:
        s0, s1 = span(node)
        for k in self.kernels.values():
            a, b = span(k.node)
            if a <= s0 and s1 <= b:
                return k
        return None

    def launches_of(self, kernel: Kernel) -> list[Launch]:
        return [ln for ln in self.launches if ln.kernel is kernel]

    def launch_at(self, node) -> Launch | None:
        """The launch whose call is exactly this node."""
        return next((ln for ln in self.launches if span(ln.call) == span(node)), None)

    def attr_default(self, attr: str) -> str | None:
        param = self.attrs.get(attr)
        return self.init_defaults.get(param) if param else None


def parse_module(root) -> Module:
    mod = Module(root)
    for fn in root.find_all(kind="function_definition"):
        parent = fn.parent()
        if parent is not None and parent.kind() == "decorated_definition" and any(
                d.kind() == "decorator" and _JIT.search(d.text()) for d in parent.children()):
            name = fn.field("name").text()
            mod.kernels[name] = Kernel(name, fn, _params(fn))
    for call in root.find_all(kind="call"):
        fn = call.field("function")
        if fn is None or fn.kind() != "subscript":
            continue
        value = fn.field("value")
        if value is None or value.text() not in mod.kernels:
            continue
        subs = [c for c in named(fn) if c is not None and span(c) != span(value)]
        args = arguments(call)
        host = next((a for a in call.ancestors() if a.kind() == "function_definition"), root)
        mod.launches.append(Launch(mod.kernels[value.text()], call, subs[0] if subs else None, args, host))
    for cls in root.find_all(kind="class_definition"):
        methods = {f.field("name").text(): f for f in cls.find_all(kind="function_definition")}
        if "forward" not in methods:
            continue
        mod.forward, mod.init = methods["forward"], methods.get("__init__")
        if mod.init is not None:
            mod.init_defaults = {p.name: p.default for p in _params(mod.init) if p.default is not None}
            params = {p.name for p in _params(mod.init)}
            for asg in mod.init.find_all(kind="assignment"):
                left, right = asg.field("left"), asg.field("right")
                if left is None or right is None or left.kind() != "attribute" or left.field("object").text() != "self":
                    continue
                # self.a = p, or a conversion of exactly one parameter: float(p), p * 1.0, torch.tensor(p)
                used = {n.text() for n in [right, *right.find_all(kind="identifier")] if n.kind() == "identifier"}
                if len(used & params) == 1:
                    mod.attrs[left.field("attribute").text()] = (used & params).pop()
        break
    return mod


def _params(fn) -> list[Param]:
    out = []
    params = fn.field("parameters")
    for p in named(params) if params is not None else []:
        kind = p.kind()
        if kind == "identifier":
            out.append(Param(p.text(), False, p))
        elif kind in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            name = p.field("name") or next((c for c in named(p) if c.kind() == "identifier"), None)
            if name is None:
                continue
            typ = p.field("type")
            value = p.field("value")
            out.append(Param(name.text(), typ is not None and "constexpr" in typ.text(), p,
                             value.text() if value is not None else None))
    return [p for p in out if p.name != "self"]


def _identifiers(node):
    """Identifier nodes that read a variable (not attribute fields or keyword names)."""
    stack = [node]
    while stack:
        n = stack.pop()
        kind = n.kind()
        if kind == "identifier":
            yield n
            continue
        if kind == "attribute":
            obj = n.field("object")
            if obj is not None:
                stack.append(obj)
            continue
        if kind == "keyword_argument":
            value = n.field("value")
            if value is not None:
                stack.append(value)
            continue
        stack.extend(named(n))


def arguments(call) -> list:
    """A call's argument nodes, positional and keyword_argument, in order ([] when it has none)."""
    args = call.field("arguments")
    return named(args) if args is not None else []


def keyword(args: list, name: str):
    """The value node of keyword argument `name` among argument nodes (None when it is not given by keyword)."""
    return next((a.field("value") for a in args if a.kind() == "keyword_argument" and a.field("name").text() == name),
                None)


def positional(args: list) -> list:
    return [a for a in args if a.kind() != "keyword_argument"]


def number(text: str) -> float | None:
    """The value of a numeric literal's text (signed), else None."""
    try:
        return float(text.replace("_", ""))
    except ValueError:
        return None


def first_statement(fn):
    """The first statement of a function's body after its docstring (None for an empty body)."""
    body = fn.field("body")
    stmts = named(body) if body is not None else []
    for st in stmts:
        kids = named(st)
        if st.kind() == "expression_statement" and len(kids) == 1 and kids[0].kind() == "string":
            continue
        return st
    return None
