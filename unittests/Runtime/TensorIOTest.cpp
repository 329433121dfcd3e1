//===- TensorIOTest.cpp - nnaccel-run's tensor files and comparison -------===//
//
// TensorProto inputs are encoded by hand here (protobuf wire format) so the
// tests control every field -- typed data fields, raw_data, external data,
// truncation -- without linking libonnx into the test. .npy files are
// built byte by byte for the same reason, and both formats are round-tripped
// through the writers.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/TensorIO/TensorIO.h"
#include "nnaccel/TensorIO/Compare.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

using namespace nnaccel;
using namespace nnaccel::tensorio;
using runtime::DType;
using runtime::TensorDesc;

namespace {

//===--- protobuf wire format -------------------------------------------===//

void varint(std::vector<uint8_t> &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}
void key(std::vector<uint8_t> &out, unsigned field, unsigned wire) {
  varint(out, (field << 3) | wire);
}
void bytesField(std::vector<uint8_t> &out, unsigned field,
                const std::vector<uint8_t> &payload) {
  key(out, field, 2);
  varint(out, payload.size());
  out.insert(out.end(), payload.begin(), payload.end());
}
template <typename T> std::vector<uint8_t> le(const std::vector<T> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!v.empty())
    std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// onnx.TensorProto field numbers.
enum : unsigned {
  Dims = 1,
  DataType = 2,
  FloatData = 4,
  Int32Data = 5,
  Int64Data = 7,
  Name = 8,
  RawData = 9,
  DoubleData = 10,
  Uint64Data = 11,
  DataLocation = 14,
};

std::vector<uint8_t> proto(std::vector<int64_t> dims, int type,
                           const std::string &name = "t") {
  std::vector<uint8_t> out, packed;
  for (int64_t d : dims)
    varint(packed, static_cast<uint64_t>(d));
  bytesField(out, Dims, packed);
  key(out, DataType, 0);
  varint(out, static_cast<uint64_t>(type));
  bytesField(out, Name, std::vector<uint8_t>(name.begin(), name.end()));
  return out;
}

std::vector<uint8_t> packedVarints(const std::vector<int64_t> &v) {
  std::vector<uint8_t> out;
  for (int64_t x : v)
    varint(out, static_cast<uint64_t>(x)); // negative: 10-byte two's complement
  return out;
}

NamedTensor parseOk(const std::vector<uint8_t> &bytes) {
  auto t = parseTensorProto(bytes.data(), bytes.size(), "t.pb");
  INFO(t.message());
  REQUIRE(t.ok());
  return std::move(t.value());
}

std::string parseError(const std::vector<uint8_t> &bytes) {
  auto t = parseTensorProto(bytes.data(), bytes.size(), "t.pb");
  REQUIRE(!t.ok());
  return t.message();
}

//===--- .npy -----------------------------------------------------------===//

std::vector<uint8_t> npy(const std::string &header,
                         const std::vector<uint8_t> &data, uint8_t major = 1) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  size_t len = header.size();
  out.push_back(static_cast<uint8_t>(len & 0xFF));
  out.push_back(static_cast<uint8_t>(len >> 8));
  if (major >= 2) {
    out.push_back(0);
    out.push_back(0);
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Tensor make(DType dtype, std::vector<int64_t> shape, const void *data) {
  return Tensor::copyOf(TensorDesc(dtype, std::move(shape)), data);
}

class TempDir {
public:
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("nnaccel-tensorio-" +
            std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string &name) const {
    return (path / name).string();
  }

private:
  std::filesystem::path path;
};

} // namespace

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

TEST_CASE("TensorProto raw_data", "[tensorio]") {
  std::vector<float> v = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1e-3f};
  std::vector<uint8_t> b = proto({2, 3}, 1, "input");
  bytesField(b, RawData, le(v));
  NamedTensor t = parseOk(b);
  REQUIRE(t.name == "input");
  REQUIRE(t.tensor.getDesc() == TensorDesc(DType::F32, {2, 3}));
  REQUIRE(std::memcmp(t.tensor.data(), v.data(), 24) == 0);

  // Scalars have no dims.
  std::vector<uint8_t> s = proto({}, 7);
  bytesField(s, RawData, le(std::vector<int64_t>{-42}));
  NamedTensor scalar = parseOk(s);
  REQUIRE(scalar.tensor.getRank() == 0);
  REQUIRE(scalar.tensor.as<int64_t>()[0] == -42);
}

TEST_CASE("TensorProto typed data fields", "[tensorio]") {
  SECTION("float_data") {
    std::vector<uint8_t> b = proto({3}, 1);
    bytesField(b, FloatData, le(std::vector<float>{1, 2, 3}));
    NamedTensor t = parseOk(b);
    REQUIRE(t.tensor.as<float>()[2] == 3.0f);
  }
  SECTION("double_data") {
    std::vector<uint8_t> b = proto({2}, 11);
    bytesField(b, DoubleData, le(std::vector<double>{0.1, -0.2}));
    NamedTensor t = parseOk(b);
    REQUIRE(t.tensor.getDType() == DType::F64);
    REQUIRE(t.tensor.as<double>()[1] == -0.2);
  }
  SECTION("int64_data") {
    std::vector<uint8_t> b = proto({2, 2}, 7);
    bytesField(b, Int64Data, packedVarints({1, -1, 1LL << 40, 0}));
    NamedTensor t = parseOk(b);
    REQUIRE(t.tensor.getDType() == DType::I64);
    REQUIRE(t.tensor.as<int64_t>()[1] == -1);
    REQUIRE(t.tensor.as<int64_t>()[2] == (1LL << 40));
  }
  SECTION("uint64_data for u32") {
    std::vector<uint8_t> b = proto({2}, 12);
    bytesField(b, Uint64Data, packedVarints({4294967295LL, 1}));
    NamedTensor t = parseOk(b);
    REQUIRE(t.tensor.getDType() == DType::U32);
    REQUIRE(t.tensor.as<uint32_t>()[0] == 4294967295u);
    REQUIRE(t.tensor.as<uint32_t>()[1] == 1u);
  }
  SECTION("int32_data for i32, i8, u8, u16, bool and f16") {
    std::vector<uint8_t> b = proto({3}, 6);
    bytesField(b, Int32Data, packedVarints({-5, 0, 70000}));
    REQUIRE(parseOk(b).tensor.as<int32_t>()[2] == 70000);

    b = proto({2}, 3);
    bytesField(b, Int32Data, packedVarints({-128, 127}));
    NamedTensor i8 = parseOk(b);
    REQUIRE(i8.tensor.getDType() == DType::I8);
    REQUIRE(i8.tensor.as<int8_t>()[0] == -128);

    b = proto({2}, 2);
    bytesField(b, Int32Data, packedVarints({255, 3}));
    REQUIRE(parseOk(b).tensor.as<uint8_t>()[0] == 255);

    b = proto({3}, 9);
    bytesField(b, Int32Data, packedVarints({1, 0, 1}));
    NamedTensor flags = parseOk(b);
    REQUIRE(flags.tensor.getDType() == DType::I1);
    REQUIRE(flags.tensor.as<uint8_t>()[2] == 1);

    b = proto({2}, 4); // UINT16 in int32_data
    bytesField(b, Int32Data, packedVarints({65535, 7}));
    NamedTensor u16 = parseOk(b);
    REQUIRE(u16.tensor.getDType() == DType::U16);
    REQUIRE(u16.tensor.as<uint16_t>()[0] == 65535);

    b = proto({1}, 10);
    bytesField(b, Int32Data, packedVarints({0x3C00})); // 1.0 in fp16
    NamedTensor h = parseOk(b);
    REQUIRE(h.tensor.getDType() == DType::F16);
    REQUIRE(h.tensor.as<uint16_t>()[0] == 0x3C00);
  }
}

TEST_CASE("TensorProto errors", "[tensorio]") {
  SECTION("garbage") {
    std::vector<uint8_t> b = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
    REQUIRE(parseError(b).find("not a valid ONNX TensorProto") !=
            std::string::npos);
  }
  SECTION("truncated raw_data") {
    std::vector<uint8_t> b = proto({4}, 1);
    bytesField(b, RawData, le(std::vector<float>{1, 2, 3, 4}));
    b.resize(b.size() - 5); // cut inside the raw_data payload
    std::string e = parseError(b);
    REQUIRE(e.rfind("t.pb: ", 0) == 0);
  }
  SECTION("raw_data size mismatch") {
    std::vector<uint8_t> b = proto({4}, 1);
    bytesField(b, RawData, le(std::vector<float>{1, 2, 3}));
    REQUIRE(parseError(b) == "t.pb: raw_data has 12 bytes, f32[4] needs 16");
  }
  SECTION("typed field count mismatch") {
    std::vector<uint8_t> b = proto({2, 2}, 1);
    bytesField(b, FloatData, le(std::vector<float>{1, 2, 3}));
    REQUIRE(parseError(b) ==
            "t.pb: float_data holds 3 element(s), the dims need 4");
  }
  SECTION("unsupported type") {
    std::vector<uint8_t> b = proto({1}, 8); // STRING
    REQUIRE(parseError(b).find("unsupported TensorProto data_type 8 "
                               "(STRING)") != std::string::npos);
  }
  SECTION("negative dims") {
    std::vector<uint8_t> b = proto({-1, 2}, 1);
    REQUIRE(parseError(b).find("bad dims") != std::string::npos);
  }
  SECTION("external data") {
    std::vector<uint8_t> b = proto({1}, 1);
    key(b, DataLocation, 0);
    varint(b, 1);
    REQUIRE(parseError(b).find("external data") != std::string::npos);
  }
  SECTION("bool out of range") {
    std::vector<uint8_t> b = proto({2}, 9);
    bytesField(b, RawData, {1, 2});
    REQUIRE(parseError(b).find("not 0 or 1") != std::string::npos);
  }
}

TEST_CASE("TensorProto write/read round trip", "[tensorio]") {
  TempDir dir;
  std::vector<int32_t> v = {1, -2, 3, -4, 5, -6};
  Tensor t = make(DType::I32, {3, 2}, v.data());
  std::string path = dir.file("output_0.pb");
  REQUIRE(writeTensorProto(path, t, "y").ok());
  auto back = readTensorFile(path);
  INFO(back.message());
  REQUIRE(back.ok());
  REQUIRE(back->name == "y");
  REQUIRE(back->tensor.getDesc() == t.getDesc());
  REQUIRE(std::memcmp(back->tensor.data(), v.data(), 24) == 0);

  auto missing = readTensorProto(dir.file("nope.pb"));
  REQUIRE(!missing.ok());
  REQUIRE(missing.message().find("nope.pb: cannot open file") !=
          std::string::npos);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

TEST_CASE(".npy parsing", "[tensorio]") {
  std::vector<float> v = {1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> file = npy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", le(v));
  auto t = parseNpy(file.data(), file.size(), "a.npy");
  INFO(t.message());
  REQUIRE(t.ok());
  REQUIRE(t->getDesc() == TensorDesc(DType::F32, {2, 3}));
  REQUIRE(t->as<float>()[5] == 6.0f);

  struct Case {
    const char *descr;
    DType dtype;
  };
  for (Case c : {Case{"<f8", DType::F64}, Case{"<i8", DType::I64},
                 Case{"<i4", DType::I32}, Case{"|b1", DType::I1},
                 Case{"<f2", DType::F16}, Case{"|u1", DType::U8},
                 Case{"|i1", DType::I8}, Case{"<i2", DType::I16},
                 Case{"<u2", DType::U16}, Case{"<u4", DType::U32}}) {
    size_t es = runtime::getDTypeSize(c.dtype);
    std::vector<uint8_t> data(4 * es, 0);
    std::string header = std::string("{'descr': '") + c.descr +
                         "', 'fortran_order': False, 'shape': (4,), }\n";
    std::vector<uint8_t> file = npy(header, data, 2);
    auto r = parseNpy(file.data(), file.size(), "b.npy");
    INFO(c.descr << ": " << r.message());
    REQUIRE(r.ok());
    REQUIRE(r->getDesc() == TensorDesc(c.dtype, {4}));
  }

  std::vector<uint8_t> scalar =
      npy("{'descr': '<i8', 'fortran_order': False, 'shape': (), }\n",
          le(std::vector<int64_t>{9}));
  auto s = parseNpy(scalar.data(), scalar.size(), "s.npy");
  REQUIRE(s.ok());
  REQUIRE(s->getRank() == 0);
  REQUIRE(s->as<int64_t>()[0] == 9);
}

TEST_CASE(".npy errors", "[tensorio]") {
  auto err = [](const std::vector<uint8_t> &file) {
    auto r = parseNpy(file.data(), file.size(), "e.npy");
    REQUIRE(!r.ok());
    return r.message();
  };
  std::vector<uint8_t> data(16, 0);
  REQUIRE(err({'x', 'y'}) == "e.npy: not a .npy file (bad magic)");
  REQUIRE(
      err(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (4,), }", data))
          .find("Fortran-order") != std::string::npos);
  REQUIRE(err(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }",
                  data))
              .find("unsupported .npy dtype '>f4'") != std::string::npos);
  REQUIRE(err(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
                  data))
              .find("unsupported .npy dtype") != std::string::npos);
  REQUIRE(err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }",
                  data)) ==
          "e.npy: .npy data has 16 bytes, f32[5] needs 20 (truncated file)");
  REQUIRE(err(npy("{'descr': '<f4', 'shape': (4,), }", data))
              .find("lacks descr, fortran_order or shape") !=
          std::string::npos);
  REQUIRE(
      err(npy("{'descr': '<f4', 'fortran_order': False, 'shape': 4, }", data))
          .find("shape is not a tuple") != std::string::npos);
  std::vector<uint8_t> cut = npy("{'descr': '<f4'}", {});
  cut.resize(14); // header length says 16, only 4 header bytes present
  REQUIRE(err(cut) == "e.npy: truncated .npy header");
  std::vector<uint8_t> v9 = npy("{}", {}, 9);
  REQUIRE(err(v9).find("unsupported .npy version 9.0") != std::string::npos);
}

TEST_CASE(".npy write/read round trip", "[tensorio]") {
  TempDir dir;
  std::vector<double> d = {1.0, -2.5, 1e300};
  Tensor t = make(DType::F64, {3}, d.data());
  std::string path = dir.file("out.npy");
  REQUIRE(writeNpy(path, t).ok());
  auto raw = readFileBytes(path);
  REQUIRE(raw.ok());
  REQUIRE((raw->size() - 3 * 8) % 64 == 0); // data 64-byte aligned
  auto back = readTensorFile(path);
  INFO(back.message());
  REQUIRE(back.ok());
  REQUIRE(back->tensor.getDesc() == t.getDesc());
  REQUIRE(std::memcmp(back->tensor.data(), d.data(), 24) == 0);

  std::vector<uint8_t> flags = {1, 0, 1, 1};
  Tensor b = make(DType::I1, {2, 2}, flags.data());
  REQUIRE(writeNpy(path, b).ok());
  auto bb = readNpy(path);
  REQUIRE(bb.ok());
  REQUIRE(bb->getDesc() == b.getDesc());

  // bf16 has no NumPy dtype: written as exact f32.
  std::vector<uint16_t> bf = {0x3F80, 0xC000}; // 1.0, -2.0
  REQUIRE(writeNpy(path, make(DType::BF16, {2}, bf.data())).ok());
  auto f = readNpy(path);
  REQUIRE(f.ok());
  REQUIRE(f->getDType() == DType::F32);
  REQUIRE(f->as<float>()[1] == -2.0f);

  REQUIRE(!writeNpy(dir.file("no/such/dir/x.npy"), t).ok());
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

TEST_CASE("output comparison", "[tensorio]") {
  std::vector<float> ref = {1.0f, -2.0f, 0.0f, 100.0f};
  Tensor r = make(DType::F32, {4}, ref.data());
  Tolerance tol; // atol 1e-4, rtol 1e-3

  Comparison same = compareTensors(r, r, tol);
  REQUIRE(same.pass);
  REQUIRE(same.maxAbsError == 0);
  REQUIRE(same.cosine == Approx(1.0));

  std::vector<float> close = {1.0005f, -2.001f, 0.00005f, 100.09f};
  Comparison c = compareTensors(make(DType::F32, {4}, close.data()), r, tol);
  REQUIRE(c.pass);
  REQUIRE(c.maxAbsError == Approx(0.09).epsilon(1e-3));

  std::vector<float> off = {1.0f, -2.0f, 0.001f, 100.0f};
  Comparison o = compareTensors(make(DType::F32, {4}, off.data()), r, tol);
  REQUIRE(!o.pass);
  REQUIRE(o.mismatches == 1);
  REQUIRE(o.firstMismatch == 2);

  // f64 reference against f32 output is fine; shapes must match.
  std::vector<double> refD = {1.0, -2.0, 0.0, 100.0};
  REQUIRE(compareTensors(r, make(DType::F64, {4}, refD.data()), tol).pass);
  Comparison shape =
      compareTensors(r, make(DType::F64, {2, 2}, refD.data()), tol);
  REQUIRE(!shape.pass);
  REQUIRE(shape.error == "shape f32[4] vs reference f64[2x2]");

  // Integers compare exactly, whatever the tolerance.
  std::vector<int64_t> a = {1, 2, 3}, b = {1, 2, 4};
  Comparison ints = compareTensors(make(DType::I64, {3}, a.data()),
                                   make(DType::I64, {3}, b.data()), {1, 1});
  REQUIRE(ints.exact);
  REQUIRE(!ints.pass);
  REQUIRE(compareTensors(make(DType::I64, {3}, a.data()),
                         make(DType::I64, {3}, a.data()), tol)
              .pass);
  Comparison mixed = compareTensors(make(DType::I64, {3}, a.data()),
                                    make(DType::F32, {3}, ref.data()), tol);
  REQUIRE(!mixed.error.empty());

  // NaN matches only NaN; infinities only themselves.
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {nan, inf}, y = {nan, inf}, z = {0.0f, -inf};
  REQUIRE(compareTensors(make(DType::F32, {2}, x.data()),
                         make(DType::F32, {2}, y.data()), tol)
              .pass);
  REQUIRE(compareTensors(make(DType::F32, {2}, x.data()),
                         make(DType::F32, {2}, z.data()), tol)
              .mismatches == 2);
}
