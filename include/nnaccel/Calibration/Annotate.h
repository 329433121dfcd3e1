//===- Annotate.h - Calibrated ranges into the IR ---------------*- C++ -*-===//
//
// The contract between calibration and the quantisation pass: the range a
// calibrator chooses for a value is written into the IR as
// `accel.range = array<f64: lo, hi>` -- a discardable attribute on every op
// with a single float result, an argument attribute on every float
// argument of the function. Nothing else changes.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CALIBRATION_ANNOTATE_H
#define NNACCEL_CALIBRATION_ANNOTATE_H

#include "nnaccel/Calibration/Calibrators.h"
#include "nnaccel/Calibration/Profile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::nnaccel::calibration {

/// Sets `accel.range` on the profiled values of `func` (ValueKey.h): the
/// range `options` computes from their statistics in `profile`. Values the
/// profile saw nothing of (no statistics, or no finite element) are left
/// without and warned about once. Returns how many values were annotated.
unsigned annotateRanges(func::FuncOp func, const Profile &profile,
                        const CalibratorOptions &options);

} // namespace mlir::nnaccel::calibration

#endif // NNACCEL_CALIBRATION_ANNOTATE_H
