"""`repair eval`: table or JSON, exit codes 0/1/2/3, one-line errors, an instant --help."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from repair.engine.backends import get_backend
from repair.cli import cli
from repair.engine.sandbox import fork_server

DATA = Path(__file__).parent / "data"
PROBLEM = str(DATA / "addrelu_problem.py")


@pytest.fixture(scope="module", autouse=True)
def warm_server():
    fork_server(get_backend()).ensure_ready()  # $REPAIR_BACKEND, else triton-cpu


def _eval(*args):
    return CliRunner().invoke(cli, ["eval", *args], catch_exceptions=False)


def test_pass_prints_a_table_and_exits_0():
    r = _eval(PROBLEM, str(DATA / "addrelu_correct.py"), "--seed", "3")
    assert r.exit_code == 0, r.output
    assert "c2" in r.output and "full 3/3" in r.output and "PASS" in r.output


def test_json_and_exit_1_on_a_near_miss():
    r = _eval(PROBLEM, str(DATA / "cand_tail.py"), "--json", "--seed", "3", "--tier", "full")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["schema"] == "repair.eval/v1" and doc["match"] == pytest.approx(2 / 3)
    assert doc["cases"][2]["diagnostics"]["symptom"] == "nan-introduced"


def test_compact_tier_exit_code_follows_the_asked_tier():
    r = _eval(PROBLEM, str(DATA / "cand_tail.py"), "--tier", "compact", "--seed", "3")
    assert r.exit_code == 0, r.output  # the bug is only in a full-tier case


def test_several_candidates_share_one_command():
    """A table each and a count (exit 1: one fails); with --json one object per line, in the order given."""
    cands = [str(DATA / "addrelu_correct.py"), str(DATA / "cand_tail.py")]
    r = _eval(PROBLEM, *cands, "--seed", "3")
    assert r.exit_code == 1, r.output
    assert r.output.count("  candidate ") == 2 and "PASS" in r.output and "FAIL" in r.output
    summary = r.output.rstrip().splitlines()[-3:]  # a line per candidate, then the count
    assert summary[0].startswith(cands[0]) and summary[0].endswith("PASS")
    assert summary[1].startswith(cands[1]) and "2/3" in summary[1] and summary[1].endswith("FAIL")
    assert summary[2] == "1 of 2 candidates passed"
    r = _eval(PROBLEM, *cands, "--seed", "3", "--json")
    docs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(d["candidate_path"], d["passed"]) for d in docs] == [(cands[0], True), (cands[1], False)]
    assert _eval(PROBLEM, cands[0], cands[0], "--seed", "3").exit_code == 0
    r = _eval(PROBLEM, PROBLEM, cands[0], "--seed", "3")  # a glob that names the problem too
    assert r.exit_code == 0 and r.output.count("  candidate ") == 1


def _verdicts(stdout: str) -> list[tuple]:
    """Per candidate, in printed order: its path, verdict and every case's status and errors (no timings)."""
    docs = [json.loads(line) for line in stdout.splitlines()]
    return [(d["candidate_path"], d["passed"], d["integrity"]["verdict"],
             [(c["case_id"], c["status"], c.get("max_abs_err")) for c in d["cases"]]) for d in docs]


def test_jobs_evaluate_at_once_and_print_in_argument_order():
    """--jobs 3: the same results as one at a time, in argument order although the first (a hang in its N=1 case,
    ended by the timeout) finishes last; the segfault beside the others touches neither."""
    cands = [str(DATA / n) for n in ("cand_hang_small.py", "addrelu_correct.py", "cand_segfault.py", "cand_tail.py")]
    args = [PROBLEM, *cands, "--seed", "3", "--timeout", "1.5", "--json"]
    serial, parallel = _eval(*args), _eval(*args, "--jobs", "3")
    assert serial.exit_code == parallel.exit_code == 1
    got = _verdicts(parallel.stdout)
    assert got == _verdicts(serial.stdout)
    assert [g[0] for g in got] == cands and [g[1] for g in got] == [False, True, False, False]
    assert [c[1] for c in got[0][3]] == ["pass", "timeout", "pass"] and {c[1] for c in got[2][3]} == {"crash"}


def test_one_bad_candidate_stops_the_command_before_any_evaluation(tmp_path):
    bad = tmp_path / "no_model_new.py"
    bad.write_text("import torch\n")
    r = _eval(PROBLEM, str(DATA / "addrelu_correct.py"), str(bad))
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "no_model_new.py: candidate defines no ModelNew" in r.stderr


def test_bad_input_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "malformed.py"
    bad.write_text(Path(PROBLEM).read_text().replace("CASES = [", "CASES = 7\n_ = ["))
    r = _eval(str(bad), str(DATA / "addrelu_correct.py"))
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and "malformed.py" in r.stderr and "CASES must be" in r.stderr
    r = _eval(str(tmp_path / "nope.py"), str(DATA / "addrelu_correct.py"))
    assert r.exit_code == 2 and "nope.py: problem file not found" in r.stderr
    r = _eval(PROBLEM, str(DATA / "addrelu_correct.py"), "--rule-off", "static.no-such-rule")
    assert r.exit_code == 2 and "no-such-rule" in r.stderr


def test_missing_backend_exits_3():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    r = _eval(PROBLEM, str(DATA / "addrelu_correct.py"), "--backend", "cuda")
    assert r.exit_code == 3 and "cuda" in r.stderr
    r = _eval(PROBLEM, str(DATA / "addrelu_correct.py"), "--backend", "npu")
    assert r.exit_code == 3 and "torch_npu" in r.stderr


def test_repair_backend_names_the_backend_where_no_option_does(monkeypatch):
    from repair.errors import EnvironmentMissing
    from repair.engine.harness import evaluate

    monkeypatch.setenv("REPAIR_BACKEND", "npu")  # torch_npu is never installed in the test environment
    r = _eval(PROBLEM, str(DATA / "addrelu_correct.py"))
    assert r.exit_code == 3 and "torch_npu" in r.stderr
    with pytest.raises(EnvironmentMissing, match="torch_npu"):
        evaluate(PROBLEM, DATA / "addrelu_correct.py")
    assert _eval(PROBLEM, str(DATA / "addrelu_correct.py"), "--backend", "triton-cpu").exit_code == 0
    monkeypatch.setenv("REPAIR_BACKEND", "tpu")
    r = _eval(PROBLEM, str(DATA / "addrelu_correct.py"))
    assert r.exit_code == 2 and "unknown backend 'tpu'" in r.stderr


def test_help_imports_nothing_heavy():
    code = ("import sys; from repair.cli import cli\n"
            "try:\n    cli(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('torch', 'triton', 'chromadb', 'duckdb', 'litellm', 'sentence_transformers', "
            "'numpy', 'pydantic') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out and "eval" in out


def test_a_special_file_as_candidate_is_named_as_such():
    r = _eval(PROBLEM, "/dev/zero")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert "/dev/zero: candidate file is not a regular file" in r.stderr
