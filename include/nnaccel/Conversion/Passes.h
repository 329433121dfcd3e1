//===- Passes.h - nnaccel conversion passes ---------------------*- C++ -*-===//
//
// Pass constructors and registration for lib/Conversion.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CONVERSION_PASSES_H
#define NNACCEL_CONVERSION_PASSES_H

#include "Accel/AccelDialect.h"
#include "NPU/NPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::nnaccel {

#define GEN_PASS_DECL
#include "nnaccel/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nnaccel/Conversion/Passes.h.inc"

} // namespace mlir::nnaccel

#endif // NNACCEL_CONVERSION_PASSES_H
