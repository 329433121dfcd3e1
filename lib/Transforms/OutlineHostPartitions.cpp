//===- OutlineHostPartitions.cpp - accel-outline-host-partitions pass -----===//
//
// Wraps each run of consecutive host-placed ops in an accel.host_partition
// so the host/card split is explicit in the IR: the package writer emits one
// host partition per region, and the report counts them.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "Accel/AccelOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#define DEBUG_TYPE "accel-outline-host-partitions"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELOUTLINEHOSTPARTITIONS
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {
bool isHostPlaced(Operation *op) {
  auto placement = op->getAttrOfType<PlacementAttr>(
      AccelDialect::getPlacementAttrName());
  return placement && placement.getCard() == -1 &&
         !isa<ConstantOp, HostPartitionOp>(op);
}

/// Outlines `run` (consecutive host ops of one block, constants aside) into
/// a host partition placed right after its last op.
void outline(ArrayRef<Operation *> run) {
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
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inRun.contains(user);
          }))
        outputs.push_back(result);

  Operation *last = run.back();
  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  std::string reason = llvm::join(reasons, "; ");
  auto partition = builder.create<HostPartitionOp>(
      last->getLoc(), ValueRange(outputs).getTypes(), inputs.getArrayRef(),
      builder.getStringAttr(reason));
  Block *body = builder.createBlock(&partition.getBody());
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

  for (auto [output, result] : llvm::zip(outputs, partition.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !inRun.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(run))
    op->erase();
  for (Operation *constant : constants)
    if (constant->use_empty())
      constant->erase();
}

struct AccelOutlineHostPartitionsPass
    : nnaccel::impl::AccelOutlineHostPartitionsBase<
          AccelOutlineHostPartitionsPass> {
  void runOnOperation() override {
    SmallVector<SmallVector<Operation *>> runs;
    for (Block &block : getOperation().getBody()) {
      SmallVector<Operation *> current;
      for (Operation &op : block) {
        if (isHostPlaced(&op)) {
          current.push_back(&op);
        } else if (!isa<ConstantOp>(op) && !current.empty()) {
          runs.push_back(std::move(current));
          current.clear();
        }
      }
      if (!current.empty())
        runs.push_back(std::move(current));
    }
    for (ArrayRef<Operation *> run : runs) {
      outline(run);
      ++numPartitions;
    }
  }
};
} // namespace
