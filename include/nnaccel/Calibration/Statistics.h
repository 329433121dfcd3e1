//===- Statistics.h - What calibration records about one value --*- C++ -*-===//
//
// Per value, over every calibration sample: the minimum, the maximum and a
// histogram of the finite elements, from which the calibrators
// (Calibrators.h) choose a clipping range.
//
// The histogram has kNumBins bins over [-range, range], where range is the
// smallest power of two that covers every |x| seen so far (at least
// kMinRange). When a later sample (or a merged statistics object) needs a
// larger range, the bins are re-binned to it: since both ranges are powers
// of two, every old bin falls into exactly one new bin, so counts stay exact
// integers and the result does not depend on the order in which samples
// arrive or statistics are merged (samples evaluated on re-imports of a
// model at other input shapes merge into the same value). The price is
// resolution: the values' absolute maximum lies in the upper half of the
// range, so between kNumBins / 4 and kNumBins / 2 bins cover [0, |x|max] --
// as many as TensorRT's 2048-bin |x| histogram in the worst case, twice
// that at best.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CALIBRATION_STATISTICS_H
#define NNACCEL_CALIBRATION_STATISTICS_H

#include "nnaccel/Runtime/Tensor.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace mlir::nnaccel::calibration {

class ValueStatistics {
public:
  /// Bins of the histogram over [-range, range]; bin i holds the values in
  /// [(i - kNumBins / 2) * w, (i - kNumBins / 2 + 1) * w) with
  /// w = 2 * range / kNumBins (the last bin also holds x = range).
  static constexpr unsigned kNumBins = 4096;
  /// The smallest range, used while every value seen is (nearly) zero.
  static constexpr double kMinRange = 0x1p-40;

  ValueStatistics() : bins(kNumBins, 0) {}

  /// Statistics read back from a profile. Fails when the parts are
  /// inconsistent: min > max, a range that is not a power of two at least
  /// kMinRange, values outside [-range, range], counts without values (or
  /// the reverse), or a histogram of another size.
  static llvm::Expected<ValueStatistics> fromParts(double min, double max,
                                                   double range,
                                                   uint64_t nonFinite,
                                                   std::vector<uint64_t> bins);

  /// Adds the finite elements of `values`; NaNs and infinities are only
  /// counted (getNonFinite).
  void add(ArrayRef<float> values);
  /// Adds the elements of a float tensor (f32, f16, bf16 or f64).
  void add(const ::nnaccel::runtime::Tensor &tensor);
  /// Adds everything `other` has seen.
  void merge(const ValueStatistics &other);

  /// True until a finite value has been added.
  bool empty() const { return getCount() == 0; }
  /// The number of finite values seen.
  uint64_t getCount() const;
  uint64_t getNonFinite() const { return nonFinite; }
  double getMin() const { return min; }
  double getMax() const { return max; }
  /// Half the width of the histogram (0 while empty).
  double getRange() const { return range; }
  double getBinWidth() const { return 2 * range / kNumBins; }
  ArrayRef<uint64_t> getBins() const { return bins; }

  bool operator==(const ValueStatistics &other) const {
    return min == other.min && max == other.max && range == other.range &&
           nonFinite == other.nonFinite && bins == other.bins;
  }

private:
  /// Widens the histogram to the power of two covering `absMax`.
  void growRange(double absMax);

  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double range = 0;
  uint64_t nonFinite = 0;
  std::vector<uint64_t> bins;
};

} // namespace mlir::nnaccel::calibration

#endif // NNACCEL_CALIBRATION_STATISTICS_H
