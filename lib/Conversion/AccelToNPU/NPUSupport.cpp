//===- NPUSupport.cpp - which accel ops the NPU backend lowers ------------===//
//
// The lowering to the NPU ISA grows op by op; this file lists what it
// covers. Everything else runs on the host with the reason given here.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Conversion/NPUSupport.h"

#include "Kernels.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {
bool allF32(TypeRange types) {
  return llvm::all_of(types, [](Type type) {
    return cast<RankedTensorType>(type).getElementType().isF32();
  });
}

LogicalResult checkFullyConnected(FullyConnectedOp op,
                                  const ::nnaccel::isa::TargetDesc &target,
                                  std::string &reason) {
  if (!allF32(op->getOperandTypes()) || !allF32(op->getResultTypes())) {
    reason = "fully_connected runs on the card in f32 only so far";
    return failure();
  }
  if (op.getTransposeInput() || !op.getAlpha().isExactlyValue(1.0) ||
      (op.getBias() && !op.getBeta().isExactlyValue(1.0))) {
    reason = "fully_connected with transpose_input or alpha/beta != 1 is not "
             "lowered to the card";
    return failure();
  }
  int64_t m = op.getType().getDimSize(0), n = op.getType().getDimSize(1);
  int64_t k = cast<RankedTensorType>(op.getWeight().getType())
                  .getDimSize(op.getTransposeWeight() ? 1 : 0);
  if (Value bias = op.getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getNumElements() != n) {
      reason = "only a per-column bias is lowered to the card";
      return failure();
    }
  }
  if (!op.getTransposeWeight() && !getF32Constant(op.getWeight())) {
    reason = "a K x N weight must be constant to be transposed for the card";
    return failure();
  }
  if (!npu_lowering::canEmitFullyConnected(target, m, k, n, reason))
    return failure();
  return success();
}
} // namespace

LogicalResult
mlir::nnaccel::canLowerToNPU(Operation *op,
                             const ::nnaccel::isa::TargetDesc &target,
                             std::string &reason) {
  if (auto fc = dyn_cast<FullyConnectedOp>(op))
    return checkFullyConnected(fc, target, reason);
  reason = ("no NPU lowering for " + op->getName().getStringRef() + " yet")
               .str();
  return failure();
}

bool mlir::nnaccel::isHeavyOp(Operation *op) {
  return isa<MatMulOp, FullyConnectedOp, ConvOp, EmbeddingBagOp, LSTMOp,
             GRUOp>(op);
}
