//===- DeadConstants.h - Erasing what a rewrite left unused -----*- C++ -*-===//
//
// A rewrite that replaces an op by one on converted, quantized, padded or
// sliced copies of its constants leaves the originals unread; they would
// still take package and DRAM space. These erase them, each once however
// often it was listed (erasing an op twice is a use after free).
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_TRANSFORMS_DEADCONSTANTS_H
#define NNACCEL_LIB_TRANSFORMS_DEADCONSTANTS_H

#include "Accel/AccelOps.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::nnaccel {

/// Erases each op of `ops` that nothing uses any more; null and repeated
/// entries are skipped.
inline void eraseUnusedOps(ArrayRef<Operation *> ops) {
  llvm::SmallSetVector<Operation *, 8> unique;
  for (Operation *op : ops)
    if (op)
      unique.insert(op);
  for (Operation *op : unique)
    if (op->use_empty())
      op->erase();
}

/// Erases `op`, then the accel.constants among its operands that nothing
/// else reads.
inline void eraseWithDeadConstants(Operation *op) {
  SmallVector<Operation *, 4> constants;
  for (Value operand : op->getOperands())
    if (auto constant = operand.getDefiningOp<accel::ConstantOp>())
      constants.push_back(constant);
  op->erase();
  eraseUnusedOps(constants);
}

} // namespace mlir::nnaccel

#endif // NNACCEL_LIB_TRANSFORMS_DEADCONSTANTS_H
