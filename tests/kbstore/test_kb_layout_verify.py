"""`kb verify` checks the live KB's mapped layout against DuckDB (kbstore.layout_verify): an appended layout passes;
a tampered ids, vectors, row-line or postings file is named, one line per difference, exit 1; `--repair` rebuilds it;
a layout behind the KB is a warning."""
import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from ingest.api import ingest
from ingest.synthetic import make_record, write_records
from kbstore.cli import cli
from kbstore.layout import layout_dir
from kbstore.mapped import ID_BYTES, read_generation
from kbstore.paths import KBPaths
from kbstore.postings import Segment
from kbstore.verify import verify
from repair.rules.build_starter import STARTER_DIR


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Built once from the starter records, then appended to (new entries, new evidence for old ones)."""
    tmp = tmp_path_factory.mktemp("layout_verify")
    with pytest.MonkeyPatch.context() as m:
        m.setenv("KB_PATH", str(tmp / "kb"))
        m.setenv("KB_EMBEDDER", "hash")
        m.setenv("ANONYMIZED_TELEMETRY", "False")
        ingest([STARTER_DIR])
        write_records(tmp / "v2", [make_record(i) for i in range(6)])
        ingest([tmp / "v2"])
        write_records(tmp / "v3", [make_record(i, run_id=f"again-{i}") for i in (1, 4)])
        ingest([tmp / "v3"])
    return tmp / "kb"


@pytest.fixture
def kb(built, kb_env):
    """A copy of the built KB for each test (they tamper with it)."""
    shutil.copytree(built, kb_env)
    return kb_env


def _base(kb) -> tuple:
    root = layout_dir(KBPaths.of(kb))
    gen = read_generation(root)
    return root / gen["base"], gen


def _mapped(report) -> list[str]:
    return [p["message"] for p in report.problems if p["check"] == "mapped"]


def _flip(path, offset: int, data: bytes) -> None:
    path.chmod(0o644)
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def test_an_appended_layout_matches_duckdb(kb):
    assert read_generation(layout_dir(KBPaths.of(kb)))["generation"] == 3  # appended, not rebuilt
    r = verify(kb)
    assert r.ok and not _mapped(r) and not [w for w in r.warnings if w["check"] == "mapped"]


def test_a_tampered_vector_id_and_line_are_each_named_and_exit_1(kb):
    d, gen = _base(kb)
    order = np.fromfile(d / gen["order"], dtype="<i4")
    ids = np.fromfile(d / "ids", dtype=f"S{ID_BYTES}")
    row = int(order[3])
    _flip(d / "vectors", row * gen["dim"] * 4, np.float32(0.5).tobytes())  # one component of one vector
    _flip(d / "ids", int(order[5]) * ID_BYTES, b"0" * 12)
    off = np.fromfile(d / gen["rowoff"], dtype="<i8").reshape(-1, 2)[int(order[7])]
    _flip(d / "rows.jsonl", int(off[0]) + 2, b"X")
    problems = _mapped(verify(kb))
    eid = lambda p: ids[order[p]].decode()[:12]  # noqa: E731
    assert any(f"entry {eid(3)}" in p and "vector differs" in p for p in problems)
    assert any("ids: position 5" in p and "'000000000000'" in p for p in problems)
    assert any(f"entry {eid(7)}" in p and "JSON line differs" in p for p in problems)
    out = CliRunner().invoke(cli, ["verify", "--kb", str(kb)])
    assert out.exit_code == 1 and "FAIL mapped: mapped vectors:" in out.output


def test_tampered_postings_are_named_and_repair_rebuilds_the_layout(kb):
    d, gen = _base(kb)
    lex = Segment(d / gen["lexical"]["segments"][0])
    _flip(lex.path / "tf", 0, np.int32(97).tobytes())  # the first posting's term frequency
    fp = Segment(d / gen["fingerprints"]["segments"][-1])
    _flip(fp.path / "repr", fp.n_postings - 1, np.int8(1 - int(fp.columns["repr"][-1])).tobytes())
    problems = _mapped(verify(kb))
    token = lex.key_text(0)
    assert any(p.startswith(f"mapped BM25 postings: {token!r} of entry") and "tf 97 in the layout" in p for p in problems)
    assert any(p.startswith("mapped fingerprint postings: #") for p in problems)
    r = verify(kb, repair=True)
    assert r.ok and any("rebuilt the mapped layout" in x for x in r.repaired)
    assert verify(kb).ok


def test_a_layout_behind_the_kb_is_a_warning_that_repair_catches_up(kb, tmp_path):
    root = layout_dir(KBPaths.of(kb))
    shutil.copytree(root, tmp_path / "old-layout")
    write_records(tmp_path / "v4", [make_record(30)])
    ingest([tmp_path / "v4"])
    shutil.rmtree(root)
    shutil.copytree(tmp_path / "old-layout", root)  # the layout as it was at version 3
    r = verify(kb)
    assert r.ok and any("kb_version 3" in w["message"] for w in r.warnings if w["check"] == "mapped")
    r = verify(kb, repair=True)
    assert r.ok and not r.warnings and any("brought the mapped layout up to date" in x for x in r.repaired)
