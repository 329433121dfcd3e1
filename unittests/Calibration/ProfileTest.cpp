//===- ProfileTest.cpp - Evaluation, profiles and annotation --------------===//
//
// A small accel function (a fully_connected without bias over a splat and a
// dense constant, two ReLUs from one node) evaluated on the host kernels:
// the values observed, their keys, a profile's JSON round trip, and the
// accel.range annotation.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Profile.h"
#include "nnaccel/Calibration/Annotate.h"
#include "nnaccel/Calibration/Evaluator.h"

#include "Accel/AccelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::calibration;
namespace runtime = ::nnaccel::runtime;

namespace {
constexpr const char *kModule = R"mlir(
func.func @main(%x: tensor<2x3xf32> {onnx.name = "x"}) -> tensor<2x2xf32> {
  %w = accel.constant dense<[[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]]> : tensor<2x3xf32> loc("w")
  %s = accel.constant dense<2.0> : tensor<2x2xf32> loc("s")
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32> loc("fc")
  %1 = accel.add %0, %s : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc("fc")
  %2 = accel.relu %1 : tensor<2x2xf32> loc("act")
  %3 = accel.relu %2 : tensor<2x2xf32> loc("act")
  return %3 : tensor<2x2xf32>
}
)mlir";

struct Fixture {
  Fixture() {
    registry.insert<accel::AccelDialect, func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kModule, &context);
    REQUIRE(module);
    func = module->lookupSymbol<func::FuncOp>("main");
  }

  runtime::Tensor input(std::vector<float> values) {
    return runtime::Tensor::copyOf(
        runtime::TensorDesc(runtime::DType::F32, {2, 3}), values.data());
  }

  /// Evaluates the function on `x`; the statistics of each profiled value.
  Profile profile(ArrayRef<std::vector<float>> samples) {
    auto evaluator = FuncEvaluator::create(func);
    REQUIRE(succeeded(evaluator));
    Profile profile;
    profile.fingerprint = computeGraphFingerprint(func);
    llvm::DenseMap<Value, ValueStatistics *> stats;
    for (auto &[value, key] : getProfiledValues(func))
      stats[value] = &profile.values[key];
    for (const std::vector<float> &sample : samples) {
      runtime::Tensor x = input(sample);
      REQUIRE(succeeded(
          (*evaluator)->run(x, [&](Value value, const runtime::Tensor &tensor) {
            if (ValueStatistics *s = stats.lookup(value))
              s->add(tensor);
          })));
      ++profile.numSamples;
    }
    return profile;
  }

  DialectRegistry registry;
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
};
} // namespace

TEST_CASE("evaluation: values and their keys", "[calibration]") {
  Fixture f;
  std::vector<std::pair<Value, ValueKey>> values = getProfiledValues(f.func);
  std::vector<std::string> keys;
  for (auto &[value, key] : values)
    keys.push_back(key.describe());
  // Constants are not profiled; the second ReLU of node "act" is #1.
  CHECK(keys == std::vector<std::string>{
                    "input 'x'", "node 'fc' (accel.fully_connected)",
                    "node 'fc' (accel.add)", "node 'act' (accel.relu)",
                    "node 'act' (accel.relu) #1"});

  auto evaluator = FuncEvaluator::create(f.func);
  REQUIRE(succeeded(evaluator));
  runtime::Tensor x = f.input({1, 2, 3, -4, -5, -6});
  std::vector<std::vector<float>> seen;
  std::vector<runtime::Tensor> outputs;
  REQUIRE(succeeded((*evaluator)
                        ->run(
                            x,
                            [&](Value, const runtime::Tensor &tensor) {
                              const float *data = tensor.as<float>();
                              seen.emplace_back(data,
                                                data + tensor.getNumElements());
                            },
                            &outputs)));
  // x . w^T = [[-2, 3], [2, -7.5]], + 2, ReLU twice.
  REQUIRE(seen.size() == 5);
  CHECK(seen[1] == std::vector<float>{-2, 3, 2, -7.5});
  CHECK(seen[2] == std::vector<float>{0, 5, 4, -5.5});
  CHECK(seen[4] == std::vector<float>{0, 5, 4, 0});
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0].as<float>()[1] == 5);
}

TEST_CASE("profiles: save and load give the same statistics", "[calibration]") {
  Fixture f;
  Profile profile =
      f.profile({{1, 2, 3, -4, -5, -6}, {0.5f, -0.25f, 8, 1e-3f, 0, 7}});
  CHECK(profile.values.size() == 5);
  llvm::SmallString<64> path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("profile", "json", path));
  Location loc = UnknownLoc::get(&f.context);
  REQUIRE(succeeded(writeProfile(profile, path, loc)));
  FailureOr<Profile> loaded = readProfile(path, f.func, loc);
  llvm::sys::fs::remove(path);
  REQUIRE(succeeded(loaded));
  CHECK(*loaded == profile);
}

TEST_CASE("fingerprints follow structure and shapes", "[calibration]") {
  Fixture f;
  std::string fingerprint = computeGraphFingerprint(f.func);
  CHECK(fingerprint.size() == 32);
  CHECK(computeGraphFingerprint(f.func) == fingerprint);
  // Names and attributes do not count; an op more does.
  f.func.walk(
      [](accel::ReluOp op) { op->setLoc(UnknownLoc::get(op->getContext())); });
  CHECK(computeGraphFingerprint(f.func) == fingerprint);
  Operation *last = f.func.getBody().front().getTerminator()->getPrevNode();
  OpBuilder(last).clone(*last);
  CHECK(computeGraphFingerprint(f.func) != fingerprint);
}

TEST_CASE("annotation: accel.range on ops and arguments", "[calibration]") {
  Fixture f;
  Profile profile = f.profile({{1, 2, 3, -4, -5, -6}});
  CalibratorOptions minmax;
  minmax.kind = CalibratorKind::MinMax;
  CHECK(annotateRanges(f.func, profile, minmax) == 5);
  auto rangeOf = [](DenseF64ArrayAttr attr) {
    REQUIRE(attr);
    return std::vector<double>(attr.asArrayRef().begin(),
                               attr.asArrayRef().end());
  };
  StringRef name = accel::AccelDialect::getRangeAttrName();
  CHECK(rangeOf(f.func.getArgAttrOfType<DenseF64ArrayAttr>(0, name)) ==
        std::vector<double>{-6, 3});
  std::vector<std::vector<double>> ranges;
  f.func.walk([&](Operation *op) {
    if (auto range = op->getAttrOfType<DenseF64ArrayAttr>(name))
      ranges.push_back(rangeOf(range));
  });
  CHECK(ranges ==
        std::vector<std::vector<double>>{{-7.5, 3}, {-5.5, 5}, {0, 5}, {0, 5}});
  // The constants have none, and the IR still verifies.
  f.func.walk([&](accel::ConstantOp op) { CHECK(!op->hasAttr(name)); });
  CHECK(succeeded(verify(*f.module)));
}
