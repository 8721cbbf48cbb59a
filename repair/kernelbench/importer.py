"""`repair import kernelbench`: each KernelBench problem file becomes DIR/<name>/problem.py with derived case tiers,
beside a byte-for-byte copy of the file, and the imported problems a cohort manifest (DIR/cohort.yaml).

Every file is read and checked statically before anything runs; its cases are then derived and checked in a probe
process each (`isolate.run_probe`); a problem whose cases cannot be derived is refused with a one-line reason and
the others are still written.
"""
from __future__ import annotations

import ast
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from provenance.canonical import sha256_text
from repair.errors import BadInput
from repair.kernelbench.isolate import run_probe
from repair.kernelbench.model import (CPU_BUDGET, FULL_DIVISOR, Derivation, ImportedProblem, ProbeRequest, Refusal,
                                      resolve_budget)
from repair.kernelbench.render import HELPERS, upstream_of
from repair.kernelbench.source import read_facts

MANIFEST_NAME = "cohort.yaml"


@dataclass(frozen=True)
class Options:
    backend: str = "triton-cpu"
    scale: float | None = None  # None: auto (the budget's)
    elements: int | None = None  # the compact case's budget, where not the backend's default
    flops: int | None = None
    full_cases: int = 8
    family: str | None = None
    cohort: str = "kernelbench"
    timeout_s: float = 300.0
    mem_limit_mb: int = 8192
    jobs: int = 1
    frozen_at: datetime | None = None


@dataclass(frozen=True)
class _Source:
    path: Path
    text: str
    sha256: str
    name: str
    family: str
    has_get_init_inputs: bool


def import_problems(files: list[Path], out: Path, options: Options = Options(), progress=None
                    ) -> tuple[list[ImportedProblem], list[Refusal], Path | None]:
    """Import what can be imported; (imported, refused, the manifest path or None when nothing was imported).
    progress: called with a line as each problem's probe ends (`repair import` prints them on stderr)."""
    if options.scale is not None and not 0 < options.scale <= 1:
        raise BadInput(f"--scale must be auto or a factor in (0, 1], got {options.scale}")
    if options.full_cases < 0:
        raise BadInput(f"--full-cases must be at least 0, got {options.full_cases}")
    budget = resolve_budget(options.backend, options.elements, options.flops)
    sources = [_read(Path(f), options.family) for f in files]
    if not sources:
        raise BadInput("no PROBLEM_FILE given")
    names = [s.name for s in sources]
    if len(set(names)) < len(names):
        raise BadInput(f"two problem files are named {next(n for n in names if names.count(n) > 1)}")
    full_budget = budget.divided(FULL_DIVISOR) if budget is not None else CPU_BUDGET
    requests = [ProbeRequest(path=str(s.path), text=s.text, sha256=s.sha256, operator_id=s.name, family=s.family,
                             budget=budget, full_budget=full_budget, scale=options.scale,
                             full_cases=options.full_cases) for s in sources]

    finished = iter(range(1, len(requests) + 1))

    def probe(request: ProbeRequest) -> dict:
        answer = run_probe(request.model_dump_json(by_alias=True), timeout_s=options.timeout_s,
                           mem_limit_mb=options.mem_limit_mb)
        if progress is not None:
            progress(f"{next(finished)}/{len(requests)} probed: {request.operator_id} "
                     f"({'cases derived' if answer['status'] == 'ok' else 'refused'})")
        return answer

    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        answers = list(pool.map(probe, requests))
    out.mkdir(parents=True, exist_ok=True)
    done, refused = [], []
    for source, answer in zip(sources, answers):
        if answer["status"] != "ok":
            refused.append(Refusal(upstream=str(source.path), refused=answer["reason"]))
            continue
        done.append(_write(out, source, Derivation.model_validate(answer["derivation"]), answer["text"]))
    manifest = write_manifest(out, done, cohort=options.cohort, frozen_at=options.frozen_at) if done else None
    return done, refused, manifest


def _read(path: Path, family: str | None) -> _Source:
    if not path.is_file():
        raise BadInput(f"{path}: not a file")
    from provenance.readfile import describe, read_bytes

    try:
        data = read_bytes(path)  # bounded: /proc files and files of gigabytes are refused
        text = data.decode("utf-8")
    except OSError as e:
        raise BadInput(f"cannot read {describe(e)}") from None
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: cannot read ({e})") from None
    facts = read_facts(text, str(path))
    if "CASES" in facts.top_level:
        raise BadInput(f"{path}: already defines CASES: a problem of this tool, not a KernelBench file")
    clash = sorted(facts.top_level & (set(HELPERS) - {"OPERATOR"}))
    if clash:
        raise BadInput(f"{path}: defines {', '.join(clash)}, which the imported problem needs for itself")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", path.stem):
        raise BadInput(f"{path}: a problem's name must be letters, digits, '_', '.' or '-'")
    return _Source(path, text, sha256_text(data), path.stem, family or _family(path), facts.has_get_init_inputs)


def _family(path: Path) -> str:
    """KernelBench files problems under KernelBench/level<N>/: kernelbench-level<N>, else kernelbench."""
    level = path.resolve().parent.name
    return f"kernelbench-{level}" if re.fullmatch(r"level\d+", level) else "kernelbench"


def _write(out: Path, source: _Source, derivation: Derivation, text: str) -> ImportedProblem:
    """problem.py (checked against what the probe derived), the upstream copy and meta.yaml."""
    import yaml

    if upstream_of(text) != source.text:
        raise BadInput(f"{source.path}: the probe's problem.py does not hold the file unchanged")  # never expected
    cases = _literal(text, "CASES")
    if cases != derivation.cases:
        raise BadInput(f"{source.path}: the probe's problem.py does not hold the cases it derived")
    dest = out / source.name
    dest.mkdir(exist_ok=True)
    problem = dest / "problem.py"
    problem.write_text(text, encoding="utf-8")
    copy = dest / source.path.name
    copy.write_bytes(source.text.encode("utf-8"))
    meta = {"operator": source.name, "family": source.family,
            "candidates": {copy.name: {"kind": "upstream", "sha256": source.sha256,
                                       "description": "The KernelBench file, unchanged: not a candidate; kb freeze "
                                                      "matches records made against it by this hash."}}}
    (dest / "meta.yaml").write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")
    return ImportedProblem(name=source.name, operator_id=source.name, family=source.family,
                           upstream=str(source.path), upstream_sha256=source.sha256, problem=str(problem),
                           upstream_copy=str(copy), compact=sum(c["tier"] == "compact" for c in cases),
                           full=len(cases), derivation=derivation)


def _literal(text: str, name: str):
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def write_manifest(out: Path, done: list[ImportedProblem], *, cohort: str, frozen_at: datetime | None) -> Path:
    """DIR/cohort.yaml: one operator per imported problem (problem.py and the upstream copy); an existing manifest
    keeps its other operators."""
    import yaml

    from provenance.cohort import load_manifest

    path = out / MANIFEST_NAME
    old = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
    operators = {op["id"]: op for op in (old or {}).get("operators", [])}
    for p in done:
        files = [Path(f).relative_to(out).as_posix() for f in (p.problem, p.upstream_copy)]
        operators[p.operator_id] = {"id": p.operator_id, "family": p.family, "files": files}
    stamp = (frozen_at or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    manifest = {"cohort": cohort, "frozen_at": stamp, "operators": [operators[k] for k in sorted(operators)]}
    path.write_text("# Written by `repair import kernelbench`; paths are relative to this file.\n"
                    + yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    load_manifest(path)  # what `kb freeze` and a campaign will read
    return path
