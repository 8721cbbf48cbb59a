// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with tanh(u) = 1 - 2 / (exp(2u) + 1).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelGeluCustom {
public:
    __aicore__ inline KernelGeluCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength, uint32_t tileLength)
    {
        uint32_t offset = blockLength * GetBlockIdx();
        this->length = offset >= totalLength ? 0 : (totalLength - offset < blockLength ? totalLength - offset : blockLength);
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t count = i + 1 < tiles ? this->tileLength : this->length - i * this->tileLength;
            CopyIn(i * this->tileLength, count);
            Compute(count);
            CopyOut(i * this->tileLength, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[offset], DataCopyExtParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> u = tmpBuf.Get<float>();
        Mul(u, xLocal, xLocal, count);
        Mul(u, u, xLocal, count);
        Muls(u, u, 0.044715f, count);
        Add(u, u, xLocal, count);
        Muls(u, u, 1.5957691f, count);      // 2 * sqrt(2 / pi)
        Exp(u, u, count);
        Adds(u, u, 1.0f, count);
        Duplicate(yLocal, 2.0f, count);
        Div(u, yLocal, u, count);           // 2 / (exp(2u) + 1)
        Duplicate(yLocal, 2.0f, count);
        Sub(u, yLocal, u, count);           // 1 + tanh = 2 - 2 / (exp(2u) + 1)
        Mul(yLocal, u, xLocal, count);
        Muls(yLocal, yLocal, 0.5f, count);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopyPad(yGm[offset], yLocal, DataCopyExtParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0});
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void gelu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelGeluCustom op;
    op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
