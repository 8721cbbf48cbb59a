// ascendc-cpu: elementwise vector instructions (count form), Duplicate, Cast with its rounding modes,
// Compare and Select. Every operand is checked: allocated, not freed, not written after its EnQue, holding
// `count` elements, starting 32-byte aligned in UB. half and bfloat16 compute in float and round each result.
#pragma once

#include "ascendc_emu/tensor.h"

namespace ascendc_emu {

inline uint32_t count_of(int64_t count, const char *api, const Loc &loc) {
    if (count < 0) fail(kError, loc, "%s with a negative count (%lld)", api, (long long)count);
    count_form_mask();
    return static_cast<uint32_t>(count);
}

template <class D, class S, class F>
void unary(const AscendC::LocalTensor<D> &dst, const AscendC::LocalTensor<S> &src, int64_t count, const char *api,
           const Loc &loc, F f) {
    uint32_t n = count_of(count, api, loc);
    dst.aligned(api, loc);
    src.aligned(api, loc);
    const S *s = src.use(n, false, api, loc);
    D *d = dst.use(n, true, api, loc);
    for (uint32_t i = 0; i < n; i++) d[i] = f(s[i]);
}

template <class T, class F>
void binary(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &a, const AscendC::LocalTensor<T> &b,
            int64_t count, const char *api, const Loc &loc, F f) {
    uint32_t n = count_of(count, api, loc);
    dst.aligned(api, loc);
    a.aligned(api, loc);
    b.aligned(api, loc);
    const T *x = a.use(n, false, api, loc);
    const T *y = b.use(n, false, api, loc);
    T *d = dst.use(n, true, api, loc);
    for (uint32_t i = 0; i < n; i++) d[i] = down<T>(f(up(x[i]), up(y[i])));
}

template <class C> inline C nan_max(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
    }
    return a > b ? a : b;
}
template <class C> inline C nan_min(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
    }
    return a < b ? a : b;
}

template <class T> constexpr uint32_t per_repeat_of() { return 256 / sizeof(T); }  // elements in a 256-byte repeat

template <class T> constexpr void floating_only() {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>,
                  "this AscendC instruction takes half, bfloat16_t or float");
}

}  // namespace ascendc_emu

namespace AscendC {

#define ASCENDC_EMU_BINARY(NAME, EXPR)                                                                           \
    template <class T>                                                                                          \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,                  \
              const int32_t &count, ASCENDC_EMU_LOC) {                                                          \
        ascendc_emu::binary(dst, src0, src1, count, #NAME, loc, [](auto a, auto b) { return EXPR; });           \
    }
ASCENDC_EMU_BINARY(Add, a + b)
ASCENDC_EMU_BINARY(Sub, a - b)
ASCENDC_EMU_BINARY(Mul, a * b)
ASCENDC_EMU_BINARY(Max, ascendc_emu::nan_max(a, b))
ASCENDC_EMU_BINARY(Min, ascendc_emu::nan_min(a, b))
ASCENDC_EMU_BINARY(And, a & b)
ASCENDC_EMU_BINARY(Or, a | b)
#undef ASCENDC_EMU_BINARY

template <class T>
void Div(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const int32_t &count,
         ASCENDC_EMU_LOC) {
    ascendc_emu::floating_only<T>();
    ascendc_emu::binary(dst, src0, src1, count, "Div", loc, [](auto a, auto b) { return a / b; });
}

#define ASCENDC_EMU_UNARY(NAME, EXPR, FLOAT_ONLY)                                                               \
    template <class T>                                                                                          \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count, ASCENDC_EMU_LOC) {      \
        if constexpr (FLOAT_ONLY) ascendc_emu::floating_only<T>();                                               \
        ascendc_emu::unary(dst, src, count, #NAME, loc, [](T v) {                                                \
            auto x = ascendc_emu::up(v);                                                                        \
            return ascendc_emu::down<T>(EXPR);                                                                  \
        });                                                                                                     \
    }
ASCENDC_EMU_UNARY(Exp, std::exp(x), true)
ASCENDC_EMU_UNARY(Ln, std::log(x), true)
ASCENDC_EMU_UNARY(Sqrt, std::sqrt(x), true)
ASCENDC_EMU_UNARY(Rsqrt, decltype(x)(1) / std::sqrt(x), true)
ASCENDC_EMU_UNARY(Reciprocal, decltype(x)(1) / x, true)
ASCENDC_EMU_UNARY(Abs, x < 0 ? -x : x, false)
ASCENDC_EMU_UNARY(Relu, ascendc_emu::nan_max(x, decltype(x)(0)), false)
ASCENDC_EMU_UNARY(Not, ~x, false)
#undef ASCENDC_EMU_UNARY

#define ASCENDC_EMU_SCALAR(NAME, EXPR)                                                                           \
    template <class T>                                                                                          \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,                                              \
              const typename ascendc_emu::Identity<T>::type &scalarValue, const int32_t &count, ASCENDC_EMU_LOC) { \
        auto s = ascendc_emu::up(scalarValue);                                                                  \
        ascendc_emu::unary(dst, src, count, #NAME, loc, [s](T v) {                                              \
            auto x = ascendc_emu::up(v);                                                                        \
            return ascendc_emu::down<T>(EXPR);                                                                  \
        });                                                                                                     \
    }
ASCENDC_EMU_SCALAR(Adds, x + s)
ASCENDC_EMU_SCALAR(Muls, x * s)
ASCENDC_EMU_SCALAR(Maxs, ascendc_emu::nan_max(x, s))
ASCENDC_EMU_SCALAR(Mins, ascendc_emu::nan_min(x, s))
ASCENDC_EMU_SCALAR(LeakyRelu, x < 0 ? x * s : x)
ASCENDC_EMU_SCALAR(ShiftLeft, x << s)
ASCENDC_EMU_SCALAR(ShiftRight, x >> s)
#undef ASCENDC_EMU_SCALAR

// dst = src * scalar + dst
template <class T, class U>
void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U &scalarValue, const int32_t &count,
          ASCENDC_EMU_LOC) {
    uint32_t n = ascendc_emu::count_of(count, "Axpy", loc);
    dst.aligned("Axpy", loc);
    src.aligned("Axpy", loc);
    const U *s = src.use(n, false, "Axpy", loc);
    T *d = dst.use(n, true, "Axpy", loc);
    float k = static_cast<float>(scalarValue);
    for (uint32_t i = 0; i < n; i++) d[i] = static_cast<T>(static_cast<float>(s[i]) * k + static_cast<float>(d[i]));
}

template <class T>
void Duplicate(const LocalTensor<T> &dst, const typename ascendc_emu::Identity<T>::type &scalarValue,
               const int32_t &count, ASCENDC_EMU_LOC) {
    uint32_t n = ascendc_emu::count_of(count, "Duplicate", loc);
    dst.aligned("Duplicate", loc);
    T *d = dst.use(n, true, "Duplicate", loc);
    T v = scalarValue;
    for (uint32_t i = 0; i < n; i++) d[i] = v;
}

// -- Cast --------------------------------------------------------------------------------------------------------

enum class RoundMode { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

}  // namespace AscendC

namespace ascendc_emu {

template <class D> inline uint64_t bits_of(D v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(D));
    return b;
}
template <class D> inline D from_bits(uint64_t b) {
    D v;
    std::memcpy(&v, &b, sizeof(D));
    return v;
}
// The next representable value of a float type toward +inf (dir > 0) or -inf.
template <class D> inline D step(D v, int dir) {
    if constexpr (std::is_same_v<D, float>) {
        return std::nextafter(v, dir > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
    } else {
        constexpr int width = sizeof(D) * 8;
        const uint64_t sign = 1ull << (width - 1);
        uint64_t b = bits_of(v);
        if ((b & ~sign) == 0) return from_bits<D>(dir > 0 ? 1 : sign | 1);  // from +-0
        bool neg = b & sign;
        b = (neg == (dir < 0)) ? b + 1 : b - 1;
        return from_bits<D>(b);
    }
}
template <class D> inline D rne(double v) {
    if constexpr (std::is_same_v<D, float>) return static_cast<float>(v);
    else if constexpr (std::is_same_v<D, half>) return static_cast<half>(v);
    else {  // bfloat16: round the float, then fix a double rounding by looking at the neighbours
        D r = bfloat16_t(static_cast<float>(v));
        if (std::isnan(v) || std::isinf(static_cast<float>(r))) return r;
        for (int dir : {-1, 1}) {
            D o = step(r, dir);
            double dr = std::fabs(double(float(r)) - v), dn = std::fabs(double(float(o)) - v);
            if (dn < dr || (dn == dr && (bits_of(o) & 1) == 0 && (bits_of(r) & 1))) r = o;
        }
        return r;
    }
}

// A double rounded to the float type D (float, half, bfloat16_t) in an AscendC rounding mode.
template <class D> inline D round_float(double v, AscendC::RoundMode m) {
    using AscendC::RoundMode;
    D r = rne<D>(v);
    if (std::isnan(v) || double(static_cast<float>(r)) == v || m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT)
        return r;
    double dr = double(static_cast<float>(r));
    D lo = dr < v ? r : step(r, -1), hi = dr < v ? step(r, 1) : r;
    double dlo = v - double(static_cast<float>(lo)), dhi = double(static_cast<float>(hi)) - v;
    switch (m) {
        case RoundMode::CAST_FLOOR: return lo;
        case RoundMode::CAST_CEIL: return hi;
        case RoundMode::CAST_TRUNC: return v > 0 ? lo : hi;
        case RoundMode::CAST_ODD: return (bits_of(lo) & 1) ? lo : hi;
        case RoundMode::CAST_ROUND:
            if (std::isinf(static_cast<float>(r))) return r;
            if (dlo == dhi) return v > 0 ? hi : lo;  // a tie goes away from zero
            return dlo < dhi ? lo : hi;
        default: return r;
    }
}

// v rounded to an integral value in an AscendC rounding mode (CAST_NONE, CAST_RINT, CAST_ODD: to nearest even)
inline double round_integral(double v, AscendC::RoundMode m) {
    using AscendC::RoundMode;
    switch (m) {
        case RoundMode::CAST_FLOOR: return std::floor(v);
        case RoundMode::CAST_CEIL: return std::ceil(v);
        case RoundMode::CAST_TRUNC: return std::trunc(v);
        case RoundMode::CAST_ROUND: return std::round(v);
        default: return std::nearbyint(v);
    }
}

template <class D> inline D round_int(double v, AscendC::RoundMode m) {
    if (std::isnan(v)) return 0;
    double r = round_integral(v, m);
    double lo = double(std::numeric_limits<D>::min()), hi = double(std::numeric_limits<D>::max());
    return static_cast<D>(r < lo ? lo : (r > hi ? hi : r));  // saturates
}

template <class T> constexpr bool is_float_v = std::is_same_v<T, float> || std::is_same_v<T, half> ||
                                               std::is_same_v<T, bfloat16_t>;

template <class D, class S> inline D cast_one(S s, AscendC::RoundMode m) {
    double v = is_float_v<S> ? double(static_cast<float>(s)) : double(s);
    if constexpr (std::is_same_v<S, int32_t> && std::is_same_v<D, half>) v *= g_block.deq_scale;  // SetDeqScale
    if constexpr (is_float_v<D>) {
        if constexpr (std::is_same_v<D, S>) {  // float -> float of the same type rounds to an integral value
            if (m == AscendC::RoundMode::CAST_NONE || !std::isfinite(v)) return s;
            return static_cast<D>(static_cast<float>(std::copysign(round_integral(v, m), v)));
        }
        return round_float<D>(v, m);
    } else {
        return round_int<D>(v, m);
    }
}

}  // namespace ascendc_emu

namespace AscendC {

}  // namespace AscendC

namespace ascendc_emu {

// The conversions and rounding modes the AscendC documentation lists for Cast on the Atlas A2 (910B) vector unit
// (its table of data type combinations); any other pair or mode is not an instruction the NPU has.
template <class D, class S> inline bool cast_listed(AscendC::RoundMode m) {
    using AscendC::RoundMode;
    const bool none = m == RoundMode::CAST_NONE, odd = m == RoundMode::CAST_ODD;
    const bool rounding = !none && !odd;  // RINT, FLOOR, CEIL, ROUND, TRUNC
    auto is = [](auto s, auto d) { return std::is_same_v<S, decltype(s)> && std::is_same_v<D, decltype(d)>; };
    // (source, destination)
    if (is(int8_t(), half()) || is(uint8_t(), half()) || is(int16_t(), float()) || is(half(), float()) ||
        is(bfloat16_t(), float()) || is(int32_t(), int16_t()) || is(int32_t(), int64_t()) || is(int64_t(), int32_t()))
        return none;
    if (is(int16_t(), half()) || is(half(), int8_t()) || is(half(), uint8_t()) || is(int32_t(), float()))
        return !odd;
    if (is(half(), int16_t()) || is(half(), int32_t()) || is(bfloat16_t(), int32_t()) || is(float(), int16_t()) ||
        is(float(), bfloat16_t()) || is(float(), int32_t()) || is(float(), float()) || is(float(), int64_t()) ||
        is(int64_t(), float()))
        return rounding;
    if (is(float(), half()) || is(int32_t(), half())) return true;  // int32 -> half: scaled by SetDeqScale
    return false;
}

inline const char *round_name(AscendC::RoundMode m) {
    static const char *names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC",
                                  "CAST_ODD"};
    int i = static_cast<int>(m);
    return i >= 0 && i < 7 ? names[i] : "an unknown RoundMode";
}

template <class D, class S> inline void check_cast(AscendC::RoundMode m, const Loc &loc) {
    if (!cast_listed<D, S>(m))
        fail(kError, loc, "Cast from %s to %s in %s: not a conversion the AscendC documentation lists for the vector "
             "unit (the NPU has no such instruction; convert through half or float, or use a listed RoundMode)",
             type_name<S>(), type_name<D>(), round_name(m));
}

}  // namespace ascendc_emu

namespace AscendC {

// the scale of Cast from int32_t to half (dst = half(src * scale))
inline void SetDeqScale(half scale) { ascendc_emu::g_block.deq_scale = static_cast<float>(scale); }

template <class D, class S>
void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &roundMode, const uint32_t count,
          ASCENDC_EMU_LOC) {
    RoundMode m = roundMode;
    ascendc_emu::check_cast<D, S>(m, loc);
    ascendc_emu::unary(dst, src, count, "Cast", loc, [m](S v) { return ascendc_emu::cast_one<D, S>(v, m); });
}

// -- Compare / Select: one bit per element, least significant bit first ------------------------------------------

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

}  // namespace AscendC

namespace ascendc_emu {

template <class C> inline bool compare(C a, C b, AscendC::CMPMODE m) {
    switch (m) {
        case AscendC::CMPMODE::LT: return a < b;
        case AscendC::CMPMODE::GT: return a > b;
        case AscendC::CMPMODE::EQ: return a == b;
        case AscendC::CMPMODE::LE: return a <= b;
        case AscendC::CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

template <class U, class T, class F>
void compare_into(const AscendC::LocalTensor<U> &dst, const AscendC::LocalTensor<T> &src0, uint32_t count,
                  const char *api, const Loc &loc, F bit) {
    count_form_mask();
    dst.aligned(api, loc);
    src0.aligned(api, loc);
    src0.use(count, false, api, loc);
    uint32_t bytes = (count + 7) / 8;
    uint8_t *d = reinterpret_cast<uint8_t *>(dst.use(static_cast<uint32_t>((bytes + sizeof(U) - 1) / sizeof(U)), true, api, loc));
    std::memset(d, 0, bytes);
    for (uint32_t i = 0; i < count; i++)
        if (bit(i)) d[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
}

}  // namespace ascendc_emu

namespace AscendC {

// The count form compares whole 256-byte repeats (the documentation asks count * sizeof(T) to be a multiple of 256
// bytes): the elements past the last whole repeat are not compared and their bits keep what they held; a note says so.
template <class U, class T>
void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
             uint32_t count, ASCENDC_EMU_LOC) {
    uint32_t whole = uint32_t(uint64_t(count) * sizeof(T) / 256 * 256 / sizeof(T));
    if (whole != count)
        ascendc_emu::note("compare-partial-repeat", loc, "Compare of %u %s elements compares %u: its count is not a "
                          "whole number of 256-byte repeats, so the NPU leaves the last %u bits as they were",
                          count, ascendc_emu::type_name<T>(), whole, count - whole);
    count = whole;
    src1.aligned("Compare", loc);
    const T *a = src0.raw();
    const T *b = src1.use(count, false, "Compare", loc);
    ascendc_emu::compare_into(dst, src0, count, "Compare", loc, [&](uint32_t i) {
        return ascendc_emu::compare(ascendc_emu::up(a[i]), ascendc_emu::up(b[i]), cmpMode);
    });
}

template <class U, class T>
void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                   const typename ascendc_emu::Identity<T>::type &src1Scalar, CMPMODE cmpMode, uint32_t count,
                   ASCENDC_EMU_LOC) {
    const T *a = src0.raw();
    auto s = ascendc_emu::up(T(src1Scalar));
    ascendc_emu::compare_into(dst, src0, count, "CompareScalar", loc,
                              [&](uint32_t i) { return ascendc_emu::compare(ascendc_emu::up(a[i]), s, cmpMode); });
}

// Compares: CompareScalar's newer name
template <class U, class T>
void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                   const typename ascendc_emu::Identity<T>::type &src1Scalar, CMPMODE cmpMode, uint32_t count,
                   ASCENDC_EMU_LOC) {
    const T *a = src0.raw();
    auto s = ascendc_emu::up(T(src1Scalar));
    ascendc_emu::compare_into(dst, src0, count, "Compares", loc,
                              [&](uint32_t i) { return ascendc_emu::compare(ascendc_emu::up(a[i]), s, cmpMode); });
}

}  // namespace AscendC

namespace ascendc_emu {

// Select's bit for element i: VSEL_CMPMASK_SPR reads one repeat's bits (256 bytes of elements) and uses them for every
// repeat; VSEL_TENSOR_TENSOR_MODE and VSEL_TENSOR_SCALAR_MODE go on through the mask, a repeat's bits after another's.
template <class T, class U>
const uint8_t *select_bits(const AscendC::LocalTensor<U> &selMask, AscendC::SELMODE mode, uint32_t count, bool scalar,
                           const Loc &loc) {
    using AscendC::SELMODE;
    if (scalar && mode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        fail(kError, loc, "Select between a tensor and a scalar takes SELMODE::VSEL_TENSOR_SCALAR_MODE, not mode %d",
             int(mode));
    if (!scalar && mode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
        fail(kError, loc, "Select between two tensors takes SELMODE::VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE, not "
             "VSEL_TENSOR_SCALAR_MODE");
    uint32_t bits = mode == SELMODE::VSEL_CMPMASK_SPR ? std::min(count, per_repeat_of<T>()) : count;
    selMask.aligned("Select", loc);
    return reinterpret_cast<const uint8_t *>(
        selMask.use(static_cast<uint32_t>(((bits + 7) / 8 + sizeof(U) - 1) / sizeof(U)), false, "Select", loc));
}

inline bool select_bit(const uint8_t *m, uint32_t i, AscendC::SELMODE mode, uint32_t per) {
    if (mode == AscendC::SELMODE::VSEL_CMPMASK_SPR) i %= per;
    return (m[i / 8] >> (i % 8)) & 1;
}

}  // namespace ascendc_emu

namespace AscendC {

template <class T, class U>
void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
            const LocalTensor<T> &src1, SELMODE selMode, uint32_t count, ASCENDC_EMU_LOC) {
    ascendc_emu::count_form_mask();
    const uint8_t *m = ascendc_emu::select_bits<T>(selMask, selMode, count, false, loc);
    src1.aligned("Select", loc);
    const T *b = src1.use(count, false, "Select", loc);
    src0.aligned("Select", loc);
    const T *a = src0.use(count, false, "Select", loc);
    dst.aligned("Select", loc);
    T *d = dst.use(count, true, "Select", loc);
    constexpr uint32_t per = ascendc_emu::per_repeat_of<T>();
    for (uint32_t i = 0; i < count; i++) d[i] = ascendc_emu::select_bit(m, i, selMode, per) ? a[i] : b[i];
}

template <class T, class U>
void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
            typename ascendc_emu::Identity<T>::type src1, SELMODE selMode, uint32_t count, ASCENDC_EMU_LOC) {
    ascendc_emu::count_form_mask();
    const uint8_t *m = ascendc_emu::select_bits<T>(selMask, selMode, count, true, loc);
    src0.aligned("Select", loc);
    const T *a = src0.use(count, false, "Select", loc);
    dst.aligned("Select", loc);
    T *d = dst.use(count, true, "Select", loc);
    T s = src1;
    for (uint32_t i = 0; i < count; i++) d[i] = (m[i / 8] >> (i % 8)) & 1 ? a[i] : s;
}

}  // namespace AscendC
