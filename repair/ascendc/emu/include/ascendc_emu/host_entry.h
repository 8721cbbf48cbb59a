// ascendc-cpu: the library's C interface on the host side (included once, by the generated host unit): the
// registered OpDef as JSON, and the tiling function run on the case's shapes, dtypes and attributes.
#pragma once

#include "ascendc_emu/host.h"

#define ASCENDC_EMU_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" {
struct AscendcEmuTensorDesc {
    int32_t dtype;
    int32_t ndim;
    int64_t dims[8];
};
struct AscendcEmuAttr {
    int32_t kind;  // 0 float, 1 int, 2 bool, 3 string, 4 list of ints
    double f;
    int64_t i;
    const char *s;
    const int64_t *list;
    int32_t nlist;
};
struct AscendcEmuTiling {
    uint32_t block_dim;
    uint64_t tiling_key;
    uint64_t tiling_size;
    uint64_t workspace;
    uint32_t status;
};
}

namespace ascendc_emu {

inline std::string json_string(const std::string &s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        o += c;
    }
    return o + "\"";
}

inline std::string params_json(const std::deque<ops::OpParamDef> &ps) {
    std::string o = "[";
    for (size_t k = 0; k < ps.size(); k++) {
        const ops::OpParamDef &p = ps[k];
        o += std::string(k ? ", " : "") + "{\"name\": " + json_string(p.name_) + ", \"param_type\": " +
             std::to_string(static_cast<int>(p.type_)) + ", \"dtypes\": [";
        for (size_t j = 0; j < p.dtypes_.size(); j++) o += (j ? ", " : "") + std::to_string(static_cast<int>(p.dtypes_[j]));
        o += "]}";
    }
    return o + "]";
}

inline gert::Tensor tensor_of(const AscendcEmuTensorDesc &d) {
    gert::Shape s;
    for (int k = 0; k < d.ndim && k < 8; k++) s.AppendDim(d.dims[k]);
    gert::Tensor t;
    t.shape_ = gert::StorageShape(s);
    t.dtype_ = static_cast<ge::DataType>(d.dtype);
    return t;
}

}  // namespace ascendc_emu

ASCENDC_EMU_EXPORT const char *ascendc_emu_opdef() {
    static std::string out;
    auto &ops = ascendc_emu::op_registry();
    if (ops.empty()) return "null";
    const ops::OpDef &op = *ops.back();
    std::string attrs = "[";
    for (size_t k = 0; k < op.attrs_.size(); k++) {
        const ops::OpAttrDef &a = op.attrs_[k];
        attrs += std::string(k ? ", " : "") + "{\"name\": " + ascendc_emu::json_string(a.name_) + ", \"kind\": \"" +
                 a.kind_ + "\", \"required\": " + (a.type_ == ops::REQUIRED ? "true" : "false") + ", \"default\": " +
                 a.def_ + "}";
    }
    attrs += "]";
    out = "{\"op\": " + ascendc_emu::json_string(op.name_) + ", \"count\": " + std::to_string(ops.size()) +
          ", \"inputs\": " + ascendc_emu::params_json(op.inputs_) + ", \"outputs\": " +
          ascendc_emu::params_json(op.outputs_) + ", \"attrs\": " + attrs + ", \"tiling\": " +
          ((op.aicore_.tiling_ || ascendc_emu::g_impl_tiling) ? "true" : "false") + "}";
    return out.c_str();
}

ASCENDC_EMU_EXPORT int ascendc_emu_tiling(const AscendcEmuTensorDesc *in, int nin, const AscendcEmuTensorDesc *out,
                                          int nout, const AscendcEmuAttr *attrs, int nattr, uint8_t *tiling,
                                          uint64_t cap, AscendcEmuTiling *res) {
    using namespace ascendc_emu;
    g_error.clear();
    try {
        auto &ops = op_registry();
        if (ops.empty()) throw Fault{kError, "no OP_ADD registered an operator"};
        ops::TilingFunc f = ops.back()->aicore_.tiling_ ? ops.back()->aicore_.tiling_ : g_impl_tiling;
        if (f == nullptr) throw Fault{kError, "the OpDef registers no tiling function (AICore().SetTiling)"};
        if (g_impl_parse) {  // TilingParse first, as the NPU's graph compile does
            ge::graphStatus parsed = g_impl_parse();
            if (parsed != ge::GRAPH_SUCCESS) throw Fault{kError, "the operator's TilingParse returned " +
                                                                      std::to_string(parsed) + ", not GRAPH_SUCCESS"};
        }
        gert::TilingContext ctx;
        for (int k = 0; k < nin; k++) {
            ctx.absent_.push_back(in[k].ndim < 0);  // the runner's mark of an input the call leaves out
            ctx.inputs_.push_back(tensor_of(in[k]));
            ctx.in_desc_.push_back(gert::CompileTimeTensorDesc{static_cast<ge::DataType>(in[k].dtype)});
        }
        for (int k = 0; k < nout; k++) {
            ctx.outputs_.push_back(tensor_of(out[k]));
            ctx.out_desc_.push_back(gert::CompileTimeTensorDesc{static_cast<ge::DataType>(out[k].dtype)});
        }
        for (int k = 0; k < nattr; k++) {
            gert::RuntimeAttrs::Value v;
            v.kind = attrs[k].kind;
            v.f = static_cast<float>(attrs[k].f);
            v.i = attrs[k].i;
            v.b = attrs[k].i != 0;
            v.s = attrs[k].s ? attrs[k].s : "";
            if (attrs[k].list) v.list.data_.assign(attrs[k].list, attrs[k].list + attrs[k].nlist);
            ctx.attrs_.values_.push_back(v);
        }
        ctx.raw_.data_.assign(cap, 0);
        ge::graphStatus status = f(&ctx);
        res->status = status;
        res->block_dim = ctx.block_dim_;
        res->tiling_key = ctx.tiling_key_;
        res->tiling_size = ctx.raw_.size_;
        uint64_t ws = 0;
        for (size_t w : ctx.workspace_) ws += w;
        res->workspace = ws;
        std::memcpy(tiling, ctx.raw_.data_.data(), cap);
        return kOk;
    } catch (const Fault &e) {
        g_error = e.message;
        return e.kind;
    } catch (const std::exception &e) {
        g_error = std::string("C++ exception in the tiling function: ") + e.what();
        return kError;
    }
}
