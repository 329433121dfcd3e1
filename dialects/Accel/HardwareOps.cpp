//===- HardwareOps.cpp - precision, transfer and partition op rules -------===//
//
// Verifiers of quantize/dequantize/requantize/convert, card transfers and
// host partitions.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ShapeUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

static quant::QuantizedType getQuantElement(Value value) {
  return cast<quant::QuantizedType>(
      cast<RankedTensorType>(value.getType()).getElementType());
}

LogicalResult QuantizeOp::verify() {
  Type real = getInput().getType().getElementType();
  quant::QuantizedType quantized = getQuantElement(getResult());
  if (quantized.getExpressedType() != real)
    return emitOpError() << "result quantizes " << quantized.getExpressedType()
                         << " values but the input holds " << real;
  return success();
}

LogicalResult DequantizeOp::verify() {
  Type real = getResult().getType().getElementType();
  quant::QuantizedType quantized = getQuantElement(getInput());
  if (quantized.getExpressedType() != real)
    return emitOpError() << "input expresses " << quantized.getExpressedType()
                         << " values but the result holds " << real;
  return success();
}

LogicalResult RequantizeOp::verify() {
  quant::QuantizedType from = getQuantElement(getInput());
  quant::QuantizedType to = getQuantElement(getResult());
  if (from.getExpressedType() != to.getExpressedType())
    return emitOpError() << "input and result express different types: "
                         << from.getExpressedType() << " vs "
                         << to.getExpressedType();
  return success();
}

LogicalResult TransferOp::verify() {
  int64_t source = static_cast<int64_t>(getSource());
  int64_t destination = static_cast<int64_t>(getDestination());
  if (source < -1 || destination < -1)
    return emitOpError() << "cards are -1 (host) or a card index, got "
                         << source << " -> " << destination;
  if (source == destination)
    return emitOpError() << "source and destination are both card " << source;
  return success();
}

/// Checks a partition body against the partition's inputs and results.
static LogicalResult verifyPartitionBody(Operation *op, Block &body,
                                         ValueRange inputs,
                                         TypeRange resultTypes) {
  if (body.getNumArguments() != inputs.size())
    return op->emitOpError() << "body has " << body.getNumArguments()
                             << " arguments for " << inputs.size() << " inputs";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(body.getArgumentTypes(), inputs))) {
    auto [argType, input] = pair;
    if (argType != input.getType())
      return op->emitOpError()
             << "body argument #" << index << " has type " << argType
             << " but input #" << index << " is " << input.getType();
  }
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return op->emitOpError("body must end with accel.yield");
  if (yield.getValues().getTypes() != resultTypes)
    return op->emitOpError() << "yields " << yield.getValues().size()
                             << " values whose types differ from the results";
  return success();
}

LogicalResult HostPartitionOp::verifyRegions() {
  return verifyPartitionBody(*this, getBody().front(), getInputs(),
                             getResultTypes());
}

LogicalResult CardPartitionOp::verifyRegions() {
  if (static_cast<int64_t>(getCard()) < 0)
    return emitOpError() << "card must be a card index, got "
                         << static_cast<int64_t>(getCard());
  if (auto addresses = getInputAddresses();
      addresses && addresses->size() != getInputs().size())
    return emitOpError() << "has " << addresses->size()
                         << " input addresses for " << getInputs().size()
                         << " inputs";
  if (auto addresses = getOutputAddresses();
      addresses && addresses->size() != getNumResults())
    return emitOpError() << "has " << addresses->size()
                         << " output addresses for " << getNumResults()
                         << " results";
  return verifyPartitionBody(*this, getBody().front(), getInputs(),
                             getResultTypes());
}

SmallVector<CardTransfer>
mlir::nnaccel::accel::getCardTransfers(Operation *partition,
                                       StringRef attrName) {
  SmallVector<CardTransfer> transfers;
  if (auto entries = partition->getAttrOfType<DenseI64ArrayAttr>(attrName))
    for (int64_t i = 0; i + 3 < entries.size(); i += 4)
      transfers.push_back(
          {entries[i], entries[i + 1], entries[i + 2], entries[i + 3]});
  return transfers;
}

llvm::SmallDenseSet<int64_t, 4>
mlir::nnaccel::accel::getCardTransferIndices(Operation *partition,
                                             StringRef attrName) {
  llvm::SmallDenseSet<int64_t, 4> indices;
  for (const CardTransfer &transfer : getCardTransfers(partition, attrName))
    indices.insert(transfer.index);
  return indices;
}

bool mlir::nnaccel::accel::isPassedOnlyCardToCard(OpResult result) {
  if (!getCardTransferIndices(result.getOwner(),
                              AccelDialect::getSendsAttrName())
           .contains(int64_t(result.getResultNumber())))
    return false;
  return llvm::all_of(result.getUses(), [](OpOperand &use) {
    return isa<CardPartitionOp>(use.getOwner()) &&
           getCardTransferIndices(use.getOwner(),
                                  AccelDialect::getReceivesAttrName())
               .contains(int64_t(use.getOperandNumber()));
  });
}
