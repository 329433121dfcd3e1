//===- MxTest.cpp - OCP MX (MXINT8 / MXFP8) block format tests ------------===//
//
// E8M0 scales, hand-computed blocks for each element type, saturation,
// special blocks (zero, NaN, inf), partial blocks and idempotence.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Mx.h"

#include "nnaccel/Numerics/Fp8.h"

#include <catch2/catch.hpp>

#include <random>

using namespace nnaccel::numerics;

TEST_CASE("E8M0 scale decoding", "[mx]") {
  CHECK(e8m0ToFp32(127) == 1.0f);
  CHECK(e8m0ToFp32(128) == 2.0f);
  CHECK(e8m0ToFp32(0) == std::ldexp(1.0f, -127));
  CHECK(e8m0ToFp32(254) == std::ldexp(1.0f, 127));
  CHECK(std::isnan(e8m0ToFp32(kE8M0NaN)));
  CHECK(mxElemEmax(MxElemType::Int8) == 0);
  CHECK(mxElemEmax(MxElemType::Fp8E4M3) == 8);
  CHECK(mxElemEmax(MxElemType::Fp8E5M2) == 15);
}

TEST_CASE("MXINT8 hand-computed block", "[mx]") {
  std::vector<float> x = {
      1.0f, -0.5f, std::ldexp(1.0f, -6), 1.99f, std::ldexp(1.0f, -7), -2.0f};
  std::vector<uint8_t> el(x.size());
  // max |x| = 2 -> X = 1 -> elements are x / 2 in units of 2^-6.
  uint8_t s = encodeMxBlock(MxElemType::Int8, x, el);
  CHECK(s == 128);
  CHECK(static_cast<int8_t>(el[0]) == 32);
  CHECK(static_cast<int8_t>(el[1]) == -16);
  CHECK(static_cast<int8_t>(el[2]) == 0);  // 0.5 units ties to 0
  CHECK(static_cast<int8_t>(el[3]) == 64); // 63.68 -> 64
  CHECK(static_cast<int8_t>(el[4]) == 0);
  CHECK(static_cast<int8_t>(el[5]) == -64);
  std::vector<float> out(x.size());
  decodeMxBlock(MxElemType::Int8, s, el, out);
  CHECK(out[0] == 1.0f);
  CHECK(out[3] == 2.0f);
  CHECK(out[5] == -2.0f);
  CHECK(decodeMxElement(MxElemType::Int8, 0x80) == -2.0f);
  CHECK(decodeMxElement(MxElemType::Int8, 127) == 1.984375f);
  // Symmetric saturation at +-127 (1.984375): max 1.999 -> X = 0.
  std::vector<float> y = {1.999f, -1.999f};
  std::vector<uint8_t> ey(2);
  CHECK(encodeMxBlock(MxElemType::Int8, y, ey) == 127);
  CHECK(static_cast<int8_t>(ey[0]) == 127);
  CHECK(static_cast<int8_t>(ey[1]) == -127);
}

TEST_CASE("MXFP8 E4M3 and E5M2 hand-computed blocks", "[mx]") {
  // E4M3: max 1.0 -> X = 0 - 8 = -8; elements are x * 256.
  std::vector<float> x = {1.0f, 0.5f, -0.1f, 1.9f};
  std::vector<uint8_t> el(x.size());
  uint8_t s = encodeMxBlock(MxElemType::Fp8E4M3, x, el);
  CHECK(s == 127 - 8);
  CHECK(el[0] == fp32ToFp8E4M3(256.0f));
  CHECK(el[2] == fp32ToFp8E4M3(-25.6f));
  CHECK(el[3] == kFp8E4M3MaxFinite); // 486.4 saturates to 448.
  std::vector<float> out(x.size());
  decodeMxBlock(MxElemType::Fp8E4M3, s, el, out);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == 0.5f);
  CHECK(out[2] == -26.0f / 256.0f);
  CHECK(out[3] == 1.75f);
  // E5M2: max 3.0 -> X = 1 - 15 = -14; 3 * 2^14 = 49152 is representable.
  std::vector<float> y = {3.0f, 3.9f, 1e-6f};
  std::vector<uint8_t> ey(3);
  uint8_t s2 = encodeMxBlock(MxElemType::Fp8E5M2, y, ey);
  CHECK(s2 == 127 - 14);
  std::vector<float> out2(3);
  decodeMxBlock(MxElemType::Fp8E5M2, s2, ey, out2);
  CHECK(out2[0] == 3.0f);
  CHECK(out2[1] == 3.5f); // 63897.6 saturates to 57344 = 3.5 * 2^14.
  CHECK(out2[2] == std::ldexp(1.0f, -20)); // 2^-6 element * 2^-14 scale
}

TEST_CASE("MX special blocks", "[mx]") {
  for (MxElemType t :
       {MxElemType::Int8, MxElemType::Fp8E4M3, MxElemType::Fp8E5M2}) {
    std::vector<float> zeros(5, 0.0f), out(5);
    std::vector<uint8_t> el(5, 0xAA);
    CHECK(encodeMxBlock(t, zeros, el) == 0);
    decodeMxBlock(t, 0, el, out);
    for (float v : out)
      CHECK(v == 0.0f);
    std::vector<float> withNaN = {1.0f, NAN, 2.0f};
    std::vector<uint8_t> e3(3, 0xAA);
    CHECK(encodeMxBlock(t, withNaN, e3) == kE8M0NaN);
    CHECK(e3 == std::vector<uint8_t>{0, 0, 0});
    std::vector<float> o3(3);
    decodeMxBlock(t, kE8M0NaN, e3, o3);
    for (float v : o3)
      CHECK(std::isnan(v));
    std::vector<float> withInf = {1.0f, -INFINITY};
    std::vector<uint8_t> e2(2);
    CHECK(encodeMxBlock(t, withInf, e2) == kE8M0NaN);
  }
  // Scale clamps: a tiny block uses scale 0 (2^-127) and underflows.
  std::vector<float> tiny = {1e-40f};
  std::vector<uint8_t> et(1);
  CHECK(encodeMxBlock(MxElemType::Fp8E4M3, tiny, et) == 0);
  // A huge block clamps X at 127 and saturates.
  std::vector<float> huge = {3e38f};
  CHECK(encodeMxBlock(MxElemType::Fp8E4M3, huge, et) == 127 + 119);
  std::vector<float> fmax = {std::numeric_limits<float>::max()};
  CHECK(encodeMxBlock(MxElemType::Int8, fmax, et) == 254);
  CHECK(static_cast<int8_t>(et[0]) == 127);
  // -0 survives in fp8 elements.
  std::vector<float> negZero = {-0.0f, 1.0f};
  std::vector<uint8_t> ez(2);
  encodeMxBlock(MxElemType::Fp8E5M2, negZero, ez);
  CHECK(ez[0] == 0x80);
}

TEST_CASE("MX spans: blocks of 32 with a partial tail", "[mx]") {
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(70);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = dist(rng) * (i < 32 ? 1.0f : 1000.0f);
  REQUIRE(mxNumBlocks(70) == 3);
  for (MxElemType t :
       {MxElemType::Int8, MxElemType::Fp8E4M3, MxElemType::Fp8E5M2}) {
    std::vector<uint8_t> scales(3), el(70);
    encodeMx(t, x, scales, el);
    std::vector<uint8_t> blk(6);
    CHECK(encodeMxBlock(t, Span<const float>(x.data() + 64, 6), blk) ==
          scales[2]);
    CHECK(scales[1] > scales[0]); // Second block is ~1000x larger.
    std::vector<float> out(70), fq(70), fq2(70);
    decodeMx(t, scales, el, out);
    fakeQuantMx(t, x, fq);
    CHECK(out == fq);
    // Idempotent: quantised values are exactly representable.
    fakeQuantMx(t, fq, fq2);
    CHECK(fq2 == fq);
    // Error relative to the block maximum: int8 keeps ~7 bits, E4M3 3
    // mantissa bits (and up to 2^-2 loss at saturation), E5M2 2 bits.
    float rel = t == MxElemType::Int8      ? std::ldexp(1.0f, -6)
                : t == MxElemType::Fp8E4M3 ? 0.125f
                                           : 0.25f;
    for (size_t b = 0; b < 3; ++b) {
      size_t begin = b * 32, end = std::min<size_t>(70, begin + 32);
      float maxAbs = 0;
      for (size_t i = begin; i < end; ++i)
        maxAbs = std::max(maxAbs, std::fabs(x[i]));
      for (size_t i = begin; i < end; ++i)
        REQUIRE(std::fabs(out[i] - x[i]) <= rel * maxAbs);
    }
  }
}

namespace {

/// Reference for mxFp8Dot: per block the exact sum of the decoded products
/// in double (exact: at most 2^69 / 2^-64 of range, 32 products of 8-bit
/// significands fit in 53 bits only for E4M3, so E5M2 uses the same block
/// data with a looser bound), scaled, accumulated in fp32 in block order.
double refBlockSum(MxElemType t, uint8_t sa, Span<const uint8_t> ea, uint8_t sb,
                   Span<const uint8_t> eb) {
  double s = 0;
  for (size_t i = 0; i < ea.size(); ++i)
    s += double(decodeMxElement(t, ea.data()[i])) *
         double(decodeMxElement(t, eb.data()[i]));
  return std::ldexp(s, int(sa) - 127 + int(sb) - 127);
}

} // namespace

TEST_CASE("MXFP8 dot product matches the decoded reference", "[mx]") {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (MxElemType t : {MxElemType::Fp8E4M3, MxElemType::Fp8E5M2}) {
    for (int trial = 0; trial < 50; ++trial) {
      size_t n = 96;
      std::vector<float> a(n), b(n);
      for (size_t i = 0; i < n; ++i) {
        a[i] = dist(rng) * (i < 32 ? 1e-3f : 10.0f);
        b[i] = dist(rng);
      }
      std::vector<uint8_t> sa(3), ea(n), sb(3), eb(n);
      encodeMx(t, a, sa, ea);
      encodeMx(t, b, sb, eb);
      float got = mxFp8Dot(t, sa, ea, sb, eb);
      float acc = 0.0f;
      for (size_t blk = 0; blk < 3; ++blk) {
        double v = refBlockSum(t, sa[blk], {ea.data() + blk * 32, 32}, sb[blk],
                               {eb.data() + blk * 32, 32});
        acc = acc + static_cast<float>(v);
      }
      if (t == MxElemType::Fp8E4M3) {
        // Every block sum is exact in double, so the reference is bit-exact.
        CHECK(got == acc);
      } else {
        CHECK(std::fabs(got - acc) <= 1e-6f * (1.0f + std::fabs(acc)));
      }
      // And close to the f32 dot product of the unquantised data.
      double exact = 0;
      for (size_t i = 0; i < n; ++i)
        exact += double(a[i]) * double(b[i]);
      double norm = 0;
      for (size_t i = 0; i < n; ++i)
        norm += std::fabs(double(a[i]) * double(b[i]));
      CHECK(std::fabs(got - exact) <= 0.15 * norm);
    }
  }
}

TEST_CASE("MXFP8 dot product edge cases", "[mx]") {
  for (MxElemType t : {MxElemType::Fp8E4M3, MxElemType::Fp8E5M2}) {
    std::vector<float> ones(32, 1.0f), zeros(32, 0.0f);
    std::vector<uint8_t> s1(1), e1(32), s0(1), e0(32);
    encodeMx(t, ones, s1, e1);
    encodeMx(t, zeros, s0, e0);
    CHECK(mxFp8Dot(t, s1, e1, s1, e1) == 32.0f);
    // Zero block: +0 (scale 2^-127, zero codes).
    float z = mxFp8Dot(t, s0, e0, s1, e1);
    CHECK(z == 0.0f);
    CHECK(!std::signbit(z));
    // NaN scale in either operand poisons the block.
    std::vector<uint8_t> sn = {kE8M0NaN};
    CHECK(std::isnan(mxFp8Dot(t, sn, e1, s1, e1)));
    CHECK(std::isnan(mxFp8Dot(t, s1, e1, sn, e1)));
    // A NaN element code (never produced by the encoder) poisons the block.
    std::vector<uint8_t> en = e1;
    en[3] = t == MxElemType::Fp8E4M3 ? 0x7F : 0x7E;
    CHECK(std::isnan(mxFp8Dot(t, s1, en, s1, e1)));
    // Saturation: the largest elements times the largest elements.
    std::vector<float> big(32, 1e30f);
    // 1.99 * 2^100 rounds above the element maximum after scaling: saturates.
    big[0] = std::ldexp(1.99f, 100);
    std::vector<uint8_t> sb(1), eb(32);
    encodeMx(t, big, sb, eb);
    CHECK(eb[0] == (t == MxElemType::Fp8E4M3 ? 0x7E : 0x7B));
    std::vector<float> dec(32);
    decodeMx(t, sb, eb, dec);
    double ref = 0;
    for (float v : dec)
      ref += double(v) * double(v);
    float got = mxFp8Dot(t, sb, eb, sb, eb);
    CHECK(std::isinf(got)); // 32 * ~1e60 overflows fp32
    CHECK(ref > 1e38);
    // Scales that multiply to an fp32 subnormal.
    std::vector<uint8_t> lo = {10};
    float sub = mxFp8Dot(t, lo, e1, lo, e1);
    CHECK(sub == static_cast<float>(std::ldexp(32.0, 2 * (10 - 127))));
  }
}
