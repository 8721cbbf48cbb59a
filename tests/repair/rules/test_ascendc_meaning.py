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


# the big/small-core split: the forms of missing-block-offset and tail-tile-dropped that key on it
SPLIT_FORMS = ("small-core-", "last-tile-full-length", "last-core-remainder-")


def _split_fixes(bug_class: str, src: str) -> list[str]:
    return [a.patched_source for r in BY_CLASS[bug_class].rules if any(f in r.id for f in SPLIT_FORMS)
            for a in apply_rule(r, src)]


def _split_kernel(init: str, members: str = "    uint32_t n = 0;") -> str:
    return ('#include "kernel_operator.h"\nusing namespace AscendC;\n\nclass KernelX {\npublic:\n'
            "    __aicore__ inline void Init(GM_ADDR a, uint32_t big, uint32_t small, uint32_t nBig)\n    {\n"
            f"{init}\n        aGm.SetGlobalBuffer((__gm__ float *)a + off, this->n);\n    }}\n\nprivate:\n"
            f"    GlobalTensor<float> aGm;\n{members}\n}};\n")


def test_a_small_block_counts_its_index_from_the_big_blocks_only_in_their_branch():
    """The correction (big - small) * idx is scaled by idx - N in the branch only blocks from N on take, N read from
    that branch's condition; the same statement in the first N blocks' branch, or under a test of something other
    than the core's index, is left alone."""
    bad = _split_kernel("        uint32_t off = big * GetBlockIdx();\n        if (GetBlockIdx() < nBig) {\n"
                        "            this->n = big;\n        } else {\n            this->n = small;\n"
                        "            off -= (big - small) * GetBlockIdx();\n        }")
    assert _split_fixes("missing-block-offset", bad) == [bad.replace("* GetBlockIdx();\n        }",
                                                                     "* (GetBlockIdx() - nBig);\n        }")]
    lower = bad.replace("GetBlockIdx() < nBig", "GetBlockIdx() >= nBig")
    other = bad.replace("GetBlockIdx() < nBig", "small < nBig")
    assert _split_fixes("missing-block-offset", lower) == [] and _split_fixes("missing-block-offset", other) == []


def test_a_small_block_offset_written_whole_counts_from_n_only_after_whole_big_shares():
    """`big * N + small * idx` past the big blocks counts the small share from N (the big share is the one the other
    branch scales the index by); `small * idx + unit * N`, one unit more per big block before it, is right as it is."""
    def whole(upper: str) -> str:
        return _split_kernel("        uint32_t off = 0;\n        if (GetBlockIdx() < nBig) {\n"
                             "            off = big * GetBlockIdx();\n        } else {\n"
                             f"            off = {upper};\n        }}")
    bad = whole("nBig * big + small * GetBlockIdx()")
    assert _split_fixes("missing-block-offset", bad) == [whole("nBig * big + small * (GetBlockIdx() - nBig)")]
    assert _split_fixes("missing-block-offset", whole("small * GetBlockIdx() + unit * nBig")) == []
    assert _split_fixes("missing-block-offset", whole("nBig * big + small * (GetBlockIdx() - nBig)")) == []


def _tiles(assign: str, extra: str = "") -> str:
    return _split_kernel("        uint32_t off = 0;\n        this->tail = small;\n        this->len = big;\n"
                         "        for (uint32_t i = 0; i < nBig; i++) {\n"
                         f"            if ({assign}) {{\n                this->len = big;\n            }}\n"
                         f"            Step(i);\n        }}{extra}",
                         "    uint32_t n = 0, tail = 0, len = 0;")


def test_the_last_tile_takes_the_tail_length_only_where_the_kernel_drops_it():
    """`len = full` in the last tile's branch (which holds full already) becomes the tail's length the kernel set and
    never reads; not where the tail is read elsewhere, nor in a branch that is not the last tile's."""
    bad = _tiles("i == nBig - 1")
    assert _split_fixes("tail-tile-dropped", bad) == [bad.replace("    this->len = big;\n            }",
                                                                  "    this->len = this->tail;\n            }")]
    assert _split_fixes("tail-tile-dropped", _tiles("i + 1 == nBig")) != []
    assert _split_fixes("tail-tile-dropped", _tiles("i == 0")) == []
    assert _split_fixes("tail-tile-dropped", _tiles("i == nBig - 1", "\n        Step(this->tail);")) == []


def _rest(set_rest: str, length: str = "each") -> str:
    kernel = ('#include "kernel_operator.h"\nusing namespace AscendC;\n\nclass KernelX {\npublic:\n'
              "    __aicore__ inline void Init(GM_ADDR a, uint32_t each, uint32_t rest)\n    {\n"
              f"        this->n = {length};\n        aGm.SetGlobalBuffer((__gm__ float *)a + each * GetBlockIdx(), "
              "this->n);\n    }\n\nprivate:\n    GlobalTensor<float> aGm;\n    uint32_t n = 0;\n};\n")
    host = ("static ge::graphStatus TilingFunc(gert::TilingContext *ctx)\n{\n    uint32_t each = total / cores;\n"
            f"    tiling.set_each(each);\n    {set_rest}\n    return ge::GRAPH_SUCCESS;\n}}\n")
    return kernel + host


def test_the_last_block_adds_only_a_remainder_the_host_computed():
    """A block's length that is the share its offset strides by takes the remainder the host hands the kernel
    (`total % cores`, `total - cores * each`) on the last block; a parameter the host sets from something else
    (the shape) is not a remainder, and a kernel that reads the remainder already is right."""
    fixed = "this->n = each + (GetBlockIdx() == GetBlockNum() - 1 ? rest : 0);"
    for rest in ("tiling.set_rest(total % cores);", "uint32_t rest = total - cores * each;\n    tiling.set_rest(rest);"):
        assert [f.count(fixed) for f in _split_fixes("tail-tile-dropped", _rest(rest))] == [1], rest
    assert _split_fixes("tail-tile-dropped", _rest("tiling.set_rest(total);")) == []
    correct = _rest("tiling.set_rest(total % cores);", "each + (GetBlockIdx() + 1 == GetBlockNum() ? rest : 0)")
    assert _split_fixes("tail-tile-dropped", correct) == []


def test_no_split_form_fires_on_the_correct_kernels_of_its_development_operators():
    from pathlib import Path

    from repair.ascendc import load_candidate

    dev = Path(__file__).resolve().parent / "data" / "dev_ascendc"
    for op in ("big_small", "rest_last"):
        sources = load_candidate(dev / op / "correct.py").sources
        texts = tuple(s.text for s in sources)
        for s in sources:
            fired = [a.rule_id for p in ("missing-block-offset", "tail-tile-dropped") for r in BY_CLASS[p].rules
                     for a in apply_rule(r, s.text, companions=tuple(t for t in texts if t is not s.text))]
            assert fired == [], (op, s.name, fired)
