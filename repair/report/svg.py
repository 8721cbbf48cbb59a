"""Inline SVG plots for the HTML report: plain strings, no plotting library, no external assets."""
from __future__ import annotations

from html import escape

from repair.report.metrics import CampaignMetrics

COLORS = {"repaired": "#2e7d32", "failed": "#c62828", "crashed": "#6a1b9a", "running": "#f9a825", "pending": "#bdbdbd"}
SERIES = ["#1565c0", "#ef6c00"]
LABEL_W = 170
ROW_H = 26


def pass_rate_plot(campaigns: list[CampaignMetrics], width: int = 640) -> str:
    """Horizontal bars: Pass@1 (and Pass@K for regenerations) with their Wilson 95% intervals as whiskers."""
    bars = []
    for c in campaigns:
        bars.append((c.name, "Pass@1", c.pass_at_1))
        if c.pass_at_k is not None:
            bars.append((c.name, f"Pass@{c.trials}", c.pass_at_k))
    plot_w = width - LABEL_W - 20
    height = 30 + ROW_H * len(bars) + 30
    out = [_open(width, height, "pass rate with Wilson 95% intervals")]
    out += _x_axis(plot_w, height - 28, [0, 0.25, 0.5, 0.75, 1.0], lambda v: f"{int(100 * v)}%")
    for i, (name, what, rate) in enumerate(bars):
        y = 20 + i * ROW_H
        out.append(_label(f"{name} {what}", y + 14))
        if rate.value is None:
            out.append(f'<text x="{LABEL_W + 4}" y="{y + 14}" class="muted">no finished runs</text>')
            continue
        w = rate.value * plot_w
        lo, hi = LABEL_W + rate.low * plot_w, LABEL_W + rate.high * plot_w
        color = SERIES[1] if what != "Pass@1" else SERIES[0]
        out.append(f'<rect x="{LABEL_W}" y="{y + 3}" width="{w:.1f}" height="{ROW_H - 8}" fill="{color}" opacity="0.8">'
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
    """Grouped bars: tokens per success, all tokens and uncached tokens."""
    values = [(c.name, c.tokens_per_success, c.uncached_tokens_per_success) for c in campaigns]
    top = max([v for _, a, u in values for v in (a, u) if v is not None] or [1.0]) or 1.0
    top = _nice(top)
    plot_w = width - LABEL_W - 80
    height = 30 + ROW_H * len(values) + 30
    out = [_open(width, height, "tokens per success")]
    out += _x_axis(plot_w, height - 28, [top * f for f in (0, 0.25, 0.5, 0.75, 1.0)], lambda v: f"{v:,.0f}")
    for i, (name, total, uncached) in enumerate(values):
        y = 20 + i * ROW_H
        out.append(_label(name, y + 14))
        if total is None:
            out.append(f'<text x="{LABEL_W + 4}" y="{y + 14}" class="muted">no successes</text>')
            continue
        for j, (what, v) in enumerate((("all", total), ("uncached", uncached))):
            w = (v or 0) / top * plot_w
            out.append(f'<rect x="{LABEL_W}" y="{y + 3 + j * 9}" width="{w:.1f}" height="8" fill="{SERIES[j]}">'
                       f"<title>{escape(name)}: {v:,.0f} {what} tokens per success</title></rect>")
        out.append(f'<text x="{LABEL_W + total / top * plot_w + 6:.1f}" y="{y + 14}" class="val">{total:,.0f}</text>')
    out.append("</svg>")
    return "\n".join(out)


def outcome_grid(campaigns: list[CampaignMetrics], cell: int = 14) -> str:
    """One row per operator, one block per campaign, one square per run coloured by its outcome."""
    ops = sorted({u.operator_id for c in campaigns for u in c.units})
    per = [{op: [u for u in c.units if u.operator_id == op] for op in ops} for c in campaigns]
    widths = [max([len(v) for v in p.values()] or [1]) * (cell + 2) + 16 for p in per]
    width = LABEL_W + sum(widths) + 10
    height = 40 + (cell + 4) * len(ops) + 30
    out = [_open(width, height, "outcome per operator and run")]
    x = LABEL_W
    for c, w in zip(campaigns, widths):
        out.append(f'<text x="{x}" y="14" class="head">{escape(_short(c.name, w // 7))}</text>')
        x += w
    for i, op in enumerate(ops):
        y = 26 + i * (cell + 4)
        out.append(_label(op, y + cell - 2))
        x = LABEL_W
        for c, p, w in zip(campaigns, per, widths):
            for j, u in enumerate(p[op]):
                out.append(f'<rect x="{x + j * (cell + 2)}" y="{y}" width="{cell}" height="{cell}" rx="2" '
                           f'fill="{COLORS.get(u.status, "#000")}"><title>{escape(c.name)}: {escape(u.key)} — '
                           f"{u.status}</title></rect>")
            x += w
    ly = height - 14
    lx = LABEL_W
    for status, color in COLORS.items():
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{lx + 14}" y="{ly}" class="muted">{status}</text>')
        lx += 90
    out.append("</svg>")
    return "\n".join(out)


def _open(width: int, height: int, title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">')


def _label(text: str, y: float) -> str:
    return f'<text x="{LABEL_W - 8}" y="{y}" text-anchor="end" class="lab">{escape(_short(text, 26))}</text>'


def _x_axis(plot_w: float, y: float, ticks: list[float], fmt) -> list[str]:
    top = ticks[-1] or 1.0
    out = [f'<line x1="{LABEL_W}" x2="{LABEL_W + plot_w}" y1="{y}" y2="{y}" stroke="#9e9e9e"/>']
    for t in ticks:
        x = LABEL_W + t / top * plot_w
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="10" y2="{y + 4}" stroke="#eeeeee"/>')
        out.append(f'<text x="{x:.1f}" y="{y + 16}" text-anchor="middle" class="muted">{escape(fmt(t))}</text>')
    return out


def _nice(v: float) -> float:
    """The next 1, 2 or 5 times a power of ten at or above v."""
    import math

    exp = math.floor(math.log10(v)) if v > 0 else 0
    for m in (1, 2, 5, 10):
        if m * 10**exp >= v:
            return float(m * 10**exp)
    return float(10 ** (exp + 1))


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: max(n - 1, 1)] + "…"
