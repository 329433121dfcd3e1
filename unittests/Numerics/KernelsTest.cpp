//===- KernelsTest.cpp - dot / matVec / matMul reference kernel tests -----===//
//
// Each float kernel is checked twice: against a double-precision reference
// within a tolerance, and bit for bit against an independent, deliberately
// naive transcription of the documented 16-lane accumulation order. Integer
// kernels are checked for wrap-around and int4 nibble order.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Kernels.h"

#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/Float16.h"

#include <catch2/catch.hpp>

#include <random>

using namespace nnaccel::numerics;

namespace {
/// The documented order, written as plainly as possible.
float documentedDot(const float *a, const float *b, size_t k, size_t strideB) {
  float lane[16];
  for (float &l : lane)
    l = 0.0f;
  for (size_t i = 0; i < k; ++i) {
    float p = a[i] * b[i * strideB];
    lane[i % 16] = lane[i % 16] + p;
  }
  for (size_t l = 0; l < 8; ++l)
    lane[l] = lane[l] + lane[l + 8];
  for (size_t l = 0; l < 4; ++l)
    lane[l] = lane[l] + lane[l + 4];
  for (size_t l = 0; l < 2; ++l)
    lane[l] = lane[l] + lane[l + 2];
  return lane[0] + lane[1];
}

double doubleDot(const float *a, const float *b, size_t k, size_t strideB) {
  double s = 0;
  for (size_t i = 0; i < k; ++i)
    s += static_cast<double>(a[i]) * b[i * strideB];
  return s;
}

std::vector<float> randomVec(std::mt19937 &rng, size_t n) {
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}
} // namespace

TEST_CASE("dotF32 hand values and lane order", "[kernels]") {
  std::vector<float> a = {1, 2, 3}, b = {4, 5, 6};
  CHECK(dotF32(a, b) == 32.0f);
  CHECK(dotF32(Span<const float>(), Span<const float>()) == 0.0f);
  // 2^24 in lane 0, 1 in lanes 1 and 3: the tree adds lane 1 + lane 3 = 2
  // before meeting 2^24, so the result is exact (16777218), whereas a
  // sequential sum would lose both ones (16777216).
  std::vector<float> x(16, 0.0f), ones(16, 1.0f);
  x[0] = 16777216.0f;
  x[1] = 1.0f;
  x[3] = 1.0f;
  CHECK(dotF32(x, ones) == 16777218.0f);
  // Lanes: element 16 goes to lane 0 together with element 0.
  std::vector<float> y(17, 0.0f), ones17(17, 1.0f);
  y[0] = 16777216.0f;
  y[16] = 1.0f;
  y[1] = 1.0f;
  CHECK(dotF32(y, ones17) == 16777216.0f); // lane0: 2^24+1 -> 2^24 (even)
  CHECK(reduceLanes({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}) ==
        136.0f);
}

TEST_CASE("dotF32 is bit-identical to the documented order",
          "[kernels][random]") {
  std::mt19937 rng(11);
  for (size_t k : {1u, 2u, 15u, 16u, 17u, 31u, 33u, 100u, 1000u, 4099u}) {
    auto a = randomVec(rng, k), b = randomVec(rng, k);
    float got = dotF32(a, b);
    REQUIRE(floatToBits(got) ==
            floatToBits(documentedDot(a.data(), b.data(), k, 1)));
    double ref = doubleDot(a.data(), b.data(), k, 1);
    REQUIRE(std::fabs(got - ref) <= 1e-5 * k);
  }
}

TEST_CASE("matVecF32 matches dotF32 per row and the double reference",
          "[kernels]") {
  std::mt19937 rng(12);
  const size_t m = 13, k = 70;
  auto w = randomVec(rng, m * k), x = randomVec(rng, k);
  std::vector<float> y(m), y2(m, 1.5f);
  matVecF32(w, x, y, false);
  matVecF32(w, x, y2, true);
  for (size_t r = 0; r < m; ++r) {
    float d = documentedDot(&w[r * k], x.data(), k, 1);
    REQUIRE(floatToBits(y[r]) == floatToBits(d));
    REQUIRE(y2[r] == 1.5f + d);
    REQUIRE(std::fabs(y[r] - doubleDot(&w[r * k], x.data(), k, 1)) < 1e-4);
  }
}

TEST_CASE("matMulF32 element (i, j) equals the documented dot", "[kernels]") {
  std::mt19937 rng(13);
  const size_t m = 5, k = 37, n = 9;
  auto a = randomVec(rng, m * k), b = randomVec(rng, k * n);
  std::vector<float> c(m * n), c2(m * n, -2.0f);
  matMulF32(a, b, c, m, k, n, false);
  matMulF32(a, b, c2, m, k, n, true);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      float d = documentedDot(&a[i * k], &b[j], k, n);
      REQUIRE(floatToBits(c[i * n + j]) == floatToBits(d));
      REQUIRE(c2[i * n + j] == -2.0f + d);
      REQUIRE(std::fabs(c[i * n + j] - doubleDot(&a[i * k], &b[j], k, n)) <
              1e-4);
    }
}

TEST_CASE("fp16 / bf16 kernels widen then follow the fp32 order", "[kernels]") {
  std::mt19937 rng(14);
  const size_t m = 4, k = 50, n = 3;
  auto af = randomVec(rng, m * k), bf = randomVec(rng, k * n);
  std::vector<uint16_t> ah(af.size()), bh(bf.size()), ab(af.size()),
      bb(bf.size());
  fp32ToFp16(af, ah);
  fp32ToFp16(bf, bh);
  fp32ToBf16(af, ab);
  fp32ToBf16(bf, bb);
  std::vector<float> aw(af.size()), bw(bf.size());
  for (int fmt = 0; fmt < 2; ++fmt) {
    const auto &a16 = fmt ? ab : ah;
    const auto &b16 = fmt ? bb : bh;
    float (*widen)(uint16_t) = fp16ToFp32;
    if (fmt)
      widen = bf16ToFp32;
    for (size_t i = 0; i < af.size(); ++i)
      aw[i] = widen(a16[i]);
    for (size_t i = 0; i < bf.size(); ++i)
      bw[i] = widen(b16[i]);
    std::vector<float> c(m * n), y(m);
    if (fmt) {
      matMulBf16(a16, b16, c, m, k, n, false);
      CHECK(dotBf16(Span<const uint16_t>(a16.data(), k),
                    Span<const uint16_t>(b16.data(), k)) ==
            documentedDot(aw.data(), bw.data(), k, 1));
    } else {
      matMulF16(a16, b16, c, m, k, n, false);
      CHECK(dotF16(Span<const uint16_t>(a16.data(), k),
                   Span<const uint16_t>(b16.data(), k)) ==
            documentedDot(aw.data(), bw.data(), k, 1));
    }
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j)
        REQUIRE(floatToBits(c[i * n + j]) ==
                floatToBits(documentedDot(&aw[i * k], &bw[j], k, n)));
    // matVec with x = column 0 of B.
    std::vector<uint16_t> x(k);
    std::vector<float> xw(k);
    for (size_t i = 0; i < k; ++i) {
      x[i] = b16[i * n];
      xw[i] = bw[i * n];
    }
    if (fmt)
      matVecBf16(a16, x, y, false);
    else
      matVecF16(a16, x, y, false);
    for (size_t i = 0; i < m; ++i)
      REQUIRE(floatToBits(y[i]) ==
              floatToBits(documentedDot(&aw[i * k], xw.data(), k, 1)));
  }
}

TEST_CASE("int8 dot wraps modulo 2^32", "[kernels][int]") {
  std::vector<int8_t> a = {1, -2, 3, 127, -128}, b = {4, 5, -6, 127, -128};
  CHECK(dotI8(a, b) == 4 - 10 - 18 + 16129 + 16384);
  // 131072 products of 16384 sum to 2^31, which wraps to INT32_MIN.
  std::vector<int8_t> big(131072, -128);
  CHECK(dotI8(big, big) == std::numeric_limits<int32_t>::min());
  std::vector<int8_t> big2(131073, -128);
  CHECK(dotI8(big2, big2) == std::numeric_limits<int32_t>::min() + 16384);
  std::vector<uint8_t> u = {255, 0, 128};
  std::vector<int8_t> w = {-128, 5, 127};
  CHECK(dotI8U8(w, u) == 255 * -128 + 128 * 127);
}

TEST_CASE("int8 matVec / matMul against an int64 reference", "[kernels][int]") {
  std::mt19937 rng(15);
  std::uniform_int_distribution<int> d(-128, 127);
  const size_t m = 6, k = 41, n = 7;
  std::vector<int8_t> a(m * k), b(k * n);
  for (auto &v : a)
    v = static_cast<int8_t>(d(rng));
  for (auto &v : b)
    v = static_cast<int8_t>(d(rng));
  std::vector<int32_t> c(m * n), c2(m * n, 100);
  matMulI8(a, b, c, m, k, n, false);
  matMulI8(a, b, c2, m, k, n, true);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      int64_t s = 0;
      for (size_t kk = 0; kk < k; ++kk)
        s += a[i * k + kk] * b[kk * n + j];
      REQUIRE(c[i * n + j] == s);
      REQUIRE(c2[i * n + j] == s + 100);
    }
  std::vector<int8_t> x(k);
  std::vector<uint8_t> xu(k);
  for (size_t i = 0; i < k; ++i) {
    x[i] = b[i * n];
    xu[i] = static_cast<uint8_t>(b[i * n] + 128);
  }
  std::vector<int32_t> y(m), yu(m);
  matVecI8(a, x, y, false);
  matVecI8U8(a, xu, yu, false);
  for (size_t i = 0; i < m; ++i) {
    REQUIRE(y[i] == c[i * n]);
    int64_t s = 0;
    for (size_t kk = 0; kk < k; ++kk)
      s += a[i * k + kk] * static_cast<int>(xu[kk]);
    REQUIRE(yu[i] == s);
  }
  // Accumulation into y also wraps.
  std::vector<int32_t> yw = {std::numeric_limits<int32_t>::max()};
  std::vector<int8_t> one = {1}, oneW = {1};
  matVecI8(oneW, one, yw, true);
  CHECK(yw[0] == std::numeric_limits<int32_t>::min());
}

TEST_CASE("int4 weights x int8 activations", "[kernels][int4]") {
  // Weights w = [1, -2, 3] (odd K): byte 0 = 0xE1, byte 1 = 0x03.
  std::vector<uint8_t> wp = {0xE1, 0x03};
  std::vector<int8_t> x = {10, 20, -30};
  CHECK(dotI4I8(wp, x) == 10 - 40 - 90);

  std::mt19937 rng(16);
  std::uniform_int_distribution<int> d4(-8, 7), d8(-128, 127);
  const size_t m = 5, k = 9, n = 4;
  std::vector<int8_t> w(m * k), b(k * n);
  for (auto &v : w)
    v = static_cast<int8_t>(d4(rng));
  for (auto &v : b)
    v = static_cast<int8_t>(d8(rng));
  // Rows are packed independently (byte aligned).
  size_t rowBytes = packedInt4Size(k);
  std::vector<uint8_t> packed(m * rowBytes);
  for (size_t i = 0; i < m; ++i)
    packInt4(Span<const int8_t>(&w[i * k], k),
             Span<uint8_t>(&packed[i * rowBytes], rowBytes));
  std::vector<int32_t> c(m * n), ref(m * n);
  matMulI4I8(packed, b, c, m, k, n, false);
  matMulI8(w, b, ref, m, k, n, false);
  CHECK(c == ref);
  std::vector<int8_t> xcol(k);
  for (size_t i = 0; i < k; ++i)
    xcol[i] = b[i * n + 2];
  std::vector<int32_t> y(m);
  matVecI4I8(packed, xcol, y, false);
  for (size_t i = 0; i < m; ++i)
    CHECK(y[i] == ref[i * n + 2]);
}

TEST_CASE("msfp dot: exact block products, fp32 block accumulation",
          "[kernels][msfp]") {
  std::mt19937 rng(17);
  const size_t k = 45, bs = 16;
  auto a = randomVec(rng, k), b = randomVec(rng, k);
  for (float &v : b)
    v *= 100.0f;
  size_t nb = msfpNumBlocks(k, bs);
  std::vector<uint8_t> ea(nb), eb(nb), ca(k), cb(k);
  encodeMsfp(MsfpType::Msfp8, bs, a, ea, ca);
  encodeMsfp(MsfpType::Msfp9, bs, b, eb, cb);
  MsfpView va{MsfpType::Msfp8, bs, ea, ca}, vb{MsfpType::Msfp9, bs, eb, cb};
  float got = msfpDot(va, vb);
  // Independent model: decode, exact per-block sums in double, then fp32
  // accumulation in block order.
  std::vector<float> da(k), db(k);
  decodeMsfp(MsfpType::Msfp8, bs, ea, ca, da);
  decodeMsfp(MsfpType::Msfp9, bs, eb, cb, db);
  float acc = 0.0f;
  double exact = 0;
  for (size_t blk = 0; blk < nb; ++blk) {
    double s = 0;
    for (size_t i = blk * bs; i < std::min(k, (blk + 1) * bs); ++i)
      s += static_cast<double>(da[i]) * db[i];
    acc = acc + static_cast<float>(s);
    exact += s;
  }
  CHECK(floatToBits(got) == floatToBits(acc));
  CHECK(got == Approx(exact).epsilon(1e-6));

  // matVec: two rows, each encoded independently.
  const size_t m = 2;
  auto w = randomVec(rng, m * k);
  std::vector<uint8_t> ew(m * nb), cw(m * k);
  for (size_t r = 0; r < m; ++r)
    encodeMsfp(MsfpType::Msfp9, bs, Span<const float>(&w[r * k], k),
               Span<uint8_t>(&ew[r * nb], nb), Span<uint8_t>(&cw[r * k], k));
  MsfpView vw{MsfpType::Msfp9, bs, ew, cw};
  std::vector<float> y(m), y2(m, 1.0f);
  msfpMatVec(vw, vb, y, false);
  msfpMatVec(vw, vb, y2, true);
  for (size_t r = 0; r < m; ++r) {
    MsfpView row{MsfpType::Msfp9, bs, Span<const uint8_t>(&ew[r * nb], nb),
                 Span<const uint8_t>(&cw[r * k], k)};
    CHECK(y[r] == msfpDot(row, vb));
    CHECK(y2[r] == 1.0f + y[r]);
  }
}
