"""The integrity corpus as data: each cheat names the rules expected to catch it in its docstring."""
from __future__ import annotations

import re
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"
PROBLEM = CORPUS / "problem.py"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def cheats() -> list[Path]:
    return sorted(CORPUS.glob("cheat_*.py"))


def legit() -> list[Path]:
    return sorted(CORPUS.glob("legit_*.py"))


def expected_rules(path: Path) -> set[str]:
    m = re.search(r"^# expect: (.+)$", path.read_text(), re.M)
    assert m, f"{path.name} declares no '# expect:' line"
    return set(m.group(1).split())


def phase(path: Path) -> str:
    m = re.search(r"^# phase: (\w+)$", path.read_text(), re.M)
    return m.group(1) if m else "static"
