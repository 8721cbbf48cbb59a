// ascendc-cpu: the tiling struct macros, shared by the host (which fills and saves it) and the kernel (which reads
// it with GET_TILING_DATA): one plain struct of the declared fields, in order, saved as its bytes.
#pragma once

#include "ascendc_emu/base.h"
#include "ascendc_emu/softmax_tiling.h"  // a tiling struct may hold one

namespace ascendc_emu {

template <class D> struct TilingDef {
    void SaveToBuffer(void *buf, size_t cap) const {
        if (buf == nullptr || cap < sizeof(D)) {
            throw Fault{kError, "SaveToBuffer: the tiling struct (" + std::to_string(sizeof(D)) +
                                    " bytes) does not fit the raw tiling buffer (" + std::to_string(cap) + " bytes)"};
        }
        std::memcpy(buf, static_cast<const D *>(this), sizeof(D));
    }
    size_t GetDataSize() const { return sizeof(D); }
};

inline uint64_t g_tiling_bytes = 0;

template <int line> struct KeyTag {};

// "<Op>_<digits>": a registration for one tiling key
constexpr bool keyed_registration(const char *op) {
    int n = 0, digits = 0;
    while (op[n] != 0) n++;
    while (digits < n && op[n - 1 - digits] >= '0' && op[n - 1 - digits] <= '9') digits++;
    return digits > 0 && digits < n && op[n - 1 - digits] == '_';
}  // what the host's SetDataSize said the tiling holds

template <class D> inline void load_tiling(D *out, const uint8_t *tiling, const Loc &loc) {
    if (tiling == nullptr) fail(kError, loc, "GET_TILING_DATA: the launch has no tiling");
    gm_check(tiling, sizeof(D), false, "GET_TILING_DATA", loc);
    std::memcpy(static_cast<void *>(out), tiling, sizeof(D));
}

}  // namespace ascendc_emu

#define BEGIN_TILING_DATA_DEF(name) struct name : public ::ascendc_emu::TilingDef<name> {
#define TILING_DATA_FIELD_DEF(type, field)                                                          \
    type field{};                                                                                   \
    void set_##field(type v) { field = v; }                                                         \
    type get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_ARR(type, n, field)                                                   \
    type field[n]{};                                                                                \
    void set_##field(const type *v) { std::memcpy(field, v, sizeof(field)); }                       \
    const type *get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_STRUCT(stype, field) stype field{};
#define END_TILING_DATA_DEF };  // with its own semicolon: headers write it with one and without
// <Op> registers the operator's struct (what GET_TILING_DATA reads), <Op>_<tiling key> the struct of one tiling key
// (kernels read those with GET_TILING_DATA_WITH_STRUCT): each registration declares a function whose return type is
// its struct, the operator's own taking KeyTag<0> and every keyed one a tag of its own line
#define REGISTER_TILING_DATA_CLASS(op, name)                                                          \
    auto ascendc_emu_registered_tiling(                                                               \
        ::ascendc_emu::KeyTag<::ascendc_emu::keyed_registration(#op) ? __LINE__ : 0>)->name;

#define GET_TILING_DATA(var, tiling)                                                                 \
    decltype(::optiling::ascendc_emu_registered_tiling(::ascendc_emu::KeyTag<0>{})) var;                                                      \
    ::ascendc_emu::load_tiling(&var, reinterpret_cast<const uint8_t *>(tiling), ::ascendc_emu::Loc::here())
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling)                                               \
    type var;                                                                                        \
    ::ascendc_emu::load_tiling(&var, reinterpret_cast<const uint8_t *>(tiling), ::ascendc_emu::Loc::here())
#define GET_TILING_DATA_MEMBER(type, member, var, tiling)                                            \
    decltype(type::member) var;                                                                      \
    std::memcpy(&var, reinterpret_cast<const uint8_t *>(tiling) + offsetof(type, member), sizeof(var))
