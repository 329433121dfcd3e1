//===- OutlinePartitions.cpp - accel-outline-partitions pass --------------===//
//
// Wraps each run of consecutive ops with the same placement in a partition
// op, so the host/card split is explicit in the IR: the NPU lowering works
// on card partitions, the package writer emits one partition per region,
// and the report counts them.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "DeadConstants.h"
#include "PartitionOrder.h"

#include "Accel/AccelOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#define DEBUG_TYPE "accel-outline-partitions"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELOUTLINEPARTITIONS
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {
/// The card an op is placed on (-1: host), or nullopt for ops that are not
/// partitioned (constants, partitions, unplaced ops).
std::optional<int64_t> getPlacementCard(Operation *op) {
  if (isa<ConstantOp, HostPartitionOp, CardPartitionOp>(op))
    return std::nullopt;
  auto placement =
      op->getAttrOfType<PlacementAttr>(AccelDialect::getPlacementAttrName());
  if (!placement)
    return std::nullopt;
  return placement.getCard();
}

/// Outlines `run` (consecutive ops of one block with the same placement,
/// constants aside) into a partition placed right after its last op.
void outline(ArrayRef<Operation *> run, int64_t card) {
  llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> constants;
  llvm::SetVector<StringRef> reasons;
  for (Operation *op : run) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && inRun.contains(def))
        continue;
      if (def && isa<ConstantOp>(def))
        constants.insert(def);
      else
        inputs.insert(operand);
    }
    if (auto reason = op->getAttrOfType<StringAttr>(
            AccelDialect::getHostReasonAttrName()))
      reasons.insert(reason.getValue());
  }
  SmallVector<Value> outputs;
  for (Operation *op : run)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inRun.contains(user); }))
        outputs.push_back(result);

  Operation *last = run.back();
  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  TypeRange resultTypes = ValueRange(outputs).getTypes();
  Operation *partition;
  Region *bodyRegion;
  if (card < 0) {
    auto host = builder.create<HostPartitionOp>(
        last->getLoc(), resultTypes, inputs.getArrayRef(),
        builder.getStringAttr(llvm::join(reasons, "; ")));
    partition = host;
    bodyRegion = &host.getBody();
  } else {
    auto cardOp = builder.create<CardPartitionOp>(
        last->getLoc(), resultTypes, inputs.getArrayRef(), card,
        /*programs=*/ArrayAttr(), /*setup_programs=*/ArrayAttr(),
        DenseI64ArrayAttr(), DenseI64ArrayAttr());
    partition = cardOp;
    bodyRegion = &cardOp.getBody();
  }
  Block *body = builder.createBlock(bodyRegion);
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  builder.setInsertionPointToStart(body);
  for (Operation *constant : constants)
    builder.clone(*constant, mapping);
  for (Operation *op : run)
    builder.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  builder.create<YieldOp>(last->getLoc(), yielded);

  for (auto [output, result] : llvm::zip(outputs, partition->getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !inRun.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(run))
    op->erase();
  eraseUnusedOps(constants.getArrayRef());
}

struct AccelOutlinePartitionsPass
    : mlir::nnaccel::impl::AccelOutlinePartitionsBase<
          AccelOutlinePartitionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<SmallVector<Operation *>, int64_t>> runs;
    for (Block &block : getOperation().getBody())
      mlir::nnaccel::hoistHostInputOps(block);
    for (Block &block : getOperation().getBody()) {
      SmallVector<Operation *> current;
      int64_t currentCard = 0;
      auto flush = [&]() {
        if (!current.empty())
          runs.push_back({std::move(current), currentCard});
        current.clear();
      };
      for (Operation &op : block) {
        std::optional<int64_t> card = getPlacementCard(&op);
        if (!card) {
          // Constants do not break a run; anything else unplaced does.
          if (!isa<ConstantOp>(op))
            flush();
          continue;
        }
        if (!current.empty() && *card != currentCard)
          flush();
        currentCard = *card;
        current.push_back(&op);
      }
      flush();
    }
    for (auto &[run, card] : runs) {
      outline(run, card);
      if (card < 0)
        ++numHostPartitions;
      else
        ++numCardPartitions;
    }
  }
};
} // namespace
