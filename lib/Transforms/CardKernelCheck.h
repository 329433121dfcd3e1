//===- CardKernelCheck.h - Does the card take an op? ------------*- C++ -*-===//
//
// The rewrites before placement (accel-align-matmuls, accel-unbatch-convs)
// keep a rewrite only when the card kernels accept what it made, and make
// nothing that --force-host would keep off the card; they ask these.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_TRANSFORMS_CARDKERNELCHECK_H
#define NNACCEL_LIB_TRANSFORMS_CARDKERNELCHECK_H

#include "Accel/AccelOps.h"

#include "nnaccel/ISA/Target.h"

#include <initializer_list>
#include <string>

namespace mlir::nnaccel {

/// True when `op` has a card kernel that accepts it on `target`.
inline bool isAcceptedOnCard(Operation *op,
                             const ::nnaccel::isa::TargetDesc &target) {
  auto kernel = dyn_cast<accel::CardKernelOpInterface>(op);
  std::string reason;
  return kernel && succeeded(kernel.checkCardKernel(target, reason));
}

/// True when one of the ops named `made` is forced to the host
/// (`forceHost`, the passes' force-host option): a rewrite that makes
/// them would move work off the card, and does not run.
template <typename Names>
bool makesHostForcedOps(const Names &forceHost,
                        std::initializer_list<StringRef> made) {
  return llvm::any_of(made, [&](StringRef name) {
    return llvm::is_contained(forceHost, name);
  });
}

} // namespace mlir::nnaccel

#endif // NNACCEL_LIB_TRANSFORMS_CARDKERNELCHECK_H
