//===- BlockLinalgTest.cpp - fully_connected with block-float weights -----===//
//
// The host's block-float fully_connected (HostBlockLinalg.cpp) against a
// transcription of `mm` (docs/isa.md §8.6): weights and activation rows
// decoded from their blocks (the emulator's encoders), each block's
// products summed exactly (they are, in f32: a handful of mantissa bits),
// blocks summed in f32 from +0 per k tile, tiles summed in f32, then the
// bias. Also the diagnostics for shapes and types the kernel rejects.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include "nnaccel/Emulator/BlockPack.h"

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

namespace {
using Attrs = std::map<std::string, AttrValue, std::less<>>;

std::vector<float> pseudoRandom(size_t count, unsigned seed, float scale) {
  std::vector<float> v(count);
  uint32_t s = seed * 2654435761u + 1;
  for (float &x : v) {
    s = s * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(s >> 8) / 16777216.0f - 0.5f);
  }
  return v;
}

/// `rows` rows of `cols` values in block type `t`, each row encoded.
Tensor encode(DType t, const std::vector<float> &v, int64_t rows,
              int64_t cols) {
  Tensor w = Tensor::allocate(TensorDesc(t, {rows, cols}));
  REQUIRE(!w.isNull());
  const size_t rowBytes = nnaccel::rowBytes(t, uint64_t(cols));
  REQUIRE(w.getByteSize() == rowBytes * size_t(rows));
  auto *bytes = static_cast<uint8_t *>(w.mutableData());
  for (int64_t r = 0; r < rows; ++r)
    nnaccel::emulator::encodeBlockRow(t, v.data() + r * cols, size_t(cols),
                                      bytes + size_t(r) * rowBytes);
  return w;
}

/// The values a block row of `t` holds after encoding.
std::vector<float> roundTrip(DType t, const float *x, int64_t n) {
  std::vector<uint8_t> bytes(nnaccel::rowBytes(t, uint64_t(n)));
  std::vector<float> out(static_cast<size_t>(n));
  nnaccel::emulator::encodeBlockRow(t, x, size_t(n), bytes.data());
  nnaccel::emulator::decodeBlockRow(t, bytes.data(), size_t(n), out.data());
  return out;
}
} // namespace

TEST_CASE("block fully_connected: the matrix unit's sums",
          "[runtime][linalg][block]") {
  const int64_t m = 3, k = 128, n = 5;
  for (DType t : {DType::MSFP8, DType::MSFP9, DType::MXINT8, DType::MXFP8E4M3,
                  DType::MXFP8E5M2}) {
    for (int64_t kTile : {int64_t(0), int64_t(64), int64_t(32)}) {
      INFO(nnaccel::dtypeName(t) << " k_tile " << kTile);
      const int64_t block = int64_t(nnaccel::blockElements(t));
      std::vector<float> xs = pseudoRandom(size_t(m * k), 1, 4.0f);
      std::vector<float> ws = pseudoRandom(size_t(n * k), 2, 0.5f);
      std::vector<float> bs = pseudoRandom(size_t(n), 3, 1.0f);
      Tensor x = f32({m, k}, xs), w = encode(t, ws, n, k), b = f32({n}, bs);
      Attrs attrs{{"transpose_weight", int64_t(1)}};
      if (kTile)
        attrs["k_tile"] = kTile;
      auto got = run(makeOp("accel.fully_connected", attrs), {&x, &w, &b},
                     {{DType::F32, {m, n}}});
      const int64_t tile = kTile ? kTile : k;
      std::vector<float> want;
      for (int64_t i = 0; i < m; ++i) {
        std::vector<float> xq = roundTrip(t, xs.data() + i * k, k);
        for (int64_t j = 0; j < n; ++j) {
          std::vector<float> wq = roundTrip(t, ws.data() + j * k, k);
          float y = 0.0f;
          for (int64_t t0 = 0; t0 < k; t0 += tile) {
            float v = 0.0f;
            for (int64_t b0 = t0; b0 < t0 + tile; b0 += block) {
              float p = 0.0f; // exact: few mantissa bits per product
              for (int64_t e = b0; e < b0 + block; ++e)
                p += xq[size_t(e)] * wq[size_t(e)];
              v += p;
            }
            y = t0 == 0 ? v : y + v;
          }
          want.push_back(y + bs[size_t(j)]);
        }
      }
      CHECK(values<float>(got[0]) == want);
    }
  }
}

TEST_CASE("block fully_connected: diagnostics", "[runtime][linalg][block]") {
  Tensor x = f32({1, 24}, std::vector<float>(24, 1.0f));
  Tensor w = encode(DType::MSFP8, std::vector<float>(32, 1.0f), 2, 16);
  // K = 24 vs a 16-wide weight: shapes.
  CHECK(runError(makeOp("accel.fully_connected",
                        Attrs{{"transpose_weight", int64_t(1)}}),
                 {&x, &w}, {{DType::F32, {1, 2}}})
            .find("contraction sizes differ") != std::string::npos);
  // A K x N block weight.
  Tensor x16 = f32({1, 16}, std::vector<float>(16, 1.0f));
  CHECK(runError(makeOp("accel.fully_connected", Attrs{}), {&x16, &w},
                 {{DType::F32, {1, 2}}})
            .find("must be N x K") != std::string::npos);
  // A k tile that is not whole blocks.
  CHECK(runError(makeOp("accel.fully_connected",
                        Attrs{{"transpose_weight", int64_t(1)},
                              {"k_tile", int64_t(8)}}),
                 {&x16, &w}, {{DType::F32, {1, 2}}})
            .find("k_tile = 8 is not a multiple of the block size 16") !=
        std::string::npos);
  // An integer input.
  Tensor xi = make(DType::I32, {1, 16}, std::vector<int32_t>(16, 1));
  CHECK(runError(makeOp("accel.fully_connected",
                        Attrs{{"transpose_weight", int64_t(1)}}),
                 {&xi, &w}, {{DType::I32, {1, 2}}})
            .find("the input of a block-float product") != std::string::npos);
}
