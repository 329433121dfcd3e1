//===- ElementwiseTest.cpp - Elementwise host kernel tests ----------------===//
//
// Broadcasting binary ops in float and integer types, compare, where and
// the unary ops, checked against hand-computed values and the numerics
// library's scalar definitions.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include "nnaccel/Numerics/Float16.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <cmath>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;
namespace numerics = nnaccel::numerics;

TEST_CASE("add broadcasts numpy style", "[runtime][elementwise]") {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = f32({3}, {10, 20, 30});
  auto out = run(makeOp("accel.add"), {&a, &b}, {{DType::F32, {2, 3}}});
  CHECK(values<float>(out[0]) == std::vector<float>{11, 22, 33, 14, 25, 36});
  // Both operands broadcast: [2,1] x [1,3].
  Tensor c = f32({2, 1}, {1, 2});
  Tensor d = f32({1, 3}, {10, 20, 30});
  out = run(makeOp("accel.sub"), {&c, &d}, {{DType::F32, {2, 3}}});
  CHECK(values<float>(out[0]) ==
        std::vector<float>{-9, -19, -29, -8, -18, -28});
  // Scalar operand and per-channel NCHW operand.
  Tensor s = f32({}, {2});
  Tensor x = f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  out = run(makeOp("accel.mul"), {&s, &x}, {{DType::F32, {1, 2, 2, 2}}});
  CHECK(values<float>(out[0]) ==
        std::vector<float>{2, 4, 6, 8, 10, 12, 14, 16});
  Tensor ch = f32({1, 2, 1, 1}, {100, 200});
  out = run(makeOp("accel.add"), {&x, &ch}, {{DType::F32, {1, 2, 2, 2}}});
  CHECK(values<float>(out[0]) ==
        std::vector<float>{101, 102, 103, 104, 205, 206, 207, 208});
}

TEST_CASE("div, pow, max, min in f32", "[runtime][elementwise]") {
  Tensor a = f32({4}, {1, -8, 9, NAN});
  Tensor b = f32({4}, {4, 2, 0.5f, 1});
  auto out = run(makeOp("accel.div"), {&a, &b}, {{DType::F32, {4}}});
  CHECK(values<float>(out[0])[1] == -4);
  out = run(makeOp("accel.pow"), {&a, &b}, {{DType::F32, {4}}});
  CHECK(values<float>(out[0])[0] == 1);
  CHECK(values<float>(out[0])[1] == 64);
  CHECK(values<float>(out[0])[2] == 3);
  out = run(makeOp("accel.max"), {&a, &b}, {{DType::F32, {4}}});
  auto mx = values<float>(out[0]);
  CHECK(mx[0] == 4);
  CHECK(mx[1] == 2);
  CHECK(std::isnan(mx[3])); // NaN propagates like numerics::maxF32
  out = run(makeOp("accel.min"), {&a, &b}, {{DType::F32, {4}}});
  CHECK(values<float>(out[0])[2] == 0.5f);
}

TEST_CASE("integer arithmetic wraps and divides toward zero",
          "[runtime][elementwise]") {
  Tensor a = make<int8_t>(DType::I8, {4}, {127, -7, 7, -128});
  Tensor b = make<int8_t>(DType::I8, {4}, {1, 2, -2, -1});
  auto out = run(makeOp("accel.add"), {&a, &b}, {{DType::I8, {4}}});
  CHECK(values<int8_t>(out[0]) == std::vector<int8_t>{-128, -5, 5, 127});
  out = run(makeOp("accel.div"), {&a, &b}, {{DType::I8, {4}}});
  CHECK(values<int8_t>(out[0]) == std::vector<int8_t>{127, -3, -3, -128});
  Tensor c = i32({2, 2}, {1, 2, 3, 4});
  Tensor d = i32({2}, {10, -1});
  out = run(makeOp("accel.mul"), {&c, &d}, {{DType::I32, {2, 2}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{10, -2, 30, -4});
  out = run(makeOp("accel.max"), {&c, &d}, {{DType::I32, {2, 2}}});
  CHECK(values<int32_t>(out[0]) == std::vector<int32_t>{10, 2, 10, 4});
  Tensor e = i64({3}, {2, -3, 5});
  Tensor f = i64({3}, {10, 3, 0});
  out = run(makeOp("accel.pow"), {&e, &f}, {{DType::I64, {3}}});
  CHECK(values<int64_t>(out[0]) == std::vector<int64_t>{1024, -27, 1});
  Tensor g = make<int16_t>(DType::I16, {2}, {300, -300});
  out = run(makeOp("accel.min"), {&g, &g}, {{DType::I16, {2}}});
  CHECK(values<int16_t>(out[0]) == std::vector<int16_t>{300, -300});
}

TEST_CASE("integer division by zero is an error", "[runtime][elementwise]") {
  Tensor a = i32({2}, {1, 2});
  Tensor b = i32({2}, {1, 0});
  std::string msg =
      runError(makeOp("accel.div"), {&a, &b}, {{DType::I32, {2}}});
  CHECK(msg.find("accel.div") == 0);
  CHECK(msg.find("division by zero") != std::string::npos);
  Tensor z = i32({1}, {0});
  Tensor n = i32({1}, {-1});
  CHECK(runError(makeOp("accel.pow"), {&z, &n}, {{DType::I32, {1}}})
            .find("negative power") != std::string::npos);
}

TEST_CASE("f16 and bf16 compute in fp32 and round", "[runtime][elementwise]") {
  for (DType dt : {DType::F16, DType::BF16}) {
    auto enc = [&](float v) {
      return dt == DType::F16 ? numerics::fp32ToFp16(v)
                              : numerics::fp32ToBf16(v);
    };
    auto dec = [&](uint16_t v) {
      return dt == DType::F16 ? numerics::fp16ToFp32(v)
                              : numerics::bf16ToFp32(v);
    };
    Tensor a = make<uint16_t>(dt, {3}, {enc(1.5f), enc(-2.0f), enc(0.1f)});
    Tensor b = make<uint16_t>(dt, {1}, {enc(0.25f)});
    auto out = run(makeOp("accel.add"), {&a, &b}, {{dt, {3}}});
    auto v = values<uint16_t>(out[0]);
    CHECK(dec(v[0]) == 1.75f);
    CHECK(dec(v[1]) == -1.75f);
    CHECK(v[2] == enc(dec(enc(0.1f)) + 0.25f));
    out = run(makeOp("accel.exp"), {&a}, {{dt, {3}}});
    CHECK(values<uint16_t>(out[0])[0] == enc(numerics::expF32(1.5f)));
  }
  Tensor a = make<double>(DType::F64, {2}, {1e-20, 3});
  Tensor b = make<double>(DType::F64, {2}, {1, 4});
  auto out = run(makeOp("accel.add"), {&a, &b}, {{DType::F64, {2}}});
  CHECK(values<double>(out[0])[0] == 1.0 + 1e-20);
}

TEST_CASE("compare yields i1 with IEEE NaN rules", "[runtime][elementwise]") {
  Tensor a = f32({4}, {1, 2, 3, NAN});
  Tensor b = f32({1}, {2});
  struct Case {
    const char *kind;
    std::vector<uint8_t> want;
  } cases[] = {{"eq", {0, 1, 0, 0}}, {"ne", {1, 0, 1, 1}},
               {"lt", {1, 0, 0, 0}}, {"le", {1, 1, 0, 0}},
               {"gt", {0, 0, 1, 0}}, {"ge", {0, 1, 1, 0}}};
  for (const Case &c : cases) {
    auto out = run(makeOp("accel.compare", {{"kind", std::string(c.kind)}}),
                   {&a, &b}, {{DType::I1, {4}}});
    INFO(c.kind);
    CHECK(values<uint8_t>(out[0]) == c.want);
  }
  Tensor x = i64({3}, {-1, 0, 5});
  Tensor y = i64({3}, {0, 0, 0});
  auto out = run(makeOp("accel.compare", {{"kind", std::string("lt")}}),
                 {&x, &y}, {{DType::I1, {3}}});
  CHECK(values<uint8_t>(out[0]) == std::vector<uint8_t>{1, 0, 0});
  CHECK(runError(makeOp("accel.compare", {{"kind", std::string("xx")}}),
                 {&x, &y}, {{DType::I1, {3}}})
            .find("unknown comparison kind 'xx'") != std::string::npos);
}

TEST_CASE("where selects with three-way broadcasting",
          "[runtime][elementwise]") {
  Tensor c = make<uint8_t>(DType::I1, {2, 1}, {1, 0});
  Tensor x = i64({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = i64({}, {-1});
  auto out = run(makeOp("accel.where"), {&c, &x, &y}, {{DType::I64, {2, 3}}});
  CHECK(values<int64_t>(out[0]) == std::vector<int64_t>{1, 2, 3, -1, -1, -1});
  Tensor notBool = i64({2, 1}, {1, 0});
  CHECK(runError(makeOp("accel.where"), {&notBool, &x, &y},
                 {{DType::I64, {2, 3}}})
            .find("condition must be i1") != std::string::npos);
}

TEST_CASE("unary ops use numerics definitions", "[runtime][elementwise]") {
  std::vector<float> in = {-2.5f, -0.0f, 0.3f, 1.0f, 4.0f};
  Tensor x = f32({5}, in);
  TensorDesc d(DType::F32, {5});
  struct Case {
    const char *kind;
    float (*ref)(float);
  } cases[] = {
      {"accel.exp", numerics::expF32},
      {"accel.erf", numerics::erfF32},
      {"accel.tanh", numerics::tanhF32},
      {"accel.sigmoid", numerics::sigmoidF32},
      {"accel.gelu", numerics::geluErfF32},
  };
  for (const Case &c : cases) {
    auto out = run(makeOp(c.kind), {&x}, {d});
    auto v = values<float>(out[0]);
    for (size_t i = 0; i < in.size(); ++i) {
      INFO(c.kind << " at " << in[i]);
      CHECK(numerics::floatToBits(v[i]) == numerics::floatToBits(c.ref(in[i])));
    }
  }
  auto g = run(makeOp("accel.gelu", {{"approximate", std::string("tanh")}}),
               {&x}, {d});
  CHECK(values<float>(g[0])[3] == numerics::geluTanhF32(1.0f));
  auto sq = run(makeOp("accel.sqrt"), {&x}, {d});
  CHECK(values<float>(sq[0])[4] == 2.0f);
  CHECK(std::isnan(values<float>(sq[0])[0]));
  auto relu = run(makeOp("accel.relu"), {&x}, {d});
  CHECK(values<float>(relu[0]) == std::vector<float>{0, 0, 0.3f, 1, 4});
  CHECK(!std::signbit(values<float>(relu[0])[1]));
  auto neg = run(makeOp("accel.neg"), {&x}, {d});
  CHECK(values<float>(neg[0])[0] == 2.5f);
  auto abs = run(makeOp("accel.abs"), {&x}, {d});
  CHECK(values<float>(abs[0])[0] == 2.5f);

  Tensor xi = make<int8_t>(DType::I8, {4}, {-128, -3, 0, 5});
  TensorDesc di(DType::I8, {4});
  CHECK(values<int8_t>(run(makeOp("accel.neg"), {&xi}, {di})[0]) ==
        std::vector<int8_t>{-128, 3, 0, -5});
  CHECK(values<int8_t>(run(makeOp("accel.abs"), {&xi}, {di})[0]) ==
        std::vector<int8_t>{-128, 3, 0, 5});
  CHECK(values<int8_t>(run(makeOp("accel.relu"), {&xi}, {di})[0]) ==
        std::vector<int8_t>{0, 0, 0, 5});
  CHECK(runError(makeOp("accel.exp"), {&xi}, {di})
            .find("unsupported element type i8") != std::string::npos);
}

TEST_CASE("clip with optional bounds", "[runtime][elementwise]") {
  Tensor x = f32({4}, {-10, 0.5f, 3, 10});
  TensorDesc d(DType::F32, {4});
  CHECK(values<float>(run(makeOp("accel.clip", {{"min", 0.0}, {"max", 6.0}}),
                          {&x}, {d})[0]) == std::vector<float>{0, 0.5f, 3, 6});
  CHECK(values<float>(run(makeOp("accel.clip", {{"max", 1.0}}), {&x},
                          {d})[0]) == std::vector<float>{-10, 0.5f, 1, 1});
  CHECK(values<float>(run(makeOp("accel.clip"), {&x}, {d})[0]) ==
        values<float>(x));
  Tensor xi = i32({4}, {-10, 0, 3, 10});
  CHECK(values<int32_t>(run(makeOp("accel.clip", {{"min", -1.5}, {"max", 2.5}}),
                            {&xi}, {{DType::I32, {4}}})[0]) ==
        std::vector<int32_t>{-1, 0, 2, 2});
  CHECK(runError(makeOp("accel.clip", {{"min", 2.0}, {"max", 1.0}}), {&x}, {d})
            .find("min must not exceed max") != std::string::npos);
}

TEST_CASE("round: half to even, specials kept", "[runtime][elementwise]") {
  const float inf = INFINITY;
  Tensor x = f32({12}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.7f, -2.2f, 8388609.0f,
                        1e30f, inf, -inf, NAN});
  auto out = run(makeOp("accel.round"), {&x}, {{DType::F32, {12}}});
  std::vector<float> v = values<float>(out[0]);
  CHECK(std::vector<float>(v.begin(), v.end() - 1) ==
        std::vector<float>{0, 2, 2, -0.0f, -2, 3, -2, 8388609.0f, 1e30f, inf,
                           -inf});
  CHECK(std::signbit(v[3])); // -0.5 rounds to -0.
  CHECK(std::isnan(v.back()));
  // f64 keeps its precision; f16 rounds through fp32.
  Tensor d = make<double>(DType::F64, {3}, {2.5, 4503599627370495.5, -3.5});
  out = run(makeOp("accel.round"), {&d}, {{DType::F64, {3}}});
  CHECK(values<double>(out[0]) ==
        std::vector<double>{2, 4503599627370496.0, -4});
  Tensor h =
      make<uint16_t>(DType::F16, {2},
                     {numerics::fp32ToFp16(3.5f), numerics::fp32ToFp16(-6.5f)});
  out = run(makeOp("accel.round"), {&h}, {{DType::F16, {2}}});
  CHECK(values<uint16_t>(out[0]) ==
        std::vector<uint16_t>{numerics::fp32ToFp16(4.0f),
                              numerics::fp32ToFp16(-6.0f)});
  Tensor i = i32({1}, {3});
  CHECK(runError(makeOp("accel.round"), {&i}, {{DType::I32, {1}}}) ==
        "accel.round: unsupported element type i32 for this op");
}
