//===- Decoded.h - Instructions with named, typed fields --------*- C++ -*-===//
//
// isa::Instruction keeps its fields in descriptor order, which suits the
// encoder, assembler and verifier. Everything that *reads* instructions --
// the memory footprints (Operands.h), the emulator's execution units, the
// compiler's dependency tracking -- wants named members instead. decode()
// flattens an instruction once into a DecodedInstruction: every field of
// every opcode has a member of the same name (zero when the opcode has no
// such field), and memory operands are indexed by their role. The mapping is
// generated from Instructions.def, so a new field needs a member here and
// nothing else.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_DECODED_H
#define NNACCEL_ISA_DECODED_H

#include "nnaccel/ISA/Instruction.h"
#include "nnaccel/ISA/Types.h"

#include <cstdint>

namespace nnaccel::isa {

/// Memory operands an instruction can have, by role (the operand names of
/// Instructions.def).
enum class Operand : uint8_t { dst, src, a, b, s, w, table, idx, len, wts };
inline constexpr unsigned NumOperands = 10;
/// "dst", "src", "a", ...
const char *operandName(Operand operand);

/// One memory operand of a decoded instruction.
struct MemOperand {
  Space space = Space::Dram;
  uint64_t addr = 0; ///< 0 for register-indirect operands
  uint8_t reg = 0;   ///< scalar register added to the address
  bool present = false;
};

/// An instruction with one member per field name (see the file comment).
struct DecodedInstruction {
  Opcode opcode = Opcode::Nop;
  uint8_t flags = 0;
  Queue queue = Queue::Ctl; ///< resolved (sync: the queue it names)
  MemOperand mem[NumOperands];

  // Element types.
  DType dt = DType::F32, at = DType::F32, bt = DType::F32, wt = DType::F32;
  // Vector shape and modes.
  uint64_t rows = 0, cols = 0, dpitch = 0, apitch = 0, bpitch = 0;
  Bcast bcast = Bcast::None;
  Axis axis = Axis::Cols;
  int64_t imm = 0; ///< f32 bits (vector ops) or signed immediate (scalar)
  int64_t zp = 0;
  bool perch = false;
  // mm. `wt` is the weight type the unit computes with: mxfp8e5m2 when the
  // word holds wt = mxfp8e4m3 and wvar = 1 (docs/isa.md §8.6).
  uint64_t m = 0, k = 0, n = 0;
  bool acc = false; ///< accumulate into dst
  int64_t azp = 0;
  bool wvar = false; ///< the raw weight element variant bit
  // DMA.
  uint64_t x = 0, y = 0, z = 0, sy = 0, sz = 0, dy = 0, dz = 0, spitch = 0;
  uint64_t pt = 0, pb = 0, pl = 0, pr = 0;
  // emb.gather.
  EmbFmt fmt = EmbFmt::F32;
  uint64_t dim = 0, rowbytes = 0, nrows = 0, nseg = 0;
  IdxType ityp = IdxType::I32;
  bool offs = false, weighted = false;
  Pool pool = Pool::None;
  // send / recv.
  uint64_t bytes = 0;
  uint32_t peer = 0, chan = 0;
  // Control and scalar.
  Queue q = Queue::Ld; ///< sync's field (see `queue` for the resolved one)
  unsigned idx = 0, cnt = 0, rd = 0, ra = 0, rb = 0, sh = 0, id = 0;
  uint64_t count = 0;
  int64_t step = 0;
  uint32_t mask = 0;

  const MemOperand &operand(Operand o) const {
    return mem[static_cast<unsigned>(o)];
  }
  bool has(Operand o) const { return operand(o).present; }
  bool chained() const { return flags & FlagChain; }
};

/// Flattens `inst` (whose fields are within their ranges).
DecodedInstruction decode(const Instruction &inst);

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_DECODED_H
