"""The library a binding's C++ calls (ascendc-cpu's mapping): at:: allocations, shape and dtype queries of a
tensor, std::vector/map/string methods, casts, TensorOptions; the operator call itself goes to the Evaluator's callback.
"""
from __future__ import annotations

import re
from typing import Any

from repair.ascendc.emu.cxxvalues import (BindingOutOfRange, Opaque, Options, Ptr, _dtype, _is_dtype, _is_tensor, _Iter,
                                          convert)

_ALLOCATE = {"empty", "empty_like", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "new_empty",
             "new_zeros", "empty_strided"}



class Library:
    """The call half of the Evaluator (cxxeval.py), which supplies eval, invoke, fail, where and binding."""

    def construct(self, type_text: str, args: list, node) -> Any:
        """`std::vector<int64_t> v(begin, end)` / `v(n, value)`."""
        if re.search(r"vector|SmallVector", type_text):
            if len(args) == 2 and isinstance(args[0], _Iter) and isinstance(args[1], _Iter):
                return list(args[0].seq[args[0].at:args[1].at])
            if len(args) == 2 and isinstance(args[0], int):
                return [args[1]] * args[0]
        self.fail(node, f"a construction of {type_text}")

    def call(self, n, env: dict) -> Any:
        fn, args_node = n.child_by_field_name("function"), n.child_by_field_name("arguments")
        arg_nodes = [a for a in args_node.named_children if a.type != "comment"] if args_node is not None else []
        hit = self.binding.operator_call(self.unit, n)
        if hit is not None:  # EXEC_NPU_CMD(aclnn<Op>, ...) or the direct launch's host function: the kernel runs
            kind, name = hit
            nodes = arg_nodes[1:] if kind == "aclnn" else arg_nodes
            return self.on_call(kind, name, [self.eval(a, env) for a in nodes], [self.text(a) for a in nodes],
                                self.where(n))
        if fn.type == "template_function":  # static_cast<T>(v), reinterpret_cast<T>(v)
            name = self.text(fn.child_by_field_name("name"))
            if name in ("static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"):
                type_text = self.text(fn.child_by_field_name("arguments"))[1:-1]
                return convert(type_text, self.eval(arg_nodes[0], env))
            if name.split("::")[-1] in ("vector", "IntArrayRef", "SmallVector"):
                return [self.eval(a, env) for a in arg_nodes]
            if name.split("::")[-1] in ("optional", "make_optional") and arg_nodes:
                return self.eval(arg_nodes[0], env)
            self.fail(n, "a template call")
        if fn.type == "field_expression":
            field_node = fn.child_by_field_name("field")
            method = self.text(field_node.child_by_field_name("name") if field_node.type == "template_method"
                               else field_node)
            return self.method(fn, method, arg_nodes, env)
        name = self.text(fn)
        last = name.split("::")[-1]
        helper = self.binding.function(last) if fn.type == "identifier" else None
        args = [self.eval(a, env) for a in arg_nodes]
        if helper is not None:  # a function of the binding's own: its statements run
            from repair.ascendc.emu.binding import _params

            return self.invoke(helper, _params(helper), args)
        if last in _ALLOCATE:
            return self.alloc(last, args, n)
        if last == "Tensor" and not args:
            return None  # at::Tensor(): an undefined tensor (an absent optional input)
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
        if last == "ConvertType" and len(args) == 1:
            return args[0]  # aclnn's conversion of an IntArrayRef, a scalar or a tensor: the same value
        if last in ("string", "to_string") and len(args) == 1:
            return str(args[0])
        self.fail(n, f"a call of {name}")

    def method(self, n, method: str, arg_nodes, env: dict) -> Any:
        obj = self.eval(n.child_by_field_name("argument"), env)
        args = [self.eval(a, env) for a in arg_nodes]
        if method in ("has_value", "defined") and (obj is None or _is_tensor(obj)):
            return obj is not None  # c10::optional<at::Tensor>, at::Tensor::defined
        if method in ("value", "value_or") and (obj is None or _is_tensor(obj)):
            if obj is None and method == "value":
                self.fail(n, "the value of an empty optional")
            return obj if obj is not None else args[0]
        if _is_tensor(obj):
            return self.tensor_method(obj, method, args, n)
        if isinstance(obj, Options):
            if method == "dtype" and args:
                return Options(args[0])
            if method in ("device", "layout", "requires_grad", "memory_format", "pinned_memory"):
                return obj
        if isinstance(obj, str):
            if method in ("c_str", "data"):
                return obj
            if method in ("size", "length"):
                return len(obj)
            if method == "empty":
                return not obj
        if isinstance(obj, dict):
            if method == "at" and args:
                if args[0] not in obj:
                    raise BindingOutOfRange(f"{self.where(n)}: `{self.text(n)[:80]}` in the binding looks up a key "
                                            f"{args[0]!r} the table does not hold (std::out_of_range)")
                return obj[args[0]]
            if method in ("count", "contains") and args:
                return int(args[0] in obj)
            if method in ("size",):
                return len(obj)
        if isinstance(obj, (list, tuple)):
            seq = list(obj)
            if method == "slice":  # ArrayRef::slice(N, M): drop N, keep M
                return seq[args[0]:] if len(args) == 1 else seq[args[0]:args[0] + args[1]]
            if method == "vec":
                return seq
            if method == "size":
                return len(seq)
            if method == "empty":
                return not seq
            if method == "back":
                return seq[-1]
            if method == "front":
                return seq[0]
            if method == "at":
                if not 0 <= args[0] < len(seq):
                    raise BindingOutOfRange(f"{self.where(n)}: `{self.text(n)[:80]}` in the binding reads element "
                                            f"{args[0]} of {len(seq)} (std::out_of_range)")
                return seq[args[0]]
            if method == "data":
                return seq
            if method in ("begin", "end"):
                return _Iter(seq, 0 if method == "begin" else len(seq))
            if isinstance(obj, list) and method in ("pop_back", "push_back", "emplace_back", "clear"):
                if method == "pop_back":
                    obj.pop()
                elif method == "clear":
                    obj.clear()
                else:
                    obj.append(args[0])
                return None
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
            return bool(t.is_contiguous())
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
