//===- SetTarget.cpp - accel-set-target pass ------------------------------===//
//
// Records the hardware target in the module's `npu.target` attribute, the
// one place every hardware-dependent pass reads it from.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "NPU/NPUDialect.h"
#include "NPU/NPUTarget.h"

#include "mlir/IR/BuiltinOps.h"

#define DEBUG_TYPE "accel-set-target"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELSETTARGET
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;

namespace {
struct AccelSetTargetPass
    : mlir::nnaccel::impl::AccelSetTargetBase<AccelSetTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    if (!npu::loadTarget(target, error)) {
      module.emitError() << "cannot load target '" << target << "': " << error;
      return signalPassFailure();
    }
    module->setAttr(npu::NPUDialect::getTargetAttrName(),
                    StringAttr::get(&getContext(), target));
  }
};
} // namespace
