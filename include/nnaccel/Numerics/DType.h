//===- DType.h - The element types of nnaccel -------------------*- C++ -*-===//
//
// One enumeration of element types for the whole toolchain: the ISA's 4-bit
// type fields, the package format's tensor types and the runtime's tensors
// all use it, so a type never changes name or number on its way from the
// compiler to the card. The numbering is the ISA encoding for every type an
// instruction can name (0-15); host-only types (f64, i1) and the rowwise
// embedding-table formats (rw8, rw4) come after 16 and cannot appear in an
// instruction's type field. mxfp8e5m2 (20) is the one type above 15 that a
// card computes with: the 4-bit field was full when it was added, so `mm`
// names it as code 15 (mxfp8e4m3, the same storage) plus its `wvar` bit
// (docs/isa.md §3, §8.6). The package schema's DType enum repeats
// this numbering (Package.fbs).
//
// Storage rules live here too, next to the formats in lib/Numerics that
// define them: bytes per row of n elements (sub-byte types two per byte, the
// first in the low nibble; block types as whole shared-exponent blocks) and
// the element alignment. The ISA verifier, the emulator, the compiler's
// memory planner and the runtime all size memory with these functions.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_DTYPE_H
#define NNACCEL_NUMERICS_DTYPE_H

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace nnaccel {

/// Element types. Values 0-15 are the ISA encoding; do not renumber.
enum class DType : uint8_t {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  I32 = 3,
  I16 = 4,
  I8 = 5,
  U8 = 6,
  I4 = 7,      ///< two per byte, first element in the low nibble
  U4 = 8,      ///< two per byte, first element in the low nibble
  FP8E4M3 = 9, ///< OCP FP8, max 448, no infinities
  FP8E5M2 = 10,
  MSFP8 = 11,  ///< blocks of 16: shared 5-bit exponent, 1 sign + 2 mantissa
  MSFP9 = 12,  ///< blocks of 16: shared 5-bit exponent, 1 sign + 3 mantissa
  MXINT8 = 13, ///< OCP MX: blocks of 32 int8 sharing an E8M0 scale
  I64 = 14,
  MXFP8E4M3 = 15, ///< OCP MX: blocks of 32 fp8 E4M3 sharing an E8M0 scale
  // Host-only types: package and runtime tensors, never instruction fields.
  F64 = 16,
  I1 = 17, ///< one byte per element holding 0 or 1
  // Rowwise-quantized embedding tables (numerics::RowwiseEmbedding.h): a
  // tensor [R, D] is R fused rows of D codes plus the row's scale and bias.
  // Only a table operand of emb.gather (its `fmt` field) reads them.
  RW8 = 18, ///< row: [D x u8][f32 scale][f32 bias], D + 8 bytes
  RW4 = 19, ///< row: [ceil(D/2) bytes of u4][f16 scale][f16 bias]
  /// OCP MX: blocks of 32 fp8 E5M2 sharing an E8M0 scale; mxfp8e4m3's
  /// storage. Only `mm` names it (wt code 15 with wvar = 1).
  MXFP8E5M2 = 20,
  /// Host-only unsigned integers (ONNX UINT16 / UINT32 tensors; the
  /// compiler computes on them in i32 / i64).
  U16 = 21,
  U32 = 22,
};

/// Every element type, in numbering order.
inline constexpr DType AllDTypes[] = {
    DType::F32,       DType::F16,   DType::BF16,  DType::I32,    DType::I16,
    DType::I8,        DType::U8,    DType::I4,    DType::U4,     DType::FP8E4M3,
    DType::FP8E5M2,   DType::MSFP8, DType::MSFP9, DType::MXINT8, DType::I64,
    DType::MXFP8E4M3, DType::F64,   DType::I1,    DType::RW8,    DType::RW4,
    DType::MXFP8E5M2, DType::U16,   DType::U32};

/// Number of types an instruction can name (values 0 .. NumISADTypes - 1).
inline constexpr unsigned NumISADTypes = 16;

/// True for a value that names an element type.
bool isValidDType(unsigned value);
/// True for the types an instruction's 4-bit type field can name.
bool isISADType(DType t);

/// Lower-case name: "f32", "bf16", "i4", "msfp8", "f64", "i1", "rw4", ...;
/// empty for an invalid value.
std::string_view dtypeName(DType t);
/// Inverse of dtypeName.
std::optional<DType> parseDType(std::string_view name);

/// Block size of a block-scaled type (elements sharing one exponent), or 1.
unsigned blockElements(DType t);
/// Bytes of one block (shared exponent + packed elements), or the element size.
unsigned blockBytes(DType t);
/// Whole-byte element size for scalar types (0 for sub-byte and block types).
unsigned elementBytes(DType t);
/// Bits per element (4 for i4/u4; the average, rounded up, for block types;
/// the code bits for rowwise types, whose rows add a scale and a bias).
unsigned elementBits(DType t);
/// Bytes occupied by a dense row of `n` elements (sub-byte types round up to a
/// whole byte; block types require n to be a multiple of the block size and
/// return n / block * blockBytes; rowwise types are one fused row: n + 8 for
/// rw8, ceil(n / 2) + 4 for rw4).
uint64_t rowBytes(DType t, uint64_t n);
/// Required byte alignment of an element address: the element size for
/// 2/4/8-byte scalar types, 1 otherwise.
unsigned elementAlign(DType t);

/// Bytes of a dense row-major tensor of `shape`: every innermost row starts
/// on a whole byte (sub-byte rows round up) and block types pad the innermost
/// dimension to whole blocks. A scalar (empty shape) is one row of one
/// element. nullopt for a negative dimension or on overflow.
std::optional<uint64_t> denseBytes(DType t, const std::vector<int64_t> &shape);

/// f32 f16 bf16 fp8* f64: element-wise floating point. (Inline: the
/// emulator asks per instruction and per row.)
inline bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 ||
         t == DType::FP8E4M3 || t == DType::FP8E5M2 || t == DType::F64;
}
/// msfp8 msfp9 mxint8 mxfp8e4m3 mxfp8e5m2
inline bool isBlock(DType t) {
  return t == DType::MSFP8 || t == DType::MSFP9 || t == DType::MXINT8 ||
         t == DType::MXFP8E4M3 || t == DType::MXFP8E5M2;
}
bool isRowwise(DType t);  ///< rw8 rw4: rowwise-quantized embedding tables
bool isInteger(DType t);  ///< i64 i32 i16 i8 u32 u16 u8 i4 u4 i1
bool isSubByte(DType t);  ///< i4 u4
bool isUnsigned(DType t); ///< u32 u16 u8 u4 i1

} // namespace nnaccel

#endif // NNACCEL_NUMERICS_DTYPE_H
