#include <algorithm>
#include "rms_norm_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t COL_ALIGN = 16;  // 32 bytes of half; a row of float stays 32-byte aligned too

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    RmsNormTilingData tiling;
    const gert::Shape &xShape = context->GetInputShape(0)->GetStorageShape();
    size_t dims = xShape.GetDimNum();
    uint32_t cols = static_cast<uint32_t>(xShape.GetDim(dims - 1));
    uint32_t rows = static_cast<uint32_t>(xShape.GetShapeSize() / cols);

    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = std::max(1u, std::min(platform.GetCoreNumAiv(), rows));

    const float *epsilon = context->GetAttrs()->GetFloat(0);
    tiling.set_cols(cols);
    tiling.set_colsAligned((cols + COL_ALIGN - 1) / COL_ALIGN * COL_ALIGN);
    tiling.set_rowsPerCore(rows / coreNum);
    tiling.set_bigRows(rows % coreNum);  // the first bigRows cores take one row more
    tiling.set_epsilon(*epsilon);

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
class RmsNorm : public OpDef {
public:
    explicit RmsNorm(const char *name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("gamma")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6);

        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(RmsNorm);
}  // namespace ops
