//===- ShapeUtils.h - shape helpers for accel verifiers ---------*- C++ -*-===//
//
// Small helpers shared by the accel verifiers and shape inference: axis
// normalisation, shape printing, the output-size formula of windowed ops
// (conv, pooling) and the fused-activation check. Internal to the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_SHAPEUTILS_H
#define NNACCEL_DIALECT_ACCEL_SHAPEUTILS_H

#include "Accel/AccelDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <optional>
#include <string>

namespace mlir::nnaccel::accel {

/// Formats a shape as `2x3x4` (`scalar` for rank 0) for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

/// Maps `axis` in [-rank, rank) to [0, rank); std::nullopt when outside.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Number of elements of a static shape.
int64_t getNumElements(ArrayRef<int64_t> shape);

/// Spatial window parameters of conv and pooling ops.
struct WindowParams {
  ArrayRef<int64_t> kernel;    // k entries
  ArrayRef<int64_t> strides;   // k entries
  ArrayRef<int64_t> pads;      // 2k entries: begins then ends
  ArrayRef<int64_t> dilations; // k entries, or empty for all 1
  bool ceilMode = false;
};

/// Checks the window attributes against `spatialRank` and computes the
/// output spatial sizes for `inputSpatial`. Reports precise errors at
/// `location`.
LogicalResult inferWindowOutput(std::optional<Location> location,
                                ArrayRef<int64_t> inputSpatial,
                                const WindowParams &params,
                                SmallVectorImpl<int64_t> &outputSpatial);

/// Verifies the fused activation attributes shared by fully_connected and
/// conv: clip bounds appear only with `clip`, at least one, and ordered.
LogicalResult verifyFusedActivation(Operation *op, Activation activation,
                                    std::optional<APFloat> min,
                                    std::optional<APFloat> max);

/// Returns the ranked tensor type of `value`'s type, or null.
inline RankedTensorType getRankedType(Type type) {
  return dyn_cast<RankedTensorType>(type);
}

} // namespace mlir::nnaccel::accel

#endif // NNACCEL_DIALECT_ACCEL_SHAPEUTILS_H
