//===- EltwiseBroadcast.h - Broadcasts as repeated row blocks ---*- C++ -*-===//
//
// The elementwise kernels (ElementwiseKernels.cpp) stream a binary op's
// output as rows x cols with the full operand a and the broadcast operand b
// as one row reused by every row (Row), one value per row (Col) or a block
// of rows reused cyclically (Block). getBroadcastPattern reduces any numpy
// broadcast of the two operands to such an inner problem repeated over
// outer loops: the output's dimensions are grouped into runs where the
// same operands are broadcast, the two innermost runs give the inner
// problem (when one of them broadcasts neither operand, the other one's
// broadcast operand is b; when each broadcasts one, an outer product, b
// has one value per row and a is one row that every row repeats) and each
// outer run is a loop in which a and b advance by the elements inside it,
// or stay where they are (stride 0) when the run broadcasts them. (std::vector,
// not SmallVector: the unit tests build this without libLLVMSupport.)
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
/// (of everything inside it), a and b advancing `aStride` and `bStride`
/// elements each (the output always advances by what is inside).
struct BroadcastLoop {
  int64_t count = 1, aStride = 0, bStride = 0;
};

/// A broadcast as `loops` (outermost first) around an inner rows x cols
/// problem over a: `innerRow` when b is one row of `cols` reused by all
/// `rows` rows, else one value per row (b[rows], reused along the `cols`
/// columns). `aIsRow`: a too is one row of `cols` that every row repeats
/// (an outer product, with b per row). `bIsLhs`: b is the op's first
/// operand.
struct BroadcastPattern {
  bool innerRow = true, aIsRow = false, bIsLhs = false;
  int64_t rows = 1, cols = 1;
  std::vector<BroadcastLoop> loops;
};

/// The pattern of a binary op of shapes `lhs` and `rhs` (numpy rules, ranks
/// aligned at the right) with result shape `out`; nullopt when the shapes
/// do not broadcast to `out` or when no operand is broadcast (same shapes).
std::optional<BroadcastPattern>
getBroadcastPattern(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                    llvm::ArrayRef<int64_t> out);

/// The pattern of an operand of shape `operand` broadcast to `out` against
/// an operand of that shape (so b is `operand`, a the whole output).
inline std::optional<BroadcastPattern>
getBroadcastPattern(llvm::ArrayRef<int64_t> operand,
                    llvm::ArrayRef<int64_t> out) {
  return getBroadcastPattern(out, operand, out);
}

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_ELTWISEBROADCAST_H
