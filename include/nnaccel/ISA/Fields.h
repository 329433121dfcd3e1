//===- Fields.h - Field indices of every instruction ------------*- C++ -*-===//
//
// For each opcode, an enumeration of its fields in descriptor order,
// generated from Instructions.def: `field::Mm::k` is the index of mm's `k`
// in Instruction::fields, `field::DmaLd::src_addr` that of dma.ld's
// `src.addr`. The typed builders (Builders.h) and the decoder (Decoded.h)
// address fields through these, so a field that an instruction does not
// have is a compile error rather than a run-time lookup that can miss.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_FIELDS_H
#define NNACCEL_ISA_FIELDS_H

#include "nnaccel/ISA/Instruction.h"

namespace nnaccel::isa::field {

#define NNACCEL_INST(Name, Op, Mn, Q, Fields)                                  \
  struct Name {                                                                \
    enum : unsigned { Fields NumFields };                                      \
  };
// Each family's shared field list too (field::VectorBinary::bcast, ...).
#define NNACCEL_FAMILY(Name, Fields)                                           \
  struct Name {                                                                \
    enum : unsigned { Fields NumFields };                                      \
  };
#define NNACCEL_MEM(n) n##_space, n##_addr, n##_reg,
#define NNACCEL_MEMR(n) n##_space, n##_reg,
#define NNACCEL_SREG(n) n,
#define NNACCEL_DT(n) n,
#define NNACCEL_PE(n, w, E) n,
#define NNACCEL_U(n, w) n,
#define NNACCEL_S(n, w) n,
#define NNACCEL_E(n, w, E) n,
#define NNACCEL_F32(n) n,
#include "nnaccel/ISA/Instructions.def"

// Every instruction's fields fit the field array of an Instruction.
#define NNACCEL_INST(Name, Op, Mn, Q, Fields)                                  \
  static_assert(Name::NumFields <= MaxFields, #Name " has too many fields");
#include "nnaccel/ISA/Instructions.def"

} // namespace nnaccel::isa::field

namespace nnaccel::isa {

/// The instruction families of Instructions.def: members share one field
/// list.
enum class Family : uint8_t {
  None,
#define NNACCEL_FAMILY(Name, Fields) Name,
#include "nnaccel/ISA/Instructions.def"
};

/// The family `op` belongs to (Family::None for other instructions).
constexpr Family familyOf(Opcode op) {
  switch (op) {
#define NNACCEL_FAMILY_INST(Name, Op, Mn, Q, F)                                \
  case Opcode::Name:                                                           \
    return Family::F;
#include "nnaccel/ISA/Instructions.def"
  default:
    return Family::None;
  }
}

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_FIELDS_H
