"""The report as one self-contained HTML page: inline CSS and SVG, no scripts, no network assets."""
from __future__ import annotations

from html import escape

from provenance.version import tool_version
from repair.report import svg
from repair.report.markdown import MARKS, frac, num, pct
from repair.report.metrics import CampaignMetrics, Comparison, Report

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#212121;margin:2em auto;max-width:1200px;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #e0e0e0;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #e0e0e0;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#fafafa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.muted{fill:#757575;color:#757575;font-size:12px}.lab{font-size:12px}.val{font-size:12px}.head{font-size:12px;font-weight:600}
figure{margin:1em 0}figcaption{color:#616161;font-size:.9em}
""".strip()


def render_html(report: Report) -> str:
    cs = report.campaigns
    body = [
        "<h1>Campaign report</h1>",
        f'<p class="muted">{len(cs)} campaign(s); nearmiss-repair {escape(tool_version())}. Pass rates with Wilson 95% '
        "intervals; tokens per success = all tokens of all runs / successes; gate rejections count the candidates "
        "the workflow alone (compact tier) would have accepted that the integrity gate or the full tier rejected.</p>",
        "<h2>Campaigns</h2>", campaign_table(cs),
        "<h2>Pass rate</h2>", _figure(svg.pass_rate_plot(cs), "Pass@1 (blue) and Pass@K of regenerations (orange); whiskers: Wilson 95% interval."),
        "<h2>Tokens per success</h2>", _figure(svg.tokens_plot(cs), "All tokens (blue) and uncached tokens (orange) per successful run."),
    ]
    for cmp in report.comparisons:
        body += [f"<h2>{escape(cmp.a)} vs {escape(cmp.b)}</h2>", comparison_block(cmp)]
    for name in report.unpaired:
        body.append(f"<p><em>{escape(name)} shares no run or operator with {escape(cs[0].name)}: no paired test.</em></p>")
    body += ["<h2>Outcomes per operator</h2>", _figure(svg.outcome_grid(cs), "One square per run; hover for its key."),
             outcome_table(cs)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>Campaign report</title><style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def campaign_table(cs: list[CampaignMetrics]) -> str:
    head = ["campaign", "kind", "worker", "ablations", "runs", "Pass@1 [95% CI]", "Pass@K [95% CI]", "tokens/success",
            "uncached/success", "mean attempts", "mean wall s", "integrity rejected", "full tier rejected", "either gate",
            "patterns cited/success", "how runs ended"]
    rows = []
    for c in cs:
        reasons = ", ".join(f"{k or 'unknown'}: {v}" for k, v in c.stop_reasons.items()) or "–"
        rows.append([
            (c.name, False), (c.kind, False), (c.worker + (f" ({c.model})" if c.model else ""), False),
            (", ".join(c.ablations) or "–", False), (f"{c.finished}/{c.runs}", True), (pct(c.pass_at_1), True),
            ((f"K={c.trials}: " + pct(c.pass_at_k)) if c.pass_at_k else "–", True),
            (num(c.tokens_per_success), True), (num(c.uncached_tokens_per_success), True),
            (num(c.mean_attempts, 2), True), (num(c.mean_wall_s, 1), True), (frac(c.integrity_rejection), True),
            (frac(c.full_tier_rejection) + (" (shadow)" if c.full_tier_shadow else ""), True),
            (frac(c.gate_rejection), True),
            (num(c.patterns_cited_per_success, 2), True), (reasons, False),
        ])
    return _table(head, rows)


def comparison_block(cmp: Comparison) -> str:
    level = {"run": "the same runs", "task": "each near-miss against its operator's regeneration (Pass@K)",
             "operator": "operator (any run repaired)"}[cmp.level]
    a = escape(cmp.a)
    table = _table(["", f"{cmp.b} repaired", f"{cmp.b} not"], [
        [(f"<b>{a} repaired</b>", False), (str(cmp.both), True), (str(cmp.only_a), True)],
        [(f"<b>{a} not</b>", False), (str(cmp.only_b), True), (str(cmp.neither), True)],
    ], raw=True)
    tokens = "not defined (a campaign without successes)"
    if cmp.tokens_per_success_diff is not None:
        red = cmp.tokens_per_success_reduction
        tokens = (f"{num(cmp.tokens_per_success_a)} vs {num(cmp.tokens_per_success_b)}, difference "
                  f"{num(cmp.tokens_per_success_diff)}" + (f" ({100 * red:.1f}% fewer for {a})" if red is not None and red >= 0
                                                           else f" ({100 * -red:.1f}% more for {a})" if red is not None else ""))
    return (f"<p>Paired by {escape(level)}: {cmp.pairs} pairs.</p>{table}"
            f"<p>Exact McNemar p = <b>{cmp.mcnemar_p:.4g}</b> (discordant {cmp.only_a} vs {cmp.only_b}). "
            f"Tokens per success: {tokens}.</p>")


def outcome_table(cs: list[CampaignMetrics]) -> str:
    ops = sorted({u.operator_id for c in cs for u in c.units})
    rows = []
    for op in ops:
        cells = [(op, False)]
        for c in cs:
            units = [u for u in c.units if u.operator_id == op]
            cells.append((" ".join(f"{MARKS.get(u.status, '?')}{u.label}" for u in units) or "–", False))
        rows.append(cells)
    return _table(["operator", *(c.name for c in cs)], rows)


def _table(head: list[str], rows: list[list[tuple[str, bool]]], raw: bool = False) -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = []
    for row in rows:
        tds = "".join(f'<td{" class=n" if n else ""}>{text if raw else escape(text)}</td>' for text, n in row)
        trs.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{th}</tr></thead><tbody>{''.join(trs)}</tbody></table>"


def _figure(svg_text: str, caption: str) -> str:
    return f"<figure>{svg_text}<figcaption>{escape(caption)}</figcaption></figure>"
