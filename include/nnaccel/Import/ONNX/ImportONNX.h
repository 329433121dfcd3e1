//===- ImportONNX.h - ONNX to accel importer --------------------*- C++ -*-===//
//
// Entry points of the ONNX importer: binary `.onnx` files (with external
// data), ONNX text format, and in-memory ModelProtos, imported into a
// `func.func` of statically shaped `accel` ops.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_IMPORT_ONNX_IMPORTONNX_H
#define NNACCEL_IMPORT_ONNX_IMPORTONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::nnaccel {

struct ONNXImportOptions {
  /// Static shapes for graph inputs, by input name; required for inputs
  /// with symbolic (dim_param) or unknown dimensions.
  llvm::StringMap<SmallVector<int64_t>> inputShapes;
  /// Padding buckets: input name -> (axis, padded size). The axis gets the
  /// size (it must be symbolic or already equal) and the function argument
  /// `accel.padded_axis = axis`, for accel-mask-padding.
  llvm::StringMap<std::pair<int64_t, int64_t>> paddedDims;
  /// Graph inputs bound to constants: input name -> ONNX TensorProto file
  /// (`.pb`). A bound input is no longer an input of the function; the
  /// importer sees its value, so it may feed operands that must be
  /// compile-time constants (shapes, axes, pads, ...). The package is
  /// specialised to that value.
  llvm::StringMap<std::string> boundInputs;
  /// Name of the generated function.
  std::string functionName = "main";
  /// Run the idiom recognisers (embedding bags, layer norm, GELU) and
  /// canonicalisation after import.
  bool recognizeIdioms = true;
};

/// Parses `--bind-input` syntax: `name=path.pb,other=path2.pb`.
LogicalResult parseBoundInputs(StringRef spec,
                               llvm::StringMap<std::string> &bound,
                               std::string &error);

/// Parses `--input-shape` syntax: `name:1x37,other:4x8`. Reports errors
/// through `error`.
LogicalResult parseInputShapes(StringRef text,
                               llvm::StringMap<SmallVector<int64_t>> &shapes,
                               std::string &error);

/// Imports an ONNX model file: binary protobuf, or ONNX text format when
/// the content does not parse as protobuf and looks like text. External
/// data files are resolved relative to the model's directory.
OwningOpRef<ModuleOp> importONNXFile(StringRef path, MLIRContext *context,
                                     const ONNXImportOptions &options);

/// Imports a model from a buffer holding binary or text ONNX. `modelPath`
/// names it in locations and anchors external data.
OwningOpRef<ModuleOp> importONNXBuffer(StringRef buffer, StringRef modelPath,
                                       MLIRContext *context,
                                       const ONNXImportOptions &options);

/// Registers the dialects the importer produces.
void registerONNXImportDialects(DialectRegistry &registry);

} // namespace mlir::nnaccel

#endif // NNACCEL_IMPORT_ONNX_IMPORTONNX_H
