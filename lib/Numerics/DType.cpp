//===- DType.cpp - The element types of nnaccel ---------------------------===//
//
// Names and storage rules of every element type (see DType.h). The block
// sizes and byte counts must agree with how BlockFloat.cpp, Mx.cpp and
// Affine.cpp pack the formats; the emulator's tests check that they do.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/DType.h"

#include <limits>

namespace nnaccel {

namespace {

struct DTypeInfo {
  DType type;
  std::string_view name;
  unsigned bits; ///< element bits; for block types the block's bits / size
};

constexpr DTypeInfo Infos[] = {{DType::F32, "f32", 32},
                               {DType::F16, "f16", 16},
                               {DType::BF16, "bf16", 16},
                               {DType::I32, "i32", 32},
                               {DType::I16, "i16", 16},
                               {DType::I8, "i8", 8},
                               {DType::U8, "u8", 8},
                               {DType::I4, "i4", 4},
                               {DType::U4, "u4", 4},
                               {DType::FP8E4M3, "fp8e4m3", 8},
                               {DType::FP8E5M2, "fp8e5m2", 8},
                               {DType::MSFP8, "msfp8", 5},
                               {DType::MSFP9, "msfp9", 5},
                               {DType::MXINT8, "mxint8", 9},
                               {DType::I64, "i64", 64},
                               {DType::MXFP8E4M3, "mxfp8e4m3", 9},
                               {DType::F64, "f64", 64},
                               {DType::I1, "i1", 8},
                               {DType::RW8, "rw8", 8},
                               {DType::RW4, "rw4", 4},
                               {DType::MXFP8E5M2, "mxfp8e5m2", 9},
                               {DType::U16, "u16", 16},
                               {DType::U32, "u32", 32}};

const DTypeInfo *info(DType t) {
  for (const DTypeInfo &i : Infos)
    if (i.type == t)
      return &i;
  return nullptr;
}

} // namespace

bool isValidDType(unsigned value) {
  return value <= 0xFF && info(static_cast<DType>(value)) != nullptr;
}

bool isISADType(DType t) { return static_cast<unsigned>(t) < NumISADTypes; }

std::string_view dtypeName(DType t) {
  const DTypeInfo *i = info(t);
  return i ? i->name : std::string_view();
}

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo &i : Infos)
    if (i.name == name)
      return i.type;
  return std::nullopt;
}

unsigned blockElements(DType t) {
  switch (t) {
  case DType::MSFP8:
  case DType::MSFP9:
    return 16;
  case DType::MXINT8:
  case DType::MXFP8E4M3:
  case DType::MXFP8E5M2:
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
  case DType::MXFP8E4M3:
  case DType::MXFP8E5M2:
    return 1 + 32; // E8M0 scale byte + 32 int8 / fp8 elements
  default:
    return elementBytes(t);
  }
}

unsigned elementBytes(DType t) {
  switch (t) {
  case DType::I64:
  case DType::F64:
    return 8;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::I8:
  case DType::U8:
  case DType::FP8E4M3:
  case DType::FP8E5M2:
  case DType::I1:
    return 1;
  case DType::I4:
  case DType::U4:
  case DType::MSFP8:
  case DType::MSFP9:
  case DType::MXINT8:
  case DType::MXFP8E4M3:
  case DType::MXFP8E5M2:
  case DType::RW8:
  case DType::RW4:
    return 0;
  }
  return 0;
}

unsigned elementBits(DType t) {
  const DTypeInfo *i = info(t);
  return i ? i->bits : 0;
}

uint64_t rowBytes(DType t, uint64_t n) {
  // The fused row layouts of RowwiseEmbedding.h (fusedRowBytes): codes,
  // then scale and bias. Rows are not padded: emb.gather reads a row at
  // any byte address.
  if (t == DType::RW8)
    return n + 8;
  if (t == DType::RW4)
    return (n + 1) / 2 + 4;
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

std::optional<uint64_t> denseBytes(DType t, const std::vector<int64_t> &shape) {
  if (!info(t))
    return std::nullopt;
  constexpr uint64_t Max = std::numeric_limits<int64_t>::max();
  uint64_t inner = 1, outer = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return std::nullopt;
    uint64_t dim = static_cast<uint64_t>(shape[i]);
    if (i + 1 == shape.size()) {
      inner = dim;
      break;
    }
    if (dim != 0 && outer > Max / dim)
      return std::nullopt;
    outer *= dim;
  }
  if (isBlock(t)) {
    uint64_t block = blockElements(t);
    if (inner > Max - block)
      return std::nullopt;
    inner = (inner + block - 1) / block * block;
  } else if (!isSubByte(t) && inner > Max / 8) {
    return std::nullopt;
  }
  uint64_t row = rowBytes(t, inner);
  if (row != 0 && outer > Max / row)
    return std::nullopt;
  return outer * row;
}

bool isRowwise(DType t) { return t == DType::RW8 || t == DType::RW4; }
bool isSubByte(DType t) { return t == DType::I4 || t == DType::U4; }
bool isInteger(DType t) {
  return info(t) && !isFloat(t) && !isBlock(t) && !isRowwise(t);
}
bool isUnsigned(DType t) {
  return t == DType::U8 || t == DType::U4 || t == DType::I1 ||
         t == DType::U16 || t == DType::U32;
}

} // namespace nnaccel
