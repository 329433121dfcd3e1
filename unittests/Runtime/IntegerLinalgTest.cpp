//===- IntegerLinalgTest.cpp - exact integer matmul and conv tests --------===//
//
// The integer paths of accel.matmul and accel.conv (HostIntegerLinalg.cpp):
// the ONNX MatMulInteger / ConvInteger examples with their zero points
// subtracted, mixed i8/u8/i16/i32 operands against a naive int64 loop
// reduced modulo 2^32, 32-bit wrap-around of products, sums and the bias,
// fused relu/clip, and the errors.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include <limits>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

namespace {
/// The int32 two's complement value of an exact sum.
int32_t wrap(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

/// Deterministic values in [lo, hi].
std::vector<int64_t> pattern(size_t n, int64_t lo, int64_t hi, int64_t seed) {
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = lo + static_cast<int64_t>((i * 37 + seed * 11) % (hi - lo + 1));
  return v;
}

template <typename T>
Tensor typed(DType dtype, std::vector<int64_t> shape,
             const std::vector<int64_t> &v) {
  return make(dtype, std::move(shape), std::vector<T>(v.begin(), v.end()));
}

using Attrs = std::map<std::string, AttrValue, std::less<>>;

Attrs conv2d(std::vector<int64_t> strides, std::vector<int64_t> pads,
             std::vector<int64_t> dilations, int64_t groups = 1) {
  return {{"strides", std::move(strides)},
          {"pads", std::move(pads)},
          {"dilations", std::move(dilations)},
          {"groups", groups}};
}
} // namespace

TEST_CASE("integer matmul: the ONNX MatMulInteger example",
          "[runtime][linalg][integer]") {
  // MatMulInteger(A, B, a_zero_point = 12, b_zero_point = 0): the importer
  // subtracts the zero points in i32 first.
  std::vector<int32_t> a = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0};
  for (int32_t &v : a)
    v -= 12;
  Tensor ta = i32({4, 3}, a);
  Tensor tb = i32({3, 2}, {1, 4, 2, 5, 3, 6});
  auto out = run(makeOp("accel.matmul"), {&ta, &tb}, {{DType::I32, {4, 2}}});
  CHECK(values<int32_t>(out[0]) ==
        std::vector<int32_t>{-38, -83, -44, -98, -50, -113, -56, -128});
}

TEST_CASE("integer matmul: mixed operand types and batch broadcasting",
          "[runtime][linalg][integer]") {
  const int64_t m = 3, k = 17, n = 5;
  std::vector<int64_t> av = pattern(2 * m * k, 0, 255, 1);
  std::vector<int64_t> bv = pattern(k * n, -128, 127, 2);
  // The same values as every operand type that can hold them.
  Tensor aU8 = typed<uint8_t>(DType::U8, {2, m, k}, av);
  Tensor aI16 = typed<int16_t>(DType::I16, {2, m, k}, av);
  Tensor aI32 = typed<int32_t>(DType::I32, {2, m, k}, av);
  Tensor bI8 = typed<int8_t>(DType::I8, {k, n}, bv);
  Tensor bI32 = typed<int32_t>(DType::I32, {k, n}, bv);
  std::vector<int32_t> want(2 * m * n);
  for (int64_t bt = 0; bt < 2; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += av[(bt * m + i) * k + p] * bv[p * n + j];
        want[(bt * m + i) * n + j] = wrap(acc);
      }
  for (const Tensor *lhs : {&aU8, &aI16, &aI32})
    for (const Tensor *rhs : {&bI8, &bI32}) {
      INFO(getDTypeName(lhs->getDType())
           << " x " << getDTypeName(rhs->getDType()));
      auto out =
          run(makeOp("accel.matmul"), {lhs, rhs}, {{DType::I32, {2, m, n}}});
      CHECK(values<int32_t>(out[0]) == want);
    }
  // u8 widens without sign extension: 255 * 1 = 255, not -1.
  Tensor u = typed<uint8_t>(DType::U8, {1, 1}, {255});
  Tensor one = typed<int8_t>(DType::I8, {1, 1}, {1});
  auto out = run(makeOp("accel.matmul"), {&u, &one}, {{DType::I32, {1, 1}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{255});
}

TEST_CASE("integer matmul: rank-1 operands", "[runtime][linalg][integer]") {
  Tensor v = i32({3}, {1, -2, 3});
  Tensor mat = i32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = run(makeOp("accel.matmul"), {&v, &mat}, {{DType::I32, {2}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{10, 12});
  out = run(makeOp("accel.matmul"), {&v, &v}, {{DType::I32, {}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{14});
}

TEST_CASE("integer matmul: 32-bit wrap-around", "[runtime][linalg][integer]") {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  // Products that overflow: 65536 * 65536 = 2^32 wraps to 0; 46341^2 =
  // 2147488281 wraps to -2147479015. Sums that overflow: MAX + 1 = MIN.
  Tensor a = i32({3, 2}, {65536, 0, 46341, 0, kMax, 1});
  Tensor b = i32({2, 1}, {65536, 1});
  Tensor c = i32({2, 1}, {46341, 1});
  Tensor ones = i32({2, 1}, {1, 1});
  auto out = run(makeOp("accel.matmul"), {&a, &b}, {{DType::I32, {3, 1}}});
  CHECK(values<int32_t>(out[0]) ==
        std::vector<int32_t>{0, wrap(46341LL * 65536),
                             wrap(int64_t(kMax) * 65536 + 1)});
  out = run(makeOp("accel.matmul"), {&a, &c}, {{DType::I32, {3, 1}}});
  CHECK(values<int32_t>(out[0]) ==
        std::vector<int32_t>{wrap(65536LL * 46341), -2147479015,
                             wrap(int64_t(kMax) * 46341 + 1)});
  out = run(makeOp("accel.matmul"), {&a, &ones}, {{DType::I32, {3, 1}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{65536, 46341, kMin});
  // i8 extremes: -128 * -128 * 131072 terms = 2^31 wraps to MIN.
  const int64_t k = 131072;
  Tensor big = typed<int8_t>(DType::I8, {1, k}, std::vector<int64_t>(k, -128));
  Tensor col = typed<int8_t>(DType::I8, {k, 1}, std::vector<int64_t>(k, -128));
  out = run(makeOp("accel.matmul"), {&big, &col}, {{DType::I32, {1, 1}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{kMin});
}

TEST_CASE("integer conv: the ONNX ConvInteger examples",
          "[runtime][linalg][integer]") {
  // x - x_zero_point (1), then padding with 0: the padded positions stand
  // for the zero point, as ONNX ConvInteger pads.
  std::vector<int32_t> x = {2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (int32_t &v : x)
    v -= 1;
  Tensor tx = i32({1, 1, 3, 3}, x);
  Tensor tw = typed<uint8_t>(DType::U8, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto out = run(makeOp("accel.conv", conv2d({1, 1}, {0, 0, 0, 0}, {1, 1})),
                 {&tx, &tw}, {{DType::I32, {1, 1, 2, 2}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{12, 16, 24, 28});
  out = run(makeOp("accel.conv", conv2d({1, 1}, {1, 1, 1, 1}, {1, 1})),
            {&tx, &tw}, {{DType::I32, {1, 1, 4, 4}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{1, 3, 5, 3, 5, 12, 16,
                                                        9, 11, 24, 28, 15, 7,
                                                        15, 17, 9});
}

TEST_CASE("integer conv matches a naive loop", "[runtime][linalg][integer]") {
  struct Case {
    int64_t c, f, h, w, kh, kw, groups;
    std::vector<int64_t> st, pads, dil;
  } cases[] = {
      {3, 4, 7, 6, 3, 3, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {3, 4, 9, 8, 3, 2, 1, {2, 2}, {0, 1, 2, 0}, {1, 1}},
      {2, 2, 9, 9, 3, 3, 1, {1, 2}, {2, 2, 2, 2}, {2, 3}},
      {4, 6, 6, 6, 3, 3, 2, {1, 1}, {1, 1, 1, 1}, {1, 1}},   // groups
      {8, 8, 10, 10, 3, 3, 8, {2, 2}, {1, 1, 1, 1}, {1, 1}}, // depthwise
  };
  for (const Case &c : cases) {
    const int64_t n = 2, cg = c.c / c.groups, fg = c.f / c.groups;
    std::vector<int64_t> xv = pattern(n * c.c * c.h * c.w, 0, 255, 3);
    std::vector<int64_t> wv = pattern(c.f * cg * c.kh * c.kw, -128, 127, 4);
    std::vector<int64_t> bv = pattern(c.f, -100000, 100000, 5);
    const int64_t oh =
        (c.h + c.pads[0] + c.pads[2] - (c.dil[0] * (c.kh - 1) + 1)) / c.st[0] +
        1;
    const int64_t ow =
        (c.w + c.pads[1] + c.pads[3] - (c.dil[1] * (c.kw - 1) + 1)) / c.st[1] +
        1;
    std::vector<int32_t> want(n * c.f * oh * ow);
    for (int64_t in = 0; in < n; ++in)
      for (int64_t of = 0; of < c.f; ++of)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t xx = 0; xx < ow; ++xx) {
            int64_t acc = bv[of];
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t ky = 0; ky < c.kh; ++ky)
                for (int64_t kx = 0; kx < c.kw; ++kx) {
                  int64_t iy = y * c.st[0] - c.pads[0] + ky * c.dil[0];
                  int64_t ix = xx * c.st[1] - c.pads[1] + kx * c.dil[1];
                  if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w)
                    continue;
                  int64_t channel = (of / fg) * cg + ci;
                  acc += xv[((in * c.c + channel) * c.h + iy) * c.w + ix] *
                         wv[((of * cg + ci) * c.kh + ky) * c.kw + kx];
                }
            want[((in * c.f + of) * oh + y) * ow + xx] = wrap(acc);
          }
    Tensor x = typed<uint8_t>(DType::U8, {n, c.c, c.h, c.w}, xv);
    Tensor w = typed<int8_t>(DType::I8, {c.f, cg, c.kh, c.kw}, wv);
    Tensor b = typed<int32_t>(DType::I32, {c.f}, bv);
    auto out = run(makeOp("accel.conv", conv2d(c.st, c.pads, c.dil, c.groups)),
                   {&x, &w, &b}, {{DType::I32, {n, c.f, oh, ow}}});
    CHECK(values<int32_t>(out[0]) == want);
  }
}

TEST_CASE("integer conv: bias wrap-around and fused relu / clip",
          "[runtime][linalg][integer]") {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  // 1-D, kernel 1: y = x * w + b.
  Tensor x = i32({1, 1, 4}, {1, -3, 2, 65536});
  Tensor w = i32({1, 1, 1}, {1});
  Tensor w16 = i32({1, 1, 1}, {65536});
  Tensor b = i32({1}, {kMax});
  Attrs attrs = {{"strides", std::vector<int64_t>{1}},
                 {"pads", std::vector<int64_t>{0, 0}},
                 {"dilations", std::vector<int64_t>{1}}};
  auto out =
      run(makeOp("accel.conv", attrs), {&x, &w, &b}, {{DType::I32, {1, 1, 4}}});
  CHECK(values<int32_t>(out[0]) ==
        std::vector<int32_t>{kMin, kMax - 3, wrap(int64_t(kMax) + 2),
                             wrap(int64_t(kMax) + 65536)});
  // 65536 * 65536 wraps to 0.
  out = run(makeOp("accel.conv", attrs), {&x, &w16}, {{DType::I32, {1, 1, 4}}});
  CHECK(values<int32_t>(out[0]) ==
        std::vector<int32_t>{65536, -196608, 131072, 0});
  Attrs relu = attrs;
  relu["activation"] = std::string("relu");
  out = run(makeOp("accel.conv", relu), {&x, &w}, {{DType::I32, {1, 1, 4}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{1, 0, 2, 65536});
  // Clip bounds are rounded inward: [-2.5, 1.5] clips to [-2, 1].
  Attrs clip = attrs;
  clip["activation"] = std::string("clip");
  clip["activation_min"] = -2.5;
  clip["activation_max"] = 1.5;
  out = run(makeOp("accel.conv", clip), {&x, &w}, {{DType::I32, {1, 1, 4}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{1, -2, 1, 1});
}

TEST_CASE("integer matmul and conv errors", "[runtime][linalg][integer]") {
  Tensor a = i32({2, 2}, {1, 2, 3, 4});
  Tensor l = i64({2, 2}, {1, 2, 3, 4});
  Tensor f = f32({2, 2}, {1, 2, 3, 4});
  CHECK(runError(makeOp("accel.matmul"), {&l, &a}, {{DType::I32, {2, 2}}}) ==
        "accel.matmul: unsupported element type i64 for the integer matmul "
        "lhs (i8, u8, i16 or i32)");
  CHECK(runError(makeOp("accel.matmul"), {&a, &f}, {{DType::I32, {2, 2}}}) ==
        "accel.matmul: unsupported element type f32 for the integer matmul "
        "rhs (i8, u8, i16 or i32)");
  // The result is always i32.
  Tensor s = typed<int8_t>(DType::I8, {2, 2}, {1, 2, 3, 4});
  CHECK(runError(makeOp("accel.matmul"), {&s, &s}, {{DType::I8, {2, 2}}})
            .find("accel.matmul: ") == 0);
  Tensor x = i32({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor w = i32({1, 1, 1, 1}, {1});
  Tensor b8 = typed<int8_t>(DType::I8, {1}, {1});
  Attrs attrs = conv2d({1, 1}, {0, 0, 0, 0}, {1, 1});
  CHECK(runError(makeOp("accel.conv", attrs), {&x, &w, &b8},
                 {{DType::I32, {1, 1, 2, 2}}}) ==
        "accel.conv: an integer conv needs an i32 bias, got i8");
  Attrs sigmoid = attrs;
  sigmoid["activation"] = std::string("sigmoid");
  CHECK(runError(makeOp("accel.conv", sigmoid), {&x, &w},
                 {{DType::I32, {1, 1, 2, 2}}}) ==
        "accel.conv: activation sigmoid needs a float result; an integer conv "
        "takes none, relu or clip");
  Tensor wl = i64({1, 1, 1, 1}, {1});
  CHECK(runError(makeOp("accel.conv", attrs), {&x, &wl},
                 {{DType::I32, {1, 1, 2, 2}}}) ==
        "accel.conv: unsupported element type i64 for the integer conv weight "
        "(i8, u8, i16 or i32)");
}
