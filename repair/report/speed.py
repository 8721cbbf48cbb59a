"""The report's speed section: fast_p beside Pass@1 per arm, and the parallelism guard's counts."""
from __future__ import annotations

SPEED_HEAD = ["campaign", "Pass@1 [95% CI]", "fast_1.0 [95% CI]", "fast_1.2 [95% CI]", "parallelism flagged",
              "refused (--keep-speed)"]
SPEED_NOTE = ("fast_p (KernelBench): the share of runs whose final kernel is correct and more than p times faster "
              "than the reference, timed on the device (median of 100 trials with device events). Timings come from "
              "the cuda and npu backends only: on triton-cpu and ascendc-cpu nothing is timed ('not timed'), and the "
              "parallelism guard stands in: runs whose final kernel cut the near-miss's programs, elements per "
              "program or warps past the guard's factor (default 4), of the runs with figures to compare.")


def _pct(rate) -> str:
    if rate is None or rate.value is None:
        return "not timed"
    return f"{100 * rate.value:.1f}% [{100 * rate.low:.1f}, {100 * rate.high:.1f}]"


def speed_row(c) -> list[str]:
    pass1 = _pct(c.pass_at_1) if c.pass_at_1.value is not None else "–"
    return [c.name, pass1, _pct(c.fast_1), _pct(c.fast_1_2),
            f"{c.speed_flagged}/{c.speed_measured}" if c.speed_measured else "–", str(c.speed_refused)]


def speed_section(campaigns) -> list[str]:
    rows = [SPEED_HEAD, ["---"] * len(SPEED_HEAD), *(speed_row(c) for c in campaigns)]
    return ["## Speed", "", *("| " + " | ".join(r) + " |" for r in rows), "", SPEED_NOTE]
