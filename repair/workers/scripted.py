"""A deterministic worker that replays a script of full files or unified diffs (tests, demos, campaigns).

A script is a JSON/YAML file, either a list of steps or {"steps": [...]}; each step is one of
  {file: PATH} / {candidate: TEXT}     a full candidate file (PATH relative to the script)
  {patch: PATH} / {diff: TEXT}         a unified diff against the kernel the engine hands over
with optional `cited` (a list of ids, or "top" / "all" for the retrieved patterns), `usage`
({prompt_tokens, completion_tokens, cached_tokens}, to rehearse token bounds) and `diagnosis`.
A directory is a script too: its *.py, *.diff and *.patch files in name order.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from repair.errors import BadInput
from repair.workers.base import Proposal, Usage, WorkerContext, WorkerExhausted, WorkerInfo

_KINDS = ("file", "candidate", "patch", "diff")
_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "cached_tokens")


@dataclass(frozen=True)
class Step:
    candidate: str | None
    diff: str | None
    cited: tuple[str, ...] | str = ()
    usage: Usage = Usage()
    diagnosis: dict | None = None
    note: str = ""


class ScriptedWorker:
    def __init__(self, steps: list[Step], *, name: str = "scripted"):
        self.steps = list(steps)
        self.position = 0
        self.info = WorkerInfo(kind="scripted", model=name)

    def propose(self, ctx: WorkerContext) -> Proposal:
        if self.position >= len(self.steps):
            raise WorkerExhausted(f"script has no step {self.position + 1} (it has {len(self.steps)})")
        step = self.steps[self.position]
        self.position += 1
        return Proposal(
            candidate=step.candidate,
            diff=step.diff,
            cited=_resolve_cited(step.cited, ctx),
            usage=step.usage,
            diagnosis=step.diagnosis,
            note=step.note or f"script step {self.position}",
        )


def _resolve_cited(cited: tuple[str, ...] | str, ctx: WorkerContext) -> tuple[str, ...]:
    if cited == "all":
        return tuple(p.id for p in ctx.patterns)
    if cited == "top":
        return tuple(p.id for p in ctx.patterns[:1])
    return tuple(cited)


def from_options(options) -> ScriptedWorker:
    if options.script is None:
        raise BadInput("the scripted worker (the default) replays --script FILE|DIR, and none was given; to repair "
                       "without a script: --worker rules --kb DIR (starter patterns: `kb ingest repair/rules/starter "
                       "--kb DIR`), or --worker litellm --model MODEL")
    return ScriptedWorker(load_script(Path(options.script)), name=Path(options.script).name)


def load_script(path: Path) -> list[Step]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in (".py", ".diff", ".patch"))
        if not files:
            raise BadInput(f"{path}: script directory has no *.py, *.diff or *.patch files")
        return [_step({"file" if f.suffix == ".py" else "patch": f.name}, path, f"{path}: {f.name}") for f in files]
    data = _load_data(path)
    steps = data.get("steps") if isinstance(data, dict) else data
    if not isinstance(steps, list) or not steps:
        raise BadInput(f"{path}: a script is a non-empty list of steps (or a mapping with 'steps')")
    return [_step(s, path.parent, f"{path}: step {i}") for i, s in enumerate(steps, 1)]


def _load_data(path: Path):
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise BadInput(f"{path}: cannot read script ({e.strerror})") from None
    try:
        if path.suffix == ".json":
            return json.loads(text)
        import yaml

        return yaml.safe_load(text)
    except Exception as e:  # json and yaml raise unrelated types; either way the file is bad input
        raise BadInput(f"{path}: not valid {'JSON' if path.suffix == '.json' else 'YAML'} ({e})") from None


def _step(raw, base: Path, where: str) -> Step:
    if not isinstance(raw, dict):
        raise BadInput(f"{where}: a step is a mapping with one of {', '.join(_KINDS)}")
    kinds = [k for k in _KINDS if k in raw]
    if len(kinds) != 1:
        raise BadInput(f"{where}: a step needs exactly one of {', '.join(_KINDS)}")
    kind = kinds[0]
    value = raw[kind]
    if kind in ("file", "patch"):
        value = _read_relative(base, value, where)
    if not isinstance(value, str):
        raise BadInput(f"{where}: {kind} must be text")
    cited = raw.get("cited", ())
    if isinstance(cited, str) and cited not in ("top", "all"):
        cited = (cited,)
    usage = raw.get("usage") or {}
    if not isinstance(usage, dict) or set(usage) - set(_USAGE_KEYS):
        raise BadInput(f"{where}: usage takes only {', '.join(_USAGE_KEYS)}")
    return Step(
        candidate=value if kind in ("file", "candidate") else None,
        diff=value if kind in ("patch", "diff") else None,
        cited=cited if isinstance(cited, str) else tuple(str(c) for c in cited),
        usage=Usage(**{k: int(v) for k, v in usage.items()}),
        diagnosis=raw.get("diagnosis"),
        note=str(raw.get("note", "")),
    )


def _read_relative(base: Path, name, where: str) -> str:
    path = base / str(name)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise BadInput(f"{where}: cannot read {path} ({e.strerror})") from None
