"""A small C++ evaluator for a binding's statements over real tensors' metadata (ascendc-cpu's mapping).

It runs declarations, shape and dtype queries (`numel`, `size`, `sizes().slice`, `dim`, `options().dtype`),
allocations (`at::empty*`, `at::zeros*`, `at::full*`, `new_empty`), casts and arithmetic with C++'s integer rules,
checks (ignored), `if`s and bounded `for` loops around the operator call (a shape pushed back dimension by dimension),
the operator call (handed to a callback) and the return. A tensor's `data_ptr()` is a Ptr, resolved to its GM address
when the operator runs; a stream or device is Opaque. Anything else is a MappingError naming the line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from repair.ascendc.emu.binding import BindingPlan, statement_call
from repair.ascendc.emu.forward import MappingError

_CHECKS = {"TORCH_CHECK", "TORCH_INTERNAL_ASSERT", "AT_ASSERT", "TORCH_WARN", "C10_LOG", "AT_ASSERTM", "static_assert"}


@dataclass
class Ptr:
    """`t.data_ptr()`: the GM address of tensor t, resolved when the operator runs."""

    tensor: Any


@dataclass
class Options:
    dtype: Any = None  # a torch dtype, or None (the tensor's own / float32)


@dataclass
class Opaque:
    """A value ascendc-cpu does not model (a stream, a device): fine to pass to a void* parameter, nothing else."""

    text: str


_DTYPES = {
    "kFloat": "float32", "kFloat32": "float32", "Float": "float32", "kHalf": "float16", "kFloat16": "float16",
    "Half": "float16", "kBFloat16": "bfloat16", "BFloat16": "bfloat16", "kInt": "int32", "kInt32": "int32",
    "Int": "int32", "kLong": "int64", "kInt64": "int64", "Long": "int64", "kShort": "int16", "kInt16": "int16",
    "Short": "int16", "kChar": "int8", "kInt8": "int8", "Char": "int8", "kByte": "uint8", "kUInt8": "uint8",
    "Byte": "uint8", "kBool": "bool", "Bool": "bool", "kDouble": "float64", "kFloat64": "float64", "Double": "float64",
}
_INT_BITS = {"int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True), "uint16_t": (16, False),
             "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True), "uint64_t": (64, False),
             "int": (32, True), "unsigned": (32, False), "unsigned int": (32, False), "long": (64, True),
             "long long": (64, True), "unsigned long": (64, False), "size_t": (64, False), "char": (8, True),
             "short": (16, True)}
_LOOP_BOUND = 1 << 12  # a binding's loops walk a shape's dimensions; more is not a binding ascendc-cpu reads
_ALLOCATE = {"empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "new_empty",
             "new_zeros", "empty_strided"}


def convert(type_text: str, value: Any) -> Any:
    """A value converted as a C++ cast or declaration of `type_text` would."""
    t = re.sub(r"\b(const|volatile|static|std::|__gm__)\b|[&]", " ", type_text).strip()
    t = " ".join(t.split())
    if "*" in t or t in ("GM_ADDR", "void *", "void*"):
        return value
    if isinstance(value, (Ptr, Opaque)) or not isinstance(value, (int, float, bool)):
        return value
    if t in ("float",):
        import numpy as np

        return float(np.float32(value))
    if t in ("double", "long double"):
        return float(value)
    if t == "bool":
        return bool(value)
    if t in _INT_BITS:
        bits, signed = _INT_BITS[t]
        v = int(value)  # float -> integer truncates toward zero, as C++ does
        v &= (1 << bits) - 1
        return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v
    return value


class Evaluator:
    """Runs the binding function's statements over real tensors' metadata; the operator call goes to `on_call`."""

    def __init__(self, plan: BindingPlan, allocate: Callable[[tuple, Any, str, Any], Any]):
        self.plan, self.allocate = plan, allocate
        self.text = plan.unit.node_text

    def fail(self, node, what: str):
        raise MappingError(f"{self.plan.where(node)}: ascendc-cpu cannot evaluate `{self.text(node)[:80]}` in the "
                           f"binding ({what})")

    def run(self, args: list, on_call: Callable[[list], None]) -> Any:
        if len(args) != len(self.plan.params):
            raise MappingError(f"{self.plan.source.label()}: {self.plan.function} takes {len(self.plan.params)} "
                               f"arguments, ModelNew passes {len(args)}")
        env = {name: convert(t, v) if not _is_tensor(v) else v for (t, name), v in zip(self.plan.params, args)}
        return self.statements(self.plan.statements, env, on_call)

    def statements(self, statements, env: dict, on_call: Callable) -> Any:
        op_call = self.plan.call
        for st in statements:
            if st.type == "if_statement" and (op_call.start_byte > st.end_byte or op_call.end_byte < st.start_byte):
                # a branch before or after the operator call (`if (reduction == "none") out = empty_like(x);`):
                # its condition decides which statements run, as in C++
                cond = st.child_by_field_name("condition")
                cond = cond.named_children[-1] if cond.type == "condition_clause" else cond
                branch = st.child_by_field_name("consequence") if self.eval(cond, env) else \
                    st.child_by_field_name("alternative")
                if branch is not None and branch.type == "else_clause":
                    branch = branch.named_children[0] if branch.named_children else None
                if branch is not None:
                    body = branch.named_children if branch.type == "compound_statement" else [branch]
                    out = self.statements(body, env, on_call)
                    if out is not None:
                        return out
                continue
            if st is op_call:
                call = statement_call(st)
                nodes = call.child_by_field_name("arguments").named_children
                on_call([self.eval(a, env) for a in (nodes[1:] if self.plan.kind == "aclnn" else nodes)])
            elif st.type == "declaration":
                self.declare(st, env)
            elif st.type == "expression_statement":
                self.expression_statement(st, env)
            elif st.type == "for_statement" and not (st.start_byte <= op_call.start_byte < st.end_byte):
                self.for_statement(st, env, on_call)
            elif st.type == "return_statement":
                return self.eval(st.named_children[0], env) if st.named_children else None
            elif st.type == "comment":
                continue
            else:
                self.fail(st, f"a {st.type.replace('_', ' ')}; ascendc-cpu reads declarations, checks, `if`s that do "
                              "not hold the operator call, the operator call and a return")
        return None

    def declare(self, st, env: dict) -> None:
        type_node = st.child_by_field_name("type")
        type_text = self.text(type_node) if type_node is not None else "auto"
        for d in st.children_by_field_name("declarator"):
            if d.type != "init_declarator":
                name = re.findall(r"[A-Za-z_]\w*", self.text(d))
                # a default-constructed vector is empty (`std::vector<int64_t> shape;`, then push_back)
                if name:
                    empty = re.search(r"\b(vector|SmallVector)\s*<", type_text)
                    env[name[-1]] = [] if empty else Opaque(self.text(d))
                continue
            name = re.findall(r"[A-Za-z_]\w*", self.text(d.child_by_field_name("declarator")))[-1]
            value = d.child_by_field_name("value")
            if value.type == "argument_list":  # at::Tensor y(at::empty_like(x));
                parts = [self.text(a) for a in value.named_children]
                # std::vector<int64_t> v(shape.begin(), shape.end()): a copy of the shape
                if len(parts) == 2 and parts[0].endswith(".begin()") and parts[1] == parts[0][:-8] + ".end()":
                    fn = value.named_children[0].child_by_field_name("function")
                    env[name] = list(self.eval(fn.child_by_field_name("argument"), env))
                    continue
                value = value.named_children[0] if len(value.named_children) == 1 else value
            try:
                v = self.eval(value, env)
            except MappingError:
                v = Opaque(self.text(value))  # unused (a stream), or an error where it is used
            env[name] = convert(type_text, v)

    def expression_statement(self, st, env: dict) -> None:
        self.expression(st.named_children[0] if st.named_children else None, env)

    def for_statement(self, st, env: dict, on_call: Callable) -> None:
        """`for (init; cond; update) body` before or after the operator call (a shape built element by element),
        within _LOOP_BOUND iterations."""
        init, cond, update = (st.child_by_field_name(f) for f in ("initializer", "condition", "update"))
        body = st.child_by_field_name("body")
        if init is not None:
            self.declare(init, env) if init.type == "declaration" else self.expression(init, env)
        for _ in range(_LOOP_BOUND):
            if cond is not None and not self.eval(cond, env):
                return
            if self.statements(body.named_children if body.type == "compound_statement" else [body], env,
                               on_call) is not None:
                self.fail(st, "a return inside a loop")
            if update is not None:
                self.expression(update, env)
        self.fail(st, f"a loop of more than {_LOOP_BOUND} iterations")

    def expression(self, e, env: dict) -> None:
        if e is None:
            return
        if e.type == "update_expression" and e.child_by_field_name("argument").type == "identifier":  # i++, --i
            name = self.text(e.child_by_field_name("argument"))
            env[name] = self.binary("+" if "++" in self.text(e) else "-", env.get(name), 1, e)
            return
        if e.type == "assignment_expression":
            left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
            op = self.text(e.child_by_field_name("operator"))
            value = self.eval(right, env)
            if left.type == "identifier":
                name = self.text(left)
                env[name] = value if op == "=" else self.binary(op[:-1], env.get(name), value, e)
            elif left.type == "subscript_expression":  # sizes[d] = v, or sizes[d] /= 2 (compound, as C++ does)
                seq, i = self.eval(left.child_by_field_name("argument"), env), self.index(left, env)
                seq[i] = value if op == "=" else self.binary(op[:-1], seq[i], value, e)
            else:
                self.fail(e, "an assignment to something other than a local")
            return
        if e.type == "call_expression":
            fn = e.child_by_field_name("function")
            name = re.findall(r"[A-Za-z_]\w*", self.text(fn))
            if name and name[0] in _CHECKS:
                return
            if fn.type == "field_expression":  # a local vector's pop_back / push_back
                method = self.text(fn.child_by_field_name("field"))
                if method in ("pop_back", "push_back", "emplace_back", "clear"):
                    seq = self.eval(fn.child_by_field_name("argument"), env)
                    args = [self.eval(a, env) for a in e.child_by_field_name("arguments").named_children]
                    {"pop_back": lambda: seq.pop(), "clear": lambda: seq.clear()}.get(
                        method, lambda: seq.append(args[0]))()
                    return
        # another call (a second operator, a print): not the one that runs the candidate's kernel

    # -- expressions ----------------------------------------------------------------------------------------
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
        if t == "identifier":
            name = self.text(n)
            if name in env:
                return env[name]
            self.fail(n, "an unknown name")
        if t == "qualified_identifier":
            last = self.text(n).split("::")[-1]
            if last in _DTYPES:
                return _dtype(_DTYPES[last])
            self.fail(n, "an unknown name")
        if t == "parenthesized_expression":
            return self.eval(n.named_children[0], env)
        if t == "binary_expression":
            return self.binary(self.text(n.child_by_field_name("operator")), self.eval(n.child_by_field_name("left"), env),
                               self.eval(n.child_by_field_name("right"), env), n)
        if t == "unary_expression":
            v = self.eval(n.child_by_field_name("argument"), env)
            op = self.text(n.child_by_field_name("operator"))
            return {"-": lambda: -v, "+": lambda: v, "!": lambda: not v, "~": lambda: ~v}[op]()
        if t == "conditional_expression":
            c = self.eval(n.child_by_field_name("condition"), env)
            return self.eval(n.child_by_field_name("consequence" if c else "alternative"), env)
        if t == "cast_expression":
            return convert(self.text(n.child_by_field_name("type")), self.eval(n.child_by_field_name("value"), env))
        if t == "initializer_list":
            return [self.eval(c, env) for c in n.named_children]
        if t == "compound_literal_expression":
            return self.eval(n.child_by_field_name("value"), env)
        if t == "subscript_expression":
            seq = self.eval(n.child_by_field_name("argument"), env)
            return seq[self.index(n, env)]
        if t == "field_expression":
            return self.method(n, self.text(n.child_by_field_name("field")), [], env)
        if t == "call_expression":
            return self.call(n, env)
        self.fail(n, f"a {t.replace('_', ' ')}")

    def index(self, n, env: dict) -> int:
        idx = n.child_by_field_name("index") or n.child_by_field_name("indices")
        if idx is not None and idx.type == "subscript_argument_list":
            idx = idx.named_children[0]
        return int(self.eval(idx, env))

    def binary(self, op: str, a, b, n):
        if isinstance(a, (Opaque, Ptr)) or isinstance(b, (Opaque, Ptr)) or a is None or b is None:
            self.fail(n, "arithmetic on a value it does not model")
        if op == "/" and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
            if b == 0:
                self.fail(n, "a division by zero")
            q = abs(a) // abs(b)
            return q if (a >= 0) == (b >= 0) else -q
        if op == "%" and isinstance(a, int) and isinstance(b, int):
            r = abs(a) % abs(b)
            return r if a >= 0 else -r
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b, "<": lambda: a < b,
               ">": lambda: a > b, "<=": lambda: a <= b, ">=": lambda: a >= b, "==": lambda: a == b,
               "!=": lambda: a != b, "&&": lambda: a and b, "||": lambda: a or b, "&": lambda: a & b,
               "|": lambda: a | b, "^": lambda: a ^ b, "<<": lambda: a << b, ">>": lambda: a >> b}
        if op not in ops:
            self.fail(n, f"the operator {op}")
        return ops[op]()

    def call(self, n, env: dict) -> Any:
        fn, args_node = n.child_by_field_name("function"), n.child_by_field_name("arguments")
        arg_nodes = args_node.named_children if args_node is not None else []
        if fn.type == "template_function":  # static_cast<T>(v), reinterpret_cast<T>(v)
            name = self.text(fn.child_by_field_name("name"))
            if name in ("static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"):
                type_text = self.text(fn.child_by_field_name("arguments"))[1:-1]
                return convert(type_text, self.eval(arg_nodes[0], env))
            if name.split("::")[-1] in ("vector", "IntArrayRef", "SmallVector"):
                return [self.eval(a, env) for a in arg_nodes]
            self.fail(n, "a template call")
        if fn.type == "field_expression":
            field_node = fn.child_by_field_name("field")
            method = self.text(field_node.child_by_field_name("name") if field_node.type == "template_method"
                               else field_node)
            return self.method(fn, method, arg_nodes, env)
        name = self.text(fn)
        last = name.split("::")[-1]
        args = [self.eval(a, env) for a in arg_nodes]
        if last in _ALLOCATE:
            return self.alloc(last, args, n)
        if last in ("min", "max") and len(args) == 2:
            return min(args) if last == "min" else max(args)
        if last in ("ceil", "floor") and len(args) == 1:
            import math

            return float(getattr(math, last)(args[0]))
        if last in ("TensorOptions",):
            return Options(args[0] if args and not isinstance(args[0], Opaque) else None)
        if last in ("IntArrayRef", "vector", "SmallVector", "make_tuple", "tuple", "forward_as_tuple"):
            return list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
        if last in ("dtype",) and args:
            return Options(args[0])
        if last in ("ConvertTensorToAclScaler", "ConvertTensorToAclScalar") and len(args) == 1 and \
                _is_tensor(args[0]):
            return args[0]  # an OpDef input declared .Scalar(): aclnn hands the kernel the value as a tensor
        self.fail(n, f"a call of {name}")

    def method(self, n, method: str, arg_nodes, env: dict) -> Any:
        obj = self.eval(n.child_by_field_name("argument"), env)
        args = [self.eval(a, env) for a in arg_nodes]
        if _is_tensor(obj):
            return self.tensor_method(obj, method, args, n)
        if isinstance(obj, Options):
            if method == "dtype" and args:
                return Options(args[0])
            if method in ("device", "layout", "requires_grad", "memory_format", "pinned_memory"):
                return obj
        if isinstance(obj, str) and method in ("c_str", "data"):
            return obj
        if isinstance(obj, (list, tuple)):
            seq = list(obj)
            if method == "slice":  # ArrayRef::slice(N, M): drop N, keep M
                return seq[args[0]:] if len(args) == 1 else seq[args[0]:args[0] + args[1]]
            if method == "vec":
                return seq
            if method == "size":
                return len(seq)
            if method == "back":
                return seq[-1]
            if method == "front":
                return seq[0]
            if method == "at":
                return seq[args[0]]
            if method == "data":
                return seq
        if isinstance(obj, Opaque):
            return Opaque(f"{obj.text}.{method}()")
        self.fail(n, f"the method {method}")

    def tensor_method(self, t, method: str, args: list, n) -> Any:
        if method == "numel":
            return int(t.numel())
        if method in ("size", "sizes"):
            if method == "sizes" or not args:
                return list(t.shape)
            return int(t.shape[args[0]])
        if method in ("dim", "ndimension"):
            return t.dim()
        if method == "stride":
            return int(t.stride(args[0])) if args else list(t.stride())
        if method in ("strides",):
            return list(t.stride())
        if method in ("data_ptr", "const_data_ptr", "mutable_data_ptr"):
            return Ptr(t)
        if method == "options":
            return Options(t.dtype)
        if method in ("dtype", "scalar_type"):
            return t.dtype
        if method in ("is_contiguous",):
            return True
        if method in ("contiguous",):
            return t.contiguous()
        if method in ("element_size", "itemsize"):
            return t.element_size()
        if method == "nbytes":
            return t.numel() * t.element_size()
        if method in ("view", "reshape"):
            return t.reshape([int(v) for v in (args[0] if isinstance(args[0], (list, tuple)) else args)])
        if method in ("new_empty", "new_zeros"):
            return self.alloc("empty" if method == "new_empty" else "zeros", [args[0], Options(t.dtype)], n)
        if method in ("device", "is_npu", "is_cuda"):
            return Opaque(method)
        self.fail(n, f"the tensor method {method}")

    def alloc(self, how: str, args: list, n) -> Any:
        opts = next((a for a in args[1:] if isinstance(a, Options)), None)
        dtype = opts.dtype if opts is not None else next((a for a in args[1:] if _is_dtype(a)), None)
        if how.endswith("_like"):
            like = args[0]
            if not _is_tensor(like):
                self.fail(n, f"{how} of something that is not a tensor")
            shape, dtype = list(like.shape), dtype or like.dtype
        else:
            shape = args[0]
            if isinstance(shape, (int, float)):
                shape = [shape]
            if not isinstance(shape, (list, tuple)):
                self.fail(n, "an allocation whose shape it cannot read")
            dtype = dtype or _dtype("float32")
        fill = {"zeros": 0, "zeros_like": 0, "new_zeros": 0, "ones": 1, "ones_like": 1}.get(how)
        if how in ("full", "full_like"):
            fill = args[1]
        return self.allocate(tuple(int(s) for s in shape), dtype, how, fill)


def _number(text: str) -> int | float:
    s = text.replace("'", "").rstrip("uUlLfF") if not text.lower().startswith("0x") else text.rstrip("uUlL")
    if s.lower().startswith("0x"):
        return int(s, 16)
    if re.fullmatch(r"[+-]?\d+", s):
        return int(s)
    return float(s)


def _is_tensor(v) -> bool:
    return type(v).__name__ == "Tensor" and hasattr(v, "shape")


def _is_dtype(v) -> bool:
    return type(v).__name__ == "dtype"


def _dtype(name: str):
    import torch

    return getattr(torch, name)
