//===- SimdTest.cpp - vectorised kernels against the scalar reference -----===//
//
// Every instruction-set level the CPU has is compared bit for bit with the
// scalar matVecF32 (one dotF32 per row) over every k from 1 to 80 (whole
// lane blocks and every tail length), every row count from 1 to 9 (whole
// four-row blocks and every remainder), with and without accumulation, on
// random values mixed with the edge cases the lane order has to keep:
// signed zeros (an unreached lane must stay -0), subnormals, infinities,
// NaN, overflow to infinity and cancellation. A NaN result must be NaN on
// both sides; its payload is not specified.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Simd.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace nnaccel::numerics;

namespace {

uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

bool sameResult(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || bitsOf(a) == bitsOf(b);
}

/// Random values with edge cases mixed in at rate 1 in `specialEvery`.
std::vector<float> makeValues(std::mt19937 &rng, size_t n,
                              unsigned specialEvery) {
  static const float Specials[] = {
      0.0f,
      -0.0f,
      std::numeric_limits<float>::denorm_min(),
      -std::numeric_limits<float>::denorm_min() * 7,
      std::numeric_limits<float>::min(),
      std::numeric_limits<float>::max(),
      -std::numeric_limits<float>::max(),
      std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity(),
      std::numeric_limits<float>::quiet_NaN(),
      1e30f,
      -1e30f,
      1.0f + std::numeric_limits<float>::epsilon()};
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::uniform_int_distribution<size_t> pick(0, std::size(Specials) - 1);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = specialEvery && rng() % specialEvery == 0 ? Specials[pick(rng)]
                                                     : uniform(rng);
  return v;
}

std::vector<SimdLevel> hostLevels() {
  std::vector<SimdLevel> levels;
  for (SimdLevel level : {SimdLevel::Avx2, SimdLevel::Avx512})
    if (level <= getHostSimdLevel())
      levels.push_back(level);
  return levels;
}

} // namespace

TEST_CASE("SIMD matVecF32 equals the scalar lane order bit for bit", "[simd]") {
  std::vector<SimdLevel> levels = hostLevels();
  if (levels.empty())
    WARN("this CPU has neither AVX2 nor AVX-512: only the scalar path runs");
  std::mt19937 rng(1234);
  size_t compared = 0;
  for (unsigned specialEvery : {0u, 3u, 17u})
    for (size_t k = 1; k <= 80; ++k)
      for (size_t rows = 1; rows <= 9; ++rows)
        for (bool accumulate : {false, true}) {
          std::vector<float> w = makeValues(rng, rows * k, specialEvery);
          std::vector<float> x = makeValues(rng, k, specialEvery);
          std::vector<float> start = makeValues(rng, rows, specialEvery);
          std::vector<float> expected = start;
          matVecF32At(SimdLevel::Scalar, w, x, expected, accumulate);
          for (SimdLevel level : levels) {
            std::vector<float> got = start;
            matVecF32At(level, w, x, got, accumulate);
            for (size_t r = 0; r < rows; ++r) {
              INFO("level " << int(level) << " k " << k << " rows " << rows
                            << " row " << r << " accumulate " << accumulate);
              REQUIRE(sameResult(got[r], expected[r]));
              ++compared;
            }
          }
        }
  if (!levels.empty())
    REQUIRE(compared > 0);
}

TEST_CASE("a row that only reaches some lanes keeps -0 in the others",
          "[simd]") {
  // k = 3: the products land in lanes 0-2; lanes 3-15 stay +0, and the
  // reduction of (-0, -0, -0, +0, ...) must give +0 exactly as the scalar
  // code does. With every product -0 (the sign of -0 * +x), lanes 0-2 hold
  // +0 + -0 = +0.
  std::vector<float> w = {-0.0f, -0.0f, -0.0f}, x = {1.0f, 2.0f, 3.0f};
  for (SimdLevel level : hostLevels()) {
    std::vector<float> y = {-0.0f};
    matVecF32At(level, w, x, y, /*accumulate=*/true);
    std::vector<float> ref = {-0.0f};
    matVecF32At(SimdLevel::Scalar, w, x, ref, /*accumulate=*/true);
    REQUIRE(bitsOf(y[0]) == bitsOf(ref[0]));
  }
}
