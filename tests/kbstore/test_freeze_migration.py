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


def test_m006_recomputes_c_blobs_and_carries_python_ones_over(tmp_path):
    """ts3 -> ts4 changed only C-family op streams: a Python ts3 blob is restamped as it is, a C one recomputed."""
    from ingest.api import ingest
    from ingest.synthetic import make_record, write_record
    from kbstore.embed import HashEmbedder
    from provenance.fingerprint import SCHEME

    c_code = ("void k(const float* w, const float* x, float* acc, int M, int K) {\n"
              "    for (int k = 0; k < K; ++k)\n        for (int m = 0; m < M; ++m)\n"
              "            acc[m] += w[m * K + k] * x[k];\n}\n")
    write_record(make_record(7, source=CODE.replace("* 2", "* 3"), repaired=CODE, family="misc"),
                 tmp_path / "records" / "py.json")
    rec = make_record(8, source=c_code.replace("+=", "="), repaired=c_code, family="misc")
    write_record(rec.model_copy(update={"language": "cpp"}), tmp_path / "records" / "c.json")
    kb = tmp_path / "kb"
    ingest([tmp_path / "records"], kb, embedder=HashEmbedder())
    con = duckdb.connect(str(kb / "kb.duckdb"))
    rows = con.execute("SELECT f.entry_id, f.record_sha256, f.role, f.packed, r.canonical_json FROM fingerprints f "
                       "JOIN records r ON r.sha256 = f.record_sha256").fetchall()
    current, is_c = {}, {}
    for eid, record, role, blob, raw in rows:
        key, blob = (eid, record, role), bytes(blob)
        current[key], is_c[key] = blob, '"cpp"' in raw
        fps = unpack_fingerprints(blob)
        # a ts3 blob: another stamp, and (to tell a carried-over blob from a recomputed one) one more hash
        old = pack_fingerprints([f.model_copy(update={"scheme": "ts3", "hashes": f.hashes + [12345],
                                                      "positions": f.positions + [0],
                                                      "line_start": f.line_start + [1], "line_end": f.line_end + [1]})
                                 for f in fps])
        con.execute("UPDATE fingerprints SET packed = ?, scheme = 'ts3' WHERE entry_id = ? AND record_sha256 = ? "
                    "AND role = ?", [old, *key])
    assert any(is_c.values()) and not all(is_c.values())
    con.execute("DELETE FROM _migrations WHERE name = 'm006_fingerprint_scheme_ts4'")
    con.close()
    with Store.open(KBPaths(kb), write=True) as store:
        assert "m006_fingerprint_scheme_ts4" in M.applied(store.con)
        after = {tuple(r[:3]): (bytes(r[3]), r[4]) for r in store.con.execute(
            "SELECT entry_id, record_sha256, role, packed, scheme FROM fingerprints").fetchall()}
    for key, (blob, scheme) in after.items():
        assert scheme == SCHEME
        hashes = [f.hashes for f in unpack_fingerprints(blob)]
        if is_c[key]:
            assert blob == current[key]  # recomputed from the record's code
        else:
            assert all(h[-1] == 12345 for h in hashes)  # carried over: the stored payload kept, restamped
