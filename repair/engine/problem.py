"""Problem specs: operator identity, the case list by tier, and the tolerance.

The engine never imports a problem: a reference process does, and hands back OPERATOR, CASES and
TOLERANCE as plain data, which are validated here. Files are checked statically first (they parse,
they define Model / ModelNew) so bad input fails fast with a line naming the file.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from provenance.canonical import content_hash, sha256_text
from repair.ascendc import is_ascendc_candidate, load_candidate
from repair.errors import BadInput
from repair.engine.result import Tier
from repair.engine.tolerance import KEYS

TIERS = ("compact", "full")


class CaseSpec(BaseModel):
    case_id: str
    tier: Tier
    params: dict[str, Any] = Field(default_factory=dict)  # keyword arguments of get_inputs/get_init_inputs


class ProblemSpec(BaseModel):
    operator_id: str
    family: str | None = None
    path: str
    sha256: str
    cases: list[CaseSpec]
    tolerance: dict[str, Any] | None = None  # as written in the problem (None: defaults by dtype)
    compare: dict[str, Any] | None = None  # COMPARE as written: {"promote": True} compares as a benchmark's check does
    # TOLERANCE_KEY: the case key whose value (a dtype) names TOLERANCE's entry for every output of the case, as a
    # benchmark's check that picks its bounds by the case's dtype column does
    tolerance_key: str | None = None
    kernelbench_style: bool = False  # no CASES: one "default" case

    def tolerance_for(self, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """TOLERANCE for a case: its TOLERANCE_KEY's entry (flat, so it holds for every output), else as written."""
        value = (params or {}).get(self.tolerance_key) if self.tolerance_key else None
        if isinstance(value, str) and isinstance(self.tolerance, dict) and isinstance(self.tolerance.get(value), dict):
            return dict(self.tolerance[value])
        return self.tolerance

    def cases_for(self, tier: Tier) -> list[CaseSpec]:
        """The compact tier is the cases marked compact; the full tier is every case."""
        return [c for c in self.cases if tier == "full" or c.tier == "compact"]


def case_set_sha256(cases: list[CaseSpec]) -> str:
    return content_hash([c.model_dump(mode="json") for c in cases])


# -- static checks (no import) ------------------------------------------------------------------

def _read(path: str | Path, what: str) -> tuple[Path, str, str]:
    """(path, text, sha256 of the bytes)."""
    from provenance.readfile import FileRefused, read_bytes

    p = Path(path)
    if not p.exists():
        raise BadInput(f"{path}: {what} file not found")
    try:
        data = read_bytes(p)  # a FIFO, a device or a file of gigabytes is refused, not read
        return p, data.decode("utf-8"), sha256_text(data)
    except FileRefused as e:
        raise BadInput(f"{path}: {what} file is {e.strerror}" if e.errno == 22 else f"{path}: {what} file: {e.strerror}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read {what} file ({e})") from None


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def check_problem_file(path: str | Path) -> str:
    """Parse the problem file without running it; return its sha256. BadInput when it cannot be a problem."""
    p, text, sha = _read(path, "problem")
    try:
        tree = ast.parse(text, filename=str(p))
    except SyntaxError as e:
        raise BadInput(f"{path}: problem does not parse: {e.msg} (line {e.lineno})") from None
    names = _top_level_names(tree)
    for need in ("Model", "get_inputs"):
        if need not in names:
            raise BadInput(f"{path}: problem defines no {need}")
    return sha


@dataclass(frozen=True)
class CandidateFile:
    """A candidate file as read once: its text and sha256, and its syntax tree (None: it does not parse)."""

    path: Path
    text: str
    sha256: str
    tree: ast.Module | None


def read_candidate_file(path: str | Path) -> CandidateFile:
    """Read and parse the candidate without running it; BadInput when it cannot be a candidate. One that does not
    parse is a result (every case errors), not bad input."""
    p, text, sha = _read(path, "candidate")
    try:
        tree = ast.parse(text, filename=str(p))
    except SyntaxError:
        return CandidateFile(p, text, sha, None)
    if "ModelNew" not in _top_level_names(tree):
        raise BadInput(f"{path}: candidate defines no ModelNew")
    return CandidateFile(p, text, sha, tree)


def check_candidate_file(path: str | Path) -> tuple[str, bool]:
    """Return (sha256, parses). A candidate that does not parse is a result (every case errors), not bad input.

    An AscendC candidate (a six-source .py, a direct-launch .json, an NPUKernelBench directory) is read whole."""
    if is_ascendc_candidate(path):
        return load_candidate(path).sha256, True
    candidate = read_candidate_file(path)
    return candidate.sha256, candidate.tree is not None


# -- validating what the reference process reported ---------------------------------------------

def _operator_id(path: Path, operator: Any) -> tuple[str, str | None]:
    default = path.parent.name if path.stem == "problem" else path.stem
    if operator is None:
        return default, None
    if not isinstance(operator, dict):
        raise BadInput(f"{path}: OPERATOR must be a dict like {{'id': ..., 'family': ...}}")
    op_id, family = operator.get("id", default), operator.get("family")
    if not isinstance(op_id, str) or not op_id or (family is not None and not isinstance(family, str)):
        raise BadInput(f"{path}: OPERATOR id/family must be non-empty strings")
    return op_id, family


def _validate_cases(path: Path, cases: Any) -> list[CaseSpec]:
    if not isinstance(cases, list) or not cases:
        raise BadInput(f"{path}: CASES must be a non-empty list of dicts")
    out = []
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            raise BadInput(f"{path}: CASES[{i}] is a {type(case).__name__}, not a dict")
        tier = case.get("tier")
        if tier not in TIERS:
            raise BadInput(f"{path}: CASES[{i}] has tier {tier!r}; expected 'compact' or 'full'")
        params = {k: v for k, v in case.items() if k != "tier"}
        if not all(isinstance(k, str) and k.isidentifier() for k in params):
            raise BadInput(f"{path}: CASES[{i}] keys must be identifiers (they become keyword arguments)")
        out.append(CaseSpec(case_id=f"c{i}", tier=tier, params=params))
    if not any(c.tier == "compact" for c in out):
        raise BadInput(f"{path}: CASES has no compact case")
    return out


def _validate_tolerance(path: Path, tol: Any) -> dict | None:
    if tol is None:
        return None
    if not isinstance(tol, dict) or not tol:
        raise BadInput(f"{path}: TOLERANCE must be a dict like {{'atol': 1e-4, 'rtol': 1e-4}} or one per dtype")

    def pair(where: str, d: Any) -> None:
        if not isinstance(d, dict) or not d or set(d) - set(KEYS):
            raise BadInput(f"{path}: TOLERANCE{where} must have only 'atol'/'rtol' (and 'frac') keys")
        for k, v in d.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or (k == "frac" and v >= 1):
                raise BadInput(f"{path}: TOLERANCE{where}[{k!r}] must be a non-negative number"
                               + (" below 1" if k == "frac" else ""))

    flat = {k: v for k, v in tol.items() if k in KEYS}
    if flat:
        pair("", flat)
    for k, v in tol.items():
        if k not in KEYS:
            pair(f"[{k!r}]", v)
    return tol


def _validate_tolerance_key(path: Path, key: Any) -> str | None:
    if key is None:
        return None
    if not isinstance(key, str) or not key.isidentifier():
        raise BadInput(f"{path}: TOLERANCE_KEY must be the name of a case key, like 'dtype'")
    return key


def _validate_compare(path: Path, compare: Any) -> dict | None:
    if compare is None:
        return None
    if not isinstance(compare, dict) or set(compare) - {"promote"} or not isinstance(compare.get("promote"), bool):
        raise BadInput(f"{path}: COMPARE must be a dict like {{'promote': True}}")
    return compare


def spec_from_report(path: str | Path, sha256: str, report: dict) -> ProblemSpec:
    """Build a ProblemSpec from what the reference process found in the problem module."""
    p = Path(path)
    op_id, family = _operator_id(p, report.get("OPERATOR"))
    if report.get("has_cases"):
        cases = _validate_cases(p, report.get("CASES"))
    else:
        cases = [CaseSpec(case_id="default", tier="compact", params={})]
    return ProblemSpec(operator_id=op_id, family=family, path=str(p), sha256=sha256, cases=cases,
                       tolerance=_validate_tolerance(p, report.get("TOLERANCE")),
                       compare=_validate_compare(p, report.get("COMPARE")),
                       tolerance_key=_validate_tolerance_key(p, report.get("TOLERANCE_KEY")),
                       kernelbench_style=not report.get("has_cases"))
