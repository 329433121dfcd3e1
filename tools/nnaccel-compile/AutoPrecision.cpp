//===- AutoPrecision.cpp - --quantize=auto's precision search -------------===//
//
// See AutoPrecision.h.
//
//===----------------------------------------------------------------------===//

#include "AutoPrecision.h"

#include "nnaccel/Calibration/Evaluator.h"
#include "nnaccel/Calibration/Samples.h"
#include "nnaccel/Calibration/ValueKey.h"
#include "nnaccel/ISA/Target.h"
#include "nnaccel/TensorIO/Compare.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::nnaccel;
using ::nnaccel::runtime::Tensor;

StringRef AccuracyBudget::getName() const {
  switch (metric) {
  case Cosine:
    return "cosine";
  case Top1:
    return "top1";
  case NE:
    return "ne";
  case MaxAbs:
    return "max-abs";
  }
  return "";
}

std::optional<AccuracyBudget>
mlir::nnaccel::parseAccuracyBudget(StringRef text, std::string &error) {
  auto [name, value] = text.split('=');
  AccuracyBudget budget;
  name = name.trim();
  if (name == "cosine")
    budget.metric = AccuracyBudget::Cosine;
  else if (name == "top1")
    budget.metric = AccuracyBudget::Top1;
  else if (name == "ne")
    budget.metric = AccuracyBudget::NE;
  else if (name == "max-abs")
    budget.metric = AccuracyBudget::MaxAbs;
  else {
    error = "expected METRIC=VALUE with METRIC cosine, top1, ne or max-abs, "
            "got '" +
            text.str() + "'";
    return std::nullopt;
  }
  value = value.trim();
  if (value.empty() || value.getAsDouble(budget.value) ||
      !std::isfinite(budget.value)) {
    error = "'" + name.str() + "' needs a number, got '" + value.str() + "'";
    return std::nullopt;
  }
  if (budget.metric == AccuracyBudget::Cosine &&
      !(budget.value >= -1 && budget.value <= 1)) {
    error = "a cosine budget lies in [-1, 1], got " + value.str();
    return std::nullopt;
  }
  if (budget.metric == AccuracyBudget::Top1 &&
      !(budget.value >= 0 && budget.value <= 100)) {
    error = "a top1 budget is a percentage in [0, 100], got " + value.str();
    return std::nullopt;
  }
  if (budget.metric == AccuracyBudget::MaxAbs && budget.value < 0) {
    error = "a max-abs budget is not negative, got " + value.str();
    return std::nullopt;
  }
  return budget;
}

std::string mlir::nnaccel::getPrecisionName(Type precision) {
  if (auto block = dyn_cast<accel::BlockFloatType>(precision))
    return accel::stringifyBlockFormat(block.getFormat()).str();
  if (precision.isSignlessInteger(8))
    return "int8";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << precision;
  return text;
}

namespace {
std::string formatNumber(double value) {
  return llvm::formatv("{0}", llvm::format("%.9g", value)).str();
}

/// The products the search decides, in program order.
std::vector<Operation *> getCandidates(func::FuncOp func) {
  std::vector<Operation *> ops;
  func.walk([&](Operation *op) {
    bool floating =
        op->getNumResults() &&
        isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType()));
    if (!floating)
      return;
    if (isa<accel::FullyConnectedOp, accel::ConvOp, accel::LSTMOp,
            accel::GRUOp>(op))
      ops.push_back(op);
    else if (isa<accel::MatMulOp>(op) && op->getNumOperands() >= 2 &&
             isa_and_present<accel::ConstantOp>(
                 op->getOperand(1).getDefiningOp()))
      ops.push_back(op);
  });
  return ops;
}

/// Whether accel-quantize-block-float can give `op`'s weights blocks of
/// `block` elements: f32 constants whose K is a multiple of it.
bool blocksFit(Operation *op, int64_t block) {
  auto fits = [&](Value weight, int64_t kDim) {
    auto type = dyn_cast<RankedTensorType>(weight.getType());
    if (!type || !type.getElementType().isF32() ||
        !weight.getDefiningOp<accel::ConstantOp>() || kDim < 0 ||
        kDim >= type.getRank() || type.isDynamicDim(kDim))
      return false;
    return type.getDimSize(kDim) % block == 0;
  };
  if (auto fc = dyn_cast<accel::FullyConnectedOp>(op))
    return fits(fc.getWeight(), fc.getTransposeWeight() ? 1 : 0);
  if (isa<accel::MatMulOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    return type && type.getRank() == 2 && fits(op->getOperand(1), 0);
  }
  if (isa<accel::LSTMOp, accel::GRUOp>(op))
    return fits(op->getOperand(1), 2) && fits(op->getOperand(2), 2);
  // Convolutions as accel-quantize-block-float converts them: groups 1,
  // blocks along K = C x the kernel's taps.
  if (auto conv = dyn_cast<accel::ConvOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(conv.getWeight().getType());
    if (!type || conv.getGroups() != 1 || type.getRank() < 3 ||
        !type.hasStaticShape() || !type.getElementType().isF32() ||
        !conv.getWeight().getDefiningOp<accel::ConstantOp>())
      return false;
    return type.getDimSize(0) > 0 &&
           (type.getNumElements() / type.getDimSize(0)) % block == 0;
  }
  return false;
}

/// The precisions `op` can take, cheapest first: for products (FC,
/// matmul by a constant, lstm, gru) the block formats the target's matrix
/// unit has and the weight's K takes (msfp8, then mxint8), then int8
/// (FC, matmul), then f32. Convs differ: their int8 kernels read 1-byte
/// activations while the block-float ones stream f32 activations through
/// the matrix unit, so int8 is their cheapest rung and mxint8 (finer
/// scales, more accurate than int8) the next; msfp8 is left out, being
/// both dearer and less accurate than int8 there (mobilenet_v2_050 at 4
/// cores: int8 46.4 us, msfp8 100.8 us at cosine 0, mxint8 112.1 us,
/// docs/quantization.md). mxfp8e4m3 and mxfp8e5m2 are left out on
/// purpose: they cost what mxint8 costs (33 bytes per 32 weights, the
/// same MACs per cycle on `default`) and were less accurate on every
/// bundled model, so they would never be the cheaper rung.
std::vector<Type> getLadder(Operation *op,
                            const ::nnaccel::isa::TargetDesc &target) {
  MLIRContext *context = op->getContext();
  std::vector<Type> ladder;
  auto msfp8 = accel::BlockFloatType::get(context, accel::BlockFormat::msfp8);
  auto mxint8 = accel::BlockFloatType::get(context, accel::BlockFormat::mxint8);
  bool hasMsfp8 =
      target.macsPerCycle.count(::nnaccel::DType::MSFP8) && blocksFit(op, 16);
  bool hasMxint8 =
      target.macsPerCycle.count(::nnaccel::DType::MXINT8) && blocksFit(op, 32);
  if (isa<accel::ConvOp>(op)) {
    ladder.push_back(IntegerType::get(context, 8));
    if (hasMxint8)
      ladder.push_back(mxint8);
  } else if (isa<accel::FullyConnectedOp, accel::MatMulOp, accel::LSTMOp,
                 accel::GRUOp>(op)) {
    if (hasMsfp8)
      ladder.push_back(msfp8);
    if (hasMxint8)
      ladder.push_back(mxint8);
    if (isa<accel::FullyConnectedOp, accel::MatMulOp>(op))
      ladder.push_back(IntegerType::get(context, 8));
  }
  ladder.push_back(Float32Type::get(context));
  return ladder;
}

void setPrecisionHint(Operation *op, Type precision) {
  MLIRContext *context = op->getContext();
  auto name = accel::AccelDialect::getHintAttrName();
  auto hint = op->getAttrOfType<accel::HintAttr>(name);
  op->setAttr(
      name,
      hint ? accel::HintAttr::get(context, hint.getCard(), hint.getCores(),
                                  hint.getChunks(), hint.getParallel(),
                                  hint.getMemory(), precision, hint.getOrder())
           : accel::HintAttr::get(context, {}, {}, {}, {}, {}, precision, {}));
}

class Search {
public:
  Search(ModuleOp module, const AutoPrecisionOptions &options)
      : module(module), options(options) {}

  FailureOr<AutoPrecisionResult> run();

private:
  LogicalResult prepare();
  /// The metric of an assignment (levels per layer), as a score where
  /// higher is better; nullopt when no output has the metric's figures.
  FailureOr<std::optional<double>> evaluate(const std::vector<unsigned> &);
  std::optional<double> measure(const std::vector<std::vector<Tensor>> &outs);
  bool meets(double score) const {
    const AccuracyBudget &b = options.budget;
    return score >= (b.higherIsBetter() ? b.value : -b.value);
  }
  double toMetric(double score) const {
    return options.budget.higherIsBetter() ? score : -score;
  }

  ModuleOp module;
  const AutoPrecisionOptions &options;
  std::vector<AutoLayer> layers;
  std::vector<std::vector<Tensor>> inputs, references;
  std::map<std::vector<unsigned>, std::optional<double>> cache;
  unsigned evaluations = 0;
};

LogicalResult Search::prepare() {
  auto func = module.lookupSymbol<func::FuncOp>(options.functionName);
  if (!func)
    return emitError(module.getLoc())
           << "--quantize=auto: the module has no @" << options.functionName;
  for (Operation *op : getCandidates(func)) {
    AutoLayer layer;
    std::optional<StringRef> name = accel::getNodeName(op->getLoc());
    layer.kind = op->getName().getStringRef().str();
    layer.name = name ? name->str()
                      : llvm::formatv("{0}#{1}", layer.kind, layers.size());
    layer.ladder = getLadder(op, *options.target);
    layers.push_back(std::move(layer));
  }
  Location loc = func.getLoc();
  FailureOr<std::vector<calibration::Sample>> samples =
      calibration::findSamples(options.sampleDir, func.getNumArguments(), loc);
  if (failed(samples))
    return failure();
  FailureOr<std::unique_ptr<calibration::FuncEvaluator>> evaluator =
      calibration::FuncEvaluator::create(func);
  if (failed(evaluator))
    return failure();
  ArrayRef<::nnaccel::runtime::TensorDesc> descs =
      (*evaluator)->getInputDescs();
  std::vector<std::string> names;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    names.push_back(calibration::getArgumentName(func, i));
  for (const calibration::Sample &sample : *samples) {
    FailureOr<std::vector<Tensor>> tensors =
        calibration::readSample(sample, descs, names, loc);
    if (failed(tensors))
      return failure();
    bool sameShapes = true;
    for (auto [tensor, desc] : llvm::zip(*tensors, descs))
      sameShapes &= tensor.getShape() == desc.shape;
    if (!sameShapes) {
      emitWarning(loc) << "--quantize=auto: calibration sample '" << sample.name
                       << "' has other input shapes than the compiled model; "
                          "the precision search skips it";
      continue;
    }
    std::vector<Tensor> outputs;
    if (failed((*evaluator)
                   ->run(*tensors, [](Value, const Tensor &) {}, &outputs)))
      return emitError(loc) << "--quantize=auto: calibration sample '"
                            << sample.name << "' could not be evaluated";
    std::vector<Tensor> owned;
    for (const Tensor &output : outputs)
      owned.push_back(output.clone());
    references.push_back(std::move(owned));
    inputs.push_back(std::move(*tensors));
  }
  if (inputs.empty())
    return emitError(loc) << "--quantize=auto: no calibration sample in '"
                          << options.sampleDir
                          << "' has the compiled model's input shapes";
  return success();
}

std::optional<double>
Search::measure(const std::vector<std::vector<Tensor>> &outs) {
  const AccuracyBudget &budget = options.budget;
  double worst = std::numeric_limits<double>::infinity();
  bool any = false;
  for (auto [sample, outputs] : llvm::enumerate(outs))
    for (auto [index, output] : llvm::enumerate(outputs)) {
      ::nnaccel::tensorio::Comparison c = ::nnaccel::tensorio::compareTensors(
          output, references[sample][index], ::nnaccel::tensorio::Tolerance());
      if (c.exact)
        continue;
      std::optional<double> value;
      switch (budget.metric) {
      case AccuracyBudget::Cosine:
        value = c.cosine;
        break;
      case AccuracyBudget::Top1:
        if (c.top1)
          value = c.top1->percent();
        break;
      case AccuracyBudget::NE:
        if (c.ctr)
          value = -c.ctr->neDeltaPercent;
        break;
      case AccuracyBudget::MaxAbs:
        value = -c.maxAbsError;
        break;
      }
      if (!value && c.error.empty())
        continue;
      any = true;
      double score = value.value_or(0);
      if (!c.error.empty() || c.nonFiniteMismatches || std::isnan(score))
        score = -std::numeric_limits<double>::infinity();
      worst = std::min(worst, score);
    }
  if (!any)
    return std::nullopt;
  return worst;
}

FailureOr<std::optional<double>>
Search::evaluate(const std::vector<unsigned> &levels) {
  if (auto it = cache.find(levels); it != cache.end())
    return it->second;
  if (evaluations >= options.maxEvaluations)
    return emitError(module.getLoc())
           << "--quantize=auto: the budget " << options.budget.getName() << "="
           << formatNumber(options.budget.value) << " is not met within "
           << options.maxEvaluations
           << " evaluations (--auto-max-evals); raise the limit or relax "
              "the budget";
  ++evaluations;
  OwningOpRef<ModuleOp> copy = module.clone();
  auto func = copy->lookupSymbol<func::FuncOp>(options.functionName);
  std::vector<Operation *> ops = getCandidates(func);
  assert(ops.size() == layers.size() && "the copy has other products");
  for (auto [op, layer, level] : llvm::zip(ops, layers, levels))
    setPrecisionHint(op, layer.ladder[level]);
  MLIRContext *context = module.getContext();
  std::vector<std::vector<Tensor>> outs;
  {
    // The passes' warnings (a node that stays f32) would repeat for every
    // candidate; the final compile prints them once.
    ScopedDiagnosticHandler quiet(context, [](Diagnostic &diagnostic) {
      return success(diagnostic.getSeverity() == DiagnosticSeverity::Warning ||
                     diagnostic.getSeverity() == DiagnosticSeverity::Remark);
    });
    PassManager pm(context);
    buildPrecisionPipeline(pm, *options.pipeline);
    if (failed(pm.run(*copy)))
      return emitError(module.getLoc())
             << "--quantize=auto: the precision passes failed on a candidate";
    FailureOr<std::unique_ptr<calibration::FuncEvaluator>> evaluator =
        calibration::FuncEvaluator::create(func);
    if (failed(evaluator))
      return emitError(module.getLoc())
             << "--quantize=auto: a candidate cannot be evaluated on the host";
    for (const std::vector<Tensor> &sample : inputs) {
      std::vector<Tensor> outputs;
      if (failed((*evaluator)
                     ->run(sample, [](Value, const Tensor &) {}, &outputs)))
        return emitError(module.getLoc())
               << "--quantize=auto: a candidate failed on a calibration "
                  "sample";
      std::vector<Tensor> owned;
      for (const Tensor &output : outputs)
        owned.push_back(output.clone());
      outs.push_back(std::move(owned));
    }
  }
  std::optional<double> score = measure(outs);
  cache[levels] = score;
  return score;
}

FailureOr<AutoPrecisionResult> Search::run() {
  if (failed(prepare()))
    return failure();
  std::vector<unsigned> levels(layers.size(), 0);
  FailureOr<std::optional<double>> start = evaluate(levels);
  if (failed(start))
    return failure();
  if (!*start)
    return emitError(module.getLoc())
           << "--accuracy-budget: no output of the model has "
           << options.budget.getName()
           << " figures (top1: rank-2 outputs with classes; ne: "
              "probability outputs in [0, 1])";
  double score = **start;
  if (options.progress)
    options.progress(llvm::formatv("auto precision: {0} products, all "
                                   "cheapest: {1} {2}",
                                   layers.size(), options.budget.getName(),
                                   toMetric(score))
                         .str());
  while (!meets(score)) {
    // Probe: each layer raised one step on its own.
    std::vector<std::pair<double, unsigned>> probes;
    for (unsigned i = 0; i < layers.size(); ++i) {
      if (levels[i] + 1 >= layers[i].ladder.size())
        continue;
      std::vector<unsigned> raised = levels;
      ++raised[i];
      FailureOr<std::optional<double>> probe = evaluate(raised);
      if (failed(probe))
        return failure();
      probes.push_back({**probe, i});
    }
    if (probes.empty())
      return emitError(module.getLoc())
             << "--quantize=auto: the budget " << options.budget.getName()
             << "=" << formatNumber(options.budget.value)
             << " is not met even with every product at its widest "
                "precision ("
             << options.budget.getName() << " " << formatNumber(toMetric(score))
             << ")";
    // The most helpful first; program order breaks ties.
    std::stable_sort(probes.begin(), probes.end(),
                     [](auto &a, auto &b) { return a.first > b.first; });
    // Raise them in that order until the budget holds.
    for (auto [index, probe] : llvm::enumerate(probes)) {
      ++levels[probe.second];
      if (index == 0) {
        score = probe.first;
      } else {
        FailureOr<std::optional<double>> next = evaluate(levels);
        if (failed(next))
          return failure();
        score = **next;
      }
      if (options.progress)
        options.progress(
            llvm::formatv("auto precision: {0} -> {1}: {2} {3}",
                          layers[probe.second].name,
                          getPrecisionName(layers[probe.second].getPrecision()),
                          options.budget.getName(), toMetric(score))
                .str());
      if (meets(score))
        break;
    }
  }
  AutoPrecisionResult result;
  for (auto [layer, level] : llvm::zip(layers, levels))
    layer.level = level;
  result.layers = layers;
  result.metric = toMetric(score);
  result.samples = inputs.size();
  result.evaluations = evaluations;
  return result;
}
} // namespace

FailureOr<AutoPrecisionResult>
mlir::nnaccel::searchPrecisions(ModuleOp module,
                                const AutoPrecisionOptions &options) {
  Search search(module, options);
  return search.run();
}

void mlir::nnaccel::applyPrecisions(ModuleOp module,
                                    const AutoPrecisionResult &result,
                                    StringRef functionName) {
  auto func = module.lookupSymbol<func::FuncOp>(functionName);
  if (!func)
    return;
  for (auto [op, layer] : llvm::zip(getCandidates(func), result.layers))
    setPrecisionHint(op, layer.getPrecision());
}

void mlir::nnaccel::printPrecisionSummary(const AutoPrecisionResult &result,
                                          const AccuracyBudget &budget,
                                          bool perLayer,
                                          llvm::raw_ostream &os) {
  os << "auto precision: " << budget.getName() << " "
     << llvm::format("%.6g", result.metric)
     << (budget.higherIsBetter() ? " >= " : " <= ")
     << llvm::format("%g", budget.value) << " on " << result.samples
     << " calibration sample" << (result.samples == 1 ? "" : "s") << " ("
     << result.evaluations << " evaluations); kept wider:";
  bool any = false;
  for (const AutoLayer &layer : result.layers)
    if (layer.level > 0) {
      os << (any ? ", " : " ") << layer.name << " ("
         << getPrecisionName(layer.getPrecision()) << ")";
      any = true;
    }
  if (!any)
    os << " none";
  os << "\n";
  if (!perLayer)
    return;
  for (const AutoLayer &layer : result.layers) {
    os << "  " << layer.name << " (" << layer.kind
       << "): " << getPrecisionName(layer.getPrecision()) << " of ";
    llvm::interleave(
        layer.ladder, os, [&](Type t) { os << getPrecisionName(t); }, " < ");
    os << "\n";
  }
}

void mlir::nnaccel::writePrecisionFile(const AutoPrecisionResult &result,
                                       llvm::raw_ostream &os) {
  llvm::json::Array entries;
  for (const AutoLayer &layer : result.layers) {
    if (layer.name.find('#') != std::string::npos)
      continue; // no node name to key it by
    std::string type;
    llvm::raw_string_ostream typeOs(type);
    typeOs << layer.getPrecision();
    entries.push_back(
        llvm::json::Object{{"node", layer.name}, {"precision", type}});
  }
  llvm::json::Object root{{"version", 1}, {"placement", std::move(entries)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}
