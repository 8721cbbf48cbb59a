"""missing-pipe-sync: a buffer handed from one pipe to another with no SetFlag/WaitFlag gets the pair it lacks, spelt
as the file spells its flags (`AscendC::` or not, an alias, its own wait macro), and only where the evaluation shows
a pipe race; the development near-miss (which fails only with REPAIR_ASCENDC_AUTO_SYNC=off) is repaired on
ascendc-cpu, and the rewrite still passes with the default auto-sync."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ingest.rules import apply_rule
from ingest.rules.evidence import fit
from repair.rules.catalog import ASCENDC_STARTER

DEV = Path(__file__).resolve().parent / "data" / "dev_ascendc"
RULES = next(p for p in ASCENDC_STARTER if p.bug_class == "missing-pipe-sync").rules

# a row's max read by the scalar unit: the first ReduceMax's V_S flag is there, the second's is missing
BODY = """
class KernelX {
public:
    __aicore__ inline void Run()
    {
        {T}LocalTensor<float> a = aBuf.Get<float>();
        {T}LocalTensor<float> w = wBuf.Get<float>();
        {Q}ReduceMax(w, a, a, 64);
        event_t first = static_cast<event_t>({Q}GetTPipePtr()->FetchEventID({Q}HardEvent::V_S));
        {Q}SetFlag<{Q}HardEvent::V_S>(first);
        {Q}WaitFlag<{Q}HardEvent::V_S>(first);
        float m = w.GetValue(0);
        {Q}Adds(a, a, -m, 64);
        {Q}ReduceSum(w, a, a, 64);
        float s = w.GetValue(0);
        out = m + s;
    }

private:
    {T}TBuf<{T}TPosition::VECCALC> aBuf, wBuf;
    float out = 0.0f;
};
"""
SPELLINGS = {
    "using": ('#include "kernel_operator.h"\nusing namespace AscendC;\n', "", ""),
    "qualified": ('#include "kernel_operator.h"\n', "AscendC::", "AscendC::"),
    "alias": ('#include "kernel_operator.h"\nnamespace AC = AscendC;\n', "AC::", "AC::"),
}


def _kernel(spelling: str) -> str:
    head, q, t = SPELLINGS[spelling]
    return head + BODY.replace("{Q}", q).replace("{T}", t)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_the_missing_flag_is_inserted_in_the_files_spelling(spelling):
    src = _kernel(spelling)
    q = SPELLINGS[spelling][1]
    apps = [a for r in RULES for a in apply_rule(r, src)]
    assert len(apps) == 1, [a.location for a in apps]
    fixed = apps[0].patched_source
    want = (f"        event_t eventIdVToS = static_cast<event_t>({q}GetTPipePtr()->FetchEventID({q}HardEvent::V_S));\n"
            f"        {q}SetFlag<{q}HardEvent::V_S>(eventIdVToS);\n"
            f"        {q}WaitFlag<{q}HardEvent::V_S>(eventIdVToS);\n"
            "        float s = w.GetValue(0);\n")
    assert want in fixed, fixed
    assert [a for r in RULES for a in apply_rule(r, fixed)] == []  # nothing left unordered


def test_the_files_own_wait_macro_is_used():
    src = ('#include "kernel_operator.h"\nusing namespace AscendC;\n'
           "#define WAIT_PIPE(tpipe, evt) do { event_t e = static_cast<event_t>((tpipe).FetchEventID(HardEvent::evt)); \\\n"
           "    SetFlag<HardEvent::evt>(e); WaitFlag<HardEvent::evt>(e); } while (0)\n"
           "class K {\npublic:\n    __aicore__ inline void Run()\n    {\n"
           "        LocalTensor<half> r = rowBuf.Get<half>();\n        LocalTensor<half> o = outBuf.Get<half>();\n"
           "        DataCopy(r, xGm[0], 64);\n        Adds(o, r, (half)0, 64);\n        WAIT_PIPE(pipe, V_MTE3);\n"
           "        DataCopy(yGm[0], o, 64);\n        WAIT_PIPE(pipe, MTE3_V);\n        WAIT_PIPE(pipe, V_MTE2);\n    }\n"
           "    TPipe pipe;\n    TBuf<TPosition::VECCALC> rowBuf, outBuf;\n    GlobalTensor<half> xGm, yGm;\n};\n")
    apps = [a for r in RULES for a in apply_rule(r, src)]
    assert len(apps) == 1
    assert "        DataCopy(r, xGm[0], 64);\n        WAIT_PIPE(pipe, MTE2_V);\n        Adds(o, r" in \
        apps[0].patched_source
    # the file orders MTE2 and the vector pipe by hand elsewhere (V_MTE2): without that, nothing says it is not
    # written for the compiler's auto-sync, and its unflagged hand-over is left alone
    bare = src.replace("        WAIT_PIPE(pipe, V_MTE2);\n", "")
    assert [a for r in RULES for a in apply_rule(r, bare)] == []


@dataclass
class Case:
    status: str
    message: str = ""
    params: dict | None = None


def test_it_is_tried_only_where_the_evaluation_shows_a_pipe_race():
    race = Case("error", "pipe race on a TBuf (UB offset 0, 256 bytes): GetValue on the scalar pipe reads UB bytes "
                         "[0, 4) that ReduceSum on the vector pipe wrote at kernel.cpp:14, and no queue, "
                         "SetFlag/WaitFlag<HardEvent::V_S> or PipeBarrier<PIPE_ALL> orders the two")
    wrong = Case("mismatch")
    for r in RULES:
        assert fit(r, [race], "ascendc-cpu") is True
        assert fit(r, [wrong, Case("pass")], "ascendc-cpu") is False  # wrong values, no race: another bug


def _eval_off(problem: Path, cand: Path) -> dict:
    """`repair eval` in a process of its own with auto-sync off (the engine's fork servers keep their environment)."""
    env = {**os.environ, "REPAIR_ASCENDC_AUTO_SYNC": "off"}
    p = subprocess.run([sys.executable, "-m", "repair", "eval", "--backend", "ascendc-cpu", "--tier", "compact",
                        "--json", "--seed", "1", str(problem), str(cand)], env=env, capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    return json.loads(p.stdout)


def test_the_development_near_miss_is_repaired_with_auto_sync_off(tmp_path):
    """It fails with a pipe race naming MTE2_V; the rules worker's first candidate, given those cases, is this class's
    and passes with auto-sync off; with auto-sync on (the default) the rewrite passes as the near-miss did."""
    from repair.ascendc import load_candidate
    from repair.ascendc.bundle import parse_bundle, to_bundle, write_candidate
    from repair.engine import evaluate
    from repair.rules.build_starter import pattern_id
    from repair.workers.base import Pattern
    from repair.workers.rules_worker import candidates

    d, name = DEV / "half_row_sum", "nearmiss_no_mte2_v.py"
    before = _eval_off(d / "problem.py", d / name)
    cases = [Case(c["status"], c.get("message") or "") for c in before["cases"]]
    assert any(c.status != "pass" for c in cases)
    assert any("pipe race" in c.message and "HardEvent::MTE2_V" in c.message for c in cases), before["cases"]
    pats = [Pattern(id=pattern_id(p), score=1.0, title=p.title, bug_class=p.bug_class, fix=p.fix,
                    rules=tuple(r.to_dict() for r in p.rules)) for p in ASCENDC_STARTER]
    ranked = candidates(to_bundle(load_candidate(d / name)), pats, "ascendc", cases=cases, backend="ascendc-cpu")
    assert ranked and ranked[0].pattern.bug_class == "missing-pipe-sync", [c.pattern.bug_class for c in ranked]
    fixed = write_candidate(parse_bundle(ranked[0].application.patched_source), tmp_path / "fixed",
                            original=d / name)
    after = _eval_off(d / "problem.py", fixed)
    assert after["cases"] and all(c["status"] == "pass" for c in after["cases"]), after["cases"]
    assert evaluate(d / "problem.py", fixed, backend="ascendc-cpu", seed=1, tier="compact").passed
