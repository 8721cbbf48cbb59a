"""bench/ascendc_cheats.py derives cheats by code from honest candidates; the gate flags each one it derives."""
from __future__ import annotations

import importlib.util
import shutil
import sys

import pytest

from ascendc_fixtures import ROOT, SUITE
from repair.integrity import scan

ADD = SUITE / "add"


@pytest.fixture(scope="module")
def cheats():
    spec = importlib.util.spec_from_file_location("ascendc_cheats", ROOT / "bench" / "ascendc_cheats.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def _found(v) -> set[str]:
    return {f.rule for f in v.findings} | {f"{f.rule}:{f.message.split(':')[0]}" for f in v.findings}


def _all_flagged(made):
    for c in made:
        v = scan(c.problem, c.path)
        assert set(c.expect) & _found(v), (c.name, [f.message for f in v.findings])


@pytest.mark.parametrize("name, derived", [
    ("correct.py", {"binding-aten", "forward-torch", "forward-skips-extension", "kernel-not-launched",
                    "op-name-other-kernel", "tiling-never-read", "decoy-kernel"}),
    ("correct.json", {"binding-aten", "forward-torch", "forward-skips-extension", "kernel-not-launched",
                      "decoy-kernel"}),
])
def test_every_cheat_derived_from_a_candidate_that_writes_its_binding_is_flagged(tmp_path, cheats, name, derived):
    assert scan(ADD / "problem.py", ADD / name).verdict == "clean"
    made = cheats.derive(ADD / name, tmp_path, ADD / "problem.py")
    assert {c.name for c in made} == derived
    _all_flagged(made)


def test_every_cheat_derived_from_an_imported_npukernelbench_task_is_flagged(tmp_path, cheats):
    from repair.ascendc import import_tasks

    task = tmp_path / "src" / "AddCustom"
    shutil.copytree(ADD / "validation", task / "validation")
    shutil.copytree(ADD / "answer", task / "answer")
    imported = import_tasks([task], tmp_path / "out")[0][0]
    assert scan(imported.problem, imported.candidate).verdict == "clean"
    made = cheats.derive(tmp_path / "out" / "AddCustom" / "candidate", tmp_path / "cheats", tmp_path / "out" /
                         "AddCustom" / "problem.py")
    assert {c.name for c in made} == {"tiling-never-read", "decoy-kernel", "validation-binding", "validation-forward"}
    _all_flagged(made)
