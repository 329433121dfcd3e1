//===- NPUTarget.h - Target descriptions for npu verification ---*- C++ -*-===//
//
// Which target a module is compiled for and an `npu.program` is verified
// against, and loading it. The module's `npu.target` attribute names it:
// every pass that depends on the hardware reads it (accel-set-target or
// nnaccel-compile --target sets it). A target spec is either a bare name,
// looked up as <name>.json in the project's targets/ directory (or
// $NNACCEL_TARGETS_DIR), or a path to a JSON file (anything containing '/' or
// ending in ".json"; relative paths are taken from the working directory).
// Loaded targets are cached for the life of the process, since every
// instruction op's verifier asks for the target of its program.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_NPU_NPUTARGET_H
#define NNACCEL_DIALECT_NPU_NPUTARGET_H

#include "nnaccel/ISA/Target.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::nnaccel::npu {

class ProgramOp;

/// Registers `--npu-target=<spec>`, the target of programs that name none.
/// Tools call this before parsing their command line.
void registerNPUTargetCLOptions();

/// Value of `--npu-target`, or empty if unset or not registered.
std::string getDefaultTargetSpec();

/// File a target spec refers to (see the file comment).
std::string resolveTargetPath(llvm::StringRef spec);

/// Loads (once) and returns the target named by `spec`; on failure returns
/// null and sets `error`. Thread-safe: verifiers run in parallel.
const ::nnaccel::isa::TargetDesc *loadTarget(llvm::StringRef spec,
                                             std::string &error);

/// The target spec that applies to `program`: its `target` attribute, else
/// the `npu.target` attribute of the nearest ancestor, else --npu-target.
/// Empty when there is none.
std::string getTargetSpec(ProgramOp program);

/// The target spec that applies to `op` and the passes compiling it: the
/// `npu.target` attribute of the nearest enclosing op that has one (the
/// module's, normally), else --npu-target, else "default".
std::string getTargetSpecFor(Operation *op);

/// Loads the target that applies to `op` (getTargetSpecFor); on failure
/// emits an error at `op` naming the spec and returns null.
const ::nnaccel::isa::TargetDesc *lookupTarget(Operation *op);

/// A target on which every target-dependent per-instruction rule passes
/// (maximal native dimension, every matrix type, the most cards and cores).
/// verifyInstruction() against it checks exactly the rules that need no
/// target. It must never be used for verifyProgram (its memories are empty).
const ::nnaccel::isa::TargetDesc &getPermissiveTarget();

} // namespace mlir::nnaccel::npu

#endif // NNACCEL_DIALECT_NPU_NPUTARGET_H
