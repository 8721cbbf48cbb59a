"""An NPUKernelBench task directory read as a problem of this project: reference, inputs, cases, tolerance.

A task keeps `validation/module.py` (the reference `Model`, beside a `ModelNew` that calls `kernel_gen_ops`),
`validation/prepare_inputs.py` (`get_inputs(param, device)`, `get_init_inputs(param, device)`, sometimes a
`custom_check_precision`) and `validation/test_cases.csv` (`;`-separated rows, read as pandas would).
"""
from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from repair.errors import BadInput

VALIDATION_FILES = ("module.py", "pybind.cpp", "prepare_inputs.py", "test_cases.csv")
NPU_ONLY = ("torch_npu", "kernel_gen_ops", "custom_ops_lib")  # modules a CPU reference cannot import
# NPUKernelBench's own harness package: prepare_inputs.py imports its check_precision for custom_check_precision,
# which this project never calls (its TOLERANCE is read from that function instead)
HARNESS = ("framework",)
# NPUKernelBench's precision check when a task has none of its own: an element fails when its absolute error
# exceeds max_abs_error and its relative error max_rel_error (base_config.yaml) -- this project's criterion too
DEFAULT_TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}
COMPACT_MAX = 2
_MAX_VALIDATION_BYTES = 1 << 20  # NPUKernelBench's largest validation file is far smaller; 200 MB of CSV is an attack
_DTYPES = {"float16", "float32", "float64", "bfloat16"}


@dataclass
class TaskProblem:
    """What a task's validation files say, ready to be written as problem.py."""

    name: str
    reference: str  # module.py without its NPU-only imports and ModelNew
    inputs: str  # the source defining get_inputs/get_init_inputs, renamed _task_get_inputs/_task_get_init_inputs
    cases: list[dict]  # {"tier", column: value, ...}
    columns: dict[str, str]  # case key -> CSV column, where the column is not an identifier
    tolerance: dict
    tolerance_source: str
    notes: list[str] = field(default_factory=list)
    validation_sha256: dict[str, str] = field(default_factory=dict)  # the validation files as read
    tolerance_key: str | None = None  # the case column whose dtype picks TOLERANCE's entry (custom_check_precision's)


def validation_hashes(validation: Path) -> dict[str, str]:
    """sha256 of each of a task's validation files that exists there (the benchmark's own: a candidate changes
    none of them), by file name."""
    import hashlib

    out = {}
    for f in VALIDATION_FILES:
        try:
            out[f] = hashlib.sha256((validation / f).read_bytes()).hexdigest()
        except FileNotFoundError:
            continue
        except OSError as e:
            raise BadInput(f"{validation / f}: cannot read ({e.__class__.__name__})") from None
    return out


def validation_dir(task: Path) -> Path:
    v = task / "validation"
    missing = [f for f in VALIDATION_FILES if not (v / f).is_file()]
    if missing:
        raise BadInput(f"{task}: not an NPUKernelBench task (no validation/{', validation/'.join(missing)})")
    return v


def read_task(task: Path) -> TaskProblem:
    v = validation_dir(task)
    module_text = _read(v / "module.py")
    prepare_text = _read(v / "prepare_inputs.py")
    module = _parse(module_text, v / "module.py")
    prepare = _parse(prepare_text, v / "prepare_inputs.py")
    notes: list[str] = []
    reference = _reference(module_text, module, v / "module.py", notes)
    inputs_in_module = "get_init_inputs" in _defined(module)
    inputs_path = v / ("module.py" if inputs_in_module else "prepare_inputs.py")
    inputs_tree = module if inputs_in_module else prepare
    if not {"get_inputs", "get_init_inputs"} <= _defined(inputs_tree):
        raise BadInput(f"{inputs_path}: defines no get_inputs(param, device) and get_init_inputs(param, device)")
    inputs = "" if inputs_in_module else _rename(_drop_harness(prepare_text, prepare, notes))
    if inputs_in_module:
        reference = _rename(reference)
    cases, columns = _cases(v / "test_cases.csv")
    tolerance, source = _tolerance(inputs_tree, inputs_path, notes)
    key = _tolerance_key(inputs_tree) if source.endswith("(per dtype)") else None
    if key is not None:
        source = source.replace("(per dtype)", f"(per dtype: the case's `{key}`, as the check reads it)")
    return TaskProblem(task.name, reference, inputs, cases, columns, tolerance, source, notes, validation_hashes(v),
                       key)


# -- the reference ----------------------------------------------------------------------------------

def _reference(text: str, tree: ast.Module, path: Path, notes: list[str]) -> str:
    """module.py with its NPU-only imports and its ModelNew removed, line by line (the rest as written)."""
    drop: set[int] = set()
    for node in tree.body:
        npu = isinstance(node, ast.Import) and all(a.name.split(".")[0] in NPU_ONLY for a in node.names) or \
            isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in NPU_ONLY
        if npu or isinstance(node, ast.ClassDef) and node.name == "ModelNew":
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            drop.update(range(first, node.end_lineno + 1))
            if npu:
                notes.append(f"validation/module.py:{node.lineno}: dropped `{ast.unparse(node)}` (NPU only)")
    if not any(isinstance(n, ast.ClassDef) and n.name == "Model" for n in tree.body):
        raise BadInput(f"{path}: defines no class Model")
    origin = [i for i in range(1, len(text.splitlines()) + 1) if i not in drop]
    kept = "\n".join(ln for i, ln in enumerate(text.splitlines(), 1) if i not in drop).rstrip() + "\n"
    for n in ast.walk(_parse(kept, path)):
        name = n.id if isinstance(n, ast.Name) else n.names[0].name if isinstance(n, ast.Import) else \
            n.module if isinstance(n, ast.ImportFrom) else None
        if name and name.split(".")[0] in NPU_ONLY:
            raise BadInput(f"{path}:{origin[n.lineno - 1]}: the reference needs {name.split('.')[0]}, so it cannot "
                           "run without an NPU")
    return kept


def _drop_harness(text: str, tree: ast.Module, notes: list[str]) -> str:
    """prepare_inputs.py without its top-level imports of NPUKernelBench's harness (`from framework.utils import
    check_precision`): only custom_check_precision uses them, and it is read, never run."""
    drop: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in HARNESS or \
                isinstance(node, ast.Import) and all(a.name.split(".")[0] in HARNESS for a in node.names):
            drop.update(range(node.lineno, node.end_lineno + 1))
            notes.append(f"validation/prepare_inputs.py:{node.lineno}: dropped `{ast.unparse(node)}` "
                         "(NPUKernelBench's harness)")
    return "".join(ln for i, ln in enumerate(text.splitlines(keepends=True), 1) if i not in drop)


def _rename(text: str) -> str:
    """get_inputs/get_init_inputs -> _task_get_inputs/_task_get_init_inputs, as NAME tokens (comments untouched)."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string in ("get_inputs", "get_init_inputs"):
            tok = tok._replace(string="_task_" + tok.string)
        out.append(tok)
    return tokenize.untokenize(out)


# -- the cases --------------------------------------------------------------------------------------

def _cases(path: Path) -> tuple[list[dict], dict[str, str]]:
    text = _read(path)
    rows = [ln for ln in text.splitlines() if ln.strip()]
    if len(rows) < 2:
        raise BadInput(f"{path}: no test case (a header and one `;`-separated row at least)")
    header = [h.strip() for h in rows[0].split(";")]
    table = []
    for i, row in enumerate(rows[1:], 2):
        cells = [c.strip() for c in row.split(";")]
        if len(cells) != len(header):
            raise BadInput(f"{path}:{i}: {len(cells)} fields, the header has {len(header)}")
        table.append(cells)
    columns: dict[str, str] = {}
    keys = []
    for h in header:
        key = h if h.isidentifier() and h != "tier" else re.sub(r"\W", "_", h).strip("_") or "column"
        if not key.isidentifier() or key == "tier":
            key = "c_" + key
        while key in keys:
            key += "_"
        keys.append(key)
        if key != h:
            columns[key] = h
    values = [_column([r[j] for r in table]) for j in range(len(header))]
    cases = [dict(zip(keys, (values[j][i] for j in range(len(keys))))) for i in range(len(table))]
    compact = _compact(cases)
    return [{"tier": "compact" if i in compact else "full", **c} for i, c in enumerate(cases)], columns


def _column(cells: list[str]) -> list:
    """The cells as pandas reads them: all integers -> int, all numbers -> float (integral ones int), else text."""
    def num(c: str):
        try:
            return float(c)
        except ValueError:
            return None

    if all(c in ("True", "False") for c in cells):
        return [c == "True" for c in cells]
    nums = [num(c) for c in cells]
    if cells and all(n is not None and math.isfinite(n) for n in nums):
        if all(n == int(n) for n in nums):
            return [int(n) for n in nums]
        return nums
    return [None if c == "" else c for c in cells]


def _compact(cases: list[dict]) -> set[int]:
    """The COMPACT_MAX smallest cases, preferring a second dtype to a second size."""
    order = sorted(range(len(cases)), key=lambda i: (_size(cases[i]), i))
    picked = [order[0]]
    dtype = lambda i: next((v for v in cases[i].values() if v in _DTYPES), None)  # noqa: E731
    for i in order[1:]:
        if len(picked) == COMPACT_MAX:
            break
        if dtype(i) not in {dtype(j) for j in picked}:
            picked.append(i)
    for i in order[1:]:
        if len(picked) < min(COMPACT_MAX, len(cases)) and i not in picked:
            picked.append(i)
    return set(picked)


def _size(case: dict) -> int:
    total = 0
    for v in case.values():
        if isinstance(v, str) and v.startswith(("[", "(")):
            try:
                dims = ast.literal_eval(v)
            except (ValueError, SyntaxError):
                continue
            flat = [d for d in _flatten(dims) if isinstance(d, int)]
            total += math.prod(flat) if flat else 0
    return total


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _flatten(y)
    else:
        yield x


# -- the tolerance ----------------------------------------------------------------------------------

def _tolerance(tree: ast.Module, path: Path, notes: list[str]) -> tuple[dict, str]:
    """TOLERANCE from custom_check_precision: its per-dtype constants (`if dtype == torch.float16: RTOL = 1/512`;
    its custom checks fail an element past rtol * max(1, |expected|), which is atol = rtol = that constant here) or
    its calls of NPUKernelBench's check_precision(..., max_abs_error=A, max_rel_error=R) (atol = A, rtol = R: the
    same AND criterion), under the dtype tests around them; NPUKernelBench's default check otherwise."""
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "custom_check_precision"), None)
    if check is None:
        return dict(DEFAULT_TOLERANCE), "NPUKernelBench's default check (max_abs_error = max_rel_error = 1e-3)"
    per_dtype: dict[str, dict] = {}
    flat: list[dict] = []
    _walk_check(check.body, None, per_dtype, flat)
    if flat and not per_dtype:
        return dict(flat[0]), f"custom_check_precision in {path.name} (check_precision's bounds)"
    if not per_dtype and (frac := _allowed_fraction(check)) is not None:
        return {"atol": frac, "rtol": frac, "frac": frac}, \
            f"custom_check_precision in {path.name} (up to a fraction {frac:g} of each output's elements beyond)"
    if not per_dtype:
        notes.append(f"{path.name}: custom_check_precision has no per-dtype tolerance constants this import reads; "
                     "NPUKernelBench's default check is used instead")
        return dict(DEFAULT_TOLERANCE), "NPUKernelBench's default check (custom_check_precision not translated)"
    return per_dtype, f"custom_check_precision in {path.name} (per dtype)"


def _allowed_fraction(check: ast.FunctionDef) -> float | None:
    """L where the check fails an output only when more than a fraction L of its elements are beyond L: a test
    `torch.sum(err > L) > out.numel() * L` (NPUKernelBench's quantising tasks, with L = 1e-3 for both the
    absolute and the relative error). The same L throughout, a constant or a name assigned one; else None."""
    consts = {t.id: v for n in ast.walk(check) if isinstance(n, ast.Assign) and (v := _const(n.value)) is not None
              for t in n.targets if isinstance(t, ast.Name)}

    def value(node) -> float | None:
        return consts.get(node.id) if isinstance(node, ast.Name) else _const(node)

    found = set()
    for n in ast.walk(check):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Gt)):
            continue
        left, right = n.left, n.comparators[0]
        if not (isinstance(left, ast.Call) and ast.unparse(left.func) in ("torch.sum", "torch.count_nonzero")
                and left.args and isinstance(left.args[0], ast.Compare) and len(left.args[0].ops) == 1
                and isinstance(left.args[0].ops[0], ast.Gt)):
            continue
        bound = value(left.args[0].comparators[0])
        if not (isinstance(right, ast.BinOp) and isinstance(right.op, ast.Mult)):
            continue
        sides = (right.left, right.right)
        numel = [x for x in sides if isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute)
                 and x.func.attr == "numel"]
        share = [value(x) for x in sides if x not in numel]
        if bound is None or len(numel) != 1 or share != [bound] or not 0 <= bound < 1:
            return None
        found.add(bound)
    return found.pop() if len(found) == 1 else None


def _tolerance_key(tree: ast.Module) -> str | None:
    """The case column custom_check_precision picks its per-dtype bounds by (`dtype = getattr(torch,
    param.get('dtype'))`, then `if dtype == torch.float16:`), or None when its tests read something else (an output's
    dtype): the bounds then hold for every output of the case, whatever each output's own dtype."""
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "custom_check_precision"), None)
    if check is None or not check.args.args:
        return None
    param = check.args.args[0].arg

    def column(node) -> str | None:
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and \
                    isinstance(n.func.value, ast.Name) and n.func.value.id == param and n.args and \
                    isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                return n.args[0].value
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == param and \
                    isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                return n.slice.value
        return None

    names: dict[str, str] = {}  # a name assigned from the column, or from a name that is (`dtype_str`, then `dtype`)
    for n in (n for n in ast.walk(check) if isinstance(n, ast.Assign)):
        col = column(n.value) or next((names[v.id] for v in ast.walk(n.value)
                                       if isinstance(v, ast.Name) and v.id in names), None)
        names.update({t.id: col for t in n.targets if isinstance(t, ast.Name) and col is not None})
    tested = set()
    for n in ast.walk(check):
        if isinstance(n, ast.If) and _dtype_test(n.test) is not None:
            sides = [v for c in ast.walk(n.test) if isinstance(c, ast.Compare) for v in (c.left, *c.comparators)]
            tested |= {names.get(v.id) if isinstance(v, ast.Name) else column(v) for v in sides} - {None}
    return tested.pop() if len(tested) == 1 else None


def _walk_check(body: list, dtypes: set[str] | None, per_dtype: dict, flat: list) -> None:
    """Record the tolerance each statement sets for the dtypes the tests around it leave (None: any dtype)."""
    for node in body:
        if isinstance(node, ast.If):
            named = _dtype_test(node.test)
            if named is None:
                _walk_check(node.body, dtypes, per_dtype, flat)
                _walk_check(node.orelse, dtypes, per_dtype, flat)
            else:
                _walk_check(node.body, named & (dtypes if dtypes is not None else named), per_dtype, flat)
                _walk_check(node.orelse, (dtypes if dtypes is not None else set(_DTYPES)) - named, per_dtype, flat)
            continue
        tol = None
        if isinstance(node, ast.Assign) and dtypes is not None and \
                any("tol" in ast.unparse(t).lower() for t in node.targets):
            value = _const(node.value)
            tol = {"atol": value, "rtol": value} if value is not None else None
        elif isinstance(node, (ast.Return, ast.Expr)) and isinstance(node.value, ast.Call) and \
                ast.unparse(node.value.func).split(".")[-1] == "check_precision":
            kw = {k.arg: _const(k.value) for k in node.value.keywords}
            if kw.get("max_abs_error") is not None and kw.get("max_rel_error") is not None:
                tol = {"atol": kw["max_abs_error"], "rtol": kw["max_rel_error"]}
        if tol is None:
            continue
        if dtypes is None:
            flat.append(tol)
        for d in sorted(dtypes or ()):
            per_dtype.setdefault(d, tol)


def _dtype_test(test) -> set[str] | None:
    """The floating dtypes a test names (`dtype == torch.float16`, `dtype_str == 'bfloat16' or ...`,
    `dtype in [torch.int8, ...]`), or None when it is not a test of the dtype."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        parts = [_dtype_test(v) for v in test.values]
        return set().union(*parts) if all(p is not None for p in parts) else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        if isinstance(test.ops[0], ast.Eq):
            for side in (test.left, test.comparators[0]):
                name = _dtype_name(side)
                if name is not None:
                    return {name} & _DTYPES
        if isinstance(test.ops[0], ast.In) and isinstance(test.comparators[0], (ast.List, ast.Tuple, ast.Set)):
            names = [_dtype_name(e) for e in test.comparators[0].elts]
            if names and all(n is not None for n in names):
                return set(names) & _DTYPES
    return None


def _dtype_name(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute) and ast.unparse(node).startswith("torch."):
        return node.attr
    return None


def _const(node) -> float | None:
    """A number from a constant arithmetic expression (1 / 512, 1 / 256 + 1 / 16384), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _const(node.left), _const(node.right)
        if a is None or b is None or isinstance(node.op, ast.Div) and b == 0:
            return None
        if isinstance(node.op, ast.Div):
            return a / b
        return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
    return None


# -- helpers ----------------------------------------------------------------------------------------

def _defined(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _parse(text: str, path: Path) -> ast.Module:
    try:
        return ast.parse(text, filename=str(path))
    except SyntaxError as e:
        raise BadInput(f"{path}:{e.lineno}: does not parse ({e.msg})") from None


def _read(path: Path) -> str:
    from repair.ascendc.taskfiles import read_source

    # a validation file: a regular file inside its task directory, bounded (test_cases.csv too)
    return read_source(path, within=path.parent.parent, max_bytes=_MAX_VALIDATION_BYTES)
