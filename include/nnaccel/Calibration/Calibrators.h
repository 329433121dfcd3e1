//===- Calibrators.h - Clipping ranges from value statistics ----*- C++ -*-===//
//
// A calibrator turns what calibration saw of a value (Statistics.h) into the
// range [lo, hi] that quantisation maps onto the integer grid; values
// outside are clipped. Clipping rare outliers buys resolution for the bulk
// of the distribution, at the price of error on the outliers:
//
// - minmax: [min, max]. Nothing is clipped; one outlier sets the scale.
// - percentile: the p-th percentile from the top and from the bottom
//   (p = 99.99 by default), each at the edge of its histogram bin and
//   clipped to [min, max]. With fewer than 100 / (100 - p) values it is
//   minmax.
// - entropy: TensorRT's KL-divergence calibration on the histogram of |x|:
//   the threshold T whose clipped distribution, quantised to `levels`
//   levels (128 for int8), diverges least from the original; the range is
//   [-T, T] clipped to [min, max], so a ReLU's output stays [0, T].
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CALIBRATION_CALIBRATORS_H
#define NNACCEL_CALIBRATION_CALIBRATORS_H

#include "nnaccel/Calibration/Statistics.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::nnaccel::calibration {

enum class CalibratorKind { MinMax, Percentile, Entropy };

/// "minmax", "percentile", "entropy".
StringRef getCalibratorName(CalibratorKind kind);

struct CalibratorOptions {
  CalibratorKind kind = CalibratorKind::Percentile;
  /// percentile: the share of values, in percent, inside the range on
  /// either side; in [50, 100].
  double percentile = 99.99;
  /// entropy: quantisation levels of |x| (128 for int8).
  unsigned levels = 128;
};

struct Range {
  double lo = 0, hi = 0;
};

Range computeMinMaxRange(const ValueStatistics &stats);
Range computePercentileRange(const ValueStatistics &stats, double percentile);
Range computeEntropyRange(const ValueStatistics &stats, unsigned levels);

/// The range `options` asks for; [0, 0] for statistics that saw no value.
Range computeRange(const ValueStatistics &stats,
                   const CalibratorOptions &options);

} // namespace mlir::nnaccel::calibration

#endif // NNACCEL_CALIBRATION_CALIBRATORS_H
