// ascendc-cpu: the tiling struct macros, shared by the host (which fills and saves it) and the kernel (which reads
// it with GET_TILING_DATA): one plain struct of the declared fields, in order, saved as its bytes.
#pragma once

#include "ascendc_emu/base.h"

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

inline uint64_t g_tiling_bytes = 0;  // what the host's SetDataSize said the tiling holds

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
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(op, name) using AscendcEmuRegisteredTiling = name;

#define GET_TILING_DATA(var, tiling)                                                                 \
    ::optiling::AscendcEmuRegisteredTiling var;                                                      \
    ::ascendc_emu::load_tiling(&var, reinterpret_cast<const uint8_t *>(tiling), ::ascendc_emu::Loc::here())
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling)                                               \
    type var;                                                                                        \
    ::ascendc_emu::load_tiling(&var, reinterpret_cast<const uint8_t *>(tiling), ::ascendc_emu::Loc::here())
#define GET_TILING_DATA_MEMBER(type, member, var, tiling)                                            \
    decltype(type::member) var;                                                                      \
    std::memcpy(&var, reinterpret_cast<const uint8_t *>(tiling) + offsetof(type, member), sizeof(var))
