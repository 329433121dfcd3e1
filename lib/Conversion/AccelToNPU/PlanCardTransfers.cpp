//===- PlanCardTransfers.cpp - accel-plan-card-transfers pass -------------===//
//
// Groups a function's card partitions into the launches the runtime runs
// (lib/Runtime/Session.cpp applies the same rule: consecutive card
// partitions of distinct cards whose host-bound inputs exist before the
// launch) and decides which values go card to card inside a launch. The
// rule lives in both places so that a package needs no launch table; the
// runtime reads no value it does not bind.
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

struct AccelPlanCardTransfersPass
    : mlir::nnaccel::impl::AccelPlanCardTransfersBase<
          AccelPlanCardTransfersPass> {
  using Base::Base;

  void runOnOperation() override {
    Block &block = getOperation().getBody().front();
    MLIRContext *context = &getContext();
    Builder builder(context);
    // The current launch: its partitions and their cards.
    llvm::DenseSet<Operation *> launch;
    std::set<int64_t> cards;
    int64_t launchIndex = -1;
    int64_t nextChannel = 0;
    llvm::DenseMap<Operation *, SmallVector<int64_t>> sends, receives;
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
        sends[producer].append({int64_t(result.getResultNumber()),
                                int64_t(partition.getCard()), channel});
        receives[&op].append(
            {int64_t(operand), int64_t(producer.getCard()), channel});
        ++numTransfers;
      }
    }
    for (auto &[op, triples] : sends)
      op->setAttr(AccelDialect::getSendsAttrName(),
                  builder.getDenseI64ArrayAttr(triples));
    for (auto &[op, triples] : receives)
      op->setAttr(AccelDialect::getReceivesAttrName(),
                  builder.getDenseI64ArrayAttr(triples));
  }
};

} // namespace
