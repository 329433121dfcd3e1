//===- ShapeInference.cpp - shared accel shape rules ----------------------===//
//
// The shape rules more than one op family uses: numpy broadcasting, windowed
// output sizes, and the result-type compatibility of type-inferring ops.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ShapeUtils.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

std::string mlir::nnaccel::accel::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

std::optional<int64_t> mlir::nnaccel::accel::normalizeAxis(int64_t axis,
                                                           int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

int64_t mlir::nnaccel::accel::getNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

bool mlir::nnaccel::accel::areCompatibleElementTypes(Type lhs, Type rhs) {
  return lhs == rhs ||
         (isa<quant::QuantizedType>(lhs) && isa<quant::QuantizedType>(rhs));
}

bool mlir::nnaccel::accel::areCompatibleResultTypes(TypeRange inferred,
                                                    TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [lhs, rhs] : llvm::zip(inferred, actual)) {
    auto lhsType = dyn_cast<RankedTensorType>(lhs);
    auto rhsType = dyn_cast<RankedTensorType>(rhs);
    if (!lhsType || !rhsType)
      return lhs == rhs;
    if (lhsType.getShape() != rhsType.getShape() ||
        !areCompatibleElementTypes(lhsType.getElementType(),
                                   rhsType.getElementType()))
      return false;
  }
  return true;
}

LogicalResult mlir::nnaccel::accel::inferBroadcastResult(
    std::optional<Location> location, ArrayRef<Type> operandTypes,
    Type resultElementType, SmallVectorImpl<Type> &inferred,
    size_t firstValue) {
  SmallVector<int64_t> shape;
  Type elementType;
  for (auto [index, type] : llvm::enumerate(operandTypes)) {
    auto tensor = getRankedType(type);
    if (!tensor)
      return emitOptionalError(location, "operand #", index,
                               " must be a ranked tensor");
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, tensor.getShape(), next))
      return emitOptionalError(
          location, "operand shapes do not broadcast: ", formatShape(shape),
          " and ", formatShape(tensor.getShape()), " (operand #", index, ")");
    shape = std::move(next);
    if (index < firstValue)
      continue;
    if (!elementType) {
      elementType = tensor.getElementType();
    } else if (!areCompatibleElementTypes(elementType,
                                          tensor.getElementType())) {
      return emitOptionalError(location,
                               "operand element types differ: ", elementType,
                               " vs ", tensor.getElementType());
    }
  }
  inferred.push_back(RankedTensorType::get(
      shape, resultElementType ? resultElementType : elementType));
  return success();
}

LogicalResult mlir::nnaccel::accel::inferWindowOutput(
    std::optional<Location> location, ArrayRef<int64_t> inputSpatial,
    const WindowParams &params, SmallVectorImpl<int64_t> &outputSpatial) {
  size_t rank = inputSpatial.size();
  if (rank < 1 || rank > 3)
    return emitOptionalError(location,
                             "expected 1 to 3 spatial dimensions, "
                             "got ",
                             rank);
  if (params.kernel.size() != rank)
    return emitOptionalError(location, "kernel has ", params.kernel.size(),
                             " dimensions but the input has ", rank,
                             " spatial dimensions");
  if (params.strides.size() != rank)
    return emitOptionalError(location, "'strides' needs ", rank,
                             " entries, got ", params.strides.size());
  if (params.pads.size() != 2 * rank)
    return emitOptionalError(location, "'pads' needs ", 2 * rank,
                             " entries (begins then ends), got ",
                             params.pads.size());
  if (!params.dilations.empty() && params.dilations.size() != rank)
    return emitOptionalError(location, "'dilations' needs ", rank,
                             " entries, got ", params.dilations.size());
  for (size_t i = 0; i < rank; ++i) {
    int64_t stride = params.strides[i];
    int64_t dilation = params.dilations.empty() ? 1 : params.dilations[i];
    int64_t kernel = params.kernel[i];
    int64_t padBegin = params.pads[i], padEnd = params.pads[i + rank];
    if (kernel < 1 || stride < 1 || dilation < 1)
      return emitOptionalError(location, "spatial dimension ", i,
                               ": kernel, stride and dilation must be "
                               "positive");
    if (padBegin < 0 || padEnd < 0)
      return emitOptionalError(location, "spatial dimension ", i,
                               ": pads must be non-negative");
    int64_t effectiveKernel = dilation * (kernel - 1) + 1;
    int64_t padded = inputSpatial[i] + padBegin + padEnd;
    if (padded < effectiveKernel)
      return emitOptionalError(
          location, "spatial dimension ", i, ": window of extent ",
          effectiveKernel, " does not fit the padded input of size ", padded);
    int64_t span = padded - effectiveKernel;
    int64_t size =
        (params.ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
    // With ceil_mode the last window must start inside the input or the
    // begin padding (ONNX and PyTorch drop a window starting in the end pad).
    if (params.ceilMode && (size - 1) * stride >= inputSpatial[i] + padBegin)
      --size;
    outputSpatial.push_back(size);
  }
  return success();
}
