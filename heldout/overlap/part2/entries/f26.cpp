/*
 * SwiGLU on the vector unit.  Input row layout is [gate(N) | up(N)],
 * output is [N]:  out = gate * sigmoid(gate) * up.
 */
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

struct SwigluTiling {
    uint32_t rows;
    uint32_t n;          // half width
    uint32_t blockN;     // columns per tile
    uint32_t rowsPerCore;
};

template <typename T>
class KernelSwiglu {
public:
    __aicore__ inline KernelSwiglu() {}

    __aicore__ inline void Init(GM_ADDR xy, GM_ADDR out, const SwigluTiling &t)
    {
        n_ = t.n;
        blockN_ = t.blockN;
        rowStart_ = GetBlockIdx() * t.rowsPerCore;
        rowEnd_ = rowStart_ + t.rowsPerCore;
        if (rowEnd_ > t.rows) rowEnd_ = t.rows;

        xyGm_.SetGlobalBuffer((__gm__ T *)xy, (uint64_t)t.rows * 2 * n_);
        outGm_.SetGlobalBuffer((__gm__ T *)out, (uint64_t)t.rows * n_);

        pipe_.InitBuffer(gateQ_, BUFFER_NUM, blockN_ * sizeof(T));
        pipe_.InitBuffer(upQ_, BUFFER_NUM, blockN_ * sizeof(T));
        pipe_.InitBuffer(outQ_, BUFFER_NUM, blockN_ * sizeof(T));
        pipe_.InitBuffer(gF32_, blockN_ * sizeof(float));
        pipe_.InitBuffer(uF32_, blockN_ * sizeof(float));
        pipe_.InitBuffer(tmp_, blockN_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t nBlocks = (n_ + blockN_ - 1) / blockN_;
        for (uint32_t row = rowStart_; row < rowEnd_; ++row) {
            for (uint32_t cb = 0; cb < nBlocks; ++cb) {
                uint32_t col = cb * blockN_;
                uint32_t len = (col + blockN_ <= n_) ? blockN_ : (n_ - col);
                CopyIn(row, col, len);
                Compute(len);
                CopyOut(row, col, len);
            }
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row, uint32_t col, uint32_t len)
    {
        LocalTensor<T> g = gateQ_.AllocTensor<T>();
        LocalTensor<T> u = upQ_.AllocTensor<T>();
        uint64_t base = (uint64_t)row * 2 * n_ + col;
        DataCopy(g, xyGm_[base], len);          // gate half
        DataCopy(u, xyGm_[base + n_], len);     // up half, +N
        gateQ_.EnQue(g);
        upQ_.EnQue(u);
    }

    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<T> g = gateQ_.DeQue<T>();
        LocalTensor<T> u = upQ_.DeQue<T>();
        LocalTensor<T> y = outQ_.AllocTensor<T>();
        LocalTensor<float> gf = gF32_.Get<float>();
        LocalTensor<float> uf = uF32_.Get<float>();
        LocalTensor<float> t = tmp_.Get<float>();

        Cast(gf, g, RoundMode::CAST_NONE, len);
        Cast(uf, u, RoundMode::CAST_NONE, len);

        // sigmoid(g) = 1 / (1 + exp(-g))
        Muls(t, gf, -1.0f, len);
        Exp(t, t, len);
        Adds(t, t, 1.0f, len);
        Div(t, gf, t, len);        // act = g * sigmoid(g)
        Mul(t, t, uf, len);        // y = act * u

        Cast(y, t, RoundMode::CAST_RINT, len);
        outQ_.EnQue(y);
        gateQ_.FreeTensor(g);
        upQ_.FreeTensor(u);
    }

    __aicore__ inline void CopyOut(uint32_t row, uint32_t col, uint32_t len)
    {
        LocalTensor<T> y = outQ_.DeQue<T>();
        DataCopy(outGm_[(uint64_t)row * n_ + col], y, len);
        outQ_.FreeTensor(y);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> gateQ_, upQ_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQ_;
    TBuf<QuePosition::VECCALC> gF32_, uF32_, tmp_;
    GlobalTensor<T> xyGm_, outGm_;
    uint32_t n_ = 0, blockN_ = 0, rowStart_ = 0, rowEnd_ = 0;
};

extern "C" __global__ __aicore__ void swiglu_custom(GM_ADDR xy, GM_ADDR out, GM_ADDR tiling)
{
    SwigluTiling t;
    auto *src = reinterpret_cast<__gm__ uint32_t *>(tiling);
    t.rows = src[0];
    t.n = src[1];
    t.blockN = src[2];
    t.rowsPerCore = src[3];
    KernelSwiglu<half> op;
    op.Init(xy, out, t);
    op.Process();
}
