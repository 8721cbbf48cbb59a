"""C/C++ kernel sources (load_inline strings, .cpp/.cu files): calls into torch/ATen compute."""
from __future__ import annotations

import ast
from pathlib import Path

from repair.integrity.astutil import fold_str
from repair.integrity.model import Func, ModuleModel
from repair.integrity.verdict import IntegrityFinding

# at::/torch:: callables a C++ wrapper may use: allocation, views, copies, metadata, streams.
CPP_ALLOWED = frozenset("""
empty empty_like empty_strided zeros zeros_like ones ones_like full full_like arange from_blob
TensorOptions Tensor IntArrayRef ScalarType Device kFloat kHalf kBFloat16 kInt kLong kCUDA kCPU
device dtype check TORCH_CHECK getCurrentCUDAStream getCurrentStream OptionalCUDAGuard CUDAGuard
""".split())
CPP_TENSOR_ALLOWED_METHODS = frozenset("""
data_ptr size sizes stride strides numel dim scalar_type dtype device options contiguous is_contiguous
view reshape permute transpose t expand unsqueeze squeeze flatten to copy_ clone fill_ zero_ element_size
is_cuda get_device item narrow select
""".split())
CPP_COMPUTE_METHODS = frozenset("""
softmax log_softmax exp log sigmoid tanh relu matmul mm bmm addmm sum mean max min amax amin argmax argmin
clamp sqrt rsqrt pow add sub mul div neg abs where masked_fill cumsum prod norm var std dot einsum
""".split())


def extension_findings(model: ModuleModel, call: ast.Call, func: Func | None, path: Path) -> list[IntegrityFinding]:
    """Findings in the C/C++ sources a torch.utils.cpp_extension.load* call builds (files beside `path`, or inline)."""
    texts = []
    for kw in call.keywords:
        vals = kw.value.elts if isinstance(kw.value, (ast.List, ast.Tuple)) else [kw.value]
        for v in vals:
            s = _fold(model, v, func)
            if s is None:
                continue
            if kw.arg == "sources":
                p = path.parent / s
                texts.append((_source(p), str(p)))
            elif kw.arg in ("cpp_sources", "cuda_sources"):
                texts.append((s, "inline source"))
    out = []
    for text, where in texts:
        for line, ev, callee in scan_cpp(text):
            out.append(IntegrityFinding(
                rule="static.cpp-framework-compute", message=f"{where} line {line} calls {callee}",
                line=call.lineno, evidence=ev, phase="static"))
    return out


def _fold(model: ModuleModel, node, func: Func | None) -> str | None:
    s = fold_str(node, model._consts(func))
    if s is None and isinstance(node, ast.Name):
        vals = (func.assigns.get(node.id) if func else None) or model.globals.get(node.id, [])
        for v in vals:
            if not isinstance(v, tuple):
                s = fold_str(v, model.consts)
                if s is not None:
                    break
    return s


def scan_cpp(source: str) -> list[tuple[int, str, str]]:
    """(line, evidence, callee) for each at::/torch:: compute call or compute tensor method in the source."""
    try:
        import tree_sitter_cpp
        from tree_sitter import Language, Parser
    except ImportError:  # the dependency is declared; without it fall back to a textual scan
        return _scan_text(source)
    parser = Parser(Language(tree_sitter_cpp.language()))
    tree = parser.parse(source.encode())
    lines = source.splitlines()
    out: list[tuple[int, str, str]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "call_expression":
            continue
        fn = node.child_by_field_name("function")
        if fn is None:
            continue
        text = fn.text.decode(errors="replace")
        if fn.type == "qualified_identifier" and text.split("::")[0] in ("at", "torch", "c10") \
                and text.split("::")[-1] not in CPP_ALLOWED and "cuda" not in text.split("::")[1:-1]:
            out.append((node.start_point[0] + 1, _line(lines, node), text))
        elif fn.type == "field_expression":
            method = text.rsplit(".", 1)[-1].rsplit("->", 1)[-1]
            if method in CPP_COMPUTE_METHODS and method not in CPP_TENSOR_ALLOWED_METHODS:
                out.append((node.start_point[0] + 1, _line(lines, node), text))
    return sorted(out)


def _line(lines: list[str], node) -> str:
    row = node.start_point[0]
    return lines[row].strip()[:160] if row < len(lines) else ""


def _scan_text(source: str) -> list[tuple[int, str, str]]:
    import re

    out = []
    for i, line in enumerate(source.splitlines(), 1):
        for m in re.finditer(r"\b(?:at|torch)::(\w+)\s*\(", line):
            if m.group(1) not in CPP_ALLOWED:
                out.append((i, line.strip()[:160], m.group(0)))
    return out


def _source(p) -> str:
    """An extension source named by the candidate: "" when it is not a regular file of sensible size (a FIFO,
    /dev/zero), as for a missing one."""
    from provenance.readfile import read_text

    try:
        return read_text(p, errors="replace")
    except OSError:
        return ""
