// Row log-softmax, ported from the Triton kernel in examples/log_softmax/correct.py: the same three passes
// over the row in fixed-size chunks (running max, running sum of exp, then x - log-sum-exp).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t QDEPTH = 2;

class LogSoftmaxChunked {
public:
    __aicore__ inline LogSoftmaxChunked() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t chunk)
    {
        rows_ = rows / GetBlockNum();
        cols_ = cols;
        chunk_ = chunk;
        uint32_t first = GetBlockIdx() * rows_;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, rows_ * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, rows_ * cols);
        pipe.InitBuffer(inQueue, QDEPTH, chunk * sizeof(float));
        pipe.InitBuffer(outQueue, QDEPTH, chunk * sizeof(float));
        pipe.InitBuffer(accBuf, chunk * sizeof(float));
        pipe.InitBuffer(workBuf, chunk * sizeof(float));
        pipe.InitBuffer(oneBuf, 8 * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        uint32_t nChunks = cols_ / chunk_;
        for (uint32_t r = 0; r < rows_; r++) {
            uint64_t base = (uint64_t)r * cols_;
            // pass 1: running max
            LocalTensor<float> acc = accBuf.Get<float>();
            Duplicate(acc, -3.4e38f, chunk_);
            for (uint32_t c = 0; c < nChunks; c++) {
                CopyIn(base + c * chunk_);
                LocalTensor<float> x = inQueue.DeQue<float>();
                Max(acc, acc, x, chunk_);
                inQueue.FreeTensor(x);
            }
            LocalTensor<float> one = oneBuf.Get<float>();
            LocalTensor<float> work = workBuf.Get<float>();
            ReduceMax(one, acc, work, chunk_);
            float rowMax = one.GetValue(0);
            // pass 2: running sum of exp(x - max)
            Duplicate(acc, 0.0f, chunk_);
            for (uint32_t c = 0; c < nChunks; c++) {
                CopyIn(base + c * chunk_);
                LocalTensor<float> x = inQueue.DeQue<float>();
                Adds(x, x, -rowMax, chunk_);
                Exp(x, x, chunk_);
                Add(acc, acc, x, chunk_);
                inQueue.FreeTensor(x);
            }
            ReduceSum(one, acc, work, chunk_);
            float sumExp = one.GetValue(0);
            Duplicate(one, sumExp, 8);
            Ln(one, one, 8);
            float logSum = rowMax + one.GetValue(0);
            // pass 3: x - log_sum
            for (uint32_t c = 0; c < nChunks; c++) {
                CopyIn(base + c * chunk_);
                LocalTensor<float> x = inQueue.DeQue<float>();
                LocalTensor<float> y = outQueue.AllocTensor<float>();
                Adds(y, x, -logSum, chunk_);
                outQueue.EnQue(y);
                inQueue.FreeTensor(x);
                CopyOut(base + c * chunk_);
            }
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t offset)
    {
        LocalTensor<float> x = inQueue.AllocTensor<float>();
        DataCopy(x, xGm[offset], chunk_);
        inQueue.EnQue(x);
    }

    __aicore__ inline void CopyOut(uint64_t offset)
    {
        LocalTensor<float> y = outQueue.DeQue<float>();
        DataCopy(yGm[offset], y, chunk_);
        outQueue.FreeTensor(y);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, QDEPTH> inQueue;
    TQue<QuePosition::VECOUT, QDEPTH> outQueue;
    TBuf<QuePosition::VECCALC> accBuf, workBuf, oneBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t rows_ = 0, cols_ = 0, chunk_ = 0;
};

extern "C" __global__ __aicore__ void log_softmax_chunked(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    LogSoftmaxChunked op;
    op.Init(x, y, t.rows, t.cols, t.chunk);
    op.Process();
}
