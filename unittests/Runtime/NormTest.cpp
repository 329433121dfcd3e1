//===- NormTest.cpp - Normalisation, softmax and reduction tests ----------===//

#include "TestHelpers.h"

#include <cmath>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

TEST_CASE("batch_norm per channel", "[runtime][norm]") {
  Tensor x = f32({1, 2, 2}, {1, 3, 10, 20});
  Tensor scale = f32({2}, {2, 1});
  Tensor bias = f32({2}, {0.5f, -1});
  Tensor mean = f32({2}, {2, 15});
  Tensor var = f32({2}, {4, 25});
  auto out = run(makeOp("accel.batch_norm", {{"epsilon", 0.0}}),
                 {&x, &scale, &bias, &mean, &var}, {{DType::F32, {1, 2, 2}}});
  checkClose(values<float>(out[0]), {-0.5, 1.5, -2, 0});
}

TEST_CASE("layer_norm over trailing axes with and without bias",
          "[runtime][norm]") {
  Tensor x = f32({2, 4}, {1, 2, 3, 4, -1, -1, 1, 1});
  Tensor g = f32({4}, {1, 1, 2, 2});
  Tensor b = f32({4}, {0, 1, 0, 1});
  auto out = run(makeOp("accel.layer_norm", {{"epsilon", 0.0}}), {&x, &g, &b},
                 {{DType::F32, {2, 4}}});
  const double s = 1.0 / std::sqrt(1.25);
  checkClose(values<float>(out[0]),
             {-1.5 * s, -0.5 * s + 1, 1.0 * s, 3.0 * s + 1, -1, 0, 2, 3});
  // axis 0 normalises everything; scale [1] broadcasts.
  Tensor one = f32({1}, {1});
  out =
      run(makeOp("accel.layer_norm", {{"axis", int64_t(0)}, {"epsilon", 0.0}}),
          {&x, &one}, {{DType::F32, {2, 4}}});
  double mean = 10.0 / 8, var = 0;
  for (float v : values<float>(x))
    var += (v - mean) * (v - mean) / 8;
  std::vector<double> want;
  for (float v : values<float>(x))
    want.push_back((v - mean) / std::sqrt(var));
  checkClose(values<float>(out[0]), want, 1e-5);
}

TEST_CASE("softmax and log_softmax along an axis", "[runtime][norm]") {
  Tensor x = f32({2, 3}, {1, 2, 3, 1000, 1000, 1000});
  auto out = run(makeOp("accel.softmax"), {&x}, {{DType::F32, {2, 3}}});
  double e = std::exp(1.0), t = 1 + e + e * e;
  checkClose(values<float>(out[0]),
             {1 / t, e / t, e * e / t, 1 / 3.0, 1 / 3.0, 1 / 3.0}, 1e-6);
  out = run(makeOp("accel.log_softmax"), {&x}, {{DType::F32, {2, 3}}});
  checkClose(values<float>(out[0]),
             {-std::log(t), 1 - std::log(t), 2 - std::log(t), -std::log(3.0),
              -std::log(3.0), -std::log(3.0)},
             1e-6);
  // axis 0 (strided rows).
  out = run(makeOp("accel.softmax", {{"axis", int64_t(0)}}), {&x},
            {{DType::F32, {2, 3}}});
  auto v = values<float>(out[0]);
  CHECK(v[0] == Approx(0.0).margin(1e-30));
  CHECK(v[3] == Approx(1.0));
}

TEST_CASE("reductions: axes, keepdims, all axes, integers", "[runtime][norm]") {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = run(makeOp("accel.reduce_sum", {{"axes", std::vector<int64_t>{1}},
                                             {"keepdims", int64_t(0)}}),
                 {&x}, {{DType::F32, {2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{6, 15});
  out = run(makeOp("accel.reduce_mean", {{"axes", std::vector<int64_t>{0}}}),
            {&x}, {{DType::F32, {1, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{2.5f, 3.5f, 4.5f});
  out = run(makeOp("accel.reduce_max", {{"axes", std::vector<int64_t>{}}}),
            {&x}, {{DType::F32, {1, 1}}});
  CHECK(values<float>(out[0]) == std::vector<float>{6});
  out = run(makeOp("accel.reduce_sum", {{"axes", std::vector<int64_t>{-1, 0}},
                                        {"keepdims", int64_t(0)}}),
            {&x}, {{DType::F32, {}}});
  CHECK(values<float>(out[0]) == std::vector<float>{21});
  Tensor xi = i32({2, 2, 2}, {1, -2, 3, -4, 5, -6, 7, -8});
  out = run(makeOp("accel.reduce_sum", {{"axes", std::vector<int64_t>{0, 2}}}),
            {&xi}, {{DType::I32, {1, 2, 1}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{-2, -2});
  out = run(makeOp("accel.reduce_max", {{"axes", std::vector<int64_t>{1}},
                                        {"keepdims", int64_t(0)}}),
            {&xi}, {{DType::I32, {2, 2}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{3, -2, 7, -6});
  out = run(makeOp("accel.reduce_mean", {{"axes", std::vector<int64_t>{2}},
                                         {"keepdims", int64_t(0)}}),
            {&xi}, {{DType::I32, {2, 2}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{0, 0, 0, 0});
}
