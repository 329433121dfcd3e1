//===- NPUSupport.h - which accel ops the NPU backend lowers ----*- C++ -*-===//
//
// The single answer to "can this op run on the card?", shared by the
// placement pass (which records the answer and its reason in the IR) and the
// lowering (which must honour it).
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CONVERSION_NPUSUPPORT_H
#define NNACCEL_CONVERSION_NPUSUPPORT_H

#include "nnaccel/ISA/Target.h"

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::nnaccel {

/// Returns success when the NPU backend can lower `op` to card code for
/// `target`; otherwise failure with a user-facing reason in `reason`.
LogicalResult canLowerToNPU(Operation *op,
                            const ::nnaccel::isa::TargetDesc &target,
                            std::string &reason);

/// Bytes a densely packed tensor of `type` (a ranked tensor type) takes in
/// card memory.
uint64_t getDenseByteSize(Type type);

/// True for ops whose cost dominates a model (matrix products,
/// convolutions, embedding bags, recurrences): running them on the host
/// deserves a warning.
bool isHeavyOp(Operation *op);

} // namespace mlir::nnaccel

#endif // NNACCEL_CONVERSION_NPUSUPPORT_H
