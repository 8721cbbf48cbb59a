"""`kb audit` shows each overlap exclusion and each near miss side by side (entry lines next to cohort lines, the
shared lines and the longest run highlighted), says so when a cohort file has changed, escapes everything, and
renders in a real headless browser; `kb overlap` gives the freeze's own verdict for a file not yet ingested."""
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import LAYOUT, Browser, needs_chromium
from freeze_corpus import bugged
from ingest.synthetic import make_record, write_record
from kbstore.audit import audit
from kbstore.cli import cli
from kbstore.freeze import freeze
from kbstore.snapshot import read_manifest
from provenance.overlap_rules import OverlapConfig

ROOT = Path(__file__).resolve().parents[2]
COPIED = "    num = tl.exp(x)"  # a line of the cohort kernel that the copy carries over verbatim
HOSTILE = '    # </td></tr></table><script>alert("x")</script> & <mark class="run">forged</mark>'


def _cohort_kernel() -> str:
    """examples/softmax/correct.py with a comment (tokens ignore it) that must reach the page escaped."""
    lines = (ROOT / "examples" / "softmax" / "correct.py").read_text().split("\n")
    at = lines.index(COPIED)
    return "\n".join(lines[:at] + [HOSTILE] + lines[at:])


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """A three-entry KB: a pasted copy of a cohort kernel, an independent near miss, a synthetic entry; frozen."""
    from ingest.api import ingest
    from kbstore.embed import HashEmbedder

    root = tmp_path_factory.mktemp("audit")
    cohort = root / "cohort"
    cohort.mkdir()
    (cohort / "softmax.py").write_text(_cohort_kernel())
    shutil.copy(ROOT / "examples" / "log_softmax" / "correct.py", cohort / "log_softmax.py")
    manifest = cohort / "cohort.yaml"
    manifest.write_text('cohort: audit-test\nfrozen_at: "2099-01-01T00:00:00Z"\noperators:\n'
                        "  - id: softmax\n    family: softmax\n    files: [softmax.py]\n"
                        "  - id: log_softmax\n    family: softmax\n    files: [log_softmax.py]\n")
    host = (ROOT / "tests" / "provenance" / "data" / "independent" / "cumsum.py").read_text()
    copy = host + "\n\n" + _cohort_kernel()
    near = (ROOT / "tests" / "provenance" / "data" / "independent" / "softmax_online.py").read_text()
    records = {"copy": make_record(3001, source=bugged(copy), repaired=copy, family="misc"),
               "near": make_record(3002, source=bugged(near), repaired=near, family="misc"),
               "other": make_record(1)}
    paths = {k: write_record(r, root / "records" / f"{k}.json") for k, r in records.items()}
    kb = root / "kb"
    report = ingest([root / "records"], kb, embedder=HashEmbedder())
    ids = {k: next(o.entry_id for o in report.outcomes if o.path == str(p)) for k, p in paths.items()}
    snap = freeze(manifest, kb, name="audit-test")
    return {"kb": kb, "manifest": manifest, "cohort": cohort, "snap": snap, "ids": ids, "paths": paths, "copy": copy,
            "root": root}


def _row(entry_no: int, cohort_no: int, text: str, mark: str = "»") -> str:
    """The text rendering's row with the same line on both sides (Fragment.text, width 60)."""
    return f"{entry_no:>5} {mark} {text:<60} | {cohort_no:>5} {mark} {text}"


def _line_of(code: str, line: str) -> int:
    return code.split("\n").index(line) + 1


def test_markdown_shows_each_exclusion_side_by_side(audited):
    a = audited
    report = audit(a["snap"].snapshot_id, a["kb"])
    m = read_manifest(Path(a["snap"].path))
    assert [e.id for e in m.excluded] == [a["ids"]["copy"]] and m.excluded[0].rules == ["overlap"]
    md = report.markdown()
    assert "## Matched fragments of the overlap exclusions" in md and f"### {a['ids']['copy'][:12]}" in md
    # the copied line sits on one row, entry side and cohort side, marked as the longest run on both
    row = _row(_line_of(a["copy"], COPIED), _line_of(_cohort_kernel(), COPIED), COPIED)
    assert row in md
    frag = report.fragments[next(k for k in report.fragments if k[0] == a["ids"]["copy"] and k[1].startswith("repaired"))]
    assert [c.text for c in frag.marked("entry")] == [c.text for c in frag.marked("cohort")]
    assert COPIED in [c.text for c in frag.marked("entry")]
    ev = next(x for x in m.excluded[0].evidence["overlap"] if x["entry_part"].startswith("repaired"))
    run_e, run_c = ev["run_entry_lines"], ev["run_cohort_lines"]
    assert [c.line for c in frag.marked("entry")] == list(range(run_e[0], run_e[1] + 1))
    assert [c.line for c in frag.marked("cohort")] == list(range(run_c[0], run_c[1] + 1))


def test_near_misses_are_shown_side_by_side(audited):
    a = audited
    report = audit(a["snap"].snapshot_id, a["kb"])
    near = report.overlap()["near_misses"]
    assert near and near[0]["entry_id"] == a["ids"]["near"] and near[0]["cohort_file"] == "log_softmax.py"
    md = report.markdown()
    assert "## Near misses side by side" in md and f"### {a['ids']['near'][:12]} (not excluded by overlap)" in md
    frag = report.fragments[(a["ids"]["near"], near[0]["entry_part"], "log_softmax.py", near[0]["cohort_unit"],
                             near[0]["representation"])]
    assert frag.entry_shown and frag.cohort_shown and frag.marked("entry") and frag.marked("cohort")


def test_a_changed_or_missing_cohort_file_is_named_not_shown(audited):
    a = audited
    target = a["cohort"] / "softmax.py"
    original = target.read_text()
    try:
        target.write_text(original + "\n# edited after the freeze\n")
        md = audit(a["snap"].snapshot_id, a["kb"]).markdown()
        assert "has changed since the freeze" in md and "the snapshot recorded" in md
        assert _row(_line_of(a["copy"], COPIED), _line_of(original, COPIED), COPIED) not in md
        target.unlink()
        report = audit(a["snap"].snapshot_id, a["kb"])
        assert "is no longer at" in report.markdown()
        frag = next(f for k, f in report.fragments.items() if k[0] == a["ids"]["copy"])
        assert frag.entry_shown and not frag.cohort_shown and not frag.marked("cohort")
        assert "is no longer at" in report.html()
    finally:
        target.write_text(original)


def test_html_is_self_contained_and_escaped(audited, tmp_path):
    a = audited
    out = tmp_path / "audit.html"
    res = CliRunner().invoke(cli, ["audit", a["snap"].snapshot_id[:12], "--kb", str(a["kb"]), "--html", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "<script" not in page and "&lt;script&gt;" in page and "forged</mark>" not in page
    refs = []

    class Refs(HTMLParser):
        def handle_starttag(self, tag, attrs):
            refs.extend(v for k, v in attrs if k in ("src", "href"))
    Refs().feed(page)
    assert refs == [] and page.count('<table class="sbs">') >= 2


# Each highlight's text, computed background, box and side (entry or cohort), read in the laid-out page.
MARKS = """[...document.querySelectorAll('table.sbs mark')].map(m => {
  const r = m.getBoundingClientRect(), td = m.closest('td');
  return {text: m.textContent, class: m.className, bg: getComputedStyle(m).backgroundColor,
          box: [r.left, r.top, r.width, r.height].map(Math.round),
          side: td.classList.contains('entry') ? 'entry' : td.classList.contains('cohort') ? 'cohort' : ''};
})"""


@needs_chromium
def test_audit_page_renders_the_copied_line_highlighted_on_both_sides_in_chromium(audited, tmp_path):
    """One headless Chromium launch, 1280 px wide: the page never runs off the right edge, its charts are drawn, a
    screenshot lands in tmp_path, and the copied line is laid out, highlighted as the run, on the entry side and the
    cohort side of one row."""
    a = audited
    page = audit(a["snap"].snapshot_id, a["kb"]).html()
    assert "<script" not in page
    path = tmp_path / "audit.html"
    path.write_text(page, encoding="utf-8")
    with Browser(tmp_path) as browser:
        browser.open(path.as_uri(), width=390)  # a phone: the body does not overflow, the evidence is collapsed
        phone = browser.evaluate(LAYOUT)
        collapsed = browser.evaluate("[...document.querySelectorAll('details')].filter(d => !d.open).length")
        browser.screenshot(tmp_path / "audit-390.png")
        browser.open(path.as_uri(), width=1280)
        short = browser.evaluate("document.documentElement.scrollHeight")
        browser.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")  # a reviewer opens all
        tall = browser.evaluate("document.documentElement.scrollHeight")
        layout = browser.evaluate(LAYOUT)
        marks = browser.evaluate(MARKS)
        tables = browser.evaluate("document.querySelectorAll('table.sbs').length")
        browser.screenshot(tmp_path / "audit.png")
    assert phone["scroll_width"] <= phone["viewport"] == 390, phone
    assert short < 0.8 * tall, (short, tall)  # collapsed evidence: a shorter page (here 2,848 px against 4,066)
    assert collapsed > 0 and "excluded (" in page and "by this rule alone)</h3>" in page  # grouped by rule
    assert layout["scroll_width"] <= layout["viewport"] == 1280, layout  # no horizontal overflow of the page
    assert layout["svgs"] and all(s["width"] > 0 and s["height"] > 0 and s["right"] <= 1280 for s in layout["svgs"])
    assert tables >= 2 and (tmp_path / "audit.png").stat().st_size > 0
    copied = [m for m in marks if m["text"] == COPIED and m["class"] == "run"]
    assert {m["side"] for m in copied} == {"entry", "cohort"}, copied
    for m in copied:
        assert m["box"][2] > 0 and m["box"][3] > 0, m  # laid out, visible
        assert m["bg"] not in ("rgba(0, 0, 0, 0)", "transparent"), m  # highlighted
    shared = {m["bg"] for m in marks if m["class"] == "shared"}
    run = {m["bg"] for m in marks if m["class"] == "run"}
    assert len(run) == 1 and run.isdisjoint(shared)  # the longest run is marked distinctly
    entry = next(m for m in copied if m["side"] == "entry")
    cohort = next(m for m in copied if m["side"] == "cohort" and m["box"][1] == entry["box"][1])
    assert entry["box"][0] < cohort["box"][0]  # side by side, on one row


def test_kb_overlap_gives_the_freezes_verdict_and_scores(audited, capsys):
    """The record's code through `kb overlap` scores exactly as the freeze scored the ingested entry."""
    a = audited
    m = read_manifest(Path(a["snap"].path))
    near_misses = next(r for r in m.rules if r.rule == "overlap").details["near_misses"]
    for name, code in (("copy", 1), ("near", 0), ("other", 0)):
        assert _kb(["overlap", str(a["paths"][name]), "--cohort", str(a["manifest"]), "--json"]) == code, name
        got = json.loads(capsys.readouterr().out)
        assert got["excluded"] is bool(code)
        if name == "copy":  # the evidence of the exclusion: its flagged pairs
            recorded = [p["match"] for p in got["pairs"] if p["fires"]]
            frozen = m.excluded[0].evidence["overlap"]
        else:  # the near misses: pairs at or above the report floor
            recorded = [p["match"] for p in got["pairs"] if p["recorded_by_freeze"]]
            frozen = [n for n in near_misses if n["entry_id"] == a["ids"][name]]
        assert bool(frozen) is (name != "other")
        # the freeze names a part "role:record"; kb overlap, which has no record id yet, "role"
        same = [{**{k: v for k, v in d.items() if k not in ("entry_id", "flagged")}, "entry_part": d["entry_part"].split(":")[0]}
                for d in frozen]
        mine = [{k: v for k, v in d.items() if k != "flagged"} for d in recorded]
        assert sorted(map(json.dumps, mine)) == sorted(map(json.dumps, same)), name
    assert _kb(["overlap", str(a["paths"]["copy"]), "--cohort", str(a["manifest"])]) == 1
    out = capsys.readouterr().out
    text = " ".join(out.split())  # lines fold at 100 columns (issue 37)
    assert "EXCLUDED: the overlap rule fires" in text and "FIRES: T " in text and "-> score" in text and COPIED in out
    assert all(len(ln) <= 100 for ln in out.splitlines()[:12]), out  # the verdict, the rule and the score table
    assert _kb(["overlap", str(a["paths"]["near"]), "--cohort", str(a["manifest"])]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "not excluded" in text and f"under {OverlapConfig().threshold}" in text


def _kb(args: list[str]) -> int:
    """`kb ...` through main(), which maps typed errors to exit statuses."""
    from kbstore.cli import main

    try:
        main(args)
    except SystemExit as e:
        return e.code or 0
    return 0


def test_kb_overlap_bad_input_is_exit_2_with_one_line_naming_the_file(audited, tmp_path, capsys):
    a = audited
    (tmp_path / "notes.txt").write_text("x = 1\n")
    (tmp_path / "other.json").write_text('{"schema": "something/v1"}')
    (tmp_path / "broken.json").write_text('{"schema": ')
    (tmp_path / "latin1.py").write_bytes(b"x = '\xe9'\n")
    for bad in ("missing.py", "notes.txt", "other.json", "broken.json", "latin1.py"):
        assert _kb(["overlap", str(tmp_path / bad), "--cohort", str(a["manifest"])]) == 2, bad
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(tmp_path / bad) in err, (bad, err)
    assert _kb(["overlap", str(a["paths"]["copy"]), "--cohort", str(a["manifest"]), "--overlap-threshold", "1.5"]) == 2


def test_the_audit_finds_the_cohort_files_from_another_working_directory(audited, tmp_path, monkeypatch):
    """The freeze records the manifest's absolute path (given relative here); snapshots that recorded it as given
    are looked up from the working directory, then beside the KB."""
    from kbstore.audit_code import cohort_codes, cohort_dir

    a = audited
    monkeypatch.chdir(a["root"])
    snap = freeze(Path("cohort") / "cohort.yaml", Path("kb"), overlap_threshold=0.5)
    m = read_manifest(Path(snap.path))
    assert Path(m.cohort_source).is_absolute() and Path(m.cohort_source) == a["manifest"].resolve()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    codes = cohort_codes(m)
    assert set(codes) == {"softmax.py", "log_softmax.py"} and all(code and not why for code, why in codes.values())
    md = audit(snap.snapshot_id, a["kb"]).markdown()
    assert "not shown" not in md and _row(_line_of(a["copy"], COPIED), _line_of(_cohort_kernel(), COPIED), COPIED) in md
    old = m.model_copy(update={"cohort_source": "cohort/cohort.yaml", "kb_path": str(a["kb"])})
    assert cohort_dir(old) == a["cohort"]  # beside the KB (the working directory is elsewhere)
    monkeypatch.chdir(a["root"])
    assert cohort_dir(old) == a["cohort"].relative_to(a["root"]) or cohort_dir(old).resolve() == a["cohort"]


def test_the_rule_a_snapshot_was_frozen_with_is_read_from_its_recorded_config():
    from kbstore.audit import _rule_text

    now = _rule_text(OverlapConfig().model_dump(mode="json"))
    assert f"score >= {OverlapConfig().threshold}" in now and "max(0, A -" in now
    # a snapshot of the op-alignment rule before ops_null (fields this config no longer has)
    before = {"threshold": 0.47, "min_cover": 32, "tokens_alone": 0.65, "ops_full_weight": 6.0, "ops_discount": 0.85}
    assert "T*0.47/0.65" in _rule_text(before) and "0.85 * t * A" in _rule_text(before)
    assert "ops (cross-language): containment >= 0.9" in _rule_text({"threshold": 0.65, "ops_threshold": 0.9})
