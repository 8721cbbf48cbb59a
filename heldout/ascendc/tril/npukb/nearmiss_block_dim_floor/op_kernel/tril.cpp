#include "kernel_operator.h"
using namespace AscendC;

// The row buffers are TBufs, which no queue orders: each pipe that touches one next waits for the one before.
#define WAIT_PIPE(tpipe, evt)                                                          \
    do {                                                                               \
        event_t evtId = static_cast<event_t>((tpipe).FetchEventID(HardEvent::evt));    \
        SetFlag<HardEvent::evt>(evtId);                                                \
        WaitFlag<HardEvent::evt>(evtId);                                               \
    } while (0)

template <typename T>
class KernelTril {
public:
    __aicore__ inline KernelTril() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TrilTilingData &t)
    {
        this->rowStart = GetBlockIdx() * t.rowsPerCore;
        this->rows = t.totalRows - this->rowStart < t.rowsPerCore ? t.totalRows - this->rowStart : t.rowsPerCore;
        this->matrixRows = t.matrixRows;
        this->cols = t.cols;
        this->colsAligned = t.colsAligned;
        this->diagonal = t.diagonal;
        xGm.SetGlobalBuffer((__gm__ T *)x + static_cast<uint64_t>(this->rowStart) * this->cols,
                            static_cast<uint64_t>(this->rows) * this->cols);
        yGm.SetGlobalBuffer((__gm__ T *)y + static_cast<uint64_t>(this->rowStart) * this->cols,
                            static_cast<uint64_t>(this->rows) * this->cols);
        pipe.InitBuffer(inBuf, this->colsAligned * sizeof(T));
        pipe.InitBuffer(outBuf, this->colsAligned * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<T> inRow = inBuf.Get<T>();
        LocalTensor<T> outRow = outBuf.Get<T>();
        DataCopyExtParams rowParams{1, static_cast<uint32_t>(this->cols * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, static_cast<T>(0)};
        for (uint32_t r = 0; r < this->rows; r++) {
            int64_t i = (this->rowStart + r) % this->matrixRows;  // the row's index inside its matrix
            int64_t keep = i + this->diagonal + 1;                // elements 0..keep-1 of the row stay
            keep = keep < 0 ? 0 : (keep > this->cols ? this->cols : keep);

            DataCopyPad(inRow, xGm[static_cast<uint64_t>(r) * this->cols], rowParams, pad);
            WAIT_PIPE(pipe, MTE2_V);
            Duplicate(outRow, static_cast<T>(0), this->colsAligned);
            if (keep > 0) {
                Adds(outRow, inRow, static_cast<T>(0), static_cast<int32_t>(keep));
            }
            WAIT_PIPE(pipe, V_MTE3);
            WAIT_PIPE(pipe, V_MTE2);  // the next row's copy-in overwrites what Adds read
            DataCopyPad(yGm[static_cast<uint64_t>(r) * this->cols], outRow, rowParams);
            WAIT_PIPE(pipe, MTE3_V);  // the next row's Duplicate overwrites what the copy-out reads
        }
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> inBuf, outBuf;
    GlobalTensor<T> xGm, yGm;
    uint32_t rowStart = 0;
    uint32_t rows = 0;
    uint32_t matrixRows = 1;
    int64_t cols = 0;
    uint32_t colsAligned = 0;
    int64_t diagonal = 0;
};

extern "C" __global__ __aicore__ void tril(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelTril<DTYPE_X> op;
    op.Init(x, y, tilingData);
    op.Process();
}
