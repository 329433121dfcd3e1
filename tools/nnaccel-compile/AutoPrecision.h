//===- AutoPrecision.h - --quantize=auto's precision search -----*- C++ -*-===//
//
// Chooses a precision per product (fully_connected, matmul by a constant,
// conv, lstm, gru) so that the compiled model keeps an accuracy budget
// against the f32 model on the calibration samples: every product starts
// at the cheapest precision of its ladder, and the products whose raise
// helps the end-to-end metric most are raised one step at a time until the
// budget holds. docs/quantization.md, "Automatic precision".
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_COMPILE_AUTOPRECISION_H
#define NNACCEL_COMPILE_AUTOPRECISION_H

#include "nnaccel/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::isa {
struct TargetDesc;
} // namespace nnaccel::isa

namespace mlir::nnaccel {

struct AccuracyBudget {
  enum Metric { Cosine, Top1, NE, MaxAbs } metric = Cosine;
  double value = 0.999;
  /// cosine and top1 must reach the value; ne and max-abs stay below it.
  bool higherIsBetter() const { return metric == Cosine || metric == Top1; }
  StringRef getName() const;
};

/// Parses "cosine=0.999", "top1=99", "ne=0.5", "max-abs=0.01".
std::optional<AccuracyBudget> parseAccuracyBudget(StringRef text,
                                                  std::string &error);

struct AutoPrecisionOptions {
  AccuracyBudget budget;
  std::string sampleDir;
  std::string functionName = "main";
  unsigned maxEvaluations = 400;
  const ::nnaccel::isa::TargetDesc *target = nullptr;
  /// The pipeline options of the compile (target, placement file, scheme);
  /// quantize is set to "auto" for the evaluations.
  LowerPipelineOptions *pipeline = nullptr;
  std::function<void(StringRef)> progress;
};

/// One candidate product and its ladder of precisions, cheapest first.
struct AutoLayer {
  std::string name, kind;
  std::vector<Type> ladder;
  unsigned level = 0;
  Type getPrecision() const { return ladder[level]; }
};

struct AutoPrecisionResult {
  std::vector<AutoLayer> layers;
  double metric = 0;
  unsigned samples = 0, evaluations = 0;
};

/// Searches the precisions on `module` (imported and calibrated; not
/// changed). Errors are printed.
FailureOr<AutoPrecisionResult>
searchPrecisions(ModuleOp module, const AutoPrecisionOptions &options);

/// Puts the chosen precisions on `module`'s products as precision hints
/// (what the pipeline's quantize=auto honours).
void applyPrecisions(ModuleOp module, const AutoPrecisionResult &result,
                     StringRef functionName);

/// The name of a ladder precision: msfp8, msfp9, mxint8, int8, f16, f32.
std::string getPrecisionName(Type precision);

/// "auto precision: cosine 0.99931 >= 0.999 on 3 calibration samples ...".
void printPrecisionSummary(const AutoPrecisionResult &result,
                           const AccuracyBudget &budget, bool perLayer,
                           llvm::raw_ostream &os);

/// The chosen precisions as a --placement file.
void writePrecisionFile(const AutoPrecisionResult &result,
                        llvm::raw_ostream &os);

} // namespace mlir::nnaccel

#endif // NNACCEL_COMPILE_AUTOPRECISION_H
