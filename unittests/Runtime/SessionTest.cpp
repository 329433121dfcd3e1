//===- SessionTest.cpp - Model, Session and RequestQueue tests ------------===//
//
// Every package here is built in the test with PackageBuilder: host-only
// graphs, card partitions whose ISA programs are written in assembly and
// encoded with lib/ISA, mixed host -> card -> host graphs, bucketed
// variants, and broken packages for the error paths. Results are checked
// against values computed in the test.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/Session.h"
#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/Package/Package.h"
#include "nnaccel/Runtime/RequestQueue.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

using namespace nnaccel;
using namespace nnaccel::runtime;
namespace pkg = nnaccel::package;

namespace {

std::string defaultTargetJson() {
  std::ifstream in(std::string(NNACCEL_TARGETS_DIR) + "/default.json");
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

pkg::TensorType f32Type(std::vector<int64_t> shape) {
  pkg::TensorType t;
  t.dtype = pkg::DType::F32;
  t.shape = std::move(shape);
  return t;
}

pkg::Port port(std::string name, std::vector<int64_t> shape,
               std::vector<int32_t> buckets = {}) {
  pkg::Port p;
  p.name = std::move(name);
  p.type = f32Type(std::move(shape));
  p.bucketIndex = std::move(buckets);
  return p;
}

pkg::HostOpDesc hostOp(std::string kind, std::vector<int32_t> inputs,
                       std::vector<int32_t> outputs,
                       std::string location = "") {
  pkg::HostOpDesc op;
  op.kind = std::move(kind);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.location = std::move(location);
  return op;
}

std::vector<uint8_t> assemble(const std::string &text) {
  isa::Expected<isa::Program> p = isa::parseAsm(text);
  INFO(p.message());
  REQUIRE(p.ok());
  isa::Expected<std::vector<uint8_t>> bytes = isa::encodeProgram(*p);
  INFO(bytes.message());
  REQUIRE(bytes.ok());
  return *bytes;
}

/// relu of 64 f32 at dram[in] into dram[out].
std::string reluAsm(uint64_t in, uint64_t out) {
  std::ostringstream s;
  s << ".core card=0, core=0\n"
    << "dma.ld vrf[0x0], dram[" << in << "], f32, x=64, y=1, z=1 @push_next\n"
    << "v.relu vrf[0x100], vrf[0x0], f32, f32, rows=1, cols=64, dpitch=256, "
       "apitch=256 @pop_prev @push_next\n"
    << "dma.st dram[" << out << "], vrf[0x100], f32, x=64, y=1, z=1 @pop_prev\n"
    << "halt\n";
  return s.str();
}

/// dram[a] + dram[b] (64 f32 each) into dram[out].
std::string addAsm(uint64_t a, uint64_t b, uint64_t out) {
  std::ostringstream s;
  s << ".core card=0, core=0\n"
    << "dma.ld vrf[0x0], dram[" << a << "], f32, x=64, y=1, z=1\n"
    << "dma.ld vrf[0x100], dram[" << b << "], f32, x=64, y=1, z=1 @push_next\n"
    << "v.add vrf[0x200], vrf[0x0], vrf[0x100], f32, f32, f32, rows=1, "
       "cols=64, dpitch=256, apitch=256, bpitch=256 @pop_prev @push_next\n"
    << "dma.st dram[" << out << "], vrf[0x200], f32, x=64, y=1, z=1 @pop_prev\n"
    << "halt\n";
  return s.str();
}

pkg::CardPartitionDesc cardPartition(std::vector<uint8_t> code,
                                     std::vector<pkg::DramBindingDesc> b) {
  pkg::CardPartitionDesc card;
  card.card = 0;
  card.programs.push_back({0, std::move(code)});
  card.bindings = std::move(b);
  return card;
}

pkg::DramBindingDesc in(int32_t value, uint64_t address) {
  return {value, address, pkg::BindingRole::Input};
}
pkg::DramBindingDesc out(int32_t value, uint64_t address) {
  return {value, address, pkg::BindingRole::Output};
}

std::shared_ptr<const Model> loadModel(const pkg::PackageBuilder &b) {
  auto bytes = b.toBuffer();
  INFO(bytes.message());
  REQUIRE(bytes.ok());
  auto model = Model::fromBuffer(bytes->data(), bytes->size());
  INFO(model.message());
  REQUIRE(model.ok());
  return *model;
}

std::string loadError(const pkg::PackageBuilder &b) {
  auto bytes = b.toBuffer();
  INFO(bytes.message());
  REQUIRE(bytes.ok());
  auto model = Model::fromBuffer(bytes->data(), bytes->size());
  REQUIRE(!model.ok());
  return model.message();
}

/// A session that checks its card partitions for data races, as every
/// session of these tests does: the hand-written programs must be properly
/// synchronised.
std::unique_ptr<Session> makeSession(std::shared_ptr<const Model> model,
                                     SessionOptions options = {}) {
  options.checkRaces = true;
  auto s = Session::create(std::move(model), options);
  INFO(s.message());
  REQUIRE(s.ok());
  return std::move(s.value());
}

/// No Catch assertions here: the concurrency tests call it from worker
/// threads, and Catch2 is not thread-safe. A size mismatch gives a null
/// tensor, which the session then rejects.
Tensor f32Tensor(std::vector<int64_t> shape, const std::vector<float> &v) {
  Tensor t = Tensor::allocate(TensorDesc(DType::F32, std::move(shape)));
  if (t.isNull() || static_cast<size_t>(t.getNumElements()) != v.size())
    return Tensor();
  std::memcpy(t.mutableData(), v.data(), v.size() * sizeof(float));
  return t;
}

std::vector<float> values(const Tensor &t) {
  REQUIRE(t.getDType() == DType::F32);
  return std::vector<float>(t.as<float>(), t.as<float>() + t.getNumElements());
}

std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + step * static_cast<float>(i);
  return v;
}

float relu(float x) { return x > 0 ? x : 0.0f; }

std::vector<Tensor> runOk(Session &s, const std::map<std::string, Tensor> &in) {
  auto r = s.run(in);
  INFO(r.message());
  REQUIRE(r.ok());
  return std::move(r.value());
}

std::string runError(Session &s, const std::map<std::string, Tensor> &in) {
  auto r = s.run(in);
  REQUIRE(!r.ok());
  return r.message();
}

//===----------------------------------------------------------------------===//
// Package fixtures
//===----------------------------------------------------------------------===//

/// y = relu(x + w), z = x + w; x, w f32[2x3], w a weight. Host only.
void buildHostModel(pkg::PackageBuilder &b, const std::vector<float> &w) {
  pkg::ModelDesc &m = b.model();
  m.name = "host_add_relu";
  m.inputs = {port("x", {2, 3})};
  m.outputs = {port("y", {2, 3}), port("z", {2, 3})};
  auto weight = b.addWeight(w.data(), w.size() * sizeof(float));
  REQUIRE(weight.ok());
  pkg::VariantDesc v;
  v.name = "default";
  int32_t x = v.addValue({"x", f32Type({2, 3}), -1});
  int32_t wv = v.addValue({"w", f32Type({2, 3}), *weight});
  int32_t z = v.addValue({"z", f32Type({2, 3}), -1});
  int32_t y = v.addValue({"y", f32Type({2, 3}), -1});
  pkg::HostPartitionDesc host;
  host.ops.push_back(hostOp("accel.add", {x, wv}, {z}, "test.onnx:1"));
  host.ops.push_back(hostOp("accel.relu", {z}, {y}, "test.onnx:2"));
  v.inputs = {x};
  v.outputs = {y, z};
  v.partitions.push_back(host);
  m.variants.push_back(v);
}

/// Host: t = x + w (weight); card: u = relu(t); host: y = neg(u).
void buildMixedModel(pkg::PackageBuilder &b, const std::vector<float> &w) {
  pkg::ModelDesc &m = b.model();
  m.name = "mixed";
  m.target = defaultTargetJson();
  m.inputs = {port("x", {1, 64})};
  m.outputs = {port("y", {1, 64})};
  auto weight = b.addWeight(w.data(), w.size() * sizeof(float));
  REQUIRE(weight.ok());
  pkg::VariantDesc v;
  v.name = "default";
  int32_t x = v.addValue({"x", f32Type({1, 64}), -1});
  int32_t wv = v.addValue({"w", f32Type({1, 64}), *weight});
  int32_t t = v.addValue({"t", f32Type({1, 64}), -1});
  int32_t u = v.addValue({"u", f32Type({1, 64}), -1});
  int32_t y = v.addValue({"y", f32Type({1, 64}), -1});
  pkg::HostPartitionDesc pre, post;
  pre.ops.push_back(hostOp("accel.add", {x, wv}, {t}));
  post.ops.push_back(hostOp("accel.neg", {u}, {y}));
  v.inputs = {x};
  v.outputs = {y};
  v.partitions.push_back(pre);
  v.partitions.push_back(cardPartition(assemble(reluAsm(0x0, 0x1000)),
                                       {in(t, 0x0), out(u, 0x1000)}));
  v.partitions.push_back(post);
  m.variants.push_back(v);
}

} // namespace

//===----------------------------------------------------------------------===//
// Host partitions
//===----------------------------------------------------------------------===//

TEST_CASE("host-only package runs its ops in order", "[session]") {
  pkg::PackageBuilder b;
  std::vector<float> w = {1, -2, 3, -4, 5, -6};
  buildHostModel(b, w);
  auto model = loadModel(b);
  REQUIRE(model->getTarget() == nullptr);
  REQUIRE(!model->hasCardPartitions());
  REQUIRE(model->getInputs().size() == 1);
  REQUIRE(model->getInputs()[0].toString() == "x: f32[2x3]");
  REQUIRE(model->findOutput("z") == 1);

  auto session = makeSession(model);
  std::vector<float> x = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  auto outs = runOk(*session, {{"x", f32Tensor({2, 3}, x)}});
  REQUIRE(outs.size() == 2);
  std::vector<float> y = values(outs[0]), z = values(outs[1]);
  for (size_t i = 0; i < 6; ++i) {
    REQUIRE(z[i] == x[i] + w[i]);
    REQUIRE(y[i] == relu(x[i] + w[i]));
  }
  REQUIRE(outs[0].getShape() == std::vector<int64_t>{2, 3});

  RunStats stats = session->getLastStats();
  REQUIRE(stats.variant == "default");
  REQUIRE(stats.deviceCycles == 0);
  REQUIRE(stats.partitions.size() == 1);
  REQUIRE(!stats.partitions[0].onCard);
  REQUIRE(stats.partitions[0].hostOps == 2);
  REQUIRE(stats.summary().find("partition 0: host, 2 op(s)") !=
          std::string::npos);
  std::string trace = session->getTraceJson();
  REQUIRE(trace.find("\"accel.relu\"") != std::string::npos);
  REQUIRE(trace.find("test.onnx:2") != std::string::npos);

  // Positional overload and a second run give the same answer.
  auto again = session->run(std::vector<Tensor>{f32Tensor({2, 3}, x)});
  REQUIRE(again.ok());
  REQUIRE(values((*again)[0]) == y);
}

TEST_CASE("bucketed variants pad inputs and slice outputs", "[session]") {
  pkg::PackageBuilder b;
  pkg::ModelDesc &m = b.model();
  m.name = "bucketed";
  m.bucketNames = {"n"};
  m.inputs = {port("x", {-1, 4}, {0, -1})};
  m.outputs = {port("y", {-1, 4}, {0, -1})};
  for (int64_t n : {4, 8}) {
    pkg::VariantDesc v;
    v.name = "n" + std::to_string(n);
    v.bucket = {n};
    int32_t x = v.addValue({"x", f32Type({n, 4}), -1});
    int32_t y = v.addValue({"y", f32Type({n, 4}), -1});
    pkg::HostPartitionDesc host;
    host.ops.push_back(hostOp("accel.relu", {x}, {y}));
    v.inputs = {x};
    v.outputs = {y};
    v.partitions.push_back(host);
    m.variants.push_back(v);
  }
  auto session = makeSession(loadModel(b));
  REQUIRE(session->getModel().getInputs()[0].toString() == "x: f32[?x4]");
  for (int64_t rows : {1, 3, 4, 6, 8}) {
    std::vector<float> x = ramp(static_cast<size_t>(rows * 4), -5.0f, 0.75f);
    auto outs = runOk(*session, {{"x", f32Tensor({rows, 4}, x)}});
    REQUIRE(outs[0].getShape() == std::vector<int64_t>{rows, 4});
    std::vector<float> y = values(outs[0]);
    for (size_t i = 0; i < x.size(); ++i)
      REQUIRE(y[i] == relu(x[i]));
    REQUIRE(session->getLastStats().variant == (rows <= 4 ? "n4" : "n8"));
  }
  std::string e =
      runError(*session, {{"x", f32Tensor({9, 4}, ramp(36, 0, 1))}});
  REQUIRE(e == "input 'x': dimension 0 is 9, longer than the largest bucket "
               "of 'n' (8)");
}

TEST_CASE("length inputs get the true size, padding the pad value",
          "[session]") {
  // y = x + length and s = sum(x) over the padded x: the session fills the
  // length input, which is not one of the user's inputs, and pads with the
  // package's pad value, which the sum sees.
  pkg::PackageBuilder b;
  pkg::ModelDesc &m = b.model();
  m.name = "length";
  m.bucketNames = {"n"};
  m.padValue = -3.0;
  m.exactPadding = true;
  pkg::Port length = port("x.length", {1}, {-1});
  length.lengthOf = 0;
  m.inputs = {port("x", {-1}, {0}), length};
  m.outputs = {port("y", {-1}, {0}), port("s", {1}, {-1})};
  for (int64_t n : {4, 8}) {
    pkg::VariantDesc v;
    v.name = "n" + std::to_string(n);
    v.bucket = {n};
    int32_t x = v.addValue({"x", f32Type({n}), -1});
    int32_t len = v.addValue({"len", f32Type({1}), -1});
    int32_t y = v.addValue({"y", f32Type({n}), -1});
    int32_t sum = v.addValue({"s", f32Type({1}), -1});
    pkg::HostPartitionDesc host;
    host.ops.push_back(hostOp("accel.add", {x, len}, {y}));
    pkg::HostOpDesc reduce = hostOp("accel.reduce_sum", {x}, {sum});
    reduce.attrs.push_back({"axes", std::vector<int64_t>{0}});
    reduce.attrs.push_back({"keepdims", int64_t(1)});
    host.ops.push_back(reduce);
    v.inputs = {x, len};
    v.outputs = {y, sum};
    v.partitions.push_back(host);
    m.variants.push_back(v);
  }
  auto session = makeSession(loadModel(b));
  REQUIRE(session->getModel().getInputs().size() == 1);
  for (int64_t rows : {2, 4, 5}) {
    std::vector<float> x = ramp(static_cast<size_t>(rows), 1.0f, 1.0f);
    auto outs = runOk(*session, {{"x", f32Tensor({rows}, x)}});
    std::vector<float> y = values(outs[0]);
    REQUIRE(y.size() == static_cast<size_t>(rows));
    for (size_t i = 0; i < x.size(); ++i)
      REQUIRE(y[i] == x[i] + static_cast<float>(rows));
    // 1 + ... + rows, plus -3 per padded position.
    int64_t bucket = rows <= 4 ? 4 : 8;
    REQUIRE(values(outs[1])[0] ==
            static_cast<float>(rows * (rows + 1) / 2 - 3 * (bucket - rows)));
  }
}

//===----------------------------------------------------------------------===//
// Card partitions
//===----------------------------------------------------------------------===//

TEST_CASE("card partition: inputs to DRAM, program, outputs back",
          "[session][card]") {
  pkg::PackageBuilder b;
  pkg::ModelDesc &m = b.model();
  m.name = "card_relu";
  m.target = defaultTargetJson();
  m.inputs = {port("x", {1, 64})};
  m.outputs = {port("y", {1, 64})};
  pkg::VariantDesc v;
  v.name = "default";
  int32_t x = v.addValue({"x", f32Type({1, 64}), -1});
  int32_t y = v.addValue({"y", f32Type({1, 64}), -1});
  v.inputs = {x};
  v.outputs = {y};
  v.partitions.push_back(cardPartition(assemble(reluAsm(0x40, 0x2000)),
                                       {in(x, 0x40), out(y, 0x2000)}));
  m.variants.push_back(v);
  auto model = loadModel(b);
  REQUIRE(model->hasCardPartitions());
  REQUIRE(model->getTarget() != nullptr);
  REQUIRE(model->getTarget()->name == "default");

  auto session = makeSession(model, {/*trace=*/true, /*emulatorThreads=*/1});
  for (float start : {-10.0f, -3.0f}) {
    std::vector<float> xs = ramp(64, start, 0.25f);
    auto outs = runOk(*session, {{"x", f32Tensor({1, 64}, xs)}});
    std::vector<float> ys = values(outs[0]);
    for (size_t i = 0; i < 64; ++i)
      REQUIRE(ys[i] == relu(xs[i]));
    RunStats s = session->getLastStats();
    REQUIRE(s.deviceCycles > 0);
    REQUIRE(s.deviceMicros ==
            Approx(static_cast<double>(s.deviceCycles) / 1000.0));
    REQUIRE(s.target == "default");
    REQUIRE(s.bytesToCard == 256);
    REQUIRE(s.bytesFromCard == 256);
    REQUIRE(s.partitions.size() == 1);
    REQUIRE(s.partitions[0].onCard);
    REQUIRE(s.partitions[0].cycles == s.deviceCycles);
    REQUIRE(s.partitions[0].emulatorSummary.find("cycles") !=
            std::string::npos);
  }
  std::string trace = session->getTraceJson();
  REQUIRE(trace.find("\"v.relu\"") != std::string::npos);
  REQUIRE(trace.find("partition 0: card 0") != std::string::npos);
}

TEST_CASE("weights are uploaded once per session", "[session][card]") {
  pkg::PackageBuilder b;
  pkg::ModelDesc &m = b.model();
  m.name = "card_add_weight";
  m.target = defaultTargetJson();
  m.inputs = {port("x", {1, 64})};
  m.outputs = {port("y", {1, 64})};
  std::vector<float> w = ramp(64, 100.0f, 1.0f);
  auto weight = b.addWeight(w.data(), w.size() * sizeof(float));
  REQUIRE(weight.ok());
  pkg::VariantDesc v;
  v.name = "default";
  int32_t x = v.addValue({"x", f32Type({1, 64}), -1});
  int32_t wv = v.addValue({"w", f32Type({1, 64}), *weight});
  int32_t y = v.addValue({"y", f32Type({1, 64}), -1});
  v.inputs = {x};
  v.outputs = {y};
  v.partitions.push_back(
      cardPartition(assemble(addAsm(0x0, 0x1000, 0x2000)),
                    {in(x, 0x0), in(wv, 0x1000), out(y, 0x2000)}));
  m.variants.push_back(v);
  auto session = makeSession(loadModel(b));
  for (int run = 0; run < 3; ++run) {
    std::vector<float> xs = ramp(64, static_cast<float>(run), 0.5f);
    auto outs = runOk(*session, {{"x", f32Tensor({1, 64}, xs)}});
    std::vector<float> ys = values(outs[0]);
    for (size_t i = 0; i < 64; ++i)
      REQUIRE(ys[i] == xs[i] + w[i]);
    RunStats s = session->getLastStats();
    REQUIRE(s.weightBytesToCard == (run == 0 ? 256u : 0u));
    REQUIRE(s.bytesToCard == (run == 0 ? 512u : 256u));
  }
  // A second session has its own card and uploads again.
  auto other = makeSession(session->getModelPtr());
  runOk(*other, {{"x", f32Tensor({1, 64}, ramp(64, 0, 1))}});
  REQUIRE(other->getLastStats().weightBytesToCard == 256);
}

/// y = w + relu(x) as two card partitions on card 0: relu(x) -> u, then
/// w + u -> y. `workBase` places both launches' values from there; with
/// `withWorkRanges` the package records [workBase, workBase + 0x3000) as
/// their work range. The weight stays at 0x0.
static std::vector<float> buildTwoLaunchModel(pkg::PackageBuilder &b,
                                              uint64_t workBase,
                                              bool withWorkRanges) {
  pkg::ModelDesc &m = b.model();
  m.name = "two_launches";
  m.target = defaultTargetJson();
  m.inputs = {port("x", {1, 64})};
  m.outputs = {port("y", {1, 64})};
  std::vector<float> w = ramp(64, -1.0f, 0.125f);
  auto weight = b.addWeight(w.data(), w.size() * sizeof(float));
  REQUIRE(weight.ok());
  pkg::VariantDesc v;
  v.name = "default";
  int32_t x = v.addValue({"x", f32Type({1, 64}), -1});
  int32_t wv = v.addValue({"w", f32Type({1, 64}), *weight});
  int32_t u = v.addValue({"u", f32Type({1, 64}), -1});
  int32_t y = v.addValue({"y", f32Type({1, 64}), -1});
  v.inputs = {x};
  v.outputs = {y};
  uint64_t xAt = workBase, uAt = workBase + 0x1000, yAt = workBase + 0x2000;
  pkg::CardPartitionDesc first =
      cardPartition(assemble(reluAsm(xAt, uAt)), {in(x, xAt), out(u, uAt)});
  pkg::CardPartitionDesc second = cardPartition(
      assemble(addAsm(0x0, uAt, yAt)), {in(wv, 0x0), in(u, uAt), out(y, yAt)});
  if (withWorkRanges) {
    first.workBegin = second.workBegin = workBase;
    first.workEnd = second.workEnd = workBase + 0x3000;
  }
  v.partitions.push_back(first);
  v.partitions.push_back(second);
  m.variants.push_back(v);
  return w;
}

/// Runs the two-launch model three times; `weightBytes(run)` is what each
/// run must upload.
template <typename WeightBytes>
static void runTwoLaunchModel(pkg::PackageBuilder &b,
                              const std::vector<float> &w,
                              WeightBytes weightBytes) {
  auto session = makeSession(loadModel(b));
  for (int run = 0; run < 3; ++run) {
    std::vector<float> xs = ramp(64, -4.0f + static_cast<float>(run), 0.2f);
    auto outs = runOk(*session, {{"x", f32Tensor({1, 64}, xs)}});
    std::vector<float> ys = values(outs[0]);
    for (size_t i = 0; i < 64; ++i)
      REQUIRE(ys[i] == w[i] + relu(xs[i]));
    RunStats s = session->getLastStats();
    REQUIRE(s.partitions.size() == 2);
    REQUIRE(s.deviceCycles == s.partitions[0].cycles + s.partitions[1].cycles);
    REQUIRE(s.weightBytesToCard == weightBytes(run));
  }
}

TEST_CASE("two card partitions on one card with overlapping DRAM plans",
          "[session][card]") {
  // Partition 1 writes its input where partition 2 keeps its weight, so the
  // weight must be re-uploaded every run and programs reloaded per launch.
  pkg::PackageBuilder b;
  std::vector<float> w = buildTwoLaunchModel(b, 0x0, /*withWorkRanges=*/false);
  runTwoLaunchModel(b, w, [](int) { return 256u; });
}

TEST_CASE("partitions taking turns keep weights outside their work ranges",
          "[session][card]") {
  // As the compiler plans a card's partitions: the weight below the work
  // memory both launches write, which the package records. Only the first
  // run uploads it.
  pkg::PackageBuilder b;
  std::vector<float> w = buildTwoLaunchModel(b, 0x1000, true);
  runTwoLaunchModel(b, w, [](int run) { return run == 0 ? 256u : 0u; });
}

TEST_CASE("without work ranges, weights below the launches are re-uploaded",
          "[session][card]") {
  // Same layout, but the package does not say what the launches write, so
  // the runtime must assume anything but a partition's own weights.
  pkg::PackageBuilder b;
  std::vector<float> w = buildTwoLaunchModel(b, 0x1000, false);
  runTwoLaunchModel(b, w, [](int) { return 256u; });
}

//===----------------------------------------------------------------------===//
// Pinned weights (setup programs)
//===----------------------------------------------------------------------===//

/// Setup of the pinned FC: W (16 rows of 16 f32) from dram[0x0] into
/// mrf[0x0], where the body's `mm` expects it.
static std::string pinSetupAsm() {
  return ".core card=0, core=0\n"
         "dma.ld mrf[0x0], dram[0x0], f32, x=16, y=16, z=1, sy=64, dpitch=64\n"
         "halt\n";
}

/// Body of the pinned FC: y[1x16] = x[1x16] . W^T with W already in
/// mrf[0x0] -- the program never loads it.
static std::string pinBodyAsm() {
  return ".core card=0, core=0\n"
         "dma.ld vrf[0x0], dram[0x1000], f32, x=16, y=1, z=1 @push_next\n"
         "mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, m=1, k=16, n=16, "
         "dpitch=64, apitch=64 @pop_prev @push_next\n"
         "dma.st dram[0x2000], acc[0x0], f32, x=16, y=1, z=1 @pop_prev\n"
         "halt\n";
}

/// y = x . W^T on card 0 with W pinned in core 0's MRF by a setup program
/// (`withSetup`; without it nothing loads W). With `clobber`, a second
/// partition on the same card, z = relu(c), first loads c into mrf[0x0],
/// overwriting the pinned tile. Returns W (row j = weights of output j).
static std::vector<float> buildPinnedModel(pkg::PackageBuilder &b,
                                           bool withSetup, bool clobber) {
  pkg::ModelDesc &m = b.model();
  m.name = "pinned_fc";
  m.target = defaultTargetJson();
  m.inputs = {port("x", {1, 16})};
  m.outputs = {port("y", {1, 16})};
  if (clobber) {
    m.inputs.push_back(port("c", {1, 64}));
    m.outputs.push_back(port("z", {1, 64}));
  }
  // Small integers: every product and sum is exact in f32.
  std::vector<float> w(16 * 16);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5);
  auto weight = b.addWeight(w.data(), w.size() * sizeof(float));
  REQUIRE(weight.ok());
  pkg::VariantDesc v;
  v.name = "default";
  int32_t x = v.addValue({"x", f32Type({1, 16}), -1});
  int32_t wv = v.addValue({"w", f32Type({16, 16}), *weight});
  int32_t y = v.addValue({"y", f32Type({1, 16}), -1});
  v.inputs = {x};
  v.outputs = {y};
  pkg::CardPartitionDesc fc = cardPartition(
      assemble(pinBodyAsm()), {in(x, 0x1000), in(wv, 0x0), out(y, 0x2000)});
  if (withSetup)
    fc.setupPrograms.push_back({0, assemble(pinSetupAsm())});
  // The weight lies below the work memory, so it stays resident.
  fc.workBegin = 0x1000;
  fc.workEnd = 0x10000;
  v.partitions.push_back(fc);
  if (clobber) {
    int32_t c = v.addValue({"c", f32Type({1, 64}), -1});
    int32_t z = v.addValue({"z", f32Type({1, 64}), -1});
    v.inputs.push_back(c);
    v.outputs.push_back(z);
    pkg::CardPartitionDesc other = cardPartition(
        assemble(".core card=0, core=0\n"
                 "dma.ld mrf[0x0], dram[0x4000], f32, x=64, y=1, z=1\n" +
                 reluAsm(0x4000, 0x5000)
                     .substr(std::string(".core card=0, core=0\n").size())),
        {in(c, 0x4000), out(z, 0x5000)});
    other.workBegin = 0x1000;
    other.workEnd = 0x10000;
    v.partitions.push_back(other);
  }
  m.variants.push_back(v);
  return w;
}

static std::vector<float> pinnedExpected(const std::vector<float> &w,
                                         const std::vector<float> &x) {
  std::vector<float> y(16, 0.0f);
  for (size_t j = 0; j < 16; ++j)
    for (size_t i = 0; i < 16; ++i)
      y[j] += x[i] * w[j * 16 + i];
  return y;
}

TEST_CASE("setup programs pin weights once per session", "[session][card]") {
  pkg::PackageBuilder b;
  std::vector<float> w = buildPinnedModel(b, /*withSetup=*/true, false);
  auto session = makeSession(loadModel(b), {/*trace=*/true, 1});
  for (int run = 0; run < 3; ++run) {
    std::vector<float> xs = ramp(16, static_cast<float>(run) - 3.0f, 1.0f);
    auto outs = runOk(*session, {{"x", f32Tensor({1, 16}, xs)}});
    REQUIRE(values(outs[0]) == pinnedExpected(w, xs));
    RunStats s = session->getLastStats();
    REQUIRE(s.partitions.size() == 1);
    const PartitionStats &p = s.partitions[0];
    REQUIRE(p.hasSetup);
    // The setup runs before the first launch only; its cycles are not part
    // of the launch's.
    if (run == 0)
      REQUIRE(p.setupCycles > 0);
    else
      REQUIRE(p.setupCycles == 0);
    REQUIRE(s.setupCycles == p.setupCycles);
    REQUIRE(s.setupMicros ==
            Approx(static_cast<double>(s.setupCycles) / 1000.0));
    REQUIRE(s.deviceCycles == p.cycles);
    REQUIRE(s.weightBytesToCard == (run == 0 ? 1024u : 0u));
    std::string summary = s.summary();
    INFO(summary);
    REQUIRE(summary.find("bytes out, setup " + std::to_string(p.setupCycles) +
                         " cycles\n") != std::string::npos);
    REQUIRE(summary.find("  setup of pinned weights " +
                         std::to_string(s.setupCycles) + " cycles") !=
            std::string::npos);
    std::string trace = session->getTraceJson();
    std::string span =
        "\"setup: " + std::to_string(p.setupCycles) + " cycles\"";
    REQUIRE((trace.find(span) != std::string::npos) == (run == 0));
    REQUIRE(trace.find("\"mm\"") != std::string::npos);
  }
}

TEST_CASE("a body without its setup does not see the weights",
          "[session][card]") {
  // The control for the test above: nothing else puts W in the MRF, so
  // the right answer there comes from the setup program.
  pkg::PackageBuilder b;
  std::vector<float> w = buildPinnedModel(b, /*withSetup=*/false, false);
  auto session = makeSession(loadModel(b));
  std::vector<float> xs = ramp(16, 1.0f, 1.0f);
  auto outs = runOk(*session, {{"x", f32Tensor({1, 16}, xs)}});
  REQUIRE(values(outs[0]) == std::vector<float>(16, 0.0f));
  RunStats s = session->getLastStats();
  REQUIRE(!s.partitions[0].hasSetup);
  REQUIRE(s.setupCycles == 0);
  REQUIRE(s.summary().find("setup") == std::string::npos);
}

TEST_CASE("another partition on the card makes the setup run again",
          "[session][card]") {
  // Partition 1 overwrites the pinned tile on every run, so partition 0
  // must pin it again before each launch.
  pkg::PackageBuilder b;
  std::vector<float> w = buildPinnedModel(b, true, /*clobber=*/true);
  auto session = makeSession(loadModel(b));
  for (int run = 0; run < 3; ++run) {
    std::vector<float> xs = ramp(16, 2.0f - static_cast<float>(run), -1.0f);
    std::vector<float> cs = ramp(64, 50.0f, -1.5f);
    auto outs = runOk(*session, {{"x", f32Tensor({1, 16}, xs)},
                                 {"c", f32Tensor({1, 64}, cs)}});
    REQUIRE(values(outs[0]) == pinnedExpected(w, xs));
    std::vector<float> zs = values(outs[1]);
    for (size_t i = 0; i < 64; ++i)
      REQUIRE(zs[i] == relu(cs[i]));
    RunStats s = session->getLastStats();
    REQUIRE(s.partitions[0].setupCycles > 0);
    REQUIRE(!s.partitions[1].hasSetup);
    REQUIRE(s.setupCycles == s.partitions[0].setupCycles);
    REQUIRE(s.deviceCycles == s.partitions[0].cycles + s.partitions[1].cycles);
    // The weight itself stays resident in DRAM.
    REQUIRE(s.weightBytesToCard == (run == 0 ? 1024u : 0u));
  }
}

TEST_CASE("setup programs: errors", "[session][errors]") {
  SECTION("a faulting setup names the partition and leaves the session "
          "usable") {
    pkg::PackageBuilder b;
    buildPinnedModel(b, true, false);
    auto &card =
        std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[0]);
    // Waits for a token nobody pushes.
    card.setupPrograms[0].code = assemble(
        ".core card=0, core=0\n"
        "v.relu vrf[0x100], vrf[0x0], f32, f32, rows=1, cols=64, dpitch=256, "
        "apitch=256 @pop_prev\n"
        "halt\n");
    auto session = makeSession(loadModel(b));
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::string e =
          runError(*session, {{"x", f32Tensor({1, 16}, ramp(16, 0, 1))}});
      INFO(e);
      REQUIRE(e.rfind("partition 0 (card 0): setup: ", 0) == 0);
      REQUIRE(e.find("deadlock") != std::string::npos);
    }
  }
  SECTION("setup program for a core the target does not have") {
    pkg::PackageBuilder b;
    buildPinnedModel(b, true, false);
    auto &card =
        std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[0]);
    card.setupPrograms[0].core = 9;
    card.setupPrograms[0].code[18] = 9; // header core
    std::string e = loadError(b);
    INFO(e);
    REQUIRE(e.find("variant 'default' partition 0: setup program: core 9 "
                   "does not exist in target 'default'") != std::string::npos);
  }
  SECTION("corrupt setup program words") {
    pkg::PackageBuilder b;
    buildPinnedModel(b, true, false);
    auto &card =
        std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[0]);
    std::vector<uint8_t> &code = card.setupPrograms[0].code;
    std::memset(code.data() + 32, 0xFF, 32);
    std::string e = loadError(b);
    INFO(e);
    REQUIRE(e.find("variant 'default' partition 0: setup program for card 0 "
                   "core 0") != std::string::npos);
  }
}

TEST_CASE("mixed host -> card -> host package", "[session][card]") {
  pkg::PackageBuilder b;
  std::vector<float> w = ramp(64, -8.0f, 0.25f);
  buildMixedModel(b, w);
  auto session = makeSession(loadModel(b), {/*trace=*/true, 0});
  std::vector<float> xs = ramp(64, 1.0f, -0.1f);
  auto outs = runOk(*session, {{"x", f32Tensor({1, 64}, xs)}});
  std::vector<float> ys = values(outs[0]);
  for (size_t i = 0; i < 64; ++i)
    REQUIRE(ys[i] == -relu(xs[i] + w[i]));
  RunStats s = session->getLastStats();
  REQUIRE(s.partitions.size() == 3);
  REQUIRE(!s.partitions[0].onCard);
  REQUIRE(s.partitions[1].onCard);
  REQUIRE(!s.partitions[2].onCard);
  REQUIRE(s.deviceCycles == s.partitions[1].cycles);
  REQUIRE(s.deviceCycles > 0);
  std::string summary = s.summary();
  REQUIRE(summary.find("partition 1: card 0") != std::string::npos);
  REQUIRE(summary.find("target default") != std::string::npos);
  std::string trace = session->getTraceJson();
  REQUIRE(trace.find("partition 2: host") != std::string::npos);
  REQUIRE(trace.find("\"accel.neg\"") != std::string::npos);
  REQUIRE(trace.find("\"dma.ld\"") != std::string::npos);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_CASE("input validation names the input", "[session][errors]") {
  pkg::PackageBuilder b;
  buildHostModel(b, {1, 2, 3, 4, 5, 6});
  auto session = makeSession(loadModel(b));
  Tensor good = f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6});

  std::string e = runError(*session, {});
  REQUIRE(e == "missing input 'x' (expected f32[2x3])");

  e = runError(*session, {{"x", good}, {"bogus", good}});
  REQUIRE(e == "unknown input 'bogus' (the model's inputs are 'x')");

  e = runError(*session, {{"x", f32Tensor({3, 2}, {1, 2, 3, 4, 5, 6})}});
  REQUIRE(e == "input 'x': expected shape f32[2x3], got f32[3x2]");

  e = runError(*session, {{"x", f32Tensor({6}, {1, 2, 3, 4, 5, 6})}});
  REQUIRE(e == "input 'x': expected shape f32[2x3], got f32[6]");

  Tensor ints = Tensor::allocate(TensorDesc(DType::I32, {2, 3}));
  e = runError(*session, {{"x", ints}});
  REQUIRE(e == "input 'x': expected dtype f32, got i32");

  e = runError(*session, {{"x", Tensor()}});
  REQUIRE(e == "input 'x' is a null tensor");

  auto positional = session->run(std::vector<Tensor>{good, good});
  REQUIRE(!positional.ok());
  REQUIRE(positional.message() == "expected 1 input(s), got 2");

  // Failures leave the session usable.
  runOk(*session, {{"x", good}});
}

TEST_CASE("host kernel failures name partition, op, kind and location",
          "[session][errors]") {
  pkg::PackageBuilder b;
  pkg::ModelDesc &m = b.model();
  m.name = "bad_host";
  m.inputs = {port("x", {2, 3})};
  m.outputs = {port("y", {2, 2})};
  pkg::VariantDesc v;
  v.name = "default";
  int32_t x = v.addValue({"x", f32Type({2, 3}), -1});
  // relu cannot produce f32[2x2] from f32[2x3]; the kernel reports it.
  int32_t y = v.addValue({"y", f32Type({2, 2}), -1});
  pkg::HostPartitionDesc host;
  host.ops.push_back(hostOp("accel.relu", {x}, {y}, "model.onnx:7"));
  v.inputs = {x};
  v.outputs = {y};
  v.partitions.push_back(host);
  m.variants.push_back(v);
  auto session = makeSession(loadModel(b));
  std::string e =
      runError(*session, {{"x", f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6})}});
  INFO(e);
  REQUIRE(e.rfind("partition 0 op 0 (accel.relu at model.onnx:7): ", 0) == 0);
  // The kernel's own "kind (location): " prefix is not repeated.
  REQUIRE(e.find("accel.relu (model.onnx:7)") == std::string::npos);
}

TEST_CASE("load-time errors: unknown op, missing target, bad programs",
          "[session][errors]") {
  SECTION("host op without a kernel") {
    pkg::PackageBuilder b;
    buildHostModel(b, {1, 2, 3, 4, 5, 6});
    auto &ops =
        std::get<pkg::HostPartitionDesc>(b.model().variants[0].partitions[0])
            .ops;
    ops[1].kind = "accel.frobnicate";
    std::string e = loadError(b);
    INFO(e);
    REQUIRE(e.find("variant 'default' partition 0 op 1 (accel.frobnicate at "
                   "test.onnx:2): no host kernel") != std::string::npos);
  }
  SECTION("card partition without a target") {
    pkg::PackageBuilder b;
    buildMixedModel(b, ramp(64, 0, 1));
    b.model().target.clear();
    REQUIRE(loadError(b).find("no target description") != std::string::npos);
  }
  SECTION("malformed target JSON") {
    pkg::PackageBuilder b;
    buildMixedModel(b, ramp(64, 0, 1));
    b.model().target = "{\"name\": 3}";
    REQUIRE(loadError(b).find("target") != std::string::npos);
  }
  SECTION("corrupt program words") {
    pkg::PackageBuilder b;
    buildMixedModel(b, ramp(64, 0, 1));
    auto &card =
        std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[1]);
    // Keep the header (the package checks it) but make word 1 undecodable.
    std::vector<uint8_t> &code = card.programs[0].code;
    std::memset(code.data() + 32 + 32, 0xFF, 32);
    std::string e = loadError(b);
    INFO(e);
    REQUIRE(
        e.find("variant 'default' partition 1: program for card 0 core 0") !=
        std::string::npos);
  }
  SECTION("core the target does not have") {
    pkg::PackageBuilder b;
    buildMixedModel(b, ramp(64, 0, 1));
    auto &card =
        std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[1]);
    std::vector<uint8_t> &code = card.programs[0].code;
    card.programs[0].core = 9;
    code[18] = 9; // header core
    REQUIRE(loadError(b).find("core 9 does not exist in target 'default'") !=
            std::string::npos);
  }
  SECTION("binding beyond DRAM") {
    pkg::PackageBuilder b;
    buildMixedModel(b, ramp(64, 0, 1));
    auto &card =
        std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[1]);
    card.bindings[1].address = (uint64_t(4) << 30) - 16;
    REQUIRE(loadError(b).find("exceeds the card's") != std::string::npos);
  }
  SECTION("binding outside the work range") {
    pkg::PackageBuilder b;
    buildMixedModel(b, ramp(64, 0, 1));
    auto &card =
        std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[1]);
    card.workBegin = 0x100000;
    card.workEnd = 0x200000;
    REQUIRE(loadError(b).find("lies outside the partition's work range") !=
            std::string::npos);
  }
  SECTION("work range beyond DRAM") {
    pkg::PackageBuilder b;
    buildMixedModel(b, ramp(64, 0, 1));
    auto &card =
        std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[1]);
    card.workBegin = 0;
    card.workEnd = uint64_t(8) << 30;
    REQUIRE(loadError(b).find("work range [0x0, 0x200000000) exceeds the "
                              "card's") != std::string::npos);
  }
  SECTION("unreadable file") {
    auto model = Model::load("/nonexistent/dir/model.nnpkg");
    REQUIRE(!model.ok());
    REQUIRE(model.message().find("/nonexistent/dir/model.nnpkg") !=
            std::string::npos);
  }
}

TEST_CASE("emulator faults become run errors naming the partition",
          "[session][errors]") {
  pkg::PackageBuilder b;
  buildMixedModel(b, ramp(64, 0, 1));
  auto &card =
      std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[1]);
  // v.relu waits for a token nobody pushes: a deadlock at run time.
  card.programs[0].code = assemble(
      ".core card=0, core=0\n"
      "v.relu vrf[0x100], vrf[0x0], f32, f32, rows=1, cols=64, dpitch=256, "
      "apitch=256 @pop_prev\n"
      "halt\n");
  auto session = makeSession(loadModel(b));
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string e =
        runError(*session, {{"x", f32Tensor({1, 64}, ramp(64, 0, 1))}});
    INFO(e);
    REQUIRE(e.rfind("partition 1 (card 0): ", 0) == 0);
    REQUIRE(e.find("deadlock") != std::string::npos);
  }
}

TEST_CASE("data races in card programs fail the run when checked",
          "[session][errors]") {
  pkg::PackageBuilder b;
  buildMixedModel(b, ramp(64, 0, 1));
  auto &card =
      std::get<pkg::CardPartitionDesc>(b.model().variants[0].partitions[1]);
  // relu without tokens: v.relu may read the VRF before dma.ld wrote it,
  // and dma.st may read the result before v.relu wrote it.
  card.programs[0].code = assemble(
      ".core card=0, core=0\n"
      "dma.ld vrf[0x0], dram[0x0], f32, x=64, y=1, z=1\n"
      "v.relu vrf[0x100], vrf[0x0], f32, f32, rows=1, cols=64, dpitch=256, "
      "apitch=256\n"
      "dma.st dram[0x1000], vrf[0x100], f32, x=64, y=1, z=1\n"
      "halt\n");
  auto model = loadModel(b);
  auto session = makeSession(model);
  std::string e =
      runError(*session, {{"x", f32Tensor({1, 64}, ramp(64, 0, 1))}});
  INFO(e);
  REQUIRE(e.rfind("partition 1 (card 0): card 0 core 0 pc 1 (ex: `v.relu "
                  "vrf[0x100], vrf[0x0]",
                  0) == 0);
  REQUIRE(e.find("data race on vrf[0x0, 0x100)") != std::string::npos);
  REQUIRE(e.find("card 0 core 0 pc 0 (ld: `dma.ld vrf[0x0], dram[0x0]") !=
          std::string::npos);
  // Unchecked (the default), the emulator's schedule happens to run it.
  auto unchecked = Session::create(model);
  REQUIRE(unchecked.ok());
  REQUIRE(!(*unchecked)->getOptions().checkRaces);
  auto outs = (*unchecked)->run({{"x", f32Tensor({1, 64}, ramp(64, 0, 1))}});
  REQUIRE(outs.ok());
}

//===----------------------------------------------------------------------===//
// Concurrency
//===----------------------------------------------------------------------===//

TEST_CASE("sessions sharing a model run concurrently", "[session][threads]") {
  pkg::PackageBuilder b;
  std::vector<float> w = ramp(64, -8.0f, 0.25f);
  buildMixedModel(b, w);
  auto model = loadModel(b);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      auto session = Session::create(model, {false, 1, /*checkRaces=*/true});
      if (!session)
        return;
      for (int r = 0; r < 5; ++r) {
        std::vector<float> xs = ramp(64, static_cast<float>(t * 10 + r), -0.3f);
        auto outs = (*session)->run({{"x", f32Tensor({1, 64}, xs)}});
        bool good = outs.ok();
        for (size_t i = 0; good && i < 64; ++i)
          good = (*outs)[0].as<float>()[i] == -relu(xs[i] + w[i]);
        ok[static_cast<size_t>(t)] += good;
      }
    });
  for (auto &t : threads)
    t.join();
  REQUIRE(ok == std::vector<int>(4, 5));
}

TEST_CASE("RequestQueue serves concurrent requests correctly",
          "[session][threads]") {
  pkg::PackageBuilder b;
  std::vector<float> w = ramp(64, -8.0f, 0.25f);
  buildMixedModel(b, w);
  auto model = loadModel(b);
  RequestQueueOptions options;
  options.workers = 3;
  options.session.emulatorThreads = 1;
  options.session.checkRaces = true;
  auto queue = RequestQueue::create(model, options);
  INFO(queue.message());
  REQUIRE(queue.ok());
  REQUIRE((*queue)->getNumWorkers() == 3);

  constexpr int Requests = 20;
  std::vector<std::vector<float>> inputs(Requests);
  std::vector<std::future<Expected<RunResult>>> futures(Requests);
  // Submit from several client threads at once.
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c)
    clients.emplace_back([&, c] {
      for (int r = c; r < Requests; r += 4) {
        inputs[static_cast<size_t>(r)] =
            ramp(64, static_cast<float>(r) - 10.0f, 0.37f);
        futures[static_cast<size_t>(r)] = (*queue)->submit(
            {{"x", f32Tensor({1, 64}, inputs[static_cast<size_t>(r)])}});
      }
    });
  for (auto &t : clients)
    t.join();
  for (int r = 0; r < Requests; ++r) {
    Expected<RunResult> result = futures[static_cast<size_t>(r)].get();
    INFO(result.message());
    REQUIRE(result.ok());
    REQUIRE(result->outputs.size() == 1);
    const float *y = result->outputs[0].as<float>();
    for (size_t i = 0; i < 64; ++i)
      REQUIRE(y[i] == -relu(inputs[static_cast<size_t>(r)][i] + w[i]));
    REQUIRE(result->stats.deviceCycles > 0);
    REQUIRE(result->stats.partitions.size() == 3);
  }

  // Bad requests fail individually without disturbing the queue.
  auto bad = (*queue)->submit({{"y", f32Tensor({1, 64}, ramp(64, 0, 1))}});
  Expected<RunResult> badResult = bad.get();
  REQUIRE(!badResult.ok());
  REQUIRE(badResult.message().find("unknown input 'y'") != std::string::npos);

  (*queue)->shutdown();
  auto late = (*queue)->submit({{"x", f32Tensor({1, 64}, ramp(64, 0, 1))}});
  Expected<RunResult> lateResult = late.get();
  REQUIRE(!lateResult.ok());
  REQUIRE(lateResult.message() == "the request queue is shut down");
}

TEST_CASE("RequestQueue drains queued requests on destruction",
          "[session][threads]") {
  pkg::PackageBuilder b;
  buildHostModel(b, {1, 2, 3, 4, 5, 6});
  auto model = loadModel(b);
  std::vector<std::future<Expected<RunResult>>> futures;
  {
    auto queue = RequestQueue::create(model, {1, {}});
    REQUIRE(queue.ok());
    for (int r = 0; r < 10; ++r)
      futures.push_back((*queue)->submit(
          {{"x", f32Tensor({2, 3}, ramp(6, static_cast<float>(r), 1))}}));
  }
  for (auto &f : futures) {
    auto result = f.get();
    REQUIRE(result.ok());
  }
}
