"""The AscendC example suite as test data, and variants of its candidates made by small textual edits."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
SUITE = ROOT / "examples" / "ascendc"
OP_DIRS = sorted(p.parent for p in SUITE.glob("*/meta.yaml"))


def meta(op_dir: Path) -> dict:
    return yaml.safe_load((op_dir / "meta.yaml").read_text())


def candidates() -> list[tuple[Path, str, dict]]:
    return [(d, name, info) for d in OP_DIRS for name, info in meta(d)["candidates"].items()]


def variant(src: Path, dest: Path, *edits: tuple[str, str]) -> Path:
    """A copy of candidate `src` under `dest` with each (old, new) applied where `old` occurs exactly once."""
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / src.name
    if src.is_dir():
        shutil.copytree(src, out)
        texts = {p: p.read_text() for p in out.rglob("*") if p.is_file()}
    elif src.suffix == ".json":
        doc = json.loads(src.read_text())
        texts = {i: s["content"] for i, s in enumerate(doc["sources"])}
    else:
        texts = {0: src.read_text()}
    for old, new in edits:
        hits = [k for k, t in texts.items() if old in t]
        assert len(hits) == 1 and texts[hits[0]].count(old) == 1, f"{old!r} is not in exactly one place of {src}"
        texts[hits[0]] = texts[hits[0]].replace(old, new)
    if src.is_dir():
        for p, t in texts.items():
            p.write_text(t)
    elif src.suffix == ".json":
        for i, t in texts.items():
            doc["sources"][i]["content"] = t
        out.write_text(json.dumps(doc))
    else:
        out.write_text(texts[0])
    return out
