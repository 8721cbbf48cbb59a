"""Kernel timing on device backends, as KernelBench times them: warm-up runs, then N trials each timed by a pair
of device events, the median and the spread reported; the reference timed the same way, with torch.compile's
time beside it where compiling works.

Only a device backend (cuda, npu) times anything: on triton-cpu the interpreter runs each program as Python, and on
ascendc-cpu the emulation runs each block as C++ on the host, so their times say nothing about a kernel's speed on
the device it was written for. There the parallelism guard (repair.engine.parallelism) stands in.

The arithmetic (measure, stats, fast_p) takes its clock as an argument: the tests give it a fake one.
"""
from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass

WARMUP = 3  # KernelBench's default warm-up runs
TRIALS = 100  # ... and timed trials
FAST_P = (1.0, 1.2)  # the report's fast_p thresholds

CPU_NOTE = ("timings are measured on device backends only (cuda, npu): on {backend} the kernels run on the CPU "
            "({how}), whose time says nothing about their speed on the device; the parallelism figures stand in")


def cpu_note(backend) -> str:
    how = "an emulation of the NPU" if backend.emulated else "the Triton interpreter"
    return CPU_NOTE.format(backend=backend.name, how=how)


@dataclass(frozen=True)
class TimingPlan:
    """How many runs: `warmup` untimed, then `trials` timed one by one."""

    warmup: int = WARMUP
    trials: int = TRIALS

    def __post_init__(self):
        from repair.errors import BadInput

        if self.warmup < 0 or self.trials < 1:
            raise BadInput(f"timing: {self.warmup} warm-up runs and {self.trials} trials (at least 1 trial)")

    def as_dict(self) -> dict:
        return {"warmup": self.warmup, "trials": self.trials}


class Timer:
    """A pair of timestamps around one run: `start()`, `stop()`, then `elapsed_ms()` once the device is idle."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def elapsed_ms(self) -> float: ...


class DeviceEventTimer(Timer):
    """torch.cuda.Event / torch.npu.Event with enable_timing: the device's own clock, not the host's."""

    def __init__(self, events_module):
        self._start = events_module.Event(enable_timing=True)
        self._end = events_module.Event(enable_timing=True)

    def start(self) -> None:
        self._start.record()

    def stop(self) -> None:
        self._end.record()

    def elapsed_ms(self) -> float:
        return float(self._start.elapsed_time(self._end))


def measure(run: Callable[[], object], new_timer: Callable[[], Timer], synchronize: Callable[[], None],
            plan: TimingPlan = TimingPlan()) -> list[float]:
    """Each trial's milliseconds: `plan.warmup` untimed runs, then `plan.trials` runs each between its timer's
    start and stop, the device synchronised after each (as KernelBench's timed_execution does)."""
    for _ in range(plan.warmup):
        run()
    synchronize()
    times = []
    for _ in range(plan.trials):
        timer = new_timer()
        timer.start()
        run()
        timer.stop()
        synchronize()
        times.append(timer.elapsed_ms())
    return times


def stats(times: Iterable[float]) -> dict:
    """Median (what is compared), mean, std, min and max of trial times in ms, and how many there were."""
    times = list(times)
    if not times:
        raise ValueError("no trial times")
    return {"median_ms": statistics.median(times), "mean_ms": statistics.fmean(times),
            "std_ms": statistics.pstdev(times) if len(times) > 1 else 0.0,
            "min_ms": min(times), "max_ms": max(times), "trials": len(times)}


def timing_record(candidate: dict, reference: dict, device: str, compiled: dict | None = None,
                  case_id: str | None = None) -> dict:
    """What a record carries: {candidate_ms, reference_ms, speedup, trials, device} (medians; speedup is the
    reference's time over the candidate's, > 1 faster), the spreads and torch.compile's time where it ran."""
    out = {"candidate_ms": candidate["median_ms"], "reference_ms": reference["median_ms"],
           "speedup": reference["median_ms"] / candidate["median_ms"] if candidate["median_ms"] > 0 else None,
           "trials": candidate["trials"], "device": device, "case": case_id,
           "candidate_std_ms": candidate["std_ms"], "reference_std_ms": reference["std_ms"]}
    if compiled is not None:
        out["compiled_ms"] = compiled["median_ms"]
        out["speedup_vs_compiled"] = (compiled["median_ms"] / candidate["median_ms"]
                                      if candidate["median_ms"] > 0 else None)
    return out


def fast_p(rows: Iterable[tuple[bool, float | None]], p: float) -> float | None:
    """KernelBench's fast_p: the share of problems whose kernel is correct AND more than p times faster than the
    reference (speedup > p). `rows`: (correct, speedup or None where untimed); None when nothing was timed."""
    rows = list(rows)
    if not rows or all(s is None for _, s in rows):
        return None
    return sum(1 for ok, s in rows if ok and s is not None and s > p) / len(rows)


# -- in the engine --------------------------------------------------------------------------------

def timed_case(cases: list):
    """The case a device backend times: the largest by the product of its whole-number parameters (shapes, in
    every problem here), the last of equals; its inputs are not built yet when this is chosen."""
    import math

    def size(c) -> int:
        return math.prod(v for v in c.params.values() if isinstance(v, int) and not isinstance(v, bool) and v > 0)

    return max(reversed(cases), key=size)


def plan_dict(timed) -> dict:
    """`evaluate(timed=...)`'s plan as the processes get it: a TimingPlan's, or KernelBench's defaults for True."""
    return (timed if isinstance(timed, TimingPlan) else TimingPlan()).as_dict()


def case_timing(candidate: dict, reference: dict | None, device: str, case_id: str) -> dict:
    """A timed case's record from what the candidate process (its reply header) and the reference process sent
    back, or {"error"} saying which side could not be timed."""
    reference = reference or {}
    if not isinstance(candidate.get("timing"), dict) or not isinstance(reference.get("timing"), dict):
        why = candidate.get("timing_error") or reference.get("timing_error") or "no timing came back"
        return {"error": str(why)[:300], "device": device, "case": case_id}
    try:
        return timing_record(candidate["timing"], reference["timing"], device, reference.get("compiled"), case_id)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:  # a malformed reply from the candidate
        return {"error": f"malformed timing from the candidate process: {e}", "device": device, "case": case_id}


# -- in the sandboxed processes ----------------------------------------------------------------------

def device_timer_factory(device: str) -> Callable[[], Timer]:
    """Device events for `device` (cuda, npu); a RuntimeError on a CPU device (never timed)."""
    import torch

    module = {"cuda": getattr(torch, "cuda", None), "npu": getattr(torch, "npu", None)}.get(device)
    if module is None:
        raise RuntimeError(f"no device events on {device!r}: timings are measured on cuda and npu only")
    return lambda: DeviceEventTimer(module)


def time_forward(model, inputs: list, backend, plan: dict) -> dict:
    """The stats of `model(*inputs)` under the plan, on the backend's device (in the candidate or reference
    process, after its correctness forward, under no_grad)."""
    import torch

    with torch.no_grad():
        times = measure(lambda: model(*inputs), device_timer_factory(backend.device), backend.synchronize,
                        TimingPlan(**plan))
    return stats(times)


def time_compiled(model, inputs: list, backend, plan: dict) -> dict | None:
    """torch.compile(model)'s stats, or None where compiling fails here (its first runs are the warm-up)."""
    import torch

    try:
        compiled = torch.compile(model)
        with torch.no_grad():
            compiled(*inputs)  # compiles
        return time_forward(compiled, inputs, backend, plan)
    except Exception:  # noqa: BLE001  (no compiler toolchain, an op inductor cannot lower: no compiled time)
        return None


def timed(model, inputs: list, backend, plan: dict, *, compiled: bool = False) -> dict:
    """What a role adds to its reply: {"timing": stats} (and {"compiled": stats or None}), or {"timing_error"}
    with the reason when timing failed (the correctness result stands either way)."""
    try:
        out = {"timing": time_forward(model, inputs, backend, plan)}
    except Exception as e:  # noqa: BLE001
        return {"timing_error": f"{type(e).__name__}: {e}"[:300]}
    if compiled:
        out["compiled"] = time_compiled(model, inputs, backend, plan)
    return out


def speed_lines(result) -> list[str]:
    """What `repair eval` prints about speed: the parallelism figures, the timing (or why there is none)."""
    lines = []
    p = result.parallelism
    if p:
        lines.append(f"parallelism (case {p['case']}): {p['programs']} programs x {p['per_program']:g} elements per "
                     f"program, {p['num_warps']:g} warps, {p['launches']} launch(es)")
    t = result.timing
    if t and "error" in t:
        lines.append(f"timing on {t['device']}: not measured ({t['error']})")
    elif t:
        spread = f" ±{t['candidate_std_ms']:.4f}" if t.get("candidate_std_ms") is not None else ""
        line = (f"timing on {t['device']} (case {t['case']}, median of {t['trials']} trials): candidate "
                f"{t['candidate_ms']:.4f}{spread} ms, reference {t['reference_ms']:.4f} ms, speedup "
                f"{t['speedup']:.2f}x" if t.get("speedup") else "timing: the candidate's median time is 0")
        if t.get("compiled_ms") is not None:
            line += f"; torch.compile {t['compiled_ms']:.4f} ms ({t['speedup_vs_compiled']:.2f}x)"
        lines.append(line)
    if result.timing_note:
        lines.append(f"timing: none ({result.timing_note})")
    return lines
