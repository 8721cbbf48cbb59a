"""The held-out AscendC suite (heldout/ascendc/; its README says who wrote it and what they had read): its metadata is
consistent, its split is the one its rule gives for the files it holds, each task's problem.py is what the importer
writes from its validation/ files, and on ascendc-cpu every label holds (correct kernels pass both tiers with a clean
integrity verdict; each near-miss fails the tier its `expected` names, integrity clean). Near-misses labelled
`needs: block-model` fail as races between concurrent blocks; those labelled `needs: pipe-model` fail as pipe races
in a kernel built with --cce-auto-sync=off (REPAIR_ASCENDC_AUTO_SYNC=off; with the compiler's auto-sync, the
default, its flags are inserted and the kernel is right). No rule, starter pattern, prompt or test fixture may be
written from it.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "heldout" / "ascendc"
OP_DIRS = sorted(p.parent for p in SUITE.glob("*/meta.yaml"))
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# what the emulation needs to show the bug: the environment the near-miss is judged in
NEEDS = {"pipe-model": {"REPAIR_ASCENDC_AUTO_SYNC": "off"}, "block-model": {}}
SEED = 1  # the author checked every label under seeds 1, 2 and 3

# builds of this session go to a temporary cache, never the user's (set before any fork server starts)
if "REPAIR_ASCENDC_CACHE" not in os.environ:  # made here, removed here (as tests/repair/ascendc/conftest.py does)
    os.environ["REPAIR_ASCENDC_CACHE"] = _cache = tempfile.mkdtemp(prefix="ascendc-cpu-cache-")
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)


def _meta(op_dir: Path) -> dict:
    return yaml.safe_load((op_dir / "meta.yaml").read_text())


def _candidates(op_dir: Path) -> list[tuple[str, dict]]:
    return list(_meta(op_dir)["candidates"].items())


def _near_misses() -> list[tuple[Path, str, dict]]:
    return [(d, n, i) for d in OP_DIRS for n, i in _candidates(d) if i["kind"] == "near-miss"]


def test_suite_size_and_balance():
    rows = _near_misses()
    assert len(OP_DIRS) >= 6 and len(rows) >= 24
    assert len({i["bug_class"] for _, _, i in rows}) >= 12
    full_only = sum(i["expected"] == "full-only" for _, _, i in rows)
    assert 0.25 <= full_only / len(rows) <= 0.65, f"{full_only} of {len(rows)} are full-only"
    assert {m for _, _, i in rows for m in [i.get("needs")] if m} == set(NEEDS)


@pytest.mark.parametrize("op_dir", OP_DIRS, ids=lambda d: d.name)
def test_operator_metadata(op_dir: Path):
    from repair.ascendc import load_candidate

    meta = _meta(op_dir)
    assert meta["operator"] == op_dir.name and meta["format"] in ("npukernelbench", "mkb-sources")
    kinds = [i["kind"] for _, i in _candidates(op_dir)]
    assert kinds.count("correct") == 1 and set(kinds) == {"correct", "near-miss"}
    for name, info in _candidates(op_dir):
        cand = load_candidate(op_dir / name)  # bad input raises
        assert cand.format == ("npukernelbench" if meta["format"] == "npukernelbench" else "mkb-sources")
        if info["kind"] == "correct":
            assert info == {"kind": "correct"}
            continue
        assert {"kind", "bug_class", "description", "expected", "sites"} <= set(info) <= \
            {"kind", "bug_class", "description", "expected", "sites", "needs"}
        assert KEBAB.match(info["bug_class"]) and info["expected"] in ("compact", "full-only")
        assert isinstance(info["sites"], int) and 1 <= info["sites"] <= 3
        assert info.get("needs", "pipe-model") in NEEDS
        assert info["description"].endswith(".") and ". " not in info["description"]


@pytest.mark.parametrize("op_dir", [d for d in OP_DIRS if _meta(d)["format"] == "npukernelbench"],
                         ids=lambda d: d.name)
def test_task_problem_is_what_the_importer_writes(op_dir: Path):
    from repair.ascendc.importer import problem_source

    expected = problem_source(op_dir, family=_meta(op_dir)["family"])
    assert (op_dir / "problem.py").read_text() == expected, f"regenerate {op_dir}/problem.py with problem_source"


def test_split_follows_its_rule_over_these_files():
    split = json.loads((SUITE / "split.json").read_text())
    assert (split["schema"], split["set"], split["unit"]) == (1, "ascendc", "operator")
    assert split["rule"] == "tune if int(sha256(unit.encode()).hexdigest(), 16) % 2 == 0 else heldout"
    files = sorted(p.relative_to(SUITE).as_posix() for p in SUITE.rglob("*") if p.is_file()
                   and "__pycache__" not in p.parts and p.relative_to(SUITE).as_posix() not in ("README.md", "split.json"))
    assert split["files"] == hashlib.sha256("\n".join(files).encode()).hexdigest(), "the suite's files changed"
    ops = sorted(d.name for d in OP_DIRS)
    tune = [u for u in ops if int(hashlib.sha256(u.encode()).hexdigest(), 16) % 2 == 0]
    assert split["tune"] == tune and split["heldout"] == sorted(set(ops) - set(tune))


@pytest.mark.parametrize("op_dir,name,needs", [(d, n, i["needs"]) for d, n, i in _near_misses() if i.get("needs")],
                         ids=lambda v: v.name if isinstance(v, Path) else str(v))
def test_near_miss_that_needs_the_pipe_or_block_model_fails_there(op_dir: Path, name: str, needs: str):
    """Its own process: the engine's fork servers keep the environment they started with."""
    env = {**os.environ, **NEEDS[needs]}
    p = subprocess.run([sys.executable, "-m", "repair", "eval", "--backend", "ascendc-cpu", "--tier", "compact",
                        "--json", "--seed", str(SEED), str(op_dir / "problem.py"), str(op_dir / name)],
                       env=env, capture_output=True, text=True)
    assert p.returncode == 1, p.stderr[-600:]
    result = json.loads(p.stdout)
    assert {c["status"] for c in result["cases"]} == {"error"} and result["integrity"]["verdict"] == "clean"


@pytest.mark.slow
@pytest.mark.parametrize("op_dir", OP_DIRS, ids=lambda d: d.name)  # one operator a test: its builds stay in one worker
def test_labels_hold_on_ascendc_cpu(op_dir: Path):
    from repair.engine import evaluate_many, render_table

    todo = [(n, i) for n, i in _candidates(op_dir) if not i.get("needs")]
    results = evaluate_many([(op_dir / "problem.py", op_dir / n) for n, _ in todo], backend="ascendc-cpu", seed=SEED)
    wrong = []
    for (name, info), r in zip(todo, results):
        compact, full = r.summary["compact"], r.summary["full"]
        if info["kind"] == "correct":
            ok = r.passed and compact.passed == compact.total and full.passed == full.total
        elif info["expected"] == "compact":
            ok = compact.passed < compact.total
        else:
            ok = compact.passed == compact.total and full.passed < full.total
        ok = ok and r.emulated and r.integrity.verdict == "clean"  # a near-miss is honest: only its numerics fail
        if not ok:
            wrong.append(f"{op_dir.name}/{name} ({info['kind']}, {info.get('expected')}):\n{render_table(r)}")
    assert not wrong, "\n\n".join(wrong)
