//===- Types.cpp - Enumerated operand types of the soft-NPU ISA -----------===//
//
// Names of the enumerations used in assembly and the storage rules of each
// element type. The storage rules (docs/isa.md, "Element types") are what the
// verifier uses to compute operand footprints, so they must agree with how
// lib/Numerics packs the formats.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Types.h"

#include <array>

namespace nnaccel::isa {

namespace {

constexpr std::array<std::string_view, NumSpaces> SpaceNames = {
    "dram", "shared", "vrf", "mrf", "acc", "chain"};
constexpr std::array<std::string_view, 4> QueueNames = {"ld", "ex", "st",
                                                        "ctl"};
constexpr std::array<std::string_view, 4> BcastNames = {"none", "row", "col",
                                                        "scalar"};
constexpr std::array<std::string_view, 5> EmbFmtNames = {"f32", "f16", "bf16",
                                                         "rw8", "rw4"};
constexpr std::array<std::string_view, 3> PoolNames = {"none", "sum", "mean"};
constexpr std::array<std::string_view, 2> AxisNames = {"cols", "rows"};
constexpr std::array<std::string_view, 2> IdxTypeNames = {"i32", "i64"};

template <size_t N>
std::string_view pick(const std::array<std::string_view, N> &names,
                      unsigned v) {
  return v < N ? names[v] : std::string_view();
}

} // namespace

unsigned enumCount(EnumKind kind) {
  switch (kind) {
  case EnumKind::None:
    return 0;
  case EnumKind::DType:
    return NumDTypes;
  case EnumKind::Space:
    return NumSpaces;
  case EnumKind::Queue:
    return QueueNames.size();
  case EnumKind::Bcast:
    return BcastNames.size();
  case EnumKind::EmbFmt:
    return EmbFmtNames.size();
  case EnumKind::Pool:
    return PoolNames.size();
  case EnumKind::Axis:
    return AxisNames.size();
  case EnumKind::IdxType:
    return IdxTypeNames.size();
  }
  return 0;
}

std::string_view enumName(EnumKind kind, unsigned value) {
  switch (kind) {
  case EnumKind::None:
    return {};
  case EnumKind::DType:
    return value < NumDTypes ? dtypeName(static_cast<DType>(value))
                             : std::string_view();
  case EnumKind::Space:
    return pick(SpaceNames, value);
  case EnumKind::Queue:
    return pick(QueueNames, value);
  case EnumKind::Bcast:
    return pick(BcastNames, value);
  case EnumKind::EmbFmt:
    return pick(EmbFmtNames, value);
  case EnumKind::Pool:
    return pick(PoolNames, value);
  case EnumKind::Axis:
    return pick(AxisNames, value);
  case EnumKind::IdxType:
    return pick(IdxTypeNames, value);
  }
  return {};
}

std::optional<unsigned> enumValue(EnumKind kind, std::string_view name) {
  unsigned n = enumCount(kind);
  for (unsigned v = 0; v < n; ++v)
    if (enumName(kind, v) == name)
      return v;
  return std::nullopt;
}

std::string_view spaceName(Space s) {
  return enumName(EnumKind::Space, static_cast<unsigned>(s));
}
std::string_view queueName(Queue q) {
  return enumName(EnumKind::Queue, static_cast<unsigned>(q));
}

} // namespace nnaccel::isa
