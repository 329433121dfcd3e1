//===- PartitionCards.cpp - accel-partition-cards pass --------------------===//
//
// Spreads the card ops of a model that does not fit one card's DRAM over
// several cards. A card holds the weights (constant operands) of the ops it
// runs and their activations; the pass fills cards so that each stays
// within the target's dram.bytes:
//
// * embedding tables (embedding_bag and row gathers of a constant table)
//   are model-parallel: largest first, each to the card with the fewest
//   bytes so far, which balances the tables' bytes across the cards, as
//   Facebook's platform and ETH's cluster place tables by size;
// * the other ops keep program order on one card at a time (the card with
//   the most room when they start), so a dense chain crosses cards only
//   where it must.
//
// A model that fits one card keeps the placement accel-assign-placement
// gave it; so do ops whose card a user asked for. A model that does not fit
// the cards at all is an error that says how many bytes it needs per card
// against the bytes a card has, and which tensors dominate.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUTarget.h"

#include "nnaccel/ISA/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <set>

#define DEBUG_TYPE "accel-partition-cards"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELPARTITIONCARDS
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

/// Largest tensors named in the error when a model does not fit.
constexpr size_t kDominantTensors = 5;

/// What running an op on a card costs in DRAM: its constant operands
/// (counted once per card however many ops share them) and its results.
struct OpFootprint {
  Operation *op = nullptr;
  SmallVector<ConstantOp, 2> constants;
  uint64_t activationBytes = 0;
  bool table = false;  ///< an embedding table lookup
  bool pinned = false; ///< the user asked for its card
  int64_t card = 0;
};

/// One card's DRAM as the pass fills it.
struct CardLoad {
  uint64_t bytes = 0;
  llvm::DenseSet<Operation *> constants;

  /// Bytes `fp` adds to this card (constants it already holds are free).
  uint64_t cost(const OpFootprint &fp) const {
    uint64_t add = fp.activationBytes;
    for (ConstantOp constant : fp.constants)
      if (!constants.contains(constant))
        add += getDenseByteSize(constant.getType());
    return add;
  }
  void add(const OpFootprint &fp) {
    bytes += cost(fp);
    for (ConstantOp constant : fp.constants)
      constants.insert(constant);
  }
};

bool isTableLookup(Operation *op) {
  if (!isa<EmbeddingBagOp, GatherOp>(op))
    return false;
  return op->getNumOperands() && op->getOperand(0).getDefiningOp<ConstantOp>();
}

struct AccelPartitionCardsPass
    : mlir::nnaccel::impl::AccelPartitionCardsBase<AccelPartitionCardsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    const ::nnaccel::isa::TargetDesc *target = npu::lookupTarget(func);
    if (!target)
      return signalPassFailure();
    const int64_t available = int64_t(target->cards);
    const int64_t numCards = cards ? int64_t(cards) : available;
    if (numCards > available) {
      func.emitError() << "accel-partition-cards: " << numCards
                       << " cards asked for, the target '" << target->name
                       << "' has " << available;
      return signalPassFailure();
    }
    const uint64_t capacity = target->memory(::nnaccel::isa::Space::Dram).bytes;
    StringRef placementName = AccelDialect::getPlacementAttrName();

    // The card ops, in program order.
    SmallVector<OpFootprint> ops;
    llvm::DenseSet<Operation *> allConstants;
    uint64_t total = 0;
    for (Operation &op : func.getBody().front()) {
      auto placement = op.getAttrOfType<PlacementAttr>(placementName);
      if (isa<ConstantOp>(op) || !placement || placement.getCard() < 0)
        continue;
      OpFootprint fp;
      fp.op = &op;
      fp.card = placement.getCard();
      if (auto hint =
              op.getAttrOfType<HintAttr>(AccelDialect::getHintAttrName()))
        fp.pinned = hint.getCard().has_value();
      fp.table = isTableLookup(&op);
      for (Value operand : op.getOperands())
        if (auto constant = operand.getDefiningOp<ConstantOp>())
          if (!llvm::is_contained(fp.constants, constant)) {
            fp.constants.push_back(constant);
            if (allConstants.insert(constant).second)
              total += getDenseByteSize(constant.getType());
          }
      for (Type type : op.getResultTypes())
        fp.activationBytes += getDenseByteSize(type);
      total += fp.activationBytes;
      ops.push_back(std::move(fp));
    }
    if (ops.empty() || total <= capacity) {
      numCardsUsed = ops.empty() ? 0 : 1;
      return;
    }
    if (numCards < 2)
      return reportTooLarge(func, ops, total, capacity, numCards);

    SmallVector<CardLoad> loads(numCards);
    // Ops on the card the user asked for go first.
    for (OpFootprint &fp : ops)
      if (fp.pinned && fp.card < numCards)
        loads[fp.card].add(fp);
    auto fits = [&](int64_t card, const OpFootprint &fp) {
      return loads[card].bytes + loads[card].cost(fp) <= capacity;
    };
    // Tables: largest first, each to the least-filled card it fits.
    SmallVector<OpFootprint *> tables;
    for (OpFootprint &fp : ops)
      if (fp.table && !fp.pinned)
        tables.push_back(&fp);
    llvm::stable_sort(tables, [&](OpFootprint *a, OpFootprint *b) {
      return CardLoad().cost(*a) > CardLoad().cost(*b);
    });
    for (OpFootprint *fp : tables) {
      std::optional<int64_t> best;
      for (int64_t card = 0; card < numCards; ++card)
        if (fits(card, *fp) &&
            (!best || loads[card].bytes < loads[*best].bytes))
          best = card;
      if (!best)
        return reportTooLarge(func, ops, total, capacity, numCards, fp->op);
      fp->card = *best;
      loads[*best].add(*fp);
    }
    // The rest in program order: stay on the current card while it has
    // room, else move to the card with the most room.
    auto roomiest = [&](const OpFootprint &fp) -> std::optional<int64_t> {
      std::optional<int64_t> best;
      for (int64_t card = 0; card < numCards; ++card)
        if (fits(card, fp) && (!best || loads[card].bytes < loads[*best].bytes))
          best = card;
      return best;
    };
    std::optional<int64_t> current;
    for (OpFootprint &fp : ops) {
      if (fp.table || fp.pinned)
        continue;
      if (!current || !fits(*current, fp))
        current = roomiest(fp);
      if (!current)
        return reportTooLarge(func, ops, total, capacity, numCards, fp.op);
      fp.card = *current;
      loads[*current].add(fp);
    }

    MLIRContext *context = &getContext();
    for (OpFootprint &fp : ops) {
      auto placement = fp.op->getAttrOfType<PlacementAttr>(placementName);
      if (placement.getCard() == fp.card)
        continue;
      fp.op->setAttr(placementName,
                     PlacementAttr::get(context, fp.card, placement.getCores(),
                                        placement.getPrecision(),
                                        placement.getMemory()));
      ++numMovedOps;
    }
    numCardsUsed = llvm::count_if(
        loads, [](const CardLoad &load) { return load.bytes > 0; });
    groupByCard(func.getBody().front());
  }

  /// Reorders the block's ops (a topological order, as close to the
  /// original as grouping allows) so that ops on the same card are
  /// adjacent where their dependencies let them be: accel-outline-partitions
  /// forms one partition per run, and every partition boundary is a round
  /// trip through the host. Independent table lookups on one card then
  /// become one partition instead of one each.
  void groupByCard(Block &block) {
    StringRef placementName = AccelDialect::getPlacementAttrName();
    auto cardOf = [&](Operation *op) -> int64_t {
      auto placement = op->getAttrOfType<PlacementAttr>(placementName);
      return placement ? placement.getCard() : -1;
    };
    SmallVector<Operation *> work;
    for (Operation &op : block.without_terminator())
      if (!isa<ConstantOp>(op))
        work.push_back(&op);
    llvm::DenseMap<Operation *, unsigned> pending; // unscheduled producers
    llvm::DenseMap<Operation *, SmallVector<Operation *, 4>> users;
    llvm::DenseSet<Operation *> inWork(work.begin(), work.end());
    for (Operation *op : work) {
      llvm::SmallPtrSet<Operation *, 4> producers;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && inWork.contains(def))
          producers.insert(def);
      pending[op] = producers.size();
      for (Operation *def : producers)
        users[def].push_back(op);
    }
    // Ready ops by original position; take the first on the current card;
    // when it has none, the first on a card none of whose ops wait for
    // others (so a card whose later ops consume the others' results comes
    // last, and its own early ops join those in one partition); else the
    // first of all.
    llvm::DenseMap<Operation *, unsigned> position;
    for (auto [index, op] : llvm::enumerate(work))
      position[op] = index;
    std::set<std::pair<unsigned, Operation *>> ready;
    llvm::DenseMap<int64_t, unsigned> waiting; // per card: ops not ready
    for (Operation *op : work) {
      if (!pending[op])
        ready.insert({position[op], op});
      else
        ++waiting[cardOf(op)];
    }
    std::optional<int64_t> current;
    Operation *terminator = block.getTerminator();
    while (!ready.empty()) {
      auto pick = ready.end();
      if (current)
        pick = llvm::find_if(ready, [&](const auto &entry) {
          return cardOf(entry.second) == *current;
        });
      if (pick == ready.end())
        pick = llvm::find_if(ready, [&](const auto &entry) {
          return !waiting.lookup(cardOf(entry.second));
        });
      if (pick == ready.end())
        pick = ready.begin();
      Operation *op = pick->second;
      ready.erase(pick);
      current = cardOf(op);
      op->moveBefore(terminator);
      for (Operation *user : users[op])
        if (--pending[user] == 0) {
          ready.insert({position[user], user});
          --waiting[cardOf(user)];
        }
    }
  }

  /// The model (or `failedOp`) does not fit `numCards` cards of `capacity`
  /// bytes: says what it needs and which tensors dominate.
  void reportTooLarge(func::FuncOp func, ArrayRef<OpFootprint> ops,
                      uint64_t total, uint64_t capacity, int64_t numCards,
                      Operation *failedOp = nullptr) {
    Operation *at = failedOp ? failedOp : func.getOperation();
    InFlightDiagnostic diag = at->emitError();
    diag << "the model needs " << total << " bytes of card DRAM (weights and "
         << "activations), " << (total + numCards - 1) / numCards
         << " bytes per card on " << numCards << " card(s), but a card of '"
         << target()->name << "' has " << capacity << " bytes";
    if (failedOp)
      diag << "; " << describeNode(failedOp)
           << " fits no card next to what the cards already hold";
    diag << "; use more cards (--cards, at most " << target()->cards
         << "), narrower weights (--quantize) or a target with more DRAM";
    // The largest tensors, each with the first op that reads it.
    struct Tensor {
      uint64_t bytes;
      Operation *user;
      bool constant;
    };
    SmallVector<Tensor> tensors;
    llvm::DenseSet<Operation *> seen;
    for (const OpFootprint &fp : ops) {
      for (ConstantOp constant : fp.constants)
        if (seen.insert(constant).second)
          tensors.push_back(
              {getDenseByteSize(constant.getType()), fp.op, true});
      if (fp.activationBytes)
        tensors.push_back({fp.activationBytes, fp.op, false});
    }
    llvm::stable_sort(tensors, [](const Tensor &a, const Tensor &b) {
      return a.bytes > b.bytes;
    });
    for (const Tensor &tensor : ArrayRef(tensors).take_front(kDominantTensors))
      diag.attachNote(tensor.user->getLoc())
          << tensor.bytes
          << " bytes: " << (tensor.constant ? "a weight of " : "the result of ")
          << describeNode(tensor.user);
    signalPassFailure();
  }

  const ::nnaccel::isa::TargetDesc *target() {
    return npu::lookupTarget(getOperation());
  }
};

} // namespace
