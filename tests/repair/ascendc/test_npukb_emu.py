"""ascendc-cpu APIs and idioms that NPUKernelBench's answers use, each from a kernel written here (none of the
benchmark's code): SetAtomicAdd/Max/Min and SetAtomicNone, ShiftLeft/ShiftRight, Tanh (both forms), ToFloat, the
tail of GM's last 32-byte block (a read is no fault, a write still is), and what kernels compile against (ASSERT
compiling to nothing, GetBlockIdx/GetBlockNum unqualified, float16_t/float32_t, AlignUp next to a kernel's own)."""
from __future__ import annotations

import ctypes
import subprocess

import pytest
import torch

from repair.ascendc.emu.build import FLAGS, INCLUDE, compiler
from repair.ascendc.emu.runner import Arena

LENGTHS = [1, 64, 100, 5000]  # one element, whole 32-byte blocks, not, more than one 2048-element tile

SOURCE = r'''
#include "ascendc_emu/kernel_unit.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

// a kernel's own AlignUp template, called with an explicit argument as kernels do beside `using namespace AscendC`
template <typename T> __aicore__ inline T AlignUp(T num, T rnd) { return rnd == 0 ? 0 : (num + rnd - 1) / rnd * rnd; }

using namespace AscendC;

namespace {
constexpr uint32_t TILE = 2048;

template <class F> int in_block(uint32_t idx, uint32_t num, F f) {
    return ascendc_emu::guarded([&] {
        ascendc_emu::begin_block(idx, num);
        f();
        ascendc_emu::g_block.active = false;
    });
}

template <class T> DataCopyExtParams row(uint32_t n) { return DataCopyExtParams{1, uint32_t(n * sizeof(T)), 0, 0, 0}; }

// block `idx` of `num` adds x into z (mode 1 add, 2 max, 3 min; `wrong` sets the atomic type to int32_t)
template <class T> void atomic_block(int mode, bool wrong, T *x, T *z, uint32_t n) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, TILE * sizeof(T));
    GlobalTensor<T> gx, gz;
    gx.SetGlobalBuffer(x, n);
    gz.SetGlobalBuffer(z, n);
    if (wrong) SetAtomicAdd<int32_t>();
    else if (mode == 1) SetAtomicAdd<T>();
    else if (mode == 2) SetAtomicMax<T>();
    else SetAtomicMin<T>();
    for (uint32_t off = 0; off < n; off += TILE) {
        uint32_t len = n - off < TILE ? n - off : TILE;
        LocalTensor<T> t = q.AllocTensor<T>();
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(t, gx[off], row<T>(len), DataCopyPadExtParams<T>{false, 0, 0, 0});
        PipeBarrier<PIPE_ALL>();
        q.EnQue(t);
        t = q.DeQue<T>();
        if (len * sizeof(T) % 32 == 0) DataCopy(gz[off], t, len);
        else DataCopyPad(gz[off], t, row<T>(len));
        q.FreeTensor(t);
    }
    SetAtomicNone();
}

// op 0 ShiftLeft, 1 ShiftRight, 2 Tanh, 3 Tanh with a scratch buffer, 4 Muls by ToFloat(scalar)
template <class T> void unary(int op, T *x, T *z, uint32_t n, int32_t s) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qi;
    TQue<TPosition::VECOUT, 1> qo;
    TBuf<TPosition::VECCALC> tmp;
    pipe.InitBuffer(qi, 1, TILE * sizeof(T));
    pipe.InitBuffer(qo, 1, TILE * sizeof(T));
    pipe.InitBuffer(tmp, 4096);
    GlobalTensor<T> gx, gz;
    gx.SetGlobalBuffer(x, n);
    gz.SetGlobalBuffer(z, n);
    for (uint32_t off = 0; off < n; off += TILE) {
        uint32_t len = n - off < TILE ? n - off : TILE;
        LocalTensor<T> a = qi.AllocTensor<T>();
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(a, gx[off], row<T>(len), DataCopyPadExtParams<T>{false, 0, 0, 0});
        PipeBarrier<PIPE_ALL>();
        qi.EnQue(a);
        a = qi.DeQue<T>();
        LocalTensor<T> b = qo.AllocTensor<T>();
        if constexpr (std::is_integral_v<T>) {
            if (op == 0) ShiftLeft(b, a, T(s), len);
            else ShiftRight(b, a, T(s), len);
        } else {
            if (op == 2) Tanh(b, a, len);
            else if (op == 3) Tanh(b, a, tmp.Get<uint8_t>(), len);
            else Muls(b, a, T(ToFloat(bfloat16_t(float(s) / 4))), len);
        }
        qo.EnQue(b);
        qi.FreeTensor(a);
        b = qo.DeQue<T>();
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(gz[off], b, row<T>(len));
        PipeBarrier<PIPE_ALL>();
        qo.FreeTensor(b);
    }
}
}  // namespace

EXPORT int atomic_f32(int mode, int wrong, uint32_t blocks, float *x, float *z, uint32_t n) {
    for (uint32_t b = 0; b < blocks; b++) {
        int rc = in_block(b, blocks, [&] { atomic_block<float>(mode, wrong, x, z, n); });
        if (rc) return rc;
    }
    return 0;
}
EXPORT int atomic_f16(int mode, int wrong, uint32_t blocks, half *x, half *z, uint32_t n) {
    for (uint32_t b = 0; b < blocks; b++) {
        int rc = in_block(b, blocks, [&] { atomic_block<half>(mode, wrong, x, z, n); });
        if (rc) return rc;
    }
    return 0;
}
EXPORT int unary_i32(int op, int32_t *x, int32_t *z, uint32_t n, int32_t s) {
    return in_block(0, 1, [&] { unary<int32_t>(op, x, z, n, s); });
}
EXPORT int unary_f32(int op, float *x, float *z, uint32_t n, int32_t s) {
    return in_block(0, 1, [&] { unary<float>(op, x, z, n, s); });
}
EXPORT int unary_f16(int op, half *x, half *z, uint32_t n, int32_t s) {
    return in_block(0, 1, [&] { unary<half>(op, x, z, n, s); });
}

// level 0: z <- Add(x, y) (op 0) or Compare(x, y, LT) bits (op 1) over `repeat` repeats of `mask` leading floats,
// x and y `srep` blocks apart per repeat, z `drep`; n floats per tensor, all of them copied in and out
EXPORT int level0(int op, float *x, float *y, float *z, uint32_t n, uint32_t mask, uint32_t repeat, uint32_t srep,
                  uint32_t drep) {
    return in_block(0, 1, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, by, bz;
        pipe.InitBuffer(bx, n * 4);
        pipe.InitBuffer(by, n * 4);
        pipe.InitBuffer(bz, n * 4);
        LocalTensor<float> lx = bx.Get<float>(), ly = by.Get<float>(), lz = bz.Get<float>();
        GlobalTensor<float> gx, gy, gz;
        gx.SetGlobalBuffer(x, n);
        gy.SetGlobalBuffer(y, n);
        gz.SetGlobalBuffer(z, n);
        PipeBarrier<PIPE_ALL>();
        DataCopy(lx, gx, n);
        PipeBarrier<PIPE_ALL>();
        PipeBarrier<PIPE_ALL>();
        DataCopy(ly, gy, n);
        PipeBarrier<PIPE_ALL>();
        PipeBarrier<PIPE_ALL>();
        DataCopy(lz, gz, n);
        PipeBarrier<PIPE_ALL>();
        BinaryRepeatParams p{1, 1, 1, uint8_t(drep), uint8_t(srep), uint8_t(srep)};
        if (op == 0) Add(lz, lx, ly, mask, uint8_t(repeat), p);
        else Compare(lz.ReinterpretCast<uint8_t>(), lx, ly, CMPMODE::LT, mask, uint8_t(repeat), p);
        PipeBarrier<PIPE_ALL>();
        DataCopy(gz, lz, n);
        PipeBarrier<PIPE_ALL>();
    });
}

// a whole 32-byte block in and out of a GM tensor of n halves (n < 16: past its end)
EXPORT int block_copy(int write, half *x, half *z, uint32_t n) {
    return in_block(0, 1, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 32);
        LocalTensor<half> t = buf.Get<half>();
        GlobalTensor<half> gx, gz;
        gx.SetGlobalBuffer(x, n);
        gz.SetGlobalBuffer(z, n);
        PipeBarrier<PIPE_ALL>();
        DataCopy(t, gx, 16);
        PipeBarrier<PIPE_ALL>();
        if (write) DataCopy(gz, t, 16);
        else DataCopyPad(gz, t, row<half>(n));
        buf.FreeTensor(t);  // a TBuf's tensor: nothing given back
    });
}

// what kernels compile against: ASSERT where no statement may stand, GetBlockNum unqualified, the float spellings
EXPORT int idioms(uint32_t *out) {
    return in_block(2, 5, [&] {
        uint32_t n = 7 ASSERT(n != 0 && "never checked");
        float32_t f = 1.5f;
        float16_t h = float16_t(2.0f);
        out[0] = uint32_t(::GetBlockIdx() * 10 + ::GetBlockNum());
        out[1] = AlignUp<uint32_t>(n, 4u);
        out[2] = uint32_t(AscendC::AlignUp(uint32_t(33), uint32_t(32)));
        out[3] = uint32_t(f * float(h));
        ASSERT(false);
    });
}

// a TBuf no InitBuffer sized: Get is harmless (a kernel may Get one it uses only for other dtypes), a use is not
EXPORT int tbuf_unsized(int use) {
    return in_block(0, 1, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tmp;
        LocalTensor<float> t = tmp.Get<float>();
        if (use) Duplicate(t, 1.0f, 8);
    });
}
'''


@pytest.fixture(scope="session")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("npukb-emu")
    (d / "npukb_emu.cpp").write_text(SOURCE)
    out = d / "npukb_emu.so"
    r = subprocess.run([compiler()[0], *FLAGS, "-O1", "-shared", "-I", str(INCLUDE), str(d / "npukb_emu.cpp"),
                        "-o", str(out), "-Wl,--no-undefined"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    cdll = ctypes.CDLL(str(out))
    cdll.ascendc_emu_gm_add.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p]
    cdll.ascendc_emu_configure.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64]
    cdll.ascendc_emu_error.restype = ctypes.c_char_p
    cdll.ascendc_emu_configure(40, 20, 192 * 1024)
    return cdll


def call(lib, fn: str, head: list, tensors: list, tail: list = (), outputs=()) -> int:
    arena = Arena()
    addrs = [ctypes.c_void_p(arena.address(t, f"arg{i}")) for i, t in enumerate(tensors)]
    arena.register(lib)
    rc = getattr(lib, fn)(*head, *addrs, *tail)
    arena.check_guards()
    for i in outputs:
        buf, nbytes, _ = arena.regions[i]
        tensors[i].reshape(-1).view(torch.uint8).copy_(buf[4096:4096 + nbytes])
    return rc


def error(lib) -> str:
    return lib.ascendc_emu_error().decode()


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("mode", [1, 2, 3])
def test_atomic_modes_combine_every_block_write(lib, n, dtype, mode):
    g = torch.Generator().manual_seed(n + mode)
    x = torch.randn(n, generator=g).to(dtype)
    z0 = torch.randn(n, generator=g).to(dtype)
    z = z0.clone()
    fn = "atomic_f32" if dtype == torch.float32 else "atomic_f16"
    assert call(lib, fn, [mode, 0, 3], [x, z], [ctypes.c_uint32(n)], outputs=[1]) == 0, error(lib)
    want = z0
    for _ in range(3):  # three blocks, one after another
        want = {1: lambda: want + x, 2: lambda: torch.maximum(want, x), 3: lambda: torch.minimum(want, x)}[mode]()
    torch.testing.assert_close(z, want, rtol=2e-3 if dtype == torch.float16 else 1e-6, atol=1e-3)


def test_atomic_of_another_type_is_an_error(lib):
    x, z = torch.ones(64), torch.zeros(64)
    assert call(lib, "atomic_f32", [1, 1, 1], [x, z], [ctypes.c_uint32(64)]) == 1
    assert "SetAtomic*<int32_t>" in error(lib) and "float" in error(lib)


@pytest.mark.parametrize("s", [4, 6])
def test_tofloat_of_a_bfloat16_scalar(lib, s):
    x, z = torch.full((64,), 2.0), torch.full((64,), 5.0)
    assert call(lib, "unary_f32", [4], [x, z], [ctypes.c_uint32(64), ctypes.c_int32(s)], outputs=[1]) == 0
    torch.testing.assert_close(z, x * (s / 4))  # Muls by ToFloat(bfloat16(s / 4)); after SetAtomicNone: plain


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("op", [0, 1])
def test_shifts(lib, n, op):
    g = torch.Generator().manual_seed(n)
    x = torch.randint(-(1 << 20), 1 << 20, (n,), generator=g, dtype=torch.int32)
    z = torch.zeros(n, dtype=torch.int32)
    assert call(lib, "unary_i32", [op], [x, z], [ctypes.c_uint32(n), ctypes.c_int32(3)], outputs=[1]) == 0, error(lib)
    torch.testing.assert_close(z, x << 3 if op == 0 else x >> 3)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("op", [2, 3])
def test_tanh_both_forms(lib, n, dtype, op):
    x = (torch.randn(n, generator=torch.Generator().manual_seed(n)) * 3).to(dtype)
    z = torch.zeros(n, dtype=dtype)
    fn = "unary_f32" if dtype == torch.float32 else "unary_f16"
    assert call(lib, fn, [op], [x, z], [ctypes.c_uint32(n), ctypes.c_int32(0)], outputs=[1]) == 0, error(lib)
    torch.testing.assert_close(z, torch.tanh(x.float()).to(dtype), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("n", [1, 5, 15])
def test_gm_last_block_tail_reads_but_never_writes(lib, n):
    x = torch.arange(1, n + 1, dtype=torch.float16)
    z = torch.zeros(n, dtype=torch.float16)
    assert call(lib, "block_copy", [0], [x, z], [ctypes.c_uint32(n)], outputs=[1]) == 0, error(lib)
    torch.testing.assert_close(z, x)  # the block read past x's end, and only x's own elements came back
    assert call(lib, "block_copy", [1], [x, torch.zeros(n, dtype=torch.float16)], [ctypes.c_uint32(n)]) == 2
    assert "DataCopy writes bytes [0, 32) of GM tensor arg1" in error(lib)


def test_a_read_past_the_last_block_still_faults(lib):
    x = torch.zeros(16, dtype=torch.float16)  # exactly one block: nothing to spare
    z = torch.zeros(8, dtype=torch.float16)   # 16 bytes: the read of 32 stays in its last block, the write does not
    assert call(lib, "block_copy", [1], [x, z], [ctypes.c_uint32(8)]) == 2
    assert "writes bytes [0, 32) of GM tensor arg1, which holds 16 bytes" in error(lib)


def test_kernel_idioms_compile_and_mean_what_they_do(lib):
    out = (ctypes.c_uint32 * 4)()
    assert lib.idioms(out) == 0, error(lib)  # ASSERT(false) checks nothing, as in the NPU's kernel build
    assert list(out) == [25, 8, 64, 3]


HOST = r'''
#include "ascendc_emu/host.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

// an integer attribute read as the width a TilingFunc names (GetAttrPointer<uint32_t>), and what it cannot be
EXPORT int attr_reads(int64_t value, int64_t *out) {
    gert::RuntimeAttrs attrs;
    gert::RuntimeAttrs::Value v;
    v.kind = 1;
    v.i = value;
    attrs.values_.push_back(v);
    out[0] = *attrs.GetAttrPointer<uint32_t>(0);
    out[1] = *attrs.GetAttrPointer<int32_t>(0);
    out[2] = *attrs.GetAttrPointer<int64_t>(0);
    out[3] = attrs.GetAttrPointer<double>(0) == nullptr;
    out[4] = attrs.GetAttrPointer<uint32_t>(1) == nullptr;
    gert::TilingParseContext parse;
    out[5] = parse.GetCompiledInfo<int64_t>() == parse.GetCompiledInfo<int64_t>();
    return 0;
}
'''


@pytest.mark.parametrize("value", [0, 7, 2048, -3])
def test_an_integer_attribute_reads_at_any_width(tmp_path, value):
    (tmp_path / "host.cpp").write_text(HOST)
    out = tmp_path / "host.so"
    r = subprocess.run([compiler()[0], *FLAGS, "-O0", "-shared", "-I", str(INCLUDE), str(tmp_path / "host.cpp"),
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    got = (ctypes.c_int64 * 6)()
    assert ctypes.CDLL(str(out)).attr_reads(ctypes.c_int64(value), got) == 0
    assert list(got) == [value & 0xFFFFFFFF, value, value, 1, 1, 1]


@pytest.mark.parametrize("mask,repeat,srep,drep", [(64, 1, 8, 8), (64, 3, 8, 8), (13, 2, 16, 8), (40, 4, 8, 0),
                                                   (1, 1, 8, 8)])
def test_level0_add_and_compare(lib, mask, repeat, srep, drep):
    n = 64 * 16
    g = torch.Generator().manual_seed(mask + repeat)
    x, y = torch.randn(n, generator=g), torch.randn(n, generator=g)
    z = torch.full((n,), 7.0)
    want = z.clone()
    for r in range(repeat):  # repeat r: elements [0, mask) at r * rep blocks of 8 floats
        for e in range(mask):
            want[r * drep * 8 + e] = x[r * srep * 8 + e] + y[r * srep * 8 + e]
    assert call(lib, "level0", [0], [x, y, z], [ctypes.c_uint32(n), ctypes.c_uint32(mask), ctypes.c_uint32(repeat),
                                                ctypes.c_uint32(srep), ctypes.c_uint32(drep)], outputs=[2]) == 0, \
        error(lib)
    torch.testing.assert_close(z, want)
    z = torch.zeros(n)
    assert call(lib, "level0", [1], [x, y, z], [ctypes.c_uint32(n), ctypes.c_uint32(mask), ctypes.c_uint32(repeat),
                                                ctypes.c_uint32(srep), ctypes.c_uint32(drep)], outputs=[2]) == 0
    bits = z.view(torch.uint8)
    for r in range(repeat):
        for e in range(mask):
            b = r * 64 + e
            assert bool((bits[b // 8] >> (b % 8)) & 1) == bool(x[r * srep * 8 + e] < y[r * srep * 8 + e])


def test_level0_past_the_buffer_and_bad_mask_are_errors(lib):
    x, y, z = torch.zeros(64), torch.zeros(64), torch.zeros(64)
    args = [ctypes.c_uint32(64), ctypes.c_uint32(64), ctypes.c_uint32(2), ctypes.c_uint32(8), ctypes.c_uint32(8)]
    assert call(lib, "level0", [0], [x, y, z], args) == 1  # two repeats of 64 floats in 64-float buffers
    args[1] = ctypes.c_uint32(65)
    assert call(lib, "level0", [0], [x, y, z], args) == 1
    assert "mask 65 outside [1, 64]" in error(lib)


@pytest.mark.parametrize("n", [1, 5, 15])
def test_a_write_into_the_last_block_of_an_output_the_binding_allocates_lands_in_its_padding(lib, n):
    """The NPU allocates an output in whole 32-byte blocks (and more): a kernel copying its last block whole writes
    the rest of that block harmlessly; only the output's own elements come back."""
    x = torch.arange(1, n + 1, dtype=torch.float16)
    arena = Arena()
    z = arena.allocate((n,), torch.float16, "empty", None)
    addrs = [ctypes.c_void_p(arena.address(x, "x")), ctypes.c_void_p(arena.address(z, "z"))]
    arena.register(lib)
    assert lib.block_copy(1, *addrs, ctypes.c_uint32(n)) == 0, error(lib)
    arena.check_guards()
    torch.testing.assert_close(z, x)


def test_get_on_an_unsized_tbuf_faults_only_when_used(lib):
    assert lib.tbuf_unsized(0) == 0, error(lib)
    assert lib.tbuf_unsized(1) != 0 and "never allocated" in error(lib)
