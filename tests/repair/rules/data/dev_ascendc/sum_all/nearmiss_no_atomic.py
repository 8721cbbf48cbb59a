"""SumAllCustom: The cores copy their partial sums to the one output element without SetAtomicAdd, so they overwrite each other."""

project_json_src = r"""
[
    {
        "op": "SumAllCustom",
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
#ifndef SUM_ALL_CUSTOM_TILING_H
#define SUM_ALL_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SumAllCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, tile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SumAllCustom, SumAllCustomTilingData)
}  // namespace optiling

#endif  // SUM_ALL_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "sum_all_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    SumAllCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t totalLength = static_cast<uint32_t>(shape.GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivCount = platform.GetCoreNumAiv();
    constexpr uint32_t TILE = 512;
    uint32_t usedCores = std::max(1u, std::min(aivCount, (totalLength + 2 * TILE - 1) / (2 * TILE)));
    uint32_t perCore = ((totalLength + usedCores - 1) / usedCores + 7) / 8 * 8;
    usedCores = (totalLength + perCore - 1) / perCore;
    uint32_t tile = TILE;
    context->SetBlockDim(usedCores);
    tiling.set_totalLength(totalLength);
    tiling.set_perCore(perCore);
    tiling.set_tile(tile);
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
    gert::Shape *y = context->GetOutputShape(0);
    y->SetDimNum(1);
    y->SetDim(0, 1);
    return GRAPH_SUCCESS;
}

static ge::graphStatus InferDataType(gert::InferDataTypeContext *context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class SumAllCustom : public OpDef {
public:
    explicit SumAllCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(SumAllCustom);
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

class KernelSumAllCustom {
public:
    __aicore__ inline KernelSumAllCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t perCore, uint32_t tile)
    {
        uint32_t begin = perCore * GetBlockIdx();
        this->count = begin >= totalLength ? 0 : (totalLength - begin < perCore ? totalLength - begin : perCore);
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ float *)x + begin, this->count);
        yGm.SetGlobalBuffer((__gm__ float *)y, 1);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(float));
        pipe.InitBuffer(outQue, 1, 32);
        pipe.InitBuffer(accBuf, tile * sizeof(float));
        pipe.InitBuffer(workBuf, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<float> acc = accBuf.Get<float>();
        Duplicate(acc, 0.0f, this->tile);
        for (uint32_t at = 0; at < this->count; at += this->tile) {
            uint32_t len = this->count - at < this->tile ? this->count - at : this->tile;
            CopyIn(at, len);
            Accumulate(acc, len);
        }
        CopyOut(acc);
    }

private:
    __aicore__ inline void CopyIn(uint32_t at, uint32_t len)
    {
        LocalTensor<float> xLocal = inQue.AllocTensor<float>();
        DataCopyPad(xLocal, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(xLocal);
    }

    __aicore__ inline void Accumulate(LocalTensor<float> &acc, uint32_t len)
    {
        LocalTensor<float> xLocal = inQue.DeQue<float>();
        Add(acc, acc, xLocal, len);
        inQue.FreeTensor(xLocal);
    }

    __aicore__ inline void CopyOut(LocalTensor<float> &acc)
    {
        LocalTensor<float> total = outQue.AllocTensor<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        ReduceSum(total, acc, work, this->tile);
        outQue.EnQue(total);
        total = outQue.DeQue<float>();
        DataCopyPad(yGm, total, DataCopyExtParams{1, static_cast<uint32_t>(sizeof(float)), 0, 0, 0});
        outQue.FreeTensor(total);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, 1> outQue;
    TBuf<TPosition::VECCALC> accBuf, workBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t count = 0;
    uint32_t tile = 0;
};

extern "C" __global__ __aicore__ void sum_all_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSumAllCustom op;
    op.Init(x, y, tilingData.totalLength, tilingData.perCore, tilingData.tile);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor sum_all_custom_impl_npu(const at::Tensor &x)
{
    at::Tensor y = at::zeros({1}, x.options());
    EXEC_NPU_CMD(aclnnSumAllCustom, x, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("sum_all_custom", &sum_all_custom_impl_npu, "SumAllCustom");
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
        return custom_ops_lib.sum_all_custom(x)
"""
