//===- ImporterContext.h - shared state of the ONNX importer ----*- C++ -*-===//
//
// The per-node view that op converters work with: typed access to the
// node's inputs and attributes, constant-input evaluation (ONNX exports
// compute shapes at run time; with static shapes those become constants),
// and result registration. Internal to lib/Import/ONNX.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_IMPORT_ONNX_IMPORTERCONTEXT_H
#define NNACCEL_LIB_IMPORT_ONNX_IMPORTERCONTEXT_H

#include "Accel/AccelOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <memory>
#include <optional>

namespace mlir::nnaccel::onnx_import {

class NodeContext;

/// Converts one ONNX node; reports failures at the node's location.
using ConverterFn = std::function<LogicalResult(NodeContext &)>;

/// A converter with the opset range it implements (inclusive).
struct Converter {
  int64_t minOpset = 1;
  ConverterFn convert;
};

/// op type -> converters, newest last.
using ConverterTable = llvm::StringMap<SmallVector<Converter, 2>>;

void registerElementwiseConverters(ConverterTable &table);
void registerNNConverters(ConverterTable &table);
void registerTensorConverters(ConverterTable &table);
void registerRecurrentConverters(ConverterTable &table);
void registerDecomposedConverters(ConverterTable &table);
void registerQuantConverters(ConverterTable &table);
void registerIndexingConverters(ConverterTable &table);
void registerSpatialConverters(ConverterTable &table);
void registerLossConverters(ConverterTable &table);

/// The placement hint of a node's NodeOpt_NNACCEL_* attributes (null when
/// it has none); malformed values are errors at `loc`.
FailureOr<accel::HintAttr> readNodeHints(const onnx::NodeProto &node,
                                         StringRef name, Location loc);

/// Converts an ONNX tensor to an elements attribute. Large tensors become
/// `dense_resource` blobs that share memory with the protobuf (kept alive by
/// `protoOwner`; null to copy) or the memory-mapped external data file.
FailureOr<ElementsAttr>
importTensor(const onnx::TensorProto &tensor, StringRef baseDir,
             const std::shared_ptr<const void> &protoOwner,
             MLIRContext *context, Location loc);

/// Maps an ONNX element type to MLIR; null when unsupported.
Type convertElementType(int32_t onnxType, MLIRContext *context);

/// Name of an ONNX data type for diagnostics.
StringRef onnxTypeName(int32_t onnxType);

/// The largest tensor the importer accepts: 1 TiB of elements. Larger
/// shapes (2^60 elements, say) are refused before anything is sized from
/// them, so later element and byte counts cannot overflow.
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 40;

/// Fails, naming `what`, when a tensor of `shape` and `elementType` (an
/// int/float type) would exceed kMaxTensorBytes or has a negative dimension.
LogicalResult checkTensorSize(ArrayRef<int64_t> shape, Type elementType,
                              const Twine &what, Location loc);

/// Values by ONNX name while a graph is imported.
using ValueMap = llvm::StringMap<Value>;

class NodeContext {
public:
  NodeContext(const onnx::NodeProto &node, StringRef name, int64_t opset,
              OpBuilder &builder, ValueMap &values, Location loc)
      : node(node), name(name.str()), opset(opset), builder(builder),
        values(values), loc(loc) {}

  const onnx::NodeProto &getNode() const { return node; }
  int64_t getOpset() const { return opset; }
  OpBuilder &getBuilder() { return builder; }
  Location getLoc() const { return loc; }
  MLIRContext *getContext() { return builder.getContext(); }

  /// Reports an error at the node, prefixed with its name and op type.
  InFlightDiagnostic emitError();

  /// Number of inputs, counting empty (omitted optional) names.
  int64_t getNumInputs() const { return node.input_size(); }
  bool hasInput(int64_t index) const {
    return index < node.input_size() && !node.input(index).empty();
  }
  /// The input value; null when omitted.
  Value getInput(int64_t index) const;
  /// The input as a ranked tensor type (inputs always are).
  RankedTensorType getInputType(int64_t index) const;

  /// Reads a constant integer input (shape, axes, pads...). Reports an error
  /// naming `what` when the input is not a compile-time constant.
  FailureOr<SmallVector<int64_t>> getConstantInts(int64_t index,
                                                  StringRef what);
  /// Reads a constant integer or float input as doubles (Range bounds,
  /// OneHot depth, Resize scales).
  FailureOr<SmallVector<double>> getConstantValues(int64_t index,
                                                   StringRef what);
  /// Reads a constant float scalar input (e.g. Clip bounds).
  FailureOr<float> getConstantFloat(int64_t index, StringRef what);

  const onnx::AttributeProto *getAttr(StringRef name) const;
  int64_t getIntAttr(StringRef name, int64_t defaultValue) const;
  float getFloatAttr(StringRef name, float defaultValue) const;
  std::string getStringAttr(StringRef name, StringRef defaultValue) const;
  std::optional<SmallVector<int64_t>> getIntsAttr(StringRef name) const;
  std::optional<SmallVector<float>> getFloatsAttr(StringRef name) const;
  std::optional<SmallVector<std::string>> getStringsAttr(StringRef name) const;

  /// Binds output `index` to `value` (skipped when the output is unnamed).
  void setOutput(int64_t index, Value value);
  /// Binds output 0 to `value`, or fails when building it failed.
  LogicalResult setSingleOutput(FailureOr<Value> value) {
    if (failed(value))
      return failure();
    setOutput(0, *value);
    return success();
  }
  /// `name = value`, for the attribute list of an op being built.
  NamedAttribute named(StringRef name, Attribute value) {
    return builder.getNamedAttr(name, value);
  }
  int64_t getNumOutputs() const { return node.output_size(); }
  bool hasOutput(int64_t index) const {
    return index < node.output_size() && !node.output(index).empty();
  }

  /// Builds an op, folding it when its operands are constants.
  template <typename OpTy, typename... Args> Value create(Args &&...args) {
    return builder.createOrFold<OpTy>(loc, std::forward<Args>(args)...);
  }

  /// Creates a type-inferring accel op from operands and attributes. The
  /// result types come from the op's own shape inference, whose errors are
  /// reported at the node (never a crash); the op is folded when possible.
  template <typename OpTy>
  FailureOr<SmallVector<Value>> createInferred(ValueRange operands,
                                               ArrayRef<NamedAttribute> attrs,
                                               unsigned numResults = 1) {
    return createInferredImpl(OpTy::getOperationName(), operands, attrs,
                              numResults, &OpTy::inferReturnTypes);
  }
  template <typename OpTy>
  FailureOr<Value> createInferred1(ValueRange operands,
                                   ArrayRef<NamedAttribute> attrs = {}) {
    FailureOr<SmallVector<Value>> results =
        createInferred<OpTy>(operands, attrs, 1);
    if (failed(results))
      return failure();
    return results->front();
  }

  /// An i64 / f32 constant tensor.
  Value createI64Constant(ArrayRef<int64_t> values,
                          std::optional<ArrayRef<int64_t>> shape = {});
  Value createF32Constant(ArrayRef<float> values, ArrayRef<int64_t> shape);
  /// Reshape `value` to `shape` (no-op when equal).
  Value reshape(Value value, ArrayRef<int64_t> shape);

  /// Directory of the model, for external data.
  std::string baseDir;

private:
  using InferFn = LogicalResult (*)(MLIRContext *, std::optional<Location>,
                                    ValueRange, DictionaryAttr,
                                    OpaqueProperties, RegionRange,
                                    SmallVectorImpl<Type> &);
  FailureOr<SmallVector<Value>>
  createInferredImpl(StringRef opName, ValueRange operands,
                     ArrayRef<NamedAttribute> attrs, unsigned numResults,
                     InferFn infer);

  const onnx::NodeProto &node;
  std::string name;
  int64_t opset;
  OpBuilder &builder;
  ValueMap &values;
  Location loc;
};

/// An accel.conv of `input` and `weight` (and `bias` unless null) with the
/// node's Conv attributes (kernel_shape, strides, pads or auto_pad,
/// dilations, group): Conv, ConvInteger and QLinearConv share them.
FailureOr<Value> createConvFromNode(NodeContext &ctx, Value input, Value weight,
                                    Value bias);

/// Normalises an ONNX axis attribute against `rank`, reporting errors.
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank,
                                 StringRef what = "axis");

} // namespace mlir::nnaccel::onnx_import

#endif // NNACCEL_LIB_IMPORT_ONNX_IMPORTERCONTEXT_H
