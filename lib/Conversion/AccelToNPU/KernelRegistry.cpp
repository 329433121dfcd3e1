//===- KernelRegistry.cpp - accel op -> NPU kernel table ------------------===//
//
// See KernelRegistry.h.
//
//===----------------------------------------------------------------------===//

#include "KernelRegistry.h"

#include "nnaccel/Conversion/NPUKernels.h"

#include "Accel/AccelOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::nnaccel::npu_lowering;

namespace {
/// TRANSITION: the card kernel of every op of the name-keyed table, until
/// each op family attaches its own model.
struct TableKernelModel
    : mlir::nnaccel::accel::CardKernelOpInterface::FallbackModel<
          TableKernelModel> {
  LogicalResult checkCardKernel(Operation *op,
                                const ::nnaccel::isa::TargetDesc &target,
                                std::string &reason) const {
    return lookupKernel(op)->check(op, target, reason);
  }
  LogicalResult emitCardKernel(Operation *op, KernelContext &context) const {
    return lookupKernel(op)->emit(op, context);
  }
  uint64_t
  getSharedScratchBytes(Operation *op,
                        const ::nnaccel::isa::TargetDesc &target) const {
    const KernelEntry *kernel = lookupKernel(op);
    return kernel->sharedScratch ? kernel->sharedScratch(op, target) : 0;
  }
};
} // namespace

void mlir::nnaccel::registerNPUKernelModels(DialectRegistry &registry) {
  registry.addExtension(
      +[](MLIRContext *context, accel::AccelDialect *dialect) {
        for (RegisteredOperationName name : context->getRegisteredOperations())
          if (&name.getDialect() == dialect &&
              lookupKernelByName(name.getStringRef()))
            name.attachInterface<TableKernelModel>();
      });
}

const KernelEntry *
mlir::nnaccel::npu_lowering::lookupKernelByName(StringRef name) {
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
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

const KernelEntry *mlir::nnaccel::npu_lowering::lookupKernel(Operation *op) {
  return lookupKernelByName(op->getName().getStringRef());
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
