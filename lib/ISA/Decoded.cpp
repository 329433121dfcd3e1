//===- Decoded.cpp - Instructions with named, typed fields ----------------===//
//
// decode() is generated from Instructions.def: one case per opcode that
// copies each field into the member of the same name through the opcode's
// field indices (Fields.h).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Decoded.h"
#include "nnaccel/ISA/Fields.h"

namespace nnaccel::isa {

const char *operandName(Operand operand) {
  static const char *const Names[NumOperands] = {
      "dst", "src", "a", "b", "s", "w", "table", "idx", "len", "wts"};
  return Names[static_cast<unsigned>(operand)];
}

DecodedInstruction decode(const Instruction &inst) {
  DecodedInstruction d;
  d.opcode = inst.opcode;
  d.flags = inst.flags;
  const auto &f = inst.fields;
  auto operand = [&d](Operand o) -> MemOperand & {
    return d.mem[static_cast<unsigned>(o)];
  };
  switch (inst.opcode) {
#define NNACCEL_INST(Name, Op, Mn, Q, Fields)                                  \
  case Opcode::Name: {                                                         \
    using F [[maybe_unused]] = field::Name;                                    \
    Fields break;                                                              \
  }
#define NNACCEL_MEM(n)                                                         \
  operand(Operand::n) = {static_cast<Space>(f[F::n##_space]),                  \
                         static_cast<uint64_t>(f[F::n##_addr]),                \
                         static_cast<uint8_t>(f[F::n##_reg] & 31), true};
#define NNACCEL_MEMR(n)                                                        \
  operand(Operand::n) = {static_cast<Space>(f[F::n##_space]), 0,               \
                         static_cast<uint8_t>(f[F::n##_reg] & 31), true};
#define NNACCEL_FIELD_TO_MEMBER(n) d.n = static_cast<decltype(d.n)>(f[F::n]);
#define NNACCEL_SREG(n) d.n = static_cast<unsigned>(f[F::n] & 31);
#define NNACCEL_DT(n) NNACCEL_FIELD_TO_MEMBER(n)
#define NNACCEL_PE(n, w, E) NNACCEL_FIELD_TO_MEMBER(n)
#define NNACCEL_U(n, w) NNACCEL_FIELD_TO_MEMBER(n)
#define NNACCEL_S(n, w) NNACCEL_FIELD_TO_MEMBER(n)
#define NNACCEL_E(n, w, E) NNACCEL_FIELD_TO_MEMBER(n)
#define NNACCEL_F32(n) NNACCEL_FIELD_TO_MEMBER(n)
#include "nnaccel/ISA/Instructions.def"
#undef NNACCEL_FIELD_TO_MEMBER
  }
  d.wt = mmWeightType(d.wt, d.wvar);
  d.queue = inst.opcode == Opcode::Sync ? d.q : inst.desc().queue;
  return d;
}

} // namespace nnaccel::isa
