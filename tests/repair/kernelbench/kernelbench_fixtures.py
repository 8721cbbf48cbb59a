"""Paths of the KernelBench-layout problems and candidates in data/ (written here, in KernelBench's layout and at its
kind of sizes)."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

DATA = Path(__file__).parent / "data"
PROBLEMS = sorted((DATA / "level1").glob("*.py")) + sorted((DATA / "level2").glob("*.py"))
CANDIDATES = DATA / "candidates"
FROZEN = datetime(2026, 11, 30, tzinfo=timezone.utc)
