"""`repair check`: exit 0 clean, 1 violation, 2 bad input; --json; --rule-off recorded."""
from __future__ import annotations

import json

from click.testing import CliRunner

from corpus_index import CORPUS, PROBLEM
from repair.cli import cli


def _check(*args):
    return CliRunner().invoke(cli, ["check", str(PROBLEM), *map(str, args)])


def test_clean_candidate_exits_0():
    r = _check(CORPUS / "legit_basic.py")
    assert r.exit_code == 0 and "clean" in r.output


def test_violation_exits_1_with_rule_line_and_evidence():
    r = _check(CORPUS / "cheat_torch_relu_after_kernel.py")
    assert r.exit_code == 1
    assert "static.framework-compute" in r.output and "line 28" in r.output and "torch.relu(out)" in r.output


def test_json_and_rule_off():
    r = _check(CORPUS / "cheat_torch_relu_after_kernel.py", "--json", "--rule-off", "static.framework-compute")
    assert r.exit_code == 0
    v = json.loads(r.output)
    assert v["verdict"] == "clean" and v["rules_off"] == ["static.framework-compute"]


def test_bad_input_exits_2(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("class ModelNew(:\n")
    r = _check(bad)
    assert r.exit_code == 2 and "bad.py" in r.output
    assert _check(CORPUS / "legit_basic.py", "--rule-off", "no.such-rule").exit_code == 2
    assert _check(tmp_path / "missing.py").exit_code == 2


def test_special_files_are_refused_in_one_line_not_read(tmp_path):
    """#30: `repair check` hung on a FIFO and read /dev/zero until MemoryError."""
    import os

    fifo = tmp_path / "problem.py"
    os.mkfifo(fifo)  # no writer: a blocking open never returns
    for problem, candidate, named in ((fifo, CORPUS / "legit_basic.py", fifo), (PROBLEM, "/dev/zero", "/dev/zero")):
        r = CliRunner().invoke(cli, ["check", str(problem), str(candidate)])
        assert r.exit_code == 2, r.output
        assert f"{named}: not a regular file" in r.output and r.output.count("\n") == 1
