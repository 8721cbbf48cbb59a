"""Every set under heldout/ follows heldout/README.md: a README saying who, when, what they had read, how it was
split and what it is; a split.json whose file digest and halves the rule recomputes. Sets are found by directory,
so a new one is checked the moment it lands."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _protocol():
    spec = importlib.util.spec_from_file_location("heldout_protocol", ROOT / "bench" / "heldout_protocol.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return sys.modules[spec.name]


H = _protocol()
SETS = H.held_out_sets()


def test_the_protocol_is_written_down_and_the_sets_are_found():
    assert (ROOT / "heldout" / "README.md").is_file()
    assert {"overlap", "overlap2", "transfer", "transfer2"} <= {p.name for p in SETS}


@pytest.mark.parametrize("set_dir", SETS, ids=lambda p: p.name)
def test_each_set_follows_the_protocol(set_dir):
    split = H.load_split(set_dir)  # README fields, status, digest of the file list, the rule's halves
    assert set(split.tune).isdisjoint(split.heldout) and set(split.tune) | set(split.heldout) == set(H.units(set_dir))


def test_the_sets_status_is_what_they_were_used_for():
    status = {p.name: H.load_split(p).status for p in SETS}
    assert status["overlap"] == "dev"  # part1 chose the detector; part2's outcomes were printed per file
    assert status["transfer"] == "dev"  # the rules' classes are its README's classes
    assert status["transfer2"] == "held-out" and status["overlap2"] == "held-out"


def test_a_changed_file_list_or_a_moved_unit_is_caught(tmp_path):
    import shutil

    for name in ("a_op", "b_op", "c_op", "d_op"):
        (tmp_path / "s" / name).mkdir(parents=True)
        (tmp_path / "s" / name / "kernel.py").write_text("x = 1\n")
    s = tmp_path / "s"
    (s / "README.md").write_text("- Written by: me\n- Written: 2026-12-02\n- Had read: nothing\n"
                                 "- Split: split.json\n- Status: held-out\n")
    doc = H.write_split(s)
    assert H.load_split(s).tune == tuple(doc["tune"]) and doc["tune"] and doc["heldout"]
    (s / "a_op" / "extra.py").write_text("y = 2\n")
    with pytest.raises(H.ProtocolError, match="file list changed"):
        H.load_split(s)
    (s / "a_op" / "extra.py").unlink()
    moved = {**doc, "tune": doc["tune"][1:], "heldout": doc["heldout"] + doc["tune"][:1]}
    (s / "split.json").write_text(json.dumps(moved))
    with pytest.raises(H.ProtocolError, match="not what the rule assigns"):
        H.load_split(s)
    H.write_split(s)
    (s / "README.md").write_text("- Written by: me\n- Written: 2026-12-02\n- Split: split.json\n- Status: dev\n")
    with pytest.raises(H.ProtocolError, match="Had read"):
        H.load_split(s)
    shutil.rmtree(s / "a_op" / "__pycache__", ignore_errors=True)
