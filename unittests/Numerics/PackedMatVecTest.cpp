//===- PackedMatVecTest.cpp - products on repacked weights ----------------===//
//
// The packed layouts must give matVecF32's and matVecI8's results bit for
// bit. Both the scalar reading of the layouts and the vector paths the CPU
// has are compared with the scalar row-major kernels over every k from 1 to
// 80 (whole 16-lane chunks, every tail, the 4-byte quads' tails) and every
// row count from 1 to 40 (whole 16-output blocks and every remainder), with
// and without accumulation, on random values mixed with the edge cases of
// the lane order (signed zeros, subnormals, infinities, NaN, overflow,
// cancellation) and, for int8, the extreme bytes and wrapping sums.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/PackedMatVec.h"

#include "nnaccel/Numerics/Kernels.h"

#include "SimdTestUtil.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

using namespace nnaccel::numerics;
using namespace simdtest;

namespace {

std::vector<SimdLevel> levelsToCompare() {
  std::vector<SimdLevel> levels = {SimdLevel::Scalar};
  if (getHostSimdLevel() == SimdLevel::Avx512)
    levels.push_back(SimdLevel::Avx512);
  return levels;
}

} // namespace

TEST_CASE("transposed f32 matVec equals matVecF32 bit for bit", "[packed]") {
  std::mt19937 rng(4321);
  size_t compared = 0;
  for (unsigned specialEvery : {0u, 3u, 17u})
    for (size_t k = 1; k <= 80; ++k)
      for (size_t rows = 1; rows <= 40; rows += rows < 18 ? 1 : 7)
        for (bool accumulate : {false, true}) {
          std::vector<float> w = makeValues(rng, rows * k, specialEvery);
          std::vector<float> x = makeValues(rng, k, specialEvery);
          std::vector<float> start = makeValues(rng, rows, specialEvery);
          std::vector<float> expected = start;
          matVecF32At(SimdLevel::Scalar, w, x, expected, accumulate);
          std::vector<float> wT(transposedF32Size(rows, k), 1.0f);
          transposeF32(w.data(), rows, k, wT.data());
          for (SimdLevel level : levelsToCompare()) {
            // One guard value past the outputs: the masked tail block must
            // not write it.
            std::vector<float> got = start;
            got.push_back(-7.0f);
            matVecTransposedF32At(level, wT.data(), rows, k, x.data(),
                                  got.data(), accumulate);
            REQUIRE(bitsOf(got[rows]) == bitsOf(-7.0f));
            for (size_t r = 0; r < rows; ++r) {
              INFO("level " << int(level) << " k " << k << " rows " << rows
                            << " row " << r << " accumulate " << accumulate);
              REQUIRE(sameResult(got[r], expected[r]));
              ++compared;
            }
          }
        }
  REQUIRE(compared > 100000);
}

TEST_CASE("transposed f32 matVec keeps the -0 of unreached lanes", "[packed]") {
  // As in SimdTest: lanes 3-15 stay +0, lanes 0-2 hold +0 + -0 = +0, and
  // -0 (the accumulated output) + +0 is +0.
  std::vector<float> w = {-0.0f, -0.0f, -0.0f}, x = {1.0f, 2.0f, 3.0f};
  std::vector<float> wT(transposedF32Size(1, 3));
  transposeF32(w.data(), 1, 3, wT.data());
  for (SimdLevel level : levelsToCompare()) {
    std::vector<float> y = {-0.0f}, ref = {-0.0f};
    matVecTransposedF32At(level, wT.data(), 1, 3, x.data(), y.data(), true);
    matVecF32At(SimdLevel::Scalar, w, x, ref, true);
    REQUIRE(bitsOf(y[0]) == bitsOf(ref[0]));
  }
}

TEST_CASE("int8 quad matVec equals matVecI8 / matVecI8U8", "[packed]") {
  std::mt19937 rng(99);
  auto pick = [&]() { return pickByte(rng); };
  std::vector<bool> vnniLevels = {false};
  if (hostHasInt8Dot())
    vnniLevels.push_back(true);
  size_t compared = 0;
  for (size_t k = 1; k <= 80; ++k)
    for (size_t rows = 1; rows <= 40; rows += rows < 18 ? 1 : 7) {
      std::vector<int8_t> w(rows * k), xs(k);
      std::vector<uint8_t> xu(k);
      for (int8_t &v : w)
        v = static_cast<int8_t>(pick());
      for (size_t i = 0; i < k; ++i) {
        xu[i] = static_cast<uint8_t>(pick());
        xs[i] = static_cast<int8_t>(pick());
      }
      std::vector<int8_t> q(quadsI8Size(rows, k), 5);
      std::vector<int32_t> sums(packedStride(rows), 5);
      packQuadsI8(w.data(), rows, k, q.data(), sums.data());
      for (bool accumulate : {false, true}) {
        // Initial outputs near the int32 limits: the accumulation wraps.
        std::vector<int32_t> init(rows);
        for (size_t r = 0; r < rows; ++r)
          init[r] = r % 2 ? std::numeric_limits<int32_t>::max() - 5
                          : std::numeric_limits<int32_t>::min() + 5;
        std::vector<int32_t> refS = init, refU = init;
        matVecI8Scalar(w, xs, refS, accumulate);
        matVecI8U8Scalar(w, xu, refU, accumulate);
        for (bool vnni : vnniLevels) {
          std::vector<int32_t> gotS = init, gotU = init;
          gotS.push_back(-7);
          gotU.push_back(-7);
          matVecQuadsI8At(vnni, q.data(), sums.data(), rows, k, xs.data(),
                          gotS.data(), accumulate);
          matVecQuadsI8U8At(vnni, q.data(), rows, k, xu.data(), gotU.data(),
                            accumulate);
          INFO("vnni " << vnni << " k " << k << " rows " << rows
                       << " accumulate " << accumulate);
          REQUIRE(gotS.back() == -7);
          REQUIRE(gotU.back() == -7);
          gotS.pop_back();
          gotU.pop_back();
          REQUIRE(gotS == refS);
          REQUIRE(gotU == refU);
          compared += 2 * rows;
        }
      }
    }
  REQUIRE(compared > 10000);
}

TEST_CASE("the packed layouts are their definitions", "[packed]") {
  // The vector transposes (16 x 16 word blocks) against the layouts'
  // definitions in PackedMatVec.h, padding included, for partial blocks on
  // both sides and several blocks in each direction.
  std::mt19937 rng(7);
  for (size_t rows : {1u, 5u, 16u, 17u, 40u, 64u})
    for (size_t k : {1u, 3u, 4u, 15u, 16u, 33u, 64u, 80u}) {
      INFO("rows " << rows << " k " << k);
      const size_t stride = packedStride(rows);
      std::vector<float> w(rows * k);
      for (float &v : w)
        v = static_cast<float>(rng() % 1000) - 500.0f;
      std::vector<float> wT(transposedF32Size(rows, k), 1.0f);
      transposeF32(w.data(), rows, k, wT.data());
      for (size_t i = 0; i < k; ++i)
        for (size_t r = 0; r < stride; ++r)
          REQUIRE(bitsOf(wT[i * stride + r]) ==
                  bitsOf(r < rows ? w[r * k + i] : 0.0f));

      std::vector<int8_t> w8(rows * k);
      for (int8_t &v : w8)
        v = static_cast<int8_t>(rng());
      std::vector<int8_t> q(quadsI8Size(rows, k), 1);
      std::vector<int32_t> sums(stride, 1);
      packQuadsI8(w8.data(), rows, k, q.data(), sums.data());
      for (size_t g = 0; g < (k + 3) / 4; ++g)
        for (size_t r = 0; r < stride; ++r)
          for (size_t j = 0; j < 4; ++j) {
            const size_t i = 4 * g + j;
            REQUIRE(q[(g * stride + r) * 4 + j] ==
                    (r < rows && i < k ? w8[r * k + i] : 0));
          }
      for (size_t r = 0; r < stride; ++r) {
        uint32_t sum = 0;
        for (size_t i = 0; r < rows && i < k; ++i)
          sum += static_cast<uint32_t>(static_cast<int32_t>(w8[r * k + i]));
        REQUIRE(sums[r] == static_cast<int32_t>(sum));
      }
    }
}
