//===- AlignMatMuls.cpp - accel-align-matmuls pass ------------------------===//
//
// Zero-pads the reduction axis of batched matmuls whose right operand's
// batch elements would start at unaligned DRAM addresses, so that the card
// runs them instead of the host (see the pass description in Passes.td).
// The decision is the card kernels': the rewrite is kept only if the
// original matmul is refused and the pads and the padded matmul are
// accepted.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "CardKernelCheck.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <numeric>

#define DEBUG_TYPE "accel-align-matmuls"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELALIGNMATMULS
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

/// `value` zero-padded at the end of axis `axis` to `size`.
Value padAxis(OpBuilder &builder, Location loc, Value value, int64_t axis,
              int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[rank + axis] = size - type.getDimSize(axis);
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = size;
  auto padded = RankedTensorType::get(shape, type.getElementType());
  return builder.create<PadOp>(
      loc, padded, value, builder.getDenseI64ArrayAttr(pads),
      PadModeAttr::get(builder.getContext(), PadMode::constant),
      builder.getF32FloatAttr(0.0f));
}

struct AccelAlignMatMulsPass
    : mlir::nnaccel::impl::AccelAlignMatMulsBase<AccelAlignMatMulsPass> {
  using Base::Base;

  void runOnOperation() override {
    const ::nnaccel::isa::TargetDesc *target =
        npu::lookupTarget(getOperation());
    if (!target)
      return;
    if (makesHostForcedOps(forceHost, {MatMulOp::getOperationName(),
                                       PadOp::getOperationName()}))
      return;
    const int64_t align = std::max<int64_t>(
        int64_t(target->memory(::nnaccel::isa::Space::Dram).align), 1);
    SmallVector<MatMulOp> candidates;
    getOperation().walk([&](MatMulOp op) { candidates.push_back(op); });
    for (MatMulOp op : candidates) {
      auto lhs = cast<RankedTensorType>(op.getLhs().getType());
      auto rhs = cast<RankedTensorType>(op.getRhs().getType());
      if (!lhs.hasStaticShape() || !rhs.hasStaticShape() || lhs.getRank() < 2 ||
          rhs.getRank() < 3 ||
          op->hasAttr(AccelDialect::getPlacementAttrName()) ||
          op->hasAttr(AccelDialect::getHintAttrName()))
        continue;
      std::optional<::nnaccel::DType> dtype = getElementDType(rhs);
      int64_t bytes = dtype ? int64_t(::nnaccel::elementBytes(*dtype)) : 0;
      int64_t k = rhs.getDimSize(rhs.getRank() - 2);
      int64_t n = rhs.getDimSize(rhs.getRank() - 1);
      int64_t batches = rhs.getNumElements() / std::max<int64_t>(k * n, 1);
      if (bytes == 0 || batches < 2 || (k * n * bytes) % align == 0 ||
          isAcceptedOnCard(op, *target))
        continue;
      // The smallest K' >= K with K' x N x bytes a multiple of `align`.
      int64_t step = align / std::gcd(align, n * bytes);
      int64_t padded = (k + step - 1) / step * step;
      if (padded == k)
        continue;
      OpBuilder builder(op);
      Location loc = op.getLoc();
      Value newLhs =
          padAxis(builder, loc, op.getLhs(), lhs.getRank() - 1, padded);
      Value newRhs =
          padAxis(builder, loc, op.getRhs(), rhs.getRank() - 2, padded);
      auto matmul = builder.create<MatMulOp>(loc, op.getType(), newLhs, newRhs);
      for (NamedAttribute attr : op->getDiscardableAttrs())
        matmul->setAttr(attr.getName(), attr.getValue());
      if (!isAcceptedOnCard(newLhs.getDefiningOp(), *target) ||
          !isAcceptedOnCard(newRhs.getDefiningOp(), *target) ||
          !isAcceptedOnCard(matmul, *target)) {
        matmul->erase();
        newRhs.getDefiningOp()->erase();
        newLhs.getDefiningOp()->erase();
        continue;
      }
      op.replaceAllUsesWith(matmul.getResult());
      op->erase();
      ++numPadded;
    }
  }
};
} // namespace
