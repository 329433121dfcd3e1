//===- SequenceOps.cpp - embedding bags and recurrences -------------------===//
//
// Shape inference and verifiers of embedding_bag, lstm and gru. The
// recurrent ops follow ONNX layout 0; every operand shape is checked against
// the sizes implied by X, W and hidden_size.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

//===----------------------------------------------------------------------===//
// EmbeddingBagOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingBagOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto table = cast<RankedTensorType>(adaptor.getTable().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  if (table.getRank() != 2)
    return emitOptionalError(location,
                             "table must be rank 2 (rows x dim), "
                             "got ",
                             formatShape(table.getShape()));
  int64_t bags;
  Value segments =
      adaptor.getOffsets() ? adaptor.getOffsets() : adaptor.getLengths();
  if (adaptor.getOffsets() && adaptor.getLengths())
    return emitOptionalError(location,
                             "give either 'offsets' or 'lengths', not both");
  if (indices.getRank() == 2) {
    if (segments)
      return emitOptionalError(location, "2-D indices already define the bags;"
                                         " drop 'offsets'/'lengths'");
    bags = indices.getDimSize(0);
  } else if (indices.getRank() == 1) {
    if (!segments)
      return emitOptionalError(location, "1-D indices need 'offsets' or "
                                         "'lengths' to define the bags");
    auto segmentType = cast<RankedTensorType>(segments.getType());
    if (segmentType.getRank() != 1)
      return emitOptionalError(location,
                               "offsets/lengths must be rank 1, "
                               "got ",
                               formatShape(segmentType.getShape()));
    bags = segmentType.getDimSize(0);
  } else {
    return emitOptionalError(location, "indices must be rank 1 or 2, got ",
                             formatShape(indices.getShape()));
  }
  if (Value weights = adaptor.getPerSampleWeights()) {
    auto weightType = cast<RankedTensorType>(weights.getType());
    if (weightType.getShape() != indices.getShape())
      return emitOptionalError(location, "per_sample_weights shape ",
                               formatShape(weightType.getShape()),
                               " differs from the indices shape ",
                               formatShape(indices.getShape()));
  }
  // Rows of a rowwise-quantized table are dequantized and pooled in f32.
  Type element = table.getElementType();
  if (isa<RowwiseType>(element))
    element = Float32Type::get(context);
  inferred.push_back(
      RankedTensorType::get({bags, table.getDimSize(1)}, element));
  return success();
}

LogicalResult EmbeddingBagOp::verify() {
  if (getMode() == BagMode::mean &&
      isa<IntegerType>(getTable().getType().getElementType()))
    return emitOpError("mean pooling needs a real or quantized table");
  return verifyRowwiseTableOperand(*this, getTable());
}

//===----------------------------------------------------------------------===//
// Recurrent ops
//===----------------------------------------------------------------------===//

namespace {
/// The sizes every recurrent operand is checked against.
struct RecurrentSizes {
  int64_t seq, batch, input, hidden, directions;
  Type elementType;
};
} // namespace

/// Checks that `value` (if present) has exactly `expected` shape and the
/// element type of X.
static LogicalResult checkOperand(std::optional<Location> location,
                                  StringRef name, Value value,
                                  ArrayRef<int64_t> expected,
                                  const RecurrentSizes &sizes) {
  if (!value)
    return success();
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() != expected)
    return emitOptionalError(location, "'", name, "' must have shape ",
                             formatShape(expected), ", got ",
                             formatShape(type.getShape()));
  // W and R may be block floating point (accel-quantize-block-float) with
  // a float X.
  bool blockWeight = (name == "W" || name == "R") &&
                     isa<BlockFloatType>(type.getElementType());
  if (blockWeight && !isa<FloatType>(sizes.elementType))
    return emitOptionalError(location, "a block-float '", name,
                             "' needs a float X, got ", sizes.elementType);
  if (!blockWeight && type.getElementType() != sizes.elementType)
    return emitOptionalError(location, "'", name, "' element type ",
                             type.getElementType(), " differs from X's ",
                             sizes.elementType);
  return success();
}

/// Block-float W and R (accel-quantize-block-float) come together, in one
/// format: the kernels take one weight format for both.
static LogicalResult checkBlockWeights(std::optional<Location> location,
                                       Value w, Value r) {
  Type wt = getElementTypeOrSelf(w.getType()),
       rt = getElementTypeOrSelf(r.getType());
  if ((isa<BlockFloatType>(wt) || isa<BlockFloatType>(rt)) && wt != rt)
    return emitOptionalError(location,
                             "block-float W and R must have the same "
                             "format, got ",
                             wt, " and ", rt);
  return success();
}

/// Derives the recurrent sizes from X and the attributes.
static FailureOr<RecurrentSizes>
getRecurrentSizes(std::optional<Location> location, Value x, int64_t hiddenSize,
                  RNNDirection direction) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() != 3)
    return emitOptionalError(location, "X must be seq x batch x input, got ",
                             formatShape(type.getShape()));
  if (hiddenSize < 1)
    return emitOptionalError(location, "hidden_size must be positive, got ",
                             hiddenSize);
  return RecurrentSizes{type.getDimSize(0),
                        type.getDimSize(1),
                        type.getDimSize(2),
                        hiddenSize,
                        direction == RNNDirection::bidirectional ? 2 : 1,
                        type.getElementType()};
}

LogicalResult LSTMOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  FailureOr<RecurrentSizes> sizes = getRecurrentSizes(
      location, adaptor.getX(), static_cast<int64_t>(adaptor.getHiddenSize()),
      adaptor.getDirection());
  if (failed(sizes))
    return failure();
  int64_t d = sizes->directions, h = sizes->hidden, b = sizes->batch;
  if (failed(checkOperand(location, "W", adaptor.getW(),
                          {d, 4 * h, sizes->input}, *sizes)) ||
      failed(
          checkOperand(location, "R", adaptor.getR(), {d, 4 * h, h}, *sizes)) ||
      failed(checkBlockWeights(location, adaptor.getW(), adaptor.getR())) ||
      failed(checkOperand(location, "B", adaptor.getB(), {d, 8 * h}, *sizes)) ||
      failed(checkOperand(location, "initial_h", adaptor.getInitialH(),
                          {d, b, h}, *sizes)) ||
      failed(checkOperand(location, "initial_c", adaptor.getInitialC(),
                          {d, b, h}, *sizes)) ||
      failed(checkOperand(location, "P", adaptor.getP(), {d, 3 * h}, *sizes)))
    return failure();
  Type element = sizes->elementType;
  inferred.push_back(RankedTensorType::get({sizes->seq, d, b, h}, element));
  inferred.push_back(RankedTensorType::get({d, b, h}, element));
  inferred.push_back(RankedTensorType::get({d, b, h}, element));
  return success();
}

LogicalResult GRUOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  FailureOr<RecurrentSizes> sizes = getRecurrentSizes(
      location, adaptor.getX(), static_cast<int64_t>(adaptor.getHiddenSize()),
      adaptor.getDirection());
  if (failed(sizes))
    return failure();
  int64_t d = sizes->directions, h = sizes->hidden, b = sizes->batch;
  if (failed(checkOperand(location, "W", adaptor.getW(),
                          {d, 3 * h, sizes->input}, *sizes)) ||
      failed(
          checkOperand(location, "R", adaptor.getR(), {d, 3 * h, h}, *sizes)) ||
      failed(checkBlockWeights(location, adaptor.getW(), adaptor.getR())) ||
      failed(checkOperand(location, "B", adaptor.getB(), {d, 6 * h}, *sizes)) ||
      failed(checkOperand(location, "initial_h", adaptor.getInitialH(),
                          {d, b, h}, *sizes)))
    return failure();
  Type element = sizes->elementType;
  inferred.push_back(RankedTensorType::get({sizes->seq, d, b, h}, element));
  inferred.push_back(RankedTensorType::get({d, b, h}, element));
  return success();
}
