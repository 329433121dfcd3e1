//===- ElementwiseOps.cpp - elementwise accel op rules --------------------===//
//
// Shape inference and verifiers of the elementwise ops that the TableGen
// classes do not cover: comparisons, select, and clip bounds.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ShapeUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferBroadcastResult(
      location, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
      IntegerType::get(context, 1), inferred);
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  return inferBroadcastResult(location,
                              {adaptor.getCondition().getType(),
                               adaptor.getOnTrue().getType(),
                               adaptor.getOnFalse().getType()},
                              /*resultElementType=*/nullptr, inferred,
                              /*firstValue=*/1);
}

/// Checks that a pair of optional clamp bounds is ordered.
static LogicalResult verifyBounds(Operation *op, std::optional<APFloat> min,
                                  std::optional<APFloat> max, StringRef what) {
  if (min && max && max->compare(*min) == APFloat::cmpLessThan)
    return op->emitOpError()
           << what << " minimum " << min->convertToFloat()
           << " is greater than the maximum " << max->convertToFloat();
  return success();
}

LogicalResult ClipOp::verify() {
  return verifyBounds(*this, getMin(), getMax(), "clip");
}

namespace mlir::nnaccel::accel {
/// Verifies the fused activation attributes shared by fully_connected and
/// conv: clip bounds appear only with `clip`, and at least one is given.
LogicalResult verifyFusedActivation(Operation *op, Activation activation,
                                    std::optional<APFloat> min,
                                    std::optional<APFloat> max) {
  if (activation != Activation::clip) {
    if (min || max)
      return op->emitOpError() << "'activation_min'/'activation_max' require "
                                  "activation = clip, got "
                               << stringifyActivation(activation);
    return success();
  }
  if (!min && !max)
    return op->emitOpError()
           << "activation = clip needs 'activation_min' or 'activation_max'";
  return verifyBounds(op, min, max, "activation");
}
} // namespace mlir::nnaccel::accel
