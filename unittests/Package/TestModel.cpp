//===- TestModel.cpp - Shared fixtures for the package tests --------------===//
//
// The reference model is built the way the compiler is expected to build
// one: weights first (the same embedding table added once per variant, to
// exercise deduplication), then per variant its values, signature and
// partitions through the plain structs.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include "nnaccel/Package/Checksum.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <iterator>
#include <random>

#include <unistd.h>

namespace nnaccel::package::test {

std::vector<uint8_t> makeProgram(uint16_t card, uint16_t core, uint32_t words) {
  std::vector<uint8_t> code(32 + 32 * size_t(words), 0);
  code[0] = 'N';
  code[1] = 'N';
  code[2] = 'P';
  code[3] = 'U';
  code[4] = 1; // version 1.0
  code[8] = static_cast<uint8_t>(words);
  code[9] = static_cast<uint8_t>(words >> 8);
  code[10] = static_cast<uint8_t>(words >> 16);
  code[11] = static_cast<uint8_t>(words >> 24);
  code[12] = 32; // word size
  code[16] = static_cast<uint8_t>(card);
  code[17] = static_cast<uint8_t>(card >> 8);
  code[18] = static_cast<uint8_t>(core);
  code[19] = static_cast<uint8_t>(core >> 8);
  for (size_t i = 32; i < code.size(); ++i)
    code[i] = static_cast<uint8_t>(i * 7 + core);
  return code;
}

TempDir::TempDir() {
  static std::atomic<unsigned> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("nnaccel-package-test-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

void refreshChecksums(std::vector<uint8_t> &file) {
  Expected<FileHeader> h = FileHeader::decode(file.data());
  REQUIRE(h.ok());
  h->manifestCrc = crc32(file.data() + h->manifestOffset, h->manifestSize);
  h->weightsCrc = crc32(file.data() + h->weightsOffset, h->weightsSize);
  h->encode(file.data());
}

namespace {

TensorType tensor(DType dtype, std::vector<int64_t> shape) {
  TensorType t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

TensorType quantised(std::vector<int64_t> shape, std::vector<double> scales,
                     std::vector<int64_t> zeroPoints, int32_t axis) {
  TensorType t = tensor(DType::F32, std::move(shape));
  QuantParams q;
  q.scales = std::move(scales);
  q.zeroPoints = std::move(zeroPoints);
  q.axis = axis;
  q.storage = DType::I8;
  q.storageMin = -127;
  q.storageMax = 127;
  t.quant = q;
  return t;
}

} // namespace

size_t buildTestModel(PackageBuilder &builder) {
  ModelDesc &m = builder.model();
  m.name = "tiny-classifier";
  m.producer = "nnaccel-package-tests";
  m.producerVersion = "0.1.0";
  m.target = R"({"name": "default", "cards": 1, "cores_per_card": 2})";
  m.ir = "module {\n  func.func @main() { return }\n}\n";
  m.bucketNames = {"seq"};

  Port tokens;
  tokens.name = "tokens";
  tokens.type = tensor(DType::I32, {1, -1});
  tokens.bucketIndex = {-1, 0};
  m.inputs.push_back(tokens);
  Port logits;
  logits.name = "logits";
  logits.type = quantised({1, -1, 16}, {0.05}, {3}, -1);
  logits.bucketIndex = {-1, 0, -1};
  m.outputs.push_back(logits);

  // Weights: an embedding table [100, 16] f32 (shared by both variants) and
  // an int8 matrix [16, 16] quantised per output channel.
  std::vector<float> table(100 * 16);
  for (size_t i = 0; i < table.size(); ++i)
    table[i] = static_cast<float>(i) * 0.25f;
  std::vector<int8_t> matrix(16 * 16);
  for (size_t i = 0; i < matrix.size(); ++i)
    matrix[i] = static_cast<int8_t>(int(i % 255) - 127);
  std::vector<double> channelScales(16);
  for (size_t i = 0; i < channelScales.size(); ++i)
    channelScales[i] = 0.01 * double(i + 1);

  for (int64_t seq : {64, 128}) {
    // Added once per variant on purpose: deduplication must store it once.
    Expected<int32_t> tableIdx =
        builder.addWeight(table.data(), table.size() * sizeof(float));
    Expected<int32_t> matrixIdx =
        builder.addWeight(matrix.data(), matrix.size());
    REQUIRE(tableIdx.ok());
    REQUIRE(matrixIdx.ok());

    VariantDesc v;
    v.name = "seq" + std::to_string(seq);
    v.bucket = {seq};
    int32_t in = v.addValue({"tokens", tensor(DType::I32, {1, seq}), -1});
    int32_t emb =
        v.addValue({"embedding", tensor(DType::F32, {100, 16}), *tableIdx});
    int32_t w = v.addValue(
        {"w", quantised({16, 16}, channelScales, {}, 0), *matrixIdx});
    int32_t x = v.addValue({"x", tensor(DType::F32, {1, seq, 16}), -1});
    int32_t y = v.addValue({"y", tensor(DType::F32, {1, seq, 16}), -1});
    int32_t out =
        v.addValue({"logits", quantised({1, seq, 16}, {0.05}, {3}, -1), -1});
    v.inputs = {in};
    v.outputs = {out};

    HostPartitionDesc pre;
    pre.reason = "gather is not supported on the card";
    HostOpDesc gather;
    gather.kind = "accel.gather";
    gather.attrs = {{"axis", int64_t(0)},
                    {"mode", std::string("clip")},
                    {"scale", 1.5},
                    {"perm", std::vector<int64_t>{0, 2, 1}},
                    {"coeffs", std::vector<double>{0.5, -0.25}}};
    gather.inputs = {emb, in, -1};
    gather.outputs = {x};
    gather.location = "model.onnx:12:3";
    pre.ops.push_back(gather);
    v.partitions.push_back(pre);

    CardPartitionDesc card;
    card.card = 0;
    card.programs.push_back({0, makeProgram(0, 0, 4)});
    card.programs.push_back({1, makeProgram(0, 1, 3)});
    card.bindings.push_back({x, 0x1000, BindingRole::Input});
    card.bindings.push_back({w, 0x100000, BindingRole::Input});
    card.bindings.push_back({y, 0x200000, BindingRole::Output});
    card.modeledCycles = 1234 * uint64_t(seq);
    // The DRAM the launch writes (its input and output lie inside).
    card.workBegin = 0x1000;
    card.workEnd = 0x300000;
    v.partitions.push_back(card);

    HostPartitionDesc post;
    post.reason = "requantize on the host";
    HostOpDesc quant;
    quant.kind = "accel.quantize";
    quant.inputs = {y};
    quant.outputs = {out};
    post.ops.push_back(quant);
    v.partitions.push_back(post);

    m.variants.push_back(std::move(v));
  }
  return 2;
}

} // namespace nnaccel::package::test
