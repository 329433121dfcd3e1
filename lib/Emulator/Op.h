//===- Op.h - Pre-decoded instructions for execution ------------*- C++ -*-===//
//
// isa::Instruction keeps fields in descriptor order and looks them up by
// name, which is right for tools but too slow to do per executed
// instruction. At load time every instruction is flattened once into an Op
// with named members, so the execution units read plain fields.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_LIB_EMULATOR_OP_H
#define NNACCEL_LIB_EMULATOR_OP_H

#include "nnaccel/ISA/Instruction.h"
#include "nnaccel/ISA/Types.h"

#include <cstdint>

namespace nnaccel::emulator {

/// Memory operands an instruction can have, by role.
enum OperandId : unsigned {
  OpDst,
  OpSrc,
  OpA,
  OpB,
  OpS,
  OpW,
  OpTable,
  OpIdx,
  OpLen,
  OpWts,
  NumOperandIds
};
const char *operandName(OperandId id);

struct MemOperand {
  isa::Space space = isa::Space::Dram;
  uint64_t addr = 0; ///< 0 for register-indirect operands
  uint8_t reg = 0;
  bool present = false;
};

struct Op {
  isa::Opcode opcode = isa::Opcode::Nop;
  uint8_t flags = 0;
  isa::Queue queue = isa::Queue::Ctl; ///< resolved (sync: its target queue)
  MemOperand mem[NumOperandIds];

  isa::DType dt = isa::DType::F32, at = isa::DType::F32, bt = isa::DType::F32,
             wt = isa::DType::F32;
  // Vector shape.
  uint64_t rows = 0, cols = 0, dpitch = 0, apitch = 0, bpitch = 0;
  isa::Bcast bcast = isa::Bcast::None;
  isa::Axis axis = isa::Axis::Cols;
  int64_t imm = 0; ///< f32 bits (vector ops) or signed immediate (scalar)
  int64_t zp = 0;
  bool perch = false;
  // mm.
  uint64_t m = 0, k = 0, n = 0;
  bool accumulate = false;
  int64_t azp = 0;
  // DMA.
  uint64_t x = 0, y = 0, z = 0, sy = 0, sz = 0, dy = 0, dz = 0, spitch = 0;
  uint64_t pt = 0, pb = 0, pl = 0, pr = 0;
  // emb.gather.
  isa::EmbFmt fmt = isa::EmbFmt::F32;
  uint64_t dim = 0, rowbytes = 0, nrows = 0, nseg = 0;
  isa::IdxType ityp = isa::IdxType::I32;
  bool offs = false, weighted = false;
  isa::Pool pool = isa::Pool::None;
  // send/recv.
  uint64_t bytes = 0;
  uint32_t peer = 0, chan = 0;
  // Control.
  unsigned idx = 0, cnt = 0, rd = 0, ra = 0, rb = 0, sh = 0, barrierId = 0;
  uint64_t count = 0;
  int64_t step = 0;
  uint32_t mask = 0;

  bool has(OperandId id) const { return mem[id].present; }
  bool chained() const { return flags & isa::FlagChain; }
};

/// Flattens a (field-range-valid) instruction.
Op decodeOp(const isa::Instruction &inst);

} // namespace nnaccel::emulator

#endif // NNACCEL_LIB_EMULATOR_OP_H
