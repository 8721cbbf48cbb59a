"""`repair import npukernelbench`: each task becomes DIR/<task>/problem.py and DIR/<task>/candidate/, and the
imported tasks a cohort manifest (DIR/cohort.yaml), so `repair eval/check/run/campaign` take them like any other.
"""
from __future__ import annotations

import pprint
import re
import shutil
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from repair.ascendc.candidate import snake
from repair.ascendc.load import load_candidate
from repair.ascendc.task import TaskProblem, read_task, validation_dir
from repair.errors import BadInput

MANIFEST_NAME = "cohort.yaml"


@dataclass
class ImportedTask:
    task: str
    operator_id: str
    problem: str
    candidate: str
    compact: int
    full: int
    tolerance: str
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def problem_source(task: str | Path, *, family: str | None = None) -> str:
    """The problem.py text for an NPUKernelBench task directory."""
    task = Path(task)
    return render_problem(read_task(task), operator_id=operator_id(task), family=family or _family(task))


def operator_id(task: Path) -> str:
    """A task's operator id: its directory name in snake case (AddCustom -> add_custom)."""
    return snake(task.name)


def render_problem(t: TaskProblem, *, operator_id: str, family: str, record_validation: bool = False) -> str:
    """problem.py's text; `record_validation` writes VALIDATION_SHA256, the task's validation files as imported
    (the integrity scan trusts a candidate's copies of them only when they match)."""
    compact = sum(c["tier"] == "compact" for c in t.cases)
    # a torch.rand of an integer dtype: the NPU makes one, CPU torch refuses (the shim only where the inputs call rand
    # and an integer dtype is named, by a case or by the inputs' code)
    ints = re.compile(r"\b(?:torch\.)?u?int(?:8|16|32|64)\b")
    rand = bool(re.search(r"\btorch\.rand\(", t.inputs or "")) and (
        bool(ints.search(t.inputs or "")) or any(isinstance(v, str) and ints.fullmatch(v) for c in t.cases
                                                 for v in c.values()))
    rand_note = "; a torch.rand of an integer dtype, which the NPU makes and CPU torch does not, draws randint(0, 2)" \
        if rand else ""
    inputs_fn = _RAND_INPUTS if rand else _PLAIN_INPUTS
    head = f'''"""NPUKernelBench task {t.name}, imported by `repair import npukernelbench`.

Reference: validation/module.py's Model without its NPU-only imports. Inputs: validation/prepare_inputs.py
(its get_inputs/get_init_inputs renamed _task_*, called with the case's test_cases.csv row{rand_note}). CASES: every row of
validation/test_cases.csv; the compact tier is the {compact} smallest.
TOLERANCE: {t.tolerance_source}.
COMPARE: NPUKernelBench's check computes `out - out_new`, so an output of another dtype compares in the promoted
one, and one of another shape holding the same elements (`[1]` for a scalar) too.
"""
'''
    columns = f"_COLUMNS = {t.columns!r}  # case keys that are not the CSV's column names\n" if t.columns else ""
    validation = ("# the benchmark's own validation files as imported: a candidate carrying other ones is flagged\n"
                  f"VALIDATION_SHA256 = {pprint.pformat(t.validation_sha256, sort_dicts=True)}\n"
                  if record_validation else "")
    tail = f'''

# -- written by the import ------------------------------------------------------------------------

OPERATOR = {{'id': {operator_id!r}, 'family': {family!r}}}
TOLERANCE = {pprint.pformat(t.tolerance, sort_dicts=True)}
{f"TOLERANCE_KEY = {t.tolerance_key!r}{chr(10)}" if t.tolerance_key else ""}COMPARE = {{'promote': True}}
CASES = [
{"".join(f"    {c!r},{chr(10)}" for c in t.cases)}]
{columns}{validation}

def _row(case):
    """The case as the task's test_cases.csv row (a dict: the task's code reads it with .get and [])."""
    return {{{"_COLUMNS.get(k, k)" if t.columns else "k"}: v for k, v in case.items()}}


def _plain(v):
    """A numpy scalar (np.int64(n)) as the Python number it holds: what crosses to the candidate process."""
    return v.item() if type(v).__module__ == "numpy" and getattr(v, "ndim", None) == 0 else v


{inputs_fn}def get_init_inputs(**case):
    return [_plain(v) for v in _task_get_init_inputs(_row(case), device=None)]
'''
    parts = [head, "# -- validation/module.py " + "-" * 72 + "\n\n" + t.reference]
    if t.inputs:
        parts.append("\n\n# -- validation/prepare_inputs.py " + "-" * 64 + "\n\n" + t.inputs.rstrip() + "\n")
    return "".join(parts) + tail


_PLAIN_INPUTS = '''def get_inputs(**case):
    return [_plain(v) for v in _task_get_inputs(_row(case), device=None)]


'''
_RAND_INPUTS = '''def _rand(torch, rand):
    """torch.rand as on the NPU, which makes tensors of an integer dtype too (CPU torch refuses): there, randint(0, 2),
    a uniform draw of that dtype's values in [0, 1]."""
    def rand_any(*size, dtype=None, **kw):
        if dtype is None or dtype.is_floating_point or dtype.is_complex:
            return rand(*size, dtype=dtype, **kw)
        shape = size[0] if len(size) == 1 and isinstance(size[0], (list, tuple)) else size
        kw.pop("requires_grad", None)
        return torch.randint(0, 2, tuple(shape), dtype=dtype, **kw)
    return rand_any


def get_inputs(**case):
    import torch

    rand, torch.rand = torch.rand, _rand(torch, torch.rand)
    try:
        return [_plain(v) for v in _task_get_inputs(_row(case), device=None)]
    finally:
        torch.rand = rand


'''


def import_tasks(tasks: list[Path], out: Path, *, candidate: Path | None = None, family: str | None = None,
                 cohort: str = "npukernelbench", frozen_at: datetime | None = None) -> tuple[list[ImportedTask], Path]:
    """Import every task (all read and checked before anything is written); returns them and the manifest path."""
    if not tasks:
        raise BadInput("no TASK_DIR given")
    if candidate is not None and len(tasks) > 1:
        raise BadInput("--candidate takes exactly one TASK_DIR (it is that task's other solution)")
    tasks = [_task_dir(t) for t in tasks]
    names = [t.name for t in tasks]
    if len(set(names)) < len(names):
        raise BadInput(f"two task directories are named {next(n for n in names if names.count(n) > 1)}")
    plans = []
    for task in tasks:  # everything read (bounded, regular files inside the task) and checked before any write
        answer = candidate or _answer(task)
        cand = load_candidate(answer, validation=validation_dir(task))
        if re.fullmatch(r"[A-Z][A-Za-z0-9]*", task.name) and cand.op != task.name:  # NPUKernelBench names tasks by op
            raise BadInput(f"{answer}: OP_ADD({cand.op}) is not task {task.name}'s operator")
        tp = read_task(task)
        text = render_problem(tp, operator_id=operator_id(task), family=family or _family(task),
                              record_validation=True)
        compile(text, str(out / task.name / "problem.py"), "exec")
        plans.append((task, cand, text, tp, _candidate_files(task, answer)))
    out.mkdir(parents=True, exist_ok=True)
    done = []
    for task, cand, text, tp, files in plans:
        dest = out / task.name
        dest.mkdir(exist_ok=True)
        (dest / "problem.py").write_text(text, encoding="utf-8")
        cdir = dest / "candidate"
        if cdir.is_symlink() or cdir.is_file():
            cdir.unlink()
        elif cdir.exists():
            shutil.rmtree(cdir)
        for rel, data in files.items():  # what was read above, not the task's files again
            (cdir / rel).parent.mkdir(parents=True, exist_ok=True)
            (cdir / rel).write_bytes(data)
        load_candidate(cdir)  # the copy reads as the original did
        done.append(ImportedTask(task.name, operator_id(task), str(dest / "problem.py"), str(cdir),
                                 sum(c["tier"] == "compact" for c in tp.cases), len(tp.cases), tp.tolerance_source,
                                 tp.notes + cand.notes))
    return done, write_manifest(out, done, cohort=cohort, family=family, tasks=tasks, frozen_at=frozen_at)


def write_manifest(out: Path, done: list[ImportedTask], *, cohort: str, family: str | None, tasks: list[Path],
                   frozen_at: datetime | None) -> Path:
    """DIR/cohort.yaml: one operator per imported task (problem.py and every candidate file); an existing
    manifest keeps its other operators."""
    import yaml

    from provenance.cohort import load_manifest

    path = out / MANIFEST_NAME
    old = yaml.safe_load(path.read_text()) if path.is_file() else None
    operators = {op["id"]: op for op in (old or {}).get("operators", [])}
    for imported, task in zip(done, tasks):
        cdir = Path(imported.candidate)
        files = [Path(imported.problem)] + sorted(p for p in cdir.rglob("*") if p.is_file())
        operators[imported.operator_id] = {"id": imported.operator_id, "family": family or _family(task),
                                           "files": [p.relative_to(out).as_posix() for p in files]}
    stamp = (frozen_at or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    manifest = {"cohort": cohort, "frozen_at": stamp, "operators": [operators[k] for k in sorted(operators)]}
    path.write_text("# Written by `repair import npukernelbench`; paths are relative to this file.\n"
                    + yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    load_manifest(path)  # what the campaign and `kb freeze` will read
    return path


_TASK_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def _task_dir(task: Path) -> Path:
    """The task directory, its name checked: DIR/<name> must be a new directory inside DIR (`..`, `.` and names
    with a separator would write beside or above it)."""
    if not task.is_dir():
        raise BadInput(f"{task}: not a directory")
    name = task.name
    if name in ("", ".", "..") or not _TASK_NAME.fullmatch(name):
        raise BadInput(f"{task}: the task directory's name {name!r} cannot name DIR/<task> (give the task's own "
                       "path, e.g. tasks/level1/Math/AddCustom)")
    return task


def _candidate_files(task: Path, answer: Path) -> dict[str, bytes]:
    """The files DIR/<task>/candidate/ gets: the solution's op_host/ and op_kernel/ and the task's validation/module.py
    and pybind.cpp, each a regular file inside the task (or the --candidate directory), read now."""
    from repair.ascendc.taskfiles import read_tree

    within = task if answer.resolve().is_relative_to(task.resolve()) else answer
    files = {f"{sub}/{rel}": data for sub in ("op_host", "op_kernel")
             for rel, data in read_tree(answer / sub, within=within).items()}
    validation = read_tree(task / "validation", within=task)
    files.update({f"validation/{f}": validation[f] for f in ("module.py", "pybind.cpp")})
    return files


def _answer(task: Path) -> Path:
    answers = sorted(p for p in (task / "answer").glob("*") if (p / "op_host").is_dir() and (p / "op_kernel").is_dir())
    if not answers:
        raise BadInput(f"{task}: no answer/<n>/ with op_host/ and op_kernel/ (give the solution with --candidate)")
    return task / "answer" / "0" if (task / "answer" / "0") in answers else answers[0]


def _family(task: Path) -> str:
    """NPUKernelBench files tasks under their category (tasks/level1/Math/AddCustom): that, in lower case."""
    return task.resolve().parent.name.lower() or "npukernelbench"
