// The host side of the ascendc-cpu emulation under test: an OpDef with inputs, an output and attributes of each
// kind, and a TilingFunc that saves what the TilingContext and PlatformAscendC told it.
#include "ascendc_emu/host_unit.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "probe_tiling.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    ProbeTiling t;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    t.set_coreNum(platform.GetCoreNumAiv());
    t.set_ubSize(static_cast<uint32_t>(ub));
    t.set_dtype0(context->GetInputDesc(0)->GetDataType());
    // y is optional: read through the Optional forms (GetInputTensor(1) counts only the inputs given, so it is
    // nullptr when y is left out, as on CANN)
    const gert::Tensor *yt = context->GetOptionalInputTensor(1);
    t.set_dtype1(yt != nullptr ? yt->GetDataType() : ge::DT_FLOAT);
    t.set_numel0(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    if (const gert::StorageShape *ys = context->GetOptionalInputShape(1); ys != nullptr) {
        const gert::Shape &y = ys->GetOriginShape();
        t.set_lastDim1(y.GetDim(y.GetDimNum() - 1));
    }
    t.set_dimNum0(static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetDimNum()));
    const gert::RuntimeAttrs *attrs = context->GetAttrs();
    t.set_alpha(*attrs->GetFloat(0));
    t.set_k(*attrs->GetInt(1));
    t.set_flag(*attrs->GetBool(2) ? 1 : 0);
    const gert::ContinuousVector *axes = attrs->GetListInt(3);
    int64_t a[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < axes->GetSize() && i < 4; i++) {
        a[i] = axes->GetData()[i];
    }
    t.set_axes(a);
    context->SetBlockDim(7);
    context->SetTilingKey(context->GetOptionalInputTensor(1) == nullptr ? 99 : 3);  // y left out: nullptr
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    size_t *workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize() + 1024;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ProbeCustom : public OpDef {
public:
    explicit ProbeCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(0.5);
        this->Attr("k").AttrType(REQUIRED).Int(3);
        this->Attr("flag").AttrType(OPTIONAL).Bool(true);
        this->Attr("axes").AttrType(OPTIONAL).ListInt({1, 2});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};

OP_ADD(ProbeCustom);
}  // namespace ops
