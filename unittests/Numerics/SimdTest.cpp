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

#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/Requantize.h"
#include "nnaccel/Numerics/VectorOps.h"

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
      for (size_t rows = 1; rows <= 17; ++rows)
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

TEST_CASE("SIMD requantizeFloatRow equals requantizeFloat", "[simd]") {
  std::vector<SimdLevel> levels = hostLevels();
  std::mt19937 rng(77);
  std::uniform_int_distribution<int32_t> anyAcc(
      std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int32_t> smallAcc(-40000, 40000);
  const float specialScales[] = {0.5f,
                                 1.0f,
                                 2.0f,
                                 1e-30f,
                                 1e30f,
                                 -0.25f,
                                 0.0f,
                                 std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::denorm_min()};
  const QuantRange wide{std::numeric_limits<int32_t>::min() / 2,
                        std::numeric_limits<int32_t>::max() / 2};
  for (size_t n = 1; n <= 40; ++n)
    for (bool perChannel : {false, true})
      for (QuantRange range : {kInt8Range, kUInt8Range, wide})
        for (int32_t zeroPoint : {0, 3, -128, 255})
          for (int trial = 0; trial < 4; ++trial) {
            std::vector<int32_t> acc(n), expected(n), got(n);
            std::vector<float> scales(perChannel ? n : 1);
            for (size_t i = 0; i < n; ++i)
              acc[i] = trial % 2 ? anyAcc(rng) : smallAcc(rng);
            for (float &s : scales)
              s = rng() % 4 == 0 ? specialScales[rng() % 10]
                                 : std::ldexp(float(rng() % 1000 + 1), -9);
            // Exact ties: acc * 0.5 lands on n + 0.5.
            if (trial == 3)
              std::fill(scales.begin(), scales.end(), 0.5f);
            requantizeFloatRow(SimdLevel::Scalar, acc.data(), scales.data(),
                               perChannel, zeroPoint, range, expected.data(),
                               n);
            for (SimdLevel level : levels) {
              requantizeFloatRow(level, acc.data(), scales.data(), perChannel,
                                 zeroPoint, range, got.data(), n);
              INFO("level " << int(level) << " n " << n << " zero point "
                            << zeroPoint);
              REQUIRE(got == expected);
            }
          }
}

TEST_CASE("SIMD requantizeScaledRow equals requantizeScaled", "[simd]") {
  std::vector<SimdLevel> levels = hostLevels();
  std::mt19937 rng(78);
  std::uniform_real_distribution<float> small(-300.0f, 300.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.5f,
                            -0.5f,
                            1.5f,
                            2.5f,
                            -2.5f,
                            127.5f,
                            128.5f,
                            -128.5f,
                            1e30f,
                            -1e30f,
                            inf,
                            -inf,
                            std::numeric_limits<float>::quiet_NaN(),
                            -0.0f,
                            8388607.5f,
                            16777217.0f};
  const QuantRange wide{std::numeric_limits<int32_t>::min() / 2,
                        std::numeric_limits<int32_t>::max() / 2};
  for (size_t n = 1; n <= 40; ++n)
    for (bool perChannel : {false, true})
      for (QuantRange range : {kInt8Range, kUInt8Range, kInt4Range, wide})
        for (int32_t zeroPoint : {0, 3, -8, 7})
          for (int trial = 0; trial < 3; ++trial) {
            std::vector<float> x(n), scales(perChannel ? n : 1);
            std::vector<int32_t> expected(n), got(n);
            for (float &v : x)
              v = trial == 0 || rng() % 3
                      ? small(rng)
                      : specials[rng() % std::size(specials)];
            for (float &sc : scales)
              sc = trial == 2 ? 1.0f : std::ldexp(float(rng() % 1000 + 1), -8);
            requantizeScaledRow(SimdLevel::Scalar, x.data(), scales.data(),
                                perChannel, zeroPoint, range, expected.data(),
                                n);
            for (size_t i = 0; i < n; ++i)
              REQUIRE(expected[i] ==
                      requantizeScaled(x[i] * scales[perChannel ? i : 0],
                                       zeroPoint, range));
            for (SimdLevel level : levels) {
              requantizeScaledRow(level, x.data(), scales.data(), perChannel,
                                  zeroPoint, range, got.data(), n);
              INFO("level " << int(level) << " n " << n << " zero point "
                            << zeroPoint);
              REQUIRE(got == expected);
            }
          }
}

TEST_CASE("SIMD dequantizeRow equals the scalar products", "[simd]") {
  std::vector<SimdLevel> levels = hostLevels();
  std::mt19937 rng(79);
  std::uniform_int_distribution<int32_t> anyQ(
      std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  const float specialScales[] = {1.0f,
                                 0.5f,
                                 -0.25f,
                                 1e-30f,
                                 1e30f,
                                 0.0f,
                                 std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::denorm_min()};
  for (size_t n = 1; n <= 40; ++n)
    for (bool perChannel : {false, true})
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<int32_t> q(n);
        std::vector<float> scales(perChannel ? n : 1), expected(n), got(n);
        // Values that round when converted (above 2^24) and small ones.
        for (int32_t &v : q)
          v = trial % 2 ? anyQ(rng) : int32_t(rng() % 511) - 255;
        for (float &sc : scales)
          sc = rng() % 4 == 0 ? specialScales[rng() % std::size(specialScales)]
                              : std::ldexp(float(rng() % 1000 + 1), -12);
        dequantizeRow(SimdLevel::Scalar, q.data(), scales.data(), perChannel,
                      expected.data(), n);
        for (SimdLevel level : levels) {
          dequantizeRow(level, q.data(), scales.data(), perChannel, got.data(),
                        n);
          INFO("level " << int(level) << " n " << n);
          for (size_t i = 0; i < n; ++i) {
            uint32_t e, g;
            std::memcpy(&e, &expected[i], 4);
            std::memcpy(&g, &got[i], 4);
            REQUIRE(g == e);
          }
        }
      }
}

TEST_CASE("SIMD element-wise arithmetic equals the scalar operations",
          "[simd]") {
  // Specials in every pairing (signed zeros for max / min, infinities,
  // NaNs, subnormals, ties of equal values), then random values; every
  // length to 40 (masked tails), b as an array and as a broadcast scalar.
  // add / sub / mul must agree bit for bit except in NaN payloads (no
  // kernel specifies them), max / min exactly (their NaN is canonical).
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> specials = {0.0f,
                                       -0.0f,
                                       1.0f,
                                       -1.0f,
                                       inf,
                                       -inf,
                                       nan,
                                       -nan,
                                       std::numeric_limits<float>::denorm_min(),
                                       -1e-40f,
                                       3.0e38f,
                                       -3.0e38f,
                                       std::numeric_limits<float>::max(),
                                       2.5f};
  std::vector<float> a, b;
  for (float x : specials)
    for (float y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  std::mt19937 rng(80);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int i = 0; i < 2000; ++i) {
    a.push_back(dist(rng));
    b.push_back(rng() % 8 == 0 ? a.back() : dist(rng));
  }
  auto same = [](float x, float y, bool payloads) {
    if (std::isnan(x) || std::isnan(y))
      return std::isnan(x) && std::isnan(y) &&
             (!payloads || std::memcmp(&x, &y, 4) == 0);
    return std::memcmp(&x, &y, 4) == 0;
  };
  for (ArithOp op :
       {ArithOp::Add, ArithOp::Sub, ArithOp::Mul, ArithOp::Max, ArithOp::Min}) {
    const bool payloads = op == ArithOp::Max || op == ArithOp::Min;
    for (bool scalar : {false, true})
      for (size_t n : {size_t(1), size_t(15), size_t(16), size_t(17),
                       size_t(40), a.size()}) {
        std::vector<float> expected(n), got(n);
        for (size_t s0 = 0; s0 < (scalar ? specials.size() : 1); ++s0) {
          const float *bp = scalar ? &specials[s0] : b.data();
          arithF32Row(SimdLevel::Scalar, op, a.data(), bp, scalar,
                      expected.data(), n);
          for (SimdLevel level : hostLevels()) {
            arithF32Row(level, op, a.data(), bp, scalar, got.data(), n);
            for (size_t i = 0; i < n; ++i) {
              INFO("op " << int(op) << " level " << int(level) << " a " << a[i]
                         << " b " << bp[scalar ? 0 : i]);
              REQUIRE(same(got[i], expected[i], payloads));
            }
          }
        }
      }
    // The scalar level is the definitions themselves.
    std::vector<float> out(a.size());
    arithF32Row(SimdLevel::Scalar, op, a.data(), b.data(), false, out.data(),
                a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      float ref = op == ArithOp::Add   ? a[i] + b[i]
                  : op == ArithOp::Sub ? a[i] - b[i]
                  : op == ArithOp::Mul ? a[i] * b[i]
                  : op == ArithOp::Max ? maxF32(a[i], b[i])
                                       : minF32(a[i], b[i]);
      REQUIRE(same(out[i], ref, payloads));
    }
  }
}

TEST_CASE("SIMD exp, sigmoid and tanh equal the scalar definitions bit for "
          "bit",
          "[simd]") {
  // Every 257th float bit pattern (about 16.7M values, every sign,
  // exponent and NaN payload class), then every pattern in the ranges where
  // the definitions switch: exp's clamps and subnormal results (x in
  // [-104, -87]), tanh's 0.25 and 9 and both signs of small values.
  std::vector<float> xs;
  auto addBits = [&](uint32_t lo, uint32_t hi, uint32_t step) {
    for (uint64_t b = lo; b <= hi; b += step) {
      float f;
      uint32_t u = static_cast<uint32_t>(b);
      std::memcpy(&f, &u, 4);
      xs.push_back(f);
    }
  };
  addBits(0, 0xFFFFFFFFu, 257);
  auto bitsOf = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  for (float edge : {88.72283935546875f, -103.972084f, -87.0f, 0.25f, 9.0f,
                     -0.25f, -9.0f, 1e-30f, -1e-30f}) {
    uint32_t b = bitsOf(edge);
    addBits(b - 4096, b + 4096, 1);
  }
  addBits(bitsOf(87.0f), bitsOf(104.0f), 61);  // exp overflows to inf
  addBits(bitsOf(-87.0f), bitsOf(-104.0f), 7); // subnormal exp results
  struct Fn {
    const char *name;
    void (*row)(SimdLevel, const float *, float *, size_t);
    float (*scalar)(float);
  };
  for (Fn fn :
       {Fn{"exp", expF32Row, expF32}, Fn{"sigmoid", sigmoidF32Row, sigmoidF32},
        Fn{"tanh", tanhF32Row, tanhF32}}) {
    std::vector<float> expected(xs.size()), got(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      expected[i] = fn.scalar(xs[i]);
    for (SimdLevel level : hostLevels()) {
      // Odd lengths exercise the masked tail.
      fn.row(level, xs.data(), got.data(), xs.size());
      fn.row(level, xs.data() + 3, got.data() + 3, 13);
      size_t bad = 0, first = 0;
      for (size_t i = 0; i < xs.size(); ++i)
        if (bitsOf(got[i]) != bitsOf(expected[i]) && bad++ == 0)
          first = i;
      INFO(fn.name << " level " << int(level) << ": " << bad
                   << " differ, first x bits " << std::hex << bitsOf(xs[first])
                   << " got " << bitsOf(got[first]) << " expected "
                   << bitsOf(expected[first]));
      REQUIRE(bad == 0);
    }
  }
}

TEST_CASE("VNNI int8 matVec equals the scalar sums", "[simd]") {
  if (!hostHasInt8Dot())
    SUCCEED("this CPU has no AVX-512 VNNI; only the scalar path runs");
  std::mt19937 rng(23);
  // Every k from 1 to 300 (chunk tails, more chunks than stay in
  // registers), 1 to 5 rows; half of the bytes at the extremes
  // (-128, 127, 0, 255), initial outputs near the int32 limits so that the
  // accumulation wraps.
  for (size_t k = 1; k <= 300; ++k)
    for (size_t rows = 1; rows <= 5; ++rows) {
      std::vector<int8_t> w(rows * k), xs(k);
      std::vector<uint8_t> xu(k);
      auto pick = [&]() { return pickByte(rng); };
      for (int8_t &v : w)
        v = static_cast<int8_t>(pick());
      for (size_t i = 0; i < k; ++i) {
        xu[i] = static_cast<uint8_t>(pick());
        xs[i] = static_cast<int8_t>(pick());
      }
      for (bool accumulate : {false, true}) {
        std::vector<int32_t> init(rows);
        for (size_t r = 0; r < rows; ++r)
          init[r] = r % 2 ? std::numeric_limits<int32_t>::max() - 5
                          : std::numeric_limits<int32_t>::min() + 5;
        std::vector<int32_t> a = init, b = init, c = init, d = init;
        matVecI8Scalar(w, xs, a, accumulate);
        matVecI8At(hostHasInt8Dot(), w, xs, b, accumulate);
        matVecI8U8Scalar(w, xu, c, accumulate);
        matVecI8U8At(hostHasInt8Dot(), w, xu, d, accumulate);
        INFO("k " << k << " rows " << rows << " accumulate " << accumulate);
        REQUIRE(a == b);
        REQUIRE(c == d);
      }
    }
}

TEST_CASE("int32 rows: every level equals the scalar wrapping ops", "[simd]") {
  // Integer results do not depend on order; the vector paths must still
  // wrap, saturate and sign-extend like the scalar ones, on tails too.
  std::mt19937 rng(31);
  const int32_t edges[] = {0,
                           1,
                           -1,
                           127,
                           -128,
                           255,
                           std::numeric_limits<int32_t>::max(),
                           std::numeric_limits<int32_t>::min(),
                           65536,
                           -65537};
  auto pick = [&]() {
    return rng() % 4 == 0 ? edges[rng() % std::size(edges)]
                          : static_cast<int32_t>(rng());
  };
  for (size_t n = 1; n <= 70; ++n)
    for (bool bScalar : {false, true}) {
      std::vector<int32_t> a(n), b(n);
      std::vector<uint8_t> bytes(n);
      for (size_t i = 0; i < n; ++i) {
        a[i] = pick();
        b[i] = pick();
        bytes[i] = static_cast<uint8_t>(rng());
      }
      for (SimdLevel level : hostLevels()) {
        INFO("n " << n << " level " << int(level) << " bScalar " << bScalar);
        for (ArithOp op : {ArithOp::Add, ArithOp::Sub, ArithOp::Mul,
                           ArithOp::Max, ArithOp::Min}) {
          std::vector<int32_t> want(n + 1, 7), got(n + 1, 7);
          arithI32Row(SimdLevel::Scalar, op, a.data(), b.data(), bScalar,
                      want.data(), n);
          arithI32Row(level, op, a.data(), b.data(), bScalar, got.data(), n);
          REQUIRE(got == want);
        }
        std::vector<int32_t> ws(n + 1, 7), wu(n + 1, 7), gs(n + 1, 7),
            gu(n + 1, 7);
        widenI8Row(SimdLevel::Scalar,
                   reinterpret_cast<const int8_t *>(bytes.data()), ws.data(),
                   n);
        widenI8Row(level, reinterpret_cast<const int8_t *>(bytes.data()),
                   gs.data(), n);
        widenU8Row(SimdLevel::Scalar, bytes.data(), wu.data(), n);
        widenU8Row(level, bytes.data(), gu.data(), n);
        REQUIRE(gs == ws);
        REQUIRE(gu == wu);
        for (auto [lo, hi] : {std::pair<int32_t, int32_t>{-128, 127},
                              std::pair<int32_t, int32_t>{0, 255}}) {
          std::vector<uint8_t> wn(n + 1, 9), gn(n + 1, 9);
          narrowToBytesRow(SimdLevel::Scalar, a.data(), lo, hi, wn.data(), n);
          narrowToBytesRow(level, a.data(), lo, hi, gn.data(), n);
          REQUIRE(gn == wn);
        }
      }
    }
}

TEST_CASE("SIMD reductions equal the scalar lane order", "[simd]") {
  // Sum: the 16-lane order and tree (a tail reaches only some lanes);
  // max / min: NaN absorbs, +0 over -0 (max) and -0 over +0 (min).
  std::mt19937 rng(71);
  for (unsigned specialEvery : {0u, 2u, 5u, 29u})
    for (size_t n = 0; n <= 100; ++n) {
      std::vector<float> x = makeValues(rng, n, specialEvery);
      if (specialEvery == 2)
        for (float &v : x) // zeros of both signs decide max and min
          v = rng() % 2 ? 0.0f : -0.0f;
      const float sum = reduceSumF32Row(SimdLevel::Scalar, x.data(), n);
      const float mx = reduceMaxF32Row(SimdLevel::Scalar, x.data(), n);
      const float mn = reduceMinF32Row(SimdLevel::Scalar, x.data(), n);
      for (SimdLevel level : hostLevels()) {
        INFO("n " << n << " level " << int(level) << " specials "
                  << specialEvery);
        REQUIRE(sameResult(reduceSumF32Row(level, x.data(), n), sum));
        REQUIRE(sameResult(reduceMaxF32Row(level, x.data(), n), mx));
        REQUIRE(sameResult(reduceMinF32Row(level, x.data(), n), mn));
      }
    }
}

TEST_CASE("block arithmetic equals the row kernels at every level", "[simd]") {
  // One call over rows with pitches and every b layout: the same as the
  // scalar rows, f32 (specials included) and int32 (wrapping).
  std::mt19937 rng(97);
  for (size_t rows : {1u, 3u, 7u})
    for (size_t cols : {1u, 14u, 16u, 33u})
      for (BLayout layout :
           {BLayout::Rows, BLayout::Row, BLayout::PerRow, BLayout::Scalar}) {
        const size_t pitch = cols + 3;
        std::vector<float> a = makeValues(rng, rows * pitch, 7),
                           b = makeValues(rng, rows * pitch, 7);
        std::vector<int32_t> ai(rows * pitch), bi(rows * pitch);
        for (size_t i = 0; i < ai.size(); ++i) {
          ai[i] = static_cast<int32_t>(rng());
          bi[i] = static_cast<int32_t>(rng());
        }
        for (ArithOp op : {ArithOp::Add, ArithOp::Sub, ArithOp::Mul,
                           ArithOp::Max, ArithOp::Min})
          for (SimdLevel level : hostLevels()) {
            INFO("rows " << rows << " cols " << cols << " layout "
                         << int(layout) << " op " << int(op) << " level "
                         << int(level));
            std::vector<float> want(rows * pitch, 5.0f), got = want;
            arithF32Block(SimdLevel::Scalar, op, a.data(), pitch, b.data(),
                          pitch, layout, want.data(), pitch, rows, cols);
            arithF32Block(level, op, a.data(), pitch, b.data(), pitch, layout,
                          got.data(), pitch, rows, cols);
            for (size_t i = 0; i < want.size(); ++i)
              REQUIRE(sameResult(got[i], want[i]));
            std::vector<int32_t> wi(rows * pitch, 5), gi = wi;
            arithI32Block(SimdLevel::Scalar, op, ai.data(), pitch, bi.data(),
                          pitch, layout, wi.data(), pitch, rows, cols);
            arithI32Block(level, op, ai.data(), pitch, bi.data(), pitch, layout,
                          gi.data(), pitch, rows, cols);
            REQUIRE(gi == wi);
          }
      }
}

TEST_CASE("widening block arithmetic equals the scalar one", "[simd]") {
  // int8 / uint8 / int32 operands widened on load, every pairing, layout
  // and op, on extreme bytes and wrapping products, with tails.
  std::mt19937 rng(41);
  const IntElem types[] = {IntElem::I8, IntElem::U8, IntElem::I32};
  for (IntElem at : types)
    for (IntElem bt : types)
      for (BLayout layout :
           {BLayout::Rows, BLayout::Row, BLayout::PerRow, BLayout::Scalar})
        for (size_t cols : {1u, 15u, 16u, 35u}) {
          const size_t rows = 3, pitch = cols + 5;
          auto fill = [&](IntElem t) {
            std::vector<uint8_t> v(rows * pitch * (t == IntElem::I32 ? 4 : 1));
            for (uint8_t &b : v)
              b = rng() % 4 == 0 ? uint8_t(rng() % 2 ? 0x80 : 0x7F)
                                 : static_cast<uint8_t>(rng());
            return v;
          };
          std::vector<uint8_t> a = fill(at), b = fill(bt);
          for (ArithOp op : {ArithOp::Add, ArithOp::Sub, ArithOp::Mul,
                             ArithOp::Max, ArithOp::Min})
            for (SimdLevel level : hostLevels()) {
              INFO("types " << int(at) << "," << int(bt) << " layout "
                            << int(layout) << " cols " << cols << " op "
                            << int(op));
              std::vector<int32_t> want(rows * pitch, 9), got = want;
              arithI32WideningBlock(SimdLevel::Scalar, op, a.data(), at, pitch,
                                    b.data(), bt, pitch, layout, want.data(),
                                    pitch, rows, cols);
              arithI32WideningBlock(level, op, a.data(), at, pitch, b.data(),
                                    bt, pitch, layout, got.data(), pitch, rows,
                                    cols);
              REQUIRE(got == want);
            }
        }
}
