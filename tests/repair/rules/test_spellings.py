"""The starter rules match a bug class by what the code does, not by one spelling of it.

Each case is a small kernel written another way than the suites' near-misses (other names, an upcast, a
helper variable, a grid lambda, an equivalent bound); the class's rules must propose the fix, and must
leave the correct spelling alone.
"""
from __future__ import annotations

import pytest

from ingest.rules import apply_rules
from repair.rules.catalog import STARTER

BY_CLASS = {p.bug_class: list(p.rules) for p in STARTER if p.language == "triton"}

HEAD = "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _kernel(params: str, body: str) -> str:
    return HEAD + f"def kern({params}):\n" + "".join(f"    {ln}\n" for ln in body.strip().splitlines())


ROW = "src, dst, ncols, rstride, TILE: tl.constexpr"
LOAD = "vals = tl.load(src + r * rstride + c, mask=c < ncols{other}){cast}"
PRE = "r = tl.program_id(0)\nc = tl.arange(0, TILE)\n"


LAUNCH = ("\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        out = torch.empty_like(x)\n"
          "        kern[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), 1, TILE=128)\n        return out\n")


def _row(load_other: str, rest: str, cast: str = "") -> str:
    return _kernel(ROW, PRE + LOAD.format(other=load_other, cast=cast) + "\n" + rest)


CASES = [
    # missing-other: the identity follows the reduction the value reaches, through casts and arithmetic
    ("missing-other", _row("", "tl.store(dst + r, tl.log(tl.sum(tl.exp(vals - tl.max(vals, 0)), 0)))",
                           ".to(tl.float32)"), 'other=-float("inf")).to(tl.float32)'),
    ("missing-other", _row("", "s = vals * 0.5\nlo = tl.min(s, axis=0)\ntl.store(dst + r, lo)"), 'other=float("inf")'),
    ("missing-other", _row("", "acc = tl.zeros([TILE], tl.float32)\nacc += vals * vals\ntl.store(dst + r, tl.sum(acc, 0))"),
     "other=0.0"),
    # wrong fill: a masked select that pads a max with 0
    ("wrong-fill-value", _row(", other=0.0", "tl.store(dst + r, tl.max(vals, 0))"), 'other=-float("inf")'),
    # mask off by one, however it is written
    ("mask-off-by-one", _row("", "tl.store(dst + r, tl.sum(vals, 0))").replace("c < ncols", "c <= ncols"),
     "mask=c < ncols"),
    ("mask-off-by-one", _row("", "tl.store(dst + r, tl.sum(vals, 0))").replace("c < ncols", "ncols >= c"),
     "mask=ncols > c"),
    ("mask-off-by-one", _kernel(ROW, PRE + "ok = c < ncols - 1\nv = tl.load(src + c, mask=ok)\ntl.store(dst + c, v, mask=ok)"),
     "ok = c < ncols\n"),
    # loop bounds: a block short in any form, through a variable
    ("loop-tail", _kernel(ROW, "acc = 0.0\nnblocks = ncols // TILE\nfor b in range(nblocks):\n"
                               "    c = b * TILE + tl.arange(0, TILE)\n"
                               "    acc += tl.sum(tl.load(src + c, mask=c < ncols, other=0.0), 0)\ntl.store(dst, acc)"),
     "nblocks = tl.cdiv(ncols, TILE)"),
    ("loop-tail", _kernel(ROW, "acc = 0.0\nfor s in tl.range(0, ncols - TILE, TILE):\n"
                               "    c = s + tl.arange(0, TILE)\n"
                               "    acc += tl.sum(tl.load(src + c, mask=c < ncols, other=0.0), 0)\ntl.store(dst, acc)"),
     "tl.range(0, ncols, TILE)"),
    ("loop-tail", _kernel(ROW, "acc = 0.0\ns = 0\nwhile s + TILE <= ncols:\n"
                               "    c = s + tl.arange(0, TILE)\n"
                               "    acc += tl.sum(tl.load(src + c, mask=c < ncols, other=0.0), 0)\n"
                               "    s += TILE\ntl.store(dst, acc)"), "while s < ncols:"),
    # reduction identities, initialised as a scalar or a tensor
    ("reduction-init", _row(', other=-float("inf")', "m = 0.0\nm = tl.maximum(m, tl.max(vals, 0))\ntl.store(dst + r, m)"),
     'm = -float("inf")'),
    ("reduction-init", _row(', other=float("inf")', "lo = tl.zeros_like(vals)\nlo = tl.minimum(lo, vals)\n"
                                                    "tl.store(dst + r, tl.min(lo, 0))"),
     'lo = tl.full(vals.shape, float("inf"), vals.dtype)'),
    # precision
    ("fp16-accumulation", _row(", other=0.0", "acc = tl.zeros([TILE], dtype=tl.bfloat16)\nacc += vals\n"
                                              "tl.store(dst + r, tl.sum(acc, 0))"), "dtype=tl.float32"),
    # overflow
    ("exp-overflow", _row(", other=0.0", "tl.store(dst + r + c, vals * tl.exp(vals) / (1 + tl.exp(vals)), mask=c < ncols)"),
     "vals * tl.sigmoid(vals)"),
    ("exp-overflow", _row(", other=0.0", "e = tl.exp(vals)\nt = (1.0 - e) / (1.0 + e)\ntl.store(dst + r + c, t, mask=c < ncols)"),
     "t = 2.0 / (e + 1.0) - 1.0"),
    ("missing-max-subtraction", _row(', other=-float("inf")', "p = tl.exp(vals)\ntl.store(dst + r + c, p / tl.sum(p, 0), mask=c < ncols)"),
     "vals = vals - tl.max(vals, axis=0)"),
    # online softmax in base 2
    ("missing-online-rescale", _kernel(ROW, 'm = -float("inf")\nl = 0.0\nfor s in range(0, ncols, TILE):\n'
                                            '    c = s + tl.arange(0, TILE)\n'
                                            '    v = tl.load(src + c, mask=c < ncols, other=-float("inf"))\n'
                                            '    m_new = tl.maximum(m, tl.max(v, 0))\n'
                                            '    l = l + tl.sum(tl.exp2(v - m_new), 0)\n    m = m_new\ntl.store(dst, l)'),
     "l = l * tl.exp2(m - m_new) + tl.sum"),
    # eps: after the root, or passed and never added
    ("eps-placement", _row(", other=0.0", "v = tl.sum(vals * vals, 0) / ncols\ntl.store(dst + r, vals / tl.sqrt(v) + 1e-6)"),
     "vals / tl.sqrt(v + 1e-6)"),
    ("eps-placement", _kernel("src, dst, ncols, epsilon, TILE: tl.constexpr",
                              "c = tl.arange(0, TILE)\nv = tl.load(src + c, mask=c < ncols, other=0.0)\n"
                              "ms = tl.sum(v * v, 0) / ncols\ntl.store(dst + c, v * tl.rsqrt(ms), mask=c < ncols)"),
     "tl.rsqrt(ms + epsilon)"),
    # a mean divided by the block instead of the count, and a one-pass variance kept as a mean of squares
    ("wrong-divisor", _row(", other=0.0", "total = tl.sum(vals, axis=0)\ntl.store(dst + r, total / TILE)"),
     "total / ncols"),
    # a causal mask that excludes the diagonal; offsets that add the program id unscaled; eps on a named root
    ("mask-off-by-one", _kernel("s_ptr, o_ptr, BLOCK: tl.constexpr",
                                "i = tl.arange(0, BLOCK)\nj = tl.arange(0, BLOCK)\ns = tl.load(s_ptr + i[:, None] * BLOCK + j[None, :])\n"
                                "keep = i[:, None] > j[None, :]\ns = tl.where(keep, s, -1e30)\n"
                                "tl.store(o_ptr + i, tl.max(s, axis=1))"), "keep = i[:, None] >= j[None, :]"),
    ("missing-offset", _kernel(ROW, "pid = tl.program_id(0)\nc = pid + tl.arange(0, TILE)\n"
                                    "tl.store(dst + c, tl.load(src + c, mask=c < ncols), mask=c < ncols)"),
     "c = pid * TILE + tl.arange(0, TILE)"),
    ("eps-placement", _row(", other=0.0", "sd = tl.sqrt(tl.sum(vals * vals, 0) / ncols)\ntl.store(dst + r, vals / (sd + 1e-5))"),
     "vals / (tl.sqrt(tl.sum(vals * vals, 0) / ncols + 1e-5))"),
    ("wrong-divisor", _row(", other=0.0", "tl.store(dst + r, tl.sum(vals, axis=0) // ncols)"), "tl.sum(vals, axis=0) / ncols"),
    ("mask-off-by-one", _kernel(ROW, "r = tl.program_id(0)\nc = tl.arange(0, TILE)\n"
                                    "v = tl.load(src + r * rstride + c, mask=c < ncols, other=-float('inf'))\n"
                                    "v = tl.where(c < r, v, -float('inf'))\ntl.store(dst + r, tl.max(v, 0))"),
     "v = tl.where(c <= r, v"),
    ("missing-offset", _kernel(ROW, "pid = tl.program_id(0)\nc = tl.arange(0, TILE)\n"
                                    "v = tl.load(src + c, mask=c < ncols, other=0.0)\ntl.store(dst + pid, tl.sum(v, 0))")
     + LAUNCH, "c = pid * TILE + tl.arange(0, TILE)"),
    ("one-pass-variance", _row(", other=0.0", "mu = tl.sum(vals, axis=0) / ncols\nmsq = tl.sum(vals * vals, axis=0) / ncols\n"
                                              "tl.store(dst + r, msq - mu * mu)"), "vals - mu"),
]


@pytest.mark.parametrize("bug_class,source,expect", CASES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(CASES)])
def test_the_class_rules_fix_another_spelling(bug_class, source, expect):
    outs = [a.patched_source for a in apply_rules(BY_CLASS[bug_class], source)]
    assert any(expect in o for o in outs), f"no candidate contains {expect!r}; {len(outs)} candidates"


CLEAN = [
    # padding never matters to an elementwise kernel
    _kernel(ROW, "c = tl.program_id(0) * TILE + tl.arange(0, TILE)\nv = tl.load(src + c, mask=c < ncols)\n"
                 "tl.store(dst + c, tl.exp(v) * 2.0, mask=c < ncols)"),
    # re-masked before the max, initialised to -inf, bounds rounded up, the stable forms
    _row("", "v = tl.where(c < ncols, vals, -float('inf'))\ntl.store(dst + r, tl.max(v, 0))"),
    _kernel(ROW, "acc = 0.0\nfor b in range(tl.cdiv(ncols, TILE)):\n    c = b * TILE + tl.arange(0, TILE)\n"
                 "    acc += tl.sum(tl.load(src + c, mask=c < ncols, other=0.0), 0)\ntl.store(dst, acc)"),
    _row(", other=0.0", "z = tl.exp(-tl.abs(vals))\ntl.store(dst + r + c, tl.where(vals >= 0, 1 / (1 + z), z / (1 + z)), mask=c < ncols)"),
    # a dot accumulator with a ReLU epilogue is not a running max
    _kernel(ROW, "acc = tl.zeros([TILE, TILE], tl.float32)\nacc += tl.dot(tl.load(src), tl.load(src))\n"
                 "acc = tl.maximum(acc, 0.0)\ntl.store(dst, acc)"),
]


CLEAN_HALF = [
    # half inputs: tl.dot accumulates in fp32 already, and a max is exact
    _kernel("a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr",
            "offs = tl.arange(0, BLOCK)\nacc = tl.zeros([BLOCK, BLOCK], tl.float32)\n"
            "for k in range(0, K, BLOCK):\n    a = tl.load(a_ptr + offs[:, None] * K + k + offs[None, :])\n"
            "    b = tl.load(b_ptr + (k + offs[:, None]) * BLOCK + offs[None, :])\n    acc += tl.dot(a, b)\n"
            "tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)"),
    _row(', other=-float("inf")', "tl.store(dst + r, tl.max(vals, axis=0))"),
]
CLEAN += [
    # one program walks every block: no block offset is missing
    _kernel(ROW, "acc = 0.0\nfor s in range(0, ncols, TILE):\n    c = s + tl.arange(0, TILE)\n"
                 "    acc += tl.sum(tl.load(src + c, mask=c < ncols, other=0.0), 0)\ntl.store(dst, acc)"),
    # a sum of exp(-|x|) cannot overflow; a mean divided by a count the kernel computes
    _row(", other=0.0", "tl.store(dst + r, tl.sum(tl.where(c < ncols, tl.exp(-tl.abs(vals)), 0.0), 0))"),
    _row(", other=0.0", "cnt = tl.sum((c < ncols).to(tl.float32), 0)\ntl.store(dst + r, tl.sum(vals, 0) / cnt)"),
]


@pytest.mark.parametrize("source", CLEAN_HALF, ids=range(len(CLEAN_HALF)))
def test_no_upcast_is_proposed_where_half_precision_is_exact_or_accumulated_in_fp32(source):
    # the precision classes only: the tiled matmul has no launch, so its unmasked K loads may well run past K
    # (the missing-mask rules rightly offer a mask there)
    fired = [a.rule_id for c in ("missing-upcast", "fp16-accumulation")
             for a in apply_rules(BY_CLASS[c], source, reference="x.half()")]
    assert fired == []


@pytest.mark.parametrize("source", CLEAN, ids=range(len(CLEAN)))
def test_no_rule_fires_on_a_correct_spelling(source):
    reference = "x = torch.randn(M, N)"  # fp32 inputs: no upcast is missing
    fired = [a.rule_id for rules in BY_CLASS.values() for a in apply_rules(rules, source, reference=reference)]
    assert fired == []


TWO_STAGE_MEAN = '''import torch
import triton
import triton.language as tl


@triton.jit
def stage_one(src, partial, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(partial + tl.program_id(0), tl.sum(tl.load(src + i, mask=i < n, other=0.0), 0))


@triton.jit
def stage_two(partial, dst, count, n, B: tl.constexpr):
    j = tl.arange(0, B)
    tl.store(dst, tl.sum(tl.load(partial + j, mask=j < count, other=0.0), 0) / n)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        n = x.numel()
        count = triton.cdiv(n, 256)
        partial = torch.empty(count, device=x.device)
        out = torch.empty((), device=x.device)
        stage_one[(count,)](x, partial, n, B=256)
        stage_two[(1,)](partial, out, count, n, B=triton.next_power_of_2(count))
        return out
'''


def test_the_second_stage_of_a_two_stage_mean_divides_by_the_element_count():
    """It sums per-program partial sums (a tensor the first launch wrote): dividing by the number of partials that
    its mask bounds would be the bug, not the fix."""
    fired = [a.rule_id for a in apply_rules(BY_CLASS["wrong-divisor"], TWO_STAGE_MEAN)]
    assert fired == []
    one_stage = TWO_STAGE_MEAN.replace("partial + j", "dst + j").replace("stage_one[(count,)](x, partial, n, B=256)\n", "")
    assert [a.rule_id for a in apply_rules(BY_CLASS["wrong-divisor"], one_stage)] == ["starter/wrong-divisor/count"]
