//===- NPUSupport.cpp - which accel ops the NPU backend lowers ------------===//
//
// The lowering to the NPU ISA grows op by op; the kernel registry lists
// what it covers. Everything else runs on the host with the reason given
// here.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Conversion/NPUSupport.h"

#include "KernelRegistry.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

LogicalResult
mlir::nnaccel::canLowerToNPU(Operation *op,
                             const ::nnaccel::isa::TargetDesc &target,
                             std::string &reason) {
  const npu_lowering::KernelEntry *kernel = npu_lowering::lookupKernel(op);
  if (!kernel) {
    reason =
        ("no NPU lowering for " + op->getName().getStringRef() + " yet").str();
    return failure();
  }
  return kernel->check(op, target, reason);
}

uint64_t mlir::nnaccel::getDenseByteSize(Type type) {
  return accel::getDenseByteSize(type);
}

bool mlir::nnaccel::isHeavyOp(Operation *op) {
  return isa<MatMulOp, FullyConnectedOp, ConvOp, EmbeddingBagOp, LSTMOp, GRUOp>(
      op);
}
