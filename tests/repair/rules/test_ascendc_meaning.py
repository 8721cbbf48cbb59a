"""AscendC rules by what the code does: one bug in three spellings of the API gets one fix spelt as its file spells
AscendC; a bug at two sites is fixed at both in one candidate; a rule whose explanation the evaluated cases
contradict is not tried; a rewrite keeps the `__gm__` of the cast it copies."""
from __future__ import annotations

import re

import pytest

from ingest.rules import apply_rule
from repair.rules.build_starter import pattern_id
from repair.rules.catalog import ASCENDC_STARTER
from repair.workers.base import CaseView, Pattern
from repair.workers.rules_worker import candidates

BY_CLASS = {p.bug_class: p for p in ASCENDC_STARTER}


def _pattern(bug_class: str) -> Pattern:
    p = BY_CLASS[bug_class]
    return Pattern(id=pattern_id(p), score=1.0, title=p.title, bug_class=p.bug_class, fix=p.fix,
                   rules=tuple(r.to_dict() for r in p.rules))


def _kernel(head: str, q: str, body: str) -> str:
    return (f'#include "kernel_operator.h"\n{head}\nclass KernelX {{\npublic:\n    __aicore__ inline void Out(uint32_t at, '
            f"uint32_t cnt)\n    {{\n{body}\n    }}\n\nprivate:\n    {q}TQue<{q}QuePosition::VECOUT, 2> qOut;\n"
            f"    {q}GlobalTensor<float> yGm;\n}};\n")


SPELLINGS = {  # how the file reaches AscendC -> the qualifier its names take
    "using": ("using namespace AscendC;", ""),
    "qualified": ("", "AscendC::"),
    "alias": ("namespace AC = AscendC;", "AC::"),
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_an_unaligned_copy_is_padded_whatever_the_qualification(spelling):
    head, q = SPELLINGS[spelling]
    src = _kernel(head, q, f"        {q}LocalTensor<float> t = qOut.DeQue<float>();\n"
                           f"        {q}DataCopy(yGm[at], t, cnt);\n        qOut.FreeTensor(t);")
    fixed = [a.patched_source for r in BY_CLASS["unaligned-datacopy"].rules for a in apply_rule(r, src)]
    assert fixed, spelling
    assert any(f"{q}DataCopyPad(yGm[at], t, {q}DataCopyExtParams{{" in f for f in fixed), fixed[0]
    # a name the rewrite introduces carries the file's qualifier: never a bare DataCopyExtParams where it needs one
    if q:
        assert not any(re.search(r"(?<![:\w])DataCopyExtParams", f) for f in fixed)


def test_a_bug_at_two_sites_is_fixed_at_both_in_one_candidate():
    one = ("        {q}LocalTensor<float> o{i} = qOut.AllocTensor<float>();\n        qOut.EnQue(o{i});\n"
           "        Exp(o{i}, o{i}, cnt);\n")
    good = ("        {q}LocalTensor<float> o{i} = qOut.AllocTensor<float>();\n        Exp(o{i}, o{i}, cnt);\n"
            "        qOut.EnQue(o{i});\n")
    src = _kernel("", "AscendC::", one.format(q="AscendC::", i=1) + one.format(q="AscendC::", i=2))
    want = _kernel("", "AscendC::", good.format(q="AscendC::", i=1) + good.format(q="AscendC::", i=2))
    ranked = candidates(src, [_pattern("queue-out-of-order")], "ascendc")
    assert ranked and " ".join(ranked[0].application.patched_source.split()) == " ".join(want.split())


def _case(**kw) -> CaseView:
    return CaseView(case_id="0", tier="compact", **kw)


def test_a_rule_is_not_tried_where_the_cases_contradict_its_explanation():
    src = _kernel("using namespace AscendC;", "", "        LocalTensor<float> o = qOut.AllocTensor<float>();\n"
                  "        qOut.EnQue(o);\n        Exp(o, o, cnt);")
    pats = [_pattern("queue-out-of-order")]
    queue = [_case(status="error", message="ascendc-cpu: Exp writes a LocalTensor after its EnQue")]
    plain = [_case(status="mismatch", symptom="uniform-drift", location="everywhere")]
    assert candidates(src, pats, "ascendc", cases=queue, backend="ascendc-cpu")
    assert candidates(src, pats, "ascendc", cases=plain, backend="ascendc-cpu") == []
    # another backend's evaluation says nothing about how the bug shows on ascendc-cpu: the rule is tried
    assert candidates(src, pats, "ascendc", cases=plain, backend="npu")


def test_a_rewrite_keeps_the_address_space_of_the_cast():
    src = _kernel("using namespace AscendC;", "",
                  "        uint32_t off = cnt * GetBlockIdx();\n        yGm.SetGlobalBuffer((__gm__ float *)y, cnt);")
    fixed = [a.patched_source for r in BY_CLASS["missing-block-offset"].rules for a in apply_rule(r, src)]
    assert fixed and all("(__gm__ float *)y +" in f for f in fixed), fixed


def test_a_bound_call_keeps_the_qualifier_the_view_blanked():
    """A metavariable bound to `AscendC::GetBlockIdx()` inside the match is written back qualified, in a file that
    does not reach the namespace unqualified (a bare GetBlockIdx() would not build there)."""
    from ingest.rules.model import Rule

    src = _kernel("", "AscendC::", "        uint32_t off = AscendC::GetBlockIdx() * cnt;")
    swap = Rule(id="t/swap", language="cpp", pattern="$TY $O = $C * $L;", rewrite="$TY $O = $L * $C;")
    fixed = [a.patched_source for a in apply_rule(swap, src)]
    assert fixed and "uint32_t off = cnt * AscendC::GetBlockIdx();" in fixed[0], fixed
    stride = _kernel("", "AscendC::", "        uint32_t off = AscendC::GetBlockIdx() * tileLen;\n"
                                      "        this->n = total - off < share ? total - off : share;")
    out = [a.patched_source for r in BY_CLASS["missing-block-offset"].rules for a in apply_rule(r, stride)]
    assert out and all("AscendC::GetBlockIdx() * share;" in f for f in out), out


def test_a_gm_race_between_blocks_is_explained_by_a_missing_offset():
    """Every core writing the first share is a race on an emulation that runs blocks concurrently: the missing
    offset's explanation fits it, a queue rule's does not."""
    src = _kernel("using namespace AscendC;", "",
                  "        uint32_t off = cnt * GetBlockIdx();\n        yGm.SetGlobalBuffer((__gm__ float *)y, cnt);")
    race = [_case(status="error", message="ascendc-cpu: GM race between blocks 0 and 1: block 0 writes bytes "
                                          "[0, 1024) of output y (DataCopyPad at k.cpp:12) and block 1 writes them")]
    found = candidates(src, [_pattern("missing-block-offset"), _pattern("queue-out-of-order")], "ascendc",
                       cases=race, backend="ascendc-cpu")
    assert found and found[0].explained is True and found[0].pattern.bug_class == "missing-block-offset"


def test_two_forms_of_one_fix_are_tried_together_where_the_cases_confirm_them():
    """A copy-in and a copy-out, each too short to be whole blocks, need two rules of one class: after each alone,
    the worker proposes both at once, when the evaluation shows the class's fault (and not without evidence)."""
    from repair.ascendc.bundle import Bundle, BundleFile

    body = ("        LocalTensor<half> t = qIn.AllocTensor<half>();\n        DataCopy(t, aGm[at], cnt);\n"
            "        qIn.EnQue(t);\n        LocalTensor<half> o = qOut.DeQue<half>();\n"
            "        DataCopy(bGm[at], o, cnt);\n        qOut.FreeTensor(o);")
    members = ("    TQue<QuePosition::VECIN, 2> qIn;\n    TQue<QuePosition::VECOUT, 2> qOut;\n"
               "    GlobalTensor<half> aGm, bGm;")
    kernel = ('#include "kernel_operator.h"\nusing namespace AscendC;\n\nclass KernelX {\npublic:\n'
              f"    __aicore__ inline void Run(uint32_t at, uint32_t cnt)\n    {{\n{body}\n    }}\n\nprivate:\n"
              f"{members}\n}};\n")
    src = Bundle("mkb-sources", (BundleFile("op_kernel/x.cpp", "kernel", kernel),)).text
    pats = [_pattern("unaligned-datacopy")]
    fault = [_case(status="mismatch", notes=("ascendc-cpu: DataCopy of 10 half: its length is not a multiple of 32 "
                                             "bytes; the NPU moves whole blocks",))]
    ranked = candidates(src, pats, "ascendc", cases=fault, backend="ascendc-cpu")
    both = [c for c in ranked if c.application.location.startswith("rules:")]
    assert len(ranked) == 3 and ranked[-1] is both[0]
    assert both[0].application.patched_source.count("DataCopyPad(") == 2
    assert not any(c.application.location.startswith("rules:") for c in candidates(src, pats, "ascendc"))
