"""The report as Markdown for the terminal."""
from __future__ import annotations

from repair.report.build import OutcomeCell, Report, outcome_rows
from repair.report.metrics import CampaignMetrics, Rate
from repair.report.pairing import Comparison, near_miss_note
from repair.report.speed import speed_section

MARKS = {"repaired": "✓", "failed": "✗", "crashed": "!", "unsupported": "~", "running": "…", "pending": "·"}

CAMPAIGN_HEAD = ["campaign", "kind", "worker", "ablations", "runs", "tasks recovered [95% CI]", "Pass@1 [95% CI]",
                 "Pass@K [95% CI]", "how runs ended"]
COST_HEAD = ["campaign", "tokens/success, own runs", "tokens/success incl. generation", "uncached/success",
             "mean attempts", "mean wall s", "integrity rejected", "full tier rejected", "either gate",
             "patterns cited/success"]

NOTES = [
    "Pass rates with Wilson 95% intervals. Tasks recovered: one outcome per task (operator), the one the paired "
    "tests use (a debug campaign's first near-miss by name, a regeneration's Pass@K); Pass@1 counts every run.",
    "Tokens per success, own runs: all tokens of the campaign's runs / its successful runs; a debug campaign's are "
    "its repairs alone. Incl. generation: a debug campaign's tokens plus what generating its near-misses cost (the "
    "cohort manifest's generation_cost), what a user pays who generated a kernel and then debugged it; 'not given' "
    "where the manifest did not say. A regeneration's tokens are all generation: both columns are the same.",
    "Gate rejections: of the candidates the workflow alone would have accepted (compact tier passes), those the "
    "integrity gate (static or runtime guards), the full tier, or either, rejected.",
]


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


def task_frac(rate: Rate) -> str:
    return "–" if rate.value is None else f"{int(rate.successes)}/{rate.n} " + pct(rate)


def with_generation(c: CampaignMetrics) -> str:
    """The 'incl. generation' cell: a number, or why there is none."""
    if c.kind == "regenerate":
        return num(c.end_to_end_tokens_per_success) + (" (all generation)" if c.end_to_end_tokens_per_success else "")
    if c.generation_given == 0:
        return "not given"
    if c.generation_tokens is None:
        return f"not given for {c.finished - c.generation_given} of {c.finished} near-misses"
    return num(c.end_to_end_tokens_per_success)


def generation_note(c: CampaignMetrics) -> str | None:
    if c.kind != "debug" or not c.generation_given:
        return None
    models = f" (model {', '.join(c.generation_models)})" if c.generation_models else " (model not given)"
    if c.generation_tokens is None:
        return f"a generation cost is given for {c.generation_given} of {c.finished} finished runs only{models}"
    return f"generating its near-misses cost {num(c.generation_tokens)} tokens{models}"


def campaign_row(c: CampaignMetrics) -> list[str]:
    reasons = ", ".join(f"{k or 'unknown'} {v}" for k, v in c.stop_reasons.items()) or "none"
    unfinished = c.runs - c.finished
    return [
        c.name, c.kind, c.worker + (f" ({c.model})" if c.model else ""), ", ".join(c.ablations) or "–",
        f"{c.finished}/{c.runs}", task_frac(c.task_rate), pct(c.pass_at_1),
        (f"K={c.trials}: " + pct(c.pass_at_k)) if c.pass_at_k is not None else "–",
        reasons + (f"; {unfinished} not finished" if unfinished else ""),
    ]


def cost_row(c: CampaignMetrics) -> list[str]:
    full = frac(c.full_tier_rejection) + (" (shadow)" if c.full_tier_shadow else "")
    return [
        c.name, num(c.tokens_per_success), with_generation(c), num(c.uncached_tokens_per_success),
        num(c.mean_attempts, 2), num(c.mean_wall_s, 1), frac(c.integrity_rejection), full, frac(c.gate_rejection),
        num(c.patterns_cited_per_success, 2),
    ]


def backend_text(c: CampaignMetrics) -> str:
    return c.backend + (" (emulated: the kernels ran on a CPU emulation of the hardware, not on it)" if c.emulated
                        else "")


def run_on_lines(report: Report) -> list[str]:
    """Which backend each campaign's evaluations ran on, and whether it was an emulation (issue 37)."""
    return [f"- **{c.name}**: backend {backend_text(c)}" for c in report.campaigns]


REPRO_HEAD = ["campaign", "started", "cohort manifest sha256", "snapshot", "backend", "worker", "policy"]
SEEDS_NOTE = ("Seeds: each run draws one evaluation seed for all its evaluations and records it (`seed` in "
              "runs/<operator>/<near-miss>/record.json), so an evaluation can be rerun with `repair eval --seed`.")


def repro_rows(report: Report) -> list[list[str]]:
    """What makes each campaign reproducible: when, against which cohort and snapshot, on what, by which worker."""
    return [[c.name, c.created_at or "–", c.cohort_sha256 or "– (a single problem)", c.snapshot or "– (live KB or none)",
             c.backend + (" (emulated)" if c.emulated else ""), c.worker + (f" ({c.model})" if c.model else ""),
             c.policy] for c in report.campaigns]


def tool_line() -> str:
    from provenance.version import tool_commit, tool_version

    commit = tool_commit()
    return f"nearmiss-repair {tool_version()}" + (f", commit {commit[:12]}" if commit else ", not a git checkout")


def render_markdown(report: Report) -> str:
    cs = report.campaigns
    out = ["# Campaign report", "", "Ran on:", "", *run_on_lines(report), "", "## Reproducibility", "",
           f"Report made by {tool_line()}.", "", *_rows([REPRO_HEAD] + repro_rows(report)), "", SEEDS_NOTE, "",
           "## Campaigns", "", *_rows([CAMPAIGN_HEAD] + [campaign_row(c) for c in cs]), "",
           NOTES[0], "", "## Cost and gates", "", *_rows([COST_HEAD] + [cost_row(c) for c in cs]), ""]
    for note in NOTES[1:]:
        out += [note, ""]
    out += [f"- **{c.name}**: {note}" for c in cs if (note := generation_note(c))]
    out += ["", *speed_section(cs)]
    for cmp in report.comparisons:
        out += ["", *comparison_section(cmp)]
    for name in report.unpaired:
        out += ["", f"_{name} shares no task with {cs[0].name}: no paired test._"]
    out += ["", "## Outcomes per operator", "", *outcome_grid(report), "", OUTCOME_NOTE]
    out += ["", "## Integrity per run", "", *integrity_lines(report)]
    return "\n".join(out) + "\n"


INTEGRITY_NOTE = ("Each finished run's worst integrity finding over its attempts: cheat (always fails), policy (fails "
                  "under the strict policy only: a framework epilogue, an in-place update), note (never fails), clean.")


def integrity_lines(report: Report) -> list[str]:
    """Per campaign its policy and how many runs ended at each level; a row for every run with a finding."""
    out = []
    rows = [["campaign", "policy", "run", "level", "rules"]]
    for c in report.campaigns:
        done = [u for u in c.units if u.integrity is not None]
        counts = ", ".join(f"{lv} {n}" for lv in ("cheat", "policy", "note", "clean")
                           if (n := sum(u.integrity == lv for u in done)))
        out.append(f"- **{c.name}** ({c.policy} policy): {counts or 'no finished run'}")
        rows += [[c.name, c.policy, u.key, u.integrity, ", ".join(u.integrity_rules)]
                 for u in done if u.integrity != "clean"]
    if len(rows) > 1:
        out += ["", *_rows(rows)]
    return out + ["", INTEGRITY_NOTE]


OUTCOME_NOTE = ("Per campaign: the task's outcome, then each run (✓ repaired, ✗ not repaired, ! crashed, … running, "
                "· pending); in brackets: the near-miss that decides the task.")


def pairing_lines(cmp: Comparison) -> tuple[str, list[str], str, str]:
    """What was paired and by which rule, then the test or why there is none: shared by Markdown and HTML."""
    left = f" ({cmp.undecided} not yet decided in both, left out)" if cmp.undecided else ""
    intro = f"Paired by task: {cmp.pairs} task(s) decided in both{left}. A task counts as recovered by"
    rules = [f"{cmp.a} when {cmp.rule_a}" + (f" ({cmp.set_aside_a} here)" if cmp.set_aside_a else ""),
             f"{cmp.b} when {cmp.rule_b}" + (f" ({cmp.set_aside_b} here)" if cmp.set_aside_b else "")]
    wins = f"Tasks recovered: {cmp.a} {cmp.both + cmp.only_a}/{cmp.pairs}, {cmp.b} {cmp.both + cmp.only_b}/{cmp.pairs}. "
    if cmp.mcnemar_p is not None:
        verdict = wins + f"Exact McNemar p = {cmp.mcnemar_p:.4g} (discordant {cmp.only_a} vs {cmp.only_b})."
    else:
        verdict = wins + f"No McNemar test: {cmp.no_test}."
    return intro, rules, verdict, near_miss_note(cmp.kind_a, cmp.kind_b)


def token_lines(cmp: Comparison) -> list[str]:
    def side(name, kind, own, e2e):
        if kind == "regenerate":
            return f"{name} {num(own)} (all generation)"
        return f"{name} {num(own)} (repairs only), {num(e2e) if e2e is not None else 'not given'} (incl. generation)"

    lines = [f"Tokens per success: {side(cmp.a, cmp.kind_a, cmp.tokens_per_success_a, cmp.end_to_end_a)}; "
             f"{side(cmp.b, cmp.kind_b, cmp.tokens_per_success_b, cmp.end_to_end_b)}."]
    for what, red in (("repairs only", cmp.tokens_per_success_reduction), ("incl. generation", cmp.end_to_end_reduction)):
        if red is not None and not (what == "incl. generation" and cmp.kind_a == cmp.kind_b == "regenerate"):
            lines.append(f"{what.capitalize()}: {100 * abs(red):.1f}% {'fewer' if red >= 0 else 'more'} tokens per "
                         f"success for {cmp.a}.")
    return lines


def comparison_section(cmp: Comparison) -> list[str]:
    intro, rules, verdict, note = pairing_lines(cmp)
    return [
        f"## {cmp.a} vs {cmp.b}", "", intro, "", *(f"- {r}" for r in rules), "",
        f"| | {cmp.b} recovered | {cmp.b} not |", "|---|---|---|",
        f"| **{cmp.a} recovered** | {cmp.both} (both) | {cmp.only_a} (only {cmp.a}) |",
        f"| **{cmp.a} not** | {cmp.only_b} (only {cmp.b}) | {cmp.neither} (neither) |", "",
        verdict, "", note, "", *token_lines(cmp),
    ]


def outcome_grid(report: Report) -> list[str]:
    rows = [["operator", *(c.name for c in report.campaigns), *(f"{x.a} vs {x.b}" for x in report.comparisons)]]
    for row in outcome_rows(report):
        cells = [row.operator]
        for cell in row.cells:
            runs = " ".join(f"[{m}]" if decides else m for m, decides in run_marks(cell))
            cells.append("–" if cell.task is None else f"{TASK_WORDS[cell.task.recovered]}: {runs}")
        cells += [f"only {who}" if who else "–" for who in row.only]
        rows.append(cells)
    return _rows(rows)


TASK_WORDS = {True: "recovered", False: "not recovered", None: "undecided"}


def run_marks(cell: OutcomeCell) -> list[tuple[str, bool]]:
    """Each run of an operator as ✓label, and whether it alone decides the task."""
    return [(f"{MARKS.get(u.status, '?')}{u.label}", decides) for u, decides in cell.runs]


def _rows(rows: list[list[str]]) -> list[str]:
    rows = [rows[0], ["---"] * len(rows[0]), *rows[1:]]
    return ["| " + " | ".join(r) + " |" for r in rows]
