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
  int64_t pieces = static_cast<int64_t>(getPieces());
  auto type = cast<RankedTensorType>(getInput().getType());
  if (pieces < 1 ||
      (pieces > 1 && (!type.hasStaticShape() || type.getRank() == 0 ||
                      type.getDimSize(0) % pieces != 0)))
    return emitOpError() << "pieces must be 1 or divide the leading "
                            "dimension, got "
                         << pieces << " for " << type;
  std::optional<uint64_t> channel = getChannel();
  if (!channel)
    return pieces == 1 ? success()
                       : emitOpError("is cut into pieces but has no channel");
  // A planned card-to-card transfer: between two cards' partitions.
  if (*channel > 0xFFFF || source < 0 || destination < 0)
    return emitOpError() << "a card-to-card transfer needs two cards and a "
                            "16-bit channel, got "
                         << source << " -> " << destination << " on channel "
                         << *channel;
  auto producer = getInput().getDefiningOp<CardPartitionOp>();
  if (!producer || int64_t(producer.getCard()) != source)
    return emitOpError() << "on a channel must take a result of a card "
                            "partition on card "
                         << source;
  for (Operation *user : getResult().getUsers()) {
    auto consumer = dyn_cast<CardPartitionOp>(user);
    if (!consumer || int64_t(consumer.getCard()) != destination)
      return emitOpError() << "on a channel must be read only by card "
                              "partitions on card "
                           << destination;
  }
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

/// The planned card-to-card transfer `op` is, if it is one.
static TransferOp asCardToCard(Operation *op) {
  auto transfer = dyn_cast_or_null<TransferOp>(op);
  return transfer && transfer.getChannel() ? transfer : TransferOp();
}

SmallVector<CardTransfer>
mlir::nnaccel::accel::getCardReceives(CardPartitionOp partition) {
  SmallVector<CardTransfer> transfers;
  for (auto [index, input] : llvm::enumerate(partition.getInputs()))
    if (TransferOp transfer = asCardToCard(input.getDefiningOp()))
      transfers.push_back({int64_t(index), int64_t(transfer.getSource()),
                           int64_t(*transfer.getChannel()),
                           int64_t(transfer.getPieces())});
  return transfers;
}

SmallVector<CardTransfer>
mlir::nnaccel::accel::getCardSends(CardPartitionOp partition) {
  SmallVector<CardTransfer> transfers;
  for (OpResult result : partition->getResults())
    for (Operation *user : result.getUsers())
      if (TransferOp transfer = asCardToCard(user))
        transfers.push_back({int64_t(result.getResultNumber()),
                             int64_t(transfer.getDestination()),
                             int64_t(*transfer.getChannel()),
                             int64_t(transfer.getPieces())});
  return transfers;
}

llvm::SmallDenseSet<int64_t, 4>
mlir::nnaccel::accel::getReceivedOperands(CardPartitionOp partition) {
  llvm::SmallDenseSet<int64_t, 4> indices;
  for (const CardTransfer &transfer : getCardReceives(partition))
    indices.insert(transfer.index);
  return indices;
}

bool mlir::nnaccel::accel::isPassedOnlyCardToCard(OpResult result) {
  return !result.use_empty() &&
         llvm::all_of(result.getUsers(),
                      [](Operation *user) { return bool(asCardToCard(user)); });
}
