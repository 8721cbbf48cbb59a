"""`repair import npukernelbench`: task directories become problems of this tool, candidates and a cohort manifest;
bad input writes nothing."""
from __future__ import annotations

import ast
import importlib.util
import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ascendc_fixtures import SUITE
from provenance.cohort import load_manifest
from repair.ascendc import import_tasks, load_candidate
from repair.cli import cli
from repair.errors import BadInput
from repair.integrity import scan

FROZEN = datetime(2026, 11, 30, tzinfo=timezone.utc)


def _literal(path: Path, name: str):
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(name)


def _task(tmp_path: Path, name: str, src: Path = SUITE / "add", **files: str) -> Path:
    """A copy of an example task (validation/ and answer/), some validation files rewritten."""
    task = tmp_path / "tasks" / "Math" / name
    shutil.copytree(src / "validation", task / "validation")
    shutil.copytree(src / "answer", task / "answer")
    for rel, text in files.items():
        (task / "validation" / rel).write_text(text)
    return task


def test_imported_tasks_are_problems_candidates_and_a_cohort(tmp_path):
    out = tmp_path / "out"
    done, manifest = import_tasks([SUITE / "softmax", SUITE / "layer_norm"], out, frozen_at=FROZEN)
    assert [t.task for t in done] == ["softmax", "layer_norm"]
    problem = out / "layer_norm" / "problem.py"
    text = problem.read_text()
    assert "torch_npu" not in text and "kernel_gen_ops" not in text and "ModelNew" not in text
    cases = _literal(problem, "CASES")
    assert [c["tier"] for c in cases].count("compact") == 2 and len(cases) == 5
    assert cases[0] == {"tier": "compact", "case_id": 0, "shape": "[4, 64]", "dtype": "float32", "eps": 1e-05}
    assert _literal(problem, "TOLERANCE")["float16"] == {"atol": 1 / 512, "rtol": 1 / 512}  # its custom check
    assert _literal(SUITE / "add" / "problem.py", "TOLERANCE") == {"atol": 1e-3, "rtol": 1e-3}  # the default
    assert _literal(problem, "OPERATOR") == {"id": "layer_norm", "family": "ascendc"}
    cand = load_candidate(out / "layer_norm" / "candidate")
    assert cand.format == "npukernelbench" and cand.sha256 == load_candidate(SUITE / "layer_norm" / "answer" / "0").sha256
    assert scan(problem, out / "layer_norm" / "candidate").verdict == "clean"
    m = load_manifest(manifest)
    assert m.cohort == "npukernelbench" and m.operator_ids() == {"softmax", "layer_norm"}
    assert len(m.files()) == 2 * 6  # problem.py and five candidate files each


def test_the_imported_problem_runs_its_reference(tmp_path):
    done, _ = import_tasks([SUITE / "row_sum"], tmp_path, frozen_at=FROZEN)
    spec = importlib.util.spec_from_file_location("imported_row_sum", done[0].problem)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    case = {k: v for k, v in mod.CASES[1].items() if k != "tier"}
    (x,) = mod.get_inputs(**case)
    out = mod.Model(*mod.get_init_inputs(**case))(x)
    assert tuple(x.shape) == (8, 100) and tuple(out.shape) == (8,)


def test_another_candidate_and_a_second_import_merging_the_manifest(tmp_path):
    import_tasks([SUITE / "softmax"], tmp_path, frozen_at=FROZEN)
    done, manifest = import_tasks([SUITE / "add"], tmp_path, candidate=SUITE / "add" / "npukb" / "nearmiss_tail",
                                  frozen_at=FROZEN)
    assert "GetBlockIdx() + 1 < GetBlockNum()" in (tmp_path / "add" / "candidate" / "op_kernel" / "add_custom.cpp").read_text()
    assert load_manifest(manifest).operator_ids() == {"softmax", "add"}
    assert yaml.safe_load(manifest.read_text())["frozen_at"] == "2026-11-30T00:00:00Z"


def test_csv_columns_cases_and_tiers(tmp_path):
    csv = "case_id;input shape;dtype;keep;alpha;tier\n0;[64, 64];float16;True;0.5;a\n1;[2, 3];float32;False;1.5;b\n" \
          "2;[4096];float16;True;2;c\n3;[1, 8];float16;False;1;d\n"
    prepare = ("import torch\n\ndef get_inputs(param, device=None):\n    shape = eval(param['input shape'])\n"
               "    return (torch.randn(shape), torch.randn(shape))\n\n"
               "def get_init_inputs(param, device=None):\n    return []\n")
    task = _task(tmp_path, "AddCustom", **{"test_cases.csv": csv, "prepare_inputs.py": prepare})
    done, _ = import_tasks([task], tmp_path / "out", candidate=SUITE / "add" / "answer" / "0", frozen_at=FROZEN)
    problem = Path(done[0].problem)
    cases = _literal(problem, "CASES")
    assert cases[0] == {"tier": "full", "case_id": 0, "input_shape": "[64, 64]", "dtype": "float16", "keep": True,
                        "alpha": 0.5, "c_tier": "a"}
    # the two smallest, a second dtype preferred to a second size: [2, 3] float32 and [1, 8] float16
    assert [c["case_id"] for c in cases if c["tier"] == "compact"] == [1, 3]
    assert _literal(problem, "_COLUMNS") == {"input_shape": "input shape", "c_tier": "tier"}
    assert (done[0].operator_id, _literal(problem, "OPERATOR")["family"]) == ("add_custom", "math")
    spec = importlib.util.spec_from_file_location("odd", problem)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, y = mod.get_inputs(**{k: v for k, v in cases[1].items() if k != "tier"})
    assert tuple(x.shape) == (2, 3)


@pytest.mark.parametrize("files, needle", [
    ({"module.py": "import torch\nimport torch_npu\n\nclass Model(torch.nn.Module):\n"
                   "    def forward(self, x):\n        return torch_npu.npu_fast_gelu(x)\n"},
     "module.py:6: the reference needs torch_npu"),
    ({"module.py": "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n"}, "defines no class Model"),
    ({"test_cases.csv": "case_id;shape\n"}, "no test case"),
    ({"test_cases.csv": "case_id;shape\n0;[1];extra\n"}, "test_cases.csv:2: 3 fields"),
    ({"prepare_inputs.py": "def get_inputs(param):\n    return []\n"}, "defines no get_inputs"),
])
def test_bad_task_is_exit_2_and_writes_nothing(tmp_path, files, needle):
    task = _task(tmp_path, "AddCustom", **files)
    r = CliRunner().invoke(cli, ["import", "npukernelbench", str(task), "--out", str(tmp_path / "out")])
    assert r.exit_code == 2 and needle in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_bad_layouts(tmp_path):
    task = _task(tmp_path, "AddCustom")
    (task / "validation" / "pybind.cpp").unlink()
    with pytest.raises(BadInput, match="no validation/pybind.cpp"):
        import_tasks([task], tmp_path / "out")
    good = _task(tmp_path / "b", "AddCustom")
    shutil.rmtree(good / "answer")
    with pytest.raises(BadInput, match="no answer/<n>/ with op_host/ and op_kernel/"):
        import_tasks([good], tmp_path / "out")
    with pytest.raises(BadInput, match="--candidate takes exactly one TASK_DIR"):
        import_tasks([SUITE / "add", SUITE / "cast"], tmp_path / "out", candidate=SUITE / "add" / "answer" / "0")
    with pytest.raises(BadInput, match=r"OP_ADD\(CastCustom\) is not task AddCustom's operator"):
        import_tasks([_task(tmp_path / "c", "AddCustom")], tmp_path / "out", candidate=SUITE / "cast" / "answer" / "0")
    assert not (tmp_path / "out").exists()


def test_cli_prints_a_line_per_task_or_json(tmp_path):
    r = CliRunner().invoke(cli, ["import", "npukernelbench", str(SUITE / "cast"), "--out", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.output)
    assert row["task"] == "cast" and row["compact"] == 2 and row["full"] == 4
    r = CliRunner().invoke(cli, ["import", "npukernelbench", str(SUITE / "cast"), "--out", str(tmp_path),
                                 "--family", "cast", "--cohort", "mine"])
    assert r.exit_code == 0 and "cast: " in r.output and "cohort manifest:" in r.output
    assert load_manifest(tmp_path / "cohort.yaml").cohort == "mine"
