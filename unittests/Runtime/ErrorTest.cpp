//===- ErrorTest.cpp - Error paths shared by every kernel -----------------===//
//
// The dispatcher's checks (unknown ops, operand and result counts, missing
// operands, invalid descriptors) and typical per-kernel failures: declared
// result mismatches, missing or mistyped attributes, unsupported dtypes.
// Every failure is a Status naming the op; nothing throws or aborts.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

TEST_CASE("unknown and structural ops are rejected", "[runtime][errors]") {
  Tensor x = f32({1}, {1});
  CHECK(runError(makeOp("accel.frobnicate"), {&x}, {{DType::F32, {1}}}) ==
        "accel.frobnicate: no host kernel for this op");
  CHECK(runError(makeOp("accel.constant"), {}, {{DType::F32, {1}}})
            .find("is not a host kernel") != std::string::npos);
  HostOp located = makeOp("accel.nope");
  located.location = "net.onnx:3";
  CHECK(runError(located, {&x}, {{DType::F32, {1}}})
            .find("accel.nope (net.onnx:3): ") == 0);
}

TEST_CASE("operand and result counts", "[runtime][errors]") {
  Tensor x = f32({2}, {1, 2});
  CHECK(runError(makeOp("accel.add"), {&x}, {{DType::F32, {2}}}) ==
        "accel.add: expected 2 operands, got 1");
  CHECK(runError(makeOp("accel.relu"), {&x, &x}, {{DType::F32, {2}}}) ==
        "accel.relu: expected 1 operands, got 2");
  CHECK(runError(makeOp("accel.fully_connected"), {&x, &x, &x, &x},
                 {{DType::F32, {2}}}) ==
        "accel.fully_connected: expected 2 to 3 operands, got 4");
  CHECK(runError(makeOp("accel.add"), {&x, nullptr}, {{DType::F32, {2}}}) ==
        "accel.add: operand 1 is missing");
  CHECK(runError(makeOp("accel.fully_connected"), {nullptr, &x, &x},
                 {{DType::F32, {2}}}) ==
        "accel.fully_connected: operand 0 is missing");
  CHECK(runError(makeOp("accel.concat", {{"axis", int64_t(0)}}),
                 {&x, nullptr, &x},
                 {{DType::F32, {4}}}) == "accel.concat: operand 1 is missing");
  CHECK(runError(makeOp("accel.relu"), {&x}, {}) ==
        "accel.relu: expected 1 result descriptors, got 0");
  CHECK(runError(makeOp("accel.relu"), {&x}, {{DType::F32, {-2}}})
            .find("result 0: negative dimension") != std::string::npos);
  Tensor null;
  CHECK(runError(makeOp("accel.relu"), {&null}, {{DType::F32, {2}}}) ==
        "accel.relu: operand 0 is missing");
}

TEST_CASE("declared results are checked", "[runtime][errors]") {
  Tensor a = f32({2, 3}, std::vector<float>(6, 1));
  Tensor b = f32({3}, {1, 2, 3});
  CHECK(runError(makeOp("accel.add"), {&a, &b}, {{DType::F32, {2, 4}}}) ==
        "accel.add: result 0 is declared as f32[2x4] but the op produces "
        "f32[2x3]");
  CHECK(runError(makeOp("accel.add"), {&a, &b}, {{DType::F16, {2, 3}}})
            .find("declared as f16[2x3]") != std::string::npos);
  Tensor c = f32({4}, {1, 2, 3, 4});
  CHECK(runError(makeOp("accel.add"), {&a, &c}, {{DType::F32, {2, 3}}}) ==
        "accel.add: operand shapes [2x3] and [4] do not broadcast");
  Tensor i = i32({3}, {1, 2, 3});
  CHECK(runError(makeOp("accel.add"), {&b, &i}, {{DType::F32, {3}}}) ==
        "accel.add: operand element types differ: f32 vs i32");
  CHECK(runError(makeOp("accel.matmul"), {&a, &a}, {{DType::F32, {2, 3}}})
            .find("contraction sizes differ") != std::string::npos);
  CHECK(runError(makeOp("accel.cast"), {&b}, {{DType::I32, {4}}})
            .find("differs from the operand shape") != std::string::npos);
}

TEST_CASE("attribute errors", "[runtime][errors]") {
  Tensor x = f32({1, 1, 4, 4}, std::vector<float>(16, 1));
  Tensor w = f32({1, 1, 3, 3}, std::vector<float>(9, 1));
  CHECK(runError(
            makeOp("accel.conv", {{"pads", std::vector<int64_t>(4, 0)},
                                  {"dilations", std::vector<int64_t>{1, 1}}}),
            {&x, &w}, {{DType::F32, {1, 1, 2, 2}}}) ==
        "accel.conv: missing required attribute 'strides'");
  CHECK(runError(
            makeOp("accel.conv", {{"strides", int64_t(1)},
                                  {"pads", std::vector<int64_t>(4, 0)},
                                  {"dilations", std::vector<int64_t>{1, 1}}}),
            {&x, &w}, {{DType::F32, {1, 1, 2, 2}}}) ==
        "accel.conv: attribute 'strides' must be an integer array, got an "
        "integer");
  CHECK(runError(
            makeOp("accel.conv", {{"strides", std::vector<int64_t>{1}},
                                  {"pads", std::vector<int64_t>(4, 0)},
                                  {"dilations", std::vector<int64_t>{1, 1}}}),
            {&x, &w}, {{DType::F32, {1, 1, 2, 2}}})
            .find("strides and dilations need 2 entries") != std::string::npos);
  CHECK(
      runError(makeOp("accel.conv", {{"strides", std::vector<int64_t>{1, 1}},
                                     {"pads", std::vector<int64_t>(4, 0)},
                                     {"dilations", std::vector<int64_t>{1, 1}},
                                     {"groups", int64_t(2)}}),
               {&x, &w}, {{DType::F32, {1, 1, 2, 2}}})
          .find("groups = 2 must divide") != std::string::npos);
  CHECK(
      runError(makeOp("accel.conv", {{"strides", std::vector<int64_t>{1, 1}},
                                     {"pads", std::vector<int64_t>(4, 0)},
                                     {"dilations", std::vector<int64_t>{1, 1}},
                                     {"activation", std::string("swish")}}),
               {&x, &w}, {{DType::F32, {1, 1, 2, 2}}}) ==
      "accel.conv: unknown activation 'swish'");
  Tensor v = f32({2}, {1, 2});
  CHECK(runError(makeOp("accel.gelu", {{"approximate", std::string("fast")}}),
                 {&v}, {{DType::F32, {2}}}) ==
        "accel.gelu: unknown gelu approximation 'fast'");
  CHECK(runError(makeOp("accel.softmax", {{"axis", int64_t(3)}}), {&v},
                 {{DType::F32, {2}}}) ==
        "accel.softmax: axis 3 is out of range for rank 1");
  CHECK(
      runError(makeOp("accel.reduce_sum", {{"axes", std::vector<int64_t>{1}}}),
               {&v}, {{DType::F32, {1}}}) ==
      "accel.reduce_sum: axis 1 is out of range for rank 1");
  CHECK(runError(makeOp("accel.pad", {{"pads", std::vector<int64_t>{1, 1}},
                                      {"mode", std::string("wrap")}}),
                 {&v},
                 {{DType::F32, {4}}}) == "accel.pad: unknown pad mode 'wrap'");
  CHECK(runError(makeOp("accel.embedding_bag", {{"mode", std::string("max")}}),
                 {&v, &v}, {{DType::F32, {1, 2}}})
            .find("table must be rank 2") != std::string::npos);
  Tensor table = f32({2, 2}, {1, 2, 3, 4});
  Tensor ids = i64({1, 1}, {0});
  CHECK(runError(makeOp("accel.embedding_bag", {{"mode", std::string("max")}}),
                 {&table, &ids}, {{DType::F32, {1, 2}}}) ==
        "accel.embedding_bag: unknown bag mode 'max'");
  CHECK(runError(makeOp("accel.embedding_bag"), {&table, &table},
                 {{DType::F32, {1, 2}}})
            .find("unsupported element type f32 for indices") !=
        std::string::npos);
}

TEST_CASE("unsupported element types", "[runtime][errors]") {
  Tensor b = make<uint8_t>(DType::I1, {2}, {1, 0});
  CHECK(runError(makeOp("accel.add"), {&b, &b}, {{DType::I1, {2}}}) ==
        "accel.add: unsupported element type i1 for this op");
  Tensor i = i32({2, 2}, {1, 2, 3, 4});
  Tensor f = f32({2, 2}, {1, 2, 3, 4});
  CHECK(runError(makeOp("accel.matmul"), {&f, &i}, {{DType::F32, {2, 2}}}) ==
        "accel.matmul: unsupported element type i32 for rhs");
  CHECK(runError(makeOp("accel.softmax"), {&i}, {{DType::I32, {2, 2}}}) ==
        "accel.softmax: unsupported element type i32 for this op");
}
