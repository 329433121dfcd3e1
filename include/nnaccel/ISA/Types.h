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

#include "nnaccel/Numerics/DType.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace nnaccel::isa {

/// Element types: the toolchain-wide enumeration (Numerics/DType.h), whose
/// values 0-15 are the 4-bit encoding of the type fields (host-only types
/// such as f64 cannot be encoded).
using ::nnaccel::DType;
inline constexpr unsigned NumDTypes = ::nnaccel::NumISADTypes;

/// `mm`'s weight element variant (the `wvar` bit, ISA 1.1). The 4-bit type
/// field was full when MXFP8 with E5M2 elements was added, so `mm` names it
/// as wt = mxfp8e4m3 (code 15: the same 33-byte blocks) with wvar = 1; the
/// bit is defined for that code only (the verifier rejects it elsewhere).
/// mmWeightType gives the type the matrix unit computes with; wvar = 1 with
/// another code leaves that code (an invalid instruction).
inline DType mmWeightType(DType wtField, bool wvar) {
  return wvar && wtField == DType::MXFP8E4M3 ? DType::MXFP8E5M2 : wtField;
}
/// The 4-bit code that names `t`'s storage in a type field: `t` itself for
/// the ISA types, mxfp8e4m3 for mxfp8e5m2 (same blocks; only mm's wvar tells
/// them apart, so a DMA moves E5M2 blocks as mxfp8e4m3). Other types have no
/// code and are returned unchanged (the encoder rejects them).
inline DType storageCode(DType t) {
  return t == DType::MXFP8E5M2 ? DType::MXFP8E4M3 : t;
}
/// True for the types `mm` accepts in `wt` (and core.macs_per_cycle lists):
/// every 4-bit code and mxfp8e5m2.
inline bool isMmWeightType(DType t) {
  return static_cast<unsigned>(t) < NumDTypes || t == DType::MXFP8E5M2;
}

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

using ::nnaccel::dtypeName;
std::string_view spaceName(Space s);
std::string_view queueName(Queue q);

// Storage rules of the element types (Numerics/DType.h): the verifier, the
// emulator and the compiler's memory planner size operands with these.
using ::nnaccel::blockBytes;
using ::nnaccel::blockElements;
using ::nnaccel::elementAlign;
using ::nnaccel::elementBytes;
using ::nnaccel::isBlock;
using ::nnaccel::isFloat;
using ::nnaccel::isInteger;
using ::nnaccel::isSubByte;
using ::nnaccel::rowBytes;

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_TYPES_H
