//===- Pipelines.h - nnaccel pass pipelines ---------------------*- C++ -*-===//
//
// The pass pipelines users run by name (`nnaccel-opt --nnaccel-lower`) and
// that nnaccel-compile builds, so both lower models the same way.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_PIPELINES_PIPELINES_H
#define NNACCEL_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::nnaccel {

struct LowerPipelineOptions : public PassPipelineOptions<LowerPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target description (a name in targets/ or a JSON "
                     "path) to record in the module's npu.target first; "
                     "empty: keep the module's")};
  Option<int64_t> card{*this, "card",
                       llvm::cl::desc("Card that card-placed ops go to"),
                       llvm::cl::init(0)};
  Option<unsigned> cards{
      *this, "cards",
      llvm::cl::desc("Cards that accel-partition-cards may spread a model "
                     "over when it does not fit one (0: all of the "
                     "target's)"),
      llvm::cl::init(0)};
  Option<bool> p2p{
      *this, "p2p",
      llvm::cl::desc("Pass values between card partitions that run side by "
                     "side card to card (send/recv) instead of through the "
                     "host"),
      llvm::cl::init(true)};
  Option<unsigned> cores{
      *this, "cores",
      llvm::cl::desc("Cores per card that accel-split-ops divides ops "
                     "across (0: all of the target's; 1: no splitting)"),
      llvm::cl::init(0)};
  ListOption<std::string> forceHost{
      *this, "force-host",
      llvm::cl::desc("Op names (e.g. accel.softmax) to keep on the host")};
  Option<std::string> quantize{
      *this, "quantize",
      llvm::cl::desc("Quantization modes, comma-separated: int8 "
                     "(accel-quantize from the calibrated ranges in the IR, "
                     "and 8-bit rowwise embedding tables), int4-fc "
                     "(with int8: 4-bit fully_connected / matmul weights), "
                     "int4-emb or "
                     "int8-emb (the embedding tables, "
                     "accel-quantize-embeddings; int4-emb with int8 gives "
                     "4-bit tables), fp16 or bf16 (accel-apply-precision "
                     "for the whole model); empty for none")};
  Option<std::string> quantizeScheme{
      *this, "quantize-scheme",
      llvm::cl::desc("int8 activations: symmetric (i8, u8 for "
                     "non-negative ranges) or asymmetric (u8 with a zero "
                     "point): accel-quantize's scheme"),
      llvm::cl::init("symmetric")};
  Option<std::string> placement{
      *this, "placement",
      llvm::cl::desc("A placement file (JSON) whose hints accel-load-placement "
                     "attaches before placement; empty: none")};
  Option<bool> pinWeights{
      *this, "pin-weights",
      llvm::cl::desc("Keep constant weights in the cores' matrix register "
                     "files across runs where they fit (accel-pin-weights)"),
      llvm::cl::init(true)};
  Option<bool> sharedConstants{
      *this, "shared-constants",
      llvm::cl::desc("With pin-weights, keep small constants (biases, "
                     "scales, depthwise taps) in the card's SHARED memory "
                     "across runs (accel-pin-weights)"),
      llvm::cl::init(true)};
  Option<bool> sharedIntermediates{
      *this, "shared-intermediates",
      llvm::cl::desc("Keep intermediates in the card's SHARED memory where "
                     "they fit (accel-plan-card-memory)"),
      llvm::cl::init(true)};
};

/// Placement and partitioning: accel-set-target (when a target is given),
/// accel-load-placement (when a placement file is given), accel-quantize
/// (quantize = int8; weight-bits = 4 with int4-fc), accel-quantize-embeddings
/// (bits = 4 for int4-emb, 8 for int8-emb and int8), then
/// accel-apply-precision, accel-assign-placement and accel-outline-partitions
/// on every function. After it, each op's home (card or host, and why) is
/// final.
void buildPartitionPipeline(OpPassManager &pm,
                            const LowerPipelineOptions &options);

/// The first half of buildPartitionPipeline: the target, the placement
/// file's hints and the precision passes (--quantize), stopping before
/// placement so that the result still runs in the calibration evaluator
/// (--quantize=auto's search).
void buildPrecisionPipeline(OpPassManager &pm,
                            const LowerPipelineOptions &options);

/// Cores for the card partitions' ops: accel-split-ops, then accel-place.
/// After it, each card op's cores and modelled schedule are final.
void buildCoreSchedulePipeline(OpPassManager &pm,
                               const LowerPipelineOptions &options);

/// Code generation for the card partitions: accel-plan-card-memory,
/// accel-pin-weights (unless pin-weights is off) and accel-lower-to-npu. Ends
/// in verified npu programs.
void buildCardCodegenPipeline(OpPassManager &pm,
                              const LowerPipelineOptions &options);

/// `nnaccel-lower`: the three above, accel IR in, npu programs out.
void buildLowerPipeline(OpPassManager &pm, const LowerPipelineOptions &options);

/// Registers `nnaccel-lower` for nnaccel-opt.
void registerNNAccelPipelines();

} // namespace mlir::nnaccel

#endif // NNACCEL_PIPELINES_PIPELINES_H
