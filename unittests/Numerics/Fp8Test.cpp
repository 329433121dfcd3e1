//===- Fp8Test.cpp - OCP fp8 E4M3 / E5M2 conversion tests -----------------===//
//
// All 256 codes of both formats against an independent decoder written from
// the OCP spec tables, midpoint (tie) behaviour between every pair of
// adjacent codes, and both overflow policies.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Fp8.h"

#include <catch2/catch.hpp>

using namespace nnaccel::numerics;

namespace {
/// Decoder straight from the spec: bias, subnormals, special encodings.
double specDecode(uint8_t v, int expBits, int manBits, bool e4m3) {
  int bias = (1 << (expBits - 1)) - 1;
  int s = v >> 7, e = (v >> manBits) & ((1 << expBits) - 1);
  int m = v & ((1 << manBits) - 1);
  double sign = s ? -1.0 : 1.0;
  if (e4m3 && e == 15 && m == 7)
    return NAN;
  if (!e4m3 && e == 31)
    return m == 0 ? sign * INFINITY : NAN;
  if (e == 0)
    return sign * std::ldexp(m, 1 - bias - manBits);
  return sign * std::ldexp((1 << manBits) + m, e - bias - manBits);
}
} // namespace

TEST_CASE("fp8 E4M3 all 256 codes", "[fp8][exhaustive]") {
  int nans = 0;
  for (int i = 0; i < 256; ++i) {
    uint8_t v = static_cast<uint8_t>(i);
    double want = specDecode(v, 4, 3, true);
    float got = fp8E4M3ToFp32(v);
    if (std::isnan(want)) {
      ++nans;
      REQUIRE(std::isnan(got));
      REQUIRE(isFp8E4M3NaN(v));
      REQUIRE(fp32ToFp8E4M3(got) == v); // Sign preserved.
      continue;
    }
    REQUIRE(static_cast<double>(got) == want);
    REQUIRE(fp32ToFp8E4M3(got) == v);
    REQUIRE(fp32ToFp8E4M3(got, Fp8Overflow::NonSaturating) == v);
  }
  CHECK(nans == 2);
  CHECK(fp8E4M3ToFp32(kFp8E4M3MaxFinite) == 448.0f);
  CHECK(fp8E4M3ToFp32(0x01) == std::ldexp(1.0f, -9));
  CHECK(fp8E4M3ToFp32(0x08) == std::ldexp(1.0f, -6));
}

TEST_CASE("fp8 E5M2 all 256 codes", "[fp8][exhaustive]") {
  int nans = 0, infs = 0;
  for (int i = 0; i < 256; ++i) {
    uint8_t v = static_cast<uint8_t>(i);
    double want = specDecode(v, 5, 2, false);
    float got = fp8E5M2ToFp32(v);
    if (std::isnan(want)) {
      ++nans;
      REQUIRE(std::isnan(got));
      REQUIRE(isFp8E5M2NaN(fp32ToFp8E5M2(got)));
      continue;
    }
    if (std::isinf(want)) {
      ++infs;
      REQUIRE(static_cast<double>(got) == want);
      REQUIRE(fp32ToFp8E5M2(got, Fp8Overflow::NonSaturating) == v);
      continue;
    }
    REQUIRE(static_cast<double>(got) == want);
    REQUIRE(fp32ToFp8E5M2(got) == v);
  }
  CHECK(nans == 6);
  CHECK(infs == 2);
  CHECK(fp8E5M2ToFp32(kFp8E5M2MaxFinite) == 57344.0f);
  CHECK(fp8E5M2ToFp32(0x01) == std::ldexp(1.0f, -16));
}

TEST_CASE("fp8 midpoints round to even", "[fp8][exhaustive]") {
  struct Fmt {
    uint8_t maxCode;
    float (*dec)(uint8_t);
    uint8_t (*enc)(float, Fp8Overflow);
  };
  Fmt fmts[] = {{kFp8E4M3MaxFinite, fp8E4M3ToFp32, fp32ToFp8E4M3},
                {kFp8E5M2MaxFinite, fp8E5M2ToFp32, fp32ToFp8E5M2}};
  for (const Fmt &f : fmts) {
    for (uint32_t c = 0; c < f.maxCode; ++c) {
      float lo = f.dec(static_cast<uint8_t>(c));
      float hi = f.dec(static_cast<uint8_t>(c + 1));
      float mid = (lo + hi) / 2; // Exact: few significant bits.
      uint32_t even = (c & 1) ? c + 1 : c;
      REQUIRE(f.enc(mid, Fp8Overflow::Saturate) == even);
      REQUIRE(f.enc(std::nextafter(mid, 0.0f), Fp8Overflow::Saturate) == c);
      REQUIRE(f.enc(std::nextafter(mid, INFINITY), Fp8Overflow::Saturate) ==
              c + 1);
      REQUIRE(f.enc(-mid, Fp8Overflow::Saturate) == (even | 0x80));
    }
  }
}

TEST_CASE("fp8 overflow policies", "[fp8]") {
  // E4M3: 464 is the midpoint between 448 and (unrepresentable) 480 and
  // ties to even 448; anything above overflows.
  CHECK(fp32ToFp8E4M3(464.0f) == kFp8E4M3MaxFinite);
  CHECK(fp32ToFp8E4M3(464.01f) == kFp8E4M3MaxFinite);
  CHECK(fp32ToFp8E4M3(464.01f, Fp8Overflow::NonSaturating) == kFp8E4M3NaN);
  CHECK(fp32ToFp8E4M3(1e30f) == kFp8E4M3MaxFinite);
  CHECK(fp32ToFp8E4M3(-1e30f) == (0x80 | kFp8E4M3MaxFinite));
  CHECK(fp32ToFp8E4M3(INFINITY) == kFp8E4M3MaxFinite);
  CHECK(fp32ToFp8E4M3(-INFINITY, Fp8Overflow::NonSaturating) == 0xFF);
  CHECK(fp32ToFp8E4M3(NAN) == kFp8E4M3NaN);
  // E5M2: 61440 ties between 57344 (odd mantissa) and 65536: overflow.
  CHECK(fp32ToFp8E5M2(61439.0f) == kFp8E5M2MaxFinite);
  CHECK(fp32ToFp8E5M2(61440.0f) == kFp8E5M2MaxFinite);
  CHECK(fp32ToFp8E5M2(61440.0f, Fp8Overflow::NonSaturating) == kFp8E5M2PosInf);
  CHECK(fp32ToFp8E5M2(INFINITY) == kFp8E5M2MaxFinite);
  CHECK(fp32ToFp8E5M2(-INFINITY, Fp8Overflow::NonSaturating) == 0xFC);
  CHECK(isFp8E5M2NaN(fp32ToFp8E5M2(-NAN)));
}

TEST_CASE("fp8 zeros and underflow", "[fp8]") {
  CHECK(fp32ToFp8E4M3(0.0f) == 0x00);
  CHECK(fp32ToFp8E4M3(-0.0f) == 0x80);
  CHECK(std::signbit(fp8E4M3ToFp32(0x80)));
  CHECK(fp32ToFp8E4M3(std::ldexp(1.0f, -10)) == 0x00); // Half the min: tie.
  CHECK(fp32ToFp8E4M3(std::ldexp(1.5f, -10)) == 0x01);
  CHECK(fp32ToFp8E4M3(-1e-30f) == 0x80);
  CHECK(fp32ToFp8E5M2(std::ldexp(1.0f, -17)) == 0x00);
  CHECK(fp32ToFp8E5M2(std::ldexp(3.0f, -17)) == 0x02); // 1.5 quanta -> 2.
  CHECK(fp32ToFp8E5M2(std::numeric_limits<float>::denorm_min()) == 0x00);
}

TEST_CASE("fp8 span conversions", "[fp8]") {
  std::vector<float> in = {0.0f, 1.0f, -3.5f, 500.0f, 1e-3f, NAN};
  std::vector<uint8_t> a(in.size()), b(in.size());
  std::vector<float> back(in.size());
  fp32ToFp8E4M3(in, a, Fp8Overflow::NonSaturating);
  fp32ToFp8E5M2(in, b);
  for (size_t i = 0; i < in.size(); ++i) {
    CHECK(a[i] == fp32ToFp8E4M3(in[i], Fp8Overflow::NonSaturating));
    CHECK(b[i] == fp32ToFp8E5M2(in[i]));
  }
  CHECK(isFp8E4M3NaN(a[3])); // 500 overflows without saturation.
  fp8E4M3ToFp32(a, back);
  CHECK(back[2] == -3.5f);
  fp8E5M2ToFp32(b, back);
  CHECK(back[3] == 512.0f);
  CHECK(std::isnan(back[5]));
}
