//===- Pipelines.cpp - nnaccel pass pipelines -----------------------------===//
//
// See Pipelines.h.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Pipelines/Pipelines.h"

#include "nnaccel/Conversion/Passes.h"
#include "nnaccel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::nnaccel;

void mlir::nnaccel::buildPrecisionPipeline(
    OpPassManager &pm, const LowerPipelineOptions &options) {
  if (!options.target.empty()) {
    AccelSetTargetOptions target;
    target.target = options.target;
    pm.addPass(createAccelSetTarget(target));
  }
  if (!options.placement.empty()) {
    AccelLoadPlacementOptions file;
    file.file = options.placement;
    pm.addPass(createAccelLoadPlacement(file));
  }
  // After the placement file (its precision hints decide per node), before
  // the float precisions.
  SmallVector<StringRef> modes;
  StringRef(options.quantize).split(modes, ',', -1, /*KeepEmpty=*/false);
  auto has = [&](StringRef mode) { return llvm::is_contained(modes, mode); };
  // auto: nnaccel-compile's search has put a precision hint on every
  // product it chose a narrow type for; both quantizing passes honour
  // exactly those (int8 and block-float hints), every other op keeps its
  // type (no embedding tables, no model-wide float precision).
  if (has("auto")) {
    AccelQuantizeOptions products;
    products.scheme = options.quantizeScheme;
    products.keepLast = false;
    products.onlyHinted = true;
    pm.addNestedPass<func::FuncOp>(createAccelQuantize(products));
    AccelQuantizeBlockFloatOptions block;
    block.format = "msfp8";
    block.keepLast = true;
    block.onlyHinted = true;
    pm.addNestedPass<func::FuncOp>(createAccelQuantizeBlockFloat(block));
    pm.addNestedPass<func::FuncOp>(createAccelApplyPrecision());
    return;
  }
  // int4-fc gives int8's products 4-bit weights; on its own it quantizes
  // nothing (nnaccel-compile rejects it without int8).
  if (has("int8")) {
    AccelQuantizeOptions products;
    products.weightBits = has("int4-fc") ? 4 : 8;
    products.scheme = options.quantizeScheme;
    pm.addNestedPass<func::FuncOp>(createAccelQuantize(products));
  }
  // Block floating point: weights only, no calibration.
  for (StringRef format :
       {"msfp8", "msfp9", "mxint8", "mxfp8e4m3", "mxfp8e5m2"})
    if (has(format)) {
      AccelQuantizeBlockFloatOptions block;
      block.format = format.str();
      // Like int8, the last product stays f32 (measured on the MLP: cosine
      // 0.895 -> 0.931 in msfp8, 0.973 -> 0.983 in msfp9).
      block.keepLast = true;
      pm.addNestedPass<func::FuncOp>(createAccelQuantizeBlockFloat(block));
    }
  // Embedding tables need no calibration: int4-emb / int8-emb quantize only
  // them, and an int8 model gets 8-bit tables too unless int4-emb asks for
  // 4 bits (they dominate recommendation models, and rw8's error is below
  // int8 activations').
  if (has("int4-emb") || has("int8-emb") || has("int8")) {
    AccelQuantizeEmbeddingsOptions tables;
    tables.bits = has("int4-emb") ? 4 : 8;
    pm.addNestedPass<func::FuncOp>(createAccelQuantizeEmbeddings(tables));
  }
  AccelApplyPrecisionOptions precision;
  if (has("fp16") || has("bf16"))
    precision.defaultPrecision = has("fp16") ? "f16" : "bf16";
  pm.addNestedPass<func::FuncOp>(createAccelApplyPrecision(precision));
}

void mlir::nnaccel::buildPartitionPipeline(
    OpPassManager &pm, const LowerPipelineOptions &options) {
  buildPrecisionPipeline(pm, options);
  // Before placement, which then sees the padded matmuls on the card.
  AccelAlignMatMulsOptions align;
  align.forceHost = options.forceHost;
  pm.addNestedPass<func::FuncOp>(createAccelAlignMatMuls(align));
  AccelUnbatchConvsOptions unbatch;
  unbatch.forceHost = options.forceHost;
  pm.addNestedPass<func::FuncOp>(createAccelUnbatchConvs(unbatch));
  AccelPadRecurrentOptions padding;
  padding.forceHost = options.forceHost;
  pm.addNestedPass<func::FuncOp>(createAccelPadRecurrent(padding));
  AccelAssignPlacementOptions placement;
  placement.card = options.card;
  placement.forceHost = options.forceHost;
  pm.addNestedPass<func::FuncOp>(createAccelAssignPlacement(placement));
  AccelPartitionCardsOptions partition;
  partition.cards = options.cards;
  pm.addNestedPass<func::FuncOp>(createAccelPartitionCards(partition));
  pm.addNestedPass<func::FuncOp>(createAccelOutlinePartitions());
}

void mlir::nnaccel::buildCoreSchedulePipeline(
    OpPassManager &pm, const LowerPipelineOptions &options) {
  AccelSplitOpsOptions split;
  split.maxCores = options.cores;
  pm.addNestedPass<func::FuncOp>(createAccelSplitOps(split));
  AccelPlaceOptions place;
  place.maxCores = options.cores;
  pm.addNestedPass<func::FuncOp>(createAccelPlace(place));
}

void mlir::nnaccel::buildCardCodegenPipeline(
    OpPassManager &pm, const LowerPipelineOptions &options) {
  AccelPlanCardTransfersOptions transfers;
  transfers.p2p = options.p2p;
  pm.addNestedPass<func::FuncOp>(createAccelPlanCardTransfers(transfers));
  AccelPlanCardMemoryOptions plan;
  plan.sharedIntermediates = options.sharedIntermediates;
  pm.addPass(createAccelPlanCardMemory(plan));
  AccelPinWeightsOptions pin;
  pin.enabled = options.pinWeights;
  if (!options.sharedConstants)
    pin.sharedConstantBytes = 0;
  pm.addPass(createAccelPinWeights(pin));
  pm.addPass(createAccelLowerToNPU());
}

void mlir::nnaccel::buildLowerPipeline(OpPassManager &pm,
                                       const LowerPipelineOptions &options) {
  buildPartitionPipeline(pm, options);
  buildCoreSchedulePipeline(pm, options);
  buildCardCodegenPipeline(pm, options);
}

void mlir::nnaccel::registerNNAccelPipelines() {
  PassPipelineRegistration<LowerPipelineOptions>(
      "nnaccel-lower",
      "Place accel ops on the card or the host, outline partitions, split "
      "and schedule card ops on cores, plan card memory and lower card "
      "partitions to npu programs",
      buildLowerPipeline);
}
