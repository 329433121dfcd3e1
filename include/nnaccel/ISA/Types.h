//===- Types.h - Enumerated operand types of the soft-NPU ISA --*- C++ -*-===//
//
// The small closed sets an instruction field can name: element types, memory
// spaces, queues and the per-instruction mode enums. Element types are a field
// of each instruction rather than part of the opcode, so one `mm` or `v.add`
// serves every precision. The storage helpers here (bytes per row of a type)
// are the single definition the encoder-independent parts of the toolchain --
// verifier, emulator, compiler memory planner -- use for footprints.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_TYPES_H
#define NNACCEL_ISA_TYPES_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace nnaccel::isa {

/// Element types (4-bit field). Values are the encoding; 15 is invalid.
enum class DType : uint8_t {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  I32 = 3,
  I16 = 4,
  I8 = 5,
  U8 = 6,
  I4 = 7,
  U4 = 8,
  FP8E4M3 = 9,
  FP8E5M2 = 10,
  MSFP8 = 11,
  MSFP9 = 12,
  MXINT8 = 13,
  I64 = 14,
};
inline constexpr unsigned NumDTypes = 15;

/// Memory spaces (3-bit field). `Chain` is the pseudo-space naming the chain
/// pipeline register (see docs/isa.md, "Chains"). 6 and 7 are invalid.
enum class Space : uint8_t {
  Dram = 0,
  Shared = 1,
  Vrf = 2,
  Mrf = 3,
  Acc = 4,
  Chain = 5,
};
inline constexpr unsigned NumSpaces = 6;
/// Real (addressable) spaces, i.e. all but Chain.
inline constexpr unsigned NumMemSpaces = 5;

/// Instruction queues of a core. Ctl is the in-order dispatcher itself.
enum class Queue : uint8_t { Ld = 0, Ex = 1, St = 2, Ctl = 3 };

/// Broadcast mode of the `b` operand of binary vector ops.
enum class Bcast : uint8_t { None = 0, Row = 1, Col = 2, Scalar = 3 };
/// Storage format of an embedding table.
enum class EmbFmt : uint8_t { F32 = 0, F16 = 1, BF16 = 2, RW8 = 3, RW4 = 4 };
/// Pooling of an embedding gather.
enum class Pool : uint8_t { None = 0, Sum = 1, Mean = 2 };
/// Reduction axis: Cols reduces each row to one value, Rows each column.
enum class Axis : uint8_t { Cols = 0, Rows = 1 };
/// Index element type of an embedding gather.
enum class IdxType : uint8_t { I32 = 0, I64 = 1 };

/// Which enumeration an Enum-kind field draws from.
enum class EnumKind : uint8_t {
  None,
  DType,
  Space,
  Queue,
  Bcast,
  EmbFmt,
  Pool,
  Axis,
  IdxType,
};

/// Number of valid values of an enumeration (values are 0..count-1).
unsigned enumCount(EnumKind kind);
/// Assembly name of an enumerator, or empty for an out-of-range value.
std::string_view enumName(EnumKind kind, unsigned value);
/// Inverse of enumName.
std::optional<unsigned> enumValue(EnumKind kind, std::string_view name);

std::string_view dtypeName(DType t);
std::string_view spaceName(Space s);
std::string_view queueName(Queue q);

/// Block size of a block-scaled type (elements sharing one exponent), or 1.
unsigned blockElements(DType t);
/// Bytes of one block (shared exponent + packed elements), or the element size.
unsigned blockBytes(DType t);
/// Bytes occupied by a dense row of `n` elements (sub-byte types round up to a
/// whole byte; block types require n to be a multiple of the block size and
/// return n / block * blockBytes).
uint64_t rowBytes(DType t, uint64_t n);
/// Required byte alignment of an element address: the element size for
/// 2/4/8-byte scalar types, 1 otherwise.
unsigned elementAlign(DType t);
/// Whole-byte element size for scalar types (0 for sub-byte and block types).
unsigned elementBytes(DType t);

bool isFloat(DType t);   // f32 f16 bf16 fp8*: element-wise floating point
bool isBlock(DType t);   // msfp8 msfp9 mxint8
bool isInteger(DType t); // i64 i32 i16 i8 u8 i4 u4
bool isSubByte(DType t); // i4 u4

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_TYPES_H
