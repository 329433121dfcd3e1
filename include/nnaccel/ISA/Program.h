//===- Program.h - A per-core soft-NPU program -----------------*- C++ -*-===//
//
// A Program is what one core runs: the instruction list plus the identity
// recorded in the binary header (card and core). It is the unit the encoder,
// assembler and verifier work on; a card binary is one Program per core.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_PROGRAM_H
#define NNACCEL_ISA_PROGRAM_H

#include "nnaccel/ISA/Instruction.h"

#include <cstdint>
#include <vector>

namespace nnaccel::isa {

/// ISA version implemented by this library (binary header, `.isa` directive).
inline constexpr uint16_t IsaVersionMajor = 1;
inline constexpr uint16_t IsaVersionMinor = 0;

struct Program {
  uint16_t card = 0;
  uint16_t core = 0;
  std::vector<Instruction> instructions;

  bool operator==(const Program &o) const {
    return card == o.card && core == o.core && instructions == o.instructions;
  }
};

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_PROGRAM_H
