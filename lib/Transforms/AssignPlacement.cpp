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

#include "CostModel.h"
#include "PartitionOrder.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
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
/// Bytes of the op's constant operands (its weights).
uint64_t getWeightBytes(Operation *op) {
  uint64_t bytes = 0;
  for (Value operand : op->getOperands())
    if (operand.getDefiningOp<ConstantOp>())
      bytes += getDenseByteSize(operand.getType());
  return bytes;
}

/// The hint fields a card op's kernels decide: where its weights live and
/// the precision it computes in. The kernels stream weights from DRAM and
/// compute in the op's own types, so other requests are warned about,
/// saying why, rather than dropped in silence.
void checkHintFields(Operation *op, HintAttr hint,
                     const ::nnaccel::isa::TargetDesc &target) {
  if (MemoryKindAttr memory = hint.getMemory();
      memory && memory.getValue() != MemoryKind::dram) {
    using ::nnaccel::isa::Space;
    bool local = memory.getValue() == MemoryKind::local;
    uint64_t capacity = target.memory(local ? Space::Mrf : Space::Shared).bytes;
    uint64_t weights = getWeightBytes(op);
    InFlightDiagnostic diag = op->emitWarning();
    diag << describeNode(op) << ": cannot keep its weights in "
         << (local ? "SRAM" : "SHARED") << ": ";
    if (weights > capacity)
      diag << "they need " << weights << " bytes, the "
           << (local ? "core's matrix SRAM" : "card's SHARED memory")
           << " holds " << capacity;
    else
      diag << "its kernel loads them from DRAM on every run";
    diag << "; they stay in DRAM";
  }
  if (Type precision = hint.getPrecision()) {
    Type own = op->getNumResults()
                   ? getElementTypeOrSelf(op->getResult(0).getType())
                   : Type();
    if (precision != own)
      op->emitWarning() << describeNode(op) << ": cannot compute in "
                        << precision
                        << ": its card kernel computes in its own type " << own
                        << "; precision changes come from --quantize";
  }
}

/// Moves runs of card ops that only move data (reshape, transpose, slice,
/// concat, expand, pad) or change its format (convert, quantize,
/// dequantize) and are too small to pay for a card round trip to
/// the host, when a host op is next to them (so the move removes a
/// partition boundary rather than creating one): a lone reshape between
/// two host ops would otherwise cost two host-link transfers.
/// The run stays on the card when its modelled cycles exceed the transfers.
unsigned
keepTrivialRunsOnHost(Block &block, const CoreCostModel &model,
                      const llvm::SmallPtrSetImpl<Operation *> &pinned) {
  MLIRContext *context = block.getParentOp()->getContext();
  auto placementOf = [](Operation *op) {
    return op->getAttrOfType<PlacementAttr>(
        AccelDialect::getPlacementAttrName());
  };
  auto isHost = [&](Operation *op) {
    PlacementAttr placement = placementOf(op);
    return placement && placement.getCard() == -1;
  };
  SmallVector<Operation *> work;
  for (Operation &op : block)
    if (placementOf(&op))
      work.push_back(&op);
  unsigned moved = 0;
  for (size_t begin = 0; begin < work.size();) {
    if (isHost(work[begin])) {
      ++begin;
      continue;
    }
    size_t end = begin;
    int64_t card = placementOf(work[begin]).getCard();
    while (end < work.size() && !isHost(work[end]) &&
           placementOf(work[end]).getCard() == card)
      ++end;
    ArrayRef<Operation *> runOps = ArrayRef(work).slice(begin, end - begin);
    bool hostBefore = begin > 0 && isHost(work[begin - 1]);
    bool hostAfter = end < work.size() && isHost(work[end]);
    // Only runs that merely move data or change its format: arithmetic
    // stays on the card even when small, since the host is not faster at
    // it.
    bool movesDataOnly = llvm::all_of(runOps, [](Operation *op) {
      return isa<ReshapeOp, TransposeOp, ConcatOp, SliceOp, ExpandOp, PadOp,
                 ConvertOp, QuantizeOp, DequantizeOp>(op);
    });
    bool userPlaced = llvm::any_of(
        runOps, [&](Operation *op) { return pinned.contains(op); });
    if ((hostBefore || hostAfter) && movesDataOnly && !userPlaced) {
      // The set answers membership; sums walk the run in program order.
      llvm::SmallPtrSet<Operation *, 8> run(runOps.begin(), runOps.end());
      double cycles = 0;
      uint64_t inBytes = 0, outBytes = 0;
      llvm::SmallPtrSet<Value, 8> counted;
      for (Operation *op : runOps) {
        cycles += model.estimate(op);
        for (Value operand : op->getOperands()) {
          Operation *producer = operand.getDefiningOp();
          if ((producer &&
               (run.contains(producer) || isa<ConstantOp>(producer))) ||
              !counted.insert(operand).second)
            continue;
          inBytes += getDenseByteSize(operand.getType());
        }
        for (Value result : op->getResults())
          if (llvm::any_of(result.getUsers(), [&](Operation *user) {
                return !run.contains(user);
              }))
            outBytes += getDenseByteSize(result.getType());
      }
      double transfer =
          model.hostTransfer(inBytes) + model.hostTransfer(outBytes);
      if (cycles < transfer) {
        std::string reason;
        llvm::raw_string_ostream os(reason);
        os << "too little work for a card round trip (" << int64_t(cycles)
           << " modelled card cycles, " << int64_t(transfer)
           << " to move its data over the host link)";
        for (Operation *op : runOps) {
          op->setAttr(AccelDialect::getPlacementAttrName(),
                      PlacementAttr::get(context, -1, {}, {}, {}));
          op->setAttr(AccelDialect::getHostReasonAttrName(),
                      StringAttr::get(context, reason));
          ++moved;
        }
      }
    }
    begin = end;
  }
  return moved;
}

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

    // Ops the user put on a card: the cost model does not move them.
    llvm::SmallPtrSet<Operation *, 8> pinned;
    getOperation().walk([&](Operation *op) {
      // Constants are values, not work; partitions are already placed.
      if (!isa<AccelDialect>(op->getDialect()) ||
          isa<ConstantOp, HostPartitionOp, YieldOp>(op) ||
          op->getParentOfType<HostPartitionOp>())
        return;
      auto placement = op->getAttrOfType<PlacementAttr>(placementName);
      auto hint = op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
      // The card asked for: a written placement, else the hint's card.
      std::optional<int64_t> askedCard;
      if (placement)
        askedCard = placement.getCard();
      else if (hint)
        askedCard = hint.getCard();
      if (askedCard && *askedCard >= int64_t(targetDesc->cards)) {
        op->emitWarning() << describeNode(op) << ": card hint " << *askedCard
                          << " is out of range (the target has "
                          << targetDesc->cards
                          << " card(s)); the compiler chooses the card";
        askedCard.reset();
        placement = {};
      }
      std::string reason;
      bool onCard;
      if (askedCard && *askedCard == -1) {
        onCard = false;
        // A frontend that places an op on the host says why (the ONNX
        // importer for exact quantisation arithmetic); otherwise a user did.
        auto given = op->getAttrOfType<StringAttr>(
            AccelDialect::getHostReasonAttrName());
        reason =
            placement && given ? given.str() : "placed on the host by the user";
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
        if (askedCard && !onCard)
          op->emitWarning()
              << describeNode(op) << ": cannot honour the hint to "
              << "run on card " << *askedCard << ": " << reason
              << "; it runs on the host";
      }
      if (onCard) {
        ++numCardOps;
        if (hint)
          checkHintFields(op, hint, *targetDesc);
        if (askedCard)
          pinned.insert(op);
        if (!placement)
          op->setAttr(placementName,
                      PlacementAttr::get(context, askedCard.value_or(card), {},
                                         {}, {}));
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
    CoreCostModel model(*targetDesc);
    // Host ops that only read the inputs go first (as accel-outline-
    // partitions will put them) before runs are judged by their neighbours.
    hoistHostInputOps(getOperation().getBody().front());
    unsigned moved =
        keepTrivialRunsOnHost(getOperation().getBody().front(), model, pinned);
    numCardOps -= moved;
    numHostOps += moved;
    if (heavyCount) {
      InFlightDiagnostic diag = getOperation().emitWarning()
                                << heavyCount
                                << " heavy op(s) run on the host: ";
      llvm::interleaveComma(heavyOnHost, diag);
    }
  }
};
} // namespace
