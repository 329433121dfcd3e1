//===- SplitRule.h - how an accel op divides across cores -------*- C++ -*-===//
//
// A SplitRule is one way to compute an op's result in pieces: cut the
// result along `resultAxis` into consecutive ranges, and give each piece
// the matching range of every operand that has the axis (operandAxes) and
// the whole of every other operand. Pieces are independent ops, so they can
// run on different cores; accel-split-ops picks a rule per op from the
// target's core count and a cost model (docs/passes.md).
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_SPLITRULE_H
#define NNACCEL_DIALECT_ACCEL_SPLITRULE_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::nnaccel::accel {

enum class SplitKind {
  /// Pieces share every weight and divide the activations (rows, batch,
  /// spatial positions, channels of a depthwise op).
  DataParallel,
  /// Pieces divide a weight (output columns, output channels): each core
  /// streams only its part of the weights.
  ModelParallel,
};

struct SplitRule {
  /// The axis of result 0 that is cut (-1 for a reduction rule).
  int64_t resultAxis = 0;
  /// For each operand, the axis cut alongside the result (same extents),
  /// -1 when every piece reads the whole operand, or kFirstPieceOnly.
  SmallVector<int64_t> operandAxes;
  /// The result is not cut: the operand axes cut the dimension the op sums
  /// over, every piece computes a partial result of the full shape, and
  /// SplitOpInterface::buildReductionJoin adds them up.
  bool reduction = false;
  SplitKind kind = SplitKind::DataParallel;
  /// Piece extents along the axis are multiples of this.
  int64_t alignment = 1;
};

/// In SplitRule::operandAxes of a reduction rule: only the first piece
/// reads the operand (an optional one, such as a bias to add once); the
/// others go without it.
constexpr int64_t kFirstPieceOnly = -2;

/// Adds up the partial results of a reduction split (a chain of
/// accel.add), the default SplitOpInterface::buildReductionJoin.
Value buildSumOfPartials(OpBuilder &builder, Location loc, ValueRange partials);

/// Rules cutting `axis` of an elementwise result whose operands broadcast
/// to it numpy-style (trailing dimensions align; a size-1 or missing
/// dimension is read whole).
SplitRule getBroadcastSplitRule(Operation *op, int64_t axis);

/// The default piece builder: `op` with `operands` and result type
/// `resultType`, every attribute kept.
Operation *buildSplitPieceByCloning(OpBuilder &builder, Operation *op,
                                    ValueRange operands, Type resultType);

} // namespace mlir::nnaccel::accel

#endif // NNACCEL_DIALECT_ACCEL_SPLITRULE_H
