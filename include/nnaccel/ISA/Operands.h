//===- Operands.h - Memory footprints of instructions ----------*- C++ -*-===//
//
// Which bytes of which memory an instruction reads and writes, given the
// scalar register values at dispatch. The verifier uses it for bounds,
// alignment and definedness checks; the emulator's cycle model can use it to
// count bytes moved. Footprints are bounding ranges [start, end): a strided
// operand covers everything from its first to its last byte.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_OPERANDS_H
#define NNACCEL_ISA_OPERANDS_H

#include "nnaccel/ISA/Decoded.h"
#include "nnaccel/ISA/Instruction.h"

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace nnaccel::isa {

using ScalarRegs = std::array<int64_t, 32>;

struct MemAccess {
  const char *operand; ///< operand name ("src", "dst", "a", ...)
  Space space;
  int64_t start; ///< effective byte address (may be negative: invalid)
  int64_t end;   ///< one past the last byte
  bool read;
  bool write;
  unsigned align; ///< element alignment the address must satisfy
  unsigned reg;   ///< scalar register added to the address (0: none)
  bool exact;     ///< false when the extent depends on memory contents
  /// The bytes inside [start, end) a DMA's DRAM/SHARED side really touches
  /// when they are not all of them: `rowBytes` at start + p * planePitch +
  /// r * rowPitch for p < planes, r < rows. rowBytes 0: all of [start, end)
  /// (every other operand, whose footprint is its bounding range). The race
  /// detector uses it so that cores writing interleaved columns of one
  /// tensor do not look like they write the same bytes.
  uint64_t planes = 1, planePitch = 0, rows = 1, rowPitch = 0, rowBytes = 0;
};

/// Memory accesses of `inst` (chain operands excluded). Effective addresses
/// use `sregs`.
std::vector<MemAccess> memoryAccesses(const DecodedInstruction &inst,
                                      const ScalarRegs &sregs);
/// The same into `out` (cleared first; its capacity is reused).
void memoryAccesses(const DecodedInstruction &inst, const ScalarRegs &sregs,
                    std::vector<MemAccess> &out);
/// The same for an instruction not yet decoded.
std::vector<MemAccess> memoryAccesses(const Instruction &inst,
                                      const ScalarRegs &sregs);

/// (rows, cols) of the value an EX instruction produces -- what it forwards
/// along a chain -- or (0, 0) for instructions that produce none.
std::pair<uint64_t, uint64_t> resultShape(const DecodedInstruction &inst);
std::pair<uint64_t, uint64_t> resultShape(const Instruction &inst);

/// The value a scalar ALU instruction (s.li, s.addi, s.muli, s.add, s.sub,
/// s.mul, s.shli, s.shri) writes to its `rd`, given the register values
/// before it (arithmetic wraps modulo 2^64); nullopt for other opcodes.
std::optional<int64_t> scalarResult(const DecodedInstruction &inst,
                                    const ScalarRegs &sregs);

/// Memory space of the named memory operand (e.g. "a"), if the opcode has it.
std::optional<Space> operandSpace(const Instruction &inst, const char *operand);

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_OPERANDS_H
