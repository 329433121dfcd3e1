//===- HostOpDescription.h - accel ops as the runtime runs them -*- C++ -*-===//
//
// The one conversion from accel IR to what the runtime's host kernels
// execute: an op's kind, location and attributes in the encoding of
// include/nnaccel/Runtime/HostOp.h, its operands in kernel order (absent
// optional operands kept as holes), tensor types, and constants' bytes in
// the package layout. The package writer stores these descriptions; the
// calibration evaluator (lib/Calibration) runs them in process, so the
// IR that calibration measures is executed exactly as a package would be.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TARGET_HOSTOPDESCRIPTION_H
#define NNACCEL_TARGET_HOSTOPDESCRIPTION_H

#include "nnaccel/Package/Model.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <deque>
#include <vector>

namespace mlir::nnaccel {

namespace accel {
class ConstantOp;
} // namespace accel

/// The package's type of a ranked tensor type (quantized element types
/// carry their parameters). Errors are reported at `loc`.
FailureOr<::nnaccel::package::TensorType> convertTensorType(Type type,
                                                            Location loc);

/// `op`'s kind, location (its NameLoc's name) and attributes in the
/// runtime's encoding; inputs and outputs are left to the caller, who
/// numbers values. Fails, at the op, on an attribute the runtime has no
/// encoding for.
FailureOr<::nnaccel::package::HostOpDesc> describeHostOp(Operation *op);

/// The operands of `op` in the order host kernels take them: a null Value
/// where a segmented op's optional operand is absent.
SmallVector<Value> getHostOpOperands(Operation *op);

/// The bytes of a constant as packages and host kernels lay them out:
/// views of the attribute's or resource blob's data where that layout
/// matches, otherwise (splats, i1, sub-byte types held one per byte) a
/// materialised copy appended to `scratch`, which must outlive the bytes.
FailureOr<ArrayRef<char>>
getConstantBytes(accel::ConstantOp op, std::deque<std::vector<char>> &scratch);

} // namespace mlir::nnaccel

#endif // NNACCEL_TARGET_HOSTOPDESCRIPTION_H
