//===- PlanCardTransfers.cpp - accel-plan-card-transfers pass -------------===//
//
// Groups a function's card partitions into the launches the runtime runs
// (lib/Runtime/Session.cpp applies the same rule: consecutive card
// partitions of distinct cards whose host-bound inputs exist before the
// launch) and decides which values go card to card inside a launch. The
// rule lives in both places so that a package needs no launch table; the
// runtime reads no value it does not bind.
//
// Each value that goes card to card gets an accel.transfer (with its
// channel) between the two partitions.
//
// A value one recurrent layer makes step by step and the next card's
// recurrent layer reads step by step goes in pieces, one per time step, so
// that the layers pipeline across the cards (Brainwave's and Intel's
// multi-FPGA LSTMs): the producing kernel sends h_t as soon as it has it,
// and the consuming kernel receives a chunk of steps right before its
// input product needs them.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Conversion/Passes.h"

#include "Accel/AccelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

#include <set>

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELPLANCARDTRANSFERS
#include "nnaccel/Conversion/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

/// `value` through the layout-preserving reshapes that make it: row-major
/// bytes are the same, so a piece of one is a piece of the other.
Value getBeforeReshapes(Value value) {
  while (auto reshape = value.getDefiningOp<ReshapeOp>())
    value = reshape.getInput();
  return value;
}

/// The op that reads `value`, through reshapes, when it is the only reader.
Operation *getOnlyReader(Value value) {
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    auto reshape = dyn_cast<ReshapeOp>(user);
    if (!reshape)
      return user;
    value = reshape.getResult();
  }
  return nullptr;
}

/// True when `op` is a one-direction forward lstm/gru and `value` its Y:
/// it makes the steps in order.
bool makesStepsInOrder(Operation *op, Value value) {
  auto inOrder = [&](auto rnn) {
    return rnn.getY() == value && rnn.getDirection() == RNNDirection::forward;
  };
  if (auto lstm = dyn_cast_or_null<LSTMOp>(op))
    return inOrder(lstm);
  if (auto gru = dyn_cast_or_null<GRUOp>(op))
    return inOrder(gru);
  return false;
}

/// The messages a value `producer` yields as result `resultIndex`, and
/// `consumer` reads as operand `operandIndex`, is cut into: a time step
/// each when an lstm/gru makes it in step order and another lstm/gru is its
/// only reader, as its input sequence; else 1.
int64_t getTransferPieces(CardPartitionOp producer, unsigned resultIndex,
                          CardPartitionOp consumer, unsigned operandIndex) {
  auto yield = cast<YieldOp>(producer.getBody().front().getTerminator());
  Value made = getBeforeReshapes(yield.getOperand(resultIndex));
  if (!makesStepsInOrder(made.getDefiningOp(), made))
    return 1;
  Operation *reader =
      getOnlyReader(consumer.getBody().front().getArgument(operandIndex));
  if (!isa_and_nonnull<LSTMOp, GRUOp>(reader))
    return 1;
  return cast<RankedTensorType>(made.getType()).getDimSize(0);
}

struct AccelPlanCardTransfersPass
    : mlir::nnaccel::impl::AccelPlanCardTransfersBase<
          AccelPlanCardTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    Block &block = getOperation().getBody().front();
    OpBuilder builder(&getContext());
    // The current launch: its partitions and their cards.
    llvm::DenseSet<Operation *> launch;
    std::set<int64_t> cards;
    int64_t launchIndex = -1;
    int64_t nextChannel = 0;
    for (Operation &op : block) {
      if (isa<HostPartitionOp>(op)) {
        launch.clear();
        cards.clear();
        continue;
      }
      auto partition = dyn_cast<CardPartitionOp>(op);
      if (!partition)
        continue;
      // Operands made by a partition of the current launch.
      SmallVector<std::pair<unsigned, OpResult>> fromLaunch;
      for (OpOperand &operand : op.getOpOperands())
        if (auto result = dyn_cast<OpResult>(operand.get());
            result && launch.contains(result.getOwner()))
          fromLaunch.push_back({operand.getOperandNumber(), result});
      bool joins = !launch.empty() && !cards.count(partition.getCard()) &&
                   (p2p || fromLaunch.empty());
      if (!joins) {
        launch.clear();
        cards.clear();
        fromLaunch.clear();
        ++launchIndex;
        ++numLaunches;
      }
      launch.insert(&op);
      cards.insert(partition.getCard());
      op.setAttr(AccelDialect::getLaunchAttrName(),
                 builder.getI64IntegerAttr(launchIndex));
      for (auto [operand, result] : fromLaunch) {
        auto producer = cast<CardPartitionOp>(result.getOwner());
        int64_t channel = nextChannel++;
        if (channel > 0xFFFF) {
          op.emitError() << "more than 65536 values passed card to card";
          return signalPassFailure();
        }
        int64_t pieces = getTransferPieces(producer, result.getResultNumber(),
                                           partition, operand);
        builder.setInsertionPoint(&op);
        auto transfer = builder.create<TransferOp>(
            op.getLoc(), result.getType(), result,
            builder.getI64IntegerAttr(producer.getCard()),
            builder.getI64IntegerAttr(partition.getCard()),
            builder.getI64IntegerAttr(channel),
            builder.getI64IntegerAttr(pieces));
        op.setOperand(operand, transfer.getResult());
        numStreamed += pieces > 1;
        ++numTransfers;
      }
    }
  }
};

} // namespace
