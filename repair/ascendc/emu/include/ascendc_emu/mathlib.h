// ascendc-cpu: the math and activation libraries (AscendC's high-level API): Tanh, Sigmoid, Sin, ..., Gelu, Silu,
// Swish, Power, Xor, ClampMax/ClampMin, each with or without its caller-given scratch buffer (the result does not
// depend on it here; it must be a UB tensor) and, where the documentation has it, without a count (the whole source).
// Exact in float: the NPU's approximations are within the tolerances its tasks use. Through the element-access helpers
// of vector.h, so every operand is checked as a basic instruction's is.
#pragma once

#include "ascendc_emu/vector.h"

namespace ascendc_emu {

template <class C> inline C sign_of(C x) {
    if (x != x) return x;  // NaN stays NaN
    return x > 0 ? C(1) : x < 0 ? C(-1) : C(0);
}
template <class C> inline C sigmoid(C x) { return C(1) / (C(1) + std::exp(-x)); }
// the documented tanh-form GELU, x * sigmoid(2 * sqrt(2 / pi) * (x + 0.044715 x^3))
template <class C> inline C gelu(C x) { return x * sigmoid(C(1.5957691216057308) * (x + C(0.044715) * x * x * x)); }

template <class T> constexpr void integer_only() {
    static_assert(std::is_integral_v<T>, "this AscendC instruction takes integer types");
}

}  // namespace ascendc_emu

namespace AscendC {

// NAME(dst, src, count), NAME(dst, src, tmp, count), NAME(dst, src, tmp) and NAME(dst, src) (the whole source)
#define ASCENDC_EMU_LIB(NAME, EXPR)                                                                                \
    template <class T, bool A = false, bool B = false>                                                             \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t calCount, ASCENDC_EMU_LOC) {    \
        ascendc_emu::floating_only<T>();                                                                           \
        ascendc_emu::unary(dst, src, calCount, #NAME, loc, [](T v) {                                               \
            auto x = ascendc_emu::up(v);                                                                           \
            using C = decltype(x);                                                                                 \
            return ascendc_emu::down<T>(static_cast<C>(EXPR));                                                     \
        });                                                                                                        \
    }                                                                                                              \
    template <class T, bool A = false, bool B = false>                                                             \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,   \
              const uint32_t calCount, ASCENDC_EMU_LOC) {                                                          \
        sharedTmpBuffer.aligned(#NAME, loc);                                                                       \
        NAME<T, A, B>(dst, src, calCount, loc);                                                                    \
    }                                                                                                              \
    template <class T, bool A = false, bool B = false>                                                             \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,   \
              ASCENDC_EMU_LOC) {                                                                                   \
        NAME<T, A, B>(dst, src, sharedTmpBuffer, src.GetSize(), loc);                                              \
    }                                                                                                              \
    template <class T, bool A = false, bool B = false>                                                             \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, ASCENDC_EMU_LOC) {                             \
        NAME<T, A, B>(dst, src, src.GetSize(), loc);                                                               \
    }
ASCENDC_EMU_LIB(Tanh, std::tanh(x))
ASCENDC_EMU_LIB(Sigmoid, ascendc_emu::sigmoid(x))
ASCENDC_EMU_LIB(Sin, std::sin(x))
ASCENDC_EMU_LIB(Cos, std::cos(x))
ASCENDC_EMU_LIB(Tan, std::tan(x))
ASCENDC_EMU_LIB(Asin, std::asin(x))
ASCENDC_EMU_LIB(Acos, std::acos(x))
ASCENDC_EMU_LIB(Atan, std::atan(x))
ASCENDC_EMU_LIB(Sinh, std::sinh(x))
ASCENDC_EMU_LIB(Cosh, std::cosh(x))
ASCENDC_EMU_LIB(Asinh, std::asinh(x))
ASCENDC_EMU_LIB(Acosh, std::acosh(x))
ASCENDC_EMU_LIB(Atanh, std::atanh(x))
ASCENDC_EMU_LIB(Erf, std::erf(x))
ASCENDC_EMU_LIB(Erfc, std::erfc(x))
ASCENDC_EMU_LIB(Log, std::log(x))
ASCENDC_EMU_LIB(Log2, std::log2(x))
ASCENDC_EMU_LIB(Log10, std::log10(x))
ASCENDC_EMU_LIB(Floor, std::floor(x))
ASCENDC_EMU_LIB(Ceil, std::ceil(x))
ASCENDC_EMU_LIB(Round, std::nearbyint(x))  // to the nearest integer, a tie to the even one (as documented)
ASCENDC_EMU_LIB(Trunc, std::trunc(x))
ASCENDC_EMU_LIB(Frac, x - std::trunc(x))
ASCENDC_EMU_LIB(Sign, ascendc_emu::sign_of(x))
ASCENDC_EMU_LIB(Gelu, ascendc_emu::gelu(x))
ASCENDC_EMU_LIB(FasterGelu, x * ascendc_emu::sigmoid(C(1.702) * x))
ASCENDC_EMU_LIB(Silu, x * ascendc_emu::sigmoid(x))
#undef ASCENDC_EMU_LIB

// the math library's Exp (Taylor-expanded on the NPU): Exp<T, taylorExpandLevel, isReuseSource>(dst, src, tmp, n)
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false>
void Exp(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,
         const uint32_t calCount, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("Exp", loc);
    Exp(dst, src, static_cast<int32_t>(calCount), loc);
}

// Swish: x / (1 + exp(-scalar * x))
template <class T, bool isReuseSource = false>
void Swish(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint32_t dataSize,
           const typename ascendc_emu::Identity<T>::type scalarValue, ASCENDC_EMU_LOC) {
    ascendc_emu::floating_only<T>();
    auto b = ascendc_emu::up(T(scalarValue));
    ascendc_emu::unary(dst, src, dataSize, "Swish", loc, [b](T v) {
        auto x = ascendc_emu::up(v);
        return ascendc_emu::down<T>(x * ascendc_emu::sigmoid(b * x));
    });
}

// ClampMax: min(x, scalar); ClampMin: max(x, scalar)
#define ASCENDC_EMU_CLAMP(NAME, EXPR)                                                                              \
    template <class T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,                                                \
              const typename ascendc_emu::Identity<T>::type scalar, const uint32_t calCount, ASCENDC_EMU_LOC) {    \
        auto s = ascendc_emu::up(T(scalar));                                                                       \
        ascendc_emu::unary(dst, src, calCount, #NAME, loc, [s](T v) {                                              \
            auto x = ascendc_emu::up(v);                                                                           \
            return ascendc_emu::down<T>(EXPR);                                                                     \
        });                                                                                                        \
    }                                                                                                              \
    template <class T, bool isReuseSource = false>                                                                 \
    void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,   \
              const typename ascendc_emu::Identity<T>::type scalar, const uint32_t calCount, ASCENDC_EMU_LOC) {    \
        sharedTmpBuffer.aligned(#NAME, loc);                                                                       \
        NAME<T, isReuseSource>(dst, src, scalar, calCount, loc);                                                   \
    }
ASCENDC_EMU_CLAMP(ClampMax, ascendc_emu::nan_min(x, s))
ASCENDC_EMU_CLAMP(ClampMin, ascendc_emu::nan_max(x, s))
#undef ASCENDC_EMU_CLAMP

// Xor (integers), with or without its scratch buffer, by count or over the whole source
template <class T, bool isReuseSource = false>
void Xor(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, const uint32_t calCount,
         ASCENDC_EMU_LOC) {
    ascendc_emu::integer_only<T>();
    ascendc_emu::binary(dst, src0, src1, calCount, "Xor", loc, [](auto a, auto b) { return a ^ b; });
}
template <class T, bool isReuseSource = false>
void Xor(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
         const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("Xor", loc);
    Xor<T, isReuseSource>(dst, src0, src1, calCount, loc);
}
template <class T, bool isReuseSource = false>
void Xor(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, ASCENDC_EMU_LOC) {
    Xor<T, isReuseSource>(dst, src0, src1, src0.GetSize(), loc);
}

}  // namespace AscendC

namespace ascendc_emu {

template <class T> inline T power(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(std::pow(double(a), double(b)));
    } else {
        return down<T>(static_cast<calc_t<T>>(std::pow(up(a), up(b))));
    }
}

}  // namespace ascendc_emu

namespace AscendC {

struct PowerConfig {
    int32_t algo = 0;
};
constexpr PowerConfig defaultPowerConfig = {};

// Power: tensor ^ tensor, tensor ^ scalar, scalar ^ tensor (half, float, int32_t), with or without a scratch buffer
template <class T, bool isReuseSource = false, const PowerConfig &config = defaultPowerConfig>
void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint32_t calCount,
           ASCENDC_EMU_LOC) {
    uint32_t n = ascendc_emu::count_of(calCount, "Power", loc);
    dst.aligned("Power", loc);
    const T *a = src0.use(n, false, "Power", loc);
    const T *b = src1.use(n, false, "Power", loc);
    T *d = dst.use(n, true, "Power", loc);
    for (uint32_t i = 0; i < n; i++) d[i] = ascendc_emu::power(a[i], b[i]);
}
template <class T, bool isReuseSource = false, const PowerConfig &config = defaultPowerConfig>
void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const typename ascendc_emu::Identity<T>::type &src1,
           uint32_t calCount, ASCENDC_EMU_LOC) {
    T s = src1;
    ascendc_emu::unary(dst, src0, calCount, "Power", loc, [s](T v) { return ascendc_emu::power(v, s); });
}
template <class T, bool isReuseSource = false, const PowerConfig &config = defaultPowerConfig>
void Power(const LocalTensor<T> &dst, const typename ascendc_emu::Identity<T>::type &src0, const LocalTensor<T> &src1,
           uint32_t calCount, ASCENDC_EMU_LOC) {
    T s = src0;
    ascendc_emu::unary(dst, src1, calCount, "Power", loc, [s](T v) { return ascendc_emu::power(s, v); });
}
template <class T, bool isReuseSource = false, const PowerConfig &config = defaultPowerConfig>
void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
           const LocalTensor<uint8_t> &sharedTmpBuffer, uint32_t calCount, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("Power", loc);
    Power<T, isReuseSource, config>(dst, src0, src1, calCount, loc);
}
template <class T, bool isReuseSource = false, const PowerConfig &config = defaultPowerConfig>
void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const typename ascendc_emu::Identity<T>::type &src1,
           const LocalTensor<uint8_t> &sharedTmpBuffer, uint32_t calCount, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("Power", loc);
    Power<T, isReuseSource, config>(dst, src0, src1, calCount, loc);
}
template <class T, bool isReuseSource = false, const PowerConfig &config = defaultPowerConfig>
void Power(const LocalTensor<T> &dst, const typename ascendc_emu::Identity<T>::type &src0, const LocalTensor<T> &src1,
           const LocalTensor<uint8_t> &sharedTmpBuffer, uint32_t calCount, ASCENDC_EMU_LOC) {
    sharedTmpBuffer.aligned("Power", loc);
    Power<T, isReuseSource, config>(dst, src0, src1, calCount, loc);
}
template <class T, bool isReuseSource = false, const PowerConfig &config = defaultPowerConfig>
void Power(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, ASCENDC_EMU_LOC) {
    Power<T, isReuseSource, config>(dst, src0, src1, src0.GetSize(), loc);
}

}  // namespace AscendC
