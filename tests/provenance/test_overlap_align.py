"""Op-stream alignment (provenance.align), helpers followed at their calls, stored op streams, and the score
that combines tokens containment with the alignment (provenance.overlap_rules.score)."""
import struct

import pytest

from provenance.align import COMMON_WEIGHT, align, total_weight
from provenance.fingerprint import SCHEME, fingerprints
from provenance.fingerprint_store import (pack_fingerprints, packed_hashes, refreshed, unpack_fingerprints,
                                          unpack_views)
from provenance.opstream import ops_of
from provenance.overlap import OverlapIndex
from provenance.overlap_rules import OverlapConfig, OverlapMatch, rule_terms, score

GELU = '''
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, y_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0) + tl.load(b_ptr + offs % N, mask=mask, other=0.0)
    z = 0.7978845608 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + tl.exp(2.0 * z) / (tl.exp(2.0 * z) + 1.0) * 2.0 - 1.0)
    tl.store(y_ptr + offs, y, mask=mask)
'''

# the same computation with the formula extracted into a helper and everything renamed (a type-3 copy)
GELU_HELPER = '''
import triton
import triton.language as tl


@triton.jit
def _act(v):
    t = 0.7978845608 * (v + 0.044715 * v * v * v)
    return 0.5 * v * (1.0 + tl.exp(2.0 * t) / (tl.exp(2.0 * t) + 1.0) * 2.0 - 1.0)


@triton.jit
def fused(a, bias, out, total, width, TILE: tl.constexpr):
    idx = tl.program_id(0) * TILE + tl.arange(0, TILE)
    ok = idx < total
    h = tl.load(a + idx, mask=ok, other=0.0) + tl.load(bias + idx % width, mask=ok, other=0.0)
    tl.store(out + idx, _act(h), mask=ok)
'''

# GELU's launch and wrapper shape, another computation (boilerplate shared, compute not)
BOILER = GELU.replace(
    "    z = 0.7978845608 * (x + 0.044715 * x * x * x)\n"
    "    y = 0.5 * x * (1.0 + tl.exp(2.0 * z) / (tl.exp(2.0 * z) + 1.0) * 2.0 - 1.0)\n",
    "    y = tl.where(x > 0, x, 0.0) * tl.abs(x)\n")


def test_alignment_finds_an_embedded_stream_and_weights_common_ops_less():
    cohort = ["LOAD", "REDUCE_MAX", "SUB", "EXP", "REDUCE_SUM", "DIV", "STORE"]
    entry = ["LOAD", "MUL", "STORE"] * 3 + cohort + ["LOAD", "ADD", "STORE"] * 3
    a = align(entry, cohort)
    assert a.fraction == 1.0 and a.matched == 7 and a.entry_span == (9, 15) and a.cohort_span == (0, 6)
    assert a.weight == total_weight(cohort) == 4 + 3 * COMMON_WEIGHT
    # a missing rare op costs more than a missing common one
    no_exp = align([op for op in entry if op != "EXP"], cohort).fraction
    no_sub = align(entry[:11] + entry[12:], cohort).fraction
    assert no_exp < no_sub < 1.0
    # nothing in common, or nothing to align
    assert align(["LOAD", "STORE"], ["EXP", "LOG"]).fraction == 0.0 and align([], cohort).matched == 0


def test_a_helper_is_followed_where_it_is_called():
    assert ops_of(GELU_HELPER, "triton") == ops_of(GELU, "triton")
    c_helper = ("static float sq(float v) { return v * v; }\n"
                "void k(const float* x, float* y, int n) { for (int i = 0; i < n; i++) y[i] = sq(x[i]) + 1.0f; }\n")
    assert ops_of(c_helper, "cpp") == ["LOAD", "MUL", "K:1.0", "ADD", "STORE"]


def test_stored_op_streams_round_trip_and_older_blobs_are_read():
    fps = fingerprints(GELU, "triton")
    ops = next(f for f in fps if f.representation == "ops")
    assert ops.stream == ops_of(GELU, "triton") and len(ops.stream_lines) == len(ops.stream)
    blob = pack_fingerprints(fps)
    assert blob[:4] == b"FPK2" and unpack_fingerprints(blob) == fps
    assert [v.stream for v in unpack_views(blob)] == [[], ops.stream]
    assert [h for *_, h in packed_hashes(blob)] == [f.hashes for f in fps]
    # an FPK1 blob (scheme ts2: no op streams) is still read, and refreshed from the code to the current scheme
    old = [f.model_copy(update={"scheme": "ts2", "stream": [], "stream_lines": []}) for f in fps]
    v1 = _fpk1(old)
    assert [v.stream for v in unpack_views(v1)] == [[], []]
    assert refreshed(v1, GELU, "triton") == blob and SCHEME == "ts4"


def _fpk1(fps) -> bytes:
    """The FPK1 layout: pack_fingerprints before op streams were stored."""
    import numpy as np

    scheme = fps[0].scheme.encode()
    out = [b"FPK1", struct.pack("<B", len(scheme)), scheme, struct.pack("<B", len(fps))]
    for fp in fps:
        out.append(struct.pack("<BBHHII", ("tokens", "ops").index(fp.representation), 0, fp.k, fp.w, fp.n_tokens,
                               len(fp.hashes)))
        out.append(np.asarray(fp.hashes, dtype="<i8").tobytes())
        for arr in (fp.positions, fp.line_start, fp.line_end):
            out.append(np.asarray(arr, dtype="<i4").tobytes())
    return b"".join(out)


def _best(index, code, language="triton"):
    ms = index.match("e", {"source": fingerprints(code, language)})
    return max(ms, key=lambda m: m.score) if ms else None


def test_shared_boilerplate_without_shared_computation_scores_under_the_threshold():
    cfg = OverlapConfig(report_floor=0.0, report_min_shared=1)
    index = OverlapIndex.build({"gelu.py": (GELU, "python")}, cfg)
    copy, boiler = _best(index, GELU_HELPER), _best(index, BOILER)
    # the copy's computation is the cohort kernel's: its score is all its text (what the threshold then decides)
    assert copy.aligned == 1.0 and copy.aligned_unit == "bias_gelu_kernel" and copy.score == copy.containment
    assert copy.flagged == (copy.score >= cfg.threshold) and copy.score > boiler.score
    assert copy.aligned_cohort_lines[0] >= 10 and copy.aligned_entry_lines[0] >= 15  # the kernel; the helper's call
    # boilerplate: most of the text is shared, little of the computation
    assert boiler.containment > boiler.score and boiler.aligned < 0.5 and not boiler.flagged
    assert boiler.score == score(boiler, cfg) < cfg.threshold
    text = rule_terms(boiler, cfg)
    assert f"T {boiler.containment:.3f}" in text and "aligned" in text and f"under {cfg.threshold}" in text


def test_the_score_is_the_smaller_of_text_and_trusted_computation():
    cfg = OverlapConfig()
    m = OverlapMatch(entry_id="e", entry_part="p", cohort_file="c", representation="tokens", containment=0.9,
                     dice=0.5, shared=20, entry_fingerprints=30, cohort_fingerprints=25, covered=200, longest_run=40,
                     aligned=0.2, aligned_weight=12.0)
    assert score(m, cfg) == 0.2  # fully trusted alignment: the computation is not the cohort's
    low = m.model_copy(update={"aligned_weight": cfg.ops_min_weight})  # ops tell nothing: the text alone
    assert score(low, cfg) == 0.9
    half = m.model_copy(update={"aligned_weight": (cfg.ops_min_weight + cfg.ops_full_weight) / 2})
    assert score(half, cfg) == pytest.approx(0.5 * 0.2 + 0.5 * 0.9, abs=1e-4)
    assert score(m.model_copy(update={"aligned": 0.95}), cfg) == 0.9  # an alignment above the text does not raise it
    assert score(m.model_copy(update={"covered": 10}), cfg) == 0.0  # too little text to count
    # across languages only the alignment beyond what independent implementations reach (ops_null) counts
    port = m.model_copy(update={"representation": "ops", "aligned": 1.0})
    assert score(port, cfg) == 1.0
    assert score(port.model_copy(update={"aligned": cfg.ops_null}), cfg) == 0.0
    mid = (1 + cfg.ops_null) / 2
    assert score(port.model_copy(update={"aligned": mid}), cfg) == pytest.approx(0.5, abs=1e-3)
    assert score(port.model_copy(update={"aligned_weight": cfg.ops_min_weight}), cfg) == 0.0  # a dot product

def test_exp2_with_log2e_and_log2_with_ln2_align_as_exp_and_log():
    from provenance.align import canonical

    plain = ["LOAD", "REDUCE_MAX", "SUB", "EXP", "REDUCE_SUM", "LOG", "STORE"]
    rewritten = ["LOAD", "REDUCE_MAX", "SUB", "K:1.4427", "MUL", "EXP2", "REDUCE_SUM", "LOG2", "K:0.693147", "MUL",
                 "STORE"]
    assert canonical(rewritten)[0] == tuple(plain)
    a = align(rewritten, plain)
    assert a.fraction == 1.0 and a.entry_span == (0, 10) and a.weight == total_weight(rewritten)
    named = ["LOAD", "SUB", "MUL", "EXP2", "STORE"]  # exp2(x * LOG2E) with the constant a name
    assert align(named, ["LOAD", "SUB", "EXP", "STORE"]).fraction == 1.0
    assert canonical(["EXP2", "LOG2"])[0] == ("EXP2", "LOG2")  # a bare exp2 is an exp2
