"""The report as Markdown for the terminal."""
from __future__ import annotations

from repair.report.metrics import CampaignMetrics, Comparison, Rate, Report

MARKS = {"repaired": "✓", "failed": "✗", "crashed": "!", "running": "…", "pending": "·"}


def pct(rate: Rate | None) -> str:
    if rate is None or rate.value is None:
        return "–"
    return f"{100 * rate.value:.1f}% [{100 * rate.low:.1f}, {100 * rate.high:.1f}]"


def num(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "–"
    return f"{x:,.{digits}f}"


def frac(rate: Rate) -> str:
    return f"{int(rate.successes)}/{rate.n}" + (f" ({100 * rate.value:.1f}%)" if rate.value is not None else "")


def render_markdown(report: Report) -> str:
    out = ["# Campaign report", "", "## Campaigns", "", *campaign_table(report.campaigns), ""]
    out += ["Pass rates with Wilson 95% intervals. Tokens per success = all tokens of all runs / successes. "
            "Gate rejections: of the candidates the workflow alone would have accepted (compact tier passes), "
            "those the integrity gate (static or runtime guards), the full tier, or either, rejected.", ""]
    for c in report.campaigns:
        reasons = ", ".join(f"{k or 'unknown'} {v}" for k, v in c.stop_reasons.items()) or "none"
        unfinished = c.runs - c.finished
        out.append(f"- **{c.name}**: how runs ended: {reasons}" + (f"; {unfinished} not finished" if unfinished else ""))
    for cmp in report.comparisons:
        out += ["", *comparison_section(cmp)]
    for name in report.unpaired:
        out += ["", f"_{name} shares no run or operator with {report.campaigns[0].name}: no paired test._"]
    out += ["", "## Outcomes per operator", "", *outcome_grid(report.campaigns),
            "", "✓ repaired · ✗ not repaired · ! crashed · … running · · pending"]
    return "\n".join(out) + "\n"


def campaign_table(campaigns: list[CampaignMetrics]) -> list[str]:
    head = ["campaign", "kind", "worker", "ablations", "runs", "Pass@1 [95% CI]", "Pass@K [95% CI]",
            "tokens/success", "uncached/success", "mean attempts", "mean wall s",
            "integrity rejected", "full tier rejected", "either gate", "patterns cited/success"]
    rows = [head, ["---"] * len(head)]
    for c in campaigns:
        full = frac(c.full_tier_rejection) + (" (shadow)" if c.full_tier_shadow else "")
        rows.append([
            c.name, c.kind, c.worker + (f" ({c.model})" if c.model else ""), ", ".join(c.ablations) or "–",
            f"{c.finished}/{c.runs}", pct(c.pass_at_1),
            (f"K={c.trials}: " + pct(c.pass_at_k)) if c.pass_at_k is not None else "–",
            num(c.tokens_per_success), num(c.uncached_tokens_per_success), num(c.mean_attempts, 2),
            num(c.mean_wall_s, 1), frac(c.integrity_rejection), full, frac(c.gate_rejection), num(c.patterns_cited_per_success, 2),
        ])
    return ["| " + " | ".join(r) + " |" for r in rows]


def comparison_section(cmp: Comparison) -> list[str]:
    level = {"run": "the same runs", "task": "each near-miss against its operator's regeneration (Pass@K)",
             "operator": "operator (any run repaired)"}[cmp.level]
    lines = [
        f"## {cmp.a} vs {cmp.b}", "",
        f"Paired by {level}: {cmp.pairs} pairs.", "",
        f"| | {cmp.b} repaired | {cmp.b} not |", "|---|---|---|",
        f"| **{cmp.a} repaired** | {cmp.both} (both) | {cmp.only_a} (only {cmp.a}) |",
        f"| **{cmp.a} not** | {cmp.only_b} (only {cmp.b}) | {cmp.neither} (neither) |", "",
        f"Exact McNemar p = {cmp.mcnemar_p:.4g} (discordant {cmp.only_a} vs {cmp.only_b}).",
    ]
    if cmp.tokens_per_success_diff is not None:
        red = cmp.tokens_per_success_reduction
        lines.append(f"Tokens per success: {num(cmp.tokens_per_success_a)} vs {num(cmp.tokens_per_success_b)} "
                     f"(difference {num(cmp.tokens_per_success_diff)}"
                     + (f"; {100 * red:.1f}% fewer for {cmp.a})" if red is not None and red >= 0
                        else f"; {100 * -red:.1f}% more for {cmp.a})" if red is not None else ")"))
    else:
        lines.append("Tokens per success: not defined (a campaign without successes).")
    return lines


def outcome_grid(campaigns: list[CampaignMetrics]) -> list[str]:
    ops = sorted({u.operator_id for c in campaigns for u in c.units})
    rows = [["operator", *(c.name for c in campaigns)], ["---"] * (len(campaigns) + 1)]
    for op in ops:
        cells = []
        for c in campaigns:
            units = [u for u in c.units if u.operator_id == op]
            cells.append(" ".join(f"{MARKS.get(u.status, '?')}{u.label}" for u in units) or "–")
        rows.append([op, *cells])
    return ["| " + " | ".join(r) + " |" for r in rows]
