//===- RowwiseEmbeddingTest.cpp - Fused rowwise embedding format tests ----===//
//
// Byte layout of 8-bit and 4-bit fused rows, constant rows, error bounds,
// rejection of bad rows, the accumulate/EmbeddingBag primitives, and the
// rw8/rw4 element types' row sizes (DType.h) that size tables everywhere.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/RowwiseEmbedding.h"

#include "nnaccel/Numerics/DType.h"
#include "nnaccel/Numerics/Float16.h"

#include <catch2/catch.hpp>

#include <random>

using namespace nnaccel::numerics;

namespace {
uint32_t le32(const uint8_t *p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint16_t le16(const uint8_t *p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
} // namespace

TEST_CASE("8-bit fused row layout and values", "[rowwise]") {
  std::vector<float> row = {1.0f, 2.0f, 3.5f};
  REQUIRE(fusedRowBytes(RowwiseBits::Eight, 3) == 11);
  std::vector<uint8_t> out(11);
  REQUIRE(quantizeFusedRow(RowwiseBits::Eight, row, out).ok());
  float scale = 2.5f / 255.0f;
  CHECK(bitsToFloat(le32(&out[3])) == scale);
  CHECK(bitsToFloat(le32(&out[7])) == 1.0f);
  CHECK(out[0] == 0);
  CHECK(out[1] == roundHalfEven(1.0f / scale));
  CHECK(out[2] == 255);
  RowScaleBias sb = readRowScaleBias(RowwiseBits::Eight, out, 3);
  CHECK(sb.scale == scale);
  CHECK(sb.bias == 1.0f);
  std::vector<float> back(3);
  dequantizeFusedRow(RowwiseBits::Eight, out, back);
  CHECK(back[0] == 1.0f);
  CHECK(back[2] == 255.0f * scale + 1.0f);
  CHECK(back[2] == Approx(3.5f));
}

TEST_CASE("4-bit fused row layout and values", "[rowwise]") {
  std::vector<float> row = {-1.0f, 0.0f, 2.0f, 0.6f, 1.0f};
  REQUIRE(fusedRowBytes(RowwiseBits::Four, 5) == 3 + 4);
  std::vector<uint8_t> out(7);
  REQUIRE(quantizeFusedRow(RowwiseBits::Four, row, out).ok());
  // bias -1 and scale 3/15 = 0.2, both stored as fp16.
  uint16_t scaleH = le16(&out[3]), biasH = le16(&out[5]);
  CHECK(biasH == fp32ToFp16(-1.0f));
  CHECK(scaleH == fp32ToFp16(0.2f));
  float scale = fp16ToFp32(scaleH);
  // Codes: low nibble first.
  auto code = [&](size_t i) { return (out[i / 2] >> (4 * (i & 1))) & 0xF; };
  CHECK(code(0) == 0);
  CHECK(code(1) == roundHalfEven(1.0f / scale));
  CHECK(code(2) == 15);
  CHECK(code(4) == roundHalfEven(2.0f / scale));
  CHECK((out[2] >> 4) == 0); // Unused high nibble of the odd tail.
  std::vector<float> back(5);
  dequantizeFusedRow(RowwiseBits::Four, out, back);
  for (size_t i = 0; i < row.size(); ++i)
    CHECK(std::fabs(back[i] - row[i]) <= scale * 0.5f + 1e-3f);
}

TEST_CASE("constant rows store scale 1 and reproduce the value", "[rowwise]") {
  for (RowwiseBits bits : {RowwiseBits::Eight, RowwiseBits::Four}) {
    std::vector<float> row(7, 0.75f);
    std::vector<uint8_t> out(fusedRowBytes(bits, 7));
    REQUIRE(quantizeFusedRow(bits, row, out).ok());
    RowScaleBias sb = readRowScaleBias(bits, out, 7);
    CHECK(sb.scale == 1.0f);
    CHECK(sb.bias == 0.75f);
    std::vector<float> back(7);
    dequantizeFusedRow(bits, out, back);
    for (float v : back)
      CHECK(v == 0.75f);
  }
  // All-zero row and an empty row.
  std::vector<float> zeros(4, 0.0f);
  std::vector<uint8_t> z(fusedRowBytes(RowwiseBits::Eight, 4));
  REQUIRE(quantizeFusedRow(RowwiseBits::Eight, zeros, z).ok());
  CHECK(readRowScaleBias(RowwiseBits::Eight, z, 4).scale == 1.0f);
  std::vector<uint8_t> e(fusedRowBytes(RowwiseBits::Four, 0));
  CHECK(quantizeFusedRow(RowwiseBits::Four, Span<const float>(), e).ok());
  // A 4-bit row whose range underflows fp16 behaves like a constant row.
  std::vector<float> tiny = {1.0f, 1.0f + 1e-7f};
  std::vector<uint8_t> t(fusedRowBytes(RowwiseBits::Four, 2));
  REQUIRE(quantizeFusedRow(RowwiseBits::Four, tiny, t).ok());
  CHECK(readRowScaleBias(RowwiseBits::Four, t, 2).scale == 1.0f);
}

TEST_CASE("bad rows are rejected", "[rowwise]") {
  std::vector<uint8_t> out8(fusedRowBytes(RowwiseBits::Eight, 2));
  std::vector<uint8_t> out4(fusedRowBytes(RowwiseBits::Four, 2));
  std::vector<float> nanRow = {1.0f, NAN};
  std::vector<float> infRow = {-INFINITY, 1.0f};
  std::vector<float> hugeRange = {-3e38f, 3e38f};
  std::vector<float> bigForFp16 = {1e6f, 1e6f};
  CHECK_FALSE(quantizeFusedRow(RowwiseBits::Eight, nanRow, out8).ok());
  CHECK_FALSE(quantizeFusedRow(RowwiseBits::Eight, infRow, out8).ok());
  CHECK_FALSE(quantizeFusedRow(RowwiseBits::Eight, hugeRange, out8).ok());
  CHECK_FALSE(quantizeFusedRow(RowwiseBits::Four, nanRow, out4).ok());
  Status s = quantizeFusedRow(RowwiseBits::Four, bigForFp16, out4);
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("fp16") != std::string::npos);
  CHECK(quantizeFusedRow(RowwiseBits::Eight, bigForFp16, out8).ok());
}

TEST_CASE("fused row round-trip error bound", "[rowwise][random]") {
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  for (RowwiseBits bits : {RowwiseBits::Eight, RowwiseBits::Four}) {
    for (int t = 0; t < 100; ++t) {
      size_t dim = 1 + static_cast<size_t>(t % 37);
      std::vector<float> row(dim);
      for (float &v : row)
        v = dist(rng);
      std::vector<uint8_t> out(fusedRowBytes(bits, dim));
      REQUIRE(quantizeFusedRow(bits, row, out).ok());
      std::vector<float> back(dim);
      dequantizeFusedRow(bits, out, back);
      RowScaleBias sb = readRowScaleBias(bits, out, dim);
      float lo = *std::min_element(row.begin(), row.end());
      float hi = *std::max_element(row.begin(), row.end());
      // Half a step; the 4-bit format also loses fp16 rounding of the bias
      // and scale (relative 2^-11 each, up to 15 steps).
      float slack = bits == RowwiseBits::Eight
                        ? 1e-5f * (std::fabs(lo) + std::fabs(hi))
                        : std::ldexp(std::fabs(lo) + 16.0f * sb.scale, -10);
      for (size_t i = 0; i < dim; ++i)
        REQUIRE(std::fabs(back[i] - row[i]) <= sb.scale * 0.5f + slack);
    }
  }
}

TEST_CASE("accumulateFusedRow follows the documented order", "[rowwise]") {
  std::vector<float> row = {0.1f, -0.7f, 2.3f, 1.1f, -1.9f};
  for (RowwiseBits bits : {RowwiseBits::Eight, RowwiseBits::Four}) {
    std::vector<uint8_t> q(fusedRowBytes(bits, 5));
    REQUIRE(quantizeFusedRow(bits, row, q).ok());
    std::vector<float> deq(5), acc(5, 0.25f);
    dequantizeFusedRow(bits, q, deq);
    // weight 1: identical to dequantise + add.
    accumulateFusedRow(bits, q, 1.0f, acc);
    for (size_t i = 0; i < 5; ++i)
      CHECK(acc[i] == 0.25f + deq[i]);
    // General weight: the dequantised element times w, then added (the
    // device's emb.gather order).
    float w = 0.3f;
    std::vector<float> acc2(5, 1.0f);
    accumulateFusedRow(bits, q, w, acc2);
    for (size_t i = 0; i < 5; ++i) {
      float t = deq[i] * w;
      CHECK(acc2[i] == 1.0f + t);
    }
  }
}

TEST_CASE("embeddingBagFused sums weighted rows per bag", "[rowwise]") {
  const size_t dim = 3;
  std::vector<float> data = {1, 2, 3, 4, 5, 6, -1, -2, -3, 0, 0, 0};
  for (RowwiseBits bits : {RowwiseBits::Eight, RowwiseBits::Four}) {
    std::vector<uint8_t> table(4 * fusedRowBytes(bits, dim));
    REQUIRE(quantizeFusedTable(bits, data, dim, table).ok());
    std::vector<float> deq(data.size());
    dequantizeFusedTable(bits, table, dim, deq);
    std::vector<int64_t> indices = {0, 2, 1, 1, 3};
    std::vector<int64_t> offsets = {0, 2, 2};
    std::vector<float> weights = {1.0f, 2.0f, 0.5f, 0.5f, 3.0f};
    std::vector<float> out(3 * dim, 99.0f);
    REQUIRE(embeddingBagFused(bits, table, dim, indices, offsets, weights, out)
                .ok());
    for (size_t j = 0; j < dim; ++j) {
      CHECK(out[j] == Approx(deq[j] + 2.0f * deq[6 + j]));
      CHECK(out[dim + j] == 0.0f); // Empty bag.
      CHECK(out[2 * dim + j] == Approx(deq[3 + j]).margin(1e-6));
    }
    // Unweighted and error cases.
    REQUIRE(embeddingBagFused(bits, table, dim, indices, offsets,
                              Span<const float>(), out)
                .ok());
    CHECK(out[0] == Approx(deq[0] + deq[6]).margin(1e-6));
    std::vector<int64_t> badIdx = {0, 4};
    std::vector<int64_t> oneBag = {0};
    CHECK_FALSE(embeddingBagFused(bits, table, dim, badIdx, oneBag,
                                  Span<const float>(),
                                  Span<float>(out.data(), dim))
                    .ok());
    std::vector<int64_t> badOff = {0, 7};
    CHECK_FALSE(embeddingBagFused(bits, table, dim, indices, badOff,
                                  Span<const float>(),
                                  Span<float>(out.data(), 2 * dim))
                    .ok());
  }
}

TEST_CASE("rw8/rw4 tables are sized as fused rows", "[rowwise]") {
  using nnaccel::DType;
  for (size_t dim : {1, 2, 7, 32, 33, 64}) {
    INFO("dim " << dim);
    CHECK(nnaccel::rowBytes(DType::RW8, dim) ==
          fusedRowBytes(RowwiseBits::Eight, dim));
    CHECK(nnaccel::rowBytes(DType::RW4, dim) ==
          fusedRowBytes(RowwiseBits::Four, dim));
    CHECK(nnaccel::denseBytes(DType::RW4, {10, int64_t(dim)}) ==
          10 * fusedRowBytes(RowwiseBits::Four, dim));
  }
  CHECK(nnaccel::dtypeName(DType::RW4) == "rw4");
  CHECK(nnaccel::parseDType("rw8") == DType::RW8);
  CHECK(nnaccel::isRowwise(DType::RW8));
  CHECK_FALSE(nnaccel::isInteger(DType::RW4));
  CHECK_FALSE(nnaccel::isISADType(DType::RW4));
}
