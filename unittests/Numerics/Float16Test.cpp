//===- Float16Test.cpp - fp16 / bf16 conversion tests ---------------------===//
//
// Exhaustive round trips over all 65536 bit patterns, round-half-even ties
// at every fp16 midpoint, and a comparison of fp32 -> fp16 against an
// independent double-precision rounding model on random inputs.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Float16.h"

#include <catch2/catch.hpp>

#include <random>

using namespace nnaccel::numerics;

namespace {
/// Independent model of fp32 -> fp16 -> fp32: exact arithmetic in double.
float refRoundFp16(float x) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0f)
    return x;
  double a = std::fabs(static_cast<double>(x));
  int e;
  std::frexp(a, &e);
  int exp = std::max(e - 1, -14);
  double quantum = std::ldexp(1.0, exp - 10);
  double r = std::nearbyint(a / quantum) * quantum; // FE_TONEAREST: RNE.
  if (r >= 65536.0)
    r = INFINITY;
  return static_cast<float>(std::copysign(r, static_cast<double>(x)));
}
} // namespace

TEST_CASE("fp16 known encodings", "[fp16]") {
  CHECK(fp32ToFp16(1.0f) == 0x3C00);
  CHECK(fp32ToFp16(-2.0f) == 0xC000);
  CHECK(fp32ToFp16(0.1f) == 0x2E66);
  CHECK(fp32ToFp16(65504.0f) == kFp16MaxFinite);
  CHECK(fp32ToFp16(65519.996f) == kFp16MaxFinite);
  CHECK(fp32ToFp16(65520.0f) == kFp16PosInf); // Tie rounds to even = inf.
  CHECK(fp32ToFp16(1e10f) == kFp16PosInf);
  CHECK(fp32ToFp16(-INFINITY) == kFp16NegInf);
  CHECK(fp32ToFp16(0.0f) == 0x0000);
  CHECK(fp32ToFp16(-0.0f) == 0x8000);
  CHECK(fp32ToFp16(std::ldexp(1.0f, -14)) == 0x0400); // Smallest normal.
  CHECK(fp32ToFp16(std::ldexp(1.0f, -24)) == 0x0001); // Smallest subnormal.
  CHECK(fp32ToFp16(std::ldexp(1.0f, -25)) == 0x0000); // Tie -> even (0).
  CHECK(fp32ToFp16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);
  CHECK(fp32ToFp16(std::ldexp(3.0f, -25)) == 0x0002); // 1.5 quanta -> 2.
  CHECK(fp32ToFp16(-std::ldexp(1.0f, -30)) == 0x8000);
  CHECK(fp32ToFp16(std::numeric_limits<float>::denorm_min()) == 0x0000);
  // Subnormal rounding carrying into the smallest normal.
  CHECK(fp32ToFp16(std::ldexp(1023.5f, -24)) == 0x0400);
  CHECK(fp16ToFp32(0x3555) == 0.333251953125f);
  CHECK(fp16ToFp32(0x0001) == std::ldexp(1.0f, -24));
  CHECK(fp16ToFp32(0x03FF) == std::ldexp(1023.0f, -24));
}

TEST_CASE("fp16 NaN handling", "[fp16]") {
  CHECK(isFp16NaN(fp32ToFp16(NAN)));
  CHECK(std::isnan(fp16ToFp32(0x7C01))); // Signalling in, quiet out.
  CHECK((floatToBits(fp16ToFp32(0x7C01)) & 0x00400000u) != 0);
  // fp32 signalling NaN with payload only in the low bits must not become
  // infinity: the quiet bit is forced.
  uint16_t h = fp32ToFp16(bitsToFloat(0x7F800001u));
  CHECK(h == 0x7E00);
  CHECK(fp32ToFp16(bitsToFloat(0xFFC00000u)) == 0xFE00); // Sign kept.
  CHECK(fp32ToFp16(bitsToFloat(0x7FD00000u)) == 0x7E80); // Top payload kept.
}

TEST_CASE("fp16 exhaustive round trip through fp32", "[fp16][exhaustive]") {
  int nanCount = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    uint16_t h = static_cast<uint16_t>(i);
    float f = fp16ToFp32(h);
    if (isFp16NaN(h)) {
      ++nanCount;
      REQUIRE(std::isnan(f));
      REQUIRE(isFp16NaN(fp32ToFp16(f)));
      REQUIRE((fp32ToFp16(f) & 0x8000) == (h & 0x8000));
      continue;
    }
    REQUIRE(fp32ToFp16(f) == h);
  }
  CHECK(nanCount == 2 * 1023);
}

TEST_CASE("fp16 midpoints round to even", "[fp16][exhaustive]") {
  // Every pair of adjacent finite positive fp16 values: the exact midpoint
  // (representable in fp32) goes to the even code, one fp32 ulp either side
  // goes to the nearer code.
  for (uint32_t h = 0; h < kFp16MaxFinite; ++h) {
    float lo = fp16ToFp32(static_cast<uint16_t>(h));
    float hi = fp16ToFp32(static_cast<uint16_t>(h + 1));
    float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);
    uint16_t even =
        (h & 1) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h);
    REQUIRE(fp32ToFp16(mid) == even);
    REQUIRE(fp32ToFp16(std::nextafter(mid, 0.0f)) == h);
    REQUIRE(fp32ToFp16(std::nextafter(mid, INFINITY)) == h + 1);
    REQUIRE(fp32ToFp16(-mid) == (even | 0x8000));
  }
}

TEST_CASE("fp32 -> fp16 matches a double-precision model", "[fp16][random]") {
  std::mt19937 rng(1234);
  // Exponents concentrated around the fp16 range, including subnormals and
  // overflow.
  std::uniform_int_distribution<uint32_t> mant(0, 0x7FFFFF);
  std::uniform_int_distribution<uint32_t> exp(127 - 30, 127 + 17);
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits =
        (static_cast<uint32_t>(i & 1) << 31) | (exp(rng) << 23) | mant(rng);
    float x = bitsToFloat(bits);
    float got = fp16ToFp32(fp32ToFp16(x));
    float want = refRoundFp16(x);
    REQUIRE(floatToBits(got) == floatToBits(want));
  }
}

TEST_CASE("bf16 known encodings and ties", "[bf16]") {
  CHECK(fp32ToBf16(1.0f) == 0x3F80);
  CHECK(fp32ToBf16(-1.0f) == 0xBF80);
  CHECK(fp32ToBf16(bitsToFloat(0x3F808000u)) == 0x3F80); // Tie -> even.
  CHECK(fp32ToBf16(bitsToFloat(0x3F818000u)) == 0x3F82); // Tie -> even (up).
  CHECK(fp32ToBf16(bitsToFloat(0x3F808001u)) == 0x3F81);
  CHECK(fp32ToBf16(std::numeric_limits<float>::max()) == kBf16PosInf);
  CHECK(fp32ToBf16(bitsToFloat(0x7F7F7FFFu)) == 0x7F7F); // Stays finite.
  CHECK(fp32ToBf16(INFINITY) == kBf16PosInf);
  CHECK(fp32ToBf16(-0.0f) == 0x8000);
  // fp32 subnormals stay subnormal in bf16 with the same rounding.
  CHECK(fp32ToBf16(bitsToFloat(0x00018000u)) == 0x0002);
  CHECK(fp32ToBf16(bitsToFloat(0x00008000u)) == 0x0000);
  CHECK(fp32ToBf16(bitsToFloat(0x00010001u)) == 0x0001);
  // Signalling NaN whose payload would be dropped stays NaN, quiet.
  CHECK(fp32ToBf16(bitsToFloat(0x7F800001u)) == 0x7FC0);
  CHECK(fp32ToBf16(bitsToFloat(0xFF800001u)) == 0xFFC0);
  CHECK(std::isnan(bf16ToFp32(0x7F81)));
  CHECK((floatToBits(bf16ToFp32(0x7F81)) & 0x00400000u) != 0);
}

TEST_CASE("bf16 exhaustive round trip through fp32", "[bf16][exhaustive]") {
  for (uint32_t i = 0; i < 65536; ++i) {
    uint16_t b = static_cast<uint16_t>(i);
    float f = bf16ToFp32(b);
    if (isBf16NaN(b)) {
      REQUIRE(std::isnan(f));
      REQUIRE(isBf16NaN(fp32ToBf16(f)));
      continue;
    }
    REQUIRE(floatToBits(f) == static_cast<uint32_t>(b) << 16);
    REQUIRE(fp32ToBf16(f) == b);
  }
}

TEST_CASE("bf16 round trip relative error bound", "[bf16][random]") {
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> exp(-120, 120);
  for (int i = 0; i < 100000; ++i) {
    float x = std::ldexp(mant(rng), exp(rng)) * ((i & 1) ? -1.0f : 1.0f);
    float y = bf16ToFp32(fp32ToBf16(x));
    // Half an ulp of an 8-bit significand: 2^-8 relative.
    REQUIRE(std::fabs(y - x) <= std::ldexp(std::fabs(x), -8));
  }
}

TEST_CASE("16-bit span conversions", "[fp16][bf16]") {
  std::vector<float> in = {1.0f, -0.5f, 65504.0f, 1e-8f, 3.140625f, -0.0f};
  std::vector<uint16_t> h(in.size()), b(in.size()), hb(in.size());
  std::vector<float> back(in.size());
  fp32ToFp16(in, h);
  for (size_t i = 0; i < in.size(); ++i)
    CHECK(h[i] == fp32ToFp16(in[i]));
  fp16ToFp32(h, back);
  for (size_t i = 0; i < in.size(); ++i)
    CHECK(back[i] == fp16ToFp32(h[i]));
  fp32ToBf16(in, b);
  bf16ToFp32(b, back);
  for (size_t i = 0; i < in.size(); ++i)
    CHECK(floatToBits(back[i]) == static_cast<uint32_t>(b[i]) << 16);
  // fp16 -> bf16 has one rounding: equals rounding the widened value.
  fp16ToBf16(h, hb);
  for (size_t i = 0; i < in.size(); ++i)
    CHECK(hb[i] == fp32ToBf16(fp16ToFp32(h[i])));
  bf16ToFp16(b, hb);
  for (size_t i = 0; i < in.size(); ++i)
    CHECK(hb[i] == fp32ToFp16(bf16ToFp32(b[i])));
  std::vector<float> r(in.size());
  roundToFp16(in, r);
  CHECK(r[3] == fp16ToFp32(fp32ToFp16(1e-8f)));
  CHECK(std::signbit(r[5]));
  roundToBf16(in, r);
  CHECK(r[4] == 3.140625f);
}
