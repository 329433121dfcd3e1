//===- Passes.td - nnaccel conversion passes ---------------*- tablegen -*-===//
//
// Passes that lower accel IR towards the NPU ISA.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CONVERSION_PASSES_TD
#define NNACCEL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def AccelLowerToNPU : Pass<"accel-lower-to-npu", "ModuleOp"> {
  let summary = "Lower card partitions to per-core npu programs";
  let description = [{
    For every `accel.card_partition`: plans the card's DRAM (inputs,
    weights, results and intermediates; intermediates reuse space after
    their last use), generates each op's kernel for the target (tiling to
    the native dimension, double-buffered on-chip memories, dependency
    tokens between the ld/ex/st queues) into one `npu.program` per core,
    added at module level and listed in the partition's `programs`. Input and output
    addresses are recorded on the partition, weight addresses as
    `accel.dram_address` on the constants. Weights that the matrix unit needs
    transposed are transposed at compile time.

    Every op in a card partition must be lowerable (accel-assign-placement
    guarantees it); anything else is an error naming the op.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"default\"",
           "Target description: a name in targets/ or a JSON path">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect",
                           "::mlir::nnaccel::npu::NPUDialect"];
  let statistics = [
    Statistic<"numInstructions", "instructions", "NPU instructions emitted">,
    Statistic<"dramBytes", "dram-bytes", "Card DRAM bytes planned">
  ];
}

#endif // NNACCEL_CONVERSION_PASSES_TD
