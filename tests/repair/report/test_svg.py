"""Chart axes stay sensible for zero, one-value and small-count data: distinct round ticks, never 0, 0, 0, 1, 1."""
import re

import pytest

from repair.report import build_report
from repair.report.svg import cost_curve, tick_label, ticks, tokens_plot

from ledgers import make_ledger


@pytest.mark.parametrize("top,integer,expected", [
    (0, True, [0, 1]), (0, False, [0, 1]), (1, True, [0, 1]), (3, True, [0, 1, 2, 3]), (27, True, [0, 10, 20, 30]),
    (1100, True, [0, 500, 1000, 1500]), (0.4, False, [0, 0.1, 0.2, 0.30000000000000004, 0.4]), (5, True, [0, 2, 4, 6]),
])
def test_ticks_are_round_and_cover_the_data(top, integer, expected):
    got = ticks(top, integer)
    assert got == pytest.approx(expected) and got[-1] >= top and len(set(map(tick_label, got))) == len(got)


def test_tick_labels_are_short():
    assert [tick_label(v) for v in (0, 5, 2.5, 1500, 20000, 1_500_000)] == ["0", "5", "2.5", "1.5k", "20k", "1.5M"]


def _axis_labels(svg: str) -> list[str]:
    return re.findall(r'text-anchor="(?:middle|end)" class="muted">([^<]*)</text>', svg)


def test_a_token_chart_with_every_value_zero_draws_0_to_1_and_says_so(tmp_path):
    path = make_ledger(tmp_path / "scripted", "debug", {"a/n1": dict(status="repaired"), "b/n1": dict(status="repaired")})
    (c,) = build_report([path]).campaigns
    assert c.tokens_per_success == 0
    svg = tokens_plot([c])
    assert _axis_labels(svg) == ["0", "1"] and "every value is 0" in svg
    curve = cost_curve([c])
    labels = _axis_labels(curve)
    assert labels == ["0", "1", "0", "1", "2"]  # x: tokens 0..1; y: tasks 0..2, whole numbers
    assert "no tokens were counted" in curve


def test_a_single_value_gets_a_round_axis_above_it(tmp_path):
    path = make_ledger(tmp_path / "one", "debug", {"a/n1": dict(status="repaired", prompt_tokens=1234)})
    (c,) = build_report([path]).campaigns
    labels = _axis_labels(tokens_plot([c]))
    assert labels == ["0", "500", "1k", "1.5k"] and "every value is 0" not in tokens_plot([c])
    assert _axis_labels(cost_curve([c])) == ["0", "500", "1k", "1.5k", "0", "1"]
