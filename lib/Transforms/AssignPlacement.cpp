//===- AssignPlacement.cpp - accel-assign-placement pass ------------------===//
//
// Records, for every accel compute op, where it runs: a card when the op's
// card kernel (CardKernelOpInterface, attached by the backend) accepts it
// for the module's target, else the host with the reason. Placement hints
// already in the IR are requests that are honoured or rejected with a
// diagnostic.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "Accel/AccelOps.h"
#include "NPU/NPUTarget.h"

#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "accel-assign-placement"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELASSIGNPLACEMENT
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {
struct AccelAssignPlacementPass
    : mlir::nnaccel::impl::AccelAssignPlacementBase<AccelAssignPlacementPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    const ::nnaccel::isa::TargetDesc *targetDesc =
        npu::lookupTarget(getOperation());
    if (!targetDesc)
      return signalPassFailure();
    StringRef placementName = AccelDialect::getPlacementAttrName();
    llvm::SmallSetVector<StringRef, 8> heavyOnHost;
    int64_t heavyCount = 0;
    bool failedHint = false;

    getOperation().walk([&](Operation *op) {
      // Constants are values, not work; partitions are already placed.
      if (!isa<AccelDialect>(op->getDialect()) ||
          isa<ConstantOp, HostPartitionOp, YieldOp>(op) ||
          op->getParentOfType<HostPartitionOp>())
        return;
      auto hint = op->getAttrOfType<PlacementAttr>(placementName);
      std::string reason;
      bool onCard;
      if (hint && hint.getCard() == -1) {
        onCard = false;
        reason = "placed on the host by the user";
      } else if (llvm::is_contained(forceHost, op->getName().getStringRef())) {
        onCard = false;
        reason = "forced to the host (--force-host)";
      } else {
        auto kernel = dyn_cast<CardKernelOpInterface>(op);
        if (kernel)
          onCard = succeeded(kernel.checkCardKernel(*targetDesc, reason));
        else {
          onCard = false;
          reason =
              ("no card kernel for " + op->getName().getStringRef() + " yet")
                  .str();
        }
        if (hint && !onCard) {
          op->emitError() << "cannot honour placement on card "
                          << hint.getCard() << ": " << reason;
          failedHint = true;
          return;
        }
      }
      if (onCard) {
        ++numCardOps;
        if (!hint)
          op->setAttr(placementName,
                      PlacementAttr::get(context, card, {}, {}, {}));
        return;
      }
      ++numHostOps;
      op->setAttr(placementName, PlacementAttr::get(context, -1, {}, {}, {}));
      op->setAttr(AccelDialect::getHostReasonAttrName(),
                  StringAttr::get(context, reason));
      if (op->hasTrait<OpTrait::accel::HeavyOp>()) {
        ++heavyCount;
        heavyOnHost.insert(op->getName().getStringRef());
      }
    });
    if (failedHint)
      return signalPassFailure();
    if (heavyCount) {
      InFlightDiagnostic diag = getOperation().emitWarning()
                                << heavyCount
                                << " heavy op(s) run on the host: ";
      llvm::interleaveComma(heavyOnHost, diag);
    }
  }
};
} // namespace
