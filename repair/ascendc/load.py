"""Reading an AscendC candidate in any of its three formats into the one model, with bad input as one line.

- MultiKernelBench six sources: a .py file assigning `project_json_src`, `host_tiling_src`, `host_operator_src`,
  `kernel_src`, `python_bind_src` and `model_src` string literals (read, never imported).
- MultiKernelBench direct launch: a .json file, `{"sources": [{"path", "content"}, ...]}` or that list alone
  (`ModelNew.py`, `kernel/*.cpp`, `kernel/*_launch.h`, `kernel/pybind11.cpp`).
- NPUKernelBench: a directory with `op_host/` and `op_kernel/`; `validation/module.py` and `validation/pybind.cpp`
  from the directory itself or the nearest task directory above it.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path, PurePosixPath

from provenance.readfile import read_text
from repair.ascendc.candidate import AscendCCandidate, Format, SourceFile, snake
from repair.ascendc.cxx import unit
from repair.ascendc.msopgen import parse_op_json
from repair.errors import BadInput

MKB_SOURCES = {"project_json_src": "project_json", "host_tiling_src": "host_tiling",
               "host_operator_src": "host_operator", "kernel_src": "kernel", "python_bind_src": "binding",
               "model_src": "model"}
MKB_EXTENSION = "custom_ops_lib"  # MultiKernelBench builds the six-source binding under this name
CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh")
TILING_REGISTER = re.compile(r"\bREGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")


def detect(path: str | Path) -> Format | None:
    """Which AscendC format `path` is in, or None when it is not an AscendC candidate (a Triton .py)."""
    p = Path(path)
    if p.is_dir():
        return "npukernelbench" if (p / "op_host").is_dir() and (p / "op_kernel").is_dir() else None
    if p.suffix == ".json" and p.is_file():
        return "mkb-direct"
    if p.suffix == ".py" and p.is_file():
        try:
            text = read_text(p)
            # a Triton candidate (every evaluation asks) names none of the six: no need to parse it
            if not any(name in text for name in MKB_SOURCES):
                return None
            tree = ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, OSError, ValueError):
            return None
        return "mkb-sources" if _assigned(tree) & set(MKB_SOURCES) else None
    return None


def is_ascendc_candidate(path: str | Path) -> bool:
    return detect(path) is not None


def load_candidate(path: str | Path, *, validation: str | Path | None = None) -> AscendCCandidate:
    """The candidate at `path`, normalised; BadInput (one line naming the file) when it is malformed.

    `validation`: an NPUKernelBench task's validation/ directory, for a candidate kept outside the task."""
    fmt = detect(path)
    if fmt is None:
        raise BadInput(f"{path}: not an AscendC candidate (a six-source .py, a direct-launch .json or a "
                       "directory with op_host/ and op_kernel/)")
    if fmt == "npukernelbench":
        return _npukb(Path(path), Path(validation) if validation else None)
    return {"mkb-sources": _six_sources, "mkb-direct": _direct}[fmt](Path(path))


# -- MultiKernelBench six sources -------------------------------------------------------------------

def _assigned(tree: ast.Module) -> set[str]:
    return {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


def _six_sources(path: Path) -> AscendCCandidate:
    text = _read(path)
    tree = ast.parse(text, filename=str(path))
    found: dict[str, SourceFile] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        if name not in MKB_SOURCES:
            continue
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            raise BadInput(f"{path}:{node.lineno}: {name} is not a string literal")
        found[name] = SourceFile(role=MKB_SOURCES[name], name=name, file=str(path), first_line=node.value.lineno,
                                 text=node.value.value)
    missing = [n for n in MKB_SOURCES if n not in found]
    if missing:
        raise BadInput(f"{path}: no {', '.join(missing)} (a MultiKernelBench candidate assigns all of "
                       f"{', '.join(MKB_SOURCES)})")
    op_json = parse_op_json(found["project_json_src"].text, f"{path}: project_json_src")
    sources = list(found.values())
    op = _check_op_names(sources, json_op=(op_json["op"], found["project_json_src"]))
    return AscendCCandidate(format="mkb-sources", path=str(path), op=op, kernel=snake(op),
                            extension=_extension(sources, default=MKB_EXTENSION), sources=sources)


# -- MultiKernelBench direct launch -----------------------------------------------------------------

def _direct(path: Path) -> AscendCCandidate:
    try:
        data = json.loads(_read(path))
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
    entries = data.get("sources") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("content"), str)
            for e in entries):
        raise BadInput(f"{path}: not a direct-launch candidate (expected a list of {{\"path\", \"content\"}} "
                       "files, or an object with one under \"sources\")")
    model_file = "ModelNew.py"
    if isinstance(data, dict) and isinstance(data.get("entry"), dict) and isinstance(data["entry"].get("model"), str):
        model_file = data["entry"]["model"].split("::")[0]
    sources = []
    for e in entries:
        rel = PurePosixPath(e["path"])
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise BadInput(f"{path}: file path {e['path']!r} leaves the candidate's directory")
        role = _direct_role(str(rel), e["content"], model_file)
        if role is not None:
            sources.append(SourceFile(role=role, name=str(rel), file=f"{path}#{rel}", text=e["content"]))
    have = {s.role for s in sources}
    for role, what in (("model", model_file), ("binding", "a pybind11 .cpp (PYBIND11_MODULE)"),
                       ("kernel", "a kernel .cpp")):
        if role not in have:
            raise BadInput(f"{path}: no {what} among its files")
    kernels = [f.name for s in sources if s.role == "kernel" for f in unit(s.text).funcs if f.is_global]
    if not kernels:
        raise BadInput(f"{path}: no __global__ kernel in {', '.join(s.name for s in sources if s.role == 'kernel')}")
    return AscendCCandidate(format="mkb-direct", path=str(path), op=None, kernel=kernels[0],
                            extension=_extension(sources, default=""), sources=sources)


def _direct_role(name: str, content: str, model_file: str) -> str | None:
    if name == model_file:
        return "model"
    if not name.endswith(CPP_SUFFIXES):
        return None  # a CMakeLists.txt, a README: not part of the chain
    if name.endswith((".h", ".hpp", ".hh")):
        return "launch"
    return "binding" if "PYBIND11_MODULE" in content else "kernel"


# -- NPUKernelBench ---------------------------------------------------------------------------------

def find_validation(directory: Path) -> Path | None:
    """The task's validation/ directory: the candidate's own, else the nearest one above it (task/answer/0/)."""
    for d in [directory, *directory.resolve().parents][:5]:
        v = d / "validation"
        if (v / "module.py").is_file() and (v / "pybind.cpp").is_file():
            return v
    return None


def _npukb(path: Path, validation: Path | None) -> AscendCCandidate:
    from repair.ascendc.taskfiles import list_files

    validation = validation or find_validation(path)
    task = validation.parent if validation is not None and path.resolve().is_relative_to(validation.parent.resolve()) \
        else path  # symlinks may point anywhere inside the task directory, nowhere outside it
    files = [p for sub in ("op_host", "op_kernel") for p in list_files(path / sub, within=task) if p.suffix in CPP_SUFFIXES]
    sources = []
    for p in files:
        rel = p.relative_to(path).as_posix()
        role = ("host_tiling" if p.suffix in (".h", ".hpp") else "host_operator") if rel.startswith("op_host/") \
            else "kernel"
        sources.append(SourceFile(role=role, name=rel, file=str(p), text=_read(p, within=task)))
    # the tiling header may sit in op_host/ or, as a plain struct shared with the kernel, in op_kernel/ (CANN's
    # own samples): msopgen's build needs neither place, so only the two sources it compiles are required
    for role, where in (("host_operator", "op_host/*.cpp"), ("kernel", "op_kernel/*.cpp")):
        if not any(s.role == role and not s.name.endswith((".h", ".hpp", ".hh")) for s in sources):
            raise BadInput(f"{path}: no {where}")
    op = _check_op_names(sources)
    if validation is None:
        raise BadInput(f"{path}: no validation/module.py and validation/pybind.cpp in it or in a task directory "
                       "above it")
    binding, notes = _substitute(_read(validation / "pybind.cpp", within=validation.parent), op)
    sources += [SourceFile(role="binding", name="validation/pybind.cpp", file=str(validation / "pybind.cpp"),
                           text=binding),
                SourceFile(role="model", name="validation/module.py", file=str(validation / "module.py"),
                           text=_read(validation / "module.py", within=validation.parent))]
    return AscendCCandidate(format="npukernelbench", path=str(path), op=op, kernel=snake(op),
                            extension=_extension(sources, default="kernel_gen_ops"), sources=sources, notes=notes)


def _substitute(binding: str, op: str) -> tuple[str, list[str]]:
    """NPUKernelBench's build names the task's operator in the fixed pybind.cpp; so does loading."""
    notes = []
    for placeholder, real in (("aclnnCustomOp", f"aclnn{op}"), ("custom_pybind_api", snake(op))):
        binding, n = re.subn(rf"\b{placeholder}\b", real, binding)
        if n:
            notes.append(f"validation/pybind.cpp: {placeholder} -> {real} ({n}x), as NPUKernelBench's build does")
    return binding, notes


# -- the op name, agreed by the JSON, the host and the kernel ---------------------------------------

def _check_op_names(sources: list[SourceFile], json_op: tuple[str, SourceFile] | None = None) -> str:
    added = [(c.args[0].strip(), s, c.line) for s in sources if s.role == "host_operator"
             for c in unit(s.text).calls() if c.name == "OP_ADD" and c.args]
    hosts = [s for s in sources if s.role == "host_operator"]
    if not added:
        raise BadInput(f"{hosts[0].label()}: no OP_ADD(<Op>) registers the operator")
    if len({a[0] for a in added}) > 1:
        raise BadInput(f"{added[1][1].label(added[1][2])}: OP_ADD({added[1][0]}) and OP_ADD({added[0][0]}): "
                       "one operator expected")
    op, host, line = added[0]
    if json_op is not None and json_op[0] != op:
        raise BadInput(f"{host.label(line)}: OP_ADD({op}) differs from the op {json_op[0]!r} of "
                       f"{json_op[1].label()}")
    # REGISTER_TILING_DATA_CLASS(<other>, Struct) is no error: real answers register the structs they nest with
    # TILING_DATA_FIELD_DEF_STRUCT under names of their own (BaseTilingOp); the chain reads the one for <Op>
    kernels = [(f, s) for s in sources if s.role == "kernel" for f in unit(s.text).funcs if f.is_global]
    if not kernels:
        raise BadInput(f"{next(s for s in sources if s.role == 'kernel').label()}: no __global__ kernel entry")
    if not any(f.name == snake(op) for f, _ in kernels):
        f, s = kernels[0]
        raise BadInput(f"{s.label(f.line)}: kernel entry {f.name} differs from OP_ADD({op}) "
                       f"(msopgen launches {snake(op)})")
    return op


def _extension(sources: list[SourceFile], default: str) -> str:
    """The module name the binding's PYBIND11_MODULE gives the extension (TORCH_EXTENSION_NAME: the build's)."""
    for s in sources:
        if s.role != "binding":
            continue
        for f in unit(s.text).funcs:
            if f.name == "PYBIND11_MODULE" and f.params:
                name = f.params[0]
                return default if name == "TORCH_EXTENSION_NAME" else name
    return default


def _read(path: Path, *, within: Path | None = None) -> str:
    from repair.ascendc.taskfiles import read_source

    return read_source(path, within=within)  # a regular file, bounded (a FIFO or /dev/zero is bad input)
