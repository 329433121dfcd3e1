//===- Requantize.cpp - int32 accumulator -> int8/uint8 requantisation ----===//
//
// Float and fixed-point requantisation. The fixed-point path reproduces
// gemmlowp's integer arithmetic exactly (including its round-half-away
// rounding) but avoids the signed-overflow UB of the original by widening
// to 64 bits where gemmlowp relies on wrap-around-free ranges.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Requantize.h"

#include <limits>

namespace nnaccel {
namespace numerics {

namespace {
/// roundHalfEven for |t| < 2^23, up to the sign of a zero result: adding
/// and subtracting 2^23 (fp32, round to nearest even, the default and only
/// mode the library runs in) leaves t's nearest integer, ties to even,
/// since every float in [2^23, 2^24) is an integer. A tenth of the cost of
/// floor and fmod, and the integer it gives is the same.
float roundSmallHalfEven(float t) {
  constexpr float Shift = 8388608.0f; // 2^23
  return t >= 0.0f ? (t + Shift) - Shift : (t - Shift) + Shift;
}
} // namespace

int32_t requantizeFloat(int32_t acc, float multiplier, int32_t zeroPoint,
                        QuantRange range) {
  float t = static_cast<float>(acc);
  return requantizeScaled(t * multiplier, zeroPoint, range);
}

int32_t requantizeScaled(float t, int32_t zeroPoint, QuantRange range) {
  // NaN and large values take the general rounding.
  float r =
      std::fabs(t) < 8388608.0f ? roundSmallHalfEven(t) : roundHalfEven(t);
  return saturateToInt(r, range.min - zeroPoint, range.max - zeroPoint) +
         zeroPoint;
}

void requantizeFloatToInt8(Span<const int32_t> acc, float multiplier,
                           int32_t zeroPoint, Span<int8_t> out) {
  assert(acc.size() == out.size());
  for (size_t i = 0, e = acc.size(); i != e; ++i)
    out.data()[i] = static_cast<int8_t>(
        requantizeFloat(acc.data()[i], multiplier, zeroPoint, kInt8Range));
}

void requantizeFloatToUInt8(Span<const int32_t> acc, float multiplier,
                            int32_t zeroPoint, Span<uint8_t> out) {
  assert(acc.size() == out.size());
  for (size_t i = 0, e = acc.size(); i != e; ++i)
    out.data()[i] = static_cast<uint8_t>(
        requantizeFloat(acc.data()[i], multiplier, zeroPoint, kUInt8Range));
}

void requantizeFloatPerChannelToInt8(Span<const int32_t> acc,
                                     Span<const float> multipliers,
                                     size_t innerSize, int32_t zeroPoint,
                                     Span<int8_t> out) {
  assert(acc.size() == out.size() && !multipliers.empty() && innerSize > 0);
  for (size_t i = 0, e = acc.size(); i != e; ++i) {
    float mult = multipliers.data()[(i / innerSize) % multipliers.size()];
    out.data()[i] = static_cast<int8_t>(
        requantizeFloat(acc.data()[i], mult, zeroPoint, kInt8Range));
  }
}

Status quantizeMultiplier(double real, FixedPointMultiplier &out) {
  if (!std::isfinite(real) || real < 0.0)
    return Status::error("requantisation multiplier must be finite and >= 0");
  if (real == 0.0) {
    out = {0, 0};
    return Status::success();
  }
  int shift;
  double q = std::frexp(real, &shift);
  int64_t qFixed = static_cast<int64_t>(std::round(q * (1LL << 31)));
  if (qFixed == (1LL << 31)) {
    qFixed /= 2;
    ++shift;
  }
  if (shift < -31) { // Too small to represent: TFLite flushes to zero.
    out = {0, 0};
    return Status::success();
  }
  if (shift > 31)
    return Status::error("requantisation multiplier too large");
  out = {static_cast<int32_t>(qFixed), shift};
  return Status::success();
}

int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
  // C++ division truncates toward zero, exactly as gemmlowp relies on.
  return static_cast<int32_t>((ab + nudge) / (1LL << 31));
}

int32_t roundingDivideByPOT(int32_t x, int exponent) {
  assert(exponent >= 0 && exponent <= 31);
  int32_t mask = static_cast<int32_t>((1LL << exponent) - 1);
  int32_t remainder = x & mask;
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  // Arithmetic right shift of a negative value is implementation-defined
  // before C++20 but arithmetic on every supported compiler.
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t multiplyByQuantizedMultiplier(int32_t x, FixedPointMultiplier m) {
  int leftShift = m.shift > 0 ? m.shift : 0;
  int rightShift = m.shift > 0 ? 0 : -m.shift;
  int64_t shifted = static_cast<int64_t>(x) * (1LL << leftShift);
  if (shifted > std::numeric_limits<int32_t>::max())
    shifted = std::numeric_limits<int32_t>::max();
  if (shifted < std::numeric_limits<int32_t>::min())
    shifted = std::numeric_limits<int32_t>::min();
  return roundingDivideByPOT(saturatingRoundingDoublingHighMul(
                                 static_cast<int32_t>(shifted), m.multiplier),
                             rightShift);
}

int32_t requantizeFixed(int32_t acc, FixedPointMultiplier m, int32_t zeroPoint,
                        QuantRange range) {
  int64_t v =
      static_cast<int64_t>(multiplyByQuantizedMultiplier(acc, m)) + zeroPoint;
  if (v < range.min)
    return range.min;
  if (v > range.max)
    return range.max;
  return static_cast<int32_t>(v);
}

void requantizeFixedToInt8(Span<const int32_t> acc, FixedPointMultiplier m,
                           int32_t zeroPoint, Span<int8_t> out) {
  assert(acc.size() == out.size());
  for (size_t i = 0, e = acc.size(); i != e; ++i)
    out.data()[i] = static_cast<int8_t>(
        requantizeFixed(acc.data()[i], m, zeroPoint, kInt8Range));
}

void requantizeFixedToUInt8(Span<const int32_t> acc, FixedPointMultiplier m,
                            int32_t zeroPoint, Span<uint8_t> out) {
  assert(acc.size() == out.size());
  for (size_t i = 0, e = acc.size(); i != e; ++i)
    out.data()[i] = static_cast<uint8_t>(
        requantizeFixed(acc.data()[i], m, zeroPoint, kUInt8Range));
}

void requantizeFixedPerChannelToInt8(Span<const int32_t> acc,
                                     Span<const FixedPointMultiplier> ms,
                                     size_t innerSize, int32_t zeroPoint,
                                     Span<int8_t> out) {
  assert(acc.size() == out.size() && !ms.empty() && innerSize > 0);
  for (size_t i = 0, e = acc.size(); i != e; ++i)
    out.data()[i] = static_cast<int8_t>(
        requantizeFixed(acc.data()[i], ms.data()[(i / innerSize) % ms.size()],
                        zeroPoint, kInt8Range));
}

} // namespace numerics
} // namespace nnaccel
