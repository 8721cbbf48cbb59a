"""What a campaign runs: its settings (stored with the ledger, checked on resume) and one RunSpec per repair."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from provenance.canonical import content_hash, sha256_text
from provenance.cohort import GenerationCost
from repair.errors import BadInput

RUNS = "runs"  # a campaign directory's folder of run directories, one per RunSpec key

CAMPAIGN_SCHEMA = "repair.campaign/v1"

# Ablations by name: what each switches off in the loop (see repair.campaign.parts).
ABLATIONS = {
    "no-kb": "no knowledge-base retrieval: the worker gets no patterns",
    "no-diagnostics": "forensics without the harness's diagnostics (statuses and errors only)",
    "integrity-off": "every integrity rule switched off (gate and runtime guards)",
    "no-full-tier": "accept on the compact tier; the full tier runs as a shadow and its verdict is recorded",
}

SCRIPT_SUFFIXES = (".yaml", ".yml", ".json")


class CampaignConfig(BaseModel):
    """Everything that decides a campaign's results. Executor, jobs and address do not: they only decide speed."""

    schema_: str = Field(CAMPAIGN_SCHEMA, alias="schema")
    kind: Literal["debug", "regenerate"] = "debug"
    manifest: str | None = None  # absolute path of the cohort manifest (None: a single problem)
    manifest_sha256: str | None = None
    problem: str | None = None  # regenerate over a single problem file
    worker: str = "scripted"
    model: str | None = None
    script: str | None = None  # a script file (every run) or a directory of per-run scripts
    script_sha256: str | None = None
    kb: str | None = None
    snapshot: str | None = None
    k: int = 5  # patterns retrieved per query
    ablations: list[str] = Field(default_factory=list)
    trials: int = 1  # regenerate: independent trials per operator
    bounds: dict = Field(default_factory=dict)  # repair.loop.bounds.Bounds fields; empty: the loop's defaults
    backend: str = "triton-cpu"
    # integrity policy (repair.integrity.POLICIES); left out of the identity when strict, as before the field existed
    policy: str = Field("strict", exclude_if=lambda v: v == "strict")
    run_timeout_s: float | None = None  # hard kill of a run's process (None: bounds.wall_s plus a margin)

    model_config = {"populate_by_name": True}

    def identity(self) -> str:
        """The hash a resumed campaign must match."""
        return content_hash(self.model_dump(mode="json", by_alias=True, exclude={"run_timeout_s"}))


@dataclass(frozen=True)
class RunSpec:
    """One repair (debug: an operator's near-miss candidate) or one fresh-generation trial (regenerate)."""

    key: str  # unique within a campaign; also the run's directory under DIR/runs/
    operator_id: str
    family: str | None
    problem: Path
    candidate: Path | None  # None for a regeneration trial
    trial: int = 0
    generation: GenerationCost | None = None  # what generating the near-miss cost, when the manifest says

    @property
    def label(self) -> str:
        """The candidate's path beside its problem without its suffix (nearmiss_1, npukb/nearmiss_tail)."""
        if self.candidate is None:
            return f"trial-{self.trial}"
        try:
            rel = self.candidate.relative_to(self.problem.parent)
        except ValueError:
            return self.candidate.stem
        return rel.with_suffix("").as_posix()


@dataclass(frozen=True)
class Operator:
    id: str
    family: str | None
    problem: Path
    candidates: tuple[Path, ...]
    generation: dict[Path, GenerationCost] = field(default_factory=dict, compare=False)  # candidate -> its cost


def check_ablations(names) -> list[str]:
    unknown = sorted(set(names) - set(ABLATIONS))
    if unknown:
        raise BadInput(f"unknown ablation {', '.join(unknown)} (known: {', '.join(ABLATIONS)})")
    return sorted(set(names))


def make_config(kind: str, *, script: Path | None, ablations, bounds: dict | None, kb: Path | None, **kw) -> CampaignConfig:
    """A campaign's settings from a command's options; the backend and the bounds are checked now."""
    script = Path(script).resolve() if script else None
    from repair.engine import get_backend

    be = get_backend(kw.get("backend"))  # None: $REPAIR_BACKEND or triton-cpu, recorded in the config
    be.check_available()  # exit 3 now, not one crashed run per candidate
    kw["backend"] = be.name
    if bounds:
        from repair.loop import Bounds

        Bounds(**bounds)  # validate now: a bad bound is bad input, not six crashed runs
    return CampaignConfig(kind=kind, script=str(script) if script else None, script_sha256=tree_sha256(script),
                          ablations=check_ablations(ablations), bounds=dict(bounds or {}),
                          kb=str(Path(kb).resolve()) if kb else None, **kw)


def load_operators(manifest: Path, *, allow_outside: bool = False) -> list[Operator]:
    """A cohort manifest's operators: each lists its problem.py and its near-miss candidates (every other file; the
    files of an NPUKernelBench task directory are one candidate, see `candidates_of`).

    allow_outside: accept files outside the manifest's tree (provenance.cohort.manifest_tree).
    """
    ops = []
    for op_id, family, files, costs in _manifest_operators(manifest, allow_outside):
        problems = [f for f in files if f.name == "problem.py"]
        if len(problems) != 1:
            raise BadInput(f"{manifest}: operator {op_id!r} must list exactly one problem.py (found {len(problems)})")
        answers = _answer_keys(problems[0].parent)
        cands = tuple(c for c in candidates_of(files, problems[0])
                      if c.name not in answers and _relative(c, problems[0].parent) not in answers)
        ops.append(Operator(op_id, family, problems[0], cands, costs))
    ids = [o.id for o in ops]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise BadInput(f"{manifest}: duplicate operator ids {', '.join(dupes)}")
    return ops


def candidates_of(files: list[Path], problem: Path) -> list[Path]:
    """The candidates among an operator's files, in order: each file is one, except that the files of an
    NPUKernelBench task directory (one with op_host/ and op_kernel/) are one candidate, that directory, and the
    files of a task's validation/ directory (module.py and pybind.cpp) are none. A six-source .py and a
    direct-launch .json are one file each."""
    out: list[Path] = []
    for f in files:
        if f == problem:
            continue
        task = _task_dir_of(f, problem.parent)
        if task is None and _in_validation(f):
            continue
        c = task or f
        if c not in out:
            out.append(c)
    return out


def _task_dir_of(f: Path, op_dir: Path) -> Path | None:
    """The nearest directory above f, below the operator's directory, that is an NPUKernelBench task directory."""
    for d in f.parents:
        if d == op_dir or d == d.parent or op_dir not in d.parents:
            return None
        if (d / "op_host").is_dir() and (d / "op_kernel").is_dir():
            return d
    return None


def _in_validation(f: Path) -> bool:
    v = f.parent
    return v.name == "validation" and (v / "module.py").is_file() and (v / "pybind.cpp").is_file()


def _relative(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def _answer_keys(op_dir: Path) -> set[str]:
    """Files a meta.yaml beside the problem marks `kind: correct` (the answer key) or `kind: upstream` (the benchmark's
    own problem file, kept for kb freeze): not near-misses to repair."""
    meta = op_dir / "meta.yaml"
    if not meta.is_file():
        return set()
    import yaml

    try:
        data = yaml.safe_load(meta.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise BadInput(f"{meta}: cannot read ({e})") from None
    cands = data.get("candidates") if isinstance(data, dict) else None
    if not isinstance(cands, dict):
        return set()
    return {name for name, info in cands.items() if isinstance(info, dict) and info.get("kind") in ("correct", "upstream")}


def manifest_sha256(manifest: Path, *, allow_outside: bool = False) -> str:
    """The cohort manifest's content hash (covering its files), from provenance.cohort when it is there."""
    try:
        from provenance import cohort
    except ImportError:
        cohort = None
    if cohort is not None and hasattr(cohort, "manifest_hash"):
        try:
            return cohort.manifest_hash(cohort.load_manifest(manifest, allow_outside=allow_outside))
        except Exception as e:  # noqa: BLE001 - E's errors are typed in its own package; report them as ours
            raise BadInput(str(e)) from None
    files = {str(f): _file_sha(f, manifest) for _, _, fs, _ in _manifest_operators(manifest, allow_outside) for f in fs}
    return content_hash({"manifest": sha256_text(manifest.read_bytes()), "files": files})


def plan_debug(operators: list[Operator]) -> list[RunSpec]:
    specs = []
    for op in operators:
        for cand in op.candidates:
            spec = RunSpec("", op.id, op.family, op.problem, cand, generation=op.generation.get(cand))
            specs.append(replace(spec, key=f"{op.id}/{spec.label}"))
    _check_unique(specs)
    return specs


def plan_regenerate(operators: list[Operator], trials: int) -> list[RunSpec]:
    if trials < 1:
        raise BadInput(f"--trials must be at least 1, got {trials}")
    return [RunSpec(f"{op.id}/trial-{t}", op.id, op.family, op.problem, None, t) for op in operators for t in range(trials)]


def script_for(spec: RunSpec, script: Path | None) -> Path | None:
    """A script file is used by every run; a directory holds per-run scripts: <op>/<label>.yaml, <op>/<label>/, <op>.yaml."""
    if script is None or script.is_file():
        return script
    base = script / spec.operator_id
    for cand in [*(base / f"{spec.label}{s}" for s in SCRIPT_SUFFIXES), base / spec.label,
                 *(script / f"{spec.operator_id}{s}" for s in SCRIPT_SUFFIXES)]:
        if cand.exists():
            return cand
    return None


def check_scripts(specs: list[RunSpec], worker: str, script: Path | None) -> None:
    if worker != "scripted" or script is None:
        return
    if not script.exists():
        raise BadInput(f"{script}: no such script file or directory")
    missing = [s.key for s in specs if script_for(s, script) is None]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise BadInput(f"{script}: no script for {shown} (looked for <op>/<candidate>.yaml, <op>/<candidate>/, <op>.yaml)")


def tree_sha256(path: Path | None) -> str | None:
    """Hash of a script file, or of every file under a script directory (names and contents)."""
    if path is None:
        return None
    if path.is_file():
        return sha256_text(path.read_bytes())
    files = {str(p.relative_to(path)): sha256_text(p.read_bytes()) for p in sorted(path.rglob("*")) if p.is_file()}
    return content_hash(files)


def _check_unique(specs: list[RunSpec]) -> None:
    keys = [s.key for s in specs]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise BadInput(f"two candidates share a run key: {', '.join(dupes)} (candidate file names must differ per operator)")


def _manifest_operators(manifest: Path, allow_outside: bool = False
                        ) -> list[tuple[str, str | None, list[Path], dict[Path, GenerationCost]]]:
    try:
        from provenance.cohort import load_manifest
    except ImportError:
        return _read_manifest_yaml(manifest)
    try:
        m = load_manifest(manifest, allow_outside=allow_outside)
    except Exception as e:  # noqa: BLE001 - see manifest_sha256
        raise BadInput(str(e)) from None
    return [(op.id, op.family, [_resolve(manifest, f) for f in op.files],
             {_resolve(manifest, f): cost for f, cost in op.generation_cost.items()}) for op in m.operators]


def _resolve(manifest: Path, f) -> Path:
    p = Path(f)
    return p if p.is_absolute() else (manifest.parent / p).resolve()


def _read_manifest_yaml(manifest: Path) -> list[tuple[str, str | None, list[Path], dict]]:
    import yaml

    try:
        data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    except OSError as e:
        raise BadInput(f"{manifest}: cannot read manifest ({e.strerror})") from None
    except yaml.YAMLError as e:
        raise BadInput(f"{manifest}: not valid YAML ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("operators"), list):
        raise BadInput(f"{manifest}: a cohort manifest needs an 'operators' list")
    out = []
    for i, op in enumerate(data["operators"]):
        if not isinstance(op, dict) or "id" not in op or not isinstance(op.get("files"), list):
            raise BadInput(f"{manifest}: operator {i} needs 'id' and a 'files' list")
        files = [_resolve(manifest, f) for f in op["files"]]
        for f in files:
            if not f.is_file():
                raise BadInput(f"{manifest}: operator {op['id']!r} lists a missing file {f}")
        out.append((str(op["id"]), op.get("family"), files, {}))
    return out


def _file_sha(f: Path, manifest: Path) -> str:
    try:
        return sha256_text(f.read_bytes())
    except OSError as e:
        raise BadInput(f"{manifest}: cannot read {f} ({e.strerror})") from None
