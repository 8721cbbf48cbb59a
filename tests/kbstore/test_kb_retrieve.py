import json

import pytest
from click.testing import CliRunner

from ingest.api import ingest
from ingest.synthetic import BUG_CLASSES, kernel_pair, make_record, write_records
from kbstore.cli import cli
from kbstore.retrieve import Retriever
from repair.loop import make_eval_result, symptom_query

CLASSES = sorted(BUG_CLASSES)


@pytest.fixture
def kb(tmp_path, kb_env):
    records = [make_record(10 * v + n, bug_class=c) for n, c in enumerate(CLASSES) for v in range(3)]
    write_records(tmp_path / "recs", records)
    ingest([tmp_path / "recs"])
    return kb_env


@pytest.mark.parametrize("bug_class", CLASSES)
def test_symptom_of_a_failing_eval_retrieves_its_pattern(kb, tmp_path, bug_class):
    cand = tmp_path / "cand.py"
    cand.write_text(kernel_pair(99, bug_class)[0])  # an unseen variant of the same bug
    q = symptom_query(make_eval_result(bug_class, 99, candidate_path=str(cand)))
    hits = Retriever.open(kb).query(q.text, code=q.code, k=3)
    assert hits[0].bug_class == bug_class
    assert sum(h.bug_class == bug_class for h in hits) >= 2  # classes sharing a symptom may take third place


def test_text_query_and_hit_fields(kb):
    (hit,) = Retriever.open(kb).query("launch grid rounds down, last block never runs", k=1)
    assert hit.bug_class == "grid-floor-div"
    assert hit.provenance["evidence"] == 1 and hit.provenance["runs"][0].startswith("run-grid-floor-div")
    assert hit.provenance["models"] == ["scripted-v1"] and hit.provenance["first_version"] == 1
    assert "triton.cdiv" in hit.after and hit.dense_rank and hit.lexical_rank


def test_filters(kb):
    r = Retriever.open(kb)
    hits = r.query("mask", k=20, family="softmax")
    assert hits and {h.family for h in hits} == {"softmax"}
    assert r.query("mask", k=5, language="cuda") == []
    assert {h.backend for h in r.query("mask", k=20, backend="cpu")} == {"cpu"}


def test_warm_retriever_is_deterministic_and_matches_chroma_top_hit(kb):
    exact = Retriever.open(kb)
    first = [h.id for h in exact.query("row max poisoned by masked load without other", k=5)]
    assert first == [h.id for h in exact.query("row max poisoned by masked load without other", k=5)]
    chroma = Retriever.open(kb, index="chroma")
    assert chroma.query("row max poisoned by masked load without other", k=1)[0].id == first[0]


def test_empty_kb_query_is_a_clear_error(tmp_path):
    res = CliRunner().invoke(cli, ["query", "anything"])
    assert res.exit_code != 0 and "no knowledge base" in str(res.exception)


def test_cli_query_symptom_json(kb, tmp_path):
    cand = tmp_path / "cand.py"
    cand.write_text(kernel_pair(42, "unstable-softmax")[0])
    ev = tmp_path / "eval.json"
    ev.write_text(make_eval_result("unstable-softmax", 42, candidate_path="cand.py").to_json())  # relative to the eval file
    res = CliRunner().invoke(cli, ["query", "--symptom", str(ev), "-k", "2", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["hits"][0]["bug_class"] == "unstable-softmax"
    assert "inf-introduced" in out["query"]


def test_cli_query_needs_text_or_symptom(kb):
    res = CliRunner().invoke(cli, ["query"])
    assert res.exit_code == 2
