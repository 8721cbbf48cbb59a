"""The overlap detector's shipped operating point is what bench/bench_overlap_heldout.py's rules choose on the
committed tune halves (heldout/README.md), kb freeze --help shows it, and the bench's tables name no held-out file."""
import importlib.util
import sys
from pathlib import Path

import pytest

from provenance import operating_point
from provenance.overlap_rules import OverlapConfig

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("bench_overlap_heldout", ROOT / "bench" / "bench_overlap_heldout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def chosen():
    bench = _bench()
    data = bench.load_all()
    null, threshold, pairs = bench.operating_point(data)
    return bench, data, null, threshold, pairs


def test_the_shipped_values_are_what_the_rules_choose_on_the_tune_halves(chosen):
    _, data, null, threshold, _ = chosen
    assert (operating_point.OPS_NULL, operating_point.THRESHOLD) == (null, threshold)
    assert (OverlapConfig().ops_null, OverlapConfig().threshold) == (null, threshold)
    # both sets take part, and only their tune halves choose
    assert {e["half"] for _, es in data.values() for e in es} == {"tune", "heldout"} and set(data) == {"overlap", "overlap2"}


def test_the_rules_are_what_they_say():
    bench = _bench()
    clean = [{"id": f"c{i}", "label": "clean"} for i in range(40)] + [{"id": "l", "label": "leak"}]
    s = {f"c{i}": i / 100 for i in range(40)} | {"l": 0.9}
    assert bench.choose_threshold(s, clean) == 0.381  # 3% of 40 = 1 allowed: 0.001 above the second highest
    assert bench.choose_threshold(s, clean[:30] + clean[40:]) == 0.291  # 0 of 30 allowed: above the highest


def test_kb_freeze_help_shows_the_codes_default():
    from click.testing import CliRunner

    from kbstore.cli import cli

    for cmd in ("freeze", "overlap"):
        out = CliRunner().invoke(cli, [cmd, "--help"]).output
        assert f"(default {operating_point.THRESHOLD}" in " ".join(out.split()), cmd


def test_the_bench_prints_no_held_out_file(chosen):
    bench, data, null, threshold, pairs = chosen
    config = OverlapConfig(ops_null=null, threshold=threshold)
    ours = {}
    for name, (_, es) in data.items():
        ours.update(bench.scores(pairs[name], es, config))
    text = "\n".join(bench.report(data, ours, threshold, [("other", ours, 0.5)]))
    held = [e for _, es in data.values() for e in es if e["half"] == "heldout"]
    assert held and "HELD-OUT half" in text
    assert not [e["id"] for e in held if e["id"] in text or Path(e["id"]).name in text]
