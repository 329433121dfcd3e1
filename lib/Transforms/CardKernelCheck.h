//===- CardKernelCheck.h - Does the card take an op? ------------*- C++ -*-===//
//
// The rewrites before placement (accel-align-matmuls, accel-unbatch-convs)
// keep a rewrite only when the card kernels accept what it made; they ask
// this.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_TRANSFORMS_CARDKERNELCHECK_H
#define NNACCEL_LIB_TRANSFORMS_CARDKERNELCHECK_H

#include "Accel/AccelOps.h"

#include "nnaccel/ISA/Target.h"

#include <string>

namespace mlir::nnaccel {

/// True when `op` has a card kernel that accepts it on `target`.
inline bool isAcceptedOnCard(Operation *op,
                             const ::nnaccel::isa::TargetDesc &target) {
  auto kernel = dyn_cast<accel::CardKernelOpInterface>(op);
  std::string reason;
  return kernel && succeeded(kernel.checkCardKernel(target, reason));
}

} // namespace mlir::nnaccel

#endif // NNACCEL_LIB_TRANSFORMS_CARDKERNELCHECK_H
