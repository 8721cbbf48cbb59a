"""The timing protocol's arithmetic (warm-up, trials, medians, spread, speedup, fast_p) on a fake clock, and that
the CPU backends never time anything (their results say why)."""
from __future__ import annotations

import pytest

from repair.engine.timing import (FAST_P, Timer, TimingPlan, cpu_note, fast_p, measure, stats, timed,
                                  timing_record)
from repair.errors import BadInput


class FakeDevice:
    """A device whose runs take the listed milliseconds, one after another, on its own clock."""

    def __init__(self, durations: list[float]):
        self.durations = list(durations)
        self.now = 0.0
        self.runs = 0
        self.syncs = 0

    def run(self):
        self.now += self.durations[self.runs]
        self.runs += 1

    def synchronize(self):
        self.syncs += 1

    def timer(self) -> Timer:
        device = self

        class _T(Timer):
            def start(self):
                self.t0 = device.now

            def stop(self):
                self.t1 = device.now

            def elapsed_ms(self):
                return self.t1 - self.t0

        return _T()


def test_warm_up_runs_are_not_timed():
    device = FakeDevice([50.0, 40.0, 3.0, 1.0, 2.0, 9.0])  # two slow warm-ups (compilation), four trials
    times = measure(device.run, device.timer, device.synchronize, TimingPlan(warmup=2, trials=4))
    assert times == [3.0, 1.0, 2.0, 9.0]
    assert device.runs == 6 and device.syncs == 5  # once after the warm-up, once after each trial


def test_median_and_spread():
    s = stats([3.0, 1.0, 2.0, 9.0])
    assert s["median_ms"] == 2.5 and s["min_ms"] == 1.0 and s["max_ms"] == 9.0 and s["trials"] == 4
    assert s["mean_ms"] == pytest.approx(3.75) and s["std_ms"] == pytest.approx(3.1124749)  # population std, as np.std
    assert stats([4.0])["std_ms"] == 0.0
    with pytest.raises(ValueError):
        stats([])


def test_the_median_ignores_an_outlier():
    device = FakeDevice([1.0] * 3 + [2.0] * 10 + [500.0])  # a trial that met a context switch
    s = stats(measure(device.run, device.timer, device.synchronize, TimingPlan(warmup=3, trials=11)))
    assert s["median_ms"] == 2.0 and s["max_ms"] == 500.0


def test_speedup_is_the_references_time_over_the_candidates():
    cand, ref, comp = stats([2.0, 2.0, 2.0]), stats([6.0, 5.0, 7.0]), stats([4.0, 4.0, 4.0])
    rec = timing_record(cand, ref, "cuda", comp, "c3")
    assert rec["candidate_ms"] == 2.0 and rec["reference_ms"] == 6.0 and rec["speedup"] == 3.0
    assert rec["trials"] == 3 and rec["device"] == "cuda" and rec["case"] == "c3"
    assert rec["compiled_ms"] == 4.0 and rec["speedup_vs_compiled"] == 2.0
    assert "compiled_ms" not in timing_record(cand, ref, "cuda")


def test_fast_p_counts_correct_and_faster():
    rows = [(True, 1.5), (True, 1.1), (True, 0.5), (False, 3.0), (True, None)]
    assert fast_p(rows, 1.0) == 2 / 5  # correct and faster than the reference
    assert fast_p(rows, 1.2) == 1 / 5  # ... by more than 1.2x
    assert fast_p(rows, 0.0) == 3 / 5  # fast_0 is correctness among the timed
    assert fast_p([(True, None)], 1.0) is None and fast_p([], 1.0) is None
    assert FAST_P == (1.0, 1.2)


def test_a_plan_needs_a_trial():
    with pytest.raises(BadInput):
        TimingPlan(warmup=0, trials=0)
    assert TimingPlan().as_dict() == {"warmup": 3, "trials": 100}  # KernelBench's


def test_a_cpu_device_is_never_timed():
    from repair.engine.backends import get_backend

    out = timed(lambda x: x, [1], get_backend("triton-cpu"), {"warmup": 1, "trials": 2})
    assert "timing" not in out and "timings are measured on cuda and npu only" in out["timing_error"]
    assert "triton-cpu" in cpu_note(get_backend("triton-cpu")) and "interpreter" in cpu_note(get_backend("triton-cpu"))
    assert "emulation" in cpu_note(get_backend("ascendc-cpu"))
    assert not get_backend("triton-cpu").timed and not get_backend("ascendc-cpu").timed
    assert get_backend("cuda").timed and get_backend("npu").timed


def test_the_engine_pairs_the_two_sides_timings():
    """What the candidate and reference processes sent back becomes the case's timing record, or says which side
    failed; the timed case is the largest by its whole-number parameters."""
    from types import SimpleNamespace

    from repair.engine.timing import case_timing, timed_case

    cand, ref = stats([2.0, 2.0]), stats([4.0, 4.0])
    rec = case_timing({"timing": cand}, {"timing": ref, "compiled": stats([3.0, 3.0])}, "cuda", "c5")
    assert (rec["speedup"], rec["speedup_vs_compiled"], rec["device"], rec["case"]) == (2.0, 1.5, "cuda", "c5")
    failed = case_timing({"timing_error": "RuntimeError: boom"}, None, "cuda", "c5")
    assert failed == {"error": "RuntimeError: boom", "device": "cuda", "case": "c5"}
    assert "malformed timing" in case_timing({"timing": {"median_ms": "x"}}, {"timing": ref}, "cuda", "c5")["error"]
    cases = [SimpleNamespace(case_id=i, params=p) for i, p in
             [("a", {"M": 32, "N": 64}), ("b", {"M": 40, "N": 1000, "flag": True}), ("c", {"M": 1}), ("d", {"N": 40000})]]
    assert timed_case(cases).case_id == "d"  # 40000 = 40 x 1000: the last of equals
