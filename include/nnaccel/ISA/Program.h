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

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::isa {

/// ISA version implemented by this library (binary header, `.isa` directive).
/// 1.1 added `mm`'s wvar bit (MXFP8 with E5M2 weight elements); 1.2 the
/// comparisons v.ceq .. v.cge, the masked select v.sel and v.gelut.
inline constexpr uint16_t IsaVersionMajor = 1;
inline constexpr uint16_t IsaVersionMinor = 2;

/// The lowest minor version whose decoders accept `inst`: 2 for the 1.2
/// opcodes, 1 for an `mm` with wvar set, else 0.
uint16_t requiredMinor(const Instruction &inst);

/// What an instruction needs from a later minor, for diagnostics
/// ("wvar (bit 254)", "opcode 0x53 (v.ceq)"); empty if nothing.
std::string laterMinorFeature(const Instruction &inst);

struct Program {
  uint16_t card = 0;
  uint16_t core = 0;
  std::vector<Instruction> instructions;

  /// The minor version the program was declared with (its binary header or
  /// `.isa` line; 0 for a program built in memory).
  uint16_t isaMinor = 0;

  /// The lowest minor version that covers every instruction.
  uint16_t requiredMinor() const {
    uint16_t minor = 0;
    for (const Instruction &inst : instructions)
      minor = std::max(minor, isa::requiredMinor(inst));
    return minor;
  }
  /// The minor the binary header and the disassembler's `.isa` line record:
  /// the declared one, raised to what the instructions need. Not this
  /// library's minor, so a program that uses no 1.1 field encodes exactly as
  /// under 1.0 (1.0 decoders keep accepting it), and a decoded program
  /// re-encodes to the same bytes.
  uint16_t versionMinor() const { return std::max(isaMinor, requiredMinor()); }

  bool operator==(const Program &o) const {
    return card == o.card && core == o.core &&
           versionMinor() == o.versionMinor() && instructions == o.instructions;
  }
};

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_PROGRAM_H
