//===- SimdTestUtil.h - Values for the vector-kernel tests ------*- C++ -*-===//
//
// Shared by the tests that compare vector kernels with scalar ones: float
// bits, a result comparison that leaves NaN payloads unspecified (as
// Simd.h does), and random values mixed with the edge cases the lane
// orders have to keep.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_UNITTESTS_NUMERICS_SIMDTESTUTIL_H
#define NNACCEL_UNITTESTS_NUMERICS_SIMDTESTUTIL_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

namespace simdtest {

inline uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

inline bool sameResult(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || bitsOf(a) == bitsOf(b);
}

/// Random values with edge cases mixed in at rate 1 in `specialEvery`.
inline std::vector<float> makeValues(std::mt19937 &rng, size_t n,
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

/// A random byte, the extremes 0, 255, 127 and 128 (as unsigned) half of
/// the time: where int8 sums, sign flips and saturation go wrong.
inline int pickByte(std::mt19937 &rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  switch (byte(rng) % 8) {
  case 0:
    return 0;
  case 1:
    return 255;
  case 2:
    return 127;
  case 3:
    return 128;
  default:
    return byte(rng);
  }
}

} // namespace simdtest

#endif // NNACCEL_UNITTESTS_NUMERICS_SIMDTESTUTIL_H
