//===- PrecisionTest.cpp - cast, convert and quantisation tests -----------===//

#include "TestHelpers.h"

#include "nnaccel/Numerics/Float16.h"

#include <cmath>
#include <limits>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;
namespace numerics = nnaccel::numerics;

TEST_CASE("cast float to int truncates and saturates", "[runtime][precision]") {
  Tensor x = f32({7}, {2.9f, -2.9f, 300, -300, NAN, INFINITY, -0.5f});
  auto out = run(makeOp("accel.cast"), {&x}, {{DType::I8, {7}}});
  CHECK(values<int8_t>(out[0]) ==
        std::vector<int8_t>{2, -2, 127, -128, 0, 127, 0});
  out = run(makeOp("accel.cast"), {&x}, {{DType::U8, {7}}});
  CHECK(values<uint8_t>(out[0]) ==
        std::vector<uint8_t>{2, 0, 255, 0, 0, 255, 0});
  out = run(makeOp("accel.cast"), {&x}, {{DType::I1, {7}}});
  CHECK(values<uint8_t>(out[0]) == std::vector<uint8_t>{1, 1, 1, 1, 1, 1, 1});
  Tensor big = make<double>(DType::F64, {2}, {3e10, -3e10});
  out = run(makeOp("accel.cast"), {&big}, {{DType::I32, {2}}});
  CHECK(values<int32_t>(out[0]) ==
        std::vector<int32_t>{std::numeric_limits<int32_t>::max(),
                             std::numeric_limits<int32_t>::min()});
}

TEST_CASE("cast int to float rounds to nearest even", "[runtime][precision]") {
  Tensor x = i64({3}, {16777217, 16777219, -5});
  auto out = run(makeOp("accel.cast"), {&x}, {{DType::F32, {3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{16777216, 16777220, -5});
  // 2049 is a tie between 2048 and 2050 in f16: even mantissa wins.
  Tensor y = i32({2}, {2049, 2051});
  out = run(makeOp("accel.cast"), {&y}, {{DType::F16, {2}}});
  auto h = values<uint16_t>(out[0]);
  CHECK(numerics::fp16ToFp32(h[0]) == 2048);
  CHECK(numerics::fp16ToFp32(h[1]) == 2052);
}

TEST_CASE("cast between integers and bools", "[runtime][precision]") {
  Tensor b = make<uint8_t>(DType::I1, {2}, {1, 0});
  auto out = run(makeOp("accel.cast"), {&b}, {{DType::I32, {2}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{1, 0});
  out = run(makeOp("accel.cast"), {&b}, {{DType::F32, {2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{1, 0});
  Tensor x = i32({3}, {300, -1, 0});
  out = run(makeOp("accel.cast"), {&x}, {{DType::I8, {3}}});
  CHECK(values<int8_t>(out[0]) == std::vector<int8_t>{44, -1, 0}); // wraps
  out = run(makeOp("accel.cast"), {&x}, {{DType::I1, {3}}});
  CHECK(values<uint8_t>(out[0]) == std::vector<uint8_t>{1, 1, 0});
  Tensor u = make<uint8_t>(DType::U8, {1}, {200});
  out = run(makeOp("accel.cast"), {&u}, {{DType::I64, {1}}});
  CHECK(values<int64_t>(out[0]) == std::vector<int64_t>{200});
  // f64 -> f16 rounds once (no double rounding through f32):
  // 1 + 2^-11 + 2^-40 is just above the f16 tie at 1 + 2^-11.
  Tensor d = make<double>(DType::F64, {1},
                          {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)});
  out = run(makeOp("accel.cast"), {&d}, {{DType::F16, {1}}});
  CHECK(numerics::fp16ToFp32(values<uint16_t>(out[0])[0]) ==
        1.0f + std::ldexp(1.0f, -10));
}

TEST_CASE("convert between float formats", "[runtime][precision]") {
  Tensor x = f32({3}, {1.0f / 3, 70000, NAN});
  auto out = run(makeOp("accel.convert"), {&x}, {{DType::F16, {3}}});
  auto h = values<uint16_t>(out[0]);
  CHECK(h[0] == numerics::fp32ToFp16(1.0f / 3));
  CHECK(h[1] == numerics::kFp16PosInf);
  CHECK(numerics::isFp16NaN(h[2]));
  out = run(makeOp("accel.convert"), {&out[0]}, {{DType::BF16, {3}}});
  CHECK(values<uint16_t>(out[0])[0] ==
        numerics::fp32ToBf16(numerics::fp16ToFp32(h[0])));
  Tensor i = i32({1}, {1});
  CHECK(runError(makeOp("accel.convert"), {&i}, {{DType::F32, {1}}})
            .find("float formats only") != std::string::npos);
}

TEST_CASE("quantize and dequantize: ONNX examples", "[runtime][precision]") {
  // ONNX QuantizeLinear example: x = [0, 2, 3, 1000, -254, -1000],
  // scale 2, zero point 128, uint8 -> [128, 129, 130, 255, 1, 0].
  Tensor x = f32({6}, {0, 2, 3, 1000, -254, -1000});
  auto q = run(
      makeOp("accel.quantize", {{"scale", 2.0}, {"zero_point", int64_t(128)}}),
      {&x}, {{DType::U8, {6}}});
  CHECK(values<uint8_t>(q[0]) ==
        std::vector<uint8_t>{128, 129, 130, 255, 1, 0});
  // int8 with rounding half to even: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2.
  Tensor y = f32({4}, {2.5f, 3.5f, -2.5f, 500});
  q = run(makeOp("accel.quantize", {{"scale", 1.0}}), {&y}, {{DType::I8, {4}}});
  CHECK(values<int8_t>(q[0]) == std::vector<int8_t>{2, 4, -2, 127});
  // narrow storage range
  q = run(makeOp("accel.quantize",
                 {{"scale", 1.0}, {"storage_min", int64_t(-127)}}),
          {&x}, {{DType::I8, {6}}});
  CHECK(values<int8_t>(q[0])[5] == -127);
  // ONNX DequantizeLinear example: [0, 3, 128, 255], scale 2, zp 128.
  Tensor c = make<uint8_t>(DType::U8, {4}, {0, 3, 128, 255});
  auto d = run(makeOp("accel.dequantize",
                      {{"scale", 2.0}, {"zero_point", int64_t(128)}}),
               {&c}, {{DType::F32, {4}}});
  CHECK(values<float>(d[0]) == std::vector<float>{-256, -250, 0, 254});
  Tensor acc = i32({2}, {1000000, -7});
  d = run(makeOp("accel.dequantize", {{"scale", 0.5}}), {&acc},
          {{DType::F32, {2}}});
  CHECK(values<float>(d[0]) == std::vector<float>{500000, -3.5f});
}

TEST_CASE("per-axis quantisation", "[runtime][precision]") {
  Tensor w = f32({2, 3}, {1, 2, 3, 1, 2, 3});
  auto q = run(
      makeOp("accel.quantize", {{"scales", std::vector<double>{1.0, 0.5}},
                                {"zero_points", std::vector<int64_t>{0, -1}},
                                {"axis", int64_t(0)}}),
      {&w}, {{DType::I8, {2, 3}}});
  CHECK(values<int8_t>(q[0]) == std::vector<int8_t>{1, 2, 3, 1, 3, 5});
  auto d = run(
      makeOp("accel.dequantize", {{"scales", std::vector<double>{1.0, 0.5}},
                                  {"zero_points", std::vector<int64_t>{0, -1}},
                                  {"axis", int64_t(-2)}}),
      {&q[0]}, {{DType::F32, {2, 3}}});
  CHECK(values<float>(d[0]) == values<float>(w));
  // Along the last axis.
  q = run(makeOp("accel.quantize", {{"scales", std::vector<double>{1, 2, 4}},
                                    {"axis", int64_t(1)}}),
          {&w}, {{DType::U8, {2, 3}}});
  CHECK(values<uint8_t>(q[0]) == std::vector<uint8_t>{1, 1, 1, 1, 1, 1});
  CHECK(runError(makeOp("accel.quantize", {{"scales", std::vector<double>{1.0}},
                                           {"axis", int64_t(0)}}),
                 {&w}, {{DType::I8, {2, 3}}})
            .find("needs that many scales") != std::string::npos);
}

TEST_CASE("requantize float and fixed-point schemes", "[runtime][precision]") {
  Tensor acc = i32({4}, {100, -100, 1000000, 25});
  auto r = run(makeOp("accel.requantize", {{"input_scale", 0.01},
                                           {"output_scale", 0.1},
                                           {"output_zero_point", int64_t(3)}}),
               {&acc}, {{DType::I8, {4}}});
  // 100 * 0.1 = 10 (+3); -10 + 3; saturates; 2.5 -> 2 (+3).
  CHECK(values<int8_t>(r[0]) == std::vector<int8_t>{13, -7, 127, 5});
  // Fixed point: multiplier 2^30 with shift 0 is 0.5.
  r = run(makeOp("accel.requantize", {{"input_scale", 0.01},
                                      {"output_scale", 0.02},
                                      {"multiplier", int64_t(1) << 30},
                                      {"shift", int64_t(0)}}),
          {&acc}, {{DType::I8, {4}}});
  CHECK(values<int8_t>(r[0]) == std::vector<int8_t>{50, -50, 127, 13});
  Tensor q8 = make<int8_t>(DType::I8, {2}, {-128, 127});
  r = run(makeOp("accel.requantize", {{"input_scale", 1.0},
                                      {"input_zero_point", int64_t(-128)},
                                      {"output_scale", 1.0}}),
          {&q8}, {{DType::U8, {2}}});
  CHECK(values<uint8_t>(r[0]) == std::vector<uint8_t>{0, 255});
}

TEST_CASE("quantisation parameter errors", "[runtime][precision]") {
  Tensor x = f32({2}, {1, 2});
  CHECK(runError(makeOp("accel.quantize"), {&x}, {{DType::I8, {2}}})
            .find("missing required attribute 'scale'") != std::string::npos);
  CHECK(runError(makeOp("accel.quantize", {{"scale", 0.0}}), {&x},
                 {{DType::I8, {2}}})
            .find("finite and positive") != std::string::npos);
  CHECK(runError(makeOp("accel.quantize",
                        {{"scale", 1.0}, {"zero_point", int64_t(200)}}),
                 {&x}, {{DType::I8, {2}}})
            .find("outside the storage range [-128, 127]") !=
        std::string::npos);
  CHECK(runError(makeOp("accel.quantize", {{"scale", 1.0}}), {&x},
                 {{DType::F16, {2}}})
            .find("unsupported element type f16") != std::string::npos);
}
