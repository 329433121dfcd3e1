//===- NPUOps.h - npu operations --------------------------------*- C++ -*-===//
//
// Declares `npu.program` and the instruction ops, and the trait that marks
// an op as an instruction and verifies it through lib/ISA. The trait is the
// single hook for per-instruction verification so the ~50 generated op
// classes need no hand-written C++.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_NPU_NPUOPS_H
#define NNACCEL_DIALECT_NPU_NPUOPS_H

#include "NPU/NPUDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::nnaccel::npu {

namespace detail {
/// Converts `op` to an ISA instruction and runs the ISA's per-instruction
/// checks against the enclosing program's target (or, without one, the
/// target-independent checks).
LogicalResult verifyInstructionOp(Operation *op);
} // namespace detail

/// Trait of every instruction op (one per ISA instruction).
template <typename ConcreteType>
class InstructionOpTrait
    : public OpTrait::TraitBase<ConcreteType, InstructionOpTrait> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return detail::verifyInstructionOp(op);
  }
};

/// True if `op` is an npu instruction op.
inline bool isInstructionOp(Operation *op) {
  return op->hasTrait<InstructionOpTrait>();
}

} // namespace mlir::nnaccel::npu

#define GET_OP_CLASSES
#include "NPU/NPUOps.h.inc"

#endif // NNACCEL_DIALECT_NPU_NPUOPS_H
