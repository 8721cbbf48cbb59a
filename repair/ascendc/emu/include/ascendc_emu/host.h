// ascendc-cpu: the host side of an msopgen operator: ge:: types, the OpDef that registers inputs, outputs,
// attributes and the tiling function, and a gert::TilingContext that passes the case's shapes, dtypes and
// attributes and collects the tiling data, block dimension, tiling key and workspace size.
#pragma once

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <initializer_list>
#include <iostream>  // host code prints with std::cout, which CANN's host headers bring in
#include <string>
#include <vector>

#include "ascendc_emu/base.h"
#include "ascendc_emu/platform.h"
#include "ascendc_emu/tiling_data.h"

#ifndef ASCENDC_EXTERN_C
#define ASCENDC_EXTERN_C extern "C"  // how the ops libraries declare a TilingFunc
#endif

namespace ge {

enum DataType {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_STRING = 13, DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17, DT_BF16 = 27, DT_INT4 = 29, DT_UNDEFINED = 28, DT_MAX = 40
};
enum Format { FORMAT_NCHW = 0, FORMAT_NHWC = 1, FORMAT_ND = 2, FORMAT_NC1HWC0 = 3, FORMAT_FRACTAL_Z = 4,
              FORMAT_FRACTAL_NZ = 29, FORMAT_NCDHW = 30, FORMAT_DHWCN = 31, FORMAT_NDHWC = 32, FORMAT_RESERVED = 40 };
using graphStatus = uint32_t;
using char_t = char;
constexpr int64_t UNKNOWN_DIM = -1;      // a dimension known only at run time
constexpr int64_t UNKNOWN_DIM_NUM = -2;  // a rank known only at run time
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;

inline int GetSizeByDataType(DataType dt) {
    switch (dt) {
        case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        default: return -1;
    }
}

struct TypeUtils {
    static bool GetDataTypeLength(DataType dt, uint32_t &length) {
        int n = GetSizeByDataType(dt);
        length = n > 0 ? static_cast<uint32_t>(n) : 0;
        return n > 0;
    }
};

// the shape the host-side library queries take (GetSoftMaxMinTmpSize, SoftMaxTilingFunc, ...)
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t> &dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    void SetDim(size_t i, int64_t v) {
        if (i >= dims_.size()) dims_.resize(i + 1, 1);
        dims_[i] = v;
    }
    std::vector<int64_t> GetDims() const { return dims_; }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return n;
    }

private:
    std::vector<int64_t> dims_;
};

}  // namespace ge

namespace AscendC {

// The host-side library for the high-level APIs: SoftMax's tiling (its shape as [rows, last axis]), and the scratch
// sizes kernels ask for. ascendc-cpu's library needs no scratch: the sizes are the emulation's own (a few blocks
// a row), enough for a kernel to size a buffer by.
inline void SoftMaxTilingFunc(const ge::Shape &srcShape, const uint32_t dataTypeSize, const uint32_t localWorkSpaceSize,
                              tiling::SoftMaxTiling &t) {
    (void)dataTypeSize;
    (void)localWorkSpaceSize;
    size_t n = srcShape.GetDimNum();
    uint32_t k = n ? uint32_t(srcShape.GetDim(n - 1)) : 1;
    uint32_t m = k ? uint32_t(srcShape.GetShapeSize() / k) : 0;
    t = tiling::SoftMaxTiling{};
    t.srcM = t.splitM = t.rangeM = m;
    t.srcK = t.splitK = k;
    t.srcSize = t.splitSize = m * k;
    t.outMaxM = t.reduceM = m;
    t.outMaxK = t.reduceK = 8;
    t.outMaxSize = t.reduceSize = m * 8;
}
inline uint32_t emu_tmp_size(const ge::Shape &s, uint32_t typeSize) {
    uint64_t n = uint64_t(s.GetShapeSize()) * (typeSize ? typeSize : 4);
    return uint32_t(std::min<uint64_t>((n + 31) / 32 * 32 * 2 + 1024, 1u << 20));
}
inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape &s, const uint32_t typeSize, const bool) {
    return emu_tmp_size(s, typeSize);
}
inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape &s, const uint32_t typeSize, const bool) {
    return emu_tmp_size(s, typeSize) / 2;
}
#define ASCENDC_EMU_TMP_SIZE(NAME)                                                                                  \
    inline void Get##NAME##MaxMinTmpSize(const ge::Shape &s, const uint32_t typeSize, const bool,                  \
                                         uint32_t &maxValue, uint32_t &minValue) {                                 \
        maxValue = emu_tmp_size(s, typeSize);                                                                      \
        minValue = maxValue / 2;                                                                                   \
    }
ASCENDC_EMU_TMP_SIZE(Sigmoid)
ASCENDC_EMU_TMP_SIZE(Tanh)
ASCENDC_EMU_TMP_SIZE(Gelu)
ASCENDC_EMU_TMP_SIZE(Silu)
ASCENDC_EMU_TMP_SIZE(Swish)
ASCENDC_EMU_TMP_SIZE(Erf)
ASCENDC_EMU_TMP_SIZE(Sin)
ASCENDC_EMU_TMP_SIZE(Cos)
ASCENDC_EMU_TMP_SIZE(Log)
ASCENDC_EMU_TMP_SIZE(Exp)
ASCENDC_EMU_TMP_SIZE(Power)
ASCENDC_EMU_TMP_SIZE(Sign)
ASCENDC_EMU_TMP_SIZE(Round)
#undef ASCENDC_EMU_TMP_SIZE

}  // namespace AscendC

// CANN's host headers make the standard containers visible unqualified in optiling (tiling code names them bare)
namespace optiling {
using std::map;
using std::string;
using std::unordered_map;
using std::vector;
}  // namespace optiling

namespace gert {

inline void *g_compile_info = nullptr;  // the compile info TilingParse filled, what TilingContext::GetCompileInfo gives

class Shape {
public:
    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
    void SetDimNum(size_t n) { dims_.resize(n, 1); }
    void SetDim(size_t i, int64_t v) {
        if (i >= dims_.size()) dims_.resize(i + 1, 1);
        dims_[i] = v;
    }
    Shape &AppendDim(int64_t v) {
        dims_.push_back(v);
        return *this;
    }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return n;
    }
    bool IsScalar() const { return dims_.empty(); }
    int64_t operator[](size_t i) const { return GetDim(i); }
    int64_t &operator[](size_t i) { return dims_[i]; }
    bool operator==(const Shape &o) const { return dims_ == o.dims_; }
    bool operator!=(const Shape &o) const { return dims_ != o.dims_; }

private:
    std::vector<int64_t> dims_;
};

class StorageShape {
public:
    StorageShape() = default;
    explicit StorageShape(const Shape &s) : origin_(s), storage_(s) {}
    const Shape &GetOriginShape() const { return origin_; }
    const Shape &GetStorageShape() const { return storage_; }
    Shape &MutableOriginShape() { return origin_; }
    Shape &MutableStorageShape() { return storage_; }
    bool operator==(const StorageShape &o) const { return origin_ == o.origin_ && storage_ == o.storage_; }
    bool operator!=(const StorageShape &o) const { return !(*this == o); }

private:
    Shape origin_, storage_;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetFormat() const { return ge::FORMAT_ND; }
    ge::Format GetOriginFormat() const { return ge::FORMAT_ND; }
    ge::Format GetStorageFormat() const { return ge::FORMAT_ND; }
    ge::DataType dtype_ = ge::DT_FLOAT;
};

class Tensor {
public:
    const Shape &GetOriginShape() const { return shape_.GetOriginShape(); }
    const Shape &GetStorageShape() const { return shape_.GetStorageShape(); }
    const StorageShape &GetShape() const { return shape_; }
    int64_t GetShapeSize() const { return shape_.GetOriginShape().GetShapeSize(); }
    ge::DataType GetDataType() const { return dtype_; }
    template <class T> const T *GetData() const { return nullptr; }
    StorageShape shape_;
    ge::DataType dtype_ = ge::DT_FLOAT;
};

template <class T> class TypedContinuousVector {
public:
    size_t GetSize() const { return data_.size(); }
    const T *GetData() const { return data_.data(); }
    std::vector<T> data_;
};
using ContinuousVector = TypedContinuousVector<int64_t>;

class RuntimeAttrs {
public:
    struct Value {
        int kind = 0;  // 0 float, 1 int, 2 bool, 3 string, 4 list of ints
        float f = 0;
        int64_t i = 0;
        bool b = false;
        std::string s;
        ContinuousVector list;
    };
    template <class T> const T *GetAttrPointer(size_t i) const {
        if (i >= values_.size()) return nullptr;
        const Value &v = values_[i];
        if constexpr (std::is_same_v<T, float>) return &v.f;
        else if constexpr (std::is_same_v<T, int64_t>) return &v.i;
        else if constexpr (std::is_same_v<T, bool>) return &v.b;
        else if constexpr (std::is_same_v<T, char>) return v.s.c_str();
        else if constexpr (std::is_same_v<T, ContinuousVector>) return &v.list;
        // an integer attribute is stored as int64: a narrower integer read of it sees its low bytes, as on the
        // host's little-endian storage
        else if constexpr (std::is_integral_v<T>) return reinterpret_cast<const T *>(&v.i);
        else return nullptr;
    }
    const float *GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
    const int64_t *GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
    const bool *GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
    const char *GetStr(size_t i) const { return GetAttrPointer<char>(i); }
    const ContinuousVector *GetListInt(size_t i) const { return GetAttrPointer<ContinuousVector>(i); }
    size_t GetAttrNum() const { return values_.size(); }
    std::vector<Value> values_;
};

class TilingData {
public:
    void *GetData() { return data_.data(); }
    size_t GetCapacity() const { return data_.size(); }
    void SetDataSize(size_t n) { size_ = n; }
    size_t GetDataSize() const { return size_; }
    template <class T> void Append(const T &v) {
        if (size_ + sizeof(T) <= data_.size()) {
            std::memcpy(data_.data() + size_, &v, sizeof(T));
            size_ += sizeof(T);
        }
    }
    std::vector<uint8_t> data_ = std::vector<uint8_t>(64 * 1024);
    size_t size_ = 0;
};

class ComputeNodeInfo {
public:
    const char *GetNodeName() const { return "ascendc_cpu"; }
    const char *GetNodeType() const { return "ascendc_cpu"; }
};

// What the operator's tiling function sees of the case.
class TilingContext {
public:
    // GetInputShape/GetInputTensor/GetInputDesc take the compute node's input index, which counts the inputs the call
    // gives (an optional one it leaves out, an undefined at::Tensor() in the binding, has none: the indices after it
    // shift, and one past the last is nullptr); the GetOptional* forms take the OpDef's (IR) index and give nullptr
    // for an input left out, as CANN's TilingContext documents
    const StorageShape *GetInputShape(size_t i) const { return given(i) ? &inputs_[ir(i)].shape_ : nullptr; }
    const StorageShape *GetOptionalInputShape(size_t i) const { return present(i) ? &inputs_[i].shape_ : nullptr; }
    const StorageShape *GetDynamicInputShape(size_t i, size_t) const { return GetOptionalInputShape(i); }
    const StorageShape *GetOutputShape(size_t i) const { return i < outputs_.size() ? &outputs_[i].shape_ : nullptr; }
    const Tensor *GetInputTensor(size_t i) const { return given(i) ? &inputs_[ir(i)] : nullptr; }
    const Tensor *GetOptionalInputTensor(size_t i) const { return present(i) ? &inputs_[i] : nullptr; }
    const CompileTimeTensorDesc *GetInputDesc(size_t i) const { return given(i) ? &in_desc_[ir(i)] : nullptr; }
    const CompileTimeTensorDesc *GetOptionalInputDesc(size_t i) const { return present(i) ? &in_desc_[i] : nullptr; }
    // the OpDef index of the compute node's input i (the i-th input the call gives)
    size_t ir(size_t i) const {
        for (size_t k = 0; k < inputs_.size(); k++) {
            if (!absent(k) && i-- == 0) return k;
        }
        return inputs_.size();
    }
    bool given(size_t i) const { return ir(i) < inputs_.size() && ir(i) < in_desc_.size(); }
    bool present(size_t i) const { return i < inputs_.size() && i < in_desc_.size() && !absent(i); }
    const CompileTimeTensorDesc *GetOutputDesc(size_t i) const { return i < out_desc_.size() ? &out_desc_[i] : nullptr; }
    const RuntimeAttrs *GetAttrs() const { return &attrs_; }
    fe::PlatFormInfos *GetPlatformInfo() const { return &fe::g_platform_infos; }
    bool absent(size_t i) const { return i < absent_.size() && absent_[i]; }
    const void *GetCompileInfo() const { return g_compile_info; }
    template <class T> const T *GetCompileInfo() const { return static_cast<const T *>(g_compile_info); }
    const ComputeNodeInfo *GetComputeNodeInfo() const { return &node_; }
    const char *GetNodeName() const { return "ascendc_cpu"; }
    const char *GetNodeType() const { return "ascendc_cpu"; }
    size_t GetComputeNodeInputNum() const { return inputs_.size(); }
    size_t GetComputeNodeOutputNum() const { return outputs_.size(); }

    ge::graphStatus SetBlockDim(uint32_t n) {
        block_dim_ = n;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetBlockDim() const { return block_dim_; }
    ge::graphStatus SetTilingKey(uint64_t k) {
        tiling_key_ = k;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return tiling_key_; }
    TilingData *GetRawTilingData() { return &raw_; }
    template <class T> T *GetTilingData() {
        raw_.SetDataSize(sizeof(T));
        return reinterpret_cast<T *>(raw_.GetData());
    }
    size_t *GetWorkspaceSizes(size_t n) {
        if (workspace_.size() < n) workspace_.resize(n, 0);
        return workspace_.data();
    }
    size_t GetWorkspaceNum() const { return workspace_.size(); }
    ge::graphStatus SetScheduleMode(uint32_t) { return ge::GRAPH_SUCCESS; }
    int32_t GetDeterministic() const { return 0; }  // the graph's deterministic-computation option: off
    ge::graphStatus SetNeedAtomic(bool) { return ge::GRAPH_SUCCESS; }
    ge::graphStatus SetLocalMemorySize(uint32_t) { return ge::GRAPH_SUCCESS; }

    std::vector<Tensor> inputs_, outputs_;
    std::vector<CompileTimeTensorDesc> in_desc_, out_desc_;
    std::vector<bool> absent_;  // per input: an optional one not given
    RuntimeAttrs attrs_;
    TilingData raw_;
    std::vector<size_t> workspace_;
    ComputeNodeInfo node_;
    uint32_t block_dim_ = 0;
    uint64_t tiling_key_ = 0;
};

// the compile info a TilingParse stored (never run here: a TilingFunc reading it gets a value-initialised one)
// TilingParse's context: the compile info it fills (one object of each type) and the platform
class TilingParseContext {
public:
    template <class T> T *GetCompiledInfo() {
        static T info{};
        g_compile_info = &info;
        return &info;
    }
    fe::PlatFormInfos *GetPlatformInfo() const { return &fe::g_platform_infos; }
    const char *GetNodeName() const { return "ascendc_cpu"; }
    const char *GetNodeType() const { return "ascendc_cpu"; }
};

// Compiled, never run by ascendc-cpu (the binding's allocation says the output's shape and dtype).
class InferShapeContext {
public:
    const Shape *GetInputShape(size_t i) const { return i < in_.size() ? &in_[i] : nullptr; }
    const Shape *GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
    Shape *GetOutputShape(size_t i) {
        if (i >= out_.size()) out_.resize(i + 1);
        return &out_[i];
    }
    const Tensor *GetInputTensor(size_t) const { return nullptr; }
    const RuntimeAttrs *GetAttrs() const { return &attrs_; }
    const char *GetNodeName() const { return "ascendc_cpu"; }
    std::deque<Shape> in_, out_;
    RuntimeAttrs attrs_;
};

class InferDataTypeContext {
public:
    ge::DataType GetInputDataType(size_t i) const { return i < in_.size() ? in_[i] : ge::DT_UNDEFINED; }
    ge::DataType GetOptionalInputDataType(size_t i) const { return GetInputDataType(i); }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt) {
        if (i >= out_.size()) out_.resize(i + 1, ge::DT_UNDEFINED);
        out_[i] = dt;
        return ge::GRAPH_SUCCESS;
    }
    ge::DataType GetOutputDataType(size_t i) const { return i < out_.size() ? out_[i] : ge::DT_UNDEFINED; }
    const RuntimeAttrs *GetAttrs() const { return &attrs_; }
    std::vector<ge::DataType> in_, out_;
    RuntimeAttrs attrs_;
};

// A shape range (gert::Range<Shape>): its smallest and largest shapes
template <typename T>
class Range {
public:
    Range() = default;
    Range(T *min, T *max) : min_(min), max_(max) {}
    T *GetMin() { return min_; }
    const T *GetMin() const { return min_; }
    T *GetMax() { return max_; }
    const T *GetMax() const { return max_; }

private:
    T *min_ = nullptr;
    T *max_ = nullptr;
};

// Compiled, never run by ascendc-cpu, as InferShapeContext (shape ranges serve graph compilation, not the kernel)
class InferShapeRangeContext {
public:
    const Range<Shape> *GetInputShapeRange(size_t i) const { return i < in_.size() ? &in_[i] : nullptr; }
    const Range<Shape> *GetOptionalInputShapeRange(size_t i) const { return GetInputShapeRange(i); }
    Range<Shape> *GetOutputShapeRange(size_t i) {
        if (i >= out_.size()) out_.resize(i + 1);
        return &out_[i];
    }
    const RuntimeAttrs *GetAttrs() const { return &attrs_; }
    const char *GetNodeName() const { return "ascendc_cpu"; }
    std::deque<Range<Shape>> in_, out_;
    RuntimeAttrs attrs_;
};

}  // namespace gert

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class ItemFindStatus { ITEM_FIND = 0, ITEM_NOEXIST = 1 };
enum class FormatCheckOption { DEFAULT = 0, STRICT = 1 };
enum class DependScope { ALL = 0, TILING = 1 };

using TilingFunc = ge::graphStatus (*)(gert::TilingContext *);
using InferShapeFunc = ge::graphStatus (*)(gert::InferShapeContext *);
using InferDataTypeFunc = ge::graphStatus (*)(gert::InferDataTypeContext *);

class OpParamDef {
public:
    explicit OpParamDef(const char *name) : name_(name) {}
    OpParamDef &ParamType(Option t) { type_ = t; return *this; }
    OpParamDef &DataType(std::vector<ge::DataType> t) { dtypes_ = std::move(t); return *this; }
    OpParamDef &DataTypeList(std::vector<ge::DataType> t) { dtypes_ = std::move(t); return *this; }
    OpParamDef &Format(std::vector<ge::Format>) { return *this; }
    OpParamDef &FormatList(std::vector<ge::Format>) { return *this; }
    OpParamDef &UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
    OpParamDef &ValueDepend(Option) { return *this; }
    OpParamDef &ValueDepend(Option, DependScope) { return *this; }
    OpParamDef &IgnoreContiguous() { return *this; }
    OpParamDef &AutoContiguous() { return *this; }
    OpParamDef &Scalar() { return *this; }
    OpParamDef &ScalarList() { return *this; }
    OpParamDef &To(ge::DataType) { return *this; }
    OpParamDef &To(const char *) { return *this; }
    OpParamDef &Follow(const char *) { return *this; }
    OpParamDef &InitValue(uint64_t) { return *this; }
    OpParamDef &OutputShapeDependOnCompute() { return *this; }
    std::string name_;
    Option type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char *name) : name_(name) {}
    OpAttrDef &AttrType(Option t) { type_ = t; return *this; }
    OpAttrDef &Bool() { kind_ = "bool"; return *this; }
    OpAttrDef &Bool(bool v) { kind_ = "bool"; def_ = v ? "true" : "false"; return *this; }
    OpAttrDef &Float() { kind_ = "float"; return *this; }
    OpAttrDef &Float(float v) { kind_ = "float"; def_ = number(v); return *this; }
    OpAttrDef &Int() { kind_ = "int"; return *this; }
    OpAttrDef &Int(int64_t v) { kind_ = "int"; def_ = std::to_string(v); return *this; }
    OpAttrDef &String() { kind_ = "str"; return *this; }
    OpAttrDef &String(const char *v) { kind_ = "str"; def_ = quoted(v); return *this; }
    OpAttrDef &ListInt() { kind_ = "list_int"; return *this; }
    OpAttrDef &ListInt(std::vector<int64_t> v) {
        kind_ = "list_int";
        def_ = "[";
        for (size_t k = 0; k < v.size(); k++) def_ += (k ? ", " : "") + std::to_string(v[k]);
        def_ += "]";
        return *this;
    }
    OpAttrDef &ListFloat() { kind_ = "list_float"; return *this; }
    OpAttrDef &ListFloat(std::vector<float>) { kind_ = "list_float"; return *this; }
    OpAttrDef &ListBool(std::vector<bool>) { kind_ = "list_bool"; return *this; }
    OpAttrDef &Comment(const char *) { return *this; }
    std::string name_, kind_ = "float", def_ = "null";
    Option type_ = OPTIONAL;

private:
    static std::string number(double v) {
        char b[64];
        std::snprintf(b, sizeof b, "%.17g", v);
        return b;
    }
    static std::string quoted(const char *s) {
        std::string o = "\"";
        for (const char *p = s; *p; p++) {
            if (*p == '"' || *p == '\\') o += '\\';
            o += *p;
        }
        return o + "\"";
    }
};

class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char *) {}
    OpParamDef &Input(const char *name) { return params_.emplace_back(name); }
    OpParamDef &Output(const char *name) { return params_.emplace_back(name); }
    OpAICoreConfig &DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig &DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig &DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig &DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig &NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig &PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig &ExtendCfgInfo(const char *, const char *) { return *this; }
    std::deque<OpParamDef> params_;
};

class OpAICoreDef {
public:
    OpAICoreDef &SetTiling(TilingFunc f) { tiling_ = f; return *this; }
    template <class F> OpAICoreDef &SetTilingParse(F) { return *this; }
    template <class F> OpAICoreDef &SetCheckSupport(F) { return *this; }
    template <class F> OpAICoreDef &SetOpSelectFormat(F) { return *this; }
    template <class F> OpAICoreDef &SetOpSupportInfo(F) { return *this; }
    template <class F> OpAICoreDef &SetOpSpecInfo(F) { return *this; }
    OpAICoreDef &AddConfig(const char *) { return *this; }
    OpAICoreDef &AddConfig(const char *, OpAICoreConfig &) { return *this; }
    TilingFunc tiling_ = nullptr;
};

class OpDef {
public:
    explicit OpDef(const char *name) : name_(name) {}
    virtual ~OpDef() = default;
    OpParamDef &Input(const char *name) { return inputs_.emplace_back(name); }
    OpParamDef &Output(const char *name) { return outputs_.emplace_back(name); }
    OpAttrDef &Attr(const char *name) { return attrs_.emplace_back(name); }
    OpDef &SetInferShape(InferShapeFunc f) { infer_shape_ = f; return *this; }
    OpDef &SetInferDataType(InferDataTypeFunc f) { infer_dtype_ = f; return *this; }
    template <class F> OpDef &SetInferShapeRange(F) { return *this; }
    OpAICoreDef &AICore() { return aicore_; }
    OpDef &MC2() { return *this; }
    OpDef &Comment(const char *) { return *this; }
    std::string name_;
    std::deque<OpParamDef> inputs_, outputs_;
    std::deque<OpAttrDef> attrs_;
    OpAICoreDef aicore_;
    InferShapeFunc infer_shape_ = nullptr;
    InferDataTypeFunc infer_dtype_ = nullptr;
};

}  // namespace ops

namespace ascendc_emu {

inline std::vector<ops::OpDef *> &op_registry() {
    static std::vector<ops::OpDef *> ops;
    return ops;
}

template <class Op> struct OpRegistrar {
    explicit OpRegistrar(const char *name) { op_registry().push_back(new Op(name)); }
};

}  // namespace ascendc_emu

#define OP_ADD(name, ...) static ::ascendc_emu::OpRegistrar<name> ascendc_emu_op_registrar_##name(#name)
namespace ascendc_emu {
inline ops::TilingFunc g_impl_tiling = nullptr;  // a tiling function registered with IMPL_OP_OPTILING
inline std::function<ge::graphStatus()> g_impl_parse;  // its TilingParse, run before it

struct ImplOp {
    ImplOp &Tiling(ops::TilingFunc f) {
        g_impl_tiling = f;
        return *this;
    }
    // TilingParse<CompileInfo>(fn): fn fills the compile info before the tiling runs (TilingContext::GetCompileInfo)
    template <class T> ImplOp &TilingParse(ge::graphStatus (*fn)(gert::TilingParseContext *)) {
        g_impl_parse = [fn] {
            gert::TilingParseContext ctx;
            ctx.GetCompiledInfo<T>();
            return fn(&ctx);
        };
        return *this;
    }
    template <class... T, class... A> ImplOp &TilingParse(A...) { return *this; }
    template <class... A> ImplOp &InferShape(A...) { return *this; }
    template <class... A> ImplOp &InferDataType(A...) { return *this; }
    template <class... A> ImplOp &InferShapeRange(A...) { return *this; }
    template <class... A> ImplOp &InputsDataDependency(A...) { return *this; }
    template <class... A> ImplOp &PrivateAttr(A...) { return *this; }
};
}  // namespace ascendc_emu

#define IMPL_OP(name) static ::ascendc_emu::ImplOp ascendc_emu_impl_op_##name = ::ascendc_emu::ImplOp()
#define IMPL_OP_OPTILING(name) IMPL_OP(name)
#define IMPL_OP_INFERSHAPE(name) static ::ascendc_emu::ImplOp ascendc_emu_impl_infershape_##name = ::ascendc_emu::ImplOp()
