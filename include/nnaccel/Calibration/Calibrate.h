//===- Calibrate.h - Calibration of an imported model -----------*- C++ -*-===//
//
// Post-training calibration from end to end, as nnaccel-compile runs it
// right after import: evaluate the function on every sample of a directory
// (Samples.h) and record statistics per value (or load a saved profile),
// optionally save them, and annotate the function with the chosen
// calibrator's ranges (Annotate.h). docs/quantization.md is the user's view.
//
// A sample whose input shapes differ from the function's static ones is
// evaluated on a re-import of the model at its shapes; its statistics merge
// with the others' by value key. A sample that cannot be re-imported is
// warned about and skipped.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CALIBRATION_CALIBRATE_H
#define NNACCEL_CALIBRATION_CALIBRATE_H

#include "nnaccel/Calibration/Calibrators.h"
#include "nnaccel/Calibration/Profile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <string>

namespace mlir::nnaccel::calibration {

/// Imports the model again with these static input shapes (by input name);
/// null, with an error emitted, when it cannot.
using ReimportFn = std::function<OwningOpRef<ModuleOp>(
    const llvm::StringMap<SmallVector<int64_t>> &shapes)>;

struct CalibrationOptions {
  /// The directory of samples (Samples.h); empty with loadProfile.
  std::string sampleDir;
  /// A profile to use instead of evaluating samples.
  std::string loadProfile;
  /// Where to save the profile (empty: not saved).
  std::string saveProfile;
  CalibratorOptions calibrator;
  /// For samples at other input shapes; without it they are skipped.
  ReimportFn reimport;
  /// Progress messages (sample count, time); never errors.
  std::function<void(StringRef)> progress;
};

/// Evaluates `func` on the samples in `dir` and returns its profile.
FailureOr<Profile>
profileSamples(func::FuncOp func, StringRef dir, const ReimportFn &reimport,
               const std::function<void(StringRef)> &progress);

/// Profiles (or loads), saves if asked, and annotates `func`.
LogicalResult calibrate(func::FuncOp func, const CalibrationOptions &options);

} // namespace mlir::nnaccel::calibration

#endif // NNACCEL_CALIBRATION_CALIBRATE_H
