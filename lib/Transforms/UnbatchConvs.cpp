//===- UnbatchConvs.cpp - accel-unbatch-convs pass ------------------------===//
//
// Runs a batched convolution that the card refuses as one conv per image,
// joined by a concat (see the pass description in Passes.td). The card's
// conv kernels store every image's result at its own DRAM offset, which
// must be aligned; a batch whose per-image result is not a whole number of
// alignment units (8 filters of 5 x 5 f32: 800 bytes) would otherwise run
// on the host. A slice at any offset and a concat of parts at any offset
// run on the card (staged through the VRF), so the images can. The
// decision is the card kernels': the rewrite is kept only if the batched
// conv is refused and the slices, the per-image conv and the concat are
// accepted.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "CardKernelCheck.h"

#include "Accel/AccelOps.h"
#include "NPU/NPUTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "accel-unbatch-convs"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELUNBATCHCONVS
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

/// Image `image` of `value` (axis 0), as a slice.
SliceOp sliceImage(OpBuilder &builder, Location loc, Value value,
                   int64_t image) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> starts(type.getRank(), 0), ends(type.getShape()),
      steps(type.getRank(), 1);
  starts[0] = image;
  ends[0] = image + 1;
  return builder.create<SliceOp>(loc, value, starts, ends, steps);
}

struct AccelUnbatchConvsPass
    : mlir::nnaccel::impl::AccelUnbatchConvsBase<AccelUnbatchConvsPass> {
  using Base::Base;

  void runOnOperation() override {
    const ::nnaccel::isa::TargetDesc *target =
        npu::lookupTarget(getOperation());
    if (!target)
      return;
    if (makesHostForcedOps(forceHost, {ConvOp::getOperationName(),
                                       SliceOp::getOperationName(),
                                       ConcatOp::getOperationName()}))
      return;
    SmallVector<ConvOp> candidates;
    getOperation().walk([&](ConvOp op) { candidates.push_back(op); });
    for (ConvOp op : candidates) {
      auto input = cast<RankedTensorType>(op.getInput().getType());
      auto result = cast<RankedTensorType>(op.getType());
      const int64_t images = input.getDimSize(0);
      if (!input.hasStaticShape() || images < 2 || images > maxImages ||
          op->hasAttr(AccelDialect::getPlacementAttrName()) ||
          op->hasAttr(AccelDialect::getHintAttrName()) ||
          isAcceptedOnCard(op, *target))
        continue;
      OpBuilder builder(op);
      Location loc = op.getLoc();
      SmallVector<int64_t> imageShape(result.getShape());
      imageShape[0] = 1;
      auto imageType =
          RankedTensorType::get(imageShape, result.getElementType());
      // One conv per image, reading its slice of the input. Every image has
      // the same shapes, so the first conv stands for all; the slices
      // differ only in their offset, so the first and the last do.
      SmallVector<Operation *> slices, convs;
      SmallVector<Value> parts;
      for (int64_t image = 0; image < images; ++image) {
        SliceOp slice = sliceImage(builder, loc, op.getInput(), image);
        IRMapping mapping;
        mapping.map(op.getInput(), slice.getResult());
        Operation *conv = builder.clone(*op, mapping);
        conv->getResult(0).setType(imageType);
        slices.push_back(slice);
        convs.push_back(conv);
        parts.push_back(conv->getResult(0));
      }
      auto concat =
          builder.create<ConcatOp>(loc, parts, builder.getI64IntegerAttr(0));
      if (!isAcceptedOnCard(slices.front(), *target) ||
          !isAcceptedOnCard(slices.back(), *target) ||
          !isAcceptedOnCard(convs.front(), *target) ||
          !isAcceptedOnCard(concat, *target)) {
        concat->erase();
        for (auto [slice, conv] : llvm::zip(slices, convs)) {
          conv->erase();
          slice->erase();
        }
        continue;
      }
      op.replaceAllUsesWith(concat.getResult());
      op->erase();
      ++numUnbatched;
    }
  }
};
} // namespace
