//===- KernelRegistry.cpp - accel op -> NPU kernel table ------------------===//
//
// See KernelRegistry.h.
//
//===----------------------------------------------------------------------===//

#include "KernelRegistry.h"

#include "mlir/IR/BuiltinTypes.h"

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
    registerConvertKernels(t);
    return t;
  }();
  auto it = table.find(op->getName().getStringRef());
  return it == table.end() ? nullptr : &it->second;
}

std::optional<ElementFormat>
mlir::nnaccel::npu_lowering::getElementFormat(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isF32())
    return kF32Format;
  if (type.isF16())
    return kF16Format;
  if (type.isBF16())
    return kBF16Format;
  return std::nullopt;
}

bool mlir::nnaccel::npu_lowering::allCardFloat(TypeRange types,
                                               llvm::StringRef what,
                                               std::string &reason) {
  if (llvm::all_of(
          types, [](Type type) { return getElementFormat(type).has_value(); }))
    return true;
  reason = (what + " runs on the card in f32, f16 or bf16 only").str();
  return false;
}
