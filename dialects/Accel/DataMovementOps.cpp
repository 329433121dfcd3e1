//===- DataMovementOps.cpp - layout and data movement op rules ------------===//
//
// Shape inference and verifiers of constants, reshapes, transposes, concat,
// slices, gathers, broadcasts and padding.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "Accel/ShapeUtils.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError() << "value type " << getValue().getType()
                         << " differs from the result type " << getType();
  // MLIR's dense attributes hold int or float elements; one "of" a
  // quantized or rowwise type parses to an empty buffer that every reader
  // would misread.
  if (isa<DenseElementsAttr>(getValue()) &&
      !getType().getElementType().isIntOrIndexOrFloat())
    return emitOpError() << "a dense attribute cannot hold "
                         << getType().getElementType()
                         << " elements; use dense_resource with their raw "
                            "bytes";
  if (!isa<RowwiseType>(getType().getElementType()))
    return success();
  // A rowwise table's bytes are a layout only the gather engine (and the
  // host's embedding kernels) read; anything else would misread them.
  for (OpOperand &use : getResult().getUses()) {
    Operation *user = use.getOwner();
    // Operand 0 is embedding_bag's table and gather's data.
    if (!isa<EmbeddingBagOp, GatherOp>(user) || use.getOperandNumber() != 0)
      return emitOpError() << "a rowwise-quantized table can only be the table "
                              "of accel.embedding_bag or the data of "
                              "accel.gather, not operand #"
                           << use.getOperandNumber() << " of '"
                           << user->getName() << "'";
  }
  if (getType().getRank() != 2)
    return emitOpError() << "a rowwise-quantized table must be rank 2 (rows x "
                            "dim), got "
                         << formatShape(getType().getShape());
  // Only resource blobs can hold the type (dense attributes need int or
  // float elements); a blob not loaded yet is checked by its readers.
  auto resource = dyn_cast<DenseResourceElementsAttr>(getValue());
  uint64_t expected = getDenseByteSize(getType());
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (blob && blob->getData().size() != expected)
    return emitOpError() << "holds " << blob->getData().size() << " bytes, but "
                         << getType().getDimSize(0) << " rows of "
                         << getType().getDimSize(1) << " "
                         << getType().getElementType() << " elements take "
                         << expected;
  return success();
}

LogicalResult mlir::nnaccel::accel::verifyRowwiseTableOperand(Operation *op,
                                                              Value table) {
  auto type = cast<RankedTensorType>(table.getType());
  if (!isa<RowwiseType>(type.getElementType()))
    return success();
  // The constant's verifier checks the rank.
  if (!table.getDefiningOp<ConstantOp>())
    return op->emitOpError("a rowwise-quantized table must be an "
                           "accel.constant (tables are quantized at compile "
                           "time)");
  return success();
}

void ConstantOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "cst");
}

//===----------------------------------------------------------------------===//
// ReshapeOp / ExpandOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "element type changes from "
                         << input.getElementType() << " to "
                         << result.getElementType();
  if (input.getNumElements() != result.getNumElements())
    return emitOpError() << "cannot reshape " << formatShape(input.getShape())
                         << " (" << input.getNumElements() << " elements) to "
                         << formatShape(result.getShape()) << " ("
                         << result.getNumElements() << " elements)";
  return success();
}

LogicalResult ExpandOp::verify() {
  auto input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "element type changes from "
                         << input.getElementType() << " to "
                         << result.getElementType();
  SmallVector<int64_t> broadcast;
  if (!OpTrait::util::getBroadcastedShape(input.getShape(), result.getShape(),
                                          broadcast) ||
      ArrayRef<int64_t>(broadcast) != result.getShape())
    return emitOpError() << "cannot broadcast " << formatShape(input.getShape())
                         << " to " << formatShape(result.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitOptionalError(location, "permutation has ", permutation.size(),
                             " entries for a rank-", rank, " input");
  SmallVector<bool> used(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank || used[dim]) {
      std::string text;
      llvm::raw_string_ostream os(text);
      llvm::interleaveComma(permutation, os);
      return emitOptionalError(location, "permutation [", text,
                               "] is not a permutation of 0..", rank - 1);
    }
    used[dim] = true;
    shape.push_back(type.getDimSize(dim));
  }
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(location, "concat needs at least one input");
  auto first = cast<RankedTensorType>(inputs.front().getType());
  std::optional<int64_t> axis =
      normalizeAxis(static_cast<int64_t>(adaptor.getAxis()), first.getRank());
  if (!axis)
    return emitOptionalError(location, "axis ",
                             static_cast<int64_t>(adaptor.getAxis()),
                             " is out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[*axis] = 0;
  for (auto [index, value] : llvm::enumerate(inputs)) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != first.getRank())
      return emitOptionalError(location, "input #", index, " has rank ",
                               type.getRank(), ", expected ", first.getRank());
    if (!areCompatibleElementTypes(type.getElementType(),
                                   first.getElementType()))
      return emitOptionalError(location, "input #", index, " has element type ",
                               type.getElementType(), ", expected ",
                               first.getElementType());
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (dim != *axis && type.getDimSize(dim) != first.getDimSize(dim))
        return emitOptionalError(
            location, "input #", index, " has shape ",
            formatShape(type.getShape()), " which differs from ",
            formatShape(first.getShape()), " outside axis ", *axis);
    }
    shape[*axis] += type.getDimSize(*axis);
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    steps = adaptor.getSteps();
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(ends.size()) != rank ||
      static_cast<int64_t>(steps.size()) != rank)
    return emitOptionalError(location,
                             "starts, ends and steps need one entry "
                             "per dimension (",
                             rank, ")");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = type.getDimSize(i), start = starts[i], end = ends[i],
            step = steps[i];
    if (step == 0)
      return emitOptionalError(location, "dimension ", i, ": step is 0");
    bool valid = step > 0 ? (0 <= start && start <= end && end <= dim)
                          : (-1 <= end && end <= start && start < dim);
    if (!valid)
      return emitOptionalError(location, "dimension ", i, ": slice [", start,
                               ":", end, ":", step,
                               "] is not normalised for size ", dim);
    int64_t count = step > 0 ? (end - start + step - 1) / step
                             : (start - end + (-step) - 1) / (-step);
    shape.push_back(count);
  }
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  std::optional<int64_t> axis =
      normalizeAxis(static_cast<int64_t>(adaptor.getAxis()), data.getRank());
  if (!axis)
    return emitOptionalError(location, "axis ",
                             static_cast<int64_t>(adaptor.getAxis()),
                             " is out of range for rank ", data.getRank());
  SmallVector<int64_t> shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  // Rows of a rowwise-quantized table come out dequantized.
  Type element = data.getElementType();
  if (isa<RowwiseType>(element))
    element = Float32Type::get(context);
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult GatherOp::verify() {
  std::optional<int64_t> axis = normalizeAxis(static_cast<int64_t>(getAxis()),
                                              getData().getType().getRank());
  if (isa<RowwiseType>(getData().getType().getElementType()) && axis &&
      *axis != 0)
    return emitOpError("gathers from a rowwise-quantized table take whole "
                       "rows (axis 0)");
  return verifyRowwiseTableOperand(*this, getData());
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return emitOptionalError(location, "'pads' needs ", 2 * rank,
                             " entries (begins then ends), got ", pads.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (pads[i] < 0 || pads[i + rank] < 0)
      return emitOptionalError(location, "dimension ", i,
                               ": pads must be non-negative");
    if (adaptor.getMode() == PadMode::reflect &&
        (pads[i] >= type.getDimSize(i) || pads[i + rank] >= type.getDimSize(i)))
      return emitOptionalError(location, "dimension ", i,
                               ": reflect padding must be smaller than the "
                               "size ",
                               type.getDimSize(i));
    shape.push_back(type.getDimSize(i) + pads[i] + pads[i + rank]);
  }
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}
