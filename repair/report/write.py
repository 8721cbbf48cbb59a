"""Write a campaign report: the Markdown text, and the HTML page when asked."""
from __future__ import annotations

from pathlib import Path

from repair.report.build import Report, build_report


def write_report(paths, html=None) -> tuple[Report, str]:
    """Build the report of campaign directories; write the HTML page when asked; return it with its Markdown."""
    from repair.report.markdown import render_markdown

    report = build_report([Path(p) for p in paths])
    if html is not None:
        from repair.report.html import render_html

        Path(html).write_text(render_html(report, base=Path(html).resolve().parent), encoding="utf-8")
    return report, render_markdown(report)
