"""Side-by-side fragments of an overlap match, and `provenance.explain` (what `kb overlap` prints) on a cohort of its own."""
from pathlib import Path

import pytest

from provenance.errors import BadInput
from provenance.explain import explain, read_subject
from provenance.fragments import fragment

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "provenance" / "data"


def _match(**kw) -> dict:
    base = {"entry_part": "repaired:abc", "cohort_file": "k.py", "cohort_unit": "", "entry_lines": [], "cohort_lines": [],
            "run_entry_lines": None, "run_cohort_lines": None}
    return {**base, **kw}


def test_sides_are_aligned_at_the_longest_run_and_marked():
    cohort = "\n".join(f"c{i}" for i in range(1, 11))
    entry = "\n".join(f"e{i}" for i in range(1, 21))
    m = _match(entry_lines=[[12, 16], [19, 19]], cohort_lines=[[3, 7]], run_entry_lines=[13, 16], run_cohort_lines=[4, 7])
    f = fragment(m, entry, cohort, context=1)
    assert [c.line for c in f.marked("entry")] == [13, 14, 15, 16] and [c.line for c in f.marked("cohort")] == [4, 5, 6, 7]
    assert [c.line for c in f.marked("entry", "shared")] == [12, 19]
    row = next(r for r in f.rows if r[0] and r[0].line == 13)
    assert row[1].line == 4  # the run starts on one row
    assert f.rows[0][0].line == 11 and f.rows[-1][0].line == 20  # one line of context around the shared spans
    text = "\n".join(f.text())
    assert "   13 » e13" in text and "|     4 » c4" in text


def test_a_missing_side_is_a_note_never_other_lines():
    m = _match(entry_lines=[[1, 2]], cohort_lines=[[30, 40]], run_entry_lines=[1, 2], run_cohort_lines=[30, 40])
    f = fragment(m, "a\nb\n", None, cohort_note="not shown: gone")
    assert f.entry_shown and not f.cohort_shown and f.cohort_note == "not shown: gone"
    assert all(b is None for _, b in f.rows)
    short = fragment(m, "a\nb\n", "only\nthree\nlines")  # the recorded lines are not in this code
    assert not short.cohort_shown and "not the code the match was computed from" in short.cohort_note


def test_long_windows_are_cut_around_the_run_and_text_is_display_safe():
    code = "\n".join(["x = 1"] * 200 + ["\x1b[31m\u202eevil\t!"])
    m = _match(entry_lines=[[1, 1], [150, 160], [201, 201]], cohort_lines=[[150, 160]], run_entry_lines=[150, 160],
               run_cohort_lines=[150, 160])
    f = fragment(m, code, code, max_lines=20)
    lines = [a.line for a, _ in f.rows if a]
    assert len(lines) == 20 and lines[0] == 148 and "lines 148-167 of 201 shown" in f.entry_note
    tail = fragment(_match(entry_lines=[[201, 201]], cohort_lines=[[201, 201]]), code, code)
    shown = tail.rows[-1][0].text
    assert "\x1b" not in shown and "\u202e" not in shown and "\t" not in shown and "evil" in shown


@pytest.fixture()
def cohort(tmp_path):
    (tmp_path / "softmax.py").write_text((ROOT / "examples" / "softmax" / "correct.py").read_text())
    (tmp_path / "notes.txt").write_text("not code\n")
    manifest = tmp_path / "cohort.yaml"
    manifest.write_text('cohort: c\nfrozen_at: "2099-01-01T00:00:00Z"\noperators:\n'
                        "  - id: softmax\n    family: softmax\n    files: [softmax.py, notes.txt]\n")
    return manifest


def test_a_port_fires_the_ops_rule_and_says_which(cohort):
    r = explain(DATA / "ports" / "softmax.c", cohort)
    assert r.excluded and r.subject.language == "cpp"
    fired = [p for p in r.pairs if p.fires]
    assert [p.representation for p in fired] == ["ops"] and "aligned" in fired[0].rule
    assert r.fragments and r.fragments[0].marked("entry") and r.fragments[0].marked("cohort")
    assert not r.notes  # frozen_at is in the future; no hash or operator of the cohort


def test_an_independent_file_says_how_far_it_is_from_firing(cohort, tmp_path):
    r = explain(DATA / "independent" / "softmax_rows2d.py", cohort)
    assert not r.excluded
    d = r.as_dict()
    assert d["fired"] == [] and {p["cohort_file"] for p in d["pairs"]} == {"softmax.py"}  # notes.txt is not code
    assert all(p["rule"] for p in d["pairs"])
    same = explain(ROOT / "examples" / "softmax" / "correct.py", cohort)
    assert same.excluded and any("provenance: the file sha256 is cohort file softmax.py's" in n for n in same.notes)
    looser = explain(DATA / "independent" / "softmax_rows2d.py", cohort, overlap_threshold=0.0)
    assert looser.config.threshold == 0.0


def test_read_subject_refuses_what_it_cannot_fingerprint(tmp_path):
    (tmp_path / "a.md").write_text("# hi\n")
    (tmp_path / "r.json").write_text('{"schema": "repair.record/v1", "source": {"code": "x"}, "repaired": {"code": "y"}, '
                                     '"language": "cobol"}')
    for name, why in (("a.md", "cannot tell the language"), ("r.json", "cannot fingerprint language"),
                      ("nope.py", "no such file")):
        with pytest.raises(BadInput, match=why) as e:
            read_subject(tmp_path / name)
        assert str(tmp_path / name) in str(e.value) and "\n" not in str(e.value)
