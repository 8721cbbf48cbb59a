"""The AscendC example suite is what examples/ascendc/build_suite.py writes from suite/ (no hand edits drift)."""
from __future__ import annotations

import subprocess
import sys

from ascendc_fixtures import OP_DIRS, ROOT, SUITE, candidates, meta


def test_the_generated_files_are_up_to_date():
    r = subprocess.run([sys.executable, str(SUITE / "build_suite.py"), "--check"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_candidate_exists_and_each_operator_is_a_task():
    for d in OP_DIRS:
        m = meta(d)
        assert (d / "problem.py").is_file() and m["operator"] == d.name
        assert all((d / "validation" / f).is_file()
                   for f in ("module.py", "pybind.cpp", "prepare_inputs.py", "test_cases.csv"))
    for d, name, info in candidates():
        assert (d / name).exists(), (d, name)
        assert info["kind"] in ("correct", "near-miss", "cheat")
        assert info["kind"] == "correct" or info["description"].endswith((".", ".)"))
