//===- PackageWriter.h - compiled module to a model package -----*- C++ -*-===//
//
// Serialises a compiled accel module (host and card partitions, lowered
// npu programs, weights) into the package format of include/nnaccel/Package
// that the runtime loads.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TARGET_PACKAGEWRITER_H
#define NNACCEL_TARGET_PACKAGEWRITER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::nnaccel {

struct PackageWriterOptions {
  std::string modelName;
  /// Text of the target description JSON the programs were compiled for.
  std::string targetJson;
  /// Final IR, stored for debugging (may be empty).
  std::string irText;
};

/// Writes `func` of `module` (after accel-outline-partitions and
/// accel-lower-to-npu) to `path`. Errors are reported at the offending op.
LogicalResult writePackage(ModuleOp module, func::FuncOp func,
                           const PackageWriterOptions &options, StringRef path);

} // namespace mlir::nnaccel

#endif // NNACCEL_TARGET_PACKAGEWRITER_H
