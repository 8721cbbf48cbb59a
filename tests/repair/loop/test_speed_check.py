"""repair.loop.speed on evaluation results made by hand: the device path (a timed near-miss and attempt) and the
refusal rules of --keep-speed, with no device and no sandbox."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from repair.errors import BadInput
from repair.loop.speed import SLOWER_RULE, SPEED_RULE, SpeedCheck, SpeedOptions

SHAPE = {"kernel": "k", "grid": [40], "programs": 40, "blocks": {"BLOCK": 1024}, "per_program": 1024,
         "elements": 40000, "num_warps": None, "num_stages": None}


def _eval(tier: str, programs: int = 40, ms: float | None = None):
    shape = dict(SHAPE, grid=[programs], programs=programs)
    case = SimpleNamespace(case_id="c4", guard_log={"shapes": [shape]})
    timing = {"candidate_ms": ms, "reference_ms": 2.0, "speedup": 2.0 / ms, "trials": 100, "device": "cuda"} \
        if ms else None
    return SimpleNamespace(tier=tier, cases=[case], timing=timing)


def _checkpoint(programs: int = 40, ms: float | None = None):
    return SimpleNamespace(compact=_eval("compact", programs), full=_eval("full", programs, ms))


class Log:
    def __init__(self):
        self.events = []

    def log(self, event, **fields):
        self.events.append((event, fields))


def _check(options: SpeedOptions, near_ms=None):
    check = SpeedCheck(options, judge=None, trajectory=Log())
    check.start(_checkpoint(ms=near_ms), path=None)
    return check


def test_on_a_device_the_time_decides_under_keep_speed():
    check = _check(SpeedOptions(keep=1.5), near_ms=1.0)
    slow = check.check(1, _checkpoint(ms=2.0))  # twice the near-miss's median: refused at F = 1.5
    assert slow["timing"] == {"near_miss_ms": 1.0, "attempt_ms": 2.0, "ratio": 2.0, "slower": True, "device": "cuda"}
    assert slow["flagged"] and slow["refused"] and check.rule(slow) == SLOWER_RULE
    ok = check.check(2, _checkpoint(ms=1.4))  # 1.4x: flagged (past 1.2), kept under F = 1.5
    assert ok["flagged"] and not ok["refused"]
    # as parallel as the near-miss by its launches, yet slower: the device's clock is what counts there
    assert not slow["parallelism"]["flagged"]
    assert [e for e, _ in check.trajectory.events] == ["speed", "speed"]


def test_off_device_the_guard_decides():
    check = _check(SpeedOptions(keep=1.0))
    serial = check.check(1, _checkpoint(programs=1))
    assert "timing" not in serial and serial["refused"] and check.rule(serial) == SPEED_RULE
    assert not check.check(2, _checkpoint(programs=20))["flagged"]  # 2x fewer: within the factor


def test_without_keep_speed_nothing_is_refused_and_the_factor_is_the_users():
    check = _check(SpeedOptions(factor=50.0))
    verdict = check.check(1, _checkpoint(programs=1))
    assert not verdict["flagged"] and not verdict["refused"]
    assert _check(SpeedOptions()).check(1, _checkpoint(programs=1))["flagged"]


def test_bad_factors():
    with pytest.raises(BadInput):
        SpeedOptions(keep=0.5)
    with pytest.raises(BadInput):
        SpeedOptions(factor=0.9)


def test_no_figures_compare_nothing():
    check = _check(SpeedOptions(keep=1.0))
    empty = SimpleNamespace(compact=SimpleNamespace(tier="compact", cases=[], timing=None), full=None)
    assert check.check(1, empty) is None
