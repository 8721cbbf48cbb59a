"""Inline SVG plots for the HTML report: plain strings, no plotting library, no external assets."""
from __future__ import annotations

import math
from html import escape

from repair.report.build import Report, outcome_rows
from repair.report.metrics import CampaignMetrics

COLORS = {"repaired": "#2e7d32", "failed": "#c62828", "crashed": "#6a1b9a", "unsupported": "#78909c", "running": "#f9a825", "pending": "#bdbdbd"}
SERIES = ["#1565c0", "#ef6c00", "#78909c"]
PALETTE = ["#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#00838f", "#ad1457"]  # one per campaign in the cost curve
ONLY = ["#f57c00", "#00838f"]  # the first campaign alone recovered the task; the other one alone did
LABEL_W = 170
ROW_H = 26


def pass_rate_plot(campaigns: list[CampaignMetrics], width: int = 640) -> str:
    """Horizontal bars: tasks recovered, Pass@1 and Pass@K (regenerations), with Wilson 95% intervals as whiskers."""
    bars = []
    for c in campaigns:
        bars.append((c.name, "tasks", c.task_rate, SERIES[2]))
        bars.append((c.name, "Pass@1", c.pass_at_1, SERIES[0]))
        if c.pass_at_k is not None:
            bars.append((c.name, f"Pass@{c.trials}", c.pass_at_k, SERIES[1]))
    plot_w = width - LABEL_W - 60
    height = 34 + ROW_H * len(bars) + 30
    out = [_open(width, height, "pass rate with Wilson 95% intervals")]
    out += _legend([("tasks recovered", SERIES[2]), ("Pass@1 (every run)", SERIES[0]), ("Pass@K", SERIES[1])], 4)
    out += _x_axis(plot_w, 1.0, height - 28, [0, 0.25, 0.5, 0.75, 1.0], lambda v: f"{int(100 * v)}%", top_y=24)
    for i, (name, what, rate, color) in enumerate(bars):
        y = 24 + i * ROW_H
        out.append(_label(f"{name} {what}", y + 14))
        if rate.value is None:
            out.append(f'<text x="{LABEL_W + 4}" y="{y + 14}" class="muted">nothing finished</text>')
            continue
        w = rate.value * plot_w
        lo, hi = LABEL_W + rate.low * plot_w, LABEL_W + rate.high * plot_w
        out.append(f'<rect x="{LABEL_W}" y="{y + 3}" width="{w:.1f}" height="{ROW_H - 8}" fill="{color}" opacity="0.85">'
                   f"<title>{escape(name)} {what}: {100 * rate.value:.1f}% [{100 * rate.low:.1f}, {100 * rate.high:.1f}]"
                   f" ({rate.successes:g}/{rate.n})</title></rect>")
        mid = y + ROW_H / 2 - 1
        out.append(f'<line x1="{lo:.1f}" x2="{hi:.1f}" y1="{mid}" y2="{mid}" stroke="#212121" stroke-width="1.5"/>')
        for x in (lo, hi):
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{mid - 5}" y2="{mid + 5}" stroke="#212121" stroke-width="1.5"/>')
        out.append(f'<text x="{LABEL_W + max(w, hi - LABEL_W) + 6:.1f}" y="{y + 14}" class="val">{100 * rate.value:.1f}%</text>')
    out.append("</svg>")
    return "\n".join(out)


def tokens_plot(campaigns: list[CampaignMetrics], width: int = 640) -> str:
    """Grouped bars per campaign, each labelled: tokens per success of its own runs, including generation, uncached."""
    rows = []
    for c in campaigns:
        e2e = c.end_to_end_tokens_per_success if c.kind == "debug" else None  # a regeneration's is its own
        rows.append((c, [("own runs", c.tokens_per_success), ("incl. generation", e2e),
                         ("uncached", c.uncached_tokens_per_success)]))
    values = [v for _, bars in rows for _, v in bars if v is not None]
    axis = ticks(max(values, default=0.0), integer=True)
    top = axis[-1]
    plot_w = width - LABEL_W - 80
    bar_h, row_h = 10, 40
    zero = bool(values) and max(values) == 0
    axis_y = 24 + row_h * len(rows) + 4
    height = axis_y + 26 + (16 if zero else 0)
    out = [_open(width, height, "tokens per success")]
    out += _legend([("own runs", SERIES[0]), ("incl. generating the near-misses", SERIES[1]), ("uncached", SERIES[2])], 4)
    out += _x_axis(plot_w, top, axis_y, axis, tick_label, top_y=24)
    for i, (c, bars) in enumerate(rows):
        y = 24 + i * row_h
        out.append(_label(c.name, y + 20))
        if c.tokens_per_success is None:
            out.append(f'<text x="{LABEL_W + 4}" y="{y + 20}" class="muted">no successes</text>')
            continue
        for j, (what, v) in enumerate(bars):
            by = y + 4 + j * (bar_h + 1)
            if v is None:
                why = "= own runs (all generation)" if c.kind == "regenerate" else "generation cost not given"
                out.append(f'<text x="{LABEL_W + 4}" y="{by + bar_h - 1}" class="tiny">{why}</text>')
                continue
            w = v / top * plot_w
            out.append(f'<rect x="{LABEL_W}" y="{by}" width="{w:.1f}" height="{bar_h}" fill="{SERIES[j]}">'
                       f"<title>{escape(c.name)}: {v:,.0f} tokens per success ({what})</title></rect>"
                       f'<text x="{LABEL_W + w + 4:.1f}" y="{by + bar_h - 1}" class="tiny">{v:,.0f}</text>')
    if zero:
        out.append(f'<text x="{LABEL_W}" y="{height - 4}" class="muted">every value is 0 (no tokens were counted)</text>')
    out.append("</svg>")
    return "\n".join(out)


def cost_curve(campaigns: list[CampaignMetrics], width: int = 640, height: int = 330) -> str:
    """Step lines: cumulative tokens (x) against tasks recovered (y), one per campaign, tasks in name order;
    dashed: a debug campaign with generating its near-misses added."""
    lines = []
    for i, c in enumerate(campaigns):
        color = PALETTE[i % len(PALETTE)]
        lines.append((f"{c.name} (repairs only)" if c.kind == "debug" else f"{c.name} (all generation)", c.cost_curve(),
                      color, ""))
        with_gen = c.cost_curve(generation=True)
        if with_gen is not None:
            lines.append((f"{c.name} incl. generation", with_gen, color, "6 4"))
    left, right, top_pad, bottom = 64, 24, 16, 44
    legend_h = 16 * len(lines) + 8
    total_h = height + legend_h
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    xmax = max((p[-1][0] for _, p, _, _ in lines if p), default=0)
    ymax = max([sum(t.recovered is not None for t in c.tasks) for c in campaigns] + [1])
    xs, ys = ticks(xmax, integer=True), ticks(ymax, integer=True)
    sx = lambda v: left + v / xs[-1] * plot_w  # noqa: E731
    sy = lambda v: top_pad + plot_h - v / ys[-1] * plot_h  # noqa: E731
    out = [_open(width, total_h, "cumulative tokens against tasks recovered")]
    for v in xs:
        out.append(f'<line x1="{sx(v):.1f}" x2="{sx(v):.1f}" y1="{top_pad}" y2="{top_pad + plot_h}" stroke="#eeeeee"/>'
                   f'<text x="{sx(v):.1f}" y="{top_pad + plot_h + 16}" text-anchor="middle" class="muted">{tick_label(v)}</text>')
    for v in ys:
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{sy(v):.1f}" y2="{sy(v):.1f}" stroke="#eeeeee"/>'
                   f'<text x="{left - 6}" y="{sy(v) + 4:.1f}" text-anchor="end" class="muted">{tick_label(v)}</text>')
    out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{top_pad + plot_h}" y2="{top_pad + plot_h}" stroke="#9e9e9e"/>'
               f'<line x1="{left}" x2="{left}" y1="{top_pad}" y2="{top_pad + plot_h}" stroke="#9e9e9e"/>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle" class="lab">cumulative tokens</text>'
               f'<text x="14" y="{top_pad + plot_h / 2}" text-anchor="middle" class="lab" '
               f'transform="rotate(-90 14 {top_pad + plot_h / 2})">tasks recovered</text>')
    for name, points, color, dash in lines:
        if len(points) < 2:
            continue
        step = [points[0]]
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            step += [(x1, y0), (x1, y1)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in step)
        end_x, end_y = points[-1]
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"'
                   + (f' stroke-dasharray="{dash}"' if dash else "")
                   + f"><title>{escape(name)}: {end_y} task(s) recovered for {end_x:,} tokens</title></polyline>")
    for i, (name, points, color, dash) in enumerate(lines):
        y = height + 8 + 16 * i
        end = f": {points[-1][1]} task(s) for {points[-1][0]:,} tokens" if len(points) > 1 else ": no task decided"
        out.append(f'<line x1="{left}" x2="{left + 26}" y1="{y - 4}" y2="{y - 4}" stroke="{color}" stroke-width="2"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + "/>"
                   f'<text x="{left + 32}" y="{y}" class="lab">{escape(name + end)}</text>')
    if xmax == 0:
        out.append(f'<text x="{left + 8}" y="{top_pad + 14}" class="muted">no tokens were counted</text>')
    out.append("</svg>")
    return "\n".join(out)


def outcome_grid(report: Report, cell: int = 14) -> str:
    """One row per operator, one block per campaign, one square per run coloured by its outcome (outlined: the run
    that decides the task), then one column per comparison marking the tasks only one campaign recovered."""
    campaigns, rows = report.campaigns, outcome_rows(report)
    widths = [max(max([len(r.cells[i].runs) for r in rows] or [1]) * (cell + 2) + 16, 90) for i in range(len(campaigns))]
    cmp_w = 130
    width = LABEL_W + sum(widths) + cmp_w * len(report.comparisons) + 10
    height = 40 + (cell + 4) * len(rows) + 50
    out = [_open(width, height, "outcome per operator and run")]
    x = LABEL_W
    for c, w in zip(campaigns, widths):
        out.append(f'<text x="{x}" y="14" class="head">{escape(_short(c.name, w // 7))}</text>')
        x += w
    for cmp in report.comparisons:
        out.append(f'<text x="{x}" y="14" class="head">{escape(_short(f"{cmp.a} vs {cmp.b}", cmp_w // 7))}</text>')
        x += cmp_w
    for i, row in enumerate(rows):
        y = 26 + i * (cell + 4)
        out.append(_label(row.operator, y + cell - 2))
        x = LABEL_W
        for c, oc, w in zip(campaigns, row.cells, widths):
            for j, (u, decides) in enumerate(oc.runs):
                ring = ' stroke="#212121" stroke-width="2"' if decides else ""
                out.append(f'<rect x="{x + j * (cell + 2)}" y="{y}" width="{cell}" height="{cell}" rx="2" '
                           f'fill="{COLORS.get(u.status, "#000")}"{ring}><title>{escape(c.name)}: {escape(u.key)} — '
                           f"{u.status}{' (decides the task)' if ring else ''}</title></rect>")
            x += w
        for cmp, who in zip(report.comparisons, row.only):
            if who is not None:
                color = ONLY[0] if who == cmp.a else ONLY[1]
                out.append(f'<rect x="{x}" y="{y}" width="{cmp_w - 14}" height="{cell}" rx="3" fill="{color}">'
                           f"<title>{escape(row.operator)}: recovered by {escape(who)} only</title></rect>"
                           f'<text x="{x + 4}" y="{y + cell - 3}" class="badge">{escape(_short("only " + who, 18))}</text>')
            x += cmp_w
    ly = height - 34
    lx = LABEL_W
    for status, color in COLORS.items():
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{lx + 14}" y="{ly}" class="muted">{status}</text>')
        lx += 90
    out.append(f'<rect x="{LABEL_W}" y="{ly + 6}" width="10" height="10" fill="#ffffff" stroke="#212121" stroke-width="2"/>'
               f'<text x="{LABEL_W + 14}" y="{ly + 16}" class="muted">outlined: the near-miss that decides its task '
               f"(the first by name)</text>")
    out.append("</svg>")
    return "\n".join(out)


def ticks(top: float, integer: bool = False) -> list[float]:
    """Axis ticks from 0 to a round value at or above `top`, in steps of 1, 2 or 5 times a power of ten.

    All-zero data gets [0, 1]; `integer` keeps the steps whole (counts: 0, 1, 2 and never 0.5).
    """
    if top <= 0:
        return [0.0, 1.0]
    step = _nice(top / 4)
    if integer:
        step = max(1.0, float(math.ceil(step)))
    n = max(1, math.ceil(top / step - 1e-9))
    return [i * step for i in range(n + 1)]


def tick_label(v: float) -> str:
    """A short tick label: 0, 5, 2.5, 12k, 1.5M."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:g}{suffix}"
    return f"{v:g}"


def _open(width: int, height: int, title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">')


def _label(text: str, y: float) -> str:
    return f'<text x="{LABEL_W - 8}" y="{y}" text-anchor="end" class="lab">{escape(_short(text, 26))}</text>'


def _legend(items: list[tuple[str, str]], y: float) -> list[str]:
    out, x = [], LABEL_W
    for text, color in items:
        out.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{x + 14}" y="{y + 9}" class="muted">{escape(text)}</text>')
        x += 14 + 6.3 * len(text) + 18
    return out


def _x_axis(plot_w: float, top: float, y: float, tick_values: list[float], fmt, top_y: float = 10) -> list[str]:
    out = [f'<line x1="{LABEL_W}" x2="{LABEL_W + plot_w}" y1="{y}" y2="{y}" stroke="#9e9e9e"/>']
    for t in tick_values:
        x = LABEL_W + t / (top or 1.0) * plot_w
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top_y}" y2="{y + 4}" stroke="#eeeeee"/>')
        out.append(f'<text x="{x:.1f}" y="{y + 16}" text-anchor="middle" class="muted">{escape(fmt(t))}</text>')
    return out


def _nice(v: float) -> float:
    """The next 1, 2 or 5 times a power of ten at or above v."""
    exp = math.floor(math.log10(v)) if v > 0 else 0
    for m in (1, 2, 5, 10):
        if m * 10**exp >= v - 1e-12 * 10**exp:
            return float(m * 10**exp)
    return float(10 ** (exp + 1))


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: max(n - 1, 1)] + "…"
