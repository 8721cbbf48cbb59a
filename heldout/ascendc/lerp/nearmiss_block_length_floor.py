"""LerpCustom"""

project_json_src = r"""
[
    {
        "op": "LerpCustom",
        "language": "cpp",
        "input_desc": [
            {"name": "start", "param_type": "required", "format": ["ND", "ND"], "type": ["float", "float16"]},
            {"name": "end", "param_type": "required", "format": ["ND", "ND"], "type": ["float", "float16"]}
        ],
        "output_desc": [
            {"name": "y", "param_type": "required", "format": ["ND", "ND"], "type": ["float", "float16"]}
        ],
        "attr": [
            {"name": "weight", "param_type": "optional", "type": "float", "default_value": "0.5"}
        ]
    }
]
"""

host_tiling_src = r"""
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LerpCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, weight);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LerpCustom, LerpCustomTilingData)
}
"""

host_operator_src = r"""
#include <algorithm>
#include "lerp_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t ALIGN_NUM = 16;        // 32 bytes of half, 64 of float
const uint32_t MIN_PER_CORE = 256;    // fewer elements than this are not worth another core
const uint32_t TILE_LENGTH = 2048;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    LerpCustomTilingData tiling;
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivNum = ascendcPlatform.GetCoreNumAiv();

    uint32_t blockDim = std::max(1u, std::min(aivNum, (totalLength + MIN_PER_CORE - 1) / MIN_PER_CORE));
    uint32_t blockLength = totalLength / blockDim;

    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(TILE_LENGTH);
    tiling.set_weight(*context->GetAttrs()->GetFloat(0));
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
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class LerpCustom : public OpDef {
public:
    explicit LerpCustom(const char *name) : OpDef(name)
    {
        this->Input("start")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("end")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("weight").AttrType(OPTIONAL).Float(0.5);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(LerpCustom);
}
"""

kernel_src = r"""
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelLerp {
public:
    __aicore__ inline KernelLerp() {}
    __aicore__ inline void Init(GM_ADDR start, GM_ADDR end, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                                uint32_t tileLength, float weight)
    {
        uint32_t offset = blockLength * GetBlockIdx();
        this->length = offset >= totalLength ? 0 : (totalLength - offset < blockLength ? totalLength - offset : blockLength);
        this->tileLength = tileLength;
        this->weight = static_cast<T>(weight);
        startGm.SetGlobalBuffer((__gm__ T *)start + blockLength * GetBlockIdx(), this->length);
        endGm.SetGlobalBuffer((__gm__ T *)end + blockLength * GetBlockIdx(), this->length);
        yGm.SetGlobalBuffer((__gm__ T *)y + blockLength * GetBlockIdx(), this->length);
        pipe.InitBuffer(inQueueStart, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(inQueueEnd, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        uint32_t tileNum = (this->length + this->tileLength - 1) / this->tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t count = (i + 1 == tileNum) ? this->length - i * this->tileLength : this->tileLength;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> startLocal = inQueueStart.AllocTensor<T>();
        LocalTensor<T> endLocal = inQueueEnd.AllocTensor<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        DataCopyPad(startLocal, startGm[progress * this->tileLength], copyParams, padParams);
        DataCopyPad(endLocal, endGm[progress * this->tileLength], copyParams, padParams);
        inQueueStart.EnQue(startLocal);
        inQueueEnd.EnQue(endLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<T> startLocal = inQueueStart.DeQue<T>();
        LocalTensor<T> endLocal = inQueueEnd.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        Sub(yLocal, endLocal, startLocal, count);
        Muls(yLocal, yLocal, this->weight, count);
        Add(yLocal, startLocal, yLocal, count);
        outQueueY.EnQue<T>(yLocal);
        inQueueStart.FreeTensor(startLocal);
        inQueueEnd.FreeTensor(endLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm[progress * this->tileLength], yLocal, copyParams);
        outQueueY.FreeTensor(yLocal);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueStart, inQueueEnd;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<T> startGm, endGm, yGm;
    uint32_t length;
    uint32_t tileLength;
    T weight;
};

extern "C" __global__ __aicore__ void lerp_custom(GM_ADDR start, GM_ADDR end, GM_ADDR y, GM_ADDR workspace,
                                                  GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelLerp<DTYPE_START> op;
    op.Init(start, end, y, tiling_data.totalLength, tiling_data.blockLength, tiling_data.tileLength,
            tiling_data.weight);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/library.h>
#include <torch/csrc/autograd/custom_function.h>
#include "pytorch_npu_helper.hpp"
#include <torch/extension.h>

at::Tensor lerp_impl_npu(const at::Tensor &start, const at::Tensor &end, double weight)
{
    at::Tensor result = at::empty_like(start);
    EXEC_NPU_CMD(aclnnLerpCustom, start, end, weight, result);
    return result;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("lerp_custom", &lerp_impl_npu, "start + weight * (end - start)");
}
"""

model_src = r"""
import torch
import torch_npu
import custom_ops_lib


class ModelNew(torch.nn.Module):
    def __init__(self, weight: float = 0.5):
        super(ModelNew, self).__init__()
        self.weight = weight

    def forward(self, start: torch.Tensor, end: torch.Tensor) -> torch.Tensor:
        return custom_ops_lib.lerp_custom(start, end, self.weight)
"""
