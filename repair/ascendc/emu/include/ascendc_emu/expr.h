// ascendc-cpu: the LocalTensor operator expressions (`dst = a + b`, -, *, /, &, |): the whole destination, dst.GetSize()
// elements, through the instruction of the same name (as the NPU's implementation runs them), so the operands are
// checked as that instruction's are. The messages name no line (an assignment cannot take the call site).
#pragma once

#include "ascendc_emu/vector.h"

namespace ascendc_emu {

template <class T, int OP> struct BinaryExpr {
    using ascendc_emu_expr = void;
    const AscendC::LocalTensor<T> &a;
    const AscendC::LocalTensor<T> &b;
    void run(const AscendC::LocalTensor<T> &dst) const {
        const Loc loc{nullptr, 0};
        int32_t n = static_cast<int32_t>(dst.GetSize());
        if constexpr (OP == 0) AscendC::Add(dst, a, b, n, loc);
        else if constexpr (OP == 1) AscendC::Sub(dst, a, b, n, loc);
        else if constexpr (OP == 2) AscendC::Mul(dst, a, b, n, loc);
        else if constexpr (OP == 3) AscendC::Div(dst, a, b, n, loc);
        else if constexpr (OP == 4) AscendC::And(dst, a, b, n, loc);
        else AscendC::Or(dst, a, b, n, loc);
    }
};

}  // namespace ascendc_emu

namespace AscendC {

#define ASCENDC_EMU_OPERATOR(SYM, OP)                                                                               \
    template <class T>                                                                                             \
    ascendc_emu::BinaryExpr<T, OP> operator SYM(const LocalTensor<T> &a, const LocalTensor<T> &b) {                \
        return {a, b};                                                                                             \
    }
ASCENDC_EMU_OPERATOR(+, 0)
ASCENDC_EMU_OPERATOR(-, 1)
ASCENDC_EMU_OPERATOR(*, 2)
ASCENDC_EMU_OPERATOR(/, 3)
ASCENDC_EMU_OPERATOR(&, 4)
ASCENDC_EMU_OPERATOR(|, 5)
#undef ASCENDC_EMU_OPERATOR

}  // namespace AscendC
