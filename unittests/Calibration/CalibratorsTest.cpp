//===- CalibratorsTest.cpp - Statistics and calibrators on known data -----===//
//
// Synthetic distributions whose ranges are known in closed form: uniform,
// Gaussian with far outliers, one-sided (ReLU-like); plus the histogram's
// exactness under re-binning and merging, which lets samples arrive in any
// order.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Calibrators.h"

#include "nnaccel/Numerics/Float16.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace mlir::nnaccel::calibration;
using Catch::Matchers::WithinAbs;

namespace {
/// `count` values evenly spread over [lo, hi], both ends included.
std::vector<float> uniform(float lo, float hi, size_t count) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = float(lo + (hi - lo) * double(i) / double(count - 1));
  return values;
}

/// `count` standard normal values (Box-Muller on a fixed-seed mt19937,
/// reproducible on every platform).
std::vector<float> gaussian(size_t count, uint32_t seed = 1) {
  std::mt19937 engine(seed);
  auto unit = [&] { return (double(engine()) + 0.5) / 4294967296.0; };
  std::vector<float> values;
  while (values.size() < count) {
    double r = std::sqrt(-2 * std::log(unit())), phi = 2 * M_PI * unit();
    values.push_back(float(r * std::cos(phi)));
    values.push_back(float(r * std::sin(phi)));
  }
  values.resize(count);
  return values;
}

ValueStatistics statsOf(const std::vector<float> &values) {
  ValueStatistics stats;
  stats.add(values);
  return stats;
}
} // namespace

TEST_CASE("statistics: min, max, count and a power-of-two range",
          "[calibration]") {
  ValueStatistics stats;
  CHECK(stats.empty());
  stats.add(std::vector<float>{-0.75f, 3.0f, NAN, INFINITY, 1.0f});
  CHECK(stats.getMin() == -0.75);
  CHECK(stats.getMax() == 3.0);
  CHECK(stats.getCount() == 3);
  CHECK(stats.getNonFinite() == 2);
  CHECK(stats.getRange() == 4.0);
  // A value exactly at a power of two keeps it as the range.
  CHECK(statsOf({-2.0f, 1.0f}).getRange() == 2.0);
  // Tiny negative values stay left of zero.
  ValueStatistics tiny = statsOf({-1e-30f, 1.0f});
  CHECK(tiny.getBins()[ValueStatistics::kNumBins / 2 - 1] == 1);
}

TEST_CASE("statistics: re-binning and merging are exact and order-free",
          "[calibration]") {
  std::vector<float> small = uniform(-0.3f, 0.2f, 1001);
  std::vector<float> large = gaussian(5000);
  for (float &x : large)
    x *= 40;
  std::vector<float> all = small;
  all.insert(all.end(), large.begin(), large.end());

  ValueStatistics together = statsOf(all);
  ValueStatistics smallFirst = statsOf(small);
  smallFirst.add(large);
  ValueStatistics largeFirst = statsOf(large);
  largeFirst.add(small);
  ValueStatistics merged = statsOf(small);
  merged.merge(statsOf(large));
  ValueStatistics mergedBack = statsOf(large);
  mergedBack.merge(statsOf(small));
  CHECK(smallFirst == together);
  CHECK(largeFirst == together);
  CHECK(merged == together);
  CHECK(mergedBack == together);
  CHECK(together.getCount() == all.size());
}

TEST_CASE("statistics: half-precision tensors", "[calibration]") {
  using namespace ::nnaccel;
  runtime::Tensor tensor =
      runtime::Tensor::allocate(runtime::TensorDesc(DType::F16, {3}));
  uint16_t *data = tensor.mutableAs<uint16_t>();
  data[0] = numerics::fp32ToFp16(-1.5f);
  data[1] = numerics::fp32ToFp16(0.25f);
  data[2] = numerics::fp32ToFp16(6.0f);
  ValueStatistics stats;
  stats.add(tensor);
  CHECK(stats.getMin() == -1.5);
  CHECK(stats.getMax() == 6.0);
  CHECK(stats.getCount() == 3);
}

TEST_CASE("statistics from parts are checked", "[calibration]") {
  std::vector<uint64_t> bins(ValueStatistics::kNumBins, 0);
  bins[3000] = 5;
  CHECK(bool(ValueStatistics::fromParts(0.5, 1.0, 2.0, 0, bins)));
  auto expectError = [](llvm::Expected<ValueStatistics> stats) {
    bool failed = !stats;
    llvm::consumeError(stats.takeError());
    return failed;
  };
  CHECK(expectError(ValueStatistics::fromParts(1.0, 0.5, 2.0, 0, bins)));
  CHECK(expectError(ValueStatistics::fromParts(0.5, 1.0, 3.0, 0, bins)));
  CHECK(expectError(ValueStatistics::fromParts(0.5, 4.0, 2.0, 0, bins)));
  CHECK(expectError(ValueStatistics::fromParts(0.5, 1.0, 2.0, 0, {1, 2})));
  std::vector<uint64_t> empty(ValueStatistics::kNumBins, 0);
  CHECK(expectError(ValueStatistics::fromParts(0, 0, 2.0, 0, empty)));
}

TEST_CASE("uniform: every calibrator keeps (nearly) the whole range",
          "[calibration]") {
  ValueStatistics stats = statsOf(uniform(-1, 1, 1000001));
  Range minmax = computeMinMaxRange(stats);
  CHECK(minmax.lo == -1.0);
  CHECK(minmax.hi == 1.0);
  // 0.01 % of the values lie beyond +-0.9998 on either side; the range
  // ends on a bin edge (bins are 2 / 4096 wide).
  Range percentile = computePercentileRange(stats, 99.99);
  CHECK_THAT(percentile.lo, WithinAbs(-0.9998, 1e-3));
  CHECK_THAT(percentile.hi, WithinAbs(0.9998, 1e-3));
  // Clipping a flat distribution only loses information.
  Range entropy = computeEntropyRange(stats, 128);
  CHECK(entropy.lo <= -0.99);
  CHECK(entropy.hi >= 0.99);
}

TEST_CASE("gaussian with outliers: percentile and entropy clip them",
          "[calibration]") {
  std::vector<float> values = gaussian(1000000);
  for (int i = 0; i < 5; ++i) {
    values.push_back(50);
    values.push_back(-50);
  }
  ValueStatistics stats = statsOf(values);
  Range minmax = computeMinMaxRange(stats);
  CHECK(minmax.lo == -50.0);
  CHECK(minmax.hi == 50.0);
  // The 99.99th percentile of N(0, 1) is 3.719: the range ends on the edge
  // of a bin 128 / 4096 wide, and a million samples put about 100 values
  // beyond it (a standard error of about 0.025).
  Range percentile = computePercentileRange(stats, 99.99);
  CHECK_THAT(percentile.lo, WithinAbs(-3.719, 0.1));
  CHECK_THAT(percentile.hi, WithinAbs(3.719, 0.1));
  // KL calibration of a Gaussian for 128 levels clips a few sigma out:
  // symmetric, far inside the outliers.
  Range entropy = computeEntropyRange(stats, 128);
  CHECK(entropy.hi >= 3.0);
  CHECK(entropy.hi <= 6.0);
  CHECK(entropy.lo == -entropy.hi);
  // The default options pick the percentile calibrator.
  Range chosen = computeRange(stats, CalibratorOptions());
  CHECK(chosen.lo == percentile.lo);
  CHECK(chosen.hi == percentile.hi);
}

TEST_CASE("one-sided (ReLU-like) values keep a zero lower bound",
          "[calibration]") {
  std::vector<float> values = gaussian(400000, 7);
  for (float &x : values)
    x = std::max(x, 0.0f);
  ValueStatistics stats = statsOf(values);
  for (CalibratorKind kind :
       {CalibratorKind::MinMax, CalibratorKind::Percentile,
        CalibratorKind::Entropy}) {
    CalibratorOptions options;
    options.kind = kind;
    Range range = computeRange(stats, options);
    INFO(getCalibratorName(kind).str());
    CHECK(range.lo == 0.0);
    CHECK(range.hi > 2.5);
    CHECK(range.hi <= stats.getMax());
  }
  CHECK(computeEntropyRange(stats, 128).hi < stats.getMax());
}

TEST_CASE("few values: percentile is minmax; no values: an empty range",
          "[calibration]") {
  ValueStatistics stats = statsOf(gaussian(5000));
  Range percentile = computePercentileRange(stats, 99.99);
  CHECK(percentile.lo == stats.getMin());
  CHECK(percentile.hi == stats.getMax());
  Range empty = computeRange(ValueStatistics(), CalibratorOptions());
  CHECK(empty.lo == 0.0);
  CHECK(empty.hi == 0.0);
}
