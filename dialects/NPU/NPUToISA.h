//===- NPUToISA.h - Conversions between npu IR and lib/ISA ------*- C++ -*-===//
//
// Lossless conversion between `npu.program` ops and `nnaccel::isa::Program`.
// Both directions are table-driven by the ISA's field descriptors (op
// attributes are named after the fields), so they cover every instruction
// without per-op code. These are the only bridge between the dialect and
// lib/ISA: the verifiers, the translations and the emulator front end all go
// through them.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_NPU_NPUTOISA_H
#define NNACCEL_DIALECT_NPU_NPUTOISA_H

#include "NPU/NPUOps.h"

#include "nnaccel/ISA/Program.h"

#include "mlir/IR/Builders.h"
#include "mlir/Support/LogicalResult.h"

#include <string>

namespace mlir::nnaccel::npu {

/// Converts one instruction op. Fails with a message in `error` (and no
/// diagnostic) if `op` is not an instruction op or an attribute is missing or
/// malformed. Field values are copied unchecked; range checks are the ISA's.
LogicalResult toISAInstruction(Operation *op, ::nnaccel::isa::Instruction &inst,
                               std::string &error);

/// As above, emitting the error at `op`.
FailureOr<::nnaccel::isa::Instruction> toISAInstruction(Operation *op);

/// Converts a program; emits an error at the offending op on failure.
FailureOr<::nnaccel::isa::Program> toISAProgram(ProgramOp program);

/// Creates the op for `inst` at the builder's insertion point, or emits an
/// error at `loc` and returns null if a field has no IR form (an enumerator
/// or memory space outside its defined range).
Operation *fromISAInstruction(OpBuilder &builder, Location loc,
                              const ::nnaccel::isa::Instruction &inst);

/// Creates an `npu.program` for `program` at the builder's insertion point.
/// Instruction i gets `instLocs[i]` when given, else `loc`. The symbol is
/// `name`, or getDefaultProgramName(); `target`, when not empty, becomes the
/// program's `target` attribute. Returns null (after emitting an error and
/// erasing the partial op) if an instruction has no IR form.
ProgramOp fromISAProgram(OpBuilder &builder, Location loc,
                         const ::nnaccel::isa::Program &program,
                         ArrayRef<Location> instLocs = {}, StringRef name = {},
                         StringRef target = {});

/// "card<C>_core<K>", the symbol of imported programs.
std::string getDefaultProgramName(unsigned card, unsigned core);

} // namespace mlir::nnaccel::npu

#endif // NNACCEL_DIALECT_NPU_NPUTOISA_H
