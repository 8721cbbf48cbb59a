#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

// A scalar read of a value the vector unit wrote: the scalar unit waits for the vector pipe first.
__aicore__ inline float ScalarOf(const LocalTensor<float> &t)
{
    event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(id);
    WaitFlag<HardEvent::V_S>(id);
    return t.GetValue(0);
}

class KernelAddCustom {
public:
    __aicore__ inline KernelAddCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength)
    {
        uint32_t offset = blockLength * GetBlockIdx();
        this->length = offset >= totalLength ? 0 : (totalLength - offset < blockLength ? totalLength - offset : blockLength);
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, this->length);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t tiles = this->length / this->tileLength;
        uint32_t tail = this->length - tiles * this->tileLength;
        for (uint32_t i = 0; i < tiles && i < 1; i++) {
            CopyIn(i * this->tileLength, this->tileLength);
            Compute(this->tileLength);
            CopyOut(i * this->tileLength, this->tileLength);
        }
        if (tail > 0) {
            CopyIn(tiles * this->tileLength, tail);
            Compute(tail);
            CopyOut(tiles * this->tileLength, tail);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[offset], params, pad);
        DataCopyPad(yLocal, yGm[offset], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }

    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        Add(zLocal, xLocal, yLocal, count);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        DataCopyPad(zGm[offset], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t length = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAddCustom op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
