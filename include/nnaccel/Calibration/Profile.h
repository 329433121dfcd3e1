//===- Profile.h - Calibration statistics of a graph, on disk ---*- C++ -*-===//
//
// A profile is what calibration measured on one graph: per profiled value
// (ValueKey.h) its statistics (Statistics.h), the number of samples, and a
// fingerprint of the graph, so that a profile saved by one compile is only
// applied to the same graph by a later one. Profiles are JSON
// (docs/quantization.md has the format):
//
//   {"format": "nnaccel-calibration-profile", "version": 1,
//    "fingerprint": "<32 hex digits>", "samples": 4, "bins": 4096,
//    "values": [{"input": "x", "min": -1.5, "max": 2.0, "range": 2.0,
//                "non_finite": 0, "first_bin": 512, "counts": [3, 0, 7]},
//               {"node": "/0/Gemm", "op": "accel.fully_connected",
//                "result": 0, "occurrence": 0, "min": ...}, ...]}
//
// The histogram is stored from its first to its last non-empty bin.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CALIBRATION_PROFILE_H
#define NNACCEL_CALIBRATION_PROFILE_H

#include "nnaccel/Calibration/Statistics.h"
#include "nnaccel/Calibration/ValueKey.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>
#include <map>
#include <string>

namespace mlir::nnaccel::calibration {

struct Profile {
  /// computeGraphFingerprint of the graph the profile was recorded for.
  std::string fingerprint;
  uint64_t numSamples = 0;
  std::map<ValueKey, ValueStatistics> values;

  bool operator==(const Profile &other) const {
    return fingerprint == other.fingerprint && numSamples == other.numSamples &&
           values == other.values;
  }
};

/// Identifies a graph: an MD5 over its argument types and, for every op in
/// order, its name, result types and number of operands. Stable across runs
/// and machines; any change of structure or of a static shape changes it.
std::string computeGraphFingerprint(func::FuncOp func);

/// Writes `profile` as JSON to `path`. Errors are reported at `loc`.
LogicalResult writeProfile(const Profile &profile, StringRef path,
                           Location loc);

/// Reads the profile at `path` and checks that it was recorded for `func`
/// (its fingerprint). Errors name the file and are reported at `loc`.
FailureOr<Profile> readProfile(StringRef path, func::FuncOp func, Location loc);

} // namespace mlir::nnaccel::calibration

#endif // NNACCEL_CALIBRATION_PROFILE_H
