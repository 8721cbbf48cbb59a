#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr float GELU_K0 = 0.7978845608028654f;
constexpr float GELU_K1 = 0.044715f;
}

struct BiasGeluTiling {
    uint32_t rows;
    uint32_t cols;
    uint32_t rowsPerCore;
    uint32_t tileCols;
};

class KernelBiasGelu {
public:
    __aicore__ inline KernelBiasGelu() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, const BiasGeluTiling &t)
    {
        cols_ = t.cols;
        tileCols_ = t.tileCols;
        rowStart_ = GetBlockIdx() * t.rowsPerCore;
        uint32_t rowEnd = rowStart_ + t.rowsPerCore;
        rowCount_ = rowEnd > t.rows ? (t.rows > rowStart_ ? t.rows - rowStart_ : 0) : t.rowsPerCore;

        xGm_.SetGlobalBuffer((__gm__ half *)x);
        bGm_.SetGlobalBuffer((__gm__ half *)bias, cols_);
        yGm_.SetGlobalBuffer((__gm__ half *)y);

        pipe_.InitBuffer(inQueX_, BUFFER_NUM, tileCols_ * sizeof(half));
        pipe_.InitBuffer(inQueB_, BUFFER_NUM, tileCols_ * sizeof(half));
        pipe_.InitBuffer(outQueY_, BUFFER_NUM, tileCols_ * sizeof(half));
        pipe_.InitBuffer(hBuf_, tileCols_ * sizeof(float));
        pipe_.InitBuffer(tBuf_, tileCols_ * sizeof(float));
        pipe_.InitBuffer(bF32Buf_, tileCols_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t nTiles = (cols_ + tileCols_ - 1) / tileCols_;
        for (uint32_t r = 0; r < rowCount_; ++r) {
            uint64_t rowOff = (uint64_t)(rowStart_ + r) * cols_;
            for (uint32_t j = 0; j < nTiles; ++j) {
                uint32_t c0 = j * tileCols_;
                uint32_t len = (c0 + tileCols_ <= cols_) ? tileCols_ : cols_ - c0;
                CopyIn(rowOff, c0, len);
                Compute(len);
                CopyOut(rowOff, c0, len);
            }
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t rowOff, uint32_t c0, uint32_t len)
    {
        LocalTensor<half> xLocal = inQueX_.AllocTensor<half>();
        LocalTensor<half> bLocal = inQueB_.AllocTensor<half>();
        DataCopy(xLocal, xGm_[rowOff + c0], len);
        DataCopy(bLocal, bGm_[c0], len);
        inQueX_.EnQue(xLocal);
        inQueB_.EnQue(bLocal);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<half> xLocal = inQueX_.DeQue<half>();
        LocalTensor<half> bLocal = inQueB_.DeQue<half>();
        LocalTensor<half> yLocal = outQueY_.AllocTensor<half>();
        LocalTensor<float> h = hBuf_.Get<float>();
        LocalTensor<float> t = tBuf_.Get<float>();
        LocalTensor<float> bf = bF32Buf_.Get<float>();

        // h = x + b (fp32)
        Cast(h, xLocal, RoundMode::CAST_NONE, len);
        Cast(bf, bLocal, RoundMode::CAST_NONE, len);
        Add(h, h, bf, len);

        // inner = K0 * (h + K1 * h^3)
        Mul(t, h, h, len);
        Mul(t, t, h, len);
        Muls(t, t, GELU_K1, len);
        Add(t, t, h, len);
        Muls(t, t, GELU_K0, len);

        // tanh(inner) = 1 - 2 / (exp(2 * inner) + 1)
        Muls(t, t, 2.0f, len);
        Exp(t, t, len);
        Adds(t, t, 1.0f, len);
        Duplicate(bf, 2.0f, len);
        Div(t, bf, t, len);
        Muls(t, t, -1.0f, len);
        Adds(t, t, 1.0f, len);

        // y = 0.5 * h * (1 + tanh)
        Adds(t, t, 1.0f, len);
        Mul(t, t, h, len);
        Muls(t, t, 0.5f, len);
        Cast(yLocal, t, RoundMode::CAST_ROUND, len);

        outQueY_.EnQue(yLocal);
        inQueX_.FreeTensor(xLocal);
        inQueB_.FreeTensor(bLocal);
    }

    __aicore__ inline void CopyOut(uint64_t rowOff, uint32_t c0, uint32_t len)
    {
        LocalTensor<half> yLocal = outQueY_.DeQue<half>();
        DataCopy(yGm_[rowOff + c0], yLocal, len);
        outQueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueX_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueB_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueY_;
    TBuf<QuePosition::VECCALC> hBuf_;
    TBuf<QuePosition::VECCALC> tBuf_;
    TBuf<QuePosition::VECCALC> bF32Buf_;
    GlobalTensor<half> xGm_;
    GlobalTensor<half> bGm_;
    GlobalTensor<half> yGm_;
    uint32_t cols_ = 0;
    uint32_t tileCols_ = 0;
    uint32_t rowStart_ = 0;
    uint32_t rowCount_ = 0;
};

extern "C" __global__ __aicore__ void bias_gelu(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR tiling)
{
    BiasGeluTiling t;
    auto *src = reinterpret_cast<__gm__ uint32_t *>(tiling);
    t.rows = src[0];
    t.cols = src[1];
    t.rowsPerCore = src[2];
    t.tileCols = src[3];
    KernelBiasGelu op;
    op.Init(x, bias, y, t);
    op.Process();
}
