"""Does a rule's explanation fit what the evaluation saw? Its signatures (ingest.rules.model.Signature) against the cases.

A case is anything with the attributes of repair.workers.CaseView (`status`, `params`, `symptom`, `location`, `nan`,
`inf`, `message`): this module needs no engine. `fit` says `True` (a signature holds), `False` (the rule states
signatures and none holds: its bug would not look like this) or `None` (the rule states none, or no case is known).
"""
from __future__ import annotations

import re

# faults an emulator reports in a case's message, as cues: the protocol a kernel broke (ascendc-cpu's wording)
FAULT_CUES = (
    ("queue", r"after its (EnQue|FreeTensor)|LocalTensor was never allocated|buffers of the queue are in use|"
              r"DeQue of an empty queue|never DeQue'd"),
    # the fault of a stricter emulation, or ascendc-cpu's note that the NPU dropped a DataCopy's partial block
    ("datacopy-align", r"length must be a multiple of 32 bytes|its length is not a multiple of 32 bytes"),
    ("local-bounds", r"past the end of a LocalTensor|UB overflow|past the end of the TBuf|"
                     r"past the end of the unified buffer|"
                     r"elements of a LocalTensor<\w+> that has \d+ left"),
    # blocks run concurrently: two writing one GM range (every core on the first share, no atomic accumulate)
    ("gm-race", r"GM race between blocks"),
    # two pipes hand a UB buffer over with nothing ordering them (a kernel built with --cce-auto-sync=off): the message
    # names the buffer, both instructions with their file:line and the HardEvent that would order them
    ("pipe-race", r"pipe race on (a|the) "),
    ("gm-bounds", r"outside every GM tensor|bytes \[-?\d+, -?\d+\) of GM tensor|past the end of \w+|"
                  r"before the start of \w+"),
)
LOW_PRECISION = ("float16", "half", "bfloat16", "bf16", "fp16")


def case_cues(case) -> set[str]:
    """The cues one failing case shows: its symptom and location, `nan`, `unwritten`, its status and its faults."""
    cues = {getattr(case, "status", "")}
    for label in (getattr(case, "symptom", "none"), getattr(case, "location", "none")):
        if label and label != "none":
            cues.add(label)
    nan, inf = getattr(case, "nan", 0) or 0, getattr(case, "inf", 0) or 0
    if nan or inf:
        cues.add("nan")
    if nan:
        cues.add("unwritten")
    texts = [getattr(case, "message", "") or "", *(getattr(case, "notes", ()) or ())]  # the emulator's notes too
    cues.update(cue for cue, rx in FAULT_CUES if any(t and re.search(rx, t) for t in texts))
    return cues - {""}


def dtype_of(case) -> str:
    params = getattr(case, "params", None) or {}
    for key in ("dtype", "data_type", "input_dtype", "x_dtype"):
        if key in params:
            return str(params[key]).lower().removeprefix("torch.")
    return ""


def holds(sig, cases, backend: str | None = None) -> bool:
    """Does one signature hold of the evaluated tier's cases?"""
    if sig.backends and backend is not None and backend not in sig.backends:
        return False
    failing = [c for c in cases if getattr(c, "status", "pass") != "pass"]
    if not failing:
        return False
    cues = [case_cues(c) for c in failing]
    if sig.statuses and not all(getattr(c, "status", "") in sig.statuses for c in failing):
        return False
    if sig.cues and not any(set(sig.cues) & cs for cs in cues):
        return False
    if sig.every_case and not all(set(sig.every_case) & cs for cs in cues):
        return False
    if sig.absent and any(set(sig.absent) & cs for cs in cues):
        return False
    if sig.faults and not any(re.search(rx, getattr(c, "message", "") or "") for c in failing for rx in sig.faults):
        return False
    passing = [c for c in cases if getattr(c, "status", "") == "pass"]
    if sig.some_pass and not passing:
        return False
    if sig.low_precision_only:
        if not all(dtype_of(c) in LOW_PRECISION for c in failing):
            return False
        if not any(dtype_of(c) and dtype_of(c) not in LOW_PRECISION for c in passing):
            return False
    return True


def fit(rule, cases, backend: str | None = None) -> bool | None:
    """True: some signature of the rule holds; False: it states some and none holds; None: nothing to tell by."""
    sigs = getattr(rule, "explains", None) or []
    usable = [s for s in sigs if not (s.backends and backend is not None and backend not in s.backends)]
    if not sigs or not cases or not any(getattr(c, "status", "pass") != "pass" for c in cases):
        return None
    if not usable:
        return None  # it says how its bug shows elsewhere only
    return any(holds(s, cases, backend) for s in usable)
