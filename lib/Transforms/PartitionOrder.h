//===- PartitionOrder.h - op order that keeps card work together -*- C++
//-*-===//
//
// Partitions are runs of consecutive ops with one placement
// (accel-outline-partitions), and every boundary is a launch and a trip
// over the host link, so the passes that look at runs
// (accel-assign-placement's small data-movement runs, the outlining) first
// put host ops where they split nothing.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_TRANSFORMS_PARTITIONORDER_H
#define NNACCEL_LIB_TRANSFORMS_PARTITIONORDER_H

#include "mlir/IR/Block.h"

namespace mlir::nnaccel {

/// Moves the host ops that need nothing computed on a card (their operands
/// are function arguments, constants or results of such ops: integer index
/// arithmetic on the inputs, like the categorical offsets a wide&deep model
/// adds to its indices before the embedding gathers) to the start of the
/// block, in their order. Where they were, between card ops, each would end
/// a card partition and start another; at the start they are one host
/// partition before the card's work.
void hoistHostInputOps(Block &block);

} // namespace mlir::nnaccel

#endif // NNACCEL_LIB_TRANSFORMS_PARTITIONORDER_H
