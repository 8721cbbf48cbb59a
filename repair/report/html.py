"""The report as one self-contained HTML page: inline CSS and SVG, no scripts, no network assets."""
from __future__ import annotations

import os
from html import escape
from pathlib import Path

from provenance.version import tool_version
from repair.report import svg
from repair.report.build import Report, outcome_rows
from repair.report.markdown import (CAMPAIGN_HEAD, COST_HEAD, INTEGRITY_NOTE, NOTES, OUTCOME_NOTE, REPRO_HEAD,
                                    SEEDS_NOTE, TASK_WORDS, backend_text, campaign_row, cost_row, generation_note,
                                    pairing_lines, repro_rows, run_marks, token_lines, tool_line)
from repair.report.pairing import Comparison
from repair.report.speed import SPEED_HEAD, SPEED_NOTE, speed_row

# Every table and figure scrolls inside its own box, so the page itself never runs off the right edge.
CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#212121;margin:2em auto;max-width:1200px;padding:0 1em;overflow-wrap:break-word}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #e0e0e0;padding-bottom:.2em}
.box{overflow-x:auto;max-width:100%;margin:.6em 0}
table{border-collapse:collapse}th,td{border:1px solid #e0e0e0;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#fafafa;font-weight:600;min-width:4.5em}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td .runs{color:#616161;font-size:.9em}
td.only-a{background:#ffe0b2}td.only-b{background:#b2ebf2}
.muted{fill:#757575;color:#757575;font-size:12px}.lab{font-size:12px}.val{font-size:12px}.head{font-size:12px;font-weight:600}
.tiny{font-size:10px;fill:#757575}.badge{font-size:11px;fill:#fff;font-weight:600}
figure{margin:1em 0;overflow-x:auto;max-width:100%}figure svg{display:block}figcaption{color:#616161;font-size:.9em;max-width:80em}
p.note{color:#424242;max-width:80em}
""".strip()


def render_html(report: Report, base: Path | None = None) -> str:
    """The page; `base` is the directory it is written to, so the links to each run's files resolve from there."""
    cs = report.campaigns
    body = [
        "<h1>Campaign report</h1>",
        f'<p class="muted">{len(cs)} campaign(s); nearmiss-repair {escape(tool_version())}.</p>',
        "<p>Ran on:</p><ul>" + "".join(f"<li><b>{escape(c.name)}</b>: backend {escape(backend_text(c))}</li>"
                                      for c in cs) + "</ul>",
        "<h2>Reproducibility</h2>", f'<p class="note">Report made by {escape(tool_line())}.</p>',
        _table(REPRO_HEAD, [[(cell, False) for cell in row] for row in repro_rows(report)]),
        f'<p class="note">{escape(SEEDS_NOTE)}</p>',
        "<h2>Campaigns</h2>", _table(CAMPAIGN_HEAD, [_cells(campaign_row(c), 4, 8) for c in cs]),
        f'<p class="note">{escape(NOTES[0])}</p>',
        "<h2>Cost and gates</h2>", _table(COST_HEAD, [_cells(cost_row(c), 1, len(COST_HEAD)) for c in cs]),
        *(f'<p class="note">{escape(n)}</p>' for n in NOTES[1:]),
        *(["<ul>" + "".join(f"<li><b>{escape(c.name)}</b>: {escape(n)}</li>" for c in cs if (n := generation_note(c)))
           + "</ul>"] if any(generation_note(c) for c in cs) else []),
        "<h2>Speed</h2>", _table(SPEED_HEAD, [_cells(speed_row(c), 1, len(SPEED_HEAD)) for c in cs]),
        f'<p class="note">{escape(SPEED_NOTE)}</p>',
        "<h2>Pass rate</h2>",
        _figure(svg.pass_rate_plot(cs), "Tasks recovered (one outcome per task, the rule the paired test uses), Pass@1 "
                "over every run, and Pass@K of regenerations; whiskers: Wilson 95% interval."),
        "<h2>Tokens per success</h2>",
        _figure(svg.tokens_plot(cs), "Per campaign: tokens per success of its own runs (a debug campaign's repairs "
                "alone), including what generating its near-misses cost where the cohort manifest gave it, and "
                "uncached tokens. A regeneration's tokens are all generation."),
        "<h2>Cost against tasks recovered</h2>",
        _figure(svg.cost_curve(cs), "Tasks in name order; each step adds the tokens a task took (debug: the repair "
                "of its deciding near-miss; regeneration: its trials up to the first that passed, all K when none "
                "did) and rises when the task was recovered. Dashed: with generating the near-miss added."),
    ]
    for cmp in report.comparisons:
        body += [f"<h2>{escape(cmp.a)} vs {escape(cmp.b)}</h2>", comparison_block(cmp)]
    for name in report.unpaired:
        body.append(f"<p><em>{escape(name)} shares no task with {escape(cs[0].name)}: no paired test.</em></p>")
    body += ["<h2>Outcomes per operator</h2>",
             _figure(svg.outcome_grid(report), "One square per run; hover for its key. Right: the tasks only one "
                     "campaign recovered."),
             outcome_table(report),
             "<h2>Integrity per run</h2>",
             _table(["campaign", "policy", "run", "level", "rules"],
                    [[(x, False) for x in (c.name, c.policy, u.key, u.integrity, ", ".join(u.integrity_rules))]
                     for c in cs for u in c.units if u.integrity not in (None, "clean")]),
             f'<p class="note">{escape(INTEGRITY_NOTE)}</p>',
             "<h2>Runs</h2>", runs_block(report, base)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>Campaign report</title><style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def runs_block(report: Report, base: Path | None) -> str:
    """Every run with links to what it left: its diff, trajectory, record and final kernel (collapsed)."""
    def link(path: str) -> str:
        return os.path.relpath(path, base) if base is not None else path

    rows = [[(escape(c.name), False), (escape(u.key), False), (escape(u.status), False),
             (escape(u.integrity or "–"), False),
             (" · ".join(f'<a href="{escape(link(p))}">{escape(kind)}</a>' for kind, p in u.files.items()) or "–",
              False)]
            for c in report.campaigns for u in c.units]
    table = _table(["campaign", "run", "status", "integrity", "files"], rows, raw=True)
    return (f"<details><summary>{len(rows)} run(s): each run's diff, trajectory, record and final kernel</summary>"
            f"{table}</details>")


def _cells(row: list[str], first: int, last: int) -> list[tuple[str, bool]]:
    """A row's cells, those from `first` to before `last` right-aligned as numbers."""
    return [(cell, first <= i < last) for i, cell in enumerate(row)]


def comparison_block(cmp: Comparison) -> str:
    a, b = escape(cmp.a), escape(cmp.b)
    intro, rules, verdict, note = pairing_lines(cmp)
    table = _table(["", f"{cmp.b} recovered", f"{cmp.b} not"], [
        [(f"<b>{a} recovered</b>", False), (f"{cmp.both} (both)", True), (f"{cmp.only_a} (only {a})", "n only-a")],
        [(f"<b>{a} not</b>", False), (f"{cmp.only_b} (only {b})", "n only-b"), (f"{cmp.neither} (neither)", True)],
    ], raw=True)
    return (f"<p>{escape(intro)}</p><ul>{''.join(f'<li>{escape(r)}</li>' for r in rules)}</ul>{table}"
            f"<p><b>{escape(verdict)}</b></p><p class=\"note\">{escape(note)}</p>"
            + "".join(f"<p>{escape(line)}</p>" for line in token_lines(cmp)))


def outcome_table(report: Report) -> str:
    rows = []
    for row in outcome_rows(report):
        cells = [(escape(row.operator), False)]
        for cell in row.cells:
            runs = " ".join(f"<b>{escape(m)}</b>" if decides else escape(m) for m, decides in run_marks(cell))
            cells.append(("–" if cell.task is None else f'{TASK_WORDS[cell.task.recovered]} <span class="runs">{runs}</span>',
                          False))
        for cmp, who in zip(report.comparisons, row.only):
            cells.append((escape(f"only {who}" if who else "–"), False if who is None else
                          "only-a" if who == cmp.a else "only-b"))
        rows.append(cells)
    head = ["operator", *(c.name for c in report.campaigns), *(f"{x.a} vs {x.b}" for x in report.comparisons)]
    note = OUTCOME_NOTE.replace("in brackets", "bold")
    return _table(head, rows, raw=True) + f'<p class="note">{escape(note)}</p>'


def _table(head: list[str], rows: list[list[tuple[str, bool | str]]], raw: bool = False) -> str:
    """A table in its own scrolling box; a cell's flag is True (a number), a class name, or False."""
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = []
    for row in rows:
        tds = "".join(f'<td{_cls(flag)}>{text if raw else escape(text)}</td>' for text, flag in row)
        trs.append(f"<tr>{tds}</tr>")
    return f'<div class="box"><table><thead><tr>{th}</tr></thead><tbody>{"".join(trs)}</tbody></table></div>'


def _cls(flag: bool | str) -> str:
    if flag is True:
        return " class=n"
    return f' class="{flag}"' if flag else ""


def _figure(svg_text: str, caption: str) -> str:
    return f"<figure>{svg_text}<figcaption>{escape(caption)}</figcaption></figure>"
