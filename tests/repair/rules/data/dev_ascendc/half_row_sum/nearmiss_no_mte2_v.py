"""HalfRowSumCustom: The SetFlag/WaitFlag<MTE2_V> between the row's copy into its TBuf and the Cast that reads it is missing: built with --cce-auto-sync=off, the vector pipe may read the row before the copy lands."""

project_json_src = r"""
[
    {
        "op": "HalfRowSumCustom",
        "language": "cpp",
        "input_desc": [
            {
                "name": "x",
                "param_type": "required",
                "format": [
                    "ND"
                ],
                "type": [
                    "float16"
                ]
            }
        ],
        "output_desc": [
            {
                "name": "y",
                "param_type": "required",
                "format": [
                    "ND"
                ],
                "type": [
                    "float16"
                ]
            }
        ]
    }
]
"""

host_tiling_src = r"""
#ifndef HALF_ROW_SUM_CUSTOM_TILING_H
#define HALF_ROW_SUM_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(HalfRowSumCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, colsPadded);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(HalfRowSumCustom, HalfRowSumCustomTilingData)
}  // namespace optiling

#endif  // HALF_ROW_SUM_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "half_row_sum_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    HalfRowSumCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(shape.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(shape.GetShapeSize() / cols);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivCount = platform.GetCoreNumAiv();
    uint32_t usedCores = std::max(1u, std::min(aivCount, rows));
    uint32_t rowsPerCore = (rows + usedCores - 1) / usedCores;
    uint32_t colsPadded = (cols + 15) / 16 * 16;
    context->SetBlockDim(usedCores);
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_colsPadded(colsPadded);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext *context)
{
    const gert::Shape *x = context->GetInputShape(0);
    gert::Shape *y = context->GetOutputShape(0);
    y->SetDimNum(x->GetDimNum() - 1);
    for (size_t i = 0; i + 1 < x->GetDimNum(); i++) {
        y->SetDim(i, x->GetDim(i));
    }
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT16);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class HalfRowSumCustom : public OpDef {
public:
    explicit HalfRowSumCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(HalfRowSumCustom);
}  // namespace ops
"""

kernel_src = r"""
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

constexpr uint32_t SUMS_OUT = 16;  // row sums gathered before one copy-out (32 bytes of half)

class KernelHalfRowSumCustom {
public:
    __aicore__ inline KernelHalfRowSumCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore,
                                uint32_t colsPadded)
    {
        uint32_t firstRow = rowsPerCore * GetBlockIdx();
        this->nRows = firstRow >= rows ? 0 : (rows - firstRow < rowsPerCore ? rows - firstRow : rowsPerCore);
        this->cols = cols;
        inGm.SetGlobalBuffer((__gm__ half *)x + firstRow * cols, this->nRows * cols);
        outGm.SetGlobalBuffer((__gm__ half *)y + firstRow, this->nRows);
        pipe.InitBuffer(rowBuf, colsPadded * sizeof(half));
        pipe.InitBuffer(wideBuf, colsPadded * sizeof(float));
        pipe.InitBuffer(workBuf, colsPadded * sizeof(float));
        pipe.InitBuffer(sumBuf, 32);
        pipe.InitBuffer(outBuf, SUMS_OUT * sizeof(half));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<half> sums = outBuf.Get<half>();
        for (uint32_t r0 = 0; r0 < this->nRows; r0 += SUMS_OUT) {
            uint32_t n = this->nRows - r0 < SUMS_OUT ? this->nRows - r0 : SUMS_OUT;
            for (uint32_t j = 0; j < n; j++) {
                sums.SetValue(j, static_cast<half>(RowSum(r0 + j)));
            }
            event_t sToMte3 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_MTE3));
            SetFlag<HardEvent::S_MTE3>(sToMte3);
            WaitFlag<HardEvent::S_MTE3>(sToMte3);
            DataCopyPad(outGm[r0], sums, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(half)), 0, 0, 0});
            // the next batch's SetValue overwrites what the copy-out reads
            event_t mte3ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_S));
            SetFlag<HardEvent::MTE3_S>(mte3ToS);
            WaitFlag<HardEvent::MTE3_S>(mte3ToS);
        }
    }

private:
    __aicore__ inline float RowSum(uint32_t row)
    {
        LocalTensor<half> xh = rowBuf.Get<half>();
        LocalTensor<float> xf = wideBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> sum = sumBuf.Get<float>();
        DataCopyPad(xh, inGm[row * this->cols],
                    DataCopyExtParams{1, static_cast<uint32_t>(this->cols * sizeof(half)), 0, 0, 0},
                    DataCopyPadExtParams<half>{false, 0, 0, 0});
        Cast(xf, xh, RoundMode::CAST_NONE, this->cols);
        // the next row's copy-in overwrites what the Cast read
        event_t vToMte2 = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_MTE2));
        SetFlag<HardEvent::V_MTE2>(vToMte2);
        WaitFlag<HardEvent::V_MTE2>(vToMte2);
        ReduceSum(sum, xf, work, this->cols);
        return ScalarOf(sum);
    }

    TPipe pipe;
    TBuf<TPosition::VECCALC> rowBuf, wideBuf, workBuf, sumBuf, outBuf;
    GlobalTensor<half> inGm, outGm;
    uint32_t nRows = 0;
    uint32_t cols = 0;
};

extern "C" __global__ __aicore__ void half_row_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelHalfRowSumCustom op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.colsPadded);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor half_row_sum_custom_impl_npu(const at::Tensor &x)
{
    at::Tensor y = at::empty(x.sizes().slice(0, x.dim() - 1), x.options());
    EXEC_NPU_CMD(aclnnHalfRowSumCustom, x, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("half_row_sum_custom", &half_row_sum_custom_impl_npu, "HalfRowSumCustom");
}
"""

model_src = r"""
import torch
import torch_npu
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return custom_ops_lib.half_row_sum_custom(x)
"""
