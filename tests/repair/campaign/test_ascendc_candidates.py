"""Campaign candidate discovery on AscendC cohorts: an NPUKernelBench task directory is one candidate however many
files the manifest lists from it, a six-source .py or a direct-launch .json is one, and a task's validation files
are none (issue #20)."""
from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from repair.campaign.spec import load_operators, plan_debug, script_for

ROOT = Path(__file__).resolve().parents[3]
SUITE = ROOT / "examples" / "ascendc"


def _manifest(tmp_path: Path, files: list[str]) -> Path:
    m = tmp_path / "cohort.yaml"
    m.write_text(yaml.safe_dump({"cohort": "t", "frozen_at": "2026-12-01T00:00:00Z",
                                 "operators": [{"id": "add", "family": "elementwise", "files": files}]}))
    return m


def test_a_task_directory_is_one_candidate_and_validation_files_none(tmp_path):
    op = tmp_path / "add"
    shutil.copytree(SUITE / "add", op)
    files = ["add/problem.py", "add/nearmiss_tail.py", "add/correct.json", "add/cheat_unlaunched.json",
             *sorted(p.relative_to(tmp_path).as_posix() for p in (op / "npukb").rglob("*") if p.is_file()),
             *sorted(p.relative_to(tmp_path).as_posix() for p in (op / "answer").rglob("*") if p.is_file()),
             *sorted(p.relative_to(tmp_path).as_posix() for p in (op / "validation").iterdir())]
    specs = plan_debug(load_operators(_manifest(tmp_path, files)))
    # answer/0 and correct.json are the answer key (meta.yaml: kind correct); validation/ is the task's harness
    assert [s.key for s in specs] == ["add/nearmiss_tail", "add/cheat_unlaunched", "add/npukb/nearmiss_core_count",
                                      "add/npukb/nearmiss_first_tile", "add/npukb/nearmiss_tail"]
    assert {s.candidate.name for s in specs if "npukb" in s.key} == {
        "nearmiss_core_count", "nearmiss_first_tile", "nearmiss_tail"}
    assert all(s.candidate.is_dir() for s in specs if "npukb" in s.key)
    scripts = ROOT / "examples" / "scripted" / "ascendc"
    tail = next(s for s in specs if s.key == "add/npukb/nearmiss_tail")
    assert script_for(tail, scripts) == scripts / "add" / "npukb" / "nearmiss_tail.yaml"


def test_an_imported_cohort_counts_one_candidate_per_task(tmp_path):
    from repair.ascendc import import_tasks

    tasks = tmp_path / "tasks"
    for name in ("add", "softmax"):
        shutil.copytree(SUITE / name, tasks / name, ignore=shutil.ignore_patterns("npukb", "*.py", "*.json"))
        shutil.copytree(SUITE / name / "validation", tasks / name / "validation", dirs_exist_ok=True)
    done, manifest = import_tasks([tasks / "add", tasks / "softmax"], tmp_path / "imported")
    listed = [f for op in yaml.safe_load(manifest.read_text())["operators"] for f in op["files"]]
    assert len(listed) > 2 * 4  # problem.py and every candidate file: op_host/*, op_kernel/*, validation/*
    specs = plan_debug(load_operators(manifest))
    assert [s.key for s in specs] == ["add/candidate", "softmax/candidate"]
    assert all(s.candidate.is_dir() and s.candidate.name == "candidate" for s in specs)


def test_the_ascendc_manifests_of_the_repository():
    demo = plan_debug(load_operators((ROOT / "manifests" / "ascendc-demo.yaml").resolve()))
    everything = plan_debug(load_operators((ROOT / "manifests" / "ascendc-examples.yaml").resolve()))
    assert len(demo) == 2 and len(everything) == 18
    assert {s.key for s in demo} <= {s.key for s in everything}
    scripts = ROOT / "examples" / "scripted" / "ascendc"
    assert all(script_for(s, scripts) is not None for s in everything)


def test_a_cohort_of_ascendc_candidates_runs_on_an_ascendc_backend_unless_told(monkeypatch):
    from repair.campaign import debug_config

    manifest = (ROOT / "manifests" / "ascendc-demo.yaml").resolve()
    script = ROOT / "examples" / "scripted" / "ascendc"
    monkeypatch.setenv("REPAIR_BACKEND", "triton-cpu")  # what `make test` exports: a Triton backend
    config, _ = debug_config(manifest, worker="scripted", script=script)
    assert config.backend == "ascendc-cpu"
    triton, _ = debug_config((ROOT / "manifests" / "examples.yaml").resolve(), worker="rules")
    assert triton.backend == "triton-cpu"  # a Triton cohort keeps $REPAIR_BACKEND
