"""Snapshots: read-only and never written by a query, every hash checked by `kb verify`, audit, listing, eval mode."""
import hashlib
import json
import os
import shutil
import stat
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

import freeze_corpus as fc
from kbstore.cli import cli
from kbstore.freeze import freeze
from kbstore.snapshot import Snapshot, list_snapshots, read_manifest
from kbstore.snapshot_verify import verify_snapshot
from provenance.canonical import content_hash


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    kb, manifest, items = fc.build_copy(tmp_path_factory)
    report = freeze(manifest, kb, name="planted-eval", allow_outside=True)
    return kb, Path(report.path), report, {p.name: p for p in items}


def _main(args: list[str]) -> int:
    """`kb ...` through main(), which maps typed errors to exit statuses."""
    from kbstore.cli import main

    try:
        main(args)
    except SystemExit as e:
        return e.code or 0
    return 0


def _state(root: Path) -> dict:
    """path -> (mode, mtime_ns, sha256) of everything under root, root included."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        st = os.stat(dirpath)
        out[dirpath] = (st.st_mode, st.st_mtime_ns, None)
        for f in filenames:
            p = os.path.join(dirpath, f)
            st = os.stat(p)
            out[p] = (st.st_mode, st.st_mtime_ns, hashlib.sha256(Path(p).read_bytes()).hexdigest())
    return out


def test_snapshot_is_read_only_and_queries_never_write(snap, monkeypatch):
    kb, path, report, items = snap
    monkeypatch.setenv("KB_PATH", str(kb))
    for p in [path, *path.rglob("*")]:
        assert not os.stat(p).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), p
    before = _state(path)
    res = CliRunner().invoke(cli, ["query", "--snapshot", report.snapshot_id[:10], "mask drops the last column", "--json"])
    assert res.exit_code == 0, res.output
    s = Snapshot.open(report.snapshot_id)
    assert s.lexical_cache_ok
    s.retriever().query("softmax max subtraction overflow", k=5)
    CliRunner().invoke(cli, ["verify", "planted-eval"])
    CliRunner().invoke(cli, ["audit", str(path)])
    assert _state(path) == before


def test_snapshot_query_sees_only_included_entries(snap, monkeypatch):
    kb, path, report, items = snap
    monkeypatch.setenv("KB_PATH", str(kb))
    late = items["temporal:50"]
    title = late.record.diagnosis.title + " " + late.record.diagnosis.root_cause
    live = json.loads(CliRunner().invoke(cli, ["query", title, "-k", "3", "--json"]).output)
    assert live["hits"][0]["id"] == late.entry_id  # the live KB finds it first
    frozen = json.loads(CliRunner().invoke(cli, ["query", "--snapshot", report.snapshot_id, title, "-k", "100", "--json"]).output)
    excluded = {e.id for e in read_manifest(path).excluded}
    got = {h["id"] for h in frozen["hits"]}
    assert got and got.isdisjoint(excluded) and late.entry_id not in got
    assert got <= set(read_manifest(path).identity.entries)


def test_verify_passes_on_a_fresh_snapshot(snap):
    _, path, report, _ = snap
    r = verify_snapshot(path)
    assert r.ok, r.problems
    assert r.entries == report.counts["included"] and r.id == report.snapshot_id


def _reseal(d: Path, edit) -> None:
    """Edit the manifest as an attacker would: change it, then recompute the seal."""
    m = json.loads((d / "manifest.json").read_text())
    edit(m)
    m.pop("seal")
    m["seal"] = content_hash(m)
    (d / "manifest.json").write_text(json.dumps(m))


def _flip_byte(p: Path, at: int = -10) -> None:
    data = bytearray(p.read_bytes())
    data[at] ^= 0x01
    p.write_bytes(bytes(data))


def _drop_exclusion(m):
    m["excluded"].pop()
    m["counts"]["excluded"] -= 1


def _rewrite_entry(d: Path) -> None:
    lines = (d / "entries.jsonl").read_text().splitlines()
    row = json.loads(lines[0])
    assert '"title":"' in row["canonical_json"]
    row["canonical_json"] = row["canonical_json"].replace('"title":"', '"title":"Tampered ', 1)
    lines[0] = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    (d / "entries.jsonl").write_text("\n".join(lines) + "\n")
    digest = hashlib.sha256((d / "entries.jsonl").read_bytes()).hexdigest()

    def edit(m):
        m["identity"]["data"]["entries.jsonl"] = digest
    _reseal(d, edit)


TAMPERS = {
    "entries-byte": (lambda d: _flip_byte(d / "entries.jsonl"), "data"),
    "vectors-byte": (lambda d: _flip_byte(d / "vectors.npy"), "data"),
    "manifest-unsealed-edit": (lambda d: (d / "manifest.json").write_text(
        (d / "manifest.json").read_text().replace('"planted-eval"', '"renamed"')), "manifest"),
    "exclusion-dropped-and-resealed": (lambda d: _reseal(d, _drop_exclusion), "exclusions"),
    "threshold-changed-and-resealed": (lambda d: _reseal(d, lambda m: m["identity"]["rules"]["overlap"]["config"].update(
        threshold=0.99)), "id"),
    "entry-rewritten-digest-updated": (_rewrite_entry, "entries"),
    "lexical-cache-byte": (lambda d: _flip_byte(next((d / "lexical").glob("*.npy"))), "cache"),
    "stray-file": (lambda d: (d / "extra.jsonl").write_text("{}\n"), "files"),
}


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_a_tampered_snapshot_fails_verify(snap, tmp_path, tamper, monkeypatch):
    kb, path, report, _ = snap
    copy = tmp_path / "snapshots" / path.name
    shutil.copytree(path, copy)
    for p in [copy, *copy.rglob("*")]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    assert verify_snapshot(copy).ok
    change, check = TAMPERS[tamper]
    change(copy)
    r = verify_snapshot(copy)
    assert not r.ok and check in {p["check"] for p in r.problems}, r.problems
    res = CliRunner().invoke(cli, ["verify", str(copy)])
    assert res.exit_code == 1 and "FAIL" in res.output
    if check == "cache":  # a damaged cache is ignored on open (rebuilt in memory), answers unchanged
        monkeypatch.setenv("KB_PATH", str(kb))
        damaged, good = Snapshot.open(copy), Snapshot.open(path)
        assert not damaged.lexical_cache_ok
        q = "accumulator float16 precision drift"
        assert [h.id for h in damaged.retriever().query(q)] == [h.id for h in good.retriever().query(q)]
    elif check != "files":
        with pytest.raises(Exception) as e:
            Snapshot.open(copy)
        assert getattr(e.value, "exit_code", None) == 1


def test_snapshots_lists_and_resolves_by_name(snap):
    kb, path, report, _ = snap
    found = list_snapshots(kb)
    mine = [s for s in found if s["id"] == report.snapshot_id]
    assert mine and mine[0]["name"] == "planted-eval" and mine[0]["excluded"] == report.counts["excluded"]
    assert mine[0]["cohort"] == "planted" and mine[0]["kb_version"] == 2
    res = CliRunner().invoke(cli, ["snapshots", "--kb", str(kb)])
    assert res.exit_code == 0 and report.snapshot_id[:16] in res.output
    assert _main(["verify", "ffffff0000", "--kb", str(kb)]) == 2
    chroma = CliRunner().invoke(cli, ["query", "--snapshot", "planted-eval", "x", "--index", "chroma", "--kb", str(kb)])
    assert chroma.exit_code == 2


def test_audit_reports_exclusions_scores_and_timeline(snap, tmp_path):
    kb, path, report, items = snap
    md, html = tmp_path / "a.md", tmp_path / "a.html"
    res = CliRunner().invoke(cli, ["audit", report.snapshot_id[:12], "--kb", str(kb), "--md", str(md), "--html", str(html)])
    assert res.exit_code == 0, res.output
    text = md.read_text()
    m = read_manifest(path)
    for e in m.excluded:
        assert e.id[:12] in text
    for needle in ("## Exclusion rules", "## Overlap score distribution", "<- threshold", "## Ingestion timeline",
                   m.cohort["frozen_at"], "containment", "softmax/correct.py", "problem_sha256 of run"):
        assert needle in text, needle
    assert "| after |" in text and "| before / at |" in text
    page = html.read_text()

    class Strict(HTMLParser):
        refs: list = []

        def handle_starttag(self, tag, attrs):
            self.refs += [v for k, v in attrs if k in ("src", "href")]
    parser = Strict()
    parser.feed(page)
    assert not parser.refs and page.count("<svg") == 3 and all(e.id[:12] in page for e in m.excluded)


def test_eval_mode_guard_uses_the_snapshot_cohort(snap, monkeypatch, tmp_path):
    from repair.loop.retrieve import LeakageRefused, SnapshotRetriever, open_retriever

    kb, path, report, _ = snap
    monkeypatch.setenv("KB_PATH", str(kb))
    r = open_retriever(snapshot=report.snapshot_id[:8], eval_mode=True, operator_id="softmax")
    assert isinstance(r, SnapshotRetriever) and r.source.snapshot_id == report.snapshot_id and r.source.kb_version == 2
    with pytest.raises(LeakageRefused, match="'matmul' is not in the snapshot's excluded cohort"):
        open_retriever(snapshot="planted-eval", eval_mode=True, operator_id="matmul")
    assert open_retriever(snapshot=str(path), operator_id="matmul").source.snapshot_id == report.snapshot_id
    with pytest.raises(LookupError, match="no snapshot") as e:
        open_retriever(snapshot="nope-not-a-snapshot")
    assert e.value.exit_code == 2
    # with --kb too, the snapshot is looked up in that KB
    assert open_retriever(kb, snapshot="planted-eval").source.snapshot_id == report.snapshot_id

    from repair.cli import cli as repair_cli

    problem = fc.ROOT / "examples" / "matmul" / "problem.py"
    cand = fc.ROOT / "examples" / "matmul" / "nearmiss_1.py"
    res = CliRunner().invoke(repair_cli, ["run", str(problem), str(cand), "--snapshot", report.snapshot_id, "--eval-mode",
                                          "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and "not in the snapshot's excluded cohort" in res.output
    assert not (tmp_path / "out").exists()


def test_bm25_cache_from_the_forked_builder_equals_an_index_of_the_kept_rows(tmp_path, monkeypatch):
    import numpy as np

    from ingest.entry import lexical_text, pattern_from_record
    from ingest.synthetic import make_record
    from kbstore import snapshot_lexical as SL
    from kbstore.lexical import LexicalIndex

    docs = [lexical_text(pattern_from_record(make_record(i))) for i in range(40)] + ["", "only-in-excluded zzyzx"]
    keep = [i for i in range(len(docs)) if i % 3 != 1 and i != len(docs) - 1]
    monkeypatch.setattr(SL, "FORK_MIN", 0)
    forked = SL.LexicalBuilder(docs, workers=2)
    assert forked.forked
    forked.build(keep, tmp_path / "forked")
    SL.LexicalBuilder(docs, workers=1).build(keep, tmp_path / "inline")
    digest = {d: {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (tmp_path / d).iterdir()}
              for d in ("forked", "inline")}
    assert digest["forked"] == digest["inline"] and len(digest["inline"]) == 5
    cached, fresh = LexicalIndex.load(tmp_path / "forked", len(keep)), LexicalIndex([docs[i] for i in keep])
    for q in ("mask drops the last column", "tl.exp overflow", "zzyzx"):
        assert np.allclose(cached.scores(q), fresh.scores(q))
    assert "zzyzx" not in (tmp_path / "forked" / "vocab.index.json").read_text()  # nothing of an excluded entry


def test_a_snapshot_that_excludes_everything_verifies_and_answers_nothing(tmp_path_factory, monkeypatch):
    # a cohort frozen before every entry was ingested: the temporal rule empties the snapshot (as in the demo)
    kb, manifest, _ = fc.build_copy(tmp_path_factory)
    text = manifest.read_text()
    manifest.write_text(text[: text.index("frozen_at")] + 'frozen_at: "2000-01-01T00:00:00Z"' + text[text.index("\noperators"):])
    report = freeze(manifest, kb, name="empty", allow_outside=True)
    monkeypatch.setenv("KB_PATH", str(kb))
    assert verify_snapshot(report.snapshot_id).ok, verify_snapshot(report.snapshot_id).problems
    s = Snapshot.open(report.snapshot_id)
    assert len(s.rows) == 0 and s.lexical_cache_ok
