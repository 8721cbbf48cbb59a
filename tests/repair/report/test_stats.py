import pytest

from repair.report.stats import PairedTable, mcnemar_exact, pass_at_k, wilson_interval


def test_mcnemar_matches_the_papers_reported_value():
    # Debug Pass@1 18/27 vs Regenerate Pass@3 11/27 with 7 solved by both: discordant 11 vs 4, p = 0.1185.
    assert mcnemar_exact(11, 4) == pytest.approx(0.1185, abs=5e-5)
    assert mcnemar_exact(4, 11) == mcnemar_exact(11, 4)


@pytest.mark.parametrize(
    "b,c,p",
    [(0, 0, 1.0), (1, 0, 1.0), (5, 0, 0.0625), (10, 2, 0.03857421875), (3, 3, 1.0)],
)
def test_mcnemar_exact_reference_values(b, c, p):
    assert mcnemar_exact(b, c) == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize(
    "k,n,lo,hi",
    [  # values from scipy.stats.binomtest(k, n).proportion_ci(method="wilson")
        (18, 27, 0.478248, 0.813567),
        (0, 10, 0.0, 0.277533),
        (10, 10, 0.722467, 1.0),
        (11, 27, 0.245148, 0.592733),
    ],
)
def test_wilson_reference_values(k, n, lo, hi):
    got = wilson_interval(k, n)
    assert got[0] == pytest.approx(lo, abs=1e-5)
    assert got[1] == pytest.approx(hi, abs=1e-5)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(5, 3)


def test_paired_table_counts_only_shared_operators():
    a = {"x": True, "y": True, "z": False, "w": False, "only_in_a": True}
    b = {"x": True, "y": False, "z": True, "w": False}
    t = PairedTable.from_outcomes(a, b)
    assert (t.both, t.only_a, t.only_b, t.neither) == (1, 1, 1, 1)
    assert t.mcnemar_p == 1.0


def test_pass_at_k():
    assert pass_at_k(3, 0, 1) == 0.0
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3)
    assert pass_at_k(3, 1, 3) == 1.0
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - (3 * 2) / (5 * 4))
