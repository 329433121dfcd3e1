//===- BlockFloatTest.cpp - ms-fp8 / ms-fp9 block floating point tests ----===//
//
// Hand-computed blocks, saturation of the largest element, exponent
// clamping, all-zero / NaN / inf / -0 blocks, partial final blocks and the
// per-block error bound.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/BlockFloat.h"

#include <catch2/catch.hpp>

#include <random>

using namespace nnaccel::numerics;

namespace {
std::vector<float> roundTrip(MsfpType t, std::vector<float> x,
                             uint8_t *expOut = nullptr) {
  std::vector<uint8_t> codes(x.size());
  uint8_t e = encodeMsfpBlock(t, x, codes);
  if (expOut)
    *expOut = e;
  std::vector<float> out(x.size());
  decodeMsfpBlock(t, e, codes, out);
  return out;
}
} // namespace

TEST_CASE("msfp8 hand-computed block", "[msfp]") {
  std::vector<float> x = {1.0f, 0.5f, -0.25f, 0.3f, -0.75f};
  std::vector<uint8_t> codes(x.size());
  uint8_t e = encodeMsfpBlock(MsfpType::Msfp8, x, codes);
  // max |x| = 1 -> e = 0 -> field 15; quantum 2^(0 - 2 + 1) = 0.5.
  CHECK(e == 15);
  CHECK(codes[0] == 2);         // 1 / 0.5
  CHECK(codes[1] == 1);         // 0.5 / 0.5
  CHECK(codes[2] == 0x4);       // 0.5 quanta ties to 0; sign bit (bit 2)
  CHECK(codes[3] == 1);         // 0.6 -> 1
  CHECK(codes[4] == (0x4 | 2)); // 1.5 -> 2
  std::vector<float> out(x.size());
  decodeMsfpBlock(MsfpType::Msfp8, e, codes, out);
  CHECK(out == std::vector<float>{1.0f, 0.5f, -0.0f, 0.5f, -1.0f});
  CHECK(std::signbit(out[2]));
  CHECK(decodeMsfpElement(MsfpType::Msfp8, 15, 3) == 1.5f);
}

TEST_CASE("msfp9 hand-computed block", "[msfp]") {
  uint8_t e;
  // max 3 -> e = 1, quantum 2^(1 - 3 + 1) = 0.5.
  auto out = roundTrip(MsfpType::Msfp9, {3.0f, 1.25f, -0.75f, 0.2f}, &e);
  CHECK(e == 16);
  CHECK(out == std::vector<float>{3.0f, 1.0f, -1.0f, 0.0f}); // 2.5->2, 1.5->2
}

TEST_CASE("msfp largest element saturates instead of bumping e", "[msfp]") {
  // 1.9 has e = 0; 1.9 / 0.5 = 3.8 rounds to 4 > 3 -> saturates to 1.5.
  CHECK(roundTrip(MsfpType::Msfp8, {1.9f})[0] == 1.5f);
  CHECK(roundTrip(MsfpType::Msfp8, {-1.9f})[0] == -1.5f);
  // msfp9: 1.9 / 0.25 = 7.6 -> 8 > 7 -> 1.75.
  CHECK(roundTrip(MsfpType::Msfp9, {1.9f})[0] == 1.75f);
  CHECK(roundTrip(MsfpType::Msfp9, {1.8f})[0] == 1.75f);
  CHECK(roundTrip(MsfpType::Msfp9, {1.6f})[0] == 1.5f);
}

TEST_CASE("msfp exponent clamps to the 5-bit field", "[msfp]") {
  uint8_t e;
  // Huge: e clamps to 16; max representable 3 * 2^15 (msfp8).
  auto big = roundTrip(MsfpType::Msfp8, {1e6f, -1e6f, 40000.0f}, &e);
  CHECK(e == 31);
  CHECK(big == std::vector<float>{98304.0f, -98304.0f, 32768.0f});
  // Tiny: e clamps to -15; quantum 2^-16 for msfp8.
  auto tiny = roundTrip(MsfpType::Msfp8,
                        {std::ldexp(1.0f, -20), std::ldexp(3.0f, -17)}, &e);
  CHECK(e == 0);
  CHECK(tiny[0] == 0.0f);
  CHECK(tiny[1] == std::ldexp(1.0f, -15)); // 1.5 quanta -> 2
}

TEST_CASE("msfp special values", "[msfp]") {
  uint8_t e;
  auto zeros = roundTrip(MsfpType::Msfp8, {0.0f, 0.0f, -0.0f}, &e);
  CHECK(e == 0);
  CHECK(zeros == std::vector<float>{0.0f, 0.0f, 0.0f});
  CHECK(std::signbit(zeros[2]));
  // inf forces the top exponent and saturates; small values vanish.
  auto withInf = roundTrip(MsfpType::Msfp8, {INFINITY, 1.0f, -INFINITY}, &e);
  CHECK(e == 31);
  CHECK(withInf == std::vector<float>{98304.0f, 0.0f, -98304.0f});
  // NaN encodes as +0 and does not influence the exponent.
  auto withNaN = roundTrip(MsfpType::Msfp9, {NAN, 1.0f, 0.5f}, &e);
  CHECK(e == 15);
  CHECK(withNaN == std::vector<float>{0.0f, 1.0f, 0.5f});
  CHECK_FALSE(std::signbit(withNaN[0]));
  auto allNaN = roundTrip(MsfpType::Msfp8, {NAN, NAN}, &e);
  CHECK(e == 0);
  CHECK(allNaN == std::vector<float>{0.0f, 0.0f});
}

TEST_CASE("msfp span encode handles a partial last block", "[msfp]") {
  std::vector<float> x = {8.0f, 1.0f, 0.5f, 0.25f, 100.0f, 3.0f, 0.1f};
  const size_t bs = 3;
  REQUIRE(msfpNumBlocks(x.size(), bs) == 3);
  std::vector<uint8_t> exps(3), codes(x.size());
  encodeMsfp(MsfpType::Msfp9, bs, x, exps, codes);
  CHECK(exps[0] == 3 + 15);
  CHECK(exps[1] == 6 + 15);
  CHECK(exps[2] == -4 + 15); // Last block holds only 0.1: e = -4.
  std::vector<float> out(x.size()), fq(x.size());
  decodeMsfp(MsfpType::Msfp9, bs, exps, codes, out);
  fakeQuantMsfp(MsfpType::Msfp9, bs, x, fq);
  CHECK(out == fq);
  CHECK(out[0] == 8.0f);
  CHECK(out[1] == 0.0f); // 1 / 2^(3 - 2) = 0.5 quanta -> 0
  CHECK(out[6] == Approx(0.1f).epsilon(0.1));
  // Each block is encoded independently.
  std::vector<uint8_t> c0(3);
  CHECK(encodeMsfpBlock(MsfpType::Msfp9, Span<const float>(x.data() + 3, 3),
                        c0) == exps[1]);
}

TEST_CASE("msfp error bound relative to the block maximum", "[msfp][random]") {
  std::mt19937 rng(9);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::uniform_int_distribution<int> scaleExp(-5, 12);
  for (MsfpType t : {MsfpType::Msfp8, MsfpType::Msfp9}) {
    int m = msfpMantissaBits(t);
    for (int trial = 0; trial < 300; ++trial) {
      size_t bs = 1 + static_cast<size_t>(trial % 20);
      float s = std::ldexp(1.0f, scaleExp(rng));
      std::vector<float> x(bs);
      for (float &v : x)
        v = dist(rng) * s;
      std::vector<float> y(bs);
      fakeQuantMsfp(t, bs, x, y);
      float maxAbs = 0;
      for (float v : x)
        maxAbs = std::max(maxAbs, std::fabs(v));
      for (size_t i = 0; i < bs; ++i) {
        // At most one quantum 2^(e - m + 1) <= 2^(1 - m) * max|x|; non
        // saturating elements are within half a quantum.
        REQUIRE(std::fabs(y[i] - x[i]) <= std::ldexp(maxAbs, 1 - m));
        REQUIRE(std::fabs(y[i]) <= std::fabs(x[i]) + std::ldexp(maxAbs, -m));
      }
      // Idempotent: re-encoding decoded values is lossless.
      std::vector<float> z(bs);
      fakeQuantMsfp(t, bs, y, z);
      REQUIRE(z == y);
    }
  }
}
