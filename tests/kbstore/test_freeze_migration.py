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
