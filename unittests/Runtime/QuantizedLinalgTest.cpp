//===- QuantizedLinalgTest.cpp - quantized fully_connected tests ----------===//
//
// The host's quantized fully_connected (HostQuantizedLinalg.cpp) with 4-bit
// weights: i4 packed two per byte, element 2j of a row in the low nibble of
// its byte j, rows ceil(columns / 2) bytes, as the matrix unit reads them.
// The same integers as i8 must give the same bits, in both weight layouts,
// with an odd row length (a spare high nibble the kernel must ignore), a
// u8 input with a zero point and an i32 bias; and against a naive loop.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

namespace {
/// `rows` x `cols` values in [-8, 7] (every code occurs), row-major.
std::vector<int8_t> int4Values(int64_t rows, int64_t cols) {
  std::vector<int8_t> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<int8_t>(static_cast<int64_t>((i * 7 + 3) % 16) - 8);
  return v;
}

/// The values packed as an i4 tensor; the spare high nibble of an odd row
/// is set (0xF) so a kernel reading it would be caught.
Tensor packInt4(const std::vector<int8_t> &v, int64_t rows, int64_t cols) {
  Tensor t = Tensor::allocate(TensorDesc(DType::I4, {rows, cols}));
  REQUIRE(!t.isNull());
  const int64_t rowBytes = (cols + 1) / 2;
  REQUIRE(t.getByteSize() == static_cast<size_t>(rows * rowBytes));
  auto *bytes = static_cast<uint8_t *>(t.mutableData());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < rowBytes; ++b)
      bytes[r * rowBytes + b] = cols % 2 && b == rowBytes - 1 ? 0xF0 : 0;
    for (int64_t c = 0; c < cols; ++c) {
      uint8_t nibble = static_cast<uint8_t>(v[size_t(r * cols + c)]) & 0xF;
      bytes[r * rowBytes + c / 2] |=
          static_cast<uint8_t>(c % 2 ? nibble << 4 : nibble);
    }
  }
  return t;
}

using Attrs = std::map<std::string, AttrValue, std::less<>>;
} // namespace

TEST_CASE("quantized fully_connected: packed i4 weights",
          "[runtime][linalg][quantized]") {
  const int64_t m = 3, k = 5, n = 4;
  std::vector<uint8_t> xs(static_cast<size_t>(m * k));
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = static_cast<uint8_t>((i * 53 + 11) % 256);
  Tensor x = make(DType::U8, {m, k}, xs);
  const std::vector<int32_t> biasValues = {100, -7, 0, 123456};
  Tensor bias = i32({n}, biasValues);
  const std::vector<double> weightScales = {0.25, 0.5, 0.125, 1.0};
  const double inputScale = 0.03125;
  const int64_t zeroPoint = 3;

  for (bool transposed : {true, false}) {
    INFO("transpose_weight = " << transposed);
    // N x K (transposed) or K x N, the same products either way.
    const int64_t rows = transposed ? n : k, cols = transposed ? k : n;
    std::vector<int8_t> w = int4Values(rows, cols);
    Tensor w4 = packInt4(w, rows, cols);
    Tensor w8 = make(DType::I8, {rows, cols}, w);
    HostOp op = makeOp("accel.fully_connected",
                       Attrs{{"transpose_weight", int64_t(transposed)},
                             {"input_scale", inputScale},
                             {"input_zero_point", zeroPoint},
                             {"weight_scales", weightScales}});
    auto packed = run(op, {&x, &w4, &bias}, {{DType::F32, {m, n}}});
    auto bytes = run(op, {&x, &w8, &bias}, {{DType::F32, {m, n}}});
    CHECK(values<float>(packed[0]) == values<float>(bytes[0]));

    // The kernel's arithmetic: exact sums, f32(acc) * f32(x_s * w_s).
    std::vector<float> want;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = biasValues[size_t(j)];
        for (int64_t t = 0; t < k; ++t)
          acc += (int64_t(xs[size_t(i * k + t)]) - zeroPoint) *
                 w[size_t(transposed ? j * k + t : t * n + j)];
        want.push_back(static_cast<float>(acc) *
                       static_cast<float>(inputScale * weightScales[j]));
      }
    CHECK(values<float>(packed[0]) == want);
  }
}

TEST_CASE("quantized fully_connected: weight types",
          "[runtime][linalg][quantized]") {
  Tensor x = make(DType::I8, {1, 2}, std::vector<int8_t>{1, 2});
  Tensor w = Tensor::allocate(TensorDesc(DType::U4, {2, 2}));
  REQUIRE(!w.isNull());
  std::string message = runError(
      makeOp("accel.fully_connected", Attrs{{"transpose_weight", int64_t(1)},
                                            {"input_scale", 1.0},
                                            {"weight_scale", 1.0}}),
      {&x, &w}, {{DType::F32, {1, 2}}});
  CHECK(message.find("a quantized fully_connected weight") !=
        std::string::npos);
}
