//===- DataMovementTest.cpp - Layout and data movement tests --------------===//

#include "TestHelpers.h"

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

TEST_CASE("reshape and transfer share bytes", "[runtime][data]") {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = run(makeOp("accel.reshape"), {&x}, {{DType::F32, {3, 2}}});
  CHECK(out[0].data() == x.data());
  CHECK(out[0].getShape() == std::vector<int64_t>{3, 2});
  out = run(makeOp("accel.transfer",
                   {{"source", int64_t(-1)}, {"destination", int64_t(0)}}),
            {&x}, {{DType::F32, {2, 3}}});
  CHECK(values<float>(out[0]) == values<float>(x));
  // Writing to the result does not change the operand.
  out[0].mutableAs<float>()[0] = 42;
  CHECK(x.as<float>()[0] == 1);
  CHECK(runError(makeOp("accel.reshape"), {&x}, {{DType::F32, {4, 2}}})
            .find("cannot reshape f32[2x3] to f32[4x2]") != std::string::npos);
}

TEST_CASE("transpose any dtype", "[runtime][data]") {
  Tensor x = i64({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = run(
      makeOp("accel.transpose", {{"permutation", std::vector<int64_t>{1, 0}}}),
      {&x}, {{DType::I64, {3, 2}}});
  CHECK(values<int64_t>(out[0]) == std::vector<int64_t>{1, 4, 2, 5, 3, 6});
  std::vector<uint16_t> v(24);
  for (int i = 0; i < 24; ++i)
    v[i] = uint16_t(i);
  Tensor y = make<uint16_t>(DType::F16, {2, 3, 4}, v);
  out = run(makeOp("accel.transpose",
                   {{"permutation", std::vector<int64_t>{2, 0, 1}}}),
            {&y}, {{DType::F16, {4, 2, 3}}});
  auto got = values<uint16_t>(out[0]);
  CHECK(got[0] == 0);
  CHECK(got[1] == 4);  // [0][0][1] <- y[0][1][0]
  CHECK(got[3] == 12); // [0][1][0] <- y[1][0][0]
  CHECK(got[6] == 1);  // [1][0][0] <- y[0][0][1]
  CHECK(runError(makeOp("accel.transpose",
                        {{"permutation", std::vector<int64_t>{0, 0}}}),
                 {&x}, {{DType::I64, {2, 3}}})
            .find("not a permutation") != std::string::npos);
}

TEST_CASE("concat along inner and outer axes", "[runtime][data]") {
  Tensor a = f32({2, 1}, {1, 2});
  Tensor b = f32({2, 2}, {3, 4, 5, 6});
  auto out = run(makeOp("accel.concat", {{"axis", int64_t(-1)}}), {&a, &b},
                 {{DType::F32, {2, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 3, 4, 2, 5, 6});
  Tensor c = f32({1, 2}, {7, 8});
  out = run(makeOp("accel.concat", {{"axis", int64_t(0)}}), {&b, &c, &b},
            {{DType::F32, {5, 2}}});
  CHECK(values<float>(out[0]) ==
        std::vector<float>{3, 4, 5, 6, 7, 8, 3, 4, 5, 6});
  CHECK(runError(makeOp("accel.concat", {{"axis", int64_t(0)}}), {&a, &b},
                 {{DType::F32, {4, 2}}})
            .find("differs from operand 0") != std::string::npos);
}

TEST_CASE("slice with positive and negative steps", "[runtime][data]") {
  std::vector<float> v(32);
  for (int i = 0; i < 32; ++i)
    v[i] = float(i);
  Tensor x = f32({4, 8}, v);
  auto op = makeOp("accel.slice", {{"starts", std::vector<int64_t>{0, 2}},
                                   {"ends", std::vector<int64_t>{4, 8}},
                                   {"steps", std::vector<int64_t>{2, 2}}});
  auto out = run(op, {&x}, {{DType::F32, {2, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{2, 4, 6, 18, 20, 22});
  // Reverse both dimensions fully: end = -1 means "through index 0".
  auto rev = makeOp("accel.slice", {{"starts", std::vector<int64_t>{3, 7}},
                                    {"ends", std::vector<int64_t>{-1, -1}},
                                    {"steps", std::vector<int64_t>{-1, -3}}});
  out = run(rev, {&x}, {{DType::F32, {4, 3}}});
  CHECK(values<float>(out[0]) ==
        std::vector<float>{31, 28, 25, 23, 20, 17, 15, 12, 9, 7, 4, 1});
  // Empty slice.
  auto empty = makeOp("accel.slice", {{"starts", std::vector<int64_t>{1, 0}},
                                      {"ends", std::vector<int64_t>{1, 8}},
                                      {"steps", std::vector<int64_t>{1, 1}}});
  out = run(empty, {&x}, {{DType::F32, {0, 8}}});
  CHECK(out[0].getNumElements() == 0);
  auto bad = makeOp("accel.slice", {{"starts", std::vector<int64_t>{-1, 0}},
                                    {"ends", std::vector<int64_t>{4, 8}},
                                    {"steps", std::vector<int64_t>{1, 1}}});
  CHECK(runError(bad, {&x}, {{DType::F32, {4, 8}}}).find("not normalised") !=
        std::string::npos);
}

TEST_CASE("gather with negative indices and range errors", "[runtime][data]") {
  Tensor data = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor idx = i64({2, 2}, {0, -1, 1, 2});
  auto out =
      run(makeOp("accel.gather"), {&data, &idx}, {{DType::F32, {2, 2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 2, 5, 6, 3, 4, 5, 6});
  Tensor col = i32({1}, {-2});
  out = run(makeOp("accel.gather", {{"axis", int64_t(1)}}), {&data, &col},
            {{DType::F32, {3, 1}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 3, 5});
  Tensor bad = i64({3}, {0, 3, 1});
  std::string msg =
      runError(makeOp("accel.gather"), {&data, &bad}, {{DType::F32, {3, 2}}});
  CHECK(msg == "accel.gather: index 3 at position 1 is out of range for axis "
               "0 of size 3");
  Tensor tooNeg = i64({1}, {-4});
  CHECK(
      runError(makeOp("accel.gather"), {&data, &tooNeg}, {{DType::F32, {1, 2}}})
          .find("index -4") != std::string::npos);
}

TEST_CASE("expand broadcasts to the result shape", "[runtime][data]") {
  Tensor x = make<uint8_t>(DType::I1, {2, 1}, {1, 0});
  auto out = run(makeOp("accel.expand"), {&x}, {{DType::I1, {2, 2, 3}}});
  CHECK(values<uint8_t>(out[0]) ==
        std::vector<uint8_t>{1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0});
  CHECK(runError(makeOp("accel.expand"), {&x}, {{DType::I1, {3, 3}}})
            .find("cannot expand [2x1] to [3x3]") != std::string::npos);
}

TEST_CASE("pad constant, reflect and edge", "[runtime][data]") {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto pads = std::vector<int64_t>{1, 2, 0, 1};
  auto out = run(makeOp("accel.pad", {{"pads", pads}, {"value", 9.0}}), {&x},
                 {{DType::F32, {3, 6}}});
  CHECK(values<float>(out[0]) == std::vector<float>{9, 9, 9, 9, 9, 9, 9, 9, 1,
                                                    2, 3, 9, 9, 9, 4, 5, 6, 9});
  out = run(
      makeOp("accel.pad", {{"pads", pads}, {"mode", std::string("reflect")}}),
      {&x}, {{DType::F32, {3, 6}}});
  CHECK(values<float>(out[0]) == std::vector<float>{6, 5, 4, 5, 6, 5, 3, 2, 1,
                                                    2, 3, 2, 6, 5, 4, 5, 6, 5});
  out =
      run(makeOp("accel.pad", {{"pads", pads}, {"mode", std::string("edge")}}),
          {&x}, {{DType::F32, {3, 6}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 1, 1, 2, 3, 3, 1, 1, 1,
                                                    2, 3, 3, 4, 4, 4, 5, 6, 6});
  // Integer constant padding converts the value with cast rules.
  Tensor xi = make<int8_t>(DType::I8, {2}, {1, 2});
  out = run(makeOp("accel.pad",
                   {{"pads", std::vector<int64_t>{1, 1}}, {"value", -3.7}}),
            {&xi}, {{DType::I8, {4}}});
  CHECK(values<int8_t>(out[0]) == std::vector<int8_t>{-3, 1, 2, -3});
  CHECK(
      runError(makeOp("accel.pad", {{"pads", std::vector<int64_t>{0, 3, 0, 0}},
                                    {"mode", std::string("reflect")}}),
               {&x}, {{DType::F32, {2, 6}}})
          .find("reflect padding") != std::string::npos);
}
