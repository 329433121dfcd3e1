//===- CAPITest.cpp - The runtime's C interface (c_api.h) -----------------===//
//
// A host-only package built in the test (y = relu(x + w), z = x + w) is
// loaded from a file and from memory, described, and run through the C
// interface; the error paths report messages through nnaccel_last_error.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Package/Package.h"
#include "nnaccel/Runtime/c_api.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace pkg = nnaccel::package;

namespace {

pkg::Port port(std::string name) {
  pkg::Port p;
  p.name = std::move(name);
  p.type.dtype = pkg::DType::F32;
  p.type.shape = {2, 3};
  return p;
}

pkg::HostOpDesc hostOp(std::string kind, std::vector<int32_t> inputs,
                       std::vector<int32_t> outputs) {
  pkg::HostOpDesc op;
  op.kind = std::move(kind);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  return op;
}

std::vector<uint8_t> hostPackage(const std::vector<float> &w) {
  pkg::PackageBuilder b;
  pkg::ModelDesc &m = b.model();
  m.name = "c_api_add_relu";
  m.inputs = {port("x")};
  m.outputs = {port("y"), port("z")};
  auto weight = b.addWeight(w.data(), w.size() * sizeof(float));
  REQUIRE(weight.ok());
  pkg::VariantDesc v;
  v.name = "default";
  pkg::TensorType type = port("x").type;
  int32_t x = v.addValue({"x", type, -1});
  int32_t wv = v.addValue({"w", type, *weight});
  int32_t z = v.addValue({"z", type, -1});
  int32_t y = v.addValue({"y", type, -1});
  pkg::HostPartitionDesc host;
  host.ops.push_back(hostOp("accel.add", {x, wv}, {z}));
  host.ops.push_back(hostOp("accel.relu", {z}, {y}));
  v.inputs = {x};
  v.outputs = {y, z};
  v.partitions.push_back(host);
  m.variants.push_back(v);
  auto bytes = b.toBuffer();
  INFO(bytes.message());
  REQUIRE(bytes.ok());
  return *bytes;
}

} // namespace

TEST_CASE("C API: load, describe and run a package", "[capi]") {
  std::vector<float> w = {1, -2, 3, -4, 5, -6};
  std::vector<uint8_t> bytes = hostPackage(w);

  nnaccel_model *model = nullptr;
  SECTION("from memory") {
    REQUIRE(nnaccel_model_load_buffer(bytes.data(), bytes.size(), &model) ==
            NNACCEL_OK);
  }
  SECTION("from a file") {
    std::string path = "capi-test.nnpkg";
    std::FILE *file = std::fopen(path.c_str(), "wb");
    REQUIRE(file);
    REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size());
    std::fclose(file);
    INFO(nnaccel_last_error());
    REQUIRE(nnaccel_model_load(path.c_str(), &model) == NNACCEL_OK);
    std::remove(path.c_str());
  }
  REQUIRE(model);
  CHECK(std::string(nnaccel_model_name(model)) == "c_api_add_relu");
  REQUIRE(nnaccel_model_num_inputs(model) == 1);
  REQUIRE(nnaccel_model_num_outputs(model) == 2);
  nnaccel_tensor portDesc;
  REQUIRE(nnaccel_model_input(model, 0, &portDesc) == NNACCEL_OK);
  CHECK(std::string(portDesc.name) == "x");
  CHECK(portDesc.dtype == NNACCEL_F32);
  REQUIRE(portDesc.rank == 2);
  CHECK(portDesc.shape[0] == 2);
  CHECK(portDesc.shape[1] == 3);
  REQUIRE(nnaccel_model_output(model, 1, &portDesc) == NNACCEL_OK);
  CHECK(std::string(portDesc.name) == "z");
  CHECK(nnaccel_model_output(model, 2, &portDesc) == NNACCEL_ERROR);
  CHECK(std::string(nnaccel_last_error()).find("out of range") !=
        std::string::npos);

  nnaccel_session *session = nullptr;
  REQUIRE(nnaccel_session_create(model, &session) == NNACCEL_OK);
  // The session keeps the model alive.
  nnaccel_model_free(model);

  std::vector<float> x = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  int64_t shape[] = {2, 3};
  nnaccel_tensor input = {"x",   NNACCEL_F32, 2,
                          shape, x.data(),    x.size() * sizeof(float)};
  nnaccel_outputs *outputs = nullptr;
  INFO(nnaccel_last_error());
  REQUIRE(nnaccel_session_run(session, &input, 1, &outputs) == NNACCEL_OK);
  REQUIRE(nnaccel_outputs_count(outputs) == 2);
  nnaccel_tensor y, z;
  REQUIRE(nnaccel_outputs_get(outputs, 0, &y) == NNACCEL_OK);
  REQUIRE(nnaccel_outputs_get(outputs, 1, &z) == NNACCEL_OK);
  CHECK(std::string(y.name) == "y");
  CHECK(std::string(z.name) == "z");
  REQUIRE(y.byte_size == 6 * sizeof(float));
  const float *yv = static_cast<const float *>(y.data);
  const float *zv = static_cast<const float *>(z.data);
  for (int i = 0; i < 6; ++i) {
    CHECK(zv[i] == x[i] + w[i]);
    CHECK(yv[i] == std::max(0.0f, x[i] + w[i]));
  }
  nnaccel_outputs_free(outputs);

  // Errors come back as messages, not crashes.
  int64_t wrongShape[] = {3, 2};
  nnaccel_tensor wrong = {"x",        NNACCEL_F32, 2,
                          wrongShape, x.data(),    x.size() * sizeof(float)};
  CHECK(nnaccel_session_run(session, &wrong, 1, &outputs) == NNACCEL_ERROR);
  CHECK(outputs == nullptr);
  CHECK(std::string(nnaccel_last_error()).find("x") != std::string::npos);
  nnaccel_tensor shortBuffer = input;
  shortBuffer.byte_size = 4;
  CHECK(nnaccel_session_run(session, &shortBuffer, 1, &outputs) ==
        NNACCEL_ERROR);
  CHECK(std::string(nnaccel_last_error()).find("needs 24 bytes") !=
        std::string::npos);
  CHECK(nnaccel_session_run(session, nullptr, 0, &outputs) == NNACCEL_ERROR);
  nnaccel_session_free(session);

  nnaccel_model *missing = nullptr;
  CHECK(nnaccel_model_load("no-such-file.nnpkg", &missing) == NNACCEL_ERROR);
  CHECK(missing == nullptr);
  CHECK(std::string(nnaccel_last_error()).find("no-such-file.nnpkg") !=
        std::string::npos);
}
