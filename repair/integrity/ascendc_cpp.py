"""AscendC integrity: framework compute in the C++ on the kernel's path (the binding may allocate outputs and read
shapes, nothing else; no source may call ATen compute)."""
from __future__ import annotations

import re

from repair.ascendc import AscendCCandidate, callee_name, unit, walk
from repair.integrity.verdict import IntegrityFinding

BINDING_ALLOWED = frozenset("""
empty empty_like empty_strided zeros zeros_like ones ones_like full full_like from_blob TensorOptions Tensor
IntArrayRef ScalarType Device Scalar check TORCH_CHECK dtype device layout TensorList ITensorListRef optional
""".split())
# what builds an allocation's options (torch::TensorOptions().dtype(...).device(...))
OPTIONS_METHODS = frozenset("dtype device layout requires_grad memory_format pinned_memory".split())
# Tensor methods a binding may call: metadata, shapes, the output's allocation options, a pointer for the launch,
# a scalar attribute read to pass on (`value.item<float>()`), an optional argument's presence and value
BINDING_METHODS = frozenset("""
size sizes stride strides numel dim scalar_type dtype device options data_ptr element_size itemsize nbytes
is_contiguous contiguous defined storage_offset layout get_device is_npu vec begin end push_back emplace_back
reserve stream def doc impl attr requires_grad memory_format item has_value value value_or
""".split())
BINDING_META = frozenset("size sizes stride strides numel dim scalar_type dtype device options layout".split())
_TENSOR_TYPE = r"\b(?:at|torch)::Tensor\b"


def framework_compute(cand: AscendCCandidate, skip=()) -> list[IntegrityFinding]:
    """`skip`: roles whose sources are the benchmark's own (trusted), not the candidate's."""
    out = []
    for s in cand.sources:
        if s.role in ("project_json", "model") or s.role in skip:
            continue
        u = unit(s.text)
        binding = s.role in ("binding", "launch")
        tensors = _tensor_names(u) if binding else set()
        lines = s.text.splitlines()

        def add(line: int, message: str) -> None:
            file, at = s.where(line)
            out.append(IntegrityFinding(rule="static.cpp-framework-compute", message=message, line=at, file=file,
                                        evidence=lines[line - 1].strip()[:160] if line <= len(lines) else ""))

        for c in u.calls():
            parts = c.callee.split("::")
            if parts[0] in ("at", "torch") and len(parts) > 1 and _aten_computes(c):
                add(c.line, f"{c.callee}: ATen compute on the kernel's path (a binding may allocate outputs and "
                            "read shapes, nothing else)")
            elif binding and _tensor_method(u, c.fn_node, tensors):
                add(c.line, f"{c.callee}: a tensor method that computes, on the kernel's path (a binding may "
                            "allocate outputs and read shapes, nothing else)")
        if binding and tensors:
            for line, op in _tensor_arithmetic(u, tensors):
                add(line, f"tensor arithmetic ({op}) on the kernel's path")
    return out


def _aten_computes(c) -> bool:
    """An at::/torch:: call beyond allocation: `torch::TensorOptions().dtype(torch::kFloat).device(d)` is the
    options of an allocation (its root, TensorOptions, is judged at its own call; the chain's methods here)."""
    if "(" in c.callee:  # a method chained on a call: torch::TensorOptions().dtype
        return c.name not in OPTIONS_METHODS
    return c.name not in BINDING_ALLOWED


def _tensor_names(u) -> set[str]:
    """Variables and parameters that hold tensors: declared at::Tensor/torch::Tensor, or `auto` from at::/torch::."""
    names = {n for n, _ in u.declarations(_TENSOR_TYPE)}
    for n in walk(u.tree.root_node):
        if n.type == "declaration" and u.node_text(n.child_by_field_name("type") or n).strip() == "auto":
            for d in n.children_by_field_name("declarator"):
                value = d.child_by_field_name("value")
                name = d.child_by_field_name("declarator")
                if value is not None and name is not None and re.match(r"(?:at|torch)::", u.node_text(value)):
                    names.add(u.node_text(name))
    return names


def _tensor_method(u, fn, tensors: set[str]) -> bool:
    """`t.m1().m2()...`: whether this call's method computes on a tensor (what follows a shape read is no tensor)."""
    if fn is None or fn.type != "field_expression":
        return False
    methods, node = [], fn
    while node is not None and node.type == "field_expression":
        methods.append(callee_name(u.node_text(node.child_by_field_name("field"))))  # item<float> -> item
        arg = node.child_by_field_name("argument")
        node = arg.child_by_field_name("function") if arg is not None and arg.type == "call_expression" else arg
    root = u.node_text(node).strip("()*& ") if node is not None else ""
    if root not in tensors:
        return False
    methods.reverse()
    for m in methods[:-1]:
        if m in BINDING_META:
            return False  # the rest is on a shape, a dtype or options
        if m not in BINDING_METHODS:
            return False  # reported at that inner call
    return methods[-1] not in BINDING_METHODS


def _tensor_arithmetic(u, tensors: set[str]) -> list[tuple[int, str]]:
    out = []
    for n in walk(u.tree.root_node):
        if n.type in ("binary_expression", "assignment_expression", "unary_expression"):
            op = n.child_by_field_name("operator")
            operands = [n.child_by_field_name(k) for k in ("left", "right", "argument")]
            if op is None or (n.type == "assignment_expression" and u.node_text(op) == "="):
                continue
            if any(o is not None and o.type == "identifier" and u.node_text(o) in tensors for o in operands):
                out.append((n.start_point[0] + 1, u.node_text(op)))
    return out
