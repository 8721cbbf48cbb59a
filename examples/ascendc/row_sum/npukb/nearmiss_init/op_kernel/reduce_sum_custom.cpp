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

constexpr uint32_t OUT_BATCH = 64;  // row sums gathered in local memory before one copy-out

class KernelReduceSumCustom {
public:
    __aicore__ inline KernelReduceSumCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore,
                                uint32_t chunk)
    {
        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        this->chunk = chunk;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first, this->rowCount);
        uint32_t chunkBytes = (chunk * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQueueX, BUFFER_NUM, chunkBytes);
        pipe.InitBuffer(outQueueY, 1, OUT_BATCH * sizeof(float));
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, chunkBytes);
    }

    __aicore__ inline void Process()
    {
        for (uint32_t r0 = 0; r0 < this->rowCount; r0 += OUT_BATCH) {
            uint32_t n = this->rowCount - r0 < OUT_BATCH ? this->rowCount - r0 : OUT_BATCH;
            LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            for (uint32_t j = 0; j < n; j++) {
                yLocal.SetValue(j, RowSum(r0 + j));
            }
            // the scalar unit wrote yLocal: the copy-out (MTE3) waits for it, and the next batch's writes wait for
            // the copy-out (the queue orders the vector pipe only)
            event_t sToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
            SetFlag<HardEvent::S_MTE3>(sToMte3);
            WaitFlag<HardEvent::S_MTE3>(sToMte3);
            outQueueY.EnQue<float>(yLocal);
            yLocal = outQueueY.DeQue<float>();
            DataCopyPad(yGm[r0], yLocal, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
            event_t mte3ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
            SetFlag<HardEvent::MTE3_S>(mte3ToS);
            WaitFlag<HardEvent::MTE3_S>(mte3ToS);
            outQueueY.FreeTensor(yLocal);
        }
    }

private:
    __aicore__ inline float RowSum(uint32_t row)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        float acc = xGm.GetValue(row * this->cols);
        for (uint32_t c = 0; c < this->cols; c += this->chunk) {
            uint32_t len = this->cols - c < this->chunk ? this->cols - c : this->chunk;
            LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
            DataCopyPad(xLocal, xGm[row * this->cols + c], params, DataCopyPadExtParams<float>{false, 0, 0, 0});
            inQueueX.EnQue(xLocal);
            xLocal = inQueueX.DeQue<float>();
            ReduceSum(work, xLocal, tmp, len);
            inQueueX.FreeTensor(xLocal);
            acc += ScalarOf(work);
        }
        return acc;
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, 1> outQueueY;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t chunk = 0;
};

extern "C" __global__ __aicore__ void reduce_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelReduceSumCustom op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.chunk);
    op.Process();
}
