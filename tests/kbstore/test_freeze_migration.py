"""Migration m003: fingerprints stored as JSON by an older KB are packed once (data kept, packed added)."""
import duckdb

from kbstore import migrations as M
from kbstore.paths import KBPaths
from kbstore.store import Store
from provenance.canonical import canonical_json
from provenance.fingerprint import fingerprints
from provenance.fingerprint_store import pack_fingerprints, unpack_fingerprints

CODE = "import triton.language as tl\n\ndef k(x_ptr, n):\n    offs = tl.arange(0, 16)\n    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2, mask=offs < n)\n"


def test_json_fingerprints_are_packed_by_the_migration(tmp_path):
    kb = KBPaths(tmp_path / "kb")
    kb.root.mkdir()
    con = duckdb.connect(str(kb.db))
    M.applied(con)
    for fn in (M.m001_entries_and_evidence, M.m002_provenance_and_log):
        fn(con)
        con.execute("INSERT INTO _migrations VALUES (?, 'then')", [fn.__name__])
    fps = fingerprints(CODE, "python")
    as_json = canonical_json([f.model_dump(mode="json", by_alias=True) for f in fps])
    con.execute("INSERT INTO fingerprints VALUES ('e1', 'r1', 'source', 'python', 'ts1', ?)", [as_json])
    con.close()
    with Store.open(kb, write=True) as store:
        rows = store.rows("SELECT data, packed FROM fingerprints")
        assert "m003_packed_fingerprints" in M.applied(store.con)
    assert rows[0]["data"] == as_json
    assert rows[0]["packed"] == pack_fingerprints(fps)
    assert [f.hashes for f in unpack_fingerprints(rows[0]["packed"])] == [f.hashes for f in fps]


def test_fingerprints_of_scheme_ts2_get_their_op_streams_from_m005(tmp_path):
    """A KB whose blobs are FPK1 / ts2 (no op streams): m005 recomputes them from the records, op streams included."""
    import struct

    import numpy as np

    from ingest.api import ingest
    from ingest.synthetic import make_record, write_record
    from kbstore.embed import HashEmbedder
    from provenance.fingerprint import SCHEME

    rec = make_record(7, source=CODE.replace("* 2", "* 3"), repaired=CODE, family="misc")
    write_record(rec, tmp_path / "records" / "r.json")
    kb = tmp_path / "kb"
    ingest([tmp_path / "records"], kb, embedder=HashEmbedder())
    con = duckdb.connect(str(kb / "kb.duckdb"))
    current = {tuple(r[:3]): bytes(r[3]) for r in con.execute(
        "SELECT entry_id, record_sha256, role, packed FROM fingerprints").fetchall()}
    for (eid, record, role), blob in current.items():
        fps = unpack_fingerprints(blob)
        assert any(f.stream for f in fps)
        old = [b"FPK1", struct.pack("<B", 3), b"ts2", struct.pack("<B", len(fps))]
        for f in fps:
            old.append(struct.pack("<BBHHII", ("tokens", "ops").index(f.representation), 0, f.k, f.w, f.n_tokens,
                                   len(f.hashes)))
            old += [np.asarray(a, dtype=d).tobytes() for a, d in
                    ((f.hashes, "<i8"), (f.positions, "<i4"), (f.line_start, "<i4"), (f.line_end, "<i4"))]
        con.execute("UPDATE fingerprints SET packed = ?, scheme = 'ts2' WHERE entry_id = ? AND record_sha256 = ? "
                    "AND role = ?", [b"".join(old), eid, record, role])
    con.execute("DELETE FROM _migrations WHERE name = 'm005_fingerprint_scheme_ts3'")
    con.close()
    with Store.open(KBPaths(kb), write=True) as store:
        assert "m005_fingerprint_scheme_ts3" in M.applied(store.con)
        rows = store.con.execute("SELECT entry_id, record_sha256, role, packed, scheme FROM fingerprints").fetchall()
    assert {tuple(r[:3]): bytes(r[3]) for r in rows} == current and {r[4] for r in rows} == {SCHEME}
