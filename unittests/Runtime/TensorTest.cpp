//===- TensorTest.cpp - Tensor, DType and HostOp attribute tests ----------===//
//
// Descriptors, owned/view/copy-on-write storage, dtype names, attribute
// accessors and the op registry.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

TEST_CASE("dtype names round trip", "[runtime][tensor]") {
  for (DType d : ::nnaccel::AllDTypes) {
    auto parsed = parseDType(getDTypeName(d));
    REQUIRE(parsed.has_value());
    CHECK(*parsed == d);
  }
  CHECK(getDTypeSize(DType::I1) == 1);
  CHECK(getDTypeSize(DType::BF16) == 2);
  CHECK(getDTypeSize(DType::F64) == 8);
  CHECK(std::string(getDTypeName(DType::I64)) == "i64");
  CHECK(!parseDType("f8").has_value());
}

TEST_CASE("packed element types size whole rows", "[runtime][tensor]") {
  // i4 rows start on a byte; block formats store whole blocks.
  CHECK(getDTypeSize(DType::I4) == 0);
  CHECK(TensorDesc(DType::I4, {3, 5}).getByteSize() == 9);
  CHECK(TensorDesc(DType::U4, {4, 8}).getByteSize() == 16);
  CHECK(TensorDesc(DType::MSFP9, {2, 16}).getByteSize() == 18);
  CHECK(TensorDesc(DType::MXINT8, {1, 40}).getByteSize() == 66);
  CHECK(TensorDesc(DType::FP8E4M3, {7}).getByteSize() == 7);
  Tensor t = Tensor::allocate(TensorDesc(DType::I4, {3, 5}));
  REQUIRE(!t.isNull());
  CHECK(t.getByteSize() == 9);
  CHECK(t.getDesc().toString() == "i4[3x5]");
  CHECK(TensorDesc(DType::MXFP8E4M3, {1, 40}).getByteSize() == 66);
  CHECK(TensorDesc(DType::MXFP8E5M2, {1, 40}).getByteSize() == 66);
  CHECK(TensorDesc(DType::U16, {3}).getByteSize() == 6);
  CHECK(TensorDesc(DType::U32, {3}).getByteSize() == 12);
  CHECK(!TensorDesc(static_cast<DType>(23), {1}).validate().ok());
}

TEST_CASE("descriptors validate and format", "[runtime][tensor]") {
  TensorDesc d(DType::F32, {2, 3, 4});
  CHECK(d.getNumElements() == 24);
  CHECK(d.getByteSize() == 96);
  CHECK(d.toString() == "f32[2x3x4]");
  CHECK(TensorDesc(DType::I8, {}).getNumElements() == 1);
  CHECK(!TensorDesc(DType::F32, {2, -1}).validate().ok());
  CHECK(!TensorDesc(DType::F32, {1LL << 40, 1LL << 40}).validate().ok());
  CHECK(Tensor::allocate(TensorDesc(DType::F32, {-3})).isNull());
}

TEST_CASE("copies share bytes and write copy-on-write", "[runtime][tensor]") {
  Tensor a = f32({3}, {1, 2, 3});
  Tensor b = a;
  CHECK(b.data() == a.data());
  b.mutableAs<float>()[0] = 9;
  CHECK(a.as<float>()[0] == 1);
  CHECK(b.as<float>()[0] == 9);
  // Sole owner writes in place.
  const void *before = b.data();
  b.mutableAs<float>()[1] = 8;
  CHECK(b.data() == before);
}

TEST_CASE("views never write to their owner's memory", "[runtime][tensor]") {
  auto storage =
      std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4});
  Tensor v =
      Tensor::view(TensorDesc(DType::F32, {2, 2}), storage->data(), storage);
  CHECK(v.isView());
  CHECK(v.as<float>()[3] == 4);
  v.mutableAs<float>()[3] = 7;
  CHECK(!v.isView());
  CHECK((*storage)[3] == 4);
  CHECK(v.as<float>()[3] == 7);
  Tensor r = v.reinterpret(TensorDesc(DType::F32, {4}));
  CHECK(r.getShape() == std::vector<int64_t>{4});
  CHECK(v.reinterpret(TensorDesc(DType::F32, {5})).isNull());
  Tensor c = r.clone();
  CHECK(c.data() != r.data());
  CHECK(values<float>(c) == values<float>(r));
}

TEST_CASE("attribute accessors", "[runtime][hostop]") {
  HostOp op = makeOp("accel.test", {{"i", int64_t(3)},
                                    {"f", 2.5},
                                    {"s", std::string("relu")},
                                    {"v", std::vector<int64_t>{1, 2}},
                                    {"e", std::vector<double>{}}});
  op.location = "model.onnx:7";
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> v;
  CHECK(op.getInt("i", i).ok());
  CHECK(i == 3);
  CHECK(op.getFloat("f", f).ok());
  CHECK(f == 2.5);
  CHECK(op.getFloat("i", f).ok()); // ints widen to floats
  CHECK(f == 3.0);
  CHECK(op.getString("s", s).ok());
  CHECK(op.getInts("v", v).ok());
  CHECK(op.getInts("e", v).ok()); // empty float array reads as empty ints
  CHECK(v.empty());
  CHECK(op.getIntOr("absent", 7, i).ok());
  CHECK(i == 7);
  Status bad = op.getInt("f", i);
  CHECK(!bad.ok());
  CHECK(bad.message() ==
        "accel.test (model.onnx:7): attribute 'f' must be an integer, got a "
        "float");
  Status missing = op.getString("nope", s);
  CHECK(missing.message().find("missing required attribute 'nope'") !=
        std::string::npos);
}

TEST_CASE("registry lists every computing accel op", "[runtime][hostop]") {
  std::vector<std::string> ops = getSupportedHostOps();
  CHECK(ops.size() == 79);
  CHECK(std::is_sorted(ops.begin(), ops.end()));
  for (const std::string &k : ops)
    CHECK(isHostOpSupported(k));
  CHECK(!isHostOpSupported("accel.constant"));
  CHECK(!isHostOpSupported("accel.yield"));
  CHECK(!isHostOpSupported("accel.host_partition"));
  CHECK(!isHostOpSupported("conv"));
}
