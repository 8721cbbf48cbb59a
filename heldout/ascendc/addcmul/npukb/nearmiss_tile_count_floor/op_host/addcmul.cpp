#include <algorithm>
#include "addcmul_tiling.h"
#include "register/op_def_registry.h"
#include "graph/utils/type_utils.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t TILE_BYTES = 16 * 1024;  // per buffer: 4 queues x 2 buffers stay well inside the UB

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    AddcmulTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aivNum = platform.GetCoreNumAiv();

    uint32_t typeSize = 0;
    ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeSize);
    uint32_t totalLength = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    uint32_t alignNum = BLOCK_BYTES / typeSize;

    // split whole 32-byte blocks over the cores; the first `bigCoreNum` cores take one block more
    uint32_t totalBlocks = (totalLength + alignNum - 1) / alignNum;
    uint32_t coreNum = std::max<uint32_t>(1, std::min(aivNum, totalBlocks));
    uint32_t blocksPerCore = totalBlocks / coreNum;
    uint32_t bigCoreNum = totalBlocks % coreNum;

    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    const float *value = attrs->GetAttrPointer<float>(0);

    tiling.set_totalLength(totalLength);
    tiling.set_bigCoreNum(bigCoreNum);
    tiling.set_bigCoreLength((blocksPerCore + 1) * alignNum);
    tiling.set_smallCoreLength(blocksPerCore * alignNum);
    tiling.set_tileLength(TILE_BYTES / typeSize);
    tiling.set_value(*value);

    context->SetBlockDim(coreNum);
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
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class Addcmul : public OpDef {
public:
    explicit Addcmul(const char *name) : OpDef(name)
    {
        this->Input("input_data")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x1")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x2")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("value").AttrType(OPTIONAL).Float(1.0);

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(Addcmul);
}  // namespace ops
