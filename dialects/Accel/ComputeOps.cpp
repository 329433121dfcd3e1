//===- ComputeOps.cpp - linear algebra, pooling, norms, reductions --------===//
//
// Shape inference and verifiers of the compute-heavy accel ops. Messages
// name the offending operand or attribute and its value so users can fix
// the model, not the compiler.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ShapeUtils.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lhs.getRank() < 1 || rhs.getRank() < 1)
    return emitOptionalError(location, "matmul operands must have rank >= 1");
  if (!areCompatibleElementTypes(lhs.getElementType(), rhs.getElementType()))
    return emitOptionalError(
        location, "operand element types differ: ", lhs.getElementType(),
        " vs ", rhs.getElementType());
  // Promote vectors to matrices as numpy does, and remember to drop the
  // added dimension again.
  SmallVector<int64_t> lhsShape(lhs.getShape()), rhsShape(rhs.getShape());
  bool lhsVector = lhsShape.size() == 1, rhsVector = rhsShape.size() == 1;
  if (lhsVector)
    lhsShape.insert(lhsShape.begin(), 1);
  if (rhsVector)
    rhsShape.push_back(1);
  int64_t m = lhsShape[lhsShape.size() - 2], k = lhsShape.back();
  int64_t rhsK = rhsShape[rhsShape.size() - 2], n = rhsShape.back();
  if (k != rhsK)
    return emitOptionalError(location, "contraction sizes differ: lhs ",
                             formatShape(lhs.getShape()), " has K = ", k,
                             ", rhs ", formatShape(rhs.getShape()),
                             " has K = ", rhsK);
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(
          ArrayRef<int64_t>(lhsShape).drop_back(2),
          ArrayRef<int64_t>(rhsShape).drop_back(2), batch))
    return emitOptionalError(location, "batch dimensions do not broadcast: ",
                             formatShape(lhs.getShape()), " and ",
                             formatShape(rhs.getShape()));
  if (!lhsVector)
    batch.push_back(m);
  if (!rhsVector)
    batch.push_back(n);
  inferred.push_back(RankedTensorType::get(batch, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// FullyConnectedOp
//===----------------------------------------------------------------------===//

LogicalResult FullyConnectedOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  if (input.getRank() != 2 || weight.getRank() != 2)
    return emitOptionalError(location, "input and weight must be rank 2, got ",
                             formatShape(input.getShape()), " and ",
                             formatShape(weight.getShape()));
  // A block-float weight (!accel.bfp, accel-quantize-block-float) is
  // N x K, blocks along K, and multiplies a float input.
  bool blockWeight = isa<BlockFloatType>(weight.getElementType());
  if (blockWeight && (!isa<FloatType>(input.getElementType()) ||
                      !adaptor.getTransposeWeight()))
    return emitOptionalError(location,
                             "a block-float weight must be N x K "
                             "(transpose_weight) and multiply a float "
                             "input, got input ",
                             input.getElementType());
  if (!blockWeight && !areCompatibleElementTypes(input.getElementType(),
                                                 weight.getElementType()))
    return emitOptionalError(location,
                             "input and weight element types "
                             "differ: ",
                             input.getElementType(), " vs ",
                             weight.getElementType());
  bool transA = adaptor.getTransposeInput();
  bool transB = adaptor.getTransposeWeight();
  int64_t m = input.getDimSize(transA ? 1 : 0);
  int64_t k = input.getDimSize(transA ? 0 : 1);
  int64_t weightK = weight.getDimSize(transB ? 1 : 0);
  int64_t n = weight.getDimSize(transB ? 0 : 1);
  if (k != weightK)
    return emitOptionalError(location, "contraction sizes differ: input ",
                             formatShape(input.getShape()), " gives K = ", k,
                             ", weight ", formatShape(weight.getShape()),
                             " gives K = ", weightK);
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    SmallVector<int64_t> broadcast;
    if (biasType.getRank() > 2 ||
        !OpTrait::util::getBroadcastedShape(biasType.getShape(), {m, n},
                                            broadcast) ||
        broadcast != SmallVector<int64_t>{m, n})
      return emitOptionalError(
          location, "bias of shape ", formatShape(biasType.getShape()),
          " does not broadcast to the ", m, "x", n, " result");
  }
  // A quantized product is dequantized by default: the result is real.
  Type element = input.getElementType();
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    element = quantized.getExpressedType();
  inferred.push_back(RankedTensorType::get({m, n}, element));
  return success();
}

/// Result types of a quantized product (fully_connected, conv): the real
/// result may instead be requantized to a quantized type of its own.
static bool areCompatibleProductTypes(TypeRange inferred, TypeRange actual) {
  if (inferred.size() == 1 && actual.size() == 1) {
    auto real = dyn_cast<RankedTensorType>(inferred.front());
    auto result = dyn_cast<RankedTensorType>(actual.front());
    if (real && result && real.getShape() == result.getShape())
      if (auto quantized =
              dyn_cast<quant::QuantizedType>(result.getElementType()))
        return quantized.getExpressedType() == real.getElementType();
  }
  return areCompatibleResultTypes(inferred, actual);
}

bool FullyConnectedOp::isCompatibleReturnTypes(TypeRange inferred,
                                               TypeRange actual) {
  return areCompatibleProductTypes(inferred, actual);
}

bool ConvOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {
  return areCompatibleProductTypes(inferred, actual);
}

/// Checks the operands of a quantized product (fully_connected, conv): a
/// per-tensor quantized 8-bit input, a symmetric signed weight quantized per
/// tensor or per output (along `outputAxis` of the weight), and a bias that
/// is real or the i32 accumulator's quantization (scale input x weight, zero
/// point 0). `outputs` is the number of outputs, `outputName` what messages
/// call one ("column", "channel").
static LogicalResult verifyQuantizedOperands(Operation *op, Value input,
                                             Value weight, Value bias,
                                             int64_t outputAxis,
                                             int64_t outputs,
                                             StringRef outputName) {
  auto inputType = dyn_cast<quant::UniformQuantizedType>(
      getElementTypeOrSelf(input.getType()));
  if (!inputType)
    return op->emitOpError("a quantized input must be quantized per tensor");
  if (inputType.getStorageTypeIntegralWidth() != 8)
    return op->emitOpError("a quantized input must be stored in 8 bits");
  auto weightType =
      dyn_cast<quant::QuantizedType>(getElementTypeOrSelf(weight.getType()));
  if (!weightType || !weightType.isSigned())
    return op->emitOpError("a quantized input needs a signed quantized weight");
  if (weightType.getExpressedType() != inputType.getExpressedType())
    return op->emitOpError("input and weight express different real types");
  SmallVector<double> weightScales;
  if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(weightType)) {
    if (perTensor.getZeroPoint() != 0)
      return op->emitOpError("weight zero point must be 0 (symmetric)");
    weightScales.push_back(perTensor.getScale());
  } else if (auto perAxis =
                 dyn_cast<quant::UniformQuantizedPerAxisType>(weightType)) {
    if (perAxis.getQuantizedDimension() != outputAxis)
      return op->emitOpError()
             << "weight must be quantized per output " << outputName
             << " (axis " << outputAxis << "), not along axis "
             << perAxis.getQuantizedDimension();
    if (llvm::any_of(perAxis.getZeroPoints(),
                     [](int64_t zeroPoint) { return zeroPoint != 0; }))
      return op->emitOpError("weight zero points must be 0 (symmetric)");
    weightScales.assign(perAxis.getScales().begin(), perAxis.getScales().end());
  } else {
    return op->emitOpError("weight must be uniformly quantized");
  }
  if (!bias)
    return success();
  Type biasElement = getElementTypeOrSelf(bias.getType());
  if (biasElement == inputType.getExpressedType())
    return success();
  auto biasType = dyn_cast<quant::QuantizedType>(biasElement);
  if (!biasType || biasType.getStorageTypeIntegralWidth() != 32)
    return op->emitOpError("bias must be real or quantized to i32");
  // The accumulator's scale per output is input scale x weight scale.
  SmallVector<double> biasScales;
  SmallVector<int64_t> biasZeroPoints;
  if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(biasType)) {
    biasScales.push_back(perTensor.getScale());
    biasZeroPoints.push_back(perTensor.getZeroPoint());
  } else if (auto perAxis =
                 dyn_cast<quant::UniformQuantizedPerAxisType>(biasType)) {
    biasScales.assign(perAxis.getScales().begin(), perAxis.getScales().end());
    biasZeroPoints.assign(perAxis.getZeroPoints().begin(),
                          perAxis.getZeroPoints().end());
  }
  if (llvm::any_of(biasZeroPoints, [](int64_t zp) { return zp != 0; }))
    return op->emitOpError("an i32 bias must have zero point 0");
  for (int64_t c = 0; c < outputs; ++c) {
    double expected =
        inputType.getScale() * weightScales[weightScales.size() == 1 ? 0 : c];
    double actual = biasScales[biasScales.size() == 1 ? 0 : c];
    if (std::abs(actual - expected) > 1e-6 * std::abs(expected))
      return op->emitOpError()
             << "an i32 bias must have scale input scale x weight scale ("
             << expected << " for " << outputName << " " << c << "), got "
             << actual;
  }
  return success();
}

/// A quantized fully_connected: the product's operands, an untransposed
/// input and alpha = beta = 1.
static LogicalResult verifyQuantizedFullyConnected(FullyConnectedOp op) {
  if (op.getTransposeInput())
    return op.emitOpError("a quantized input cannot be transposed");
  if (!op.getAlpha().isExactlyValue(1.0) ||
      (op.getBias() && !op.getBeta().isExactlyValue(1.0)))
    return op.emitOpError("a quantized product takes alpha = beta = 1");
  return verifyQuantizedOperands(op, op.getInput(), op.getWeight(),
                                 op.getBias(), op.getTransposeWeight() ? 0 : 1,
                                 op.getType().getDimSize(1), "column");
}

LogicalResult FullyConnectedOp::verify() {
  bool quantizedInput =
      isa<quant::QuantizedType>(getElementTypeOrSelf(getInput().getType()));
  if (quantizedInput && failed(verifyQuantizedFullyConnected(*this)))
    return failure();
  if (!quantizedInput &&
      isa<quant::QuantizedType>(getElementTypeOrSelf(getType())))
    return emitOpError("only a quantized product has a quantized result");
  return verifyFusedActivation(*this, getActivation(), getActivationMin(),
                               getActivationMax());
}

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  if (input.getRank() < 3 || input.getRank() > 5)
    return emitOptionalError(location,
                             "input must be N x C x D1..Dk with k "
                             "in 1..3, got ",
                             formatShape(input.getShape()));
  // A block-float weight (accel-quantize-block-float) is F x K rows, K =
  // C/groups x the kernel's taps, blocks along K; `kernel_shape` keeps the
  // kernel's spatial size.
  const bool blockWeight = isa<BlockFloatType>(weight.getElementType());
  std::optional<ArrayRef<int64_t>> kernelShape = adaptor.getKernelShape();
  const int64_t spatial = input.getRank() - 2;
  if (blockWeight) {
    if (!isa<FloatType>(input.getElementType()))
      return emitOptionalError(location,
                               "a block-float weight multiplies a float "
                               "input, got ",
                               input.getElementType());
    if (weight.getRank() != 2 || !kernelShape ||
        int64_t(kernelShape->size()) != spatial)
      return emitOptionalError(
          location,
          "a block-float weight must be F x K with a kernel_shape of ", spatial,
          " entries, got ", formatShape(weight.getShape()));
  } else {
    if (kernelShape)
      return emitOptionalError(location,
                               "kernel_shape is only for a block-float "
                               "weight (F x K); this weight's shape is the "
                               "kernel's");
    if (weight.getRank() != input.getRank())
      return emitOptionalError(location, "weight rank ", weight.getRank(),
                               " differs from input rank ", input.getRank());
    if (!areCompatibleElementTypes(input.getElementType(),
                                   weight.getElementType()))
      return emitOptionalError(location,
                               "input and weight element types "
                               "differ: ",
                               input.getElementType(), " vs ",
                               weight.getElementType());
  }
  int64_t groups = adaptor.getGroups();
  int64_t channels = input.getDimSize(1), filters = weight.getDimSize(0);
  if (groups < 1 || channels % groups != 0 || filters % groups != 0)
    return emitOptionalError(location, "groups = ", groups,
                             " must divide input channels (", channels,
                             ") and filters (", filters, ")");
  if (blockWeight) {
    int64_t taps = 1;
    for (int64_t k : *kernelShape)
      taps *= k;
    if (llvm::any_of(*kernelShape, [](int64_t k) { return k < 1; }) ||
        weight.getDimSize(1) != channels / groups * taps)
      return emitOptionalError(
          location, "a block-float weight has K = ", weight.getDimSize(1),
          ", expected ", channels / groups, " channels per group x ", taps,
          " taps of kernel_shape ", formatShape(*kernelShape));
  } else if (weight.getDimSize(1) * groups != channels) {
    return emitOptionalError(location, "weight has ", weight.getDimSize(1),
                             " channels per group, expected ",
                             channels / groups, " (", channels,
                             " input channels / ", groups, " groups)");
  }
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != filters)
      return emitOptionalError(location, "bias must have shape ", filters,
                               ", got ", formatShape(biasType.getShape()));
  }
  WindowParams params{
      blockWeight ? *kernelShape : weight.getShape().drop_front(2),
      adaptor.getStrides(), adaptor.getPads(), adaptor.getDilations()};
  SmallVector<int64_t> shape{input.getDimSize(0), filters};
  if (failed(inferWindowOutput(location, input.getShape().drop_front(2), params,
                               shape)))
    return failure();
  // A quantized convolution is dequantized by default: the result is real.
  Type element = input.getElementType();
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    element = quantized.getExpressedType();
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

SmallVector<int64_t> ConvOp::getKernelSpatialShape() {
  if (std::optional<ArrayRef<int64_t>> shape = getKernelShape())
    return SmallVector<int64_t>(*shape);
  return SmallVector<int64_t>(
      cast<ShapedType>(getWeight().getType()).getShape().drop_front(2));
}

bool ConvOp::hasBlockWeight() {
  return isa<BlockFloatType>(getElementTypeOrSelf(getWeight().getType()));
}

LogicalResult ConvOp::verify() {
  // Quantized: the weight is F x C/groups x K..., quantized per output
  // channel along axis 0 (or per tensor).
  bool quantizedInput =
      isa<quant::QuantizedType>(getElementTypeOrSelf(getInput().getType()));
  if (quantizedInput &&
      failed(verifyQuantizedOperands(*this, getInput(), getWeight(), getBias(),
                                     /*outputAxis=*/0, getType().getDimSize(1),
                                     "channel")))
    return failure();
  // A real convolution may quantize its result (the quantize of an int8
  // consumer, fused into its epilogue), per tensor.
  if (!quantizedInput &&
      isa<quant::QuantizedType>(getElementTypeOrSelf(getType())) &&
      !isa<quant::UniformQuantizedType>(getElementTypeOrSelf(getType())))
    return emitOpError("a real convolution's quantized result must be "
                       "quantized per tensor");
  return verifyFusedActivation(*this, getActivation(), getActivationMin(),
                               getActivationMax());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Shared inference of max_pool and avg_pool.
static LogicalResult inferPool(std::optional<Location> location, Value input,
                               const WindowParams &params,
                               SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() < 3 || type.getRank() > 5)
    return emitOptionalError(location,
                             "input must be N x C x D1..Dk with k "
                             "in 1..3, got ",
                             formatShape(type.getShape()));
  SmallVector<int64_t> shape(type.getShape().take_front(2));
  if (failed(inferWindowOutput(location, type.getShape().drop_front(2), params,
                               shape)))
    return failure();
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  WindowParams params{adaptor.getKernelShape(), adaptor.getStrides(),
                      adaptor.getPads(), adaptor.getDilations(),
                      adaptor.getCeilMode()};
  return inferPool(location, adaptor.getInput(), params, inferred);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  WindowParams params{adaptor.getKernelShape(),
                      adaptor.getStrides(),
                      adaptor.getPads(),
                      {},
                      adaptor.getCeilMode()};
  return inferPool(location, adaptor.getInput(), params, inferred);
}

LogicalResult GlobalAvgPoolOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  if (type.getRank() < 3 || type.getRank() > 5)
    return emitOptionalError(location,
                             "input must be N x C x D1..Dk with k "
                             "in 1..3, got ",
                             formatShape(type.getShape()));
  SmallVector<int64_t> shape(type.getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::verify() {
  auto type = getInput().getType();
  if (type.getRank() < 2)
    return emitOpError() << "input must have a channel dimension, got "
                         << formatShape(type.getShape());
  int64_t channels = type.getDimSize(1);
  const StringRef names[] = {"scale", "bias", "mean", "variance"};
  const Value params[] = {getScale(), getBias(), getMean(), getVariance()};
  for (auto [name, value] : llvm::zip(names, params)) {
    auto paramType = cast<RankedTensorType>(value.getType());
    if (paramType.getRank() != 1 || paramType.getDimSize(0) != channels)
      return emitOpError() << "'" << name << "' must have shape " << channels
                           << " (the channel count), got "
                           << formatShape(paramType.getShape());
    if (paramType.getElementType() != type.getElementType())
      return emitOpError() << "'" << name << "' element type "
                           << paramType.getElementType()
                           << " differs from the input's "
                           << type.getElementType();
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto type = getInput().getType();
  std::optional<int64_t> axis =
      normalizeAxis(static_cast<int64_t>(getAxis()), type.getRank());
  if (!axis)
    return emitOpError() << "axis " << static_cast<int64_t>(getAxis())
                         << " is out of range for rank " << type.getRank();
  ArrayRef<int64_t> normalized = type.getShape().drop_front(*axis);
  for (Value param : {getScale(), getBias()}) {
    if (!param)
      continue;
    auto paramType = cast<RankedTensorType>(param.getType());
    StringRef name = param == getScale() ? "scale" : "bias";
    if (paramType.getShape() != normalized)
      return emitOpError() << name << " must have shape "
                           << formatShape(normalized)
                           << " (the normalised dimensions), got "
                           << formatShape(paramType.getShape());
    if (paramType.getElementType() != type.getElementType())
      return emitOpError() << name << " element type "
                           << paramType.getElementType()
                           << " differs from the input's "
                           << type.getElementType();
  }
  return success();
}

/// Softmax and log-softmax share their axis rule.
template <typename OpTy> static LogicalResult verifySoftmaxAxis(OpTy op) {
  int64_t rank = op.getInput().getType().getRank();
  if (!normalizeAxis(static_cast<int64_t>(op.getAxis()), rank))
    return op.emitOpError() << "axis " << static_cast<int64_t>(op.getAxis())
                            << " is out of range for rank " << rank;
  return success();
}

LogicalResult SoftmaxOp::verify() { return verifySoftmaxAxis(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxAxis(*this); }

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Shared inference of reduce_sum/mean/max.
static LogicalResult inferReduce(std::optional<Location> location, Value input,
                                 ArrayRef<int64_t> axes, bool keepDims,
                                 SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized)
      return emitOptionalError(location, "axis ", axis,
                               " is out of range for rank ", rank);
    if (reduced[*normalized])
      return emitOptionalError(location, "axis ", axis, " is listed twice");
    reduced[*normalized] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      shape.push_back(type.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

#define NNACCEL_REDUCE_INFERENCE(OpTy)                                         \
  LogicalResult OpTy::inferReturnTypes(                                        \
      MLIRContext *context, std::optional<Location> location, Adaptor adaptor, \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReduce(location, adaptor.getInput(), adaptor.getAxes(),        \
                       adaptor.getKeepdims(), inferred);                       \
  }
NNACCEL_REDUCE_INFERENCE(ReduceSumOp)
NNACCEL_REDUCE_INFERENCE(ReduceMeanOp)
NNACCEL_REDUCE_INFERENCE(ReduceMaxOp)
NNACCEL_REDUCE_INFERENCE(ReduceProdOp)
#undef NNACCEL_REDUCE_INFERENCE
