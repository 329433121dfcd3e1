//===- Statistics.cpp - What calibration records about one value ----------===//
//
// Binning multiplies by the power of two kNumBins / (2 * range), which is
// exact, and floors: a value's bin does not depend on the rounding of a sum,
// so tiny negative values stay left of zero and re-binning an old histogram
// to a wider range gives the counts that binning the values anew would.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Statistics.h"

#include "nnaccel/Numerics/Float16.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel::calibration;
using ::nnaccel::DType;

namespace {
constexpr int64_t kHalf = ValueStatistics::kNumBins / 2;

/// The smallest power of two >= x (x > 0).
double getPowerOfTwoCeil(double x) {
  int exponent;
  double mantissa = std::frexp(x, &exponent);
  return mantissa == 0.5 ? x : std::ldexp(1.0, exponent);
}

bool isPowerOfTwo(double x) {
  int exponent;
  return x > 0 && std::isfinite(x) && std::frexp(x, &exponent) == 0.5;
}

/// `x` in full (formatv's default keeps two decimals).
std::string format(double x) {
  std::string text;
  llvm::raw_string_ostream(text) << x;
  return text;
}

/// floor(a / 2^shift) for any sign of a.
int64_t floorShift(int64_t a, unsigned shift) {
  int64_t d = int64_t(1) << shift;
  return a >= 0 ? a / d : -((-a + d - 1) / d);
}

/// Moves counts binned over [-from, from] into bins over [-to, to]
/// (to / from a power of two >= 1).
std::vector<uint64_t> rebin(ArrayRef<uint64_t> bins, double from, double to) {
  int exponent;
  std::frexp(to / from, &exponent);
  // Past log2(kNumBins) every old bin lands next to zero.
  unsigned shift = std::min<unsigned>(exponent - 1, 40);
  std::vector<uint64_t> result(ValueStatistics::kNumBins, 0);
  for (auto [i, count] : llvm::enumerate(bins))
    if (count)
      result[kHalf + floorShift(int64_t(i) - kHalf, shift)] += count;
  return result;
}
} // namespace

llvm::Expected<ValueStatistics>
ValueStatistics::fromParts(double min, double max, double range,
                           uint64_t nonFinite, std::vector<uint64_t> bins) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (bins.size() != kNumBins)
    return fail(llvm::formatv("the histogram has {0} bins, not {1}",
                              bins.size(), kNumBins));
  ValueStatistics stats;
  stats.nonFinite = nonFinite;
  stats.bins = std::move(bins);
  if (stats.empty()) {
    if (range != 0)
      return fail("the histogram is empty but has a range");
    return stats;
  }
  if (!std::isfinite(min) || !std::isfinite(max) || min > max)
    return fail("min " + format(min) + " and max " + format(max) +
                " are not a range");
  if (!isPowerOfTwo(range) || range < kMinRange)
    return fail("the histogram range " + format(range) +
                " is not a power of two of at least 2^-40");
  if (std::max(-min, max) > range)
    return fail("min " + format(min) + " and max " + format(max) +
                " lie outside the histogram range " + format(range));
  stats.min = min;
  stats.max = max;
  stats.range = range;
  return stats;
}

uint64_t ValueStatistics::getCount() const {
  return std::accumulate(bins.begin(), bins.end(), uint64_t(0));
}

void ValueStatistics::growRange(double absMax) {
  double wanted = std::max(getPowerOfTwoCeil(absMax), kMinRange);
  if (wanted <= range)
    return;
  if (range > 0)
    bins = rebin(bins, range, wanted);
  range = wanted;
}

void ValueStatistics::add(ArrayRef<float> values) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  uint64_t finite = 0;
  for (float x : values) {
    if (!std::isfinite(x))
      continue;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    ++finite;
  }
  nonFinite += values.size() - finite;
  if (!finite)
    return;
  min = std::min<double>(min, lo);
  max = std::max<double>(max, hi);
  growRange(std::max(-double(lo), double(hi)));
  const double scale = kNumBins / (2 * range);
  for (float x : values) {
    if (!std::isfinite(x))
      continue;
    int64_t bin = kHalf + int64_t(std::floor(double(x) * scale));
    ++bins[std::clamp<int64_t>(bin, 0, kNumBins - 1)];
  }
}

void ValueStatistics::add(const ::nnaccel::runtime::Tensor &tensor) {
  size_t count = size_t(tensor.getNumElements());
  switch (tensor.getDType()) {
  case DType::F32:
    add(ArrayRef<float>(tensor.as<float>(), count));
    return;
  case DType::F16:
  case DType::BF16:
  case DType::F64: {
    // Widened in chunks so a large tensor needs no second copy of itself.
    constexpr size_t kChunk = 4096;
    float buffer[kChunk];
    for (size_t begin = 0; begin < count; begin += kChunk) {
      size_t n = std::min(kChunk, count - begin);
      for (size_t i = 0; i < n; ++i) {
        size_t at = begin + i;
        switch (tensor.getDType()) {
        case DType::F16:
          buffer[i] =
              ::nnaccel::numerics::fp16ToFp32(tensor.as<uint16_t>()[at]);
          break;
        case DType::BF16:
          buffer[i] =
              ::nnaccel::numerics::bf16ToFp32(tensor.as<uint16_t>()[at]);
          break;
        default:
          buffer[i] = float(tensor.as<double>()[at]);
          break;
        }
      }
      add(ArrayRef<float>(buffer, n));
    }
    return;
  }
  default:
    return;
  }
}

void ValueStatistics::merge(const ValueStatistics &other) {
  if (other.empty()) {
    nonFinite += other.nonFinite;
    return;
  }
  growRange(other.range);
  std::vector<uint64_t> theirs = rebin(other.bins, other.range, range);
  for (unsigned i = 0; i < kNumBins; ++i)
    bins[i] += theirs[i];
  min = std::min(min, other.min);
  max = std::max(max, other.max);
  nonFinite += other.nonFinite;
}
