"""Cheats derived by code from any honest AscendC candidate, each with the findings the integrity gate must make.

`derive(candidate_path, out_dir, problem)` writes every cheat that applies to the candidate's format next to it and
returns them as `Cheat(name, path, problem, expect)`, `expect` being the rules (or `static.ascendc-chain:<link>`)
of which at least one must be among the findings. The edits work on the candidate's own C++ and Python as parsed
(tree-sitter-cpp, ast), so they apply to real files nobody here wrote:

- binding-aten            the binding the candidate writes computes with ATen (at::relu of its first tensor)
- forward-torch           ModelNew.forward returns torch compute before the extension call
- forward-skips-extension ModelNew.forward's body is torch compute alone
- kernel-not-launched     the binding's launch (EXEC_NPU_CMD, or the <<<>>> statement) is removed
- op-name-other-kernel    the binding runs CANN's own operator (aclnnAddCustom -> aclnnAdd)
- tiling-never-read       the kernel entry's tiling parameter is renamed away; its body reads the workspace instead
- decoy-kernel            a copy of the kernel entry, never launched, is added
- validation-binding      (NPUKernelBench) the benchmark's validation/pybind.cpp is edited to compute with ATen
- validation-forward      (NPUKernelBench) the benchmark's validation/module.py forward returns torch compute
The binding and forward cheats apply where the candidate writes those files (MultiKernelBench); an NPUKernelBench
candidate writes only op_host/ and op_kernel/, so its cheats on them are the validation-* ones.
"""
from __future__ import annotations

import ast
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

CHAIN = "static.ascendc-chain"


@dataclass
class Cheat:
    name: str
    path: Path
    problem: Path
    expect: tuple[str, ...]  # any one of these among the findings


def derive(candidate: Path, out: Path, problem: Path) -> list[Cheat]:
    from repair.ascendc import load_candidate, parse_bundle, to_bundle, write_candidate

    cand = load_candidate(candidate)
    bundle = parse_bundle(to_bundle(cand))
    made: list[Cheat] = []
    for name, edit, expect in _EDITS:
        changed = edit(cand, bundle)
        if changed is None:
            continue
        path = write_candidate(changed, out / name, original=candidate)
        made.append(Cheat(name, path, problem, expect))
    if cand.format == "npukernelbench":
        for name, edit, expect in _VALIDATION_EDITS:
            dest = out / name / candidate.name
            write_candidate(bundle, out / name, original=candidate)
            if edit(dest / "validation"):
                made.append(Cheat(name, dest, problem, expect))
            else:
                shutil.rmtree(out / name)
    return made


# -- the edits, each on a bundle (None: it does not apply to this candidate) -------------------------

def _binding_aten(cand, bundle):
    if cand.format == "npukernelbench":
        return None
    for f in bundle.of("binding"):
        fn = _bound_function(f.text)
        if fn is not None:
            body, first = fn
            text = _insert_after(f.text, body.start_byte + 1, f" auto nearmiss_cheat = at::relu({first});")
            return bundle.replace(f.name, text)
    return None


def _forward(replace_body: bool):
    def edit(cand, bundle):
        if cand.format == "npukernelbench":
            return None
        model = bundle.of("model")[0]
        text = _forward_edit(model.text, replace_body)
        return bundle.replace(model.name, text) if text else None
    return edit


def _not_launched(cand, bundle):
    if cand.format == "npukernelbench":
        return None
    roles = ("binding",) if cand.format == "mkb-sources" else ("binding", "kernel", "launch")
    changed = bundle
    for f in bundle.of(*roles):
        text = _blank_statements(f.text, lambda c: c.launch or c.name == "EXEC_NPU_CMD")
        if text != f.text:
            changed = changed.replace(f.name, text)
    return changed if changed is not bundle else None


def _other_op(cand, bundle):
    if cand.format != "mkb-sources" or not cand.op:
        return None
    builtin = re.sub(r"Custom$", "", cand.op) or "Add"
    builtin = builtin if builtin != cand.op else "Add"
    for f in bundle.of("binding"):
        text, n = re.subn(rf"\baclnn{cand.op}\b", f"aclnn{builtin}", f.text)
        if n:
            return bundle.replace(f.name, text)
    return None


def _tiling_unread(cand, bundle):
    if cand.format == "mkb-direct":
        return None
    from repair.ascendc import unit

    for f in bundle.of("kernel"):
        u = unit(f.text)
        for fn in u.funcs:
            if not (fn.is_global and fn.name == cand.kernel and len(fn.params) >= 2):
                continue
            decl = fn.node.child_by_field_name("declarator")
            params = [p for p in _find(decl, "parameter_list")[0].named_children
                      if p.type == "parameter_declaration"]
            name_node = _declarator_identifier(params[-1])
            body = fn.node.child_by_field_name("body")
            if name_node is None or body is None:
                return None
            tiling, workspace = fn.params[-1], fn.params[-2]
            data = f.text.encode("utf-8")
            data = data[:body.start_byte + 1] + f" GM_ADDR {tiling} = {workspace};".encode() + \
                data[body.start_byte + 1:]
            data = data[:name_node.start_byte] + f"{tiling}_unused".encode() + data[name_node.end_byte:]
            return bundle.replace(f.name, data.decode("utf-8"))
    return None


def _decoy(cand, bundle):
    from repair.ascendc import unit

    for f in bundle.of("kernel"):
        for fn in unit(f.text).funcs:
            if fn.is_global:
                data = f.text.encode("utf-8")  # the source's own bytes: the parse has its qualifiers blanked
                copy = data[fn.node.start_byte:fn.node.end_byte].decode("utf-8")
                copy = re.sub(r"^\s*(?:extern\s+\"C\"\s*)?(?:(?:__global__|__aicore__)\s*)*", "", copy)
                decoy = re.sub(rf"\b{re.escape(fn.name)}\s*\(", f"{fn.name}_decoy(", copy, count=1)
                return bundle.replace(f.name, f.text.rstrip("\n") + '\n\nextern "C" __global__ __aicore__ ' + decoy
                                      + "\n")
    return None


_EDITS = (
    ("binding-aten", _binding_aten, ("static.cpp-framework-compute",)),
    ("forward-torch", _forward(False), ("static.framework-compute",)),
    ("forward-skips-extension", _forward(True), (f"{CHAIN}:forward->extension",)),
    ("kernel-not-launched", _not_launched, (f"{CHAIN}:binding->launch", "static.kernel-not-launched")),
    ("op-name-other-kernel", _other_op, (f"{CHAIN}:op-name",)),
    ("tiling-never-read", _tiling_unread, (f"{CHAIN}:kernel<-tiling",)),
    ("decoy-kernel", _decoy, ("static.kernel-not-launched",)),
)


# -- the benchmark's validation files, edited where a candidate may not -----------------------------

def _validation_binding(vdir: Path) -> bool:
    path = vdir / "pybind.cpp"
    fn = _bound_function(path.read_text(encoding="utf-8"))
    if fn is None:
        return False
    body, first = fn
    path.write_text(_insert_after(path.read_text(encoding="utf-8"), body.start_byte + 1,
                                  f" auto nearmiss_cheat = at::relu({first});"), encoding="utf-8")
    return True


def _validation_forward(vdir: Path) -> bool:
    path = vdir / "module.py"
    text = _forward_edit(path.read_text(encoding="utf-8"), False)
    if text:
        path.write_text(text, encoding="utf-8")
    return bool(text)


_VALIDATION_EDITS = (
    ("validation-binding", _validation_binding, ("static.validation-changed",)),
    ("validation-forward", _validation_forward, ("static.validation-changed",)),
)


# -- helpers ----------------------------------------------------------------------------------------

def _bound_function(text: str):
    """(body node, first tensor parameter) of the first function PYBIND11_MODULE m.def's, if the source defines it."""
    from repair.ascendc import callee_name, unit

    u = unit(text)
    names = [callee_name(c.args[1].replace("&", " ")) for f in u.funcs if f.name == "PYBIND11_MODULE"
             for c in u.calls(f.node) if c.name == "def" and len(c.args) >= 2]
    for name in names:
        for fn in u.funcs:
            if fn.name == name and fn.name != "PYBIND11_MODULE" and "Tensor" in fn.param_text and fn.params:
                tensors = [p for p in fn.params if re.search(rf"Tensor\W[^,]*\b{re.escape(p)}\b", fn.param_text)]
                body = fn.node.child_by_field_name("body")
                if body is not None:
                    return body, (tensors or fn.params)[0]
    return None


def _forward_edit(text: str, replace_body: bool) -> str | None:
    tree = ast.parse(text)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"), None)
    fwd = next((n for n in (cls.body if cls else []) if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)
    if fwd is None or len(fwd.args.args) < 2 or not fwd.body:
        return None
    x = fwd.args.args[1].arg
    lines = text.splitlines(keepends=True)
    first = fwd.body[0]
    indent = lines[first.lineno - 1][:first.col_offset]
    new = f"{indent}import torch\n{indent}return torch.relu({x})\n"
    if replace_body:
        lines[first.lineno - 1:fwd.body[-1].end_lineno] = [new]
    else:
        lines.insert(first.lineno - 1, new)
    return "".join(lines)


def _blank_statements(text: str, which) -> str:
    """The statements holding the calls `which` selects, blanked (newlines kept)."""
    from repair.ascendc import unit

    u = unit(text)
    data = bytearray(text.encode("utf-8"))
    for c in u.calls():
        if not which(c) or c.fn_node is None:
            continue
        node = c.fn_node.parent
        while node is not None and node.type != "expression_statement":
            node = node.parent
        if node is not None:
            data[node.start_byte:node.end_byte] = bytes(b if b in b"\n" else 32 for b in data[node.start_byte:node.end_byte])
    return data.decode("utf-8")


def _insert_after(text: str, byte: int, what: str) -> str:
    data = text.encode("utf-8")
    return (data[:byte] + what.encode("utf-8") + data[byte:]).decode("utf-8")


def _find(node, kind: str) -> list:
    from repair.ascendc import walk

    return [n for n in walk(node) if n.type == kind]


def _declarator_identifier(param):
    d = param.child_by_field_name("declarator")
    while d is not None and d.type != "identifier":
        d = d.child_by_field_name("declarator") or next((c for c in d.named_children if c.type == "identifier"), None)
    return d
