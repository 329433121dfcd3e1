//===- LinearKernels.cpp - fully_connected and matmul kernel entries ------===//
//
// Adapts accel.fully_connected to the MLIR-free matrix-unit kernel in
// FullyConnectedKernel.cpp: checks types, transposes and scalars, and maps
// operands to DRAM addresses.
//
//===----------------------------------------------------------------------===//

#include "FusedActivation.h"
#include "KernelRegistry.h"
#include "Kernels.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;

namespace {
bool allF32(TypeRange types) {
  return llvm::all_of(types, [](Type type) {
    return cast<RankedTensorType>(type).getElementType().isF32();
  });
}

LogicalResult checkFullyConnected(Operation *operation,
                                  const ::nnaccel::isa::TargetDesc &target,
                                  std::string &reason) {
  auto op = cast<FullyConnectedOp>(operation);
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
    if (cast<RankedTensorType>(bias.getType()).getNumElements() != n) {
      reason = "only a per-column bias is lowered to the card";
      return failure();
    }
  }
  if (!op.getTransposeWeight() && !getF32Constant(op.getWeight())) {
    reason = "a K x N weight must be constant to be transposed for the card";
    return failure();
  }
  if (!canEmitFullyConnected(target, m, k, n, reason))
    return failure();
  return success();
}

LogicalResult emitFullyConnectedOp(Operation *operation,
                                   KernelContext &context) {
  auto op = cast<FullyConnectedOp>(operation);
  if (!op.getTransposeWeight())
    return op.emitOpError("weight must be pre-transposed for the NPU");
  FullyConnectedSpec spec;
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  spec.m = inputType.getDimSize(0);
  spec.k = inputType.getDimSize(1);
  spec.n = op.getType().getDimSize(1);
  spec.input = context.addressOf(op.getInput());
  spec.weight = context.addressOf(op.getWeight());
  spec.output = context.addressOf(op.getResult());
  if (Value bias = op.getBias())
    spec.bias = context.addressOf(bias);
  spec.activation = getFusedActivation(op);
  emitFullyConnected(context.emitter, context.target, spec);
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::registerLinearKernels(KernelTable &table) {
  table[FullyConnectedOp::getOperationName()] = {checkFullyConnected,
                                                 emitFullyConnectedOp};
}
