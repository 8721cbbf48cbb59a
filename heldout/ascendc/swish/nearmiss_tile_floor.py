"""SwishCustom"""

project_json_src = r"""
[
    {
        "op": "SwishCustom",
        "language": "cpp",
        "input_desc": [
            {"name": "x", "param_type": "required", "format": ["ND"], "type": ["float"]}
        ],
        "output_desc": [
            {"name": "y", "param_type": "required", "format": ["ND"], "type": ["float"]}
        ],
        "attr": [
            {"name": "beta", "param_type": "optional", "type": "float", "default_value": "1.0"}
        ]
    }
]
"""

host_tiling_src = r"""
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SwishCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, beta);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SwishCustom, SwishCustomTilingData)
}
"""

host_operator_src = r"""
#include <algorithm>
#include "swish_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t ALIGN_NUM = 8;
const uint32_t MAX_TILE_LENGTH = 4096;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    SwishCustomTilingData tiling;
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();

    uint32_t blockLength = (totalLength + coreNum - 1) / coreNum;
    blockLength = (blockLength + ALIGN_NUM - 1) / ALIGN_NUM * ALIGN_NUM;
    uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    const float *beta = attrs->GetAttrPointer<float>(0);

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(std::min(blockLength, MAX_TILE_LENGTH));
    tiling.set_beta(*beta);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext *context)
{
    const gert::Shape *x_shape = context->GetInputShape(0);
    gert::Shape *y_shape = context->GetOutputShape(0);
    *y_shape = *x_shape;
    return GRAPH_SUCCESS;
}
static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SwishCustom : public OpDef {
public:
    explicit SwishCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("beta").AttrType(OPTIONAL).Float(1.0);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SwishCustom);
}
"""

kernel_src = r"""
#include "kernel_operator.h"
constexpr int32_t BUFFER_NUM = 2;

class KernelSwish {
public:
    __aicore__ inline KernelSwish() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength, float beta)
    {
        uint32_t offset = blockLength * AscendC::GetBlockIdx();
        this->length = totalLength - offset < blockLength ? totalLength - offset : blockLength;
        this->tileLength = tileLength;
        this->beta = beta;
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, this->length);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, this->length);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, this->tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        uint32_t tileNum = this->length / this->tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = this->length - i * this->tileLength;
            count = count < this->tileLength ? count : this->tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
        AscendC::DataCopyPad(xLocal, xGm[progress * this->tileLength], copyParams, padParams);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
        AscendC::LocalTensor<float> tmp = tmpBuf.Get<float>();
        // sigmoid(beta * x) = 1 / (1 + exp(-beta * x)), so y = x / (1 + exp(-beta * x))
        AscendC::Muls(tmp, xLocal, -this->beta, count);
        AscendC::Exp(tmp, tmp, count);
        AscendC::Adds(tmp, tmp, 1.0f, count);
        AscendC::Div(yLocal, xLocal, tmp, count);
        outQueueY.EnQue<float>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        AscendC::LocalTensor<float> yLocal = outQueueY.DeQue<float>();
        AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[progress * this->tileLength], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::QuePosition::VECCALC> tmpBuf;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t length;
    uint32_t tileLength;
    float beta;
};

extern "C" __global__ __aicore__ void swish_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelSwish op;
    op.Init(x, y, tiling_data.totalLength, tiling_data.blockLength, tiling_data.tileLength, tiling_data.beta);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/library.h>
#include <torch/csrc/autograd/custom_function.h>
#include "pytorch_npu_helper.hpp"
#include <torch/extension.h>

at::Tensor swish_impl_npu(const at::Tensor &x, double beta)
{
    at::Tensor y = at::empty_like(x);
    EXEC_NPU_CMD(aclnnSwishCustom, x, beta, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("swish_custom", &swish_impl_npu, "x * sigmoid(beta * x)");
}
"""

model_src = r"""
import torch
import torch_npu
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self, beta: float = 1.0):
        super(ModelNew, self).__init__()
        self.beta = beta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return custom_ops_lib.swish_custom(x, self.beta)
"""
