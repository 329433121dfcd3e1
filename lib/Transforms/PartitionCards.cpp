//===- PartitionCards.cpp - accel-partition-cards pass --------------------===//
//
// Spreads the card ops of a model that does not fit one card's DRAM over
// several cards. A card holds the weights (constant operands) of the ops it
// runs and their activations; the pass fills cards so that each stays
// within the target's dram.bytes:
//
// * embedding tables (embedding_bag and row gathers of a constant table)
//   are model-parallel, balanced as Facebook's platform places tables (by
//   size and lookups): in program order in contiguous runs of about equal
//   lookup traffic per card, else of equal bytes (largest first to the
//   least-filled card when neither fits);
// * the other ops keep program order on one card at a time (the card with
//   the most room when they start), so a dense chain crosses cards only
//   where it must; an op filling more than half a card is first cut into
//   pieces (shardOversized), along its output columns (joined by a concat)
//   or along its reduction (joined by a sum), whichever moves fewer bytes
//   between cards;
// * a product summing over a concat of several cards' parts is split by
//   card along its reduction (shardReductions), as ETH splits FC layers
//   across nodes: only partial sums cross cards.
//
// A model that fits one card keeps the placement accel-assign-placement
// gave it; so do ops whose card a user asked for. A model that does not fit
// the cards at all is an error that says how many bytes it needs per card
// against the bytes a card has, and which tensors dominate.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "DeadConstants.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "Accel/ElementTypes.h"
#include "Accel/SplitRule.h"
#include "NPU/NPUTarget.h"

#include "nnaccel/ISA/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

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

/// Bytes a table lookup gathers per run: its index count (the indices'
/// static shape) times the table's row bytes.
uint64_t getLookupBytes(Operation *op) {
  auto table = cast<RankedTensorType>(op->getOperand(0).getType());
  auto indices = cast<RankedTensorType>(op->getOperand(1).getType());
  if (!table.hasStaticShape() || !indices.hasStaticShape() ||
      table.getDimSize(0) == 0)
    return getDenseByteSize(table);
  uint64_t rowBytes = getDenseByteSize(table) / uint64_t(table.getDimSize(0));
  return uint64_t(indices.getNumElements()) * rowBytes;
}

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
    uint64_t total = 0;
    auto collect = [&]() {
      ops.clear();
      total = 0;
      llvm::DenseSet<Operation *> allConstants;
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
    };
    collect();
    if (ops.empty() || total <= capacity) {
      numCardsUsed = ops.empty() ? 0 : 1;
      return;
    }
    if (numCards < 2)
      return reportTooLarge(func, ops, total, capacity, numCards);
    if (shardOversized(ops, capacity))
      collect();

    SmallVector<CardLoad> loads(numCards);
    // Ops on the card the user asked for go first.
    for (OpFootprint &fp : ops)
      if (fp.pinned && fp.card < numCards)
        loads[fp.card].add(fp);
    auto fits = [&](int64_t card, const OpFootprint &fp) {
      return loads[card].bytes + loads[card].cost(fp) <= capacity;
    };
    // The least-filled card `fp` fits, if any.
    auto roomiest = [&](const OpFootprint &fp) -> std::optional<int64_t> {
      std::optional<int64_t> best;
      for (int64_t card = 0; card < numCards; ++card)
        if (fits(card, fp) && (!best || loads[card].bytes < loads[*best].bytes))
          best = card;
      return best;
    };
    // Tables: in program order, in contiguous runs of about equal lookup
    // traffic per card (a model's pooled tables usually feed one concat in
    // that order, so each card's parts stay one run, which shardReductions
    // needs), else of about equal bytes; when neither fits the cards,
    // largest first, each to the least-filled card it fits.
    SmallVector<OpFootprint *> tables;
    for (OpFootprint &fp : ops)
      if (fp.table && !fp.pinned)
        tables.push_back(&fp);
    SmallVector<CardLoad> contiguous;
    auto assignContiguous = [&](auto weightOf) {
      contiguous.assign(loads.begin(), loads.end());
      uint64_t totalWeight = 0, before = 0;
      for (OpFootprint *fp : tables)
        totalWeight += weightOf(*fp);
      for (OpFootprint *fp : tables) {
        uint64_t weight = weightOf(*fp);
        // The card whose share holds the table's middle.
        int64_t card = std::min<int64_t>(
            numCards - 1, int64_t((before + weight / 2) * uint64_t(numCards) /
                                  std::max<uint64_t>(totalWeight, 1)));
        before += weight;
        if (contiguous[card].bytes + contiguous[card].cost(*fp) > capacity)
          return false;
        fp->card = card;
        contiguous[card].add(*fp);
      }
      return true;
    };
    // A lookup's time is the rows it gathers (every index of the bag or
    // gather, a static shape) times the table's row bytes: Facebook places
    // tables by size and by lookups for 15-34 % lower SLS latency.
    bool contiguousFits = assignContiguous([](const OpFootprint &fp) {
                            return getLookupBytes(fp.op);
                          }) ||
                          assignContiguous([](const OpFootprint &fp) {
                            return CardLoad().cost(fp);
                          });
    if (contiguousFits) {
      loads = std::move(contiguous);
    } else {
      llvm::stable_sort(tables, [&](OpFootprint *a, OpFootprint *b) {
        return CardLoad().cost(*a) > CardLoad().cost(*b);
      });
      for (OpFootprint *fp : tables) {
        std::optional<int64_t> best = roomiest(*fp);
        if (!best)
          return reportTooLarge(func, ops, total, capacity, numCards, fp->op);
        fp->card = *best;
        loads[*best].add(*fp);
      }
    }
    // The rest in program order: stay on the current card while it has
    // room, else move to the card with the most room.
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
    shardReductions(func, loads, capacity);
    groupByCard(func.getBody().front());
  }

  /// Splits an op that would fill more than half a card (weights and
  /// result) along a model-parallel split rule into pieces of at most half
  /// a card, so that a weight larger than a card still places: along its
  /// output columns or channels, re-joined by a concat (the row-block split
  /// Intel uses to spread FC layers over FPGAs), or along its reduction,
  /// the partial results summed (column blocks), whichever moves fewer
  /// bytes between cards -- the whole input to every piece and the result
  /// parts to the concat, against a slice of the input to each piece and a
  /// whole-size partial result from each (so a wide-input, narrow-output
  /// layer is cut along its reduction).
  /// The pieces are placed like any other op afterwards. Ops a hint pins
  /// stay whole. Returns true when it split any.
  bool shardOversized(ArrayRef<OpFootprint> ops, uint64_t capacity) {
    StringRef placementName = AccelDialect::getPlacementAttrName();
    const uint64_t limit = capacity / 2;
    bool changed = false;
    for (const OpFootprint &fp : ops) {
      auto splittable = dyn_cast<SplitOpInterface>(fp.op);
      if (!splittable || fp.pinned || fp.op->getNumResults() != 1)
        continue;
      uint64_t bytes = fp.activationBytes;
      for (ConstantOp constant : fp.constants)
        bytes += getDenseByteSize(constant.getType());
      if (bytes <= limit)
        continue;
      // The model-parallel rules that cut a constant operand: along the
      // result's columns (pieces joined by a concat) or along the
      // reduction (partial results joined by a sum).
      const SmallVector<SplitRule> rules = splittable.getSplitRules();
      const SplitRule *columns = nullptr, *reduction = nullptr;
      for (const SplitRule &candidate : rules) {
        bool cutsConstant = llvm::any_of(
            llvm::zip(fp.op->getOperands(), candidate.operandAxes),
            [](auto entry) {
              return std::get<1>(entry) >= 0 &&
                     std::get<0>(entry).template getDefiningOp<ConstantOp>();
            });
        if (candidate.kind != SplitKind::ModelParallel || !cutsConstant)
          continue;
        if (!candidate.reduction && candidate.resultAxis >= 0 && !columns)
          columns = &candidate;
        if (candidate.reduction && !candidate.operandAxes.empty() &&
            candidate.operandAxes[0] >= 0 &&
            !fp.op->getOperand(0).getDefiningOp<ConstantOp>() && !reduction)
          reduction = &candidate;
      }
      if (!columns && !reduction)
        continue;
      auto resultType = cast<RankedTensorType>(fp.op->getResult(0).getType());
      int64_t pieces = int64_t((bytes + limit - 1) / limit);
      if (pieces < 2)
        continue;
      // Chosen by the bytes that cross cards when the pieces land on
      // different cards: cut columns need the whole input on every card and
      // send their parts of the result to the concat; a cut reduction
      // sends each card its slice of the input and a whole-size partial
      // result to the sum. (The same MACs either way.)
      const SplitRule *rule = columns;
      if (reduction) {
        const double input =
            double(getDenseByteSize(fp.op->getOperand(0).getType()));
        const double result = double(getDenseByteSize(resultType));
        const double others = double(pieces - 1);
        const double byColumns = others * input + others / pieces * result;
        const double byReduction = others / pieces * input + others * result;
        // The reduction must halve the bytes: its input slices and sums are
        // ops of their own, and pieces may still share a card (the MLP's
        // 1024 x 512 Gemm on 3 MiB cards, cut along K for 16 KiB against
        // 20 KiB: 19.7k cycles instead of 16.8k).
        if (!columns || 2 * byReduction < byColumns)
          rule = reduction;
      }
      const bool summed = rule->reduction;
      int64_t extent =
          summed ? cast<RankedTensorType>(fp.op->getOperand(0).getType())
                       .getDimSize(rule->operandAxes[0])
                 : resultType.getDimSize(rule->resultAxis);
      // Whole native tiles where the extent allows it.
      int64_t unit = std::max<int64_t>(rule->alignment, 1);
      if (extent >= 64 * pieces && 64 % unit == 0)
        unit = 64;
      int64_t units = extent / unit;
      if (units < pieces)
        continue;
      SmallVector<int64_t> bounds{0};
      for (int64_t i = 0; i < pieces; ++i)
        bounds.push_back(bounds.back() +
                         (units / pieces + (i < units % pieces ? 1 : 0)) *
                             unit);
      bounds.back() = extent;
      // Slice every cut constant first: a constant that cannot be sliced
      // leaves the op whole.
      SmallVector<SmallVector<ElementsAttr>> slices(pieces);
      bool ok = true;
      for (int64_t i = 0; i < pieces && ok; ++i)
        for (auto [operand, axis] :
             llvm::zip(fp.op->getOperands(), rule->operandAxes)) {
          auto constant = operand.getDefiningOp<ConstantOp>();
          if (axis < 0 || !constant) {
            slices[i].push_back({});
            continue;
          }
          ElementsAttr sliced = sliceConstantAlongAxis(
              constant.getValue(), axis, bounds[i], bounds[i + 1]);
          ok = bool(sliced);
          slices[i].push_back(sliced);
          if (!ok)
            break;
        }
      if (!ok)
        continue;
      Operation *op = fp.op;
      Attribute placement = op->getAttr(placementName);
      OpBuilder builder(op);
      Location loc = op->getLoc();
      SmallVector<Value> results;
      for (int64_t i = 0; i < pieces; ++i) {
        SmallVector<Value> operands;
        for (auto [position, operand, axis] :
             llvm::enumerate(op->getOperands(), rule->operandAxes)) {
          if (axis == kFirstPieceOnly) {
            if (i == 0)
              operands.push_back(operand);
          } else if (axis < 0) {
            operands.push_back(operand);
          } else if (slices[i][position]) {
            operands.push_back(
                builder.create<ConstantOp>(loc, slices[i][position])
                    .getResult());
          } else {
            auto type = cast<RankedTensorType>(operand.getType());
            SmallVector<int64_t> starts(type.getRank(), 0),
                ends(type.getShape()), steps(type.getRank(), 1);
            starts[axis] = bounds[i];
            ends[axis] = bounds[i + 1];
            auto slice =
                builder.create<SliceOp>(loc, operand, starts, ends, steps);
            slice->setAttr(placementName, placement);
            operands.push_back(slice.getResult());
          }
        }
        Type pieceType = resultType;
        if (!summed) {
          SmallVector<int64_t> shape(resultType.getShape());
          shape[rule->resultAxis] = bounds[i + 1] - bounds[i];
          pieceType = RankedTensorType::get(shape, resultType.getElementType());
        }
        Operation *piece =
            splittable.buildSplitPiece(builder, *rule, operands, pieceType);
        piece->setAttr(placementName, placement);
        results.push_back(piece->getResult(0));
      }
      Value joined;
      if (summed) {
        // The sum (and the op's activation), placed like the op.
        Operation *last = op->getPrevNode();
        joined = splittable.buildReductionJoin(builder, *rule, results);
        for (Operation *added = last->getNextNode(); added != op;
             added = added->getNextNode())
          if (!isa<ConstantOp>(added) && !added->hasAttr(placementName) &&
              placement)
            added->setAttr(placementName, placement);
      } else {
        auto concat = builder.create<ConcatOp>(
            loc, results, builder.getI64IntegerAttr(rule->resultAxis));
        if (placement)
          concat->setAttr(placementName, placement);
        joined = concat.getResult();
      }
      op->getResult(0).replaceAllUsesWith(joined);
      eraseWithDeadConstants(op);
      ++numShardedOps;
      changed = true;
    }
    return changed;
  }

  /// Splits a product that sums over a concat of parts made on several
  /// cards (a recommender's first dense layer over its pooled tables) by
  /// its reduction rule: each card multiplies its own parts by their rows
  /// of the weight, and the product's card adds the partial results. Only
  /// the partials then cross cards (M x N values per card instead of every
  /// part), and the parts never leave their card. Each run of consecutive
  /// parts on one card becomes one piece, so the weight rows stay one
  /// slice each; a product whose parts fragment into more runs than twice
  /// the cards, or whose slices would not fit their cards, stays whole.
  /// The sum's order differs from the whole product's (within f32
  /// rounding).
  void shardReductions(func::FuncOp func, MutableArrayRef<CardLoad> loads,
                       uint64_t capacity) {
    StringRef placementName = AccelDialect::getPlacementAttrName();
    auto cardOf = [&](Operation *op) -> std::optional<int64_t> {
      auto placement =
          op ? op->getAttrOfType<PlacementAttr>(placementName) : nullptr;
      if (!placement || placement.getCard() < 0)
        return std::nullopt;
      return placement.getCard();
    };
    MLIRContext *context = &getContext();
    SmallVector<Operation *> candidates;
    func.walk([&](SplitOpInterface op) { candidates.push_back(op); });
    for (Operation *op : candidates) {
      auto splittable = cast<SplitOpInterface>(op);
      std::optional<int64_t> card = cardOf(op);
      if (!card || op->getNumOperands() < 2 ||
          op->hasAttr(AccelDialect::getHintAttrName()))
        continue;
      auto concat = op->getOperand(0).getDefiningOp<ConcatOp>();
      if (!concat || !concat->hasOneUse())
        continue;
      SmallVector<SplitRule> rules = splittable.getSplitRules();
      const SplitRule *rule = nullptr;
      for (const SplitRule &candidate : rules)
        if (candidate.reduction && !candidate.operandAxes.empty() &&
            candidate.operandAxes[0] == int64_t(concat.getAxis()))
          rule = &candidate;
      if (!rule)
        continue;
      // Runs of consecutive parts made on one card, with their range
      // along the summed axis.
      struct Run {
        int64_t card, begin, end;
        SmallVector<Value> parts;
      };
      SmallVector<Run> runs;
      int64_t offset = 0;
      for (Value part : concat.getInputs()) {
        int64_t extent =
            cast<RankedTensorType>(part.getType()).getDimSize(concat.getAxis());
        int64_t partCard = cardOf(part.getDefiningOp()).value_or(*card);
        if (runs.empty() || runs.back().card != partCard)
          runs.push_back({partCard, offset, offset, {}});
        runs.back().end = offset + extent;
        runs.back().parts.push_back(part);
        offset += extent;
      }
      if (runs.size() < 2 || runs.size() > 2 * loads.size() ||
          llvm::all_of(runs, [&](const Run &run) { return run.card == *card; }))
        continue;
      // The other operands' slices, before anything changes.
      SmallVector<SmallVector<ElementsAttr>> slices(runs.size());
      bool ok = true;
      for (auto [index, run] : llvm::enumerate(runs)) {
        uint64_t bytes = 0;
        for (auto [position, operand, axis] :
             llvm::enumerate(op->getOperands(), rule->operandAxes)) {
          if (axis < 0 || position == 0) {
            slices[index].push_back({});
            continue;
          }
          auto constant = operand.getDefiningOp<ConstantOp>();
          ElementsAttr sliced =
              constant ? sliceConstantAlongAxis(constant.getValue(), axis,
                                                run.begin, run.end)
                       : ElementsAttr();
          if (!sliced) {
            ok = false;
            break;
          }
          bytes += getDenseByteSize(sliced.getType());
          slices[index].push_back(sliced);
        }
        bytes += getDenseByteSize(op->getResult(0).getType());
        if (!ok ||
            (run.card != *card && loads[run.card].bytes + bytes > capacity)) {
          ok = false;
          break;
        }
      }
      if (!ok)
        continue;

      OpBuilder builder(op);
      Location loc = op->getLoc();
      auto placedOn = [&](int64_t c) {
        return PlacementAttr::get(context, c, {}, {}, {});
      };
      SmallVector<Value> partials;
      for (auto [index, run] : llvm::enumerate(runs)) {
        Value input = run.parts.front();
        if (run.parts.size() > 1) {
          auto part = builder.create<ConcatOp>(
              concat.getLoc(), run.parts,
              builder.getI64IntegerAttr(concat.getAxis()));
          part->setAttr(placementName, placedOn(run.card));
          input = part.getResult();
        }
        SmallVector<Value> operands;
        for (auto [position, operand, axis] :
             llvm::enumerate(op->getOperands(), rule->operandAxes)) {
          if (position == 0)
            operands.push_back(input);
          else if (axis == kFirstPieceOnly) {
            if (index == 0)
              operands.push_back(operand);
          } else if (axis < 0)
            operands.push_back(operand);
          else
            operands.push_back(
                builder.create<ConstantOp>(loc, slices[index][position])
                    .getResult());
        }
        Operation *piece = splittable.buildSplitPiece(
            builder, *rule, operands, op->getResult(0).getType());
        piece->setAttr(placementName, placedOn(run.card));
        partials.push_back(piece->getResult(0));
        if (run.card != *card)
          loads[run.card].bytes +=
              getDenseByteSize(piece->getResult(0).getType());
      }
      // The sum (and the op's activation) on the product's card.
      Operation *last = op->getPrevNode();
      Value joined = splittable.buildReductionJoin(builder, *rule, partials);
      for (Operation *added = last->getNextNode(); added != op;
           added = added->getNextNode())
        if (!isa<ConstantOp>(added))
          added->setAttr(placementName, placedOn(*card));
      op->getResult(0).replaceAllUsesWith(joined);
      eraseWithDeadConstants(op);
      concat->erase();
      ++numShardedOps;
    }
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
    // when it has none, the first on a card none of whose ops read another
    // card's results (so a card that consumes the others' results comes
    // last, and its own early ops join those in one partition); else the
    // first of all.
    llvm::DenseMap<Operation *, unsigned> position;
    for (auto [index, op] : llvm::enumerate(work))
      position[op] = index;
    std::set<std::pair<unsigned, Operation *>> ready;
    llvm::DenseSet<int64_t> consumers;
    for (Operation *op : work) {
      if (!pending[op])
        ready.insert({position[op], op});
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && inWork.contains(def) && cardOf(def) != cardOf(op))
          consumers.insert(cardOf(op));
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
          return !consumers.contains(cardOf(entry.second));
        });
      if (pick == ready.end())
        pick = ready.begin();
      Operation *op = pick->second;
      ready.erase(pick);
      current = cardOf(op);
      op->moveBefore(terminator);
      for (Operation *user : users[op])
        if (--pending[user] == 0)
          ready.insert({position[user], user});
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
