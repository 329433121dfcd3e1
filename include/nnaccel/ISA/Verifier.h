//===- Verifier.h - Static checks of soft-NPU programs ---------*- C++ -*-===//
//
// The verifier is the contract between the compiler and the hardware: a
// program it accepts cannot fault on field ranges, operand spaces and types,
// memory bounds or alignment, chain structure, loop nesting, use of undefined
// scalar registers or on-chip memory, or dependency-token deadlock/imbalance.
// It checks per-instruction rules statically, then dispatches the program
// (the scalar/loop unit is data-independent, so effective addresses are exact)
// while simulating the token FIFOs between the load, compute and store queues.
// The MLIR `npu` dialect calls verifyInstruction() from its op verifiers.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_VERIFIER_H
#define NNACCEL_ISA_VERIFIER_H

#include "nnaccel/ISA/Error.h"
#include "nnaccel/ISA/Instruction.h"
#include "nnaccel/ISA/Program.h"
#include "nnaccel/ISA/Target.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace nnaccel::isa {

struct Diagnostic {
  enum class Severity { Error, Warning };
  /// Instruction index the message is about, or NoIndex for the whole program.
  static constexpr size_t NoIndex = std::numeric_limits<size_t>::max();
  size_t index = NoIndex;
  Severity severity = Severity::Error;
  std::string message;

  /// "instruction 12 (dma.ld): message" or "program: message".
  std::string str(const Program *program = nullptr) const;
};

struct VerifyOptions {
  /// Dispatch budget for the dynamic phase (bounds, definedness, tokens).
  /// Past it the verifier stops with a warning rather than taking unbounded
  /// time on very long-running programs.
  uint64_t maxDispatched = uint64_t(1) << 22;
  /// On-chip bytes that hold data when the program starts: [begin, end)
  /// ranges of a core memory (vrf, mrf, acc) another program loaded before
  /// it, such as the MRF tiles a setup program pins.
  struct Range {
    Space space;
    uint64_t begin, end;
  };
  std::vector<Range> preloaded;
};

/// Context-free checks of one instruction against a target: field ranges,
/// operand spaces, element types, shapes, queue/flag legality. `card`/`core`
/// identify the program for barrier/send checks.
Error verifyInstruction(const Instruction &inst, const TargetDesc &target,
                        unsigned card = 0, unsigned core = 0);

/// Full verification. Returns all diagnostics (errors and warnings), in
/// instruction order within each phase; the program is valid iff no
/// diagnostic has Severity::Error.
std::vector<Diagnostic> verifyProgram(const Program &program,
                                      const TargetDesc &target,
                                      const VerifyOptions &options = {});

/// True iff `diags` contains no error.
bool succeeded(const std::vector<Diagnostic> &diags);

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_VERIFIER_H
