//===- PadRecurrent.cpp - accel-pad-recurrent pass ------------------------===//
//
// The card's lstm / gru kernels store each time step's B x H slice of Y to
// DRAM, which needs every slice to start DRAM-aligned; when B * H elements
// are not a whole number of alignment units (a GRU with hidden size 500 in
// f32 at batch 1: 2000 bytes a step) they assemble Y on chip instead, which
// only works while the whole sequence fits there. This pass gives such a
// layer, when the card rejects it, a hidden size padded to the next size
// whose step slice is aligned: the padded units get zero weights, biases,
// peepholes and initial states, so they stay exactly zero at every step
// (gru: n = tanh(0) = 0, h = z * 0; lstm: c~ = 0, c = f * 0, h = o *
// tanh(0)) and never feed the real units (their columns of R are zero);
// the real units compute the same sums with zero terms added. Y, Y_h and
// Y_c are sliced back to the hidden size. Constant f32 weights are padded
// at compile time; other operands by accel.pad ops between reshapes that
// split the gate blocks.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "DeadConstants.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUTarget.h"

#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "accel-pad-recurrent"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELPADRECURRENT
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

/// Builds padded operands and records every op it creates, so that a
/// rejected attempt can be undone.
struct Padder {
  OpBuilder &builder;
  Location loc;
  SmallVector<Operation *> created;

  /// `value` viewed as `view` (a reshape that splits gate blocks apart),
  /// padded at the end of the dimensions in `padded` to `paddedView`, and
  /// reshaped to `result`.
  Value pad(Value value, ArrayRef<int64_t> view, ArrayRef<int64_t> paddedView,
            ArrayRef<int64_t> result) {
    auto type = cast<RankedTensorType>(value.getType());
    auto resultType = RankedTensorType::get(result, type.getElementType());
    if (std::optional<F32ConstantView> data = getF32Constant(value);
        data && type.getElementType().isF32()) {
      // Row-major walk of the padded view; zeros past the original sizes.
      int64_t total = 1;
      for (int64_t d : paddedView)
        total *= d;
      SmallVector<float> values(total, 0.0f);
      SmallVector<int64_t> index(view.size(), 0);
      for (int64_t out = 0; out < total; ++out) {
        bool inside = true;
        int64_t source = 0;
        for (size_t d = 0; d < view.size(); ++d) {
          inside &= index[d] < view[d];
          source = source * view[d] + index[d];
        }
        if (inside)
          values[out] = (*data)[source];
        for (size_t d = view.size(); d-- > 0;) {
          if (++index[d] < paddedView[d])
            break;
          index[d] = 0;
        }
      }
      auto constant = builder.create<ConstantOp>(
          loc, resultType,
          createF32Constant(resultType, values, "padded_hidden"));
      created.push_back(constant);
      return constant;
    }
    Value viewed = reshape(value, view);
    SmallVector<int64_t> pads(2 * view.size(), 0);
    for (size_t d = 0; d < view.size(); ++d)
      pads[view.size() + d] = paddedView[d] - view[d];
    auto padOp = builder.create<PadOp>(
        loc, viewed, builder.getDenseI64ArrayAttr(pads),
        PadModeAttr::get(builder.getContext(), PadMode::constant),
        builder.getF32FloatAttr(0.0f));
    created.push_back(padOp);
    return reshape(padOp, result);
  }

  Value reshape(Value value, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getShape() == shape)
      return value;
    auto op = builder.create<ReshapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), value);
    created.push_back(op);
    return op;
  }

  /// The first `hidden` elements of `value`'s last dimension.
  Value sliceHidden(Value value, int64_t hidden) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(value.getType()).getShape();
    SmallVector<int64_t> starts(shape.size(), 0), ends(shape),
        steps(shape.size(), 1);
    ends.back() = hidden;
    auto op = builder.create<SliceOp>(loc, value, starts, ends, steps);
    created.push_back(op);
    return op;
  }

  void undo() {
    for (Operation *op : llvm::reverse(created))
      op->erase();
    created.clear();
  }
};

/// The hidden size a padded layer of `hidden` units gets: the next one
/// whose B x H step slice is a whole number of `align`-byte units.
int64_t getPaddedHidden(int64_t batch, int64_t hidden, int64_t elementBytes,
                        int64_t align) {
  int64_t padded = hidden;
  while ((batch * padded * elementBytes) % align)
    ++padded;
  return padded;
}

struct AccelPadRecurrentPass
    : mlir::nnaccel::impl::AccelPadRecurrentBase<AccelPadRecurrentPass> {
  using Base::Base;

  void runOnOperation() override {
    const ::nnaccel::isa::TargetDesc *target =
        npu::lookupTarget(getOperation());
    if (!target)
      return signalPassFailure();
    SmallVector<Operation *> layers;
    getOperation().walk([&](Operation *op) {
      if (isa<LSTMOp, GRUOp>(op))
        layers.push_back(op);
    });
    for (Operation *op : layers)
      padLayer(op, *target);
  }

  /// True when the user or the compiler's options keep `op` on the host.
  bool keptOnHost(Operation *op) {
    if (llvm::is_contained(forceHost, op->getName().getStringRef()))
      return true;
    if (auto placement = op->getAttrOfType<PlacementAttr>(
            AccelDialect::getPlacementAttrName()))
      return placement.getCard() < 0;
    if (auto hint =
            op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName()))
      return hint.getCard() && *hint.getCard() < 0;
    return false;
  }

  void padLayer(Operation *op, const ::nnaccel::isa::TargetDesc &target) {
    auto kernel = dyn_cast<CardKernelOpInterface>(op);
    std::string reason;
    if (!kernel || keptOnHost(op) ||
        succeeded(kernel.checkCardKernel(target, reason)))
      return;
    auto lstm = dyn_cast<LSTMOp>(op);
    auto gru = dyn_cast<GRUOp>(op);
    Value x = op->getOperand(0), w = op->getOperand(1), r = op->getOperand(2);
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    // Float weights only: block floating-point rows cannot take zero
    // columns without changing their blocks.
    if (!isa<FloatType>(wType.getElementType()) ||
        !isa<FloatType>(xType.getElementType()) || !xType.hasStaticShape())
      return;
    const int64_t hidden = lstm ? lstm.getHiddenSize() : gru.getHiddenSize();
    const int64_t gates = lstm ? 4 : 3;
    const int64_t dirs = wType.getDimSize(0), batch = xType.getDimSize(1);
    const int64_t input = wType.getDimSize(2);
    const int64_t bytes = xType.getElementType().getIntOrFloatBitWidth() / 8;
    const int64_t align =
        int64_t(target.memory(::nnaccel::isa::Space::Dram).align);
    if (bytes == 0 || (batch * hidden * bytes) % align == 0)
      return; // padding only helps unaligned step slices
    const int64_t padded = getPaddedHidden(batch, hidden, bytes, align);

    OpBuilder builder(op);
    Padder padder{builder, op->getLoc(), {}};
    const int64_t h = hidden, hp = padded, g = gates;
    Value pw = padder.pad(w, {dirs, g, h, input}, {dirs, g, hp, input},
                          {dirs, g * hp, input});
    Value pr =
        padder.pad(r, {dirs, g, h, h}, {dirs, g, hp, hp}, {dirs, g * hp, hp});
    auto padOptional = [&](Value value, int64_t blocks) -> Value {
      if (!value)
        return value;
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(value.getType()).getShape();
      if (shape.size() == 3) // initial states: D x B x H
        return padder.pad(value, shape, {shape[0], shape[1], hp},
                          {shape[0], shape[1], hp});
      return padder.pad(value, {dirs, blocks, h}, {dirs, blocks, hp},
                        {dirs, blocks * hp});
    };
    // Operands padded in operand order, so the IR reads in that order.
    Operation *paddedOp;
    if (lstm) {
      Value pb = padOptional(lstm.getB(), 2 * g);
      Value ph = padOptional(lstm.getInitialH(), 0);
      Value pc = padOptional(lstm.getInitialC(), 0);
      Value pp = padOptional(lstm.getP(), 3);
      paddedOp =
          builder.create<LSTMOp>(op->getLoc(), x, pw, pr, pb, ph, pc, pp,
                                 builder.getI64IntegerAttr(hp),
                                 lstm.getDirectionAttr(), lstm.getClipAttr());
    } else {
      Value pb = padOptional(gru.getB(), 2 * g);
      Value ph = padOptional(gru.getInitialH(), 0);
      paddedOp = builder.create<GRUOp>(
          op->getLoc(), x, pw, pr, pb, ph, builder.getI64IntegerAttr(hp),
          gru.getDirectionAttr(), gru.getLinearBeforeResetAttr(),
          gru.getClipAttr());
    }
    padder.created.push_back(paddedOp);
    // Hints and the other discardable attributes (locations' node names
    // aside) describe the layer, whatever its size.
    for (NamedAttribute attr : op->getDiscardableAttrs())
      paddedOp->setAttr(attr.getName(), attr.getValue());
    std::string paddedReason;
    if (failed(cast<CardKernelOpInterface>(paddedOp).checkCardKernel(
            target, paddedReason))) {
      padder.undo();
      return;
    }
    builder.setInsertionPointAfter(paddedOp);
    for (auto [result, paddedResult] :
         llvm::zip(op->getResults(), paddedOp->getResults()))
      result.replaceAllUsesWith(padder.sliceHidden(paddedResult, hidden));
    paddedOp->setAttr(AccelDialect::getPaddedHiddenAttrName(),
                      builder.getI64IntegerAttr(hidden));
    // The unpadded weights go too, when nothing else reads them.
    eraseWithDeadConstants(op);
    ++numPadded;
  }
};
} // namespace
