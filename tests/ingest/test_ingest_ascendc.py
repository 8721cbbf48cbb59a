"""Records in AscendC: fingerprinted as AscendC at ingest, excluded by a freeze when they copy or port a cohort
kernel (and only then), retrieved by language, and carried over from a KB of the earlier fingerprint scheme."""
import json
import shutil
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from ingest.api import ingest
from ingest.synthetic import make_record, write_record
from kbstore.cli import cli
from kbstore.embed import HashEmbedder
from kbstore.errors import KBError
from kbstore.freeze import freeze
from kbstore.snapshot import read_manifest
from kbstore.store import Store
from provenance.fingerprint import SCHEME
from provenance.fingerprint_store import pack_fingerprints, unpack_fingerprints

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
DATA = ROOT / "tests" / "provenance" / "data" / "ascendc"
M004 = "m004_fingerprint_scheme_ts2"


def _kernel(op: str) -> Path:
    return next((EX / "ascendc" / op / "answer" / "0" / "op_kernel").glob("*.cpp"))


COHORT = {"softmax": [EX / "softmax" / "correct.py", EX / "ascendc" / "softmax" / "correct.py"],
          "layer_norm": [_kernel("layer_norm")], "log_softmax": [EX / "log_softmax" / "correct.py"]}
LEAKS = ["renamed/layer_norm__renamed.cpp", "renamed/softmax__renamed.cpp", "ports/softmax__port.cpp",
         "ports/log_softmax__port.cpp"]
CLEAN = [DATA / "independent" / f"{n}.cpp" for n in ("mul", "gelu", "swish", "rms_norm")] + \
    [_kernel(op) for op in ("add", "bias_add", "cast")]


def _record(i: int, code: str):
    near_miss = code.replace(" < ", " <= ", 1)  # the record's source: one bound loosened
    rec = make_record(i, source=near_miss, repaired=code, family="misc")
    return rec.model_copy(update={"language": "ascendc"})


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    """A KB of AscendC records (copies and ports of the cohort, other operators) and Triton ones; its cohort."""
    root = tmp_path_factory.mktemp("ascendc-kb")
    names = {}
    for i, p in enumerate([DATA / x for x in LEAKS] + CLEAN):
        path = write_record(_record(500 + i, p.read_text()), root / "records" / f"{i:02d}.json")
        names[str(path)] = p.stem
    for j in range(3):
        write_record(make_record(j), root / "records" / f"triton{j}.json")
    report = ingest([root / "records"], root / "kb", embedder=HashEmbedder())
    ids = {names[o.path]: o.entry_id for o in report.outcomes if o.path in names}
    assert len(ids) == len(LEAKS) + len(CLEAN) and report.count("admitted") == len(ids) + 3
    ops = "\n".join(f"  - id: {op}\n    files: [{', '.join(str(f) for f in files)}]" for op, files in COHORT.items())
    manifest = root / "cohort.yaml"
    manifest.write_text(f'cohort: ascendc\nfrozen_at: "2999-01-01T00:00:00Z"\noperators:\n{ops}\n')
    return root / "kb", manifest, ids


def test_ascendc_records_are_fingerprinted_as_ascendc(kb):
    path, _, ids = kb
    with Store.open(path) as store:
        rows = store.rows("SELECT entry_id, language, scheme, packed FROM fingerprints")
    mine = [r for r in rows if r["entry_id"] in ids.values()]
    assert len(mine) == 2 * len(ids)  # source and repaired
    assert {(r["language"], r["scheme"]) for r in mine} == {("ascendc", SCHEME)}
    assert {f.language for r in mine for f in unpack_fingerprints(r["packed"])} == {"ascendc"}


def _frozen_exclusions(path, manifest) -> dict[str, set[str]]:
    report = freeze(manifest, path, allow_outside=True)
    return {e.id: set(e.rules) for e in read_manifest(Path(report.path)).excluded}


def test_freeze_excludes_copies_and_ports_but_not_other_operators_on_the_template(kb):
    path, manifest, ids = kb
    excluded = _frozen_exclusions(path, manifest)
    assert {name for name, eid in ids.items() if eid in excluded} == {Path(x).stem for x in LEAKS}
    assert all(excluded[ids[Path(x).stem]] == {"overlap"} for x in LEAKS)


def _query(*args) -> list[dict]:
    res = CliRunner().invoke(cli, ["query", "a kernel near-miss", "-k", "50", "--json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)["hits"]


def test_query_filters_by_language(kb):
    path, manifest, ids = kb
    ascendc = _query("--kb", str(path), "--language", "ascendc")
    assert {h["id"] for h in ascendc} == set(ids.values()) and {h["language"] for h in ascendc} == {"ascendc"}
    triton = _query("--kb", str(path), "--language", "triton")
    assert len(triton) == 3 and not {h["id"] for h in triton} & set(ids.values())
    assert {h["id"] for h in _query("--kb", str(path), "--language", "AscendC")} == set(ids.values())
    snap = freeze(manifest, path, allow_outside=True, name="ascendc-snap")
    in_snapshot = _query("--kb", str(path), "--snapshot", snap.snapshot_id, "--language", "ascendc")
    assert {h["id"] for h in in_snapshot} == {ids[p.stem] for p in CLEAN}  # the copies and ports were left out


def test_a_kb_of_the_earlier_scheme_is_migrated_before_it_is_frozen(kb, tmp_path):
    path, manifest, ids = kb
    old = tmp_path / "kb"
    shutil.copytree(path, old)
    shutil.rmtree(old / "snapshots", ignore_errors=True)
    con = duckdb.connect(str(old / "kb.duckdb"))
    current = {tuple(r[:3]): r[3] for r in con.execute(
        "SELECT entry_id, record_sha256, role, packed FROM fingerprints").fetchall()}
    for (eid, rec, role), blob in current.items():
        stale = blob[:4] + bytes([3]) + b"ts1" + blob[5 + blob[4]:]  # ts1 said so; AscendC ones were other hashes then
        if eid in ids.values():
            stale = pack_fingerprints([f.model_copy(update={"scheme": "ts1", "language": "cpp",
                                                            "hashes": f.hashes[::-1]}) for f in unpack_fingerprints(blob)])
        con.execute("UPDATE fingerprints SET packed = ?, scheme = 'ts1' WHERE entry_id = ? AND record_sha256 = ? "
                    "AND role = ?", [stale, eid, rec, role])
    con.execute("DELETE FROM _migrations WHERE name = ?", [M004])
    con.close()
    with pytest.raises(KBError, match=M004):  # a reader refuses the KB until a writer migrates it
        freeze(manifest, old, allow_outside=True)
    with Store.open(old, write=True) as store:
        migrated = {tuple(r[:3]): r[3] for r in store.con.execute(
            "SELECT entry_id, record_sha256, role, packed FROM fingerprints").fetchall()}
        schemes = {r[0] for r in store.con.execute("SELECT DISTINCT scheme FROM fingerprints").fetchall()}
    assert migrated == current and schemes == {SCHEME}
    assert _frozen_exclusions(old, manifest) == _frozen_exclusions(path, manifest)
