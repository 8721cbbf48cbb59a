import pytest

from ingest.api import ingest
from ingest.synthetic import make_record, write_record, write_records
from kbstore.errors import BadInput, EmbedderMismatch
from kbstore.store import Store
from kbstore.views import log, show


def _counts(kb):
    with Store.open(kb) as s:
        return {t: s.count(t) for t in ("entries", "evidence", "records", "embeddings", "versions")}


def test_admits_good_records_and_makes_version_one(tmp_path, kb_env):
    write_records(tmp_path / "recs", [make_record(i) for i in range(6)])
    rep = ingest([tmp_path / "recs"])
    assert (rep.version, rep.count("admitted"), rep.entries_added, rep.previous_version) == (1, 6, 6, 0)
    assert _counts(kb_env) == {"entries": 6, "evidence": 6, "records": 6, "embeddings": 6, "versions": 1}
    assert rep.index == "rebuilt"  # first ingest builds the chromadb index


def test_duplicate_ingest_is_a_no_op(tmp_path, kb_env):
    write_records(tmp_path / "recs", [make_record(i) for i in range(4)])
    ingest([tmp_path / "recs"])
    before = _counts(kb_env)
    rep = ingest([tmp_path / "recs"])
    assert rep.version is None and rep.count("duplicate") == 4 and rep.entries_added == 0
    assert _counts(kb_env) == before
    assert [v["version"] for v in log()] == [1]


def test_same_pattern_from_two_runs_is_one_entry_with_two_pieces_of_evidence(tmp_path, kb_env):
    a = make_record(5, run_id="run-a", operator_id="softmax_a", worker_kind="litellm", model="gpt-x")
    b = make_record(5, run_id="run-b", operator_id="softmax_b", started_at="2026-02-01T10:00:00Z")
    ingest([write_record(a, tmp_path / "a.json")])
    rep = ingest([write_record(b, tmp_path / "b.json")])
    assert rep.version == 2 and rep.entries_added == 0 and rep.evidence_added == 1
    assert _counts(kb_env)["entries"] == 1
    entry = show(None, rep.outcomes[0].entry_id)
    assert [e["run_id"] for e in entry["evidence"]] == ["run-a", "run-b"]
    assert [e["version"] for e in entry["evidence"]] == [1, 2]
    assert entry["symptom_stats"]["records"] == 2


def test_same_record_twice_in_one_batch_counts_once(tmp_path):
    r = make_record(2)
    rep = ingest([write_record(r, tmp_path / "x.json"), write_record(r, tmp_path / "y.json")])
    assert [o.outcome for o in rep.outcomes] == ["admitted", "duplicate"]


def test_bad_files_are_rejected_by_name_and_the_rest_admitted(tmp_path, kb_env):
    d = tmp_path / "recs"
    write_records(d, [make_record(i) for i in range(3)])
    good = make_record(9).to_json()
    (d / "sub").mkdir()
    (d / "sub" / "truncated.json").write_text(good[:200])
    (d / "latin1.json").write_bytes(good.encode().replace(b"run-", b"r\xe9n-", 1))
    (d / "garbage.json").write_text("{{{{")
    with open(d / "huge.json", "wb") as f:
        f.truncate(6 * 2**20)
    write_record(make_record(7, full=(10, 20)), d / "lowmatch.json")
    write_record(make_record(8, verdicts=("violation", "clean")), d / "cheat.json")
    (d / "notes.txt").write_text("ignored: not *.json")
    rep = ingest([d])
    by_name = {o.path.rsplit("/", 1)[-1]: o for o in rep.outcomes}
    assert rep.count("admitted") == 3 and rep.count("rejected") == 6 and "notes.txt" not in by_name
    expect = {"truncated.json": "malformed-json", "latin1.json": "not-utf8", "garbage.json": "malformed-json",
              "huge.json": "too-large", "lowmatch.json": "match-below-threshold", "cheat.json": "integrity-not-clean"}
    assert {n: by_name[n].reasons[0].code for n in expect} == expect
    assert rep.version == 1
    (v,) = log()
    assert v["rejected"] == 6 and {r["code"] for r in v["rejections"]} == set(expect.values())
    assert all(r["path"].endswith(".json") for r in v["rejections"])


def test_a_batch_with_nothing_new_makes_no_version_but_is_recorded(tmp_path, kb_env):
    write_record(make_record(1, status="failed"), tmp_path / "f.json")
    rep = ingest([tmp_path / "f.json"])
    assert rep.version is None and rep.count("rejected") == 1
    with Store.open(kb_env) as s:
        (batch,) = s.batches()
        assert batch["rejected"] == 1 and batch["version"] is None
        assert s.events(batch["batch_id"])[0]["reasons"][0]["code"] == "not-repaired"
        assert s.head_version() == 0


def test_missing_path_is_bad_input_and_writes_nothing(tmp_path, kb_env):
    with pytest.raises(BadInput, match="no such file"):
        ingest([tmp_path / "nope"])
    assert not kb_env.exists()


def test_min_match_is_applied(tmp_path):
    write_record(make_record(1, full=(18, 20)), tmp_path / "r.json")
    assert ingest([tmp_path / "r.json"], min_match=0.95).count("rejected") == 1
    assert ingest([tmp_path / "r.json"], min_match=0.9).count("admitted") == 1
    with pytest.raises(BadInput):
        ingest([tmp_path / "r.json"], min_match=1.5)


def test_versions_increase_and_the_log_records_each_batch(tmp_path):
    for n in range(3):
        write_records(tmp_path / f"b{n}", [make_record(10 * n + i) for i in range(2)])
        assert ingest([tmp_path / f"b{n}"]).version == n + 1
    versions = log()
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert [v["entries_added"] for v in versions] == [2, 2, 2]
    assert len({v["batch_id"] for v in versions}) == 3


def test_entries_keep_their_canonical_json_and_fingerprints(tmp_path, kb_env):
    write_record(make_record(3), tmp_path / "r.json")
    rep = ingest([tmp_path / "r.json"])
    eid = rep.outcomes[0].entry_id
    with Store.open(kb_env) as s:
        from provenance.canonical import sha256_text

        row = s.entry(eid)
        assert sha256_text(row["canonical_json"]) == eid == row["sha256"]
        fps = s.rows("SELECT role, scheme, packed FROM fingerprints WHERE entry_id = ?", [eid])
    from provenance.fingerprint_store import unpack_fingerprints

    assert sorted(f["role"] for f in fps) == ["repaired", "source"]
    assert {x.representation for x in unpack_fingerprints(fps[0]["packed"])} == {"tokens", "ops"}


def test_embedder_mismatch_is_refused(tmp_path, monkeypatch):
    write_record(make_record(1), tmp_path / "a.json")
    ingest([tmp_path / "a.json"])

    class Other:
        name, dim, fingerprint = "other", 384, "f" * 64

        def embed(self, texts):  # pragma: no cover - refused before use
            raise AssertionError

    write_record(make_record(2), tmp_path / "b.json")
    with pytest.raises(EmbedderMismatch):
        ingest([tmp_path / "b.json"], embedder=Other())
    monkeypatch.setenv("KB_EMBEDDER", "minilm")
    with pytest.raises(EmbedderMismatch, match="hash"):
        ingest([tmp_path / "b.json"])


def test_the_process_pool_gives_the_same_kb_as_serial_work(tmp_path, monkeypatch):
    from ingest import api, prepare

    write_records(tmp_path / "recs", [make_record(i) for i in range(6)] + [make_record(1, run_id="dup-pattern")])
    serial = ingest([tmp_path / "recs"], tmp_path / "serial")
    monkeypatch.setattr(prepare, "PARALLEL_MIN", 2)
    monkeypatch.setattr(api, "EMBED_CHUNK", 3)  # three chunks, the duplicate pattern in another chunk
    monkeypatch.setenv("KB_INGEST_WORKERS", "2")
    pooled = ingest([tmp_path / "recs"], tmp_path / "pooled")
    assert [o.as_dict() for o in pooled.outcomes] == [o.as_dict() for o in serial.outcomes]

    def dump(kb):
        with Store.open(kb) as s:
            return (s.rows("SELECT id, canonical_json FROM entries ORDER BY id"),
                    s.rows("SELECT entry_id, record_sha256, canonical_json FROM evidence ORDER BY 1, 2"),
                    s.rows("SELECT entry_id, record_sha256, role, data FROM fingerprints ORDER BY 1, 2, 3"),
                    s.rows("SELECT entry_id, fingerprint, vector, text_sha256 FROM embeddings ORDER BY 1"))
    pooled_kb, serial_kb = dump(tmp_path / "pooled"), dump(tmp_path / "serial")
    assert len(pooled_kb[3]) == 6  # one vector per entry, each embedded in the pool
    assert pooled_kb == serial_kb


def test_embedding_processes_are_capped_on_a_big_machine(monkeypatch):
    from ingest import prepare

    monkeypatch.delenv("KB_INGEST_WORKERS", raising=False)
    monkeypatch.setattr(prepare.os, "cpu_count", lambda: 64)
    assert prepare.workers() == 64 and prepare.workers(embedding=True) == prepare.EMBED_WORKERS_MAX
    monkeypatch.setenv("KB_INGEST_WORKERS", "12")  # said explicitly: taken as said
    assert prepare.workers() == 12 and prepare.workers(embedding=True) == 12
