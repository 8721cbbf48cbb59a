from ingest.entry import embed_text, evidence_from_record, pattern_from_record, record_sha256
from ingest.synthetic import make_record
from provenance.canonical import sha256_text


def test_entry_id_is_the_sha256_of_the_canonical_pattern():
    p = pattern_from_record(make_record(4))
    assert p.id == sha256_text(p.canonical()) and '"schema":"kb.pattern/v1"' in p.canonical()


def test_what_varies_between_runs_does_not_change_the_entry():
    a = make_record(4, run_id="a", operator_id="one", model="m1", started_at="2026-03-01T00:00:00Z")
    b = make_record(4, run_id="b", operator_id="two", model="m2")
    b = b.model_copy(update={"diff": b.diff.replace("a/kernel.py", "a/other_name.py")})
    assert pattern_from_record(a).id == pattern_from_record(b).id
    assert record_sha256(a) != record_sha256(b)
    assert evidence_from_record(a, min_match=0.95).run_id == "a"


def test_what_the_pattern_says_does_change_the_entry():
    base = make_record(4)
    other_fix = base.model_copy(update={"diagnosis": base.diagnosis.model_copy(update={"fix": "something else"})})
    ruled = make_record(4, rules=[{"id": "r1", "pattern": "a", "rewrite": "b"}])
    ids = {pattern_from_record(r).id for r in (base, other_fix, ruled, make_record(4, backend="cuda"))}
    assert len(ids) == 4


def test_snippets_and_embed_text():
    p = pattern_from_record(make_record(0, bug_class="grid-floor-div"))
    assert "// 16" in p.before and "triton.cdiv" in p.after
    text = embed_text(p)
    assert len(text) <= 600 and "zero-output" in text and p.title in text
