//===- PartitionOrder.cpp - op order that keeps card work together --------===//
//
// See PartitionOrder.h.
//
//===----------------------------------------------------------------------===//

#include "PartitionOrder.h"

#include "Accel/AccelOps.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

void mlir::nnaccel::hoistHostInputOps(Block &block) {
  llvm::SmallPtrSet<Operation *, 8> hoisted;
  auto readyAtEntry = [&](Operation *op) {
    return llvm::all_of(op->getOperands(), [&](Value operand) {
      Operation *def = operand.getDefiningOp();
      return !def || isa<ConstantOp>(def) || hoisted.contains(def);
    });
  };
  SmallVector<Operation *> moved;
  for (Operation &op : block.without_terminator()) {
    auto placement =
        op.getAttrOfType<PlacementAttr>(AccelDialect::getPlacementAttrName());
    if (placement && placement.getCard() < 0 && op.getNumRegions() == 0 &&
        !isa<ConstantOp, HostPartitionOp>(op) && readyAtEntry(&op)) {
      hoisted.insert(&op);
      moved.push_back(&op);
    }
  }
  if (moved.empty())
    return;
  // In their order at the start of the block, each after the constants it
  // reads (constants are not partitioned: outlining clones them).
  Operation *anchor = &block.front();
  auto place = [&](Operation *op) {
    if (op == anchor)
      anchor = op->getNextNode();
    else
      op->moveBefore(anchor);
  };
  for (Operation *op : moved) {
    for (Value operand : op->getOperands())
      if (auto constant = operand.getDefiningOp<ConstantOp>();
          constant && !constant->isBeforeInBlock(anchor))
        place(constant);
    place(op);
  }
}
