"""LayerNormCustom: The input row is freed back to its queue before its last use, so the next row's copy-in can overwrite it while the vector unit still reads it."""

project_json_src = r"""
[
    {
        "op": "LayerNormCustom",
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
            },
            {
                "name": "gamma",
                "param_type": "required",
                "format": [
                    "ND"
                ],
                "type": [
                    "float"
                ]
            },
            {
                "name": "beta",
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
        ],
        "attr": [
            {
                "name": "eps",
                "param_type": "optional",
                "type": "float",
                "default_value": "1e-5"
            }
        ]
    }
]
"""

host_tiling_src = r"""
#ifndef LAYER_NORM_CUSTOM_TILING_H
#define LAYER_NORM_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LayerNormCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(float, eps);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LayerNormCustom, LayerNormCustomTilingData)
}  // namespace optiling

#endif  // LAYER_NORM_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "layer_norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    LayerNormCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t cols = static_cast<uint32_t>(shape.GetDim(shape.GetDimNum() - 1));
    uint32_t rows = static_cast<uint32_t>(shape.GetShapeSize() / cols);
    const float eps = *context->GetAttrs()->GetFloat(0);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint32_t blockDim = std::max(1u, std::min(coreNum, rows));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    context->SetBlockDim(blockDim);
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_eps(eps);
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
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class LayerNormCustom : public OpDef {
public:
    explicit LayerNormCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("beta").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("eps").AttrType(OPTIONAL).Float(1e-5);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(LayerNormCustom);
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

class KernelLayerNormCustom {
public:
    __aicore__ inline KernelLayerNormCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t rowsPerCore, float eps)
    {
        uint32_t first = rowsPerCore * GetBlockIdx();
        this->rowCount = first >= rows ? 0 : (rows - first < rowsPerCore ? rows - first : rowsPerCore);
        this->cols = cols;
        uint32_t rowBytes = (cols * sizeof(float) + 31) / 32 * 32;
        this->eps = eps;
        xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, this->rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, this->rowCount * cols);
        gammaGm.SetGlobalBuffer((__gm__ float *)gamma, cols);
        betaGm.SetGlobalBuffer((__gm__ float *)beta, cols);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(inQueueAffine, 1, 2 * rowBytes);
        pipe.InitBuffer(outQueueY, BUFFER_NUM, rowBytes);
        pipe.InitBuffer(workBuf, 32);
        pipe.InitBuffer(tmpBuf, rowBytes);
        this->stride = rowBytes / sizeof(float);
    }

    __aicore__ inline void Process()
    {
        if (this->rowCount == 0) {
            return;
        }
        LocalTensor<float> affine = inQueueAffine.AllocTensor<float>();
        DataCopyPad(affine, gammaGm, RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        DataCopyPad(affine[this->stride], betaGm, RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQueueAffine.EnQue(affine);
        affine = inQueueAffine.DeQue<float>();
        for (uint32_t r = 0; r < this->rowCount; r++) {
            CopyIn(r);
            Compute(affine);
            CopyOut(r);
        }
        inQueueAffine.FreeTensor(affine);
    }

private:
    __aicore__ inline DataCopyExtParams RowParams()
    {
        return DataCopyExtParams{1, static_cast<uint32_t>(this->cols * sizeof(float)), 0, 0, 0};
    }

    __aicore__ inline void CopyIn(uint32_t r)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[r * this->cols], RowParams(), DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQueueX.EnQue(xLocal);
    }

    __aicore__ inline void Compute(const LocalTensor<float> &affine)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        ReduceSum(work, xLocal, tmp, this->cols);
        float mean = ScalarOf(work) / this->cols;
        Adds(xLocal, xLocal, -mean, this->cols);
        Mul(yLocal, xLocal, xLocal, this->cols);
        ReduceSum(work, yLocal, tmp, this->cols);
        float var = ScalarOf(work) / this->cols;
        Duplicate(work, var + this->eps, 8);
        Sqrt(work, work, 8);  // the scalar unit has no square root: one vector lane computes it
        float rstd = 1.0f / ScalarOf(work);
        inQueueX.FreeTensor(xLocal);
        Muls(xLocal, xLocal, rstd, this->cols);
        Mul(yLocal, xLocal, affine, this->cols);
        Add(yLocal, yLocal, affine[this->stride], this->cols);
        outQueueY.EnQue<float>(yLocal);
    }

    __aicore__ inline void CopyOut(uint32_t r)
    {
        LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        DataCopyPad(yGm[r * this->cols], yLocal, RowParams());
        outQueueY.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECIN, 1> inQueueAffine;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TBuf<TPosition::VECCALC> workBuf, tmpBuf;
    GlobalTensor<float> xGm, gammaGm, betaGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t stride = 0;
    float eps = 0.0f;
};

extern "C" __global__ __aicore__ void layer_norm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLayerNormCustom op;
    op.Init(x, gamma, beta, y, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.eps);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor layer_norm_custom_impl_npu(const at::Tensor &x, const at::Tensor &gamma, const at::Tensor &beta, double eps)
{
    at::Tensor y = at::empty_like(x);
    EXEC_NPU_CMD(aclnnLayerNormCustom, x, gamma, beta, eps, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("layer_norm_custom", &layer_norm_custom_impl_npu, "LayerNormCustom");
}
"""

model_src = r"""
import torch
import torch_npu
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x, gamma, beta):
        return custom_ops_lib.layer_norm_custom(x, gamma, beta, self.eps)
"""
