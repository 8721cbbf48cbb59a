"""The report's speed section: fast_p at 1.0 and 1.2 beside Pass@1 per arm, from the ledger's speed columns; the
CPU backends' campaigns say 'not timed'; a ledger written before those columns still reads."""
from repair.campaign.ledger import Ledger
from repair.report.markdown import render_markdown
from repair.report.build import build_report
from repair.report.metrics import load_campaign

from ledgers import make_ledger


def test_fast_p_beside_pass_at_1(tmp_path):
    path = make_ledger(tmp_path / "gpu", "debug", {
        "a/nearmiss_1": dict(status="repaired", speedup=1.5, speed_flagged=False),  # fast at 1.0 and 1.2
        "b/nearmiss_1": dict(status="repaired", speedup=1.1, speed_flagged=False),  # fast at 1.0 only
        "c/nearmiss_1": dict(status="repaired", speedup=0.4, speed_flagged=True, speed_refused=2),  # correct, slow
        "d/nearmiss_1": dict(status="failed", speedup=3.0),  # fast, not correct: counts for neither
    })
    m = load_campaign(path)
    assert m.pass_at_1.value == 3 / 4
    assert m.fast_1.value == 2 / 4 and m.fast_1_2.value == 1 / 4
    assert (m.speed_measured, m.speed_flagged, m.speed_refused) == (3, 1, 2)
    text = render_markdown(build_report([path]))
    assert "## Speed" in text and "| gpu | 75.0% [" in text and "| 50.0% [" in text and "| 25.0% [" in text
    assert "| 1/3 | 2 |" in text
    from repair.report.html import render_html

    page = render_html(build_report([path]))
    assert "<h2>Speed</h2>" in page and "fast_1.2" in page


def test_cpu_campaigns_are_not_timed(tmp_path):
    path = make_ledger(tmp_path / "cpu", "debug", {"a/nearmiss_1": dict(status="repaired", speed_flagged=True)})
    m = load_campaign(path)
    assert m.fast_1 is None and m.fast_1_2 is None and m.speed_flagged == 1
    assert "| cpu | 100.0% [" in render_markdown(build_report([path])) and "not timed | not timed | 1/1 |" in \
        render_markdown(build_report([path]))


def test_a_ledger_from_before_the_speed_columns_reads(tmp_path):
    path = make_ledger(tmp_path / "old", "debug", {"a/nearmiss_1": dict(status="repaired")})
    with Ledger(path).connect() as con:
        for col in ("speed_flagged", "speed_shrink", "speedup", "speed_refused"):
            con.execute(f"ALTER TABLE runs DROP COLUMN {col}")
    m = load_campaign(path)
    assert m.repaired == 1 and m.fast_1 is None and m.speed_measured == 0
