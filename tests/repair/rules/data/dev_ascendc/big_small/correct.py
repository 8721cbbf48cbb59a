"""BigSmallCustom: the correct kernel"""

project_json_src = r"""
[
    {
        "op": "BigSmallCustom",
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
#ifndef BIG_SMALL_CUSTOM_TILING_H
#define BIG_SMALL_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BigSmallCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, smallShare);
TILING_DATA_FIELD_DEF(uint32_t, bigShare);
TILING_DATA_FIELD_DEF(uint32_t, bigCores);
TILING_DATA_FIELD_DEF(uint32_t, tile);
TILING_DATA_FIELD_DEF(uint32_t, smallTiles);
TILING_DATA_FIELD_DEF(uint32_t, bigTiles);
TILING_DATA_FIELD_DEF(uint32_t, smallLast);
TILING_DATA_FIELD_DEF(uint32_t, bigLast);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BigSmallCustom, BigSmallCustomTilingData)
}  // namespace optiling

#endif  // BIG_SMALL_CUSTOM_TILING_H
"""

host_operator_src = r"""
#include <algorithm>
#include "big_small_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    BigSmallCustomTilingData tiling;
    const gert::Shape &shape = context->GetInputShape(0)->GetOriginShape();
    uint32_t totalLength = static_cast<uint32_t>(shape.GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivCount = platform.GetCoreNumAiv();
    constexpr uint32_t TILE = 1024;
    uint32_t usedCores = std::max(1u, std::min(aivCount, (totalLength + TILE - 1) / TILE));
    uint32_t smallShare = totalLength / usedCores;
    uint32_t bigCores = totalLength % usedCores;  // these blocks take one element more
    uint32_t bigShare = smallShare + 1;
    uint32_t tile = TILE;
    uint32_t smallTiles = (smallShare + TILE - 1) / TILE;
    uint32_t bigTiles = (bigShare + TILE - 1) / TILE;
    uint32_t smallLast = smallShare - (smallTiles - 1) * TILE;
    uint32_t bigLast = bigShare - (bigTiles - 1) * TILE;
    context->SetBlockDim(usedCores);
    tiling.set_totalLength(totalLength);
    tiling.set_smallShare(smallShare);
    tiling.set_bigShare(bigShare);
    tiling.set_bigCores(bigCores);
    tiling.set_tile(tile);
    tiling.set_smallTiles(smallTiles);
    tiling.set_bigTiles(bigTiles);
    tiling.set_smallLast(smallLast);
    tiling.set_bigLast(bigLast);
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
class BigSmallCustom : public OpDef {
public:
    explicit BigSmallCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(BigSmallCustom);
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

class KernelBigSmallCustom {
public:
    __aicore__ inline KernelBigSmallCustom() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t smallShare, uint32_t bigShare,
                                uint32_t bigCores, uint32_t tile, uint32_t smallTiles, uint32_t bigTiles,
                                uint32_t smallLast, uint32_t bigLast)
    {
        uint32_t core = GetBlockIdx();
        uint32_t start = bigShare * core;
        this->tile = tile;
        if (core < bigCores) {
            this->share = bigShare;
            this->tiles = bigTiles;
            this->lastLen = bigLast;
        } else {
            this->share = smallShare;
            this->tiles = smallTiles;
            this->lastLen = smallLast;
            start -= (bigShare - smallShare) * (core - bigCores);
        }
        xGm.SetGlobalBuffer((__gm__ float *)x + start, this->share);
        yGm.SetGlobalBuffer((__gm__ float *)y + start, this->share);
        pipe.InitBuffer(inQue, BUFFER_NUM, tile * sizeof(float));
        pipe.InitBuffer(outQue, BUFFER_NUM, tile * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        this->len = this->tile;
        for (uint32_t t = 0; t < this->tiles; ++t) {
            if (t + 1 == this->tiles) {
                this->len = this->lastLen;
            }
            Step(t * this->tile);
        }
    }

private:
    __aicore__ inline void Step(uint32_t at)
    {
        AscendC::LocalTensor<float> src = inQue.AllocTensor<float>();
        DataCopyPad(src, xGm[at], DataCopyExtParams{1, static_cast<uint32_t>(this->len * sizeof(float)), 0, 0, 0},
                    DataCopyPadExtParams<float>{false, 0, 0, 0});
        inQue.EnQue(src);
        src = inQue.DeQue<float>();
        AscendC::LocalTensor<float> res = outQue.AllocTensor<float>();
        Muls(res, src, 0.5f, this->len);
        Adds(res, res, -3.0f, this->len);
        outQue.EnQue(res);
        inQue.FreeTensor(src);
        res = outQue.DeQue<float>();
        DataCopyPad(yGm[at], res, DataCopyExtParams{1, static_cast<uint32_t>(this->len * sizeof(float)), 0, 0, 0});
        outQue.FreeTensor(res);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQue;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t share = 0, tiles = 0, lastLen = 0, tile = 0, len = 0;
};

extern "C" __global__ __aicore__ void big_small_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBigSmallCustom op;
    op.Init(x, y, tilingData.totalLength, tilingData.smallShare, tilingData.bigShare, tilingData.bigCores, tilingData.tile, tilingData.smallTiles, tilingData.bigTiles, tilingData.smallLast, tilingData.bigLast);
    op.Process();
}
"""

python_bind_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include "pytorch_npu_helper.hpp"

at::Tensor big_small_custom_impl_npu(const at::Tensor &x)
{
    at::Tensor y = at::empty_like(x);
    EXEC_NPU_CMD(aclnnBigSmallCustom, x, y);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("big_small_custom", &big_small_custom_impl_npu, "BigSmallCustom");
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
        return custom_ops_lib.big_small_custom(x)
"""
