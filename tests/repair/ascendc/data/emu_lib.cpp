// Test programs for the ascendc-cpu emulation's math/activation libraries, gathers, layout changes, high-level
// reductions, level-0 forms, CCE vcadd and operator expressions (tests/repair/ascendc/test_emu_lib.py): each exported
// function runs its calls in a block of its own, GM -> UB -> GM as a kernel does, and returns the fault kind.
#include "ascendc_emu/kernel_unit.h"

using namespace AscendC;
using ascendc_emu::guarded;

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint32_t TILE = 2048;

template <class F> int in_block(F f) {
    return guarded([&] {
        ascendc_emu::begin_block(0, 1);
        f();
        ascendc_emu::g_block.active = false;
    });
}

template <class T> DataCopyExtParams row(uint32_t n) { return DataCopyExtParams{1, uint32_t(n * sizeof(T)), 0, 0, 0}; }

template <class T> void load(const LocalTensor<T> &l, const GlobalTensor<T> &g, uint32_t n) {
    DataCopyPad(l, g, row<T>(n), DataCopyPadExtParams<T>{false, 0, 0, 0});
}

// f(z, x, y, tmp, len) on each tile of x, y (TILE elements a tile, the last one partial)
template <class T, class F> void tiled(T *x, T *y, T *z, uint32_t n, F f) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bz, bt;
    pipe.InitBuffer(bx, TILE * sizeof(T));
    pipe.InitBuffer(by, TILE * sizeof(T));
    pipe.InitBuffer(bz, TILE * sizeof(T));
    pipe.InitBuffer(bt, 1024);
    GlobalTensor<T> gx, gy, gz;
    gx.SetGlobalBuffer(x, n);
    gy.SetGlobalBuffer(y, n);
    gz.SetGlobalBuffer(z, n);
    for (uint32_t off = 0; off < n; off += TILE) {
        uint32_t len = n - off < TILE ? n - off : TILE;
        LocalTensor<T> lx = bx.Get<T>(), ly = by.Get<T>(), lz = bz.Get<T>();
        LocalTensor<uint8_t> lt = bt.Get<uint8_t>();
        load(lx, gx[off], len);
        load(ly, gy[off], len);
        f(lz, lx, ly, lt, len);
        DataCopyPad(gz[off], lz, row<T>(len));
    }
}

// the libraries' unary calls, by index (test_emu_lib.LIB): odd ones through the form with a scratch buffer
template <class T> void lib_op(int op, LocalTensor<T> &z, const LocalTensor<T> &x, const LocalTensor<T> &y,
                               const LocalTensor<uint8_t> &t, uint32_t n, float s) {
    bool tmp = op % 2 == 1;
#define ASCENDC_TEST_LIB(NAME)                   \
    if (tmp) NAME(z, x, t, n);                   \
    else NAME(z, x, n);                          \
    break;
    switch (op) {
        case 0: ASCENDC_TEST_LIB(Sigmoid)
        case 1: ASCENDC_TEST_LIB(Tanh)
        case 2: ASCENDC_TEST_LIB(Sin)
        case 3: ASCENDC_TEST_LIB(Cos)
        case 4: ASCENDC_TEST_LIB(Tan)
        case 5: ASCENDC_TEST_LIB(Asin)
        case 6: ASCENDC_TEST_LIB(Acos)
        case 7: ASCENDC_TEST_LIB(Atan)
        case 8: ASCENDC_TEST_LIB(Sinh)
        case 9: ASCENDC_TEST_LIB(Cosh)
        case 10: ASCENDC_TEST_LIB(Asinh)
        case 11: ASCENDC_TEST_LIB(Acosh)
        case 12: ASCENDC_TEST_LIB(Atanh)
        case 13: ASCENDC_TEST_LIB(Erf)
        case 14: ASCENDC_TEST_LIB(Erfc)
        case 15: ASCENDC_TEST_LIB(Log)
        case 16: ASCENDC_TEST_LIB(Log2)
        case 17: ASCENDC_TEST_LIB(Log10)
        case 18: ASCENDC_TEST_LIB(Floor)
        case 19: ASCENDC_TEST_LIB(Ceil)
        case 20: ASCENDC_TEST_LIB(Round)
        case 21: ASCENDC_TEST_LIB(Trunc)
        case 22: ASCENDC_TEST_LIB(Frac)
        case 23: ASCENDC_TEST_LIB(Sign)
        case 24: ASCENDC_TEST_LIB(Gelu)
        case 25: ASCENDC_TEST_LIB(FasterGelu)
        case 26: ASCENDC_TEST_LIB(Silu)
        case 27: Swish(z, x, n, T(s)); break;
        case 28: ClampMax(z, x, t, T(s), n); break;
        case 29: ClampMin(z, x, T(s), n); break;
        case 30: Power(z, x, y, n); break;
        case 31: Power(z, x, T(s), t, n); break;
        case 32: Power(z, T(s), y, n); break;
        case 33: Exp<T, 15, false>(z, x, t, n); break;
        // the operator expressions: over the whole destination (z has TILE elements; the tiles' tails are junk)
        case 34: z = x + y; break;
        case 35: z = x - y; break;
        case 36: z = x * y; break;
        case 37: z = x / y; break;
        default: break;
    }
#undef ASCENDC_TEST_LIB
}

template <class T> int by_float(int dtype, T f) {
    switch (dtype) {
        case 0: return f(float{});
        case 1: return f(half{});
        default: return f(bfloat16_t{});
    }
}

}  // namespace

EXPORT int emu_lib(int op, int dtype, void *x, void *y, void *z, uint32_t n, float s) {
    return by_float(dtype, [&](auto v) {
        using T = decltype(v);
        return in_block([&] {
            tiled<T>((T *)x, (T *)y, (T *)z, n, [&](auto &lz, auto &lx, auto &ly, auto &lt, uint32_t len) {
                lib_op<T>(op, lz, lx, ly, lt, len, s);
            });
        });
    });
}

// integers: Xor (count, with and without scratch), And/Or/Not level-0 over whole repeats, the & and | expressions
EXPORT int emu_int(int op, int32_t *x, int32_t *y, int32_t *z, uint32_t n) {
    return in_block([&] {
        tiled<int32_t>(x, y, z, n, [&](auto &lz, auto &lx, auto &ly, auto &lt, uint32_t len) {
            uint8_t repeats = uint8_t((len + 63) / 64);
            BinaryRepeatParams b;
            UnaryRepeatParams u;
            switch (op) {
                case 0: Xor(lz, lx, ly, len); break;
                case 1: Xor(lz, lx, ly, lt, len); break;
                case 2: And(lz, lx, ly, 64, repeats, b); break;
                case 3: Or(lz, lx, ly, 64, repeats, b); break;
                case 4: Not(lz, lx, 64, repeats, u); break;
                case 5: lz = lx & ly; break;
                case 6: lz = lx | ly; break;
                default: break;
            }
        });
    });
}

// level-0 forms under a mask of `mask` elements a repeat: 0 Duplicate, 1 Cast float -> half, 2 Cast half -> float,
// 3 Select (mode 2) between x and y by the bits of m, 4 Select (mode 1) between x and s, 5 Select (mode 0)
EXPORT int emu_l0(int op, int dtype, void *x, void *y, uint8_t *m, void *z, uint32_t repeat, uint32_t mask, float s) {
    return by_float(dtype, [&](auto v) {
        using T = decltype(v);
        return in_block([&] {
            constexpr uint32_t per = 256 / sizeof(T);
            uint32_t n = repeat * per;
            TPipe pipe;
            TBuf<TPosition::VECCALC> bx, by, bz, bm;
            pipe.InitBuffer(bx, n * 4);
            pipe.InitBuffer(by, n * 4);
            pipe.InitBuffer(bz, n * 4);
            pipe.InitBuffer(bm, 1024);
            GlobalTensor<T> gx, gy, gz;
            GlobalTensor<uint8_t> gm;
            gx.SetGlobalBuffer((T *)x, n);
            gy.SetGlobalBuffer((T *)y, n);
            gz.SetGlobalBuffer((T *)z, n);
            gm.SetGlobalBuffer(m, 1024);
            LocalTensor<T> lx = bx.Get<T>(), ly = by.Get<T>(), lz = bz.Get<T>();
            LocalTensor<uint8_t> lm = bm.Get<uint8_t>();
            load(lx, gx, n);
            load(ly, gy, n);
            load(lz, gz, n);
            DataCopy(lm, gm, 1024);
            uint8_t rep = uint8_t(repeat);
            if (op == 0) {
                Duplicate(lz, T(s), mask, rep, 1, 8);
            } else if (op == 1 || op == 2) {  // float <-> half, 64 elements a repeat (the float operand's 256 bytes)
                if constexpr (std::is_same_v<T, float>) {
                    LocalTensor<half> lh = by.Get<half>();
                    if (op == 1) {
                        Cast(lh, lx, RoundMode::CAST_NONE, uint64_t(mask), rep, UnaryRepeatParams(1, 1, 4, 8));
                        DataCopyPad(gz, lh.template ReinterpretCast<T>(), row<T>(n / 2));
                        return;
                    }
                    Cast(lh, lx, RoundMode::CAST_NONE, uint64_t(per), rep, UnaryRepeatParams(1, 1, 4, 8));
                    Cast(lz, lh, RoundMode::CAST_NONE, uint64_t(mask), rep, UnaryRepeatParams(1, 1, 8, 4));
                }
            } else if (op == 3) {
                Select(lz, lm, lx, ly, SELMODE::VSEL_TENSOR_TENSOR_MODE, uint64_t(mask), rep, BinaryRepeatParams());
            } else if (op == 4) {
                Select(lz, lm, lx, T(s), SELMODE::VSEL_TENSOR_SCALAR_MODE, uint64_t(mask), rep, BinaryRepeatParams());
            } else if (op == 5) {
                Select(lz, lm, lx, ly, SELMODE::VSEL_CMPMASK_SPR, uint64_t(mask), rep, BinaryRepeatParams());
            } else if (op == 6) {  // the count-form Select in mode 0: one repeat's bits for every repeat
                Select(lz, lm, lx, ly, SELMODE::VSEL_CMPMASK_SPR, n);
            }
            DataCopyPad(gz, lz, row<T>(n));
        });
    });
}

// Brcb of 8 * repeat elements, Gather by byte offsets, GatherMask (pattern 1-7, or 0: the user bits in m)
EXPORT int emu_move(int op, int dtype, void *x, uint32_t *off, uint8_t *m, void *z, uint64_t *kept, uint32_t n,
                    uint32_t arg) {
    return by_float(dtype, [&](auto v) {
        using T = decltype(v);
        return in_block([&] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> bx, bo, bm, bz;
            pipe.InitBuffer(bx, 32768);
            pipe.InitBuffer(bo, 32768);
            pipe.InitBuffer(bm, 1024);
            pipe.InitBuffer(bz, 65536);
            GlobalTensor<T> gx, gz;
            GlobalTensor<uint32_t> go;
            GlobalTensor<uint8_t> gm;
            gx.SetGlobalBuffer((T *)x, n);
            go.SetGlobalBuffer(off, n);
            gm.SetGlobalBuffer(m, 1024);
            gz.SetGlobalBuffer((T *)z, 65536 / sizeof(T));
            LocalTensor<T> lx = bx.Get<T>(), lz = bz.Get<T>();
            LocalTensor<uint32_t> lo = bo.Get<uint32_t>();
            LocalTensor<uint8_t> lm = bm.Get<uint8_t>();
            load(lx, gx, n);
            uint32_t out = 0;
            if (op == 0) {  // Brcb: arg repeats of 8 elements, blocks one after another
                Brcb(lz, lx, uint8_t(arg), BrcbRepeatParams(1, 8));
                out = arg * 8 * (32 / sizeof(T));
            } else if (op == 1) {
                load(lo, go, n);
                Gather(lz, lx, lo, 0, n);
                out = n;
            } else {  // GatherMask over n / per repeats; arg: the pattern (0: user bits)
                uint16_t repeats = uint16_t(n / (256 / sizeof(T)));
                uint64_t cnt = 0;
                if (arg == 0) {
                    DataCopy(lm, gm, 1024);
                    GatherMask(lz, lx, lm.template ReinterpretCast<uint16_t>(), false, 0, {1, repeats, 8, 8}, cnt);
                } else {
                    GatherMask(lz, lx, uint8_t(arg), false, 0, {1, repeats, 8, 8}, cnt);
                }
                *kept = cnt;
                out = uint32_t(cnt);
            }
            if (out) DataCopyPad(gz, lz, row<T>(out));
        });
    });
}

// CreateVecIndex (first) or ArithProgression (first, step) of n elements
EXPORT int emu_index(int which, int dtype, void *z, uint32_t n, float first, float step) {
    auto run = [&](auto v) {
        using T = decltype(v);
        return in_block([&] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> bz;
            pipe.InitBuffer(bz, (n * sizeof(T) + 31) / 32 * 32);
            GlobalTensor<T> gz;
            gz.SetGlobalBuffer((T *)z, n);
            LocalTensor<T> lz = bz.Get<T>();
            if (which == 0) CreateVecIndex(lz, T(first), n);
            else ArithProgression(lz, T(first), T(step), int32_t(n));
            DataCopyPad(gz, lz, row<T>(n));
        });
    };
    return dtype == 3 ? run(int32_t{}) : by_float(dtype, run);
}

// TransDataTo5HD: x as 16 rows of `width` elements (a multiple of one block), each 32-byte column block of every row
// to z; 16-bit: z block j of repeat r = element j of the rows' block r; 32-bit: rows in pairs of blocks. The three
// forms: 0 LocalTensor lists, 1 address lists, 2 __ubuf__ pointer lists (TransDataTo5HDImpl). op 3: Transpose 16x16.
EXPORT int emu_5hd(int form, int dtype, void *x, void *z, uint32_t width) {
    return by_float(dtype, [&](auto v) {
        using T = decltype(v);
        return in_block([&] {
            constexpr uint32_t B = 32 / sizeof(T);
            uint32_t n = 16 * width;
            TPipe pipe;
            TBuf<TPosition::VECCALC> bx, bz;
            pipe.InitBuffer(bx, n * sizeof(T));
            pipe.InitBuffer(bz, n * sizeof(T));
            GlobalTensor<T> gx, gz;
            gx.SetGlobalBuffer((T *)x, n);
            gz.SetGlobalBuffer((T *)z, n);
            LocalTensor<T> lx = bx.Get<T>(), lz = bz.Get<T>();
            load(lx, gx, n);
            if (form == 3) {
                if constexpr (sizeof(T) == 2) Transpose(lz, lx);
            } else {
                TransDataTo5HDParams p;
                p.repeatTimes = uint8_t(width / B);
                p.srcRepStride = 1;
                p.dstRepStride = 16;
                // source i: row i; destination j: block j of the output's first 16 blocks
                if (form == 0) {
                    LocalTensor<T> d[16], s[16];
                    for (int i = 0; i < 16; i++) {
                        s[i] = lx[i * width];
                        d[i] = lz[i * B];
                    }
                    TransDataTo5HD<T>(d, s, p);
                } else if (form == 1) {
                    uint64_t d[16], s[16];
                    for (int i = 0; i < 16; i++) {
                        s[i] = lx[i * width].GetPhyAddr();
                        d[i] = lz[i * B].GetPhyAddr();
                    }
                    TransDataTo5HD<T>(d, s, p);
                } else {
                    __ubuf__ T *d[16], *s[16];
                    for (int i = 0; i < 16; i++) {
                        s[i] = (__ubuf__ T *)lx.GetPhyAddr() + i * width;
                        d[i] = (__ubuf__ T *)lz.GetPhyAddr() + i * B;
                    }
                    TransDataTo5HDImpl(d, s, p);
                }
            }
            DataCopyPad(gz, lz, row<T>(n));
        });
    });
}

// rows [outter, inner] (n of each counted): 0 Sum, 1 Mean, 2 CumSum along the last axis, 3 along the first, 4 SoftMax
// (z the result, zs/zm each row's sum and max block), 5 SimpleSoftMax from the sum and max SoftMax left
EXPORT int emu_rows(int kind, int dtype, void *x, void *z, void *zs, void *zm, uint32_t outter, uint32_t inner,
                    uint32_t n) {
    return by_float(dtype, [&](auto v) {
        using T = decltype(v);
        return in_block([&] {
            uint32_t total = outter * inner;
            TPipe pipe;
            TBuf<TPosition::VECCALC> bx, bz, bs, bm, bt;
            pipe.InitBuffer(bx, total * sizeof(T));
            pipe.InitBuffer(bz, total * sizeof(T));
            pipe.InitBuffer(bs, outter * 32 > inner * sizeof(T) ? outter * 32 : inner * sizeof(T));  // or CumSum's row
            pipe.InitBuffer(bm, outter * 32);
            pipe.InitBuffer(bt, 1024);
            GlobalTensor<T> gx, gz, gs, gm;
            gx.SetGlobalBuffer((T *)x, total);
            gz.SetGlobalBuffer((T *)z, total);
            gs.SetGlobalBuffer((T *)zs, outter * 32 / sizeof(T));
            gm.SetGlobalBuffer((T *)zm, outter * 32 / sizeof(T));
            LocalTensor<T> lx = bx.Get<T>(), lz = bz.Get<T>(), ls = bs.Get<T>(), lm = bm.Get<T>();
            LocalTensor<uint8_t> lt = bt.Get<uint8_t>();
            load(lx, gx, total);
            uint32_t out = total;
            if (kind == 0) {
                Sum(lz, lx, lt, SumParams{outter, inner, n});
                out = outter;
            } else if (kind == 1) {
                Mean(lz, lx, MeanParams{outter, inner, n});
                out = outter;
            } else if (kind == 2) {
                static constexpr CumSumConfig last{true, false, true};
                CumSum<T, last>(lz, ls, lx, CumSumInfo{outter, inner});
            } else if (kind == 3) {
                static constexpr CumSumConfig first{false, false, false};
                CumSum<T, first>(lz, ls, lx, lt, CumSumInfo{outter, inner});
            } else {
                SoftMaxTiling tiling;
                tiling.srcM = outter;
                tiling.srcK = inner;
                SoftMaxShapeInfo shape{outter, inner, outter, n};
                SoftMax<T>(lz, ls, lm, lx, tiling, shape);
                if (kind == 5) SimpleSoftMax<T>(lz, ls, lm, lx, tiling, shape);
                DataCopyPad(gs, ls, row<T>(outter * 32 / sizeof(T)));
                DataCopyPad(gm, lm, row<T>(outter * 32 / sizeof(T)));
            }
            DataCopyPad(gz, lz, row<T>(out));
        });
    });
}

// vcadd of n elements: the accumulator (GetAccVal) in z[0] and, through a destination, each repeat's sum from z[1]
EXPORT int emu_vcadd(float *x, float *z, uint32_t n) {
    return in_block([&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bz;
        pipe.InitBuffer(bx, (n * 4 + 31) / 32 * 32);
        pipe.InitBuffer(bz, 1024);
        GlobalTensor<float> gx, gz;
        gx.SetGlobalBuffer(x, n);
        gz.SetGlobalBuffer(z, 256);
        LocalTensor<float> lx = bx.Get<float>(), lz = bz.Get<float>();
        load(lx, gx, n);
        uint32_t repeats = n / 64, tail = n % 64;
        float total = 0;
        if (repeats) {
            AscendCUtils::SetMask<float>(64);
            vcadd(nullptr, (__ubuf__ float *)lx.GetPhyAddr(), repeats, 1, 1, 8, true);
            uint64_t acc = GetAccVal();
            total += *reinterpret_cast<float *>(&acc);
            vcadd((__ubuf__ float *)lz[8].GetPhyAddr(), (__ubuf__ float *)lx.GetPhyAddr(), repeats, 1, 1, 8, false);
        }
        if (tail) {
            AscendCUtils::SetMask<float>(tail);
            vcadd(nullptr, (__ubuf__ float *)lx[repeats * 64].GetPhyAddr(), 1, 1, 1, 8, true);
            uint64_t acc = get_acc_val();
            total += *reinterpret_cast<float *>(&acc);
        }
        ResetMask();
        lz.SetValue(0, total);
        DataCopyPad(gz, lz, row<float>(8 + repeats));
    });
}

// 0: SetPadValue(s) then DataCopyPad of n floats with isPad false and `pad` elements of right padding; 1:
// InitGlobalMemory(z, n, s); 2: SetDeqScale(half(s)) then Cast of n int32 (x) to half (z)
EXPORT int emu_fill(int op, void *x, void *z, uint32_t n, uint32_t pad, float s) {
    return in_block([&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bz;
        pipe.InitBuffer(bx, 16384);
        pipe.InitBuffer(bz, 16384);
        if (op == 0) {
            GlobalTensor<float> gx, gz;
            gx.SetGlobalBuffer((float *)x, n);
            gz.SetGlobalBuffer((float *)z, 4096);
            LocalTensor<float> lx = bx.Get<float>();
            SetPadValue<float>(s);
            DataCopyPad(lx, gx, row<float>(n), DataCopyPadExtParams<float>{false, 0, uint8_t(pad), 0});
            DataCopy(gz, lx, (n + pad + 7) / 8 * 8);
        } else if (op == 1) {
            GlobalTensor<float> gz;
            gz.SetGlobalBuffer((float *)z, n);
            InitGlobalMemory(gz, n, s);
        } else if (op == 3) {  // GlobalTensor's operator(): read and written by reference
            GlobalTensor<float> gx, gz;
            gx.SetGlobalBuffer((float *)x, n);
            gz.SetGlobalBuffer((float *)z, n);
            for (uint32_t i = 0; i < n; i++) gz(i) = gx(i) * s;
        } else if (op == 4) {  // InitOutput: InitGlobalMemory's earlier name, value 0 by default
            GlobalTensor<float> gz;
            gz.SetGlobalBuffer((float *)z, n);
            InitOutput<float>(gz, n);
            InitOutput<float>(gz, n / 2, s);
        } else {
            GlobalTensor<int32_t> gx;
            GlobalTensor<half> gz;
            gx.SetGlobalBuffer((int32_t *)x, n);
            gz.SetGlobalBuffer((half *)z, n);
            LocalTensor<int32_t> lx = bx.Get<int32_t>();
            LocalTensor<half> lz = bz.Get<half>();
            load(lx, gx, n);
            SetDeqScale(half(s));
            Cast(lz, lx, RoundMode::CAST_NONE, n);
            DataCopyPad(gz, lz, row<half>(n));
        }
    });
}

// a Cast the documentation does not list (float -> int8_t): an error naming the pair
EXPORT int emu_bad_cast(float *x, int8_t *z) {
    return in_block([&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bz;
        pipe.InitBuffer(bx, 256);
        pipe.InitBuffer(bz, 256);
        LocalTensor<float> lx = bx.Get<float>();
        LocalTensor<int8_t> lz = bz.Get<int8_t>();
        Cast(lz, lx, RoundMode::CAST_RINT, 8);
    });
}
