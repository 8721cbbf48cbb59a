// Test programs for the ascendc-cpu emulation (tests/repair/ascendc/test_emu_api.py): each exported function runs
// one AscendC API the way a kernel does (GM -> UB through queues, the instruction, UB -> GM), in a block of its own,
// and returns the fault kind (0 none, 1 error, 2 crash, 3 deadlock). A PipeBarrier<PIPE_ALL> around each copy
// orders the pipes (the pipe model would otherwise report the TBufs' hand-overs as races).
#include "ascendc_emu/kernel_unit.h"

using namespace AscendC;
using ascendc_emu::guarded;

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint32_t TILE = 2048;  // elements per tile: 5000 elements take three

enum Op { ADD, SUB, MUL, DIV, MAX, MIN, EXP, LN, ABS, SQRT, RSQRT, RECIP, RELU, ADDS, MULS, MAXS, MINS, DUP, LEAKY,
          AXPY };

template <class F> int in_block(F f) {
    return guarded([&] {
        ascendc_emu::begin_block(0, 1);
        f();
        ascendc_emu::g_block.active = false;
    });
}

template <class T> DataCopyExtParams row(uint32_t n) { return DataCopyExtParams{1, uint32_t(n * sizeof(T)), 0, 0, 0}; }

template <class T> void elementwise(int op, T *x, T *y, T *z, uint32_t n, float s) {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> qx, qy;
    TQue<TPosition::VECOUT, 2> qz;
    pipe.InitBuffer(qx, 2, TILE * sizeof(T));
    pipe.InitBuffer(qy, 2, TILE * sizeof(T));
    pipe.InitBuffer(qz, 2, TILE * sizeof(T));
    GlobalTensor<T> gx, gy, gz;
    gx.SetGlobalBuffer(x, n);
    gy.SetGlobalBuffer(y, n);
    gz.SetGlobalBuffer(z, n);
    for (uint32_t off = 0; off < n; off += TILE) {
        uint32_t len = n - off < TILE ? n - off : TILE;
        LocalTensor<T> lx = qx.AllocTensor<T>(), ly = qy.AllocTensor<T>();
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(lx, gx[off], row<T>(len), DataCopyPadExtParams<T>{false, 0, 0, 0});
        PipeBarrier<PIPE_ALL>();
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(ly, gy[off], row<T>(len), DataCopyPadExtParams<T>{false, 0, 0, 0});
        PipeBarrier<PIPE_ALL>();
        qx.EnQue(lx);
        qy.EnQue(ly);
        lx = qx.DeQue<T>();
        ly = qy.DeQue<T>();
        LocalTensor<T> lz = qz.AllocTensor<T>();
        T scalar = T(s);
        switch (op) {
            case ADD: Add(lz, lx, ly, len); break;
            case SUB: Sub(lz, lx, ly, len); break;
            case MUL: Mul(lz, lx, ly, len); break;
            case DIV: Div(lz, lx, ly, len); break;
            case MAX: Max(lz, lx, ly, len); break;
            case MIN: Min(lz, lx, ly, len); break;
            case EXP: Exp(lz, lx, len); break;
            case LN: Ln(lz, lx, len); break;
            case ABS: Abs(lz, lx, len); break;
            case SQRT: Sqrt(lz, lx, len); break;
            case RSQRT: Rsqrt(lz, lx, len); break;
            case RECIP: Reciprocal(lz, lx, len); break;
            case RELU: Relu(lz, lx, len); break;
            case ADDS: Adds(lz, lx, scalar, len); break;
            case MULS: Muls(lz, lx, scalar, len); break;
            case MAXS: Maxs(lz, lx, scalar, len); break;
            case MINS: Mins(lz, lx, scalar, len); break;
            case DUP: Duplicate(lz, scalar, len); break;
            case LEAKY: LeakyRelu(lz, lx, scalar, len); break;
            case AXPY: DataCopy(lz, ly, (len * sizeof(T) + 31) / 32 * 32 / sizeof(T)); Axpy(lz, lx, scalar, len); break;
        }
        qz.EnQue(lz);
        qx.FreeTensor(lx);
        qy.FreeTensor(ly);
        lz = qz.DeQue<T>();
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(gz[off], lz, row<T>(len));
        PipeBarrier<PIPE_ALL>();
        qz.FreeTensor(lz);
    }
}

template <class D, class S> void cast(RoundMode mode, S *x, D *z, uint32_t n) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bz;
    pipe.InitBuffer(bx, TILE * sizeof(S));
    pipe.InitBuffer(bz, TILE * sizeof(D));
    GlobalTensor<S> gx;
    GlobalTensor<D> gz;
    gx.SetGlobalBuffer(x, n);
    gz.SetGlobalBuffer(z, n);
    for (uint32_t off = 0; off < n; off += TILE) {
        uint32_t len = n - off < TILE ? n - off : TILE;
        LocalTensor<S> lx = bx.Get<S>();
        LocalTensor<D> lz = bz.Get<D>();
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(lx, gx[off], row<S>(len), DataCopyPadExtParams<S>{false, 0, 0, 0});
        PipeBarrier<PIPE_ALL>();
        Cast(lz, lx, mode, len);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(gz[off], lz, row<D>(len));
        PipeBarrier<PIPE_ALL>();
    }
}

template <class T> void reduce(int kind, T *x, T *z, uint32_t n, bool index) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bw, bz;
    pipe.InitBuffer(bx, (n * sizeof(T) + 31) / 32 * 32);
    pipe.InitBuffer(bw, (n * sizeof(T) + 31) / 32 * 32);
    pipe.InitBuffer(bz, 32);
    GlobalTensor<T> gx, gz;
    gx.SetGlobalBuffer(x, n);
    gz.SetGlobalBuffer(z, 2);
    LocalTensor<T> lx = bx.Get<T>(), lw = bw.Get<T>(), lz = bz.Get<T>();
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(lx, gx, row<T>(n), DataCopyPadExtParams<T>{false, 0, 0, 0});
    PipeBarrier<PIPE_ALL>();
    if (kind == 0) ReduceSum(lz, lx, lw, n);
    else if (kind == 1) ReduceMax(lz, lx, lw, n, index);
    else ReduceMin(lz, lx, lw, n, index);
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(gz, lz, row<T>(index ? 2 : 1));
    PipeBarrier<PIPE_ALL>();
}

template <class T> void whole_reduce(int kind, T *x, T *z, uint32_t n, int mask, int repeat, int dstRep, int srcBlk,
                                     int srcRep, int order) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bz;
    pipe.InitBuffer(bx, (n * sizeof(T) + 31) / 32 * 32);
    pipe.InitBuffer(bz, 8192);
    GlobalTensor<T> gx, gz;
    gx.SetGlobalBuffer(x, n);
    gz.SetGlobalBuffer(z, 8192 / sizeof(T));
    LocalTensor<T> lx = bx.Get<T>(), lz = bz.Get<T>();
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(lx, gx, row<T>(n), DataCopyPadExtParams<T>{false, 0, 0, 0});
    PipeBarrier<PIPE_ALL>();
    if (kind == 0) WholeReduceSum<T>(lz, lx, mask, repeat, dstRep, srcBlk, srcRep);
    else if (kind == 1) WholeReduceMax<T>(lz, lx, mask, repeat, dstRep, srcBlk, srcRep, ReduceOrder(order));
    else WholeReduceMin<T>(lz, lx, mask, repeat, dstRep, srcBlk, srcRep, ReduceOrder(order));
    PipeBarrier<PIPE_ALL>();
    DataCopy(gz, lz, 8192 / sizeof(T));
    PipeBarrier<PIPE_ALL>();
}

template <class T> void compare(int mode, bool scalar_mode, float s, T *x, T *y, uint8_t *mask, T *z, uint32_t n) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bm, bz;
    uint32_t bytes = (n * sizeof(T) + 31) / 32 * 32;
    pipe.InitBuffer(bx, bytes);
    pipe.InitBuffer(by, bytes);
    pipe.InitBuffer(bm, (n / 8 + 32) / 32 * 32);
    pipe.InitBuffer(bz, bytes);
    GlobalTensor<T> gx, gy, gz;
    GlobalTensor<uint8_t> gm;
    gx.SetGlobalBuffer(x, n);
    gy.SetGlobalBuffer(y, n);
    gz.SetGlobalBuffer(z, n);
    gm.SetGlobalBuffer(mask, (n + 7) / 8);
    LocalTensor<T> lx = bx.Get<T>(), ly = by.Get<T>(), lz = bz.Get<T>();
    LocalTensor<uint8_t> lm = bm.Get<uint8_t>();
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(lx, gx, row<T>(n), DataCopyPadExtParams<T>{false, 0, 0, 0});
    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(ly, gy, row<T>(n), DataCopyPadExtParams<T>{false, 0, 0, 0});
    PipeBarrier<PIPE_ALL>();
    if (scalar_mode) CompareScalar(lm, lx, T(s), CMPMODE(mode), n);
    else Compare(lm, lx, ly, CMPMODE(mode), n);
    if (scalar_mode) Select(lz, lm, lx, T(s), SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
    else Select(lz, lm, lx, ly, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(gm, lm, row<uint8_t>((n + 7) / 8));
    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_ALL>();
    DataCopyPad(gz, lz, row<T>(n));
    PipeBarrier<PIPE_ALL>();
}

template <class T> int by_dtype(int dtype, T f) {
    switch (dtype) {
        case 0: return f(float{});
        case 1: return f(half{});
        case 27: return f(bfloat16_t{});
        default: return f(int32_t{});
    }
}

}  // namespace

EXPORT int emu_elementwise(int op, int dtype, void *x, void *y, void *z, uint32_t n, float s) {
    return by_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        if constexpr (std::is_same_v<T, int32_t>) return 1;
        else return in_block([&] { elementwise<T>(op, (T *)x, (T *)y, (T *)z, n, s); });
    });
}

EXPORT int emu_cast(int mode, int src, int dst, void *x, void *z, uint32_t n) {
    RoundMode m = RoundMode(mode);
    return by_dtype(src, [&](auto s) {
        using S = decltype(s);
        return by_dtype(dst, [&](auto d) {
            using D = decltype(d);
            return in_block([&] { cast<D, S>(m, (S *)x, (D *)z, n); });
        });
    });
}

EXPORT int emu_reduce(int kind, int dtype, void *x, void *z, uint32_t n, int index) {
    return by_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        if constexpr (std::is_same_v<T, int32_t>) return 1;
        else return in_block([&] { reduce<T>(kind, (T *)x, (T *)z, n, index != 0); });
    });
}

EXPORT int emu_whole_reduce(int kind, int dtype, void *x, void *z, uint32_t n, int mask, int repeat, int dstRep,
                            int srcBlk, int srcRep, int order) {
    return by_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, bfloat16_t>) return 1;
        else return in_block([&] { whole_reduce<T>(kind, (T *)x, (T *)z, n, mask, repeat, dstRep, srcBlk, srcRep, order); });
    });
}

EXPORT int emu_compare(int mode, int scalar_mode, float s, int dtype, void *x, void *y, void *mask, void *z, uint32_t n) {
    return by_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        return in_block([&] { compare<T>(mode, scalar_mode != 0, s, (T *)x, (T *)y, (uint8_t *)mask, (T *)z, n); });
    });
}

// DataCopy (32-byte blocks) and DataCopyPad (any length, blockCount rows with strides, padding) between GM and UB
EXPORT int emu_copy(int pad, float *x, float *z, uint32_t count, uint32_t len, uint32_t src_stride, uint32_t dst_stride,
                    int is_pad, int left, int right, float value) {
    return in_block([&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 64 * 1024);
        GlobalTensor<float> gx, gz;
        gx.SetGlobalBuffer(x);
        gz.SetGlobalBuffer(z);
        LocalTensor<float> l = q.AllocTensor<float>();
        if (!pad) {
            PipeBarrier<PIPE_ALL>();
            DataCopy(l, gx, len);
            PipeBarrier<PIPE_ALL>();
            PipeBarrier<PIPE_ALL>();
            DataCopy(gz, l, len);
            PipeBarrier<PIPE_ALL>();
        } else {
            PipeBarrier<PIPE_ALL>();
            DataCopyPad(l, gx, DataCopyExtParams{uint16_t(count), uint32_t(len * 4), src_stride * 4, dst_stride, 0},
                        DataCopyPadExtParams<float>{is_pad != 0, uint8_t(left), uint8_t(right), value});
            PipeBarrier<PIPE_ALL>();
            // the UB rows as they landed (padding included), row after row of 32-byte blocks
            uint32_t row = ((left + len + right) * 4 + 31) / 32 * 32;
            PipeBarrier<PIPE_ALL>();
            DataCopy(gz, l, (count * (row + dst_stride * 32)) / 4);
            PipeBarrier<PIPE_ALL>();
        }
        q.EnQue(l);
        l = q.DeQue<float>();
        q.FreeTensor(l);
    });
}

// UB -> GM DataCopyPad with strides: rows of `len` from UB rows 32-byte aligned (+ src_stride blocks) to GM
// rows `dst_stride` bytes apart
EXPORT int emu_copy_out(float *x, float *z, uint32_t count, uint32_t len, uint32_t src_stride, uint32_t dst_stride) {
    return in_block([&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 64 * 1024);
        GlobalTensor<float> gx, gz;
        gx.SetGlobalBuffer(x);
        gz.SetGlobalBuffer(z);
        LocalTensor<float> l = b.Get<float>();
        PipeBarrier<PIPE_ALL>();
        DataCopy(l, gx, 64 * 1024 / 4);
        PipeBarrier<PIPE_ALL>();
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(gz, l, DataCopyExtParams{uint16_t(count), uint32_t(len * 4), src_stride, dst_stride * 4, 0});
        PipeBarrier<PIPE_ALL>();
    });
}

// the scalar unit: LocalTensor and GlobalTensor GetValue/SetValue, operator[] views, a barrier and an event pair
EXPORT int emu_scalar(int dtype, void *x, void *z, uint32_t n) {
    return by_dtype(dtype, [&](auto t) {
        using T = decltype(t);
        if constexpr (std::is_same_v<T, int32_t>) return 1;
        else return in_block([&] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> bx, bz;
            pipe.InitBuffer(bx, (n * sizeof(T) + 31) / 32 * 32);
            pipe.InitBuffer(bz, (n * sizeof(T) + 31) / 32 * 32);
            GlobalTensor<T> gx, gz;
            gx.SetGlobalBuffer((T *)x, n);
            gz.SetGlobalBuffer((T *)z, 2 * n);
            LocalTensor<T> lx = bx.Get<T>(), lz = bz.Get<T>();
            PipeBarrier<PIPE_ALL>();
            DataCopyPad(lx, gx, row<T>(n), DataCopyPadExtParams<T>{false, 0, 0, 0});
            PipeBarrier<PIPE_ALL>();
            PipeBarrier<PIPE_ALL>();
            SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
            for (uint32_t i = 0; i < n; i++) {
                lz.SetValue(n - 1 - i, T(float(lx.GetValue(i)) * 2.0f));  // reversed, doubled
            }
            PipeBarrier<PIPE_ALL>();
            DataCopyPad(gz, lz, row<T>(n));
            PipeBarrier<PIPE_ALL>();
            for (uint32_t i = 0; i < n; i++) {
                gz[n].SetValue(i, gx.GetValue(i));  // GM to GM through the scalar unit
            }
        });
    });
}

namespace {
__global__ __aicore__ void block_ids(GM_ADDR out) {
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t *)out);
    g.SetValue(GetBlockIdx() * 2, int32_t(GetBlockIdx()));
    g.SetValue(GetBlockIdx() * 2 + 1, int32_t(GetBlockNum()));
}
}  // namespace

EXPORT int emu_blocks(void *out, uint32_t blocks) {
    return guarded([&] { ::ascendc_emu::launch_blocks(blocks, &block_ids, (GM_ADDR)out); });
}

// A fault each: the status the NPU's behaviour maps to (1 error, 2 crash, 3 deadlock)
EXPORT int emu_fault(int which, float *x, float *z) {
    return in_block([&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> q;
        TBuf<TPosition::VECCALC> b;
        GlobalTensor<float> gx, gz;
        gx.SetGlobalBuffer(x, 64);
        gz.SetGlobalBuffer(z, 64);
        if (which == 1 || which == 15) {  // two buffers of 100 KB: the second ends past the 192 KB UB
            pipe.InitBuffer(q, 2, 100 * 1024);
            LocalTensor<float> a = q.AllocTensor<float>(), c = q.AllocTensor<float>();
            Duplicate(a, 1.0f, 25600);  // wholly inside the UB
            Duplicate(c, 1.0f, which == 1 ? 25600 : 8);  // 15: its first 32 bytes lie inside too
            return;
        }
        if (which == 16) {  // a TBuf wholly past the UB, never used: no fault (InitBuffer does not check)
            TBuf<TPosition::VECCALC> big;
            pipe.InitBuffer(big, 256 * 1024);
            pipe.InitBuffer(q, 2, 1024);
            return;
        }
        if (which == 17) {  // two EnQue on a depth-1 queue before a DeQue
            TQue<TPosition::VECIN, 1> one;
            pipe.InitBuffer(one, 2, 1024);
            LocalTensor<float> a = one.AllocTensor<float>(), c = one.AllocTensor<float>();
            one.EnQue(a);
            one.EnQue(c);
            return;
        }
        if (which == 19 || which == 20) {  // FreeTensors swapped between two queues: of other positions (19) or not
            TQue<TPosition::VECIN, 1> qa, qb;
            TQue<TPosition::VECOUT, 1> qo;
            pipe.InitBuffer(qa, 1, 256);
            pipe.InitBuffer(qb, 1, 256);
            pipe.InitBuffer(qo, 1, 256);
            LocalTensor<float> a = qa.AllocTensor<float>();
            if (which == 19) {
                LocalTensor<float> o = qo.AllocTensor<float>();
                qa.FreeTensor(o);
                return;
            }
            LocalTensor<float> c = qb.AllocTensor<float>();
            qa.FreeTensor(c);
            qb.FreeTensor(a);
            a = qa.AllocTensor<float>();  // each buffer free again: both queues allocate
            c = qb.AllocTensor<float>();
            return;
        }
        if (which == 21 || which == 22) {  // TBuf::Get of 16 floats from a 32-byte TBuf, used within it or past it
            TBuf<TPosition::VECCALC> small, next;
            pipe.InitBuffer(small, 32);
            pipe.InitBuffer(next, 64);
            LocalTensor<float> t = small.Get<float>(16);
            Duplicate(t, 1.0f, which == 21 ? 8 : 16);
            return;
        }
        pipe.InitBuffer(q, 2, 1024);
        pipe.InitBuffer(b, 1024);
        LocalTensor<float> l = q.AllocTensor<float>();
        switch (which) {
            case 3: DataCopy(l, gx[1 << 24], 8); break;                    // reads far from every tensor
            case 18: DataCopy(l, gx[56], 16); break;                       // reads past x's end: undefined (NaN)
            case 4: DataCopy(gz[60], l, 8); break;                         // writes past z
            case 5: q.DeQue<float>(); break;                               // nothing enqueued
            case 6: q.AllocTensor<float>(); q.AllocTensor<float>(); break;  // both buffers taken already
            case 7: q.FreeTensor(l); Duplicate(l, 1.0f, 8); break;         // used after FreeTensor
            case 8: q.EnQue(l); Duplicate(l, 1.0f, 8); break;              // written after EnQue
            case 9: WaitFlag<HardEvent::V_S>(0); break;                    // no SetFlag
            case 10: Duplicate(l, 1.0f, 300); break;                       // 300 elements in a 256-element buffer
            case 11: Duplicate(l[3], 1.0f, 8); break;                      // UB operand not 32-byte aligned
            case 12: q.FreeTensor(l); q.FreeTensor(l); break;              // freed twice
            case 13: z[64 + 3] = 1.0f; break;                              // a raw write into the guard region
            case 14: l.GetValue(256); break;                               // past the end of the tensor
            default: break;
        }
    });
}

// A queue configured by a TQueConfig (its vector positions take no part of it) and CANN's implementation calls on
// raw addresses: z[0, n) = v through DuplicateImpl and DataCopyUB2GMImpl, n a multiple of 8
namespace {
constexpr TQueConfig kConf = {false, false, false, 0, 1, 0, {}};
}  // namespace
EXPORT int emu_raw_fill(float *z, uint32_t n, float v) {
    return in_block([&] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 1, &kConf> q;
        pipe.InitBuffer(q, 1, n * sizeof(float));
        GlobalTensor<float> gz;
        gz.SetGlobalBuffer(z, n);
        LocalTensor<float> t = q.AllocTensor<float>();
        DuplicateImpl<float>((__ubuf__ float *)t.GetPhyAddr(), v, int32_t(n));
        q.EnQue(t);
        t = q.DeQue<float>();
        DataCopyUB2GMImpl((__gm__ float *)gz.GetPhyAddr(), (__ubuf__ float *)t.GetPhyAddr(),
                          {1, static_cast<uint16_t>(n * sizeof(float) / 32), 0, 0});
        q.FreeTensor(t);
    });
}

// GET_TILING_DATA in a kernel: the struct the host saved, read back field by field
#include "probe_tiling.h"

namespace {
__global__ __aicore__ void probe_kernel(GM_ADDR tiling, GM_ADDR out) {
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> g;
    g.SetGlobalBuffer((__gm__ float *)out);
    g.SetValue(0, float(t.coreNum));
    g.SetValue(1, float(t.ubSize));
    g.SetValue(2, float(t.numel0));
    g.SetValue(3, t.alpha);
    g.SetValue(4, float(t.k));
    g.SetValue(5, float(t.axes[1]));
    g.SetValue(6, float(TILING_KEY_IS(3)));
}
}  // namespace

EXPORT int emu_probe_kernel(void *tiling, void *out, uint64_t key) {
    AscendcEmuArg a[2] = {{tiling, 0, 0}, {out, 0, 0}};
    return ::ascendc_emu::run_entry(&probe_kernel, a, 2, 1, key);
}
