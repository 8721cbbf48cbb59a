/*
 * Fused bias-add + GELU (tanh approximation) for the FFN up-projection output.
 *   y = gelu(x + bias[col]),  x: [rows, cols] half,  bias: [cols] half
 */
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct BiasGeluTiling {
    uint32_t rows;
    uint32_t cols;
    uint32_t rowsPerCore;
    uint32_t rowsPerTile;
};

class KernelBiasGelu {
public:
    __aicore__ inline KernelBiasGelu() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, const BiasGeluTiling &tiling)
    {
        cols_ = tiling.cols;
        rowsPerTile_ = tiling.rowsPerTile;
        startRow_ = GetBlockIdx() * tiling.rowsPerCore;
        myRows_ = tiling.rowsPerCore;
        if (startRow_ + myRows_ > tiling.rows)
            myRows_ = startRow_ < tiling.rows ? tiling.rows - startRow_ : 0;

        xGm_.SetGlobalBuffer((__gm__ half *)x + (uint64_t)startRow_ * cols_, (uint64_t)myRows_ * cols_);
        yGm_.SetGlobalBuffer((__gm__ half *)y + (uint64_t)startRow_ * cols_, (uint64_t)myRows_ * cols_);
        biasGm_.SetGlobalBuffer((__gm__ half *)bias, cols_);

        pipe_.InitBuffer(inQueue_, BUFFER_NUM, rowsPerTile_ * cols_ * sizeof(half));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, rowsPerTile_ * cols_ * sizeof(half));
        pipe_.InitBuffer(biasBuf_, cols_ * sizeof(float));
        pipe_.InitBuffer(f32Buf_, cols_ * sizeof(float));
        pipe_.InitBuffer(cubeBuf_, cols_ * sizeof(float));
        pipe_.InitBuffer(stage_, cols_ * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        // bias is reused by every row: load and widen once
        LocalTensor<half> bh = stage_.Get<half>();
        LocalTensor<float> bf = biasBuf_.Get<float>();
        DataCopy(bh, biasGm_, cols_);
        pipe_barrier(PIPE_ALL);
        Cast(bf, bh, RoundMode::CAST_NONE, cols_);

        for (uint32_t r = 0; r < myRows_; r += rowsPerTile_) {
            uint32_t n = (r + rowsPerTile_ <= myRows_) ? rowsPerTile_ : myRows_ - r;
            CopyIn(r, n);
            Compute(n);
            CopyOut(r, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t r, uint32_t n)
    {
        LocalTensor<half> xl = inQueue_.AllocTensor<half>();
        DataCopy(xl, xGm_[(uint64_t)r * cols_], n * cols_);
        inQueue_.EnQue(xl);
    }

    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<half> xl = inQueue_.DeQue<half>();
        LocalTensor<half> yl = outQueue_.AllocTensor<half>();
        LocalTensor<float> bf = biasBuf_.Get<float>();
        LocalTensor<float> v = f32Buf_.Get<float>();
        LocalTensor<float> c = cubeBuf_.Get<float>();

        for (uint32_t i = 0; i < n; ++i) {
            Cast(v, xl[i * cols_], RoundMode::CAST_NONE, cols_);
            Add(v, v, bf, cols_);
            // inner = sqrt(2/pi) * (v + 0.044715 v^3); gelu = v * sigmoid(2 * inner)
            Mul(c, v, v, cols_);
            Mul(c, c, v, cols_);
            Muls(c, c, 0.044715f, cols_);
            Add(c, c, v, cols_);
            Muls(c, c, -1.5957691216f, cols_);
            Exp(c, c, cols_);
            Adds(c, c, 1.0f, cols_);
            Div(v, v, c, cols_);
            Cast(yl[i * cols_], v, RoundMode::CAST_ROUND, cols_);
        }
        outQueue_.EnQue(yl);
        inQueue_.FreeTensor(xl);
    }

    __aicore__ inline void CopyOut(uint32_t r, uint32_t n)
    {
        LocalTensor<half> yl = outQueue_.DeQue<half>();
        DataCopy(yGm_[(uint64_t)r * cols_], yl, n * cols_);
        outQueue_.FreeTensor(yl);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TBuf<QuePosition::VECCALC> biasBuf_, f32Buf_, cubeBuf_, stage_;
    GlobalTensor<half> xGm_, yGm_, biasGm_;
    uint32_t cols_ = 0, rowsPerTile_ = 0, startRow_ = 0, myRows_ = 0;
};

extern "C" __global__ __aicore__ void bias_gelu(GM_ADDR x, GM_ADDR bias, GM_ADDR y,
                                                GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    KernelBiasGelu op;
    op.Init(x, bias, y, td);
    op.Process();
}
