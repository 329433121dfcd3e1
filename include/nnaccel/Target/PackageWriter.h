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
  /// Padding buckets: the name of the one bucketed dimension (empty: no
  /// buckets), the pad value and whether accel-mask-padding made the
  /// padding exact.
  std::string bucketName;
  double padValue = 0.0;
  bool exactPadding = false;
};

/// One compiled form of the model: `func` of `module` at one bucket size
/// (`bucket` = -1 without buckets).
struct PackageVariant {
  ModuleOp module;
  func::FuncOp func;
  std::string name;
  int64_t bucket = -1;
};

/// Writes `func` of `module` (after accel-outline-partitions and
/// accel-lower-to-npu) to `path`. Errors are reported at the offending op.
LogicalResult writePackage(ModuleOp module, func::FuncOp func,
                           const PackageWriterOptions &options, StringRef path);

/// Writes several variants of one model (padding buckets) into one package:
/// weights with equal bytes are stored once. The signature comes from the
/// functions' attributes: arguments with `accel.padded_axis` and results
/// with `accel.padded_axes` have that dimension bucketed, the argument with
/// `accel.valid_length` is the bucket's length input. The modules must stay
/// alive until the call returns.
LogicalResult writePackage(ArrayRef<PackageVariant> variants,
                           const PackageWriterOptions &options, StringRef path);

} // namespace mlir::nnaccel

#endif // NNACCEL_TARGET_PACKAGEWRITER_H
