//===- IndexingTest.cpp - Host kernels of the indexing and math ops -------===//
//
// arg_max/arg_min (ties, select_last_index), top_k (ties keep the lower
// index), gather/scatter_elements (negative indices, reductions), cumsum
// (exclusive, reverse), mod (both sign rules), einsum, resize and
// conv_transpose, checked against hand-computed ONNX reference values.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include <cmath>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

TEST_CASE("arg_max and arg_min", "[runtime][indexing]") {
  Tensor x = f32({2, 3}, {1, 5, 5, 7, 2, 7});
  auto out = run(makeOp("accel.arg_max", {{"axis", int64_t(1)}}), {&x},
                 {{DType::I64, {2, 1}}});
  CHECK(values<int64_t>(out[0]) == std::vector<int64_t>{1, 0});
  out = run(makeOp("accel.arg_max", {{"axis", int64_t(1)},
                                     {"keepdims", int64_t(0)},
                                     {"select_last_index", int64_t(1)}}),
            {&x}, {{DType::I64, {2}}});
  CHECK(values<int64_t>(out[0]) == std::vector<int64_t>{2, 2});
  Tensor n = i32({3}, {4, -1, 9});
  out = run(makeOp("accel.arg_min"), {&n}, {{DType::I64, {1}}});
  CHECK(values<int64_t>(out[0]) == std::vector<int64_t>{1});
}

TEST_CASE("top_k keeps the lower index first on ties", "[runtime][indexing]") {
  Tensor x = f32({1, 4}, {3, 9, 3, 1});
  auto out = run(makeOp("accel.top_k", {{"k", int64_t(3)}}), {&x},
                 {{DType::F32, {1, 3}}, {DType::I64, {1, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{9, 3, 3});
  CHECK(values<int64_t>(out[1]) == std::vector<int64_t>{1, 0, 2});
  out = run(makeOp("accel.top_k", {{"k", int64_t(2)}, {"largest", int64_t(0)}}),
            {&x}, {{DType::F32, {1, 2}}, {DType::I64, {1, 2}}});
  CHECK(values<int64_t>(out[1]) == std::vector<int64_t>{3, 0});
}

TEST_CASE("gather_elements and scatter_elements", "[runtime][indexing]") {
  Tensor data = f32({2, 2}, {1, 2, 3, 4});
  Tensor idx = i64({2, 2}, {0, 0, -1, 0});
  auto out = run(makeOp("accel.gather_elements", {{"axis", int64_t(1)}}),
                 {&data, &idx}, {{DType::F32, {2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 1, 4, 3});
  Tensor upd = f32({2, 2}, {10, 20, 30, 40});
  out = run(makeOp("accel.scatter_elements",
                   {{"axis", int64_t(1)}, {"reduction", std::string("add")}}),
            {&data, &idx, &upd}, {{DType::F32, {2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{31, 2, 43, 34});
  Tensor bad = i64({2, 2}, {0, 2, 0, 0});
  CHECK(runError(makeOp("accel.gather_elements", {{"axis", int64_t(1)}}),
                 {&data, &bad}, {{DType::F32, {2, 2}}})
            .find("out of range") != std::string::npos);
}

TEST_CASE("cumsum, exclusive and reverse", "[runtime][indexing]") {
  Tensor x = i32({4}, {1, 2, 3, 4});
  auto out = run(makeOp("accel.cumsum", {{"axis", int64_t(0)}}), {&x},
                 {{DType::I32, {4}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{1, 3, 6, 10});
  out = run(makeOp("accel.cumsum", {{"axis", int64_t(0)},
                                    {"exclusive", int64_t(1)},
                                    {"reverse", int64_t(1)}}),
            {&x}, {{DType::I32, {4}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{9, 7, 4, 0});
}

TEST_CASE("mod follows the divisor's sign unless fmod", "[runtime][math]") {
  Tensor a = i32({4}, {-4, 7, 5, -7});
  Tensor b = i32({4}, {3, -3, 2, -2});
  auto out = run(makeOp("accel.mod"), {&a, &b}, {{DType::I32, {4}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{2, -2, 1, -1});
  out = run(makeOp("accel.mod", {{"fmod", int64_t(1)}}), {&a, &b},
            {{DType::I32, {4}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{-1, 1, 1, -1});
  Tensor zero = i32({4}, {1, 0, 1, 1});
  CHECK(runError(makeOp("accel.mod"), {&a, &zero}, {{DType::I32, {4}}})
            .find("by zero") != std::string::npos);
}

TEST_CASE("einsum and the math functions", "[runtime][math]") {
  Tensor a = f32({2, 2}, {1, 2, 3, 4});
  auto out = run(makeOp("accel.einsum", {{"equation", std::string("ij->ji")}}),
                 {&a}, {{DType::F32, {2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 3, 2, 4});
  out = run(makeOp("accel.einsum", {{"equation", std::string("ii->i")}}), {&a},
            {{DType::F32, {2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 4});
  out = run(makeOp("accel.einsum", {{"equation", std::string("ij,jk->ik")}}),
            {&a, &a}, {{DType::F32, {2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{7, 10, 15, 22});
  Tensor x = f32({2}, {0.5f, -1.5f});
  out = run(makeOp("accel.floor"), {&x}, {{DType::F32, {2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{0, -2});
  out = run(makeOp("accel.sin"), {&x}, {{DType::F32, {2}}});
  CHECK(values<float>(out[0])[0] == float(std::sin(0.5)));
}

TEST_CASE("resize nearest and linear", "[runtime][math]") {
  Tensor x = f32({1, 2}, {1, 3});
  auto out =
      run(makeOp("accel.resize",
                 {{"mode", std::string("nearest")},
                  {"scales", std::vector<double>{1, 2}},
                  {"coordinate_transformation_mode", std::string("asymmetric")},
                  {"nearest_mode", std::string("floor")}}),
          {&x}, {{DType::F32, {1, 4}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 1, 3, 3});
  out = run(makeOp("accel.resize", {{"mode", std::string("linear")},
                                    {"scales", std::vector<double>{1, 2}}}),
            {&x}, {{DType::F32, {1, 4}}});
  // half_pixel: x_ori = (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25;
  // outside the input the edge value repeats.
  CHECK(values<float>(out[0]) == std::vector<float>{1, 1.5f, 2.5f, 3});
}

TEST_CASE("conv_transpose scatters the kernel", "[runtime][linalg]") {
  Tensor x = f32({1, 1, 2}, {1, 2});
  Tensor w = f32({1, 1, 2}, {1, 10});
  auto out = run(
      makeOp("accel.conv_transpose", {{"strides", std::vector<int64_t>{2}},
                                      {"pads", std::vector<int64_t>{0, 0}},
                                      {"dilations", std::vector<int64_t>{1}}}),
      {&x, &w}, {{DType::F32, {1, 1, 4}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 10, 2, 20});
}
