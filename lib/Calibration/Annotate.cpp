//===- Annotate.cpp - Calibrated ranges into the IR -----------------------===//
//
// Ops with several results are profiled but not annotated: one range per op
// is the contract, and no multi-result op is quantised.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Annotate.h"

#include "Accel/AccelOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::calibration;

unsigned
mlir::nnaccel::calibration::annotateRanges(func::FuncOp func,
                                           const Profile &profile,
                                           const CalibratorOptions &options) {
  Builder builder(func.getContext());
  StringRef name = accel::AccelDialect::getRangeAttrName();
  unsigned annotated = 0, missing = 0;
  std::string firstMissing;
  for (const auto &[value, key] : getProfiledValues(func)) {
    auto result = dyn_cast<OpResult>(value);
    if (result && result.getOwner()->getNumResults() != 1)
      continue;
    auto stats = profile.values.find(key);
    if (stats == profile.values.end() || stats->second.empty()) {
      if (!missing++)
        firstMissing = key.describe();
      continue;
    }
    Range range = computeRange(stats->second, options);
    auto attr = builder.getDenseF64ArrayAttr({range.lo, range.hi});
    if (result)
      result.getOwner()->setAttr(name, attr);
    else
      func.setArgAttr(cast<BlockArgument>(value).getArgNumber(), name, attr);
    ++annotated;
  }
  if (missing)
    emitWarning(func.getLoc())
        << missing << " value(s) have no calibration statistics and get no '"
        << name << "' (the first: " << firstMissing << ")";
  return annotated;
}
