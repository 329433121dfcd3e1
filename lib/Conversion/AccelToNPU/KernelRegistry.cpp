//===- KernelRegistry.cpp - accel op -> NPU kernel table ------------------===//
//
// See KernelRegistry.h.
//
//===----------------------------------------------------------------------===//

#include "KernelRegistry.h"

using namespace mlir;
using namespace mlir::nnaccel::npu_lowering;

const KernelEntry *mlir::nnaccel::npu_lowering::lookupKernel(Operation *op) {
  static const KernelTable table = [] {
    KernelTable t;
    registerLinearKernels(t);
    registerElementwiseKernels(t);
    registerDataMovementKernels(t);
    registerConvKernels(t);
    registerPoolKernels(t);
    registerEmbeddingKernels(t);
    registerRecurrentKernels(t);
    registerMatMulKernels(t);
    registerNormKernels(t);
    return t;
  }();
  auto it = table.find(op->getName().getStringRef());
  return it == table.end() ? nullptr : &it->second;
}
