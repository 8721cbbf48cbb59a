#include "kernel_operator.h"

using AscendC::LocalTensor;
using AscendC::GlobalTensor;

namespace {
constexpr int32_t BUFFER_NUM = 2;
constexpr float ALPHA = 1.702f;
constexpr float HALF_ALPHA = 0.851f;
}  // namespace

template <typename T>
class KernelFastGelu {
public:
    __aicore__ inline KernelFastGelu() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength, uint32_t tileLength)
    {
        uint32_t offset = AscendC::GetBlockIdx() * blockLength;
        this->length = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ T *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(xFloatBuf, tileLength * sizeof(float));
        pipe.InitBuffer(yFloatBuf, tileLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, 2 * tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t loops = (this->length + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < loops; i++) {
            uint32_t count = (i + 1 < loops) ? this->tileLength : this->length - i * this->tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[progress * this->tileLength], params, pad);
        inQueueX.EnQue(xLocal);
    }

    // y = x * exp(0.851 * (x - |x|)) / (1 + exp(-1.702 * |x|)): no exp of a large positive argument
    __aicore__ inline void FastGeluFloat(const LocalTensor<float> &y, const LocalTensor<float> &x, uint32_t n)
    {
        LocalTensor<float> absX = tmpBuf.Get<float>();
        LocalTensor<float> den = absX[this->tileLength];
        AscendC::Abs(absX, x, n);
        AscendC::Muls(den, absX, -ALPHA, n);
        AscendC::Exp(den, den, n);
        AscendC::Adds(den, den, 1.0f, n);
        AscendC::Sub(absX, x, absX, n);
        AscendC::Muls(absX, absX, ALPHA, n);
        AscendC::Exp(absX, absX, n);
        AscendC::Mul(absX, x, absX, n);
        AscendC::Div(y, absX, den, n);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        if constexpr (std::is_same_v<T, float>) {
            FastGeluFloat(yLocal, xLocal, count);
        } else {
            LocalTensor<float> xf = xFloatBuf.Get<float>();
            LocalTensor<float> yf = yFloatBuf.Get<float>();
            AscendC::Cast(xf, xLocal, AscendC::RoundMode::CAST_NONE, count);
            FastGeluFloat(yf, xf, count);
            AscendC::Cast(yLocal, yf, AscendC::RoundMode::CAST_RINT, count);
        }
        outQueueY.EnQue(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[progress * this->tileLength], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xFloatBuf, yFloatBuf, tmpBuf;
    GlobalTensor<T> xGm, yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void fast_gelu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelFastGelu<DTYPE_X> op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
