//===- Passes.h - nnaccel graph passes --------------------------*- C++ -*-===//
//
// Pass constructors and registration for lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TRANSFORMS_PASSES_H
#define NNACCEL_TRANSFORMS_PASSES_H

#include "Accel/AccelDialect.h"
#include "NPU/NPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::nnaccel {

#define GEN_PASS_DECL
#include "nnaccel/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nnaccel/Transforms/Passes.h.inc"

/// Idiom-recognition patterns, for drivers that want them without the pass.
void populateAccelIdiomPatterns(RewritePatternSet &patterns);

} // namespace mlir::nnaccel

#endif // NNACCEL_TRANSFORMS_PASSES_H
