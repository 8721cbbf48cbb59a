"""The held-out protocol of heldout/README.md in code: a set's split.json, the rule that made it, its README's fields.

    from heldout_protocol import held_out_sets, load_split, readme_fields
    split = load_split(ROOT / "heldout" / "overlap2")   # checked: the file list's digest, the rule's assignment
    split.tune, split.heldout, split.status            # unit names; "held-out" or "dev"

Used by the benches that read held-out sets (they score the tune half to choose, report the held-out half in
aggregate) and by tests/test_heldout_protocol.py (every set under heldout/ follows the protocol).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ROOT / "heldout"
SCHEMA = 1
SHA_RULE = "tune if int(sha256(unit.encode()).hexdigest(), 16) % 2 == 0 else heldout"
# heldout/overlap only: its halves are its two parts, as the developers used them (heldout/overlap/README.md)
PART_RULE = "tune if unit == 'part1' else heldout"
RULES = {
    SHA_RULE: lambda unit: "tune" if int(hashlib.sha256(unit.encode()).hexdigest(), 16) % 2 == 0 else "heldout",
    PART_RULE: lambda unit: "tune" if unit == "part1" else "heldout",
}
UNITS = ("operator", "part")  # a unit is a top-level directory of the set (an operator, or a part)
NOT_LISTED = ("README.md", "split.json")  # the set's own top-level files, outside the digest
FIELDS = ("Written by", "Written", "Had read", "Split", "Status")  # README lines "Field: text"
STATUSES = ("held-out", "dev")


class ProtocolError(ValueError):
    """A set that does not follow heldout/README.md (the message names the set and what is wrong)."""


@dataclass(frozen=True)
class Split:
    name: str
    unit: str
    rule: str
    tune: tuple[str, ...]
    heldout: tuple[str, ...]
    status: str  # "held-out" or "dev" (the README's Status line)

    def half(self, unit: str) -> str:
        """'tune' or 'heldout' for one unit of the set."""
        if unit in self.tune:
            return "tune"
        if unit in self.heldout:
            return "heldout"
        raise ProtocolError(f"{self.name}: {unit!r} is not a unit of the set")


def held_out_sets(root: Path = HELDOUT) -> list[Path]:
    """Every set: each directory directly under heldout/ (a new set is covered the moment it lands)."""
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def set_files(set_dir: Path) -> list[str]:
    """The set's files, relative and sorted, but its README.md and split.json (and no __pycache__)."""
    out = []
    for p in set_dir.rglob("*"):
        rel = p.relative_to(set_dir)
        if p.is_file() and "__pycache__" not in rel.parts and str(rel) not in NOT_LISTED:
            out.append(rel.as_posix())
    return sorted(out)


def files_digest(set_dir: Path) -> str:
    """sha256 hex of the newline-joined sorted relative paths (split.json's "files")."""
    return hashlib.sha256("\n".join(set_files(set_dir)).encode()).hexdigest()


def units(set_dir: Path) -> list[str]:
    return sorted(p.name for p in set_dir.iterdir() if p.is_dir() and p.name != "__pycache__")


def readme_fields(set_dir: Path) -> dict[str, str]:
    """The README's protocol lines ("Written by: ...", optionally as a Markdown list item or in bold)."""
    readme = set_dir / "README.md"
    if not readme.is_file():
        raise ProtocolError(f"{set_dir.name}: no README.md")
    out: dict[str, str] = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\s*(?:[-*]\s+)?(?:\*\*)?([A-Za-z ]+?)(?:\*\*)?\s*:(?:\*\*)?\s+(.+)$", line)
        if m and m.group(1).strip().lower() in {f.lower() for f in FIELDS}:
            key = next(f for f in FIELDS if f.lower() == m.group(1).strip().lower())
            out.setdefault(key, m.group(2).strip())
    return out


def load_split(set_dir: Path) -> Split:
    """The set's split, checked against its files and its rule; ProtocolError when anything disagrees."""
    name = set_dir.name
    fields = readme_fields(set_dir)
    missing = [f for f in FIELDS if f not in fields]
    if missing:
        raise ProtocolError(f"{name}: README.md lacks {', '.join(missing)} (heldout/README.md)")
    status = next((s for s in STATUSES if fields["Status"].lower().startswith(s)), None)
    if status is None:
        raise ProtocolError(f"{name}: README Status must start with held-out or dev, not {fields['Status']!r}")
    if status == "dev" and len(fields["Status"]) < len("dev") + 10:
        raise ProtocolError(f"{name}: a dev set says what it was used for (README Status)")
    path = set_dir / "split.json"
    if not path.is_file():
        raise ProtocolError(f"{name}: no split.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc.get("schema") != SCHEMA or doc.get("set") != name or doc.get("unit") not in UNITS:
        raise ProtocolError(f"{name}: split.json needs schema {SCHEMA}, set {name!r} and a unit in {UNITS}")
    rule = RULES.get(doc.get("rule"))
    if rule is None:
        raise ProtocolError(f"{name}: unknown split rule {doc.get('rule')!r}")
    if doc.get("files") != files_digest(set_dir):
        raise ProtocolError(f"{name}: the file list changed after the split was fixed (split.json 'files')")
    want = {"tune": [], "heldout": []}
    for u in units(set_dir):
        want[rule(u)].append(u)
    if sorted(doc.get("tune", [])) != want["tune"] or sorted(doc.get("heldout", [])) != want["heldout"]:
        raise ProtocolError(f"{name}: tune/heldout are not what the rule assigns to the set's {doc['unit']}s")
    if not want["tune"] or not want["heldout"]:
        raise ProtocolError(f"{name}: a half is empty")
    return Split(name, doc["unit"], doc["rule"], tuple(want["tune"]), tuple(want["heldout"]), status)


def write_split(set_dir: Path, unit: str = "operator", rule: str = SHA_RULE) -> dict:
    """Fix a new set's split (run once, commit it with the files, before any score)."""
    assign = {"tune": [], "heldout": []}
    for u in units(set_dir):
        assign[RULES[rule](u)].append(u)
    doc = {"schema": SCHEMA, "set": set_dir.name, "unit": unit, "rule": rule, "files": files_digest(set_dir), **assign}
    (set_dir / "split.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return doc


if __name__ == "__main__":  # python bench/heldout_protocol.py heldout/NEW [unit]: fix NEW's split
    import sys

    print(json.dumps(write_split(Path(sys.argv[1]).resolve(), *(sys.argv[2:3] or ["operator"])), indent=2))
