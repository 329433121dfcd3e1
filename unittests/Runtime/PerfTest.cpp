//===- PerfTest.cpp - Timing of a MobileNetV2-like layer stack ------------===//
//
// Hidden by default ([.perf]); run with `nnaccel-runtime-tests "[perf]"`.
// Runs the convolution stack of MobileNetV2 at 96x96 input (width 1.0:
// stem, 17 inverted residual blocks of expand 1x1 + depthwise 3x3 +
// project 1x1, final 1x1 to 1280, global pooling, classifier) and prints
// the time; docs/host-kernels.md records the measured figure.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include <chrono>
#include <iostream>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

namespace {
Tensor filled(TensorDesc d, float v) {
  Tensor t = Tensor::allocate(std::move(d));
  float *p = t.mutableAs<float>();
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    p[i] = v * static_cast<float>((i % 13) - 6);
  return t;
}

Tensor conv(const Tensor &x, int64_t filters, int64_t k, int64_t stride,
            int64_t groups, bool relu6) {
  const auto &s = x.getShape();
  const int64_t pad = k / 2;
  const int64_t oh = (s[2] + 2 * pad - k) / stride + 1;
  const int64_t ow = (s[3] + 2 * pad - k) / stride + 1;
  Tensor w =
      filled(TensorDesc(DType::F32, {filters, s[1] / groups, k, k}), 0.01f);
  Tensor b = filled(TensorDesc(DType::F32, {filters}), 0.001f);
  std::map<std::string, AttrValue, std::less<>> attrs = {
      {"strides", std::vector<int64_t>{stride, stride}},
      {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
      {"dilations", std::vector<int64_t>{1, 1}},
      {"groups", groups}};
  if (relu6) {
    attrs["activation"] = std::string("clip");
    attrs["activation_min"] = 0.0;
    attrs["activation_max"] = 6.0;
  }
  return run(makeOp("accel.conv", attrs), {&x, &w, &b},
             {{DType::F32, {s[0], filters, oh, ow}}})[0];
}
} // namespace

TEST_CASE("MobileNetV2 96x96 conv stack timing", "[.perf]") {
  // (expansion t, output channels c, repeats n, first stride s)
  const int64_t cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2},
                             {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2},
                             {6, 320, 1, 1}};
  Tensor input = filled(TensorDesc(DType::F32, {1, 3, 96, 96}), 0.1f);
  auto start = std::chrono::steady_clock::now();
  Tensor x = conv(input, 32, 3, 2, 1, true);
  for (const auto &c : cfg)
    for (int64_t i = 0; i < c[2]; ++i) {
      const int64_t in = x.getShape()[1], hidden = in * c[0];
      Tensor h = c[0] == 1 ? x : conv(x, hidden, 1, 1, 1, true);
      h = conv(h, hidden, 3, i == 0 ? c[3] : 1, hidden, true);
      Tensor y = conv(h, c[1], 1, 1, 1, false);
      if (i > 0 && in == c[1]) {
        y = run(makeOp("accel.add"), {&x, &y}, {y.getDesc()})[0];
      }
      x = y;
    }
  x = conv(x, 1280, 1, 1, 1, true);
  Tensor pooled = run(makeOp("accel.global_avg_pool"), {&x},
                      {{DType::F32, {1, 1280, 1, 1}}})[0];
  Tensor flat =
      run(makeOp("accel.reshape"), {&pooled}, {{DType::F32, {1, 1280}}})[0];
  Tensor fcw = filled(TensorDesc(DType::F32, {1000, 1280}), 0.001f);
  Tensor logits =
      run(makeOp("accel.fully_connected", {{"transpose_weight", int64_t(1)}}),
          {&flat, &fcw}, {{DType::F32, {1, 1000}}})[0];
  auto ms = std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - start)
                .count();
  std::cout << "MobileNetV2 96x96 (f32, batch 1) host kernels: " << ms
            << " ms\n";
  CHECK(logits.getNumElements() == 1000);
}
