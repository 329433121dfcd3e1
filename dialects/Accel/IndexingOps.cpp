//===- IndexingOps.cpp - arg/top_k/gather_elements/... and host-only ops --===//
//
// Shape inference and verifiers of the ops in AccelIndexingOps.td, and the
// verifiers of the host-only elementwise and compute ops added with them
// (mod, conv_transpose, resize) and reduce_prod's inference.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ShapeUtils.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

static LogicalResult axisError(std::optional<Location> location, int64_t axis,
                               int64_t rank) {
  return emitOptionalError(location, "axis ", axis,
                           " is out of range for rank ", rank);
}

/// The input shape with `axis` replaced by `size`, or dropped when `size`
/// is negative.
static SmallVector<int64_t> replaceDim(ArrayRef<int64_t> shape, int64_t axis,
                                       int64_t size) {
  SmallVector<int64_t> result(shape.take_front(axis));
  if (size >= 0)
    result.push_back(size);
  llvm::append_range(result, shape.drop_front(axis + 1));
  return result;
}

static LogicalResult inferArgReduce(MLIRContext *context,
                                    std::optional<Location> location,
                                    Value input, int64_t axis, bool keepDims,
                                    SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(input.getType());
  std::optional<int64_t> normalized = normalizeAxis(axis, type.getRank());
  if (!normalized)
    return axisError(location, axis, type.getRank());
  inferred.push_back(RankedTensorType::get(
      replaceDim(type.getShape(), *normalized, keepDims ? 1 : -1),
      IntegerType::get(context, 64)));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduce(context, location, adaptor.getInput(),
                        adaptor.getAxis(), adaptor.getKeepdims(), inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduce(context, location, adaptor.getInput(),
                        adaptor.getAxis(), adaptor.getKeepdims(), inferred);
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t axis = adaptor.getAxis();
  std::optional<int64_t> normalized = normalizeAxis(axis, type.getRank());
  if (!normalized)
    return axisError(location, axis, type.getRank());
  int64_t k = adaptor.getK();
  if (k < 0 || k > type.getDimSize(*normalized))
    return emitOptionalError(location, "k = ", k, " is out of range for ",
                             type.getDimSize(*normalized), " elements");
  SmallVector<int64_t> shape = replaceDim(type.getShape(), *normalized, k);
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  inferred.push_back(
      RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis();
  if (!normalizeAxis(axis, data.getRank()))
    return axisError(location, axis, data.getRank());
  if (indices.getRank() != data.getRank())
    return emitOptionalError(location, "indices have rank ", indices.getRank(),
                             ", data rank ", data.getRank());
  inferred.push_back(
      RankedTensorType::get(indices.getShape(), data.getElementType()));
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  int64_t axis = adaptor.getAxis();
  if (!normalizeAxis(axis, data.getRank()))
    return axisError(location, axis, data.getRank());
  inferred.push_back(data);
  return success();
}

LogicalResult ScatterElementsOp::verify() {
  auto data = getData().getType();
  auto indices = getIndices().getType();
  auto updates = getUpdates().getType();
  if (indices.getShape() != updates.getShape())
    return emitOpError("indices and updates differ in shape");
  if (indices.getRank() != data.getRank())
    return emitOpError("indices have rank ")
           << indices.getRank() << ", data rank " << data.getRank();
  if (updates.getElementType() != data.getElementType())
    return emitOpError("updates and data differ in element type");
  if (!llvm::is_contained({"none", "add", "mul", "max", "min"}, getReduction()))
    return emitOpError("unknown reduction '") << getReduction() << "'";
  return success();
}

LogicalResult CumSumOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (!normalizeAxis(getAxis(), rank))
    return emitOpError("axis ")
           << getAxis() << " is out of range for rank " << rank;
  return success();
}

LogicalResult ModOp::verify() {
  Type element = getLhs().getType().getElementType();
  if (element != getRhs().getType().getElementType())
    return emitOpError("operand element types differ");
  if (isa<FloatType>(element) && !getFmod())
    return emitOpError("a float remainder needs fmod (ONNX Mod fmod = 1)");
  return success();
}

LogicalResult ConvTransposeOp::verify() {
  auto input = getInput().getType();
  auto weight = getWeight().getType();
  int64_t k = input.getRank() - 2;
  if (k < 1 || weight.getRank() != input.getRank())
    return emitOpError("needs N x C x D1..Dk input and weight of equal rank");
  if (int64_t(getStrides().size()) != k ||
      int64_t(getDilations().size()) != k || int64_t(getPads().size()) != 2 * k)
    return emitOpError("strides and dilations need ")
           << k << " entries and pads " << 2 * k;
  if (getGroups() < 1 || input.getDimSize(1) != weight.getDimSize(0) ||
      input.getDimSize(1) % int64_t(getGroups()) != 0)
    return emitOpError("input channels must equal the weight's first "
                       "dimension and divide by groups");
  auto result = getResult().getType();
  if (result.getRank() != input.getRank() ||
      result.getDimSize(1) != weight.getDimSize(1) * int64_t(getGroups()))
    return emitOpError("result must have weight.dim(1) x groups channels");
  return success();
}

LogicalResult ResizeOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (int64_t(getScales().size()) != rank)
    return emitOpError("needs one scale per dimension");
  if (!llvm::is_contained({"nearest", "linear", "cubic"}, getMode()))
    return emitOpError("unknown mode '") << getMode() << "'";
  if (getRoi() && int64_t(getRoi()->size()) != 2 * rank)
    return emitOpError("roi needs 2 x rank entries");
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t batch = adaptor.getBatchDims();
  if (indices.getRank() < 1)
    return emitOptionalError(location, "indices need rank >= 1");
  int64_t k = indices.getShape().back();
  if (batch < 0 || batch >= std::min(data.getRank(), indices.getRank()) ||
      batch + k > data.getRank())
    return emitOptionalError(location, "indices of depth ", k,
                             " with batch_dims ", batch, " do not fit rank ",
                             data.getRank());
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(batch + k));
  inferred.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  auto updates = cast<RankedTensorType>(adaptor.getUpdates().getType());
  if (indices.getRank() < 1 || indices.getShape().back() > data.getRank())
    return emitOptionalError(location, "indices do not fit the data rank");
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected,
                     data.getShape().drop_front(indices.getShape().back()));
  if (updates.getShape() != ArrayRef<int64_t>(expected))
    return emitOptionalError(location, "updates have the wrong shape");
  inferred.push_back(data);
  return success();
}

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext *context,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto grid = cast<RankedTensorType>(adaptor.getGrid().getType());
  if (input.getRank() != 4 || grid.getRank() != 4 || grid.getDimSize(3) != 2 ||
      grid.getDimSize(0) != input.getDimSize(0))
    return emitOptionalError(location, "expects an N x C x H x W input and "
                                       "an N x Hout x Wout x 2 grid");
  inferred.push_back(
      RankedTensorType::get({input.getDimSize(0), input.getDimSize(1),
                             grid.getDimSize(1), grid.getDimSize(2)},
                            input.getElementType()));
  return success();
}

LogicalResult DetOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t rank = type.getRank();
  if (rank < 2 || type.getDimSize(rank - 1) != type.getDimSize(rank - 2))
    return emitOptionalError(location, "expects ... x M x M matrices");
  inferred.push_back(RankedTensorType::get(type.getShape().drop_back(2),
                                           type.getElementType()));
  return success();
}
