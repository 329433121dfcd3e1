//===- RequantizeTest.cpp - int32 -> 8-bit requantisation tests -----------===//
//
// Float-multiplier ties and saturation, gemmlowp/TFLite fixed-point
// arithmetic against an exact int64 model, QuantizeMultiplier, and the
// agreement between the two schemes.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Requantize.h"

#include <catch2/catch.hpp>

#include <random>

using namespace nnaccel::numerics;

namespace {
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// Exact model: SRDHM = round-half-up(x * M / 2^31), then divide by 2^r
/// rounding half away from zero.
int32_t modelFixed(int32_t x, FixedPointMultiplier m) {
  int64_t xs = static_cast<int64_t>(x) * (int64_t{1} << std::max(m.shift, 0));
  xs = std::min<int64_t>(std::max<int64_t>(xs, INT32_MIN), INT32_MAX);
  int64_t prod = xs * m.multiplier;
  int64_t h = floorDiv(prod + (1LL << 30), 1LL << 31);
  int r = std::max(-m.shift, 0);
  if (r == 0)
    return static_cast<int32_t>(h);
  int64_t half = 1LL << (r - 1);
  int64_t mag = (std::llabs(h) + half) >> r;
  return static_cast<int32_t>(h < 0 ? -mag : mag);
}
} // namespace

TEST_CASE("float requantisation rounds half to even", "[requant]") {
  CHECK(requantizeFloat(5, 0.5f, 0, kInt8Range) == 2);   // 2.5 -> 2
  CHECK(requantizeFloat(7, 0.5f, 0, kInt8Range) == 4);   // 3.5 -> 4
  CHECK(requantizeFloat(-5, 0.5f, 0, kInt8Range) == -2); // -2.5 -> -2
  CHECK(requantizeFloat(-7, 0.5f, 0, kInt8Range) == -4);
  CHECK(requantizeFloat(6, 0.5f, 10, kInt8Range) == 13);
  CHECK(requantizeFloat(1000, 1.0f, 0, kInt8Range) == 127);
  CHECK(requantizeFloat(-1000, 1.0f, 0, kInt8Range) == -128);
  CHECK(requantizeFloat(-1000, 1.0f, 128, kUInt8Range) == 0);
  CHECK(requantizeFloat(100, 1.0f, 200, kUInt8Range) == 255);
  CHECK(requantizeFloat(INT32_MAX, 1.0f, 0, kInt8Range) == 127);
  CHECK(requantizeFloat(INT32_MIN, 1.0f, 0, kInt8Range) == -128);
  CHECK(requantizeFloat(5, NAN, 3, kInt8Range) == 3);
  // int32 -> fp32 conversion rounds to nearest even first: 2^24 + 3 -> 2^24
  // + 4.
  CHECK(requantizeFloat(16777219, 1.0f, 0, QuantRange{INT32_MIN, INT32_MAX}) ==
        16777220);
  CHECK(requantizeFloat(16777217, 1.0f, 0, QuantRange{INT32_MIN, INT32_MAX}) ==
        16777216);
  std::vector<int32_t> acc = {5, 7, 1000, -1000};
  std::vector<int8_t> o8(4);
  std::vector<uint8_t> u8(4);
  requantizeFloatToInt8(acc, 0.5f, -1, o8);
  CHECK(o8 == std::vector<int8_t>{1, 3, 127, -128});
  requantizeFloatToUInt8(acc, 0.5f, 128, u8);
  CHECK(u8 == std::vector<uint8_t>{130, 132, 255, 0});
  std::vector<float> mults = {0.5f, 0.25f};
  requantizeFloatPerChannelToInt8(acc, mults, 2, 0, o8);
  CHECK(o8 == std::vector<int8_t>{2, 4, 127, -128});
  std::vector<int32_t> acc2 = {8, 8, 8, 8};
  requantizeFloatPerChannelToInt8(acc2, mults, 1, 0, o8);
  CHECK(o8 == std::vector<int8_t>{4, 2, 4, 2});
}

TEST_CASE("quantizeMultiplier matches TFLite", "[requant]") {
  FixedPointMultiplier m;
  REQUIRE(quantizeMultiplier(0.5, m).ok());
  CHECK(m.multiplier == (1 << 30));
  CHECK(m.shift == 0);
  REQUIRE(quantizeMultiplier(0.25, m).ok());
  CHECK(m.multiplier == (1 << 30));
  CHECK(m.shift == -1);
  REQUIRE(quantizeMultiplier(1.0, m).ok());
  CHECK(m.shift == 1);
  REQUIRE(quantizeMultiplier(0.75, m).ok());
  CHECK(m.multiplier == 1610612736);
  // q rounds up to 2^31: renormalised.
  REQUIRE(quantizeMultiplier(std::nextafter(1.0, 0.0), m).ok());
  CHECK(m.multiplier == (1 << 30));
  CHECK(m.shift == 1);
  REQUIRE(quantizeMultiplier(0.0, m).ok());
  CHECK(m.multiplier == 0);
  REQUIRE(quantizeMultiplier(1e-12, m).ok());
  CHECK(m.multiplier == 0);
  CHECK(m.shift == 0);
  CHECK_FALSE(quantizeMultiplier(-0.5, m).ok());
  CHECK_FALSE(quantizeMultiplier(NAN, m).ok());
  CHECK_FALSE(quantizeMultiplier(INFINITY, m).ok());
  CHECK_FALSE(quantizeMultiplier(1e10, m).ok());
}

TEST_CASE("gemmlowp primitives", "[requant]") {
  CHECK(saturatingRoundingDoublingHighMul(INT32_MIN, INT32_MIN) == INT32_MAX);
  CHECK(saturatingRoundingDoublingHighMul(1 << 30, 1 << 30) == 1 << 29);
  // Ties: +0.5 -> 1, -0.5 -> 0, -1.5 -> -1 (toward +inf).
  CHECK(saturatingRoundingDoublingHighMul(1, 1 << 30) == 1);
  CHECK(saturatingRoundingDoublingHighMul(-1, 1 << 30) == 0);
  CHECK(saturatingRoundingDoublingHighMul(-3, 1 << 30) == -1);
  // RoundingDivideByPOT rounds half away from zero.
  CHECK(roundingDivideByPOT(3, 1) == 2);
  CHECK(roundingDivideByPOT(-3, 1) == -2);
  CHECK(roundingDivideByPOT(5, 2) == 1);   // 1.25
  CHECK(roundingDivideByPOT(-6, 2) == -2); // -1.5
  CHECK(roundingDivideByPOT(-5, 2) == -1); // -1.25
  CHECK(roundingDivideByPOT(INT32_MIN, 31) == -1);
  CHECK(roundingDivideByPOT(123, 0) == 123);
}

TEST_CASE("fixed-point requantisation matches an exact model",
          "[requant][random]") {
  std::mt19937 rng(21);
  std::uniform_int_distribution<int32_t> accDist(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> small(-100000, 100000);
  std::uniform_real_distribution<double> realDist(1e-6, 4.0);
  for (int i = 0; i < 100000; ++i) {
    FixedPointMultiplier m;
    REQUIRE(quantizeMultiplier(realDist(rng), m).ok());
    int32_t acc = (i & 1) ? accDist(rng) : small(rng);
    REQUIRE(multiplyByQuantizedMultiplier(acc, m) == modelFixed(acc, m));
  }
}

TEST_CASE("fixed and float requantisation agree within one step",
          "[requant][random]") {
  std::mt19937 rng(22);
  std::uniform_int_distribution<int32_t> accDist(-50000, 50000);
  std::uniform_real_distribution<float> realDist(1e-4f, 1e-2f);
  int exact = 0;
  for (int i = 0; i < 20000; ++i) {
    float real = realDist(rng);
    FixedPointMultiplier m;
    REQUIRE(quantizeMultiplier(real, m).ok());
    int32_t acc = accDist(rng);
    int32_t a = requantizeFixed(acc, m, 3, kInt8Range);
    int32_t b = requantizeFloat(acc, real, 3, kInt8Range);
    REQUIRE(std::abs(a - b) <= 1);
    exact += a == b;
  }
  CHECK(exact > 19000); // Differences only at near-ties.
  std::vector<int32_t> acc = {1000, -1000, 100000};
  std::vector<int8_t> out(3);
  std::vector<uint8_t> uout(3);
  FixedPointMultiplier m;
  REQUIRE(quantizeMultiplier(0.01, m).ok());
  requantizeFixedToInt8(acc, m, 0, out);
  CHECK(out == std::vector<int8_t>{10, -10, 127});
  requantizeFixedToUInt8(acc, m, 128, uout);
  CHECK(uout == std::vector<uint8_t>{138, 118, 255});
  FixedPointMultiplier ms[2];
  REQUIRE(quantizeMultiplier(0.01, ms[0]).ok());
  REQUIRE(quantizeMultiplier(0.001, ms[1]).ok());
  requantizeFixedPerChannelToInt8(acc, Span<const FixedPointMultiplier>(ms, 2),
                                  1, 0, out);
  CHECK(out == std::vector<int8_t>{10, -1, 127});
  // Left shifts saturate instead of overflowing.
  FixedPointMultiplier big{1 << 30, 8};
  CHECK(multiplyByQuantizedMultiplier(INT32_MAX / 2, big) ==
        saturatingRoundingDoublingHighMul(INT32_MAX, 1 << 30));
}

TEST_CASE("requantizeFloat's fast rounding equals roundHalfEven",
          "[requantize]") {
  // The reference: the documented formula with the general rounding.
  auto reference = [](int32_t acc, float multiplier, int32_t zeroPoint,
                      QuantRange range) {
    float t = static_cast<float>(acc) * multiplier;
    return saturateToInt(roundHalfEven(t), range.min - zeroPoint,
                         range.max - zeroPoint) +
           zeroPoint;
  };
  const QuantRange wide{std::numeric_limits<int32_t>::min() / 2,
                        std::numeric_limits<int32_t>::max() / 2};
  std::mt19937 rng(99);
  std::uniform_int_distribution<int32_t> anyAcc(
      std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  const float multipliers[] = {0.5f,    0.25f, 1.0f,   0.0078125f,
                               3.0f,    1e-3f, 0.37f,  1.0f / 3,
                               2.5e-5f, -0.5f, 1e-30f, 1e9f};
  for (float m : multipliers)
    for (int i = 0; i < 20000; ++i) {
      int32_t acc = i < 10000 ? anyAcc(rng) : int32_t(rng() % 40001) - 20000;
      for (QuantRange range : {kInt8Range, kUInt8Range, wide}) {
        INFO("acc " << acc << " multiplier " << m);
        REQUIRE(requantizeFloat(acc, m, 3, range) ==
                reference(acc, m, 3, range));
      }
    }
  // Ties and the edge of the fast path (|t| just below and above 2^23).
  for (int32_t n : {0, 1, 2, 3, -1, -2, -3, 4194303, 4194304, -4194304, 8388607,
                    8388608, -8388607, -8388608, 16777215})
    for (float m : {0.5f, 1.0f, 2.0f})
      for (int32_t acc : {2 * n + 1, 2 * n, n, -n})
        REQUIRE(requantizeFloat(acc, m, 0, wide) == reference(acc, m, 0, wide));
  REQUIRE(requantizeFloat(100, std::numeric_limits<float>::quiet_NaN(), 5,
                          kInt8Range) == 5);
}
