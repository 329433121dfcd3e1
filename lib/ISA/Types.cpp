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

constexpr std::array<std::string_view, NumDTypes> DTypeNames = {
    "f32", "f16",     "bf16",    "i32",   "i16",   "i8",     "u8", "i4",
    "u4",  "fp8e4m3", "fp8e5m2", "msfp8", "msfp9", "mxint8", "i64"};
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
    return pick(DTypeNames, value);
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

std::string_view dtypeName(DType t) {
  return enumName(EnumKind::DType, static_cast<unsigned>(t));
}
std::string_view spaceName(Space s) {
  return enumName(EnumKind::Space, static_cast<unsigned>(s));
}
std::string_view queueName(Queue q) {
  return enumName(EnumKind::Queue, static_cast<unsigned>(q));
}

unsigned blockElements(DType t) {
  switch (t) {
  case DType::MSFP8:
  case DType::MSFP9:
    return 16;
  case DType::MXINT8:
    return 32;
  default:
    return 1;
  }
}

unsigned blockBytes(DType t) {
  switch (t) {
  case DType::MSFP8:
  case DType::MSFP9:
    return 1 + 8; // exponent byte + 16 sign-magnitude nibbles
  case DType::MXINT8:
    return 1 + 32; // E8M0 scale byte + 32 int8 elements
  default:
    return elementBytes(t);
  }
}

unsigned elementBytes(DType t) {
  switch (t) {
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::I8:
  case DType::U8:
  case DType::FP8E4M3:
  case DType::FP8E5M2:
    return 1;
  case DType::I4:
  case DType::U4:
  case DType::MSFP8:
  case DType::MSFP9:
  case DType::MXINT8:
    return 0;
  }
  return 0;
}

uint64_t rowBytes(DType t, uint64_t n) {
  if (isSubByte(t))
    return (n + 1) / 2;
  if (isBlock(t))
    return (n / blockElements(t)) * blockBytes(t);
  return n * elementBytes(t);
}

unsigned elementAlign(DType t) {
  unsigned b = elementBytes(t);
  return b == 0 ? 1 : b;
}

bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 ||
         t == DType::FP8E4M3 || t == DType::FP8E5M2;
}
bool isBlock(DType t) {
  return t == DType::MSFP8 || t == DType::MSFP9 || t == DType::MXINT8;
}
bool isSubByte(DType t) { return t == DType::I4 || t == DType::U4; }
bool isInteger(DType t) { return !isFloat(t) && !isBlock(t); }

} // namespace nnaccel::isa
