"""ascendc-cpu: the vector mask register (SetVectorMask, SetMaskCount/SetMaskNorm, ResetMask, AscendCUtils::SetMask,
level-0 calls with isSetMask = false and MASK_PLACEHOLDER), BlockReduceSum/Max/Min, PairReduceSum, the level-0
ReduceMax/ReduceMin/ReduceSum and unary forms, and GetReduceMaxMinCount, each from a kernel written here and checked
against torch."""
from __future__ import annotations

import ctypes
import subprocess

import pytest
import torch

from repair.ascendc.emu.build import FLAGS, INCLUDE, compiler
from repair.ascendc.emu.runner import Arena

SOURCE = r'''
#include "ascendc_emu/kernel_unit.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

using namespace AscendC;

namespace {

template <class F> int in_block(F f) {
    return ascendc_emu::guarded([&] {
        ascendc_emu::begin_block(0, 1);
        f();
        ascendc_emu::g_block.active = false;
    });
}

// x, y, z: N elements each (N a whole number of repeats), copied into UB, run, z copied back; `n` and `len` say how
// many elements the op covers (a count in counter mode, the leading elements of each repeat in normal mode), `hi`
// and `lo` a bit mask, `out` two more elements for a value and an index
template <class T>
void run(int op, T *x, T *y, T *z, T *out, uint32_t N, uint32_t n, uint32_t len, uint32_t repeat, uint64_t hi,
         uint64_t lo) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bz, bo;
    pipe.InitBuffer(bx, N * sizeof(T));
    pipe.InitBuffer(by, N * sizeof(T));
    pipe.InitBuffer(bz, N * sizeof(T));
    pipe.InitBuffer(bo, 32);
    LocalTensor<T> lx = bx.Get<T>(), ly = by.Get<T>(), lz = bz.Get<T>(), lo_ = bo.Get<T>();
    GlobalTensor<T> gx, gy, gz, go;
    gx.SetGlobalBuffer(x, N);
    gy.SetGlobalBuffer(y, N);
    gz.SetGlobalBuffer(z, N);
    go.SetGlobalBuffer(out, 32 / sizeof(T));
    PipeBarrier<PIPE_ALL>();
    DataCopy(lx, gx, N);
    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_ALL>();
    DataCopy(ly, gy, N);
    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_ALL>();
    DataCopy(lz, gz, N);
    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_ALL>();
    DataCopy(lo_, go, 32 / sizeof(T));
    PipeBarrier<PIPE_ALL>();
    BinaryRepeatParams bp;
    UnaryRepeatParams up;
    uint64_t m[2] = {lo, hi};
    switch (op) {
        case 0:  // counter mode: n elements across as many repeats as they take; the repeat given is ignored
            SetMaskCount();
            SetVectorMask<T, MaskMode::COUNTER>(0, n);
            Add<T, false>(lz, lx, ly, MASK_PLACEHOLDER, 1, bp);
            SetMaskNorm();
            ResetMask();
            break;
        case 1:  // normal mode: the bits (hi, lo) in every repeat
            SetVectorMask<T>(hi, lo);
            Mul<T, false>(lz, lx, ly, MASK_PLACEHOLDER, uint8_t(repeat), bp);
            ResetMask();
            break;
        case 2:  // AscendCUtils::SetMask: the first len elements of every repeat
            AscendCUtils::SetMask<T>(int32_t(len));
            Sub<T, false>(lz, lx, ly, MASK_PLACEHOLDER, uint8_t(repeat), bp);
            break;
        case 3:  // SetVectorMask(len), then a count-form Add leaves the register all ones: Mul covers every element
            SetVectorMask<T>(int32_t(len));
            Add(lz, lx, ly, int32_t(N));
            Mul<T, false>(lz, lz, ly, MASK_PLACEHOLDER, uint8_t(repeat), bp);
            break;
        case 4:  // a level-0 call with its own mask leaves it in the register for the next
            Max(lz, lx, ly, m, uint8_t(repeat), bp);
            Min<T, false>(lz, lz, ly, MASK_PLACEHOLDER, uint8_t(repeat), bp);
            break;
        case 5: BlockReduceSum(lz, lx, int32_t(repeat), int32_t(len), 1, 1, 8); break;
        case 6: BlockReduceMax(lz, lx, int32_t(repeat), int32_t(len), 1, 1, 8); break;
        case 7: BlockReduceMin(lz, lx, int32_t(repeat), int32_t(len), 1, 1, 8); break;
        case 8:  // BlockReduceSum in counter mode over n elements
            SetMaskCount();
            SetVectorMask<T, MaskMode::COUNTER>(int32_t(n));
            BlockReduceSum<T, false>(lz, lx, 1, MASK_PLACEHOLDER, 1, 1, 8);
            SetMaskNorm();
            ResetMask();
            break;
        case 9: BlockReduceSum(lz, lx, int32_t(repeat), m, 1, 1, 8); break;
        case 10: case 11: {  // WholeReduceMax/Min over n elements in counter mode, then the register's best and index
            SetMaskCount();
            SetVectorMask<T, MaskMode::COUNTER>(0, n);
            if (op == 10) WholeReduceMax<T, false>(lz, lx, MASK_PLACEHOLDER, 1, 1, 1, 8);
            else WholeReduceMin<T, false>(lz, lx, MASK_PLACEHOLDER, 1, 1, 1, 8);
            SetMaskNorm();
            ResetMask();
            T v, i;
            GetReduceMaxMinCount<T>(v, i);
            lo_.SetValue(0, v);
            lo_.SetValue(1, i);
            break;
        }
        case 12: Abs(lz, lx, uint64_t(len), uint8_t(repeat), up); break;
        case 13: Muls(lz, lx, T(2), uint64_t(len), uint8_t(repeat), up); break;
        case 14: PairReduceSum(lz, lx, int32_t(repeat), int32_t(len), 1, 1, 8); break;
        case 15: ReduceMax(lo_, lx, lz, int32_t(len), int32_t(repeat), 8, true); break;
        case 16: ReduceMin(lo_, lx, lz, m, int32_t(repeat), 8, true); break;
        case 17: ReduceSum(lo_, lx, lz, int32_t(len), int32_t(repeat), 8); break;
        // faults
        case 20:  // a level-0 call that sets its own mask in counter mode
            SetMaskCount();
            SetVectorMask<T, MaskMode::COUNTER>(0, n);
            Add(lz, lx, ly, 8, 1, bp);
            break;
        case 21: AscendCUtils::SetMask<T>(int32_t(len)); break;
        case 22: BlockReduceSum(lz[N - 8], lx, int32_t(repeat), int32_t(len), 1, 1, 8); break;
        case 23: BlockReduceSum(lz, lx[N - 8], 1, int32_t(len), 1, 1, 8); break;
        case 24:  // counter mode reaching past the buffer
            SetMaskCount();
            SetVectorMask<T, MaskMode::COUNTER>(0, n);
            Add<T, false>(lz, lx, ly, MASK_PLACEHOLDER, 1, bp);
            break;
        case 25: { T v; GetReduceMaxMinCount<T>(v); break; }
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(gz, lz, N);
    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_ALL>();
    DataCopy(go, lo_, 32 / sizeof(T));
    PipeBarrier<PIPE_ALL>();
}

}  // namespace

EXPORT int run_f32(int op, float *x, float *y, float *z, float *out, uint32_t N, uint32_t n, uint32_t len,
                   uint32_t repeat, uint64_t hi, uint64_t lo) {
    return in_block([&] { run<float>(op, x, y, z, out, N, n, len, repeat, hi, lo); });
}
EXPORT int run_f16(int op, half *x, half *y, half *z, half *out, uint32_t N, uint32_t n, uint32_t len,
                   uint32_t repeat, uint64_t hi, uint64_t lo) {
    return in_block([&] { run<half>(op, x, y, z, out, N, n, len, repeat, hi, lo); });
}
'''

DTYPES = [torch.float32, torch.float16]
COUNTS = [1, 64, 100, 300]  # one element, one whole float repeat, unaligned, more than one repeat of either type


@pytest.fixture(scope="session")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("emu-masks")
    (d / "emu_masks.cpp").write_text(SOURCE)
    out = d / "emu_masks.so"
    r = subprocess.run([compiler()[0], *FLAGS, "-O1", "-shared", "-I", str(INCLUDE), str(d / "emu_masks.cpp"),
                        "-o", str(out), "-Wl,--no-undefined"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    cdll = ctypes.CDLL(str(out))
    cdll.ascendc_emu_gm_add.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p]
    cdll.ascendc_emu_configure.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64]
    cdll.ascendc_emu_error.restype = ctypes.c_char_p
    cdll.ascendc_emu_configure(40, 20, 192 * 1024)
    return cdll


def per_repeat(dtype) -> int:
    return 256 // (4 if dtype == torch.float32 else 2)


class Case:
    """x, y, z (z starting at 7) and a two-element `out` (starting at 5) of N elements, N whole repeats."""

    def __init__(self, dtype, N, seed=0):
        g = torch.Generator().manual_seed(seed + N)
        self.dtype, self.N = dtype, N
        self.x = torch.randn(N, generator=g).to(dtype)
        self.y = torch.randn(N, generator=g).to(dtype)
        self.z = torch.full((N,), 7.0, dtype=dtype)
        self.out = torch.full((32 // self.x.element_size(),), 5.0, dtype=dtype)

    def run(self, lib, op, n=0, length=0, repeat=1, hi=0, lo=0) -> int:
        arena = Arena()
        tensors = [self.x, self.y, self.z, self.out]
        addrs = [ctypes.c_void_p(arena.address(t, f"arg{i}")) for i, t in enumerate(tensors)]
        arena.register(lib)
        fn = lib.run_f32 if self.dtype == torch.float32 else lib.run_f16
        rc = fn(op, *addrs, ctypes.c_uint32(self.N), ctypes.c_uint32(n), ctypes.c_uint32(length),
                ctypes.c_uint32(repeat), ctypes.c_uint64(hi), ctypes.c_uint64(lo))
        arena.check_guards()
        for i in (2, 3):
            buf, nbytes, _ = arena.regions[i]
            tensors[i].reshape(-1).view(torch.uint8).copy_(buf[4096:4096 + nbytes])
        return rc


def error(lib) -> str:
    return lib.ascendc_emu_error().decode()


def tol(dtype):
    return dict(rtol=2e-3, atol=2e-3) if dtype == torch.float16 else dict(rtol=1e-5, atol=1e-5)


def rtol_sum(dtype):
    return dict(rtol=1e-2, atol=1e-2) if dtype == torch.float16 else dict(rtol=1e-5, atol=1e-5)


def whole(n, dtype) -> int:
    e = per_repeat(dtype)
    return max(1, -(-n // e)) * e


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_counter_mode_covers_n_elements_across_repeats(lib, dtype, n):
    c = Case(dtype, whole(n, dtype) + per_repeat(dtype))  # one repeat more than n takes: left as it was
    assert c.run(lib, 0, n=n) == 0, error(lib)
    want = torch.full((c.N,), 7.0, dtype=dtype)
    want[:n] = (c.x[:n].float() + c.y[:n].float()).to(dtype)
    torch.testing.assert_close(c.z, want, **tol(dtype))


def bit_mask(bits, dtype) -> torch.Tensor:
    """elements of a repeat the (hi, lo) register enables"""
    e = per_repeat(dtype)
    return torch.tensor([bool((bits >> i) & 1) for i in range(e)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hi,lo", [(0, 1), (0, 0xF0F0F0F0F0F0F0F0), (0x8000000000000001, ~0 & (2**64 - 1)),
                                   (2**64 - 1, 2**64 - 1)])
@pytest.mark.parametrize("repeat", [1, 3])
def test_normal_mode_bits_in_every_repeat(lib, dtype, hi, lo, repeat):
    e = per_repeat(dtype)
    c = Case(dtype, e * repeat)
    assert c.run(lib, 1, repeat=repeat, hi=hi, lo=lo) == 0, error(lib)
    on = bit_mask(lo | (hi << 64), dtype).repeat(repeat)  # a 32-bit type uses the low 64 bits only
    want = torch.where(on, (c.x.float() * c.y.float()).to(dtype), torch.full_like(c.x, 7.0))
    torch.testing.assert_close(c.z, want, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("length", [1, 8, 37, 64])
@pytest.mark.parametrize("repeat", [1, 2])
def test_set_mask_lengths(lib, dtype, length, repeat):
    e = per_repeat(dtype)
    c = Case(dtype, e * repeat)
    assert c.run(lib, 2, length=length, repeat=repeat) == 0, error(lib)
    on = (torch.arange(e) < length).repeat(repeat)
    want = torch.where(on, (c.x.float() - c.y.float()).to(dtype), torch.full_like(c.x, 7.0))
    torch.testing.assert_close(c.z, want, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_count_form_call_resets_the_mask(lib, dtype):
    e = per_repeat(dtype)
    c = Case(dtype, 2 * e)
    assert c.run(lib, 3, length=3, repeat=2) == 0, error(lib)
    want = ((c.x.float() + c.y.float()).to(dtype).float() * c.y.float()).to(dtype)
    torch.testing.assert_close(c.z, want, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_level0_call_leaves_its_mask_in_the_register(lib, dtype):
    e = per_repeat(dtype)
    c = Case(dtype, 2 * e)
    lo = 0x00FF00FF00FF00FF
    assert c.run(lib, 4, repeat=2, lo=lo) == 0, error(lib)
    on = bit_mask(lo, dtype).repeat(2)
    want = torch.where(on, torch.minimum(torch.maximum(c.x, c.y), c.y), torch.full_like(c.x, 7.0))
    torch.testing.assert_close(c.z, want)


def block_ref(x, length, repeat, dtype, kind):
    """per repeat, the 8 blocks of its first `length` elements reduced (None where a block has none)"""
    e, b = per_repeat(dtype), per_repeat(dtype) // 8
    out = []
    for r in range(repeat):
        for k in range(8):
            vals = [x[r * e + i].float() for i in range(k * b, (k + 1) * b) if i < length]
            if kind == "sum":
                out.append(torch.stack(vals).sum() if vals else torch.tensor(0.0))
            else:
                out.append(None if not vals else (max if kind == "max" else min)(vals))
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("length", [1, 16, 37, 0])  # 0: the whole repeat
@pytest.mark.parametrize("repeat", [1, 3])
@pytest.mark.parametrize("kind", ["sum", "max", "min"])
def test_block_reduce(lib, dtype, length, repeat, kind):
    e = per_repeat(dtype)
    length = length or e
    c = Case(dtype, e * repeat, seed=length)
    assert c.run(lib, {"sum": 5, "max": 6, "min": 7}[kind], length=length, repeat=repeat) == 0, error(lib)
    ref = block_ref(c.x, length, repeat, dtype, kind)
    got = c.z[:8 * repeat].float()
    want = torch.tensor([7.0 if v is None else float(v) for v in ref])  # an empty block: Max/Min leave it
    torch.testing.assert_close(got, want.to(dtype).float(), **rtol_sum(dtype))
    assert bool((c.z[8 * repeat:] == 7).all())  # nothing past the repeats' 8 results each


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_block_reduce_sum_in_counter_mode(lib, dtype, n):
    c = Case(dtype, whole(n, dtype))
    assert c.run(lib, 8, n=n) == 0, error(lib)
    blocks = -(-n // per_repeat(dtype)) * 8
    want = torch.cat([c.x[:n].float(), torch.zeros(c.N - n)]).reshape(-1, per_repeat(dtype) // 8).sum(1)[:blocks]
    torch.testing.assert_close(c.z[:blocks].float(), want.to(dtype).float(), **rtol_sum(dtype))


def test_block_reduce_sum_with_a_bit_mask(lib):
    c = Case(torch.float32, 128)
    lo = 0x8000_0001_0000_00FF  # block 0 whole, block 4 its first element, block 7 its last
    assert c.run(lib, 9, repeat=2, lo=lo) == 0, error(lib)
    on = bit_mask(lo, torch.float32).repeat(2)
    want = torch.where(on, c.x, torch.zeros(128)).reshape(-1, 8).sum(1)
    torch.testing.assert_close(c.z[:16], want)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", [10, 11])
def test_whole_reduce_in_counter_mode_and_get_reduce_max_min_count(lib, dtype, n, op):
    e = per_repeat(dtype)
    c = Case(dtype, whole(n, dtype), seed=op)
    assert c.run(lib, op, n=n) == 0, error(lib)
    xs = c.x[:n].float()
    best = int(xs.argmax() if op == 10 else xs.argmin())
    assert float(c.out[0]) == float(xs[best])
    itype = torch.int32 if dtype == torch.float32 else torch.int16
    assert int(c.out[:2].view(itype)[1]) == best  # the index counted across the repeats, as integer bits
    for r in range(-(-n // e)):  # each repeat's (value, index) pair at 2 * r
        part = xs[r * e:(r + 1) * e]
        k = int(part.argmax() if op == 10 else part.argmin())
        assert float(c.z[2 * r]) == float(part[k])
        assert int(c.z[2 * r:2 * r + 2].view(itype)[1]) == k


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("length", [1, 37, 64])
@pytest.mark.parametrize("repeat", [1, 3])
def test_level0_unary_and_scalar(lib, dtype, length, repeat):
    e = per_repeat(dtype)
    on = (torch.arange(e) < length).repeat(repeat)
    for op, f in [(12, lambda v: v.abs()), (13, lambda v: (v.float() * 2).to(dtype))]:
        c = Case(dtype, e * repeat)
        assert c.run(lib, op, length=length, repeat=repeat) == 0, error(lib)
        torch.testing.assert_close(c.z, torch.where(on, f(c.x), torch.full_like(c.x, 7.0)), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("length", [1, 37, 64])
@pytest.mark.parametrize("repeat", [1, 3])
def test_pair_reduce_sum(lib, dtype, length, repeat):
    e = per_repeat(dtype)
    c = Case(dtype, e * repeat)
    assert c.run(lib, 14, length=length, repeat=repeat) == 0, error(lib)
    on = (torch.arange(e) < length).repeat(repeat)
    want = torch.where(on, c.x.float(), torch.zeros(c.N)).reshape(-1, 2).sum(1)
    torch.testing.assert_close(c.z[:c.N // 2].float(), want.to(dtype).float(), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("length", [1, 37, 64])
@pytest.mark.parametrize("repeat", [1, 3])
def test_level0_reduce_max_min_sum(lib, dtype, length, repeat):
    e = per_repeat(dtype)
    on = (torch.arange(e) < length).repeat(repeat)
    itype = torch.int32 if dtype == torch.float32 else torch.int16
    c = Case(dtype, e * repeat, seed=1)
    assert c.run(lib, 15, length=length, repeat=repeat) == 0, error(lib)
    xs = torch.where(on, c.x.float(), torch.tensor(-float("inf")))
    assert float(c.out[0]) == float(xs.max()) and int(c.out[:2].view(itype)[1]) == int(xs.argmax())
    c = Case(dtype, e * repeat, seed=2)
    lo = (1 << length) - 1 if length < 64 else 2**64 - 1
    assert c.run(lib, 16, repeat=repeat, lo=lo) == 0, error(lib)
    xs = torch.where(on, c.x.float(), torch.tensor(float("inf")))
    assert float(c.out[0]) == float(xs.min()) and int(c.out[:2].view(itype)[1]) == int(xs.argmin())
    c = Case(dtype, e * repeat, seed=3)
    assert c.run(lib, 17, length=length, repeat=repeat) == 0, error(lib)
    torch.testing.assert_close(c.out[0].float(), torch.where(on, c.x.float(), torch.zeros(c.N)).sum(),
                               **rtol_sum(dtype))


def test_own_mask_in_counter_mode_is_an_error(lib):
    c = Case(torch.float32, 64)
    assert c.run(lib, 20, n=64) == 1
    assert "counter mode" in error(lib) and "isSetMask = true" in error(lib)


@pytest.mark.parametrize("dtype,length", [(torch.float32, 65), (torch.float16, 129)])
def test_set_mask_past_a_repeat_is_an_error(lib, dtype, length):
    c = Case(dtype, per_repeat(dtype))
    assert c.run(lib, 21, length=length) == 1
    assert f"mask length {length} outside" in error(lib)


def test_block_reduce_past_its_buffers_is_an_error(lib):
    c = Case(torch.float32, 128)
    assert c.run(lib, 22, length=64, repeat=2) == 1  # 16 results from 8 before the end of z
    assert "BlockReduceSum" in error(lib) and "left in its buffer" in error(lib)
    c = Case(torch.float32, 128)
    assert c.run(lib, 23, length=64) == 1  # a repeat of 64 read from 8 before the end of x
    assert "BlockReduceSum" in error(lib)


def test_counter_mode_past_the_buffer_is_an_error(lib):
    c = Case(torch.float32, 64)
    assert c.run(lib, 24, n=65) == 1  # the count reaches one element past 64-float buffers
    assert "Add" in error(lib) and "left in its buffer" in error(lib)


def test_get_reduce_max_min_count_with_no_reduction_is_an_error(lib):
    c = Case(torch.float32, 64)
    assert c.run(lib, 25) == 1
    assert "GetReduceMaxMinCount" in error(lib)
