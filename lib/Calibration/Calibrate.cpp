//===- Calibrate.cpp - Calibration of an imported model -------------------===//
//
// Each graph calibration evaluates -- the compiled function, and one
// re-import per distinct set of sample shapes -- gets its own evaluator and
// a map from its values to the profile's statistics, found by key; so the
// statistics of a value are shared by all graphs that have it.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Calibrate.h"

#include "nnaccel/Calibration/Annotate.h"
#include "nnaccel/Calibration/Evaluator.h"
#include "nnaccel/Calibration/Samples.h"
#include "nnaccel/Calibration/ValueKey.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <map>

using namespace mlir;
using namespace mlir::nnaccel::calibration;
namespace runtime = ::nnaccel::runtime;

namespace {
/// A function calibration evaluates, with where its values' statistics go.
struct Graph {
  /// The re-imported module; null for the function being compiled.
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  std::unique_ptr<FuncEvaluator> evaluator;
  llvm::DenseMap<Value, ValueStatistics *> statistics;
  /// Why a re-import cannot be used; empty when it can.
  std::string failure;
};

void bindStatistics(Graph &graph, Profile &profile) {
  for (auto &[value, key] : getProfiledValues(graph.func))
    graph.statistics[value] = &profile.values[key];
}

using Shapes = std::vector<std::vector<int64_t>>;

/// "name:1x16,other:4" for messages.
std::string formatShapes(ArrayRef<std::string> names, const Shapes &shapes) {
  std::string text;
  for (auto [index, shape] : llvm::enumerate(shapes)) {
    if (index)
      text += ",";
    text += names[index] + ":" + runtime::formatShape(shape);
  }
  return text;
}

/// The function `reimport` makes for `shapes`, ready to evaluate, or why
/// there is none. Diagnostics of the re-import are collected, not shown.
std::unique_ptr<Graph> reimportGraph(func::FuncOp func, const Shapes &shapes,
                                     ArrayRef<std::string> names,
                                     const ReimportFn &reimport,
                                     Profile &profile) {
  auto graph = std::make_unique<Graph>();
  if (!reimport) {
    graph->failure = "the compiler cannot re-import it";
    return graph;
  }
  std::string firstError;
  ScopedDiagnosticHandler collect(func.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
      firstError = diag.str();
    return success();
  });
  auto fail = [&](StringRef fallback) {
    graph->failure = firstError.empty() ? fallback.str() : firstError;
    return std::move(graph);
  };
  llvm::StringMap<SmallVector<int64_t>> byName;
  for (auto [name, shape] : llvm::zip(names, shapes))
    byName[name] = SmallVector<int64_t>(shape.begin(), shape.end());
  graph->module = reimport(byName);
  if (!graph->module)
    return fail("the import failed");
  graph->func = graph->module->lookupSymbol<func::FuncOp>(func.getName());
  if (!graph->func)
    return fail(("the re-import has no @" + func.getName()).str());
  FailureOr<std::unique_ptr<FuncEvaluator>> evaluator =
      FuncEvaluator::create(graph->func);
  if (failed(evaluator))
    return fail("it cannot be evaluated");
  graph->evaluator = std::move(*evaluator);
  for (auto [desc, shape] :
       llvm::zip(graph->evaluator->getInputDescs(), shapes))
    if (desc.shape != shape)
      return fail("the re-import does not take these shapes");
  bindStatistics(*graph, profile);
  return graph;
}
} // namespace

FailureOr<Profile> mlir::nnaccel::calibration::profileSamples(
    func::FuncOp func, StringRef dir, const ReimportFn &reimport,
    const std::function<void(StringRef)> &progress) {
  // Diagnostics point at the model being compiled.
  Location loc = func.getLoc();
  auto start = std::chrono::steady_clock::now();
  FailureOr<std::vector<Sample>> samples =
      findSamples(dir, func.getNumArguments(), loc);
  if (failed(samples))
    return failure();
  if (progress)
    progress(llvm::formatv("calibrating on {0} sample(s) from {1}",
                           samples->size(), dir)
                 .str());

  Profile profile;
  profile.fingerprint = computeGraphFingerprint(func);
  Graph compiled;
  compiled.func = func;
  FailureOr<std::unique_ptr<FuncEvaluator>> evaluator =
      FuncEvaluator::create(func);
  if (failed(evaluator))
    return failure();
  compiled.evaluator = std::move(*evaluator);
  bindStatistics(compiled, profile);
  ArrayRef<runtime::TensorDesc> inputs = compiled.evaluator->getInputDescs();
  std::vector<std::string> names;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    names.push_back(getArgumentName(func, i));

  std::map<Shapes, std::unique_ptr<Graph>> reimported;
  for (const Sample &sample : *samples) {
    FailureOr<std::vector<runtime::Tensor>> tensors =
        readSample(sample, inputs, names, loc);
    if (failed(tensors))
      return failure();
    Shapes shapes;
    for (const runtime::Tensor &tensor : *tensors)
      shapes.push_back(tensor.getShape());
    Graph *graph = &compiled;
    if (llvm::any_of(llvm::zip(inputs, shapes), [](auto pair) {
          return std::get<0>(pair).shape != std::get<1>(pair);
        })) {
      std::unique_ptr<Graph> &other = reimported[shapes];
      if (!other)
        other = reimportGraph(func, shapes, names, reimport, profile);
      if (!other->failure.empty()) {
        emitWarning(loc) << "calibration sample '" << sample.name
                         << "' has input shapes " << formatShapes(names, shapes)
                         << " and the model cannot be re-imported at them ("
                         << other->failure << "); skipped";
        continue;
      }
      graph = other.get();
    }
    auto observe = [&](Value value, const runtime::Tensor &tensor) {
      if (ValueStatistics *statistics = graph->statistics.lookup(value))
        statistics->add(tensor);
    };
    if (failed(graph->evaluator->run(*tensors, observe)))
      return emitError(loc) << "calibration sample '" << sample.name
                            << "' could not be evaluated";
    ++profile.numSamples;
  }
  if (!profile.numSamples)
    return emitError(loc) << "no calibration sample in '" << dir
                          << "' could be evaluated";
  if (progress) {
    std::chrono::duration<double> seconds =
        std::chrono::steady_clock::now() - start;
    progress(llvm::formatv("calibrated on {0} sample(s) in {1:F2} s",
                           profile.numSamples, seconds.count())
                 .str());
  }
  return profile;
}

LogicalResult
mlir::nnaccel::calibration::calibrate(func::FuncOp func,
                                      const CalibrationOptions &options) {
  // Diagnostics point at the model being compiled.
  Location loc = func.getLoc();
  FailureOr<Profile> profile =
      options.loadProfile.empty()
          ? profileSamples(func, options.sampleDir, options.reimport,
                           options.progress)
          : readProfile(options.loadProfile, func, loc);
  if (failed(profile))
    return failure();
  if (!options.saveProfile.empty() &&
      failed(writeProfile(*profile, options.saveProfile, loc)))
    return failure();
  unsigned annotated = annotateRanges(func, *profile, options.calibrator);
  if (options.progress)
    options.progress(llvm::formatv("annotated {0} value(s) with {1} ranges",
                                   annotated,
                                   getCalibratorName(options.calibrator.kind))
                         .str());
  return success();
}
