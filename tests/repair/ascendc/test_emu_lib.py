"""The ascendc-cpu emulation's math and activation libraries, gathers, layout changes, high-level reductions and
SoftMax, level-0 Duplicate/Cast/Select/And/Or/Not, CCE vcadd, SetPadValue/InitGlobalMemory/SetDeqScale and the
operator expressions, each against torch: lengths aligned, unaligned, one element and more than one tile; float32,
float16 and bfloat16 where the API takes them. One library (data/emu_lib.cpp) compiled for the session."""
from __future__ import annotations

import ctypes
import math

import pytest
import torch

from emu_harness import build, call

LENGTHS = [1, 64, 100, 5000]  # one element, whole 32-byte blocks, not, more than one 2048-element tile
DTYPES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 27}
IDS = ["float32", "float16", "bfloat16"]
S = 0.75
TOL = {torch.float32: 2e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3}


@pytest.fixture(scope="session")
def lib(tmp_path_factory):
    return build(tmp_path_factory.mktemp("emu-lib") / "emu_lib.so", "emu_lib.cpp")


def _f(t):
    return t.double()


# op index in emu_lib.cpp -> (name, torch reference on float64, input domain)
LIB = {
    0: ("Sigmoid", torch.sigmoid, None), 1: ("Tanh", torch.tanh, None), 2: ("Sin", torch.sin, None),
    3: ("Cos", torch.cos, None), 4: ("Tan", torch.tan, (-1.2, 1.2)), 5: ("Asin", torch.asin, (-0.95, 0.95)),
    6: ("Acos", torch.acos, (-0.95, 0.95)), 7: ("Atan", torch.atan, None), 8: ("Sinh", torch.sinh, (-4, 4)),
    9: ("Cosh", torch.cosh, (-4, 4)), 10: ("Asinh", torch.asinh, None), 11: ("Acosh", torch.acosh, (1.1, 9)),
    12: ("Atanh", torch.atanh, (-0.9, 0.9)), 13: ("Erf", torch.erf, None), 14: ("Erfc", torch.erfc, None),
    15: ("Log", torch.log, (0.1, 9)), 16: ("Log2", torch.log2, (0.1, 9)), 17: ("Log10", torch.log10, (0.1, 9)),
    18: ("Floor", torch.floor, None), 19: ("Ceil", torch.ceil, None), 20: ("Round", torch.round, None),
    21: ("Trunc", torch.trunc, None), 22: ("Frac", lambda x: x - torch.trunc(x), None), 23: ("Sign", torch.sign, None),
    24: ("Gelu", lambda x: torch.nn.functional.gelu(x, approximate="tanh"), None),
    25: ("FasterGelu", lambda x: x * torch.sigmoid(1.702 * x), None),
    26: ("Silu", torch.nn.functional.silu, None), 27: ("Swish", lambda x: x * torch.sigmoid(S * x), None),
    28: ("ClampMax", lambda x: torch.clamp(x, max=S), None), 29: ("ClampMin", lambda x: torch.clamp(x, min=S), None),
    33: ("Exp", torch.exp, (-4, 4)),
}
BINARY = {30: ("Power", lambda x, y: torch.pow(x, y)), 31: ("Power scalar", lambda x, y: torch.pow(x, S)),
          32: ("Power base", lambda x, y: torch.pow(torch.full_like(y, S), y)), 34: ("+", torch.add),
          35: ("-", torch.sub), 36: ("*", torch.mul), 37: ("/", torch.div)}
EXACT = {"Floor", "Ceil", "Round", "Trunc", "Sign", "ClampMax", "ClampMin", "Frac", "+", "-", "*"}


def _inputs(n, dtype, lo_hi, seed):
    g = torch.Generator().manual_seed(seed)
    lo, hi = lo_hi or (-3.0, 3.0)
    x = torch.rand(n, generator=g, dtype=torch.float64) * (hi - lo) + lo
    x[: min(n, 4)] = torch.tensor([0.5, -2.5, 1.5, 0.0], dtype=torch.float64)[: min(n, 4)].clamp(lo, hi)
    y = torch.rand(n, generator=g, dtype=torch.float64) * 2 + 0.25
    return x.to(dtype), y.to(dtype)


def _run(lib, op, dtype, x, y):
    z = torch.full(x.shape, float("nan"), dtype=dtype)
    rc = call(lib, "emu_lib", [op, DTYPES[dtype]], [x, y, z], [x.numel(), ctypes.c_float(S)], outputs=[2])
    assert rc == 0, lib.ascendc_emu_error()
    return z


def _close(got, want, dtype, exact, what):
    want = want.to(dtype)
    tol = 0 if exact else TOL[dtype]
    torch.testing.assert_close(got, want, rtol=tol, atol=tol, equal_nan=True, msg=lambda m: f"{what}: {m}")


@pytest.mark.parametrize("dtype", list(DTYPES), ids=IDS)
def test_math_and_activation_library_matches_torch(lib, dtype):
    for op, (name, ref, domain) in LIB.items():
        for n in LENGTHS:
            x, y = _inputs(n, dtype, domain, seed=n + op)
            got = _run(lib, op, dtype, x, y)
            # the emulation computes in float and rounds once: so does the reference
            want = ref(x.float()) if name in EXACT else ref(_f(x)).float()
            if name in ("Tan", "Sinh", "Cosh", "Exp", "Acosh") and dtype != torch.float32:
                want = ref(x.float())  # large values: compare on the rounded input's result
            _close(got, want, dtype, name in EXACT and dtype == torch.float32, f"{name} n={n}")


@pytest.mark.parametrize("dtype", list(DTYPES), ids=IDS)
def test_power_and_the_operator_expressions(lib, dtype):
    for op, (name, ref) in BINARY.items():
        for n in LENGTHS:
            x, y = _inputs(n, dtype, (0.2, 3.0), seed=n + op)
            got = _run(lib, op, dtype, x, y)
            want = ref(x.float(), y.float()) if name in EXACT else ref(_f(x), _f(y)).float()
            _close(got, want, dtype, name in EXACT, f"{name} n={n}")


def test_integer_instructions(lib):
    for n in LENGTHS:
        g = torch.Generator().manual_seed(n)
        x = torch.randint(-2**30, 2**30, (n,), generator=g, dtype=torch.int32)
        y = torch.randint(-2**30, 2**30, (n,), generator=g, dtype=torch.int32)
        for op, want in enumerate([x ^ y, x ^ y, x & y, x | y, ~x, x & y, x | y]):
            z = torch.zeros(n, dtype=torch.int32)
            assert call(lib, "emu_int", [op], [x, y, z], [n], outputs=[2]) == 0, lib.ascendc_emu_error()
            assert torch.equal(z, want), f"op {op} n={n}"


def _l0(lib, op, dtype, x, y, bits, repeat, mask):
    z = torch.full((x.numel(),), -5.0, dtype=dtype)
    m = torch.zeros(1024, dtype=torch.uint8)
    m[: len(bits)] = bits
    rc = call(lib, "emu_l0", [op, DTYPES[dtype]], [x, y, m, z], [repeat, mask, ctypes.c_float(S)], outputs=[3])
    assert rc == 0, lib.ascendc_emu_error()
    return z


@pytest.mark.parametrize("dtype", list(DTYPES), ids=IDS)
def test_level0_duplicate_and_select_under_a_mask(lib, dtype):
    per = 256 // torch.empty((), dtype=dtype).element_size()
    g = torch.Generator().manual_seed(7)
    for repeat, mask in ((1, per), (3, per), (3, 5)):
        n = repeat * per
        x, y = torch.randn(n, generator=g).to(dtype), torch.randn(n, generator=g).to(dtype)
        sel = torch.randint(0, 256, (n // 8,), generator=g, dtype=torch.uint8)
        bit = torch.tensor([(int(sel[i // 8]) >> (i % 8)) & 1 for i in range(n)], dtype=torch.bool)
        on = (torch.arange(n) % per) < mask  # the mask's elements of every repeat
        keep = torch.full((n,), -5.0, dtype=dtype)
        assert torch.equal(_l0(lib, 0, dtype, x, y, sel, repeat, mask), torch.where(on, torch.tensor(S, dtype=dtype), keep))
        assert torch.equal(_l0(lib, 3, dtype, x, y, sel, repeat, mask), torch.where(on, torch.where(bit, x, y), keep))
        scalar = torch.where(bit, x, torch.tensor(S, dtype=dtype))
        assert torch.equal(_l0(lib, 4, dtype, x, y, sel, repeat, mask), torch.where(on, scalar, keep))
        first = bit[torch.arange(n) % per]  # VSEL_CMPMASK_SPR: the first repeat's bits for every repeat
        assert torch.equal(_l0(lib, 5, dtype, x, y, sel, repeat, mask), torch.where(on, torch.where(first, x, y), keep))
        assert torch.equal(_l0(lib, 6, dtype, x, y, sel, repeat, mask), torch.where(first, x, y))


def test_level0_cast_between_sizes(lib):
    g = torch.Generator().manual_seed(3)
    for repeat, mask in ((1, 64), (4, 64), (2, 10)):
        n = repeat * 64
        x = torch.randn(n, generator=g) * 100
        z = _l0(lib, 1, torch.float32, x, x.clone(), torch.zeros(1), repeat, mask)
        halves = z.view(torch.float16)[:n]
        on = (torch.arange(n) % 64) < mask
        assert torch.equal(halves[on], x[on].half())
        back = _l0(lib, 2, torch.float32, x, x.clone(), torch.zeros(1), repeat, mask)
        assert torch.equal(back[on], x[on].half().float()) and (back[~on] == -5).all()


@pytest.mark.parametrize("dtype", list(DTYPES), ids=IDS)
def test_brcb_gather_and_gathermask(lib, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    per, blk = 256 // size, 32 // size
    for n in (8, 64, 1000):
        x = (torch.arange(n, dtype=torch.float32) * 0.5 - 7).to(dtype)
        kept = torch.zeros(1, dtype=torch.int64)
        out = torch.zeros(65536 // size, dtype=dtype)
        empty = torch.zeros(1, dtype=torch.int32)
        rc = call(lib, "emu_move", [0, DTYPES[dtype]], [x, empty, torch.zeros(1024, dtype=torch.uint8), out, kept],
                  [n, n // 8], outputs=[3])
        assert rc == 0, lib.ascendc_emu_error()
        assert torch.equal(out[: n // 8 * 8 * blk], x[: n // 8 * 8].repeat_interleave(blk)), f"Brcb n={n}"
        idx = torch.randperm(n, generator=torch.Generator().manual_seed(n))
        offsets = (idx * size).to(torch.int32)
        out.zero_()
        rc = call(lib, "emu_move", [1, DTYPES[dtype]], [x, offsets, torch.zeros(1024, dtype=torch.uint8), out, kept],
                  [n, 0], outputs=[3])
        assert rc == 0, lib.ascendc_emu_error()
        assert torch.equal(out[:n], x[idx]), f"Gather n={n}"
    n = 4 * per
    x = (torch.arange(n, dtype=torch.float32) % 251).to(dtype)
    patterns = {1: lambda e: e % 2 == 0, 2: lambda e: e % 2 == 1, 3: lambda e: e % 4 == 0, 6: lambda e: e % 4 == 3,
                7: lambda e: e >= 0}
    user = torch.randint(0, 256, (1024,), generator=torch.Generator().manual_seed(1), dtype=torch.uint8)
    for pattern in (*patterns, 0):
        e = torch.arange(n)
        if pattern:
            take = patterns[pattern](e % per)
        else:  # the user bits: repeat r's from bit r * 2048 (src1RepeatStride: 8 blocks of 32 bytes)
            bits = torch.tensor([(int(user[(r * 2048 + k) // 8]) >> ((r * 2048 + k) % 8)) & 1
                                 for r in range(4) for k in range(per)], dtype=torch.bool)
            take = bits
        out = torch.zeros(65536 // size, dtype=dtype)
        kept = torch.zeros(1, dtype=torch.int64)
        rc = call(lib, "emu_move", [2, DTYPES[dtype]], [x, torch.zeros(1, dtype=torch.int32), user, out, kept],
                  [n, pattern], outputs=[3, 4])
        assert rc == 0, lib.ascendc_emu_error()
        assert int(kept) == int(take.sum()) and torch.equal(out[: int(kept)], x[take]), f"GatherMask {pattern}"


def test_create_vec_index_and_arith_progression(lib):
    for n in LENGTHS:
        for dtype, code in ((torch.float32, 0), (torch.float16, 1), (torch.int32, 3)):
            z = torch.zeros(n, dtype=dtype)
            assert call(lib, "emu_index", [0, code], [z], [n, ctypes.c_float(3), ctypes.c_float(0)], outputs=[0]) == 0
            assert torch.equal(z, (torch.arange(n) + 3).to(dtype)), f"CreateVecIndex {dtype} n={n}"
            assert call(lib, "emu_index", [1, code], [z], [n, ctypes.c_float(-2), ctypes.c_float(2)],
                        outputs=[0]) == 0
            assert torch.equal(z, (torch.arange(n) * 2 - 2).to(dtype)), f"ArithProgression {dtype} n={n}"


@pytest.mark.parametrize("dtype", list(DTYPES), ids=IDS)
def test_transdata_5hd_in_its_three_forms_and_transpose(lib, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    blk = 32 // size
    width = 3 * blk  # three repeats
    x = torch.arange(16 * width, dtype=torch.float32).to(dtype)
    rows = x.view(16, width)
    want = torch.empty(16 * width, dtype=dtype)
    for r in range(width // blk):  # repeat r: column block r of the 16 rows, to 16 destination blocks
        cols = rows[:, r * blk:(r + 1) * blk]  # 16 x blk
        if size == 2:
            out = cols.t()  # destination block j: element j of each row
        else:  # 8 rows of 16: row c in destination blocks 2c (rows 0-7) and 2c + 1 (rows 8-15)
            out = torch.stack([cols[:8, c // 2] if c % 2 == 0 else cols[8:, c // 2] for c in range(16)])
        want[r * 16 * blk:(r + 1) * 16 * blk] = out.reshape(-1)
    for form in (0, 1, 2):
        z = torch.zeros(16 * width, dtype=dtype)
        assert call(lib, "emu_5hd", [form, DTYPES[dtype]], [x, z], [width], outputs=[1]) == 0, lib.ascendc_emu_error()
        assert torch.equal(z, want), f"form {form}"
    if size == 2:
        x = torch.arange(256, dtype=torch.float32).to(dtype)
        z = torch.zeros(256, dtype=dtype)
        assert call(lib, "emu_5hd", [3, DTYPES[dtype]], [x, z], [16], outputs=[1]) == 0
        assert torch.equal(z.view(16, 16), x.view(16, 16).t())


def _rows(lib, kind, dtype, x, outter, inner, n):
    z = torch.full((outter * inner,), float("nan"), dtype=dtype)
    blk = 32 // x.element_size()
    zs, zm = torch.zeros(outter * blk, dtype=dtype), torch.zeros(outter * blk, dtype=dtype)
    rc = call(lib, "emu_rows", [kind, DTYPES[dtype]], [x, z, zs, zm], [outter, inner, n], outputs=[1, 2, 3])
    assert rc == 0, lib.ascendc_emu_error()
    return z, zs, zm


@pytest.mark.parametrize("dtype", list(DTYPES), ids=IDS)
def test_sum_mean_cumsum_and_softmax_over_rows(lib, dtype):
    blk = 32 // torch.empty((), dtype=dtype).element_size()
    tol = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 2e-2}[dtype]
    for outter, n in ((1, 1), (3, 64), (5, 100), (2, 3000)):
        inner = (n + blk - 1) // blk * blk
        x = (torch.randn(outter * inner, generator=torch.Generator().manual_seed(n)) * 2).to(dtype)
        valid = x.view(outter, inner)[:, :n].double()
        for kind, want in ((0, valid.sum(1)), (1, valid.mean(1))):
            z, _, _ = _rows(lib, kind, dtype, x, outter, inner, n)
            scale = max(1.0, float(valid.abs().sum(1).max()))
            assert (z[:outter].double() - want).abs().max() <= tol * scale, f"kind {kind} [{outter}, {n}]"
        rows = x.view(outter, inner).double()
        z, last, _ = _rows(lib, 2, dtype, x, outter, inner, n)
        want = torch.cumsum(rows, 1)
        assert (z.view(outter, inner).double() - want).abs().max() <= tol * max(1.0, float(rows.abs().sum(1).max()))
        z, _, _ = _rows(lib, 3, dtype, x, outter, inner, n)
        want = torch.cumsum(rows, 0)
        assert (z.view(outter, inner).double() - want).abs().max() <= tol * max(1.0, float(rows.abs().sum(0).max()))
        for kind in (4, 5):  # SoftMax over the first n of each row (oriSrcK); the rows' sum and max blocks
            z, zs, zm = _rows(lib, kind, dtype, x, outter, inner, n)
            want = torch.softmax(valid, 1)
            got = z.view(outter, inner)[:, :n].double()
            assert (got - want).abs().max() <= tol, f"SoftMax kind {kind} [{outter}, {n}]"
            assert torch.equal(zm.view(outter, blk), valid.max(1).values.to(dtype)[:, None].expand(outter, blk))
            sums = torch.exp(valid - valid.max(1, keepdim=True).values).sum(1)
            assert ((zs.view(outter, blk).double() - sums[:, None]).abs() <= tol * sums[:, None]).all()


def test_vcadd_accumulates_into_get_acc_val_and_writes_repeat_sums(lib):
    for n in (1, 64, 100, 640):
        x = torch.randn(n, generator=torch.Generator().manual_seed(n))
        z = torch.zeros(256)
        assert call(lib, "emu_vcadd", [], [x, z], [n], outputs=[1]) == 0, lib.ascendc_emu_error()
        assert math.isclose(float(z[0]), float(x.double().sum()), rel_tol=1e-5, abs_tol=1e-5)
        repeats = n // 64
        if repeats:
            torch.testing.assert_close(z[8:8 + repeats], x[: repeats * 64].view(repeats, 64).sum(1), rtol=1e-5,
                                       atol=1e-5)


def test_set_pad_value_init_global_memory_and_set_deq_scale(lib):
    for n, pad in ((5, 3), (9, 7), (16, 8)):
        x = torch.arange(1, n + 1, dtype=torch.float32)
        z = torch.zeros(4096)
        assert call(lib, "emu_fill", [0], [x, z], [n, pad, ctypes.c_float(-9)], outputs=[1]) == 0, \
            lib.ascendc_emu_error()
        assert torch.equal(z[:n], x) and (z[n:(n + pad + 7) // 8 * 8] == -9).all()  # isPad false: SetPadValue's
    z = torch.zeros(100)
    assert call(lib, "emu_fill", [1], [torch.zeros(1), z], [100, 0, ctypes.c_float(2.5)], outputs=[1]) == 0
    assert (z == 2.5).all()
    i = torch.arange(-50, 50, dtype=torch.int32) * 3
    h = torch.zeros(100, dtype=torch.float16)
    assert call(lib, "emu_fill", [2], [i, h], [100, 0, ctypes.c_float(0.5)], outputs=[1]) == 0
    assert torch.equal(h, (i.float() * 0.5).half())
    x, z = torch.arange(5, dtype=torch.float32), torch.zeros(5)
    assert call(lib, "emu_fill", [3], [x, z], [5, 0, ctypes.c_float(2.5)], outputs=[1]) == 0, lib.ascendc_emu_error()
    assert torch.equal(z, x * 2.5)  # GlobalTensor's operator()
    z = torch.full((9,), 7.0)
    assert call(lib, "emu_fill", [4], [x, z], [9, 0, ctypes.c_float(2.5)], outputs=[1]) == 0, lib.ascendc_emu_error()
    assert torch.equal(z, torch.tensor([2.5] * 4 + [0.0] * 5))  # InitOutput


def test_a_cast_the_documentation_does_not_list_is_an_error(lib):
    assert call(lib, "emu_bad_cast", [], [torch.zeros(8), torch.zeros(8, dtype=torch.int8)]) == 1
    assert "Cast from float to int8_t in CAST_RINT: not a conversion the AscendC documentation lists" in \
        lib.ascendc_emu_error().decode()
