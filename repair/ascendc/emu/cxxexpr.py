"""Expressions of a binding's C++ (ascendc-cpu's mapping): literals, names (locals and namespace-scope tables),
operators with C++'s integer rules, assignments into locals, subscripts; calls go to the library (cxxlib.py).
"""
from __future__ import annotations

import re
from typing import Any

from repair.ascendc.emu.cxxvalues import _DTYPES, BindingOutOfRange, Opaque, Ptr, _dtype, _is_tensor, _number, convert


class Expressions:
    """The expression half of the Evaluator (cxxeval.py), which supplies text, where, fail, declare and truth."""

    def eval(self, n, env: dict) -> Any:
        t = n.type
        if t == "number_literal":
            return _number(self.text(n))
        if t in ("true", "false"):
            return t == "true"
        if t in ("nullptr", "null"):
            return Opaque("nullptr")
        if t == "string_literal":
            return self.text(n).strip('"')
        if t == "char_literal":
            return ord(self.text(n).strip("'")[:1] or "\0")
        if t == "identifier":
            return self.name(n, env)
        if t == "qualified_identifier":
            last = self.text(n).split("::")[-1]
            if last in _DTYPES:
                return _dtype(_DTYPES[last])
            return self.name(n, env, last)
        if t == "parenthesized_expression":
            return self.eval(n.named_children[-1], env)
        if t == "comma_expression":
            self.eval(n.child_by_field_name("left"), env)
            return self.eval(n.child_by_field_name("right"), env)
        if t == "binary_expression":
            op = self.text(n.child_by_field_name("operator"))
            left = self.eval(n.child_by_field_name("left"), env)
            if op in ("&&", "||") and not _is_tensor(left) and bool(left) == (op == "||"):
                return bool(left)  # short-circuit, as C++
            return self.binary(op, left, self.eval(n.child_by_field_name("right"), env), n)
        if t == "unary_expression":
            v = self.eval(n.child_by_field_name("argument"), env)
            op = self.text(n.child_by_field_name("operator"))
            return {"-": lambda: -v, "+": lambda: v, "!": lambda: not v, "~": lambda: ~v}[op]()
        if t == "update_expression":
            return self.update(n, env)
        if t == "assignment_expression":
            return self.assign(n, env)
        if t == "conditional_expression":
            c = self.truth(self.eval(n.child_by_field_name("condition"), env), n)
            return self.eval(n.child_by_field_name("consequence" if c else "alternative"), env)
        if t == "cast_expression":
            return convert(self.text(n.child_by_field_name("type")), self.eval(n.child_by_field_name("value"), env))
        if t == "initializer_list":
            return [self.eval(c, env) for c in n.named_children]
        if t == "compound_literal_expression":
            return self.eval(n.child_by_field_name("value"), env)
        if t == "subscript_expression":
            seq = self.eval(n.child_by_field_name("argument"), env)
            key = self.index(n, env)
            try:
                return seq[key]
            except (KeyError, IndexError, TypeError):
                self.fail(n, f"an index {key!r} the value does not have")
        if t == "field_expression":
            return self.method(n, self.text(n.child_by_field_name("field")), [], env)
        if t == "call_expression":
            return self.call(n, env)
        self.fail(n, f"a {t.replace('_', ' ')}")

    def name(self, n, env: dict, last: str | None = None) -> Any:
        name = last or self.text(n)
        if name in env:
            return env[name]
        if name not in self._globals:
            node = self._global_declaration(name)
            if node is None:
                self.fail(n, "an unknown name")
            genv: dict = {}
            self.declare(node, genv)  # a table the binding defines at namespace scope (a dtype map)
            self._globals[name] = genv.get(name)
        return self._globals[name]

    def _global_declaration(self, name: str):
        for u in self.binding.program.units:
            if id(u) not in self.binding.sources:
                continue
            for d in u.tree.root_node.named_children:
                if d.type != "declaration":
                    continue
                for decl in d.children_by_field_name("declarator"):
                    target = decl.child_by_field_name("declarator") if decl.type == "init_declarator" else decl
                    if target is not None and re.findall(r"[A-Za-z_]\w*", u.node_text(target))[-1:] == [name]:
                        if u is not self.unit:
                            self.fail(d, "a global of another source")
                        return d
        return None

    def update(self, n, env: dict) -> Any:
        target = n.child_by_field_name("argument")
        old = self.eval(target, env)
        new = old + 1 if "++" in self.text(n) else old - 1
        self.store(target, new, env, n)
        return new if self.text(n).lstrip().startswith(("++", "--")) else old

    def assign(self, e, env: dict) -> Any:
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        op = self.text(e.child_by_field_name("operator"))
        value = self.eval(right, env)
        if op != "=":
            value = self.binary(op[:-1], self.eval(left, env), value, e)
        self.store(left, value, env, e)
        return value

    def store(self, left, value, env: dict, e) -> None:
        if left.type == "identifier":
            env[self.text(left)] = value
        elif left.type == "subscript_expression":
            seq = self.eval(left.child_by_field_name("argument"), env)
            if not isinstance(seq, (list, dict)):
                self.fail(e, "an assignment into a value that is not a local vector or map")
            key = self.index(left, env)
            if isinstance(seq, list) and not (isinstance(key, int) and 0 <= key < len(seq)):
                self.fail(e, f"an element {key!r} of a vector of {len(seq)}: undefined behaviour in C++")
            seq[key] = value
        elif left.type == "call_expression" and self._element_ref(left, env) is not None:
            seq, key = self._element_ref(left, env)
            seq[key] = value
        elif left.type == "parenthesized_expression":
            self.store(left.named_children[-1], value, env, e)
        else:
            self.fail(e, "an assignment to something other than a local")

    def _element_ref(self, call, env: dict) -> tuple[list, int] | None:
        """`v.back()`, `v.front()`, `v.at(k)` of a local vector as an assignment's target: (the vector, the index),
        None for any other call. An empty vector's back()/front() is undefined behaviour in C++: an error here; at()
        past the end throws std::out_of_range (pybind11 raises it as an IndexError)."""
        fn = call.child_by_field_name("function")
        if fn is None or fn.type != "field_expression":
            return None
        method = self.text(fn.child_by_field_name("field"))
        if method not in ("back", "front", "at"):
            return None
        seq = self.eval(fn.child_by_field_name("argument"), env)
        if not isinstance(seq, list):
            return None
        args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        if method == "at":
            if len(args) != 1:
                return None
            k = self.eval(args[0], env)
            if not isinstance(k, int) or not 0 <= k < len(seq):
                raise BindingOutOfRange(f"{self.where(call)}: `{self.text(call)[:80]}` in the binding writes element "
                                        f"{k} of {len(seq)} (std::out_of_range)")
            return seq, k
        if not seq:
            self.fail(call, f"{method}() of an empty vector: undefined behaviour in C++")
        return seq, len(seq) - 1 if method == "back" else 0

    def index(self, n, env: dict) -> Any:
        idx = n.child_by_field_name("index") or n.child_by_field_name("indices")
        if idx is not None and idx.type == "subscript_argument_list":
            idx = idx.named_children[0]
        key = self.eval(idx, env)
        return int(key) if isinstance(key, (int, float)) and not isinstance(key, bool) else key

    def binary(self, op: str, a, b, n):
        if isinstance(a, (Opaque, Ptr)) or isinstance(b, (Opaque, Ptr)) or (a is None) != (b is None) and \
                op not in ("==", "!="):
            self.fail(n, "arithmetic on a value it does not model")
        if op == "/" and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
            if b == 0:
                self.fail(n, "a division by zero")
            q = abs(a) // abs(b)
            return q if (a >= 0) == (b >= 0) else -q
        if op == "%" and isinstance(a, int) and isinstance(b, int):
            if b == 0:
                self.fail(n, "a division by zero")
            r = abs(a) % abs(b)
            return r if a >= 0 else -r
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b, "<": lambda: a < b,
               ">": lambda: a > b, "<=": lambda: a <= b, ">=": lambda: a >= b, "==": lambda: a == b,
               "!=": lambda: a != b, "&&": lambda: bool(a) and bool(b), "||": lambda: bool(a) or bool(b),
               "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b, "<<": lambda: a << b, ">>": lambda: a >> b}
        if op not in ops:
            self.fail(n, f"the operator {op}")
        try:
            return ops[op]()
        except TypeError:
            self.fail(n, f"{op} between {type(a).__name__} and {type(b).__name__}")
