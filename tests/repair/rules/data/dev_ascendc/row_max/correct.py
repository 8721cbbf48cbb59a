"""RowMaxCustom: the correct kernel"""

project_json_src = r"""
[
    {
        "op": "RowMaxCustom",
        "language": "cpp",
        "input_desc": [
            {
                "name": "x",
                "param_type": "required",
                "format": [
                    "ND"
                ],
                "type": [
                    "float"
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
                    "float"
                ]
            }
        ]
    }
]
"""

host_tiling_src = r"""
#ifndef ROW_MAX_CUSTOM_TILING_H
#define ROW_MAX_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowMaxCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RowMaxCustom, RowMaxCustomTilingData)
}  // namespace optiling

#endif  // ROW_MAX_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "row_max_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    RowMaxCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(shape.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(shape.GetShapeSize() / cols);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivCount = platform.GetCoreNumAiv();
    uint32_t usedCores = std::max(1u, std::min(aivCount, rows));
    uint32_t rowsPerCore = (rows + usedCores - 1) / usedCores;
    uint32_t chunk = std::min(cols, 4096u);
    context->SetBlockDim(usedCores);
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_chunk(chunk);
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
    context->SetOutputDataType(0, ge::DT_FLOAT);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class RowMaxCustom : public OpDef {
public:
    explicit RowMaxCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(RowMaxCustom);
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

constexpr uint32_t ROWS_OUT = 32;  // row maxima gathered before one copy-out

class KernelRowMaxCustom {
public:
    __aicore__ inline KernelRowMaxCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols, uint32_t rowsPerCore,
                                uint32_t chunk)
    {
        uint32_t firstRow = rowsPerCore * GetBlockIdx();
        this->nRows = firstRow >= rows ? 0 : (rows - firstRow < rowsPerCore ? rows - firstRow : rowsPerCore);
        this->cols = cols;
        this->chunk = chunk;
        inGm.SetGlobalBuffer((__gm__ float *)x + firstRow * cols, this->nRows * cols);
        outGm.SetGlobalBuffer((__gm__ float *)y + firstRow, this->nRows);
        uint32_t chunkBytes = (chunk * sizeof(float) + 31) / 32 * 32;
        pipe.InitBuffer(inQue, BUFFER_NUM, chunkBytes);
        pipe.InitBuffer(outQue, 1, ROWS_OUT * sizeof(float));
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, chunkBytes);
    }

    __aicore__ inline void Process()
    {
        for (uint32_t r0 = 0; r0 < this->nRows; r0 += ROWS_OUT) {
            uint32_t n = this->nRows - r0 < ROWS_OUT ? this->nRows - r0 : ROWS_OUT;
            LocalTensor<float> maxima = outQue.AllocTensor<float>();
            for (uint32_t j = 0; j < n; j++) {
                maxima.SetValue(j, RowMax(r0 + j));
            }
            outQue.EnQue<float>(maxima);
            maxima = outQue.DeQue<float>();
            DataCopyPad(outGm[r0], maxima, DataCopyExtParams{1, static_cast<uint32_t>(n * sizeof(float)), 0, 0, 0});
            outQue.FreeTensor(maxima);
        }
    }

private:
    __aicore__ inline float RowMax(uint32_t row)
    {
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        float best = -3.40282347e+38f;
        for (uint32_t c = 0; c < this->cols; c += this->chunk) {
            uint32_t len = this->cols - c < this->chunk ? this->cols - c : this->chunk;
            LocalTensor<float> part = inQue.AllocTensor<float>();
            DataCopyPad(part, inGm[row * this->cols + c],
                        DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                        DataCopyPadExtParams<float>{false, 0, 0, 0});
            inQue.EnQue(part);
            part = inQue.DeQue<float>();
            ReduceMax(work, part, tmp, len);
            inQue.FreeTensor(part);
            float m = ScalarOf(work);
            best = m > best ? m : best;
        }
        return best;
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, 1> outQue;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf;
    GlobalTensor<float> inGm, outGm;
    uint32_t nRows = 0;
    uint32_t cols = 0;
    uint32_t chunk = 0;
};

extern "C" __global__ __aicore__ void row_max_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelRowMaxCustom op;
    op.Init(x, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.chunk);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor row_max_custom_impl_npu(const at::Tensor &x)
{
    at::Tensor y = at::empty(x.sizes().slice(0, x.dim() - 1), x.options());
    EXEC_NPU_CMD(aclnnRowMaxCustom, x, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("row_max_custom", &row_max_custom_impl_npu, "RowMaxCustom");
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
        return custom_ops_lib.row_max_custom(x)
"""
