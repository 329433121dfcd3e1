//===- LinalgTest.cpp - matmul, Gemm, conv and pooling tests --------------===//
//
// Hand-computed small cases plus convolutions checked against a naive
// double-precision loop written independently here.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include "../../lib/Runtime/HostParallel.h"

#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <cmath>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

namespace {
std::vector<float> ramp(size_t n, float scale = 0.1f, float offset = -1.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = offset + scale * static_cast<float>((i * 7) % 23);
  return v;
}

/// Reference NCHW 2-D convolution in double.
std::vector<double>
naiveConv2d(const std::vector<float> &x, const std::vector<float> &w,
            const std::vector<float> &b, int64_t n, int64_t c, int64_t h,
            int64_t wd, int64_t f, int64_t kh, int64_t kw, int64_t groups,
            std::vector<int64_t> st, std::vector<int64_t> pads,
            std::vector<int64_t> dil, int64_t &oh, int64_t &ow) {
  oh = (h + pads[0] + pads[2] - (dil[0] * (kh - 1) + 1)) / st[0] + 1;
  ow = (wd + pads[1] + pads[3] - (dil[1] * (kw - 1) + 1)) / st[1] + 1;
  const int64_t cg = c / groups, fg = f / groups;
  std::vector<double> out(n * f * oh * ow);
  for (int64_t in = 0; in < n; ++in)
    for (int64_t of = 0; of < f; ++of) {
      const int64_t g = of / fg;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = b.empty() ? 0.0 : b[of];
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t iy = y * st[0] - pads[0] + ky * dil[0];
                int64_t ix = xx * st[1] - pads[1] + kx * dil[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd)
                  continue;
                acc += double(x[((in * c + g * cg + ci) * h + iy) * wd + ix]) *
                       double(w[((of * cg + ci) * kh + ky) * kw + kx]);
              }
          out[((in * f + of) * oh + y) * ow + xx] = acc;
        }
    }
  return out;
}
} // namespace

TEST_CASE("matmul 2-D and batch broadcasting", "[runtime][linalg]") {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  auto out = run(makeOp("accel.matmul"), {&a, &b}, {{DType::F32, {2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{58, 64, 139, 154});
  // [2,1,2,3] x [3,3,2] -> [2,3,2,2]
  std::vector<float> av = ramp(12), bv = ramp(18, 0.2f, 0.5f);
  Tensor ba = f32({2, 1, 2, 3}, av);
  Tensor bb = f32({3, 3, 2}, bv);
  out = run(makeOp("accel.matmul"), {&ba, &bb}, {{DType::F32, {2, 3, 2, 2}}});
  auto got = values<float>(out[0]);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
          double acc = 0;
          for (int k = 0; k < 3; ++k)
            acc += double(av[(i * 2 + r) * 3 + k]) * bv[(j * 3 + k) * 2 + c];
          CHECK(got[((i * 3 + j) * 2 + r) * 2 + c] == Approx(acc).margin(1e-5));
        }
}

TEST_CASE("matmul with rank-1 operands", "[runtime][linalg]") {
  Tensor v = f32({3}, {1, 2, 3});
  Tensor m = f32({3, 2}, {1, 0, 0, 1, 1, 1});
  auto out = run(makeOp("accel.matmul"), {&v, &m}, {{DType::F32, {2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{4, 5});
  Tensor mt = f32({2, 3}, {1, 0, 1, 0, 1, 1});
  out = run(makeOp("accel.matmul"), {&mt, &v}, {{DType::F32, {2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{4, 5});
  out = run(makeOp("accel.matmul"), {&v, &v}, {{DType::F32, {}}});
  CHECK(values<float>(out[0]) == std::vector<float>{14});
  // Batched lhs with a vector rhs: [2,2,3] x [3] -> [2,2].
  Tensor bl = f32({2, 2, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1});
  out = run(makeOp("accel.matmul"), {&bl, &v}, {{DType::F32, {2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 2, 3, 6});
  // The dot order is numerics::dotF32's.
  std::vector<float> big = ramp(40, 0.37f, -3.1f);
  Tensor x = f32({40}, big);
  out = run(makeOp("accel.matmul"), {&x, &x}, {{DType::F32, {}}});
  CHECK(values<float>(out[0])[0] ==
        nnaccel::numerics::dotF32(nnaccel::numerics::Span<const float>(big),
                                  nnaccel::numerics::Span<const float>(big)));
}

TEST_CASE("fully_connected: transposes, alpha, beta, bias, activation",
          "[runtime][linalg]") {
  // input^T is [[1,2],[3,4],[5,6]] (3x2 stored as 2x3 transposed).
  Tensor xT = f32({2, 3}, {1, 3, 5, 2, 4, 6});
  Tensor w = f32({2, 2}, {1, -1, 2, 0}); // K x N
  Tensor bias = f32({2}, {10, -100});
  auto op =
      makeOp("accel.fully_connected", {{"transpose_input", int64_t(1)},
                                       {"alpha", 2.0},
                                       {"beta", 0.5},
                                       {"activation", std::string("relu")}});
  auto out = run(op, {&xT, &w, &bias}, {{DType::F32, {3, 2}}});
  // x rows: [1,2] -> [5,-1]; [3,4] -> [11,-3]; [5,6] -> [17,-5]
  // 2*y + 0.5*b, relu: [15, 0], [27, 0], [39, 0]
  CHECK(values<float>(out[0]) == std::vector<float>{15, 0, 27, 0, 39, 0});
  // transpose_weight, no bias, clip activation.
  Tensor x = f32({1, 2}, {1, 2});
  Tensor wt = f32({3, 2}, {1, 1, -1, 0, 3, 3}); // N x K
  auto op2 =
      makeOp("accel.fully_connected", {{"transpose_weight", int64_t(1)},
                                       {"activation", std::string("clip")},
                                       {"activation_min", -0.5},
                                       {"activation_max", 6.0}});
  out = run(op2, {&x, &wt, nullptr}, {{DType::F32, {1, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{3, -0.5f, 6});
  // 2-D bias [M, 1] broadcast along N; sigmoid activation.
  Tensor b2 = f32({1, 1}, {-3});
  auto op3 =
      makeOp("accel.fully_connected", {{"transpose_weight", int64_t(1)},
                                       {"activation", std::string("sigmoid")}});
  out = run(op3, {&x, &wt, &b2}, {{DType::F32, {1, 3}}});
  CHECK(values<float>(out[0])[0] == nnaccel::numerics::sigmoidF32(0.0f));
}

TEST_CASE("conv 2-D matches a naive loop", "[runtime][linalg]") {
  struct Case {
    int64_t c, f, h, w, kh, kw, groups;
    std::vector<int64_t> st, pads, dil;
  } cases[] = {
      {3, 4, 7, 6, 3, 3, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {3, 4, 9, 8, 3, 2, 1, {2, 2}, {0, 1, 2, 0}, {1, 1}},
      {2, 2, 9, 9, 3, 3, 1, {1, 2}, {2, 2, 2, 2}, {2, 3}},
      {4, 6, 6, 6, 3, 3, 2, {1, 1}, {1, 1, 1, 1}, {1, 1}},   // groups
      {8, 8, 10, 10, 3, 3, 8, {2, 2}, {1, 1, 1, 1}, {1, 1}}, // depthwise
      {16, 5, 4, 4, 1, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}},  // pointwise
  };
  for (const Case &c : cases) {
    std::vector<float> xv = ramp(2 * c.c * c.h * c.w, 0.13f, -1.2f);
    std::vector<float> wv =
        ramp(c.f * (c.c / c.groups) * c.kh * c.kw, 0.07f, -0.6f);
    std::vector<float> bv = ramp(c.f, 0.5f, -2.0f);
    int64_t oh, ow;
    std::vector<double> want =
        naiveConv2d(xv, wv, bv, 2, c.c, c.h, c.w, c.f, c.kh, c.kw, c.groups,
                    c.st, c.pads, c.dil, oh, ow);
    Tensor x = f32({2, c.c, c.h, c.w}, xv);
    Tensor w = f32({c.f, c.c / c.groups, c.kh, c.kw}, wv);
    Tensor b = f32({c.f}, bv);
    auto op = makeOp("accel.conv", {{"strides", c.st},
                                    {"pads", c.pads},
                                    {"dilations", c.dil},
                                    {"groups", c.groups}});
    auto out = run(op, {&x, &w, &b}, {{DType::F32, {2, c.f, oh, ow}}});
    checkClose(values<float>(out[0]), want, 1e-5);
  }
}

TEST_CASE("conv 1-D and 3-D, fused relu", "[runtime][linalg]") {
  // 1-D: x = [1,2,3,4], w = [1,0,-1], pad 1: [-2,-2,-2,3] -> relu.
  Tensor x = f32({1, 1, 4}, {1, 2, 3, 4});
  Tensor w = f32({1, 1, 3}, {1, 0, -1});
  auto op = makeOp("accel.conv", {{"strides", std::vector<int64_t>{1}},
                                  {"pads", std::vector<int64_t>{1, 1}},
                                  {"dilations", std::vector<int64_t>{1}},
                                  {"activation", std::string("relu")}});
  auto out = run(op, {&x, &w}, {{DType::F32, {1, 1, 4}}});
  CHECK(values<float>(out[0]) == std::vector<float>{0, 0, 0, 3});
  // 3-D: all-ones 2x2x2 kernel over 3x3x3 ramp equals window sums.
  std::vector<float> xv(27);
  for (int i = 0; i < 27; ++i)
    xv[i] = float(i);
  Tensor x3 = f32({1, 1, 3, 3, 3}, xv);
  Tensor w3 = f32({1, 1, 2, 2, 2}, std::vector<float>(8, 1.0f));
  auto op3 =
      makeOp("accel.conv", {{"strides", std::vector<int64_t>{1, 1, 1}},
                            {"pads", std::vector<int64_t>(6, 0)},
                            {"dilations", std::vector<int64_t>{1, 1, 1}}});
  out = run(op3, {&x3, &w3}, {{DType::F32, {1, 1, 2, 2, 2}}});
  // Window at origin: 0+1+3+4+9+10+12+13 = 52; each step in w adds 8, in h
  // 24, in d 72.
  CHECK(values<float>(out[0]) ==
        std::vector<float>{52, 60, 76, 84, 124, 132, 148, 156});
}

TEST_CASE("max_pool: padding never wins, dilation, ceil_mode",
          "[runtime][linalg]") {
  Tensor x = f32({1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9});
  auto op =
      makeOp("accel.max_pool", {{"kernel_shape", std::vector<int64_t>{2, 2}},
                                {"strides", std::vector<int64_t>{2, 2}},
                                {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                {"dilations", std::vector<int64_t>{1, 1}}});
  auto out = run(op, {&x}, {{DType::F32, {1, 1, 2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{-1, -2, -4, -5});
  // ceil_mode: 5 wide, k 2, s 2 -> floor 2, ceil 3 (last window clipped).
  Tensor y = f32({1, 1, 1, 5}, {1, 5, 2, 4, 3});
  auto opc =
      makeOp("accel.max_pool", {{"kernel_shape", std::vector<int64_t>{1, 2}},
                                {"strides", std::vector<int64_t>{1, 2}},
                                {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                                {"dilations", std::vector<int64_t>{1, 1}},
                                {"ceil_mode", int64_t(1)}});
  out = run(opc, {&y}, {{DType::F32, {1, 1, 1, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{5, 4, 3});
  // Dilation 2 over a 1-D row: windows {0,2}, {1,3}, {2,4}.
  auto opd =
      makeOp("accel.max_pool", {{"kernel_shape", std::vector<int64_t>{2}},
                                {"strides", std::vector<int64_t>{1}},
                                {"pads", std::vector<int64_t>{0, 0}},
                                {"dilations", std::vector<int64_t>{2}}});
  Tensor r = f32({1, 1, 5}, {1, 5, 2, 4, 3});
  out = run(opd, {&r}, {{DType::F32, {1, 1, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{2, 5, 3});
  // Integer max pool.
  Tensor ri = make<int8_t>(DType::I8, {1, 1, 5}, {1, -5, 2, -4, 3});
  out = run(opd, {&ri}, {{DType::I8, {1, 1, 3}}});
  CHECK(values<int8_t>(out[0]) == std::vector<int8_t>{2, -4, 3});
}

TEST_CASE("avg_pool: count_include_pad and ceil_mode", "[runtime][linalg]") {
  Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  auto base = [](int64_t include, int64_t ceil) {
    return makeOp("accel.avg_pool",
                  {{"kernel_shape", std::vector<int64_t>{2, 2}},
                   {"strides", std::vector<int64_t>{1, 1}},
                   {"pads", std::vector<int64_t>{1, 1, 0, 0}},
                   {"count_include_pad", include},
                   {"ceil_mode", ceil}});
  };
  // Windows over the padded 3x3 (pad top/left): sums 1, 3, 4, 10.
  auto out = run(base(0, 0), {&x}, {{DType::F32, {1, 1, 2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 1.5f, 2, 2.5f});
  out = run(base(1, 0), {&x}, {{DType::F32, {1, 1, 2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{0.25f, 0.75f, 1, 2.5f});
  // ceil_mode with count_include_pad: the last window is clipped to the
  // padded input, so it divides by the clipped size.
  Tensor y = f32({1, 1, 1, 5}, {1, 2, 3, 4, 5});
  auto opc =
      makeOp("accel.avg_pool", {{"kernel_shape", std::vector<int64_t>{1, 2}},
                                {"strides", std::vector<int64_t>{1, 2}},
                                {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                                {"count_include_pad", int64_t(1)},
                                {"ceil_mode", int64_t(1)}});
  out = run(opc, {&y}, {{DType::F32, {1, 1, 1, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1.5f, 3.5f, 5});
}

TEST_CASE("global_avg_pool", "[runtime][linalg]") {
  Tensor x = f32({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40});
  auto out =
      run(makeOp("accel.global_avg_pool"), {&x}, {{DType::F32, {1, 2, 1, 1}}});
  CHECK(values<float>(out[0]) == std::vector<float>{2.5f, 25});
}

TEST_CASE("large products: the same bits on one thread and on the workers",
          "[runtime][linalg]") {
  // matmul, fully_connected (with bias, alpha, beta, activation) and conv
  // (dense and grouped) big enough to split their output rows over the
  // host kernels' workers: byte-identical to one thread, and to the
  // per-element dot products of the device's lane order.
  auto bytes = [](const Tensor &t) {
    const auto *p = static_cast<const uint8_t *>(t.data());
    return std::vector<uint8_t>(p, p + t.getByteSize());
  };
  Tensor a = f32({2, 96, 160}, ramp(2 * 96 * 160, 0.013f, -0.7f));
  Tensor b = f32({160, 192}, ramp(160 * 192, 0.011f, -0.5f));
  Tensor bias = f32({192}, ramp(192, 0.3f, -1.0f));
  Tensor a2 = f32({96, 160}, ramp(96 * 160, 0.017f, -0.9f));
  Tensor wt = f32({192, 160}, ramp(192 * 160, 0.009f, -0.4f));
  Tensor x = f32({1, 32, 40, 40}, ramp(32 * 40 * 40, 0.021f, -1.1f));
  Tensor w = f32({64, 32, 3, 3}, ramp(64 * 32 * 9, 0.005f, -0.3f));
  Tensor wg = f32({32, 8, 3, 3}, ramp(32 * 8 * 9, 0.006f, -0.3f));
  auto runAll = [&]() {
    std::vector<std::vector<uint8_t>> out;
    out.push_back(bytes(run(makeOp("accel.matmul"), {&a, &b},
                            {{DType::F32, {2, 96, 192}}})[0]));
    out.push_back(bytes(run(
        makeOp("accel.fully_connected", {{"transpose_weight", int64_t(1)},
                                         {"alpha", 0.5},
                                         {"beta", 2.0},
                                         {"activation", std::string("relu")}}),
        {&a2, &wt, &bias}, {{DType::F32, {96, 192}}})[0]));
    auto conv = [&](const Tensor &weight, int64_t groups, int64_t filters) {
      return bytes(
          run(makeOp("accel.conv", {{"strides", std::vector<int64_t>{1, 1}},
                                    {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                    {"dilations", std::vector<int64_t>{1, 1}},
                                    {"groups", groups}}),
              {&x, &weight}, {{DType::F32, {1, filters, 40, 40}}})[0]);
    };
    out.push_back(conv(w, 1, 64));
    out.push_back(conv(wg, 4, 32));
    return out;
  };
  nnaccel::runtime::detail::setHostKernelThreads(1);
  const auto serial = runAll();
  nnaccel::runtime::detail::setHostKernelThreads(4);
  const auto parallel = runAll();
  nnaccel::runtime::detail::setHostKernelThreads(0);
  for (size_t i = 0; i < serial.size(); ++i) {
    INFO("product " << i);
    REQUIRE(serial[i] == parallel[i]);
  }
  // The matmul's elements are numerics::dotF32 of a row and a column.
  const float *pa = a.as<float>(), *pb = b.as<float>();
  std::vector<float> column(160);
  const auto *got = reinterpret_cast<const float *>(serial[0].data());
  for (int64_t j : {0, 77, 191}) {
    for (int64_t kk = 0; kk < 160; ++kk)
      column[kk] = pb[kk * 192 + j];
    for (int64_t i : {0, 50, 95, 96 + 40})
      REQUIRE(got[i * 192 + j] ==
              nnaccel::numerics::dotF32({pa + i * 160, 160}, column));
  }
}
