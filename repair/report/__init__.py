"""Campaign reports: Pass@1/Pass@K with Wilson intervals, token costs, gate rejections, paired McNemar tests."""
from repair.report.metrics import CampaignMetrics, Comparison, Rate, Report, build_report, compare, load_campaign

__all__ = ["CampaignMetrics", "Comparison", "Rate", "Report", "build_report", "compare", "load_campaign", "write_report"]


def write_report(paths, html=None) -> tuple[Report, str]:
    """Build the report of campaign directories; write the HTML page when asked; return it with its Markdown."""
    from pathlib import Path

    from repair.report.markdown import render_markdown

    report = build_report([Path(p) for p in paths])
    if html is not None:
        from repair.report.html import render_html

        Path(html).write_text(render_html(report), encoding="utf-8")
    return report, render_markdown(report)
