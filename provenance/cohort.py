"""Cohort manifests: which operators (and which files of theirs) an evaluation uses, and when it froze.

```yaml
cohort: demo-eval
frozen_at: "2026-11-30T00:00:00Z"
operators:
  - id: softmax_lastdim
    family: softmax
    files: [../examples/softmax/problem.py, ../examples/softmax/nearmiss_1.py]  # relative to the manifest
    generation_cost:  # optional: what generating a near-miss cost (a report adds it to debugging's tokens)
      ../examples/softmax/nearmiss_1.py: {tokens: 4200, model: gpt-4o}
```
The manifest hash covers the files' contents, so editing a cohort file changes it; reordering the YAML
(operators, files) or renaming the manifest does not, and neither does a generation cost (it annotates how
a file was made, not what the cohort holds).

A cohort file must resolve (symlinks followed) inside the manifest's tree: its project root (the nearest
ancestor directory holding `.git` or `pyproject.toml`) when it lives in one, else its own directory; so a
manifest cannot have `kb freeze` hash /etc/shadow. `allow_outside=True` (the CLIs' `--allow-outside`) lifts it.
"""
from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from provenance.canonical import content_hash, sha256_text
from provenance.errors import BadInput, OutsideManifestTree

MANIFEST_SCHEMA = "cohort.manifest/v1"

_LANGUAGES = {
    ".py": "python",
    ".c": "cpp", ".h": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".cu": "cpp", ".cuh": "cpp",
}


class GenerationCost(BaseModel):
    """What generating one cohort file (a near-miss) cost: its tokens and, where known, the model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tokens: int = Field(ge=0)
    model: str | None = None


class CohortOperator(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    family: str | None = None
    files: list[str] = Field(min_length=1)
    generation_cost: dict[str, GenerationCost] = Field(default_factory=dict)  # a file as listed -> its cost

    @model_validator(mode="after")
    def _costs_name_listed_files(self) -> CohortOperator:
        unknown = sorted(set(self.generation_cost) - set(self.files))
        if unknown:
            raise ValueError(f"generation_cost names {', '.join(unknown)}, not among the operator's files")
        return self


class CohortFile(BaseModel):
    """One cohort file as read from disk: what overlap detection and the manifest hash see."""

    operator_id: str
    family: str | None
    path: str  # as written in the manifest (relative to it)
    language: str
    sha256: str
    code: str


class CohortManifest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["cohort.manifest/v1"] = Field(MANIFEST_SCHEMA, alias="schema")
    cohort: str = Field(min_length=1)
    frozen_at: datetime
    operators: list[CohortOperator] = Field(min_length=1)
    _base_dir: Path = PrivateAttr(default=Path("."))
    _source: str = PrivateAttr(default="<manifest>")
    _allow_outside: bool = PrivateAttr(default=False)

    @field_validator("frozen_at")
    @classmethod
    def _utc(cls, v: datetime) -> datetime:
        if v.tzinfo is None:
            raise ValueError("frozen_at needs a time zone (write it as 2026-11-30T00:00:00Z)")
        return v.astimezone(timezone.utc)

    @property
    def source(self) -> str:
        return self._source

    def operator_ids(self) -> set[str]:
        return {op.id for op in self.operators}

    def families(self) -> set[str]:
        return {op.family for op in self.operators if op.family}

    def files(self) -> list[CohortFile]:
        """Read every cohort file; a missing or undecodable one is a BadInput naming it."""
        out = []
        tree = manifest_tree(self._base_dir)
        for op in self.operators:
            for rel in op.files:
                real = Path(os.path.realpath(self._base_dir / rel))
                if not self._allow_outside and not real.is_relative_to(tree):
                    raise OutsideManifestTree(
                        f"{self._source}: operator {op.id!r}: {rel} resolves to {real}, outside {tree}; "
                        "--allow-outside allows it")
                code, digest = _read(real, self._source, op.id)
                out.append(CohortFile(operator_id=op.id, family=op.family, path=rel,
                                      language=language_for_path(rel), sha256=digest, code=code))
        return out


def language_for_path(path: str) -> str:
    """python or cpp from the file extension; anything else is hashed but not fingerprinted ('other')."""
    return _LANGUAGES.get(Path(path).suffix.lower(), "other")


def manifest_tree(manifest_dir: str | Path) -> Path:
    """The directory a manifest's files must stay in: the nearest project root above it, else the directory itself."""
    start = Path(os.path.realpath(manifest_dir))
    for d in (start, *start.parents):
        if d == d.parent:  # the filesystem root is no project's root: it would allow everything
            break
        if (d / ".git").exists() or (d / "pyproject.toml").is_file():
            return d
    return start


def _read(path: Path, manifest: str, op_id: str) -> tuple[str, str]:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise BadInput(f"{manifest}: operator {op_id!r}: cannot read {path}: {e.strerror or e}") from e
    try:
        return data.decode("utf-8"), sha256_text(data)
    except UnicodeDecodeError as e:
        raise BadInput(f"{manifest}: operator {op_id!r}: {path} is not UTF-8 text") from e


def load_manifest(path: str | Path, *, allow_outside: bool = False) -> CohortManifest:
    """Parse and validate a cohort manifest; every problem is a one-line BadInput naming the file.

    A file resolving outside manifest_tree() is an OutsideManifestTree unless allow_outside.
    """
    import yaml

    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise BadInput(f"{p}: cannot read cohort manifest: {e.strerror or e}") from e
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise BadInput(f"{p}: malformed YAML: {' '.join(str(e).split())}") from e
    if not isinstance(raw, dict):
        raise BadInput(f"{p}: a cohort manifest is a mapping with keys cohort, frozen_at, operators")
    try:
        m = CohortManifest.model_validate(raw)
    except ValidationError as e:
        raise BadInput(f"{p}: {_first_error(e)}") from e
    ids = [op.id for op in m.operators]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise BadInput(f"{p}: operator id listed twice: {', '.join(dup)}")
    m._base_dir = p.resolve().parent
    m._source = str(p)
    m._allow_outside = allow_outside
    m.files()  # fail now, naming the file, rather than at freeze time
    return m


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(x) for x in err["loc"]) or "manifest"
    if err["type"] == "missing":
        return f"missing key {where!r}"
    if err["type"] == "extra_forbidden":
        return f"unknown key {where!r}"
    return f"{where}: {err['msg']}"


def manifest_record(manifest: CohortManifest) -> dict:
    """The hashed content: the manifest with each file's sha256, in a canonical order."""
    digests = {(f.operator_id, f.path): f.sha256 for f in manifest.files()}
    ops = [
        {"id": op.id, "family": op.family,
         "files": sorted(({"path": rel, "sha256": digests[(op.id, rel)]} for rel in op.files),
                         key=lambda d: d["path"])}
        for op in sorted(manifest.operators, key=lambda o: o.id)
    ]
    return {"schema": MANIFEST_SCHEMA, "cohort": manifest.cohort,
            "frozen_at": manifest.frozen_at.isoformat().replace("+00:00", "Z"), "operators": ops}


def manifest_hash(manifest: CohortManifest) -> str:
    """sha256 of the canonical JSON of manifest_record(manifest)."""
    return content_hash(manifest_record(manifest))
