//===- EltwiseBroadcast.h - Broadcasts as repeated row blocks ---*- C++ -*-===//
//
// The elementwise kernels (ElementwiseKernels.cpp) stream a binary op's
// output as rows x cols with the broadcast operand b as one row reused by
// every row (Row), one value per row (Col) or a block of rows reused
// cyclically (Block). getBroadcastPattern reduces any numpy broadcast of
// one operand to such an inner problem repeated over outer loops: the
// dimensions are grouped into runs where b is broadcast or not, the two
// innermost runs give the inner problem and each outer run is a loop whose
// b stride is 0 (broadcast) or the b elements inside it. (std::vector, not
// SmallVector: the unit tests build this without libLLVMSupport.)
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_ELTWISEBROADCAST_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_ELTWISEBROADCAST_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::nnaccel::npu_lowering {

/// One outer loop of a broadcast: `count` repetitions of the inner problem
/// (of everything inside it), b advancing `bStride` elements each.
struct BroadcastLoop {
  int64_t count = 1, bStride = 0;
};

/// A broadcast of b against the output as `loops` (outermost first) around
/// an inner rows x cols problem: `innerRow` when b is one row of `cols`
/// reused by all `rows` rows, else one value per row (b[rows], reused
/// along the `cols` columns).
struct BroadcastPattern {
  bool innerRow = true;
  int64_t rows = 1, cols = 1;
  std::vector<BroadcastLoop> loops;
};

/// The pattern of an operand of shape `operand` broadcast (numpy rules,
/// ranks aligned at the right) to `out`; nullopt when it is not a
/// broadcast of it, or when b is the whole output or a single element
/// (the callers' same-shape and scalar cases).
std::optional<BroadcastPattern>
getBroadcastPattern(llvm::ArrayRef<int64_t> operand,
                    llvm::ArrayRef<int64_t> out);

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_ELTWISEBROADCAST_H
