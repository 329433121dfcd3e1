//===- AffineTest.cpp - int8/uint8/int4 affine quantisation tests ---------===//
//
// ONNX QuantizeLinear/DequantizeLinear semantics: ties to even, saturation,
// NaN/inf, per-axis channel selection, parameter validation, the int4
// nibble order, and the scale/2 round-trip error bound.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Affine.h"

#include <catch2/catch.hpp>

#include <random>

using namespace nnaccel::numerics;

TEST_CASE("quantizeValue rounds half to even", "[affine]") {
  QuantParams p{0.5f, 0};
  CHECK(quantizeValue(0.25f, p, kInt8Range) == 0);  // 0.5 -> 0
  CHECK(quantizeValue(0.75f, p, kInt8Range) == 2);  // 1.5 -> 2
  CHECK(quantizeValue(1.25f, p, kInt8Range) == 2);  // 2.5 -> 2
  CHECK(quantizeValue(1.75f, p, kInt8Range) == 4);  // 3.5 -> 4
  CHECK(quantizeValue(-0.25f, p, kInt8Range) == 0); // -0.5 -> -0
  CHECK(quantizeValue(-0.75f, p, kInt8Range) == -2);
  CHECK(quantizeValue(-1.25f, p, kInt8Range) == -2);
  CHECK(quantizeValue(0.26f, p, kInt8Range) == 1);
}

TEST_CASE("quantizeValue saturates and handles specials", "[affine]") {
  QuantParams p{0.1f, 10};
  CHECK(quantizeValue(1000.0f, p, kInt8Range) == 127);
  CHECK(quantizeValue(-1000.0f, p, kInt8Range) == -128);
  CHECK(quantizeValue(INFINITY, p, kInt8Range) == 127);
  CHECK(quantizeValue(-INFINITY, p, kUInt8Range) == 0);
  CHECK(quantizeValue(NAN, p, kInt8Range) == 10);
  CHECK(quantizeValue(-0.0f, p, kInt8Range) == 10);
  CHECK(quantizeValue(1e38f, QuantParams{1e-30f, 0}, kInt8Range) == 127);
  // Saturation applies after adding the zero point.
  CHECK(quantizeValue(12.0f, p, kInt8Range) == 127); // 120 + 10 -> 127
  CHECK(quantizeValue(11.6f, p, kInt8Range) == 126);
  CHECK(quantizeValue(-1.0f, QuantParams{1.0f, 0}, kUInt8Range) == 0);
}

TEST_CASE("ONNX QuantizeLinear reference example", "[affine]") {
  // Example from the ONNX operator documentation.
  std::vector<float> x = {0.0f, 2.0f, 3.0f, 1000.0f, -254.0f, -1000.0f};
  std::vector<uint8_t> y(x.size());
  REQUIRE(quantizeUInt8(x, QuantParams{2.0f, 128}, y).ok());
  CHECK(y == std::vector<uint8_t>{128, 129, 130, 255, 1, 0});
  std::vector<float> back(x.size());
  dequantizeUInt8(y, QuantParams{2.0f, 128}, back);
  CHECK(back == std::vector<float>{0.0f, 2.0f, 4.0f, 254.0f, -254.0f, -256.0f});
}

TEST_CASE("invalid parameters are reported, not aborted", "[affine]") {
  std::vector<float> x = {1.0f, 2.0f};
  std::vector<int8_t> y = {42, 42};
  Status s = quantizeInt8(x, QuantParams{0.0f, 0}, y);
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("scale") != std::string::npos);
  CHECK(y == std::vector<int8_t>{42, 42}); // Untouched.
  CHECK_FALSE(quantizeInt8(x, QuantParams{-1.0f, 0}, y).ok());
  CHECK_FALSE(quantizeInt8(x, QuantParams{NAN, 0}, y).ok());
  CHECK_FALSE(quantizeInt8(x, QuantParams{INFINITY, 0}, y).ok());
  CHECK_FALSE(quantizeInt8(x, QuantParams{1.0f, 128}, y).ok());
  std::vector<uint8_t> u(2);
  CHECK_FALSE(quantizeUInt8(x, QuantParams{1.0f, -1}, u).ok());
  std::vector<uint8_t> packed(1);
  CHECK_FALSE(quantizeInt4Packed(x, QuantParams{1.0f, 8}, packed).ok());
  CHECK(quantizeInt4Packed(x, QuantParams{1.0f, 7}, packed).ok());

  std::vector<float> scales = {1.0f, 0.0f};
  std::vector<int32_t> zps = {0, 0};
  AxisQuantParams ap{scales, zps, 1};
  Status as = quantizeInt8PerAxis(x, ap, y);
  CHECK_FALSE(as.ok());
  CHECK(as.message().find("channel 1") != std::string::npos);
  std::vector<int32_t> shortZps = {0};
  CHECK_FALSE(validate(AxisQuantParams{scales, shortZps, 1}, kInt8Range).ok());
}

TEST_CASE("per-axis quantisation selects the channel", "[affine]") {
  // Shape [2, 3, 2] quantised along axis 1: innerSize 2, 3 channels.
  std::vector<float> scales = {0.5f, 0.25f, 0.5f};
  std::vector<int32_t> zps = {0, 1, -1};
  AxisQuantParams p{scales, zps, 2};
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i) * 0.5f - 2.0f;
  std::vector<int8_t> q(12);
  REQUIRE(quantizeInt8PerAxis(x, p, q).ok());
  for (size_t i = 0; i < x.size(); ++i) {
    size_t c = (i / 2) % 3;
    QuantParams cp{scales[c], zps[c]};
    CHECK(q[i] == quantizeValue(x[i], cp, kInt8Range));
  }
  CHECK(q[2] == -3); // x = -1, channel 1: -1 / 0.25 + 1
  std::vector<float> back(12);
  dequantizeInt8PerAxis(q, p, back);
  for (size_t i = 0; i < x.size(); ++i)
    CHECK(back[i] == x[i]); // All values are representable here.

  std::vector<uint8_t> uq(12);
  std::vector<int32_t> uzps = {128, 0, 255};
  AxisQuantParams up{scales, uzps, 2};
  REQUIRE(quantizeUInt8PerAxis(x, up, uq).ok());
  CHECK(uq[0] == 124);  // -2 / 0.5 + 128
  CHECK(uq[2] == 0);    // -1 / 0.25 + 0 saturates to 0
  CHECK(uq[11] == 255); // 3.5 / 0.5 + 255 saturates
  dequantizeUInt8PerAxis(uq, up, back);
  CHECK(back[0] == -2.0f);
}

TEST_CASE("affine round trip error is at most scale / 2", "[affine][random]") {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> scaleDist(1e-4f, 10.0f);
  std::uniform_int_distribution<int32_t> zpDist(-128, 127);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int t = 0; t < 200; ++t) {
    QuantParams p{scaleDist(rng), zpDist(rng)};
    // Values strictly inside the representable range.
    float lo = (static_cast<float>(-128 - p.zeroPoint)) * p.scale;
    float hi = (static_cast<float>(127 - p.zeroPoint)) * p.scale;
    std::vector<float> x(64), y(64);
    for (float &v : x)
      v = lo + (hi - lo) * unit(rng);
    REQUIRE(fakeQuantize(x, p, kInt8Range, y).ok());
    for (size_t i = 0; i < x.size(); ++i) {
      // Half a step, plus the fp32 roundings of x/scale and q*scale.
      float bound = p.scale * 0.5f + std::fabs(x[i]) * 3e-7f;
      REQUIRE(std::fabs(y[i] - x[i]) <= bound);
    }
  }
}

TEST_CASE("int4 packing puts the even element in the low nibble", "[int4]") {
  std::vector<int8_t> v = {1, -2, 3, -8, 7};
  std::vector<uint8_t> packed(packedInt4Size(v.size()));
  REQUIRE(packed.size() == 3);
  packInt4(v, packed);
  CHECK(packed[0] == 0xE1); // -2 = 0xE high, 1 low
  CHECK(packed[1] == 0x83); // -8 = 0x8 high, 3 low
  CHECK(packed[2] == 0x07); // Odd tail: high nibble zero.
  std::vector<int8_t> back(v.size());
  unpackInt4(packed, back);
  CHECK(back == v);
  CHECK(readPackedInt4(packed.data(), 1) == -2);
  // Whatever the buffer held before (the odd tail's high nibble included).
  std::vector<uint8_t> dirty(packed.size(), 0xFF);
  packInt4(v, dirty);
  CHECK(dirty == packed);

  std::vector<uint8_t> u = {15, 0, 9};
  std::vector<uint8_t> up(2);
  packUInt4(u, up);
  CHECK(up[0] == 0x0F);
  CHECK(up[1] == 0x09);
  std::vector<uint8_t> uback(3);
  unpackUInt4(up, uback);
  CHECK(uback == u);
}

TEST_CASE("int4 exhaustive nibble round trip", "[int4][exhaustive]") {
  for (int a = -8; a <= 7; ++a)
    for (int b = -8; b <= 7; ++b) {
      int8_t v[2] = {static_cast<int8_t>(a), static_cast<int8_t>(b)};
      uint8_t p[1];
      packInt4(Span<const int8_t>(v, 2), Span<uint8_t>(p, 1));
      REQUIRE(p[0] == static_cast<uint8_t>((a & 0xF) | ((b & 0xF) << 4)));
      REQUIRE(readPackedInt4(p, 0) == a);
      REQUIRE(readPackedInt4(p, 1) == b);
    }
}

TEST_CASE("int4 / uint4 quantisation", "[int4]") {
  std::vector<float> x = {0.0f, 0.5f, -0.5f, 100.0f, -100.0f, 1.5f, 2.5f};
  std::vector<uint8_t> packed(packedInt4Size(x.size()));
  REQUIRE(quantizeInt4Packed(x, QuantParams{1.0f, 0}, packed).ok());
  std::vector<int8_t> q(x.size());
  unpackInt4(packed, q);
  CHECK(q == std::vector<int8_t>{0, 0, 0, 7, -8, 2, 2});
  std::vector<float> back(x.size());
  dequantizeInt4Packed(packed, QuantParams{1.0f, 0}, back);
  CHECK(back[3] == 7.0f);
  CHECK(back[4] == -8.0f);

  REQUIRE(quantizeUInt4Packed(x, QuantParams{0.5f, 8}, packed).ok());
  std::vector<uint8_t> uq(x.size());
  unpackUInt4(packed, uq);
  CHECK(uq == std::vector<uint8_t>{8, 9, 7, 15, 0, 11, 13});
  dequantizeUInt4Packed(packed, QuantParams{0.5f, 8}, back);
  CHECK(back[6] == 2.5f);

  // Per-axis int4 weights [2 channels x 3].
  std::vector<float> w = {1.0f, -1.0f, 2.0f, 1.0f, -1.0f, 2.0f};
  std::vector<float> scales = {1.0f, 0.5f};
  std::vector<int32_t> zps = {0, 0};
  AxisQuantParams ap{scales, zps, 3};
  std::vector<uint8_t> wp(3);
  REQUIRE(quantizeInt4PackedPerAxis(w, ap, wp).ok());
  std::vector<int8_t> wq(6);
  unpackInt4(wp, wq);
  CHECK(wq == std::vector<int8_t>{1, -1, 2, 2, -2, 4});
  std::vector<float> wback(6);
  dequantizeInt4PackedPerAxis(wp, ap, wback);
  CHECK(wback == w);
}

TEST_CASE("dequantisation is a single rounding", "[affine]") {
  QuantParams p{0.1f, -3};
  for (int q = -128; q <= 127; ++q)
    REQUIRE(dequantizeValue(q, p) == static_cast<float>(q + 3) * 0.1f);
  std::vector<int8_t> q = {-128, 0, 127};
  std::vector<float> out(3);
  dequantizeInt8(q, p, out);
  CHECK(out[1] == 3.0f * 0.1f);
  CHECK(out[0] == -125.0f * 0.1f);
}
