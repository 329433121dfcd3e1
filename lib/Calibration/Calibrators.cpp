//===- Calibrators.cpp - Clipping ranges from value statistics ------------===//
//
// The entropy calibrator follows TensorRT's description ("8-bit Inference
// with TensorRT", GTC 2017) as pytorch-quantization implements it: for each
// candidate number of |x| bins i >= levels, P is the first i bins with
// everything beyond added to the last, Q is those i bins merged into
// `levels` groups, each group's count spread evenly over its non-empty bins
// (P's), and the KL divergence of P from Q decides; a Q that is zero where P
// is not is no candidate. The threshold is the upper edge of the chosen
// bins. The first bin counts like the second (see below). Sums over a group use
// prefix sums of c, c log c and non-empty bins, so a candidate costs O(levels),
// not O(i).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Calibrators.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::nnaccel::calibration;

StringRef mlir::nnaccel::calibration::getCalibratorName(CalibratorKind kind) {
  switch (kind) {
  case CalibratorKind::MinMax:
    return "minmax";
  case CalibratorKind::Percentile:
    return "percentile";
  case CalibratorKind::Entropy:
    return "entropy";
  }
  llvm_unreachable("unknown calibrator");
}

Range mlir::nnaccel::calibration::computeMinMaxRange(
    const ValueStatistics &stats) {
  if (stats.empty())
    return {};
  return {stats.getMin(), stats.getMax()};
}

Range mlir::nnaccel::calibration::computePercentileRange(
    const ValueStatistics &stats, double percentile) {
  if (stats.empty())
    return {};
  ArrayRef<uint64_t> bins = stats.getBins();
  const double inside = percentile / 100 * double(stats.getCount());
  const double width = stats.getBinWidth(), range = stats.getRange();
  Range result = computeMinMaxRange(stats);
  // hi: the upper edge of the first bin by which `inside` values lie below.
  double below = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    below += double(bins[i]);
    if (below >= inside) {
      result.hi = std::min(result.hi, -range + double(i + 1) * width);
      break;
    }
  }
  // lo: the lower edge of the first bin, from the top, by which `inside`
  // values lie above.
  double above = 0;
  for (size_t i = bins.size(); i-- > 0;) {
    above += double(bins[i]);
    if (above >= inside) {
      result.lo = std::max(result.lo, -range + double(i) * width);
      break;
    }
  }
  result.lo = std::min(result.lo, result.hi);
  return result;
}

Range mlir::nnaccel::calibration::computeEntropyRange(
    const ValueStatistics &stats, unsigned levels) {
  if (stats.empty())
    return {};
  // The |x| histogram: bins over [0, range], mirrored halves added.
  ArrayRef<uint64_t> bins = stats.getBins();
  const size_t half = bins.size() / 2;
  std::vector<double> counts(half);
  for (size_t j = 0; j < half; ++j)
    counts[j] = double(bins[half + j]) + double(bins[half - 1 - j]);
  // A spike at zero (a ReLU's output is half zeros) would dominate the
  // divergence and favour thresholds that give zero a level of its own;
  // like pytorch-quantization, weigh the first bin like its neighbour.
  if (half > 1)
    counts[0] = counts[1];
  size_t used = half;
  while (used > 0 && counts[used - 1] == 0)
    --used;

  double threshold = std::max(-stats.getMin(), stats.getMax());
  if (used > levels) {
    // Prefix sums over [0, j): counts, non-empty bins, c log c.
    std::vector<double> sum(used + 1, 0), nonEmpty(used + 1, 0),
        plogp(used + 1, 0);
    for (size_t j = 0; j < used; ++j) {
      double c = counts[j];
      sum[j + 1] = sum[j] + c;
      nonEmpty[j + 1] = nonEmpty[j] + (c > 0);
      plogp[j + 1] = plogp[j] + (c > 0 ? c * std::log(c) : 0);
    }
    const double total = sum[used];
    double best = std::numeric_limits<double>::infinity();
    size_t bestBins = used;
    for (size_t i = levels; i <= used; ++i) {
      const double outliers = total - sum[i];
      const double last = counts[i - 1] + outliers;
      // sum p log p and sum p log q over P's non-empty bins.
      double pLogP = plogp[i - 1] + (last > 0 ? last * std::log(last) : 0);
      double pLogQ = 0;
      bool finite = true;
      for (unsigned g = 0; g < levels && finite; ++g) {
        size_t begin = g * i / levels, end = (g + 1) * i / levels;
        double groupCount = sum[end] - sum[begin];
        double groupBins = nonEmpty[end] - nonEmpty[begin];
        double groupP = groupCount;
        if (end == i && outliers > 0) {
          groupP += outliers;
          groupBins += counts[i - 1] == 0;
        }
        if (groupP == 0)
          continue;
        if (groupCount == 0) {
          finite = false;
          break;
        }
        pLogQ += groupP * std::log(groupCount / groupBins);
      }
      if (!finite)
        continue;
      double divergence = (pLogP - pLogQ) / total + std::log(sum[i] / total);
      // Among equals, the widest range: it clips least.
      if (divergence <= best) {
        best = divergence;
        bestBins = i;
      }
    }
    threshold = double(bestBins) * stats.getBinWidth();
  }
  Range result{std::max(-threshold, stats.getMin()),
               std::min(threshold, stats.getMax())};
  // Values all beyond the threshold on one side (e.g. all in [5, 6] with
  // T = 4) leave nothing to clip to: keep them whole.
  if (result.lo > result.hi)
    return computeMinMaxRange(stats);
  return result;
}

Range mlir::nnaccel::calibration::computeRange(
    const ValueStatistics &stats, const CalibratorOptions &options) {
  switch (options.kind) {
  case CalibratorKind::MinMax:
    return computeMinMaxRange(stats);
  case CalibratorKind::Percentile:
    return computePercentileRange(stats, options.percentile);
  case CalibratorKind::Entropy:
    return computeEntropyRange(stats, options.levels);
  }
  llvm_unreachable("unknown calibrator");
}
