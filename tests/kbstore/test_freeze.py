"""`kb freeze --exclude-cohort`: each rule excludes exactly the planted entries, with evidence; ids are content hashes."""
import json
from pathlib import Path

import pytest

import freeze_corpus as fc
from kbstore.errors import BadInput, NotFound
from kbstore.freeze import freeze
from kbstore.snapshot import read_manifest
from provenance.canonical import content_hash
from provenance.overlap_rules import OverlapConfig


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """The planted KB (about 80 entries, two ingests around frozen_at) and its cohort manifest; built once."""
    kb, manifest, items = fc.build_copy(tmp_path_factory)
    return kb, manifest, items


@pytest.fixture(scope="module")
def frozen(planted):
    kb, manifest, items = planted
    report = freeze(manifest, kb, allow_outside=True)
    return report, read_manifest(Path(report.path)), items


def _excluded(m) -> dict[str, set[str]]:
    return {e.id: set(e.rules) for e in m.excluded}


# copies whose text is edited are found while enough of it survives (tests/provenance/test_overlap_detection.py)
EDITS = ("reorder", "small-edit", "disguise")


def _edits_text(name: str) -> bool:
    return name.startswith("copy:") and name.split(":")[2] in EDITS


def test_each_rule_excludes_exactly_the_planted_entries(frozen):
    report, m, items = frozen
    got = _excluded(m)
    wrong = [(p.name, sorted(p.expect), sorted(got.get(p.entry_id, ()))) for p in items if got.get(p.entry_id, set()) != p.expect]
    missed_edits = [w for w in wrong if _edits_text(w[0]) and w[1] == ["overlap"] and w[2] == []]
    assert [w for w in wrong if w not in missed_edits] == []
    assert len(missed_edits) <= sum(_edits_text(p.name) for p in items) // 9  # 1 of the 9
    kinds = {p.name.split(":")[0] for p in items if "overlap" in p.expect}
    assert kinds == {"copy", "port"}
    assert report.created and report.counts["excluded"] == len(got)
    assert report.counts["included"] + report.counts["excluded"] == report.counts["kb_entries"] == len({p.entry_id for p in items})
    assert set(m.identity.entries).isdisjoint(got)
    assert report.rules["family"] == {"enabled": False, "excluded": 0, "only": 0}


def test_no_independent_entry_is_excluded_by_overlap(frozen):
    _, m, items = frozen
    got = _excluded(m)
    negatives = [p for p in items if p.name.split(":")[0] in ("other-op", "independent", "synthetic")]
    assert len(negatives) > 40
    assert [p.name for p in negatives if "overlap" in got.get(p.entry_id, set())] == []
    # among them the same formula in another language: a C LayerNorm (Welford) against the cohort's Triton layernorm
    assert "independent:layernorm_welford.c" in {p.name for p in negatives}


def test_overlap_evidence_names_the_cohort_file_and_scores(frozen):
    _, m, items = frozen
    by_id = {e.id: e for e in m.excluded}
    threshold = m.identity.rules["overlap"]["config"]["threshold"]
    for p in items:
        if "overlap" not in p.expect or (_edits_text(p.name) and p.entry_id not in by_id):
            continue
        evidence = by_id[p.entry_id].evidence["overlap"]
        source = p.name.split(":")[1].split(".")[0].split("__")[0]
        assert any(ev["operator_id"] == source and ev["cohort_file"] == str(fc.kernel(source)) for ev in evidence), p.name
        for ev in evidence:
            assert ev["reason"] == ("tokens+ops" if ev["representation"] == "tokens" else "ops")
            assert ev["representation"] in ("tokens", "ops") and 0 < ev["dice"] <= 1
            assert ev["score"] >= threshold and (ev["representation"] == "ops" or ev["containment"] >= ev["score"])
            assert ev["aligned_ops"] > 0 or ev["aligned_weight"] == 0
            assert ev["run_entry_lines"] and ev["run_cohort_lines"] and ev["entry_part"].split(":")[0] in ("source", "repaired")
    ports = [by_id[p.entry_id].evidence["overlap"] for p in items if p.name.startswith("port:")]
    assert all(any(ev["representation"] == "ops" for ev in evs) for evs in ports)


def test_provenance_and_temporal_evidence(frozen):
    _, m, items = frozen
    by_id = {e.id: e for e in m.excluded}
    named = {p.name: p for p in items}
    op = by_id[named["provenance:operator"].entry_id].evidence["provenance"]
    assert op == [{"match": "operator_id", "operator_id": "sum_lastdim", "record_sha256": op[0]["record_sha256"],
                   "run_id": op[0]["run_id"]}]
    ph = by_id[named["provenance:problem-hash"].entry_id].evidence["provenance"]
    assert [(e["match"], e["cohort_operator"], e["cohort_file"].endswith("examples/sigmoid/problem.py")) for e in ph] == \
        [("problem_sha256", "sigmoid", True)]
    two = by_id[named["provenance:second-record/b"].entry_id].evidence["provenance"]
    assert [e["run_id"] for e in two] == ["run-b"]
    late = by_id[named["temporal:50"].entry_id].evidence["temporal"][0]
    assert late["after_s"] > 0 and late["frozen_at"] == m.cohort["frozen_at"] and late["first_version"] == 2
    assert named["temporal:late-evidence"].entry_id not in by_id  # first ingested before frozen_at


def test_snapshot_id_hashes_the_identity(frozen, planted):
    from provenance.cohort import load_manifest, manifest_hash
    from provenance.fingerprint import SCHEME
    from provenance.version import tool_version

    report, m, _ = frozen
    _, manifest, _ = planted
    assert report.snapshot_id == m.id == m.identity.snapshot_id() == content_hash(m.identity.model_dump(mode="json", by_alias=True))
    ident = m.identity
    assert ident.entries == sorted(ident.entries) and len(ident.entries) == report.counts["included"]
    assert ident.cohort_sha256 == manifest_hash(load_manifest(manifest, allow_outside=True))
    assert ident.rules["overlap"]["fingerprint_scheme"] == SCHEME and ident.rules["overlap"]["config"]["threshold"] == OverlapConfig().threshold
    assert ident.tool_version == tool_version() and ident.embedder_fingerprint == m.embedder["fingerprint"]
    assert m.kb_version == 2 and m.cohort["operators"][0]["files"][0]["sha256"]


def test_freezing_again_is_a_no_op_and_parameters_change_the_id(frozen, planted):
    report, _, items = frozen
    kb, manifest, _ = planted
    again = freeze(manifest, kb, name="other label", allow_outside=True)
    assert not again.created and again.snapshot_id == report.snapshot_id and again.name == report.name
    fam = freeze(manifest, kb, exclude_family=True, allow_outside=True)
    assert fam.snapshot_id != report.snapshot_id
    m = read_manifest(Path(fam.path))
    families = set(fc.COHORT.values())
    want = {p.entry_id for p in items if p.record.operator.family in families}
    assert {e.id for e in m.excluded if "family" in e.rules} == want and want
    strict = freeze(manifest, kb, overlap_threshold=1.0, allow_outside=True)
    assert strict.snapshot_id != report.snapshot_id
    assert read_manifest(Path(strict.path)).identity.rules["overlap"]["config"]["threshold"] == 1.0


def test_bad_input_is_named(tmp_path, planted):
    kb, manifest, _ = planted
    from provenance.errors import BadInput as ProvBadInput

    with pytest.raises(ProvBadInput, match="missing.yaml"):
        freeze(tmp_path / "missing.yaml", kb)
    broken = tmp_path / "broken.yaml"
    broken.write_text(manifest.read_text().replace(str(fc.kernel("softmax")), str(tmp_path / "gone.py")))
    with pytest.raises(ProvBadInput, match="gone.py"):
        freeze(broken, kb, allow_outside=True)
    with pytest.raises(BadInput, match="outside"):
        freeze(manifest, kb, overlap_threshold=1.5, allow_outside=True)
    with pytest.raises(NotFound, match="no knowledge base"):
        freeze(manifest, tmp_path / "nokb", allow_outside=True)


def test_cli_freeze_json(planted, capsys):
    from click.testing import CliRunner

    from kbstore.cli import cli, main

    kb, manifest, _ = planted
    res = CliRunner().invoke(cli, ["freeze", "--allow-outside", "--exclude-cohort", str(manifest), "--kb", str(kb), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["counts"]["excluded"] > 0 and out["rules"]["overlap"]["excluded"] > 0 and "overlap_scan_s" in out["timings"]
    with pytest.raises(SystemExit) as e:
        main(["freeze", "--allow-outside", "--exclude-cohort", str(manifest), "--kb", str(kb), "--overlap-threshold", "2"])
    assert e.value.code == 2 and "outside" in capsys.readouterr().err


def test_the_freeze_through_the_mapped_layout_is_the_freeze_over_every_row(frozen, planted, monkeypatch):
    """kb freeze reads the mapped layout (the overlap scan through the fingerprint postings and fpinfo, blobs read only
    for entries with a pair worth evidence); reading every row instead gives the same exclusions, scan details and
    snapshot id, and kb verify re-derives the snapshot either way."""
    from kbstore import freeze as freeze_module
    from kbstore import rederive
    from kbstore.snapshot_verify import verify_snapshot

    report, m, _ = frozen
    kb, manifest, _ = planted
    assert report.timings.get("layout_s") is not None  # it went through the layout
    with monkeypatch.context() as p:
        p.setattr(freeze_module, "_read_kb_mapped", lambda *a, **k: None)
        again = freeze_module.freeze(manifest, kb, allow_outside=True)
        rows = read_manifest(Path(again.path))
        assert verify_snapshot(report.path).ok
    assert _excluded(rows) == _excluded(m) and "overlap" in {r for e in m.excluded for r in e.rules}
    details = {r.rule: r.details for r in m.rules}["overlap"]
    assert {r.rule: r.details for r in rows.rules}["overlap"] == details and details["candidates"] > 0
    assert again.snapshot_id == report.snapshot_id and not again.created
    real, calls = rederive._mapped_at, []
    with monkeypatch.context() as p:
        p.setattr(rederive, "_mapped_at", lambda *a: calls.append(real(*a)) or calls[-1])
        assert verify_snapshot(report.path).ok and calls[0] is not None  # re-derived through the layout
