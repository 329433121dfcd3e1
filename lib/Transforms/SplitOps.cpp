//===- SplitOps.cpp - accel-split-ops pass --------------------------------===//
//
// Divides card ops across the cores of their card. Each op offers its split
// rules (SplitOpInterface); a roofline model of the target prices running
// the op whole on one core against each rule cut into one piece per core,
// and the cheapest wins if it saves enough to pay for the pieces. Pieces
// read slices of the operands their rule cuts -- the producer's own pieces
// when it was cut the same way, constants cut at compile time, an
// accel.slice otherwise -- and an accel.concat re-joins them for consumers
// that need the whole value (it folds away when nobody does).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "CostModel.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUTarget.h"

#include "nnaccel/ISA/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

#define DEBUG_TYPE "accel-split-ops"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELSPLITOPS
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// A value computed in pieces: cut along `axis` at `bounds` (pieces + 1
/// offsets), piece i being `pieces[i]`.
struct PieceSet {
  int64_t axis = 0;
  SmallVector<int64_t> bounds;
  SmallVector<Value> pieces;
};

/// Bytes one index along `axis` of `type` spans (the elements inside it).
uint64_t getAxisStrideBytes(RankedTensorType type, int64_t axis) {
  SmallVector<int64_t> inner(type.getShape().drop_front(axis + 1));
  inner.insert(inner.begin(), 1);
  return getDenseByteSize(RankedTensorType::get(inner, type.getElementType()));
}

/// True when cutting `axis` of `type` gives contiguous parts (every outer
/// dimension is 1): slices are then views and the re-join is in place.
bool isOuterAxis(RankedTensorType type, int64_t axis) {
  return llvm::all_of(type.getShape().take_front(axis),
                      [](int64_t dim) { return dim == 1; });
}

/// The extent of the dimension a rule cuts: the result axis, or for a
/// reduction the summed dimension of the operands it cuts.
int64_t getCutExtent(Operation *op, const SplitRule &rule) {
  if (!rule.reduction)
    return cast<RankedTensorType>(op->getResult(0).getType())
        .getDimSize(rule.resultAxis);
  for (auto [operand, axis] : llvm::zip(op->getOperands(), rule.operandAxes))
    if (axis >= 0)
      return cast<RankedTensorType>(operand.getType()).getDimSize(axis);
  return 0;
}

/// Bounds cutting `extent` into `pieces` ranges of whole `unit`s (the
/// remainder joins the last), or empty when there are too few units.
SmallVector<int64_t> getEvenBounds(int64_t extent, int64_t unit,
                                   int64_t pieces) {
  int64_t units = extent / unit;
  if (pieces < 2 || pieces > units)
    return {};
  SmallVector<int64_t> bounds{0};
  for (int64_t i = 0; i < pieces; ++i) {
    int64_t share = units / pieces + (i < units % pieces ? 1 : 0);
    bounds.push_back(bounds.back() + share * unit);
  }
  bounds.back() = extent;
  return bounds;
}

/// The axis along which the sum of a reduction's partials divides into
/// `pieces` contiguous, `align`-aligned bands (its first non-unit axis,
/// when that is long enough), so each piece's core sums one band; -1 when
/// none does and one core sums everything.
int64_t getBandAxis(RankedTensorType type, int64_t pieces, uint64_t align,
                    SmallVector<int64_t> &bounds) {
  for (int64_t axis = 0; axis < type.getRank(); ++axis) {
    if (type.getDimSize(axis) == 1)
      continue;
    uint64_t stride = getAxisStrideBytes(type, axis);
    int64_t unit = stride ? int64_t(align / std::gcd(stride, align)) : 1;
    bounds = getEvenBounds(type.getDimSize(axis), unit, pieces);
    return bounds.empty() ? -1 : axis;
  }
  return -1;
}

/// A split must bring the modelled cycles below this share of running the
/// op whole: the model already charges pieces, copies and waits, so the
/// margin only keeps estimates within the model's noise from flipping.
constexpr double kMinSaving = 0.95;

/// True when the memory plan will make the re-join of `op`'s pieces cut
/// along `axis` at `bounds` in place although the axis is inner: the op's
/// kernel writes result rows at the concat's pitch (supportsResultPitch),
/// and every piece's columns and the concat's rows start DRAM-aligned
/// (`align`) in whole bytes. (accel-plan-card-memory decides; this only
/// keeps the price honest.)
bool isStridedJoinInPlace(Operation *op, int64_t axis, ArrayRef<int64_t> bounds,
                          uint64_t align) {
  auto kernel = dyn_cast<CardKernelOpInterface>(op);
  if (!kernel || !kernel.supportsResultPitch(axis))
    return false;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<::nnaccel::DType> dtype = getElementDType(type);
  if (!dtype || ::nnaccel::elementBytes(*dtype) == 0)
    return false;
  uint64_t stride = getAxisStrideBytes(type, axis);
  return llvm::all_of(bounds, [&](int64_t bound) {
    return uint64_t(bound) * stride % align == 0;
  });
}

/// One candidate way to run an op: a rule cut at `bounds`, or whole.
struct SplitChoice {
  const SplitRule *rule = nullptr; // null: whole
  SmallVector<int64_t> bounds;
  double cycles = 0;
};

class OpSplitter {
public:
  OpSplitter(const TargetDesc &target, unsigned cores, uint64_t align)
      : model(target), cores(cores), align(align) {}

  /// Splits `op` when that pays; returns the number of pieces (0: kept
  /// whole).
  size_t run(Operation *op, int64_t card, unsigned &followed);

private:
  /// Piece extents along the rule's axis are multiples of this, so every
  /// slice and part starts DRAM-aligned (the DMA's requirement, whether
  /// the part is a view or copied).
  int64_t getUnit(Operation *op, const SplitRule &rule) const;
  /// Prices `rule` cut into one piece per core, or into `wanted` pieces
  /// when a hint asks for that many (infinite when it cannot).
  SplitChoice price(Operation *op, const SplitRule &rule, int64_t wanted) const;
  /// True when `rule` needs an operand joined whose pieces another rule of
  /// `op` would read directly. Every core then waits for all of the
  /// producer's pieces, and the consumers for all of the op's: the cores'
  /// imbalance, which a chain of pieces absorbs, is paid at both barriers.
  /// The model cannot see it, so such a rule is charged for its re-join as
  /// if it copied (measured: transformer_small at sequence length 120
  /// loses 14 % when its feed-forward matmuls leave the row chain for
  /// column pieces joined in place).
  bool breaksChain(Operation *op, const SplitRule &rule) const;
  /// The hint's cores, chunks and kind, checked against the target and
  /// the op; warns about and drops what cannot be honoured.
  struct CheckedHint {
    SmallVector<int64_t> cores;
    int64_t chunks = 0;
    std::optional<SplitKind> kind;
  };
  CheckedHint checkHint(Operation *op, HintAttr hint) const;
  Value getOperandPiece(OpBuilder &builder, Value operand, int64_t axis,
                        const SmallVector<int64_t> &bounds, size_t piece,
                        Attribute placement, unsigned &followed);
  /// Sums the partial results of a reduction rule into `op`'s result:
  /// each piece's core sums one band of all partials (views of them) and
  /// the bands are re-joined in place, or one chain sums all when the
  /// result has no such bands.
  Value joinPartials(OpBuilder &builder, Operation *op, const SplitRule &rule,
                     ArrayRef<Value> partials, ArrayRef<int64_t> pieceCores,
                     int64_t card);

  CoreCostModel model;
  unsigned cores;
  uint64_t align;
  /// Values computed in pieces so far (the concat that re-joins them).
  llvm::DenseMap<Value, PieceSet> pieceSets;
};

int64_t OpSplitter::getUnit(Operation *op, const SplitRule &rule) const {
  int64_t unit = std::max<int64_t>(rule.alignment, 1);
  auto require = [&](Value value, int64_t axis) {
    auto type = cast<RankedTensorType>(value.getType());
    uint64_t stride = getAxisStrideBytes(type, axis);
    if (stride == 0)
      return;
    int64_t need = int64_t(align / std::gcd(stride, align));
    unit = std::lcm(unit, need);
  };
  if (!rule.reduction)
    require(op->getResult(0), rule.resultAxis);
  for (auto [operand, axis] : llvm::zip(op->getOperands(), rule.operandAxes))
    if (axis >= 0 && !operand.getDefiningOp<ConstantOp>())
      require(operand, axis);
  return unit;
}

bool OpSplitter::breaksChain(Operation *op, const SplitRule &rule) const {
  SmallVector<SplitRule> rules = cast<SplitOpInterface>(op).getSplitRules();
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    auto it = pieceSets.find(operand);
    if (it == pieceSets.end() || rule.operandAxes[index] == it->second.axis)
      continue;
    if (llvm::any_of(rules, [&](const SplitRule &other) {
          return other.operandAxes[index] == it->second.axis;
        }))
      return true;
  }
  return false;
}

SplitChoice OpSplitter::price(Operation *op, const SplitRule &rule,
                              int64_t wanted) const {
  SplitChoice choice;
  choice.rule = &rule;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t extent = getCutExtent(op, rule);
  int64_t unit = getUnit(op, rule);
  int64_t units = extent / unit;
  // The producer's cut, when an operand the rule cuts was cut along the
  // same axis: following it needs no slice and no re-join in between.
  const PieceSet *follow = nullptr;
  for (auto [operand, axis] : llvm::zip(op->getOperands(), rule.operandAxes)) {
    auto it = pieceSets.find(operand);
    if (axis >= 0 && it != pieceSets.end() && it->second.axis == axis &&
        it->second.bounds.back() == extent) {
      follow = &it->second;
      break;
    }
  }
  if (follow && (wanted == 0 || int64_t(follow->bounds.size()) == wanted + 1) &&
      llvm::all_of(ArrayRef<int64_t>(follow->bounds).drop_back(),
                   [&](int64_t bound) { return bound % unit == 0; }))
    choice.bounds = follow->bounds;
  else {
    int64_t pieces = wanted ? wanted : std::min<int64_t>(cores, units);
    choice.bounds = getEvenBounds(extent, unit, pieces);
    if (choice.bounds.empty()) {
      choice.cycles = INFINITY;
      return choice;
    }
  }
  size_t pieces = choice.bounds.size() - 1;
  double largest = 0;
  for (size_t i = 0; i < pieces; ++i)
    largest =
        std::max<double>(largest, choice.bounds[i + 1] - choice.bounds[i]);
  double fraction = largest / double(extent);
  SmallVector<double> operandFraction;
  double extra = model.overhead();
  for (auto [operand, axis] : llvm::zip(op->getOperands(), rule.operandAxes)) {
    operandFraction.push_back(axis >= 0 ? fraction : 1.0);
    if (axis < 0 || operand.getDefiningOp<ConstantOp>())
      continue;
    auto it = pieceSets.find(operand);
    bool followed = it != pieceSets.end() && it->second.axis == axis &&
                    it->second.bounds == choice.bounds;
    auto type = cast<RankedTensorType>(operand.getType());
    if (!followed && !isOuterAxis(type, axis))
      extra += model.copy(getDenseByteSize(type)) / double(pieces);
  }
  // Consumers that need the whole result wait for every piece; a
  // non-contiguous result is copied together, unless the pieces write
  // their columns straight into it and the rule breaks no chain of pieces
  // (see breaksChain).
  uint64_t resultBytes = getDenseByteSize(resultType);
  if (rule.reduction) {
    // Every piece writes a whole partial result; then each core sums its
    // band of all partials, or, without bands, pieces - 1 adds (each
    // reading two partials and writing one) on one core.
    extra += model.stream(uint64_t(double(resultBytes) * (1 - fraction)));
    SmallVector<int64_t> bands;
    if (getBandAxis(resultType, int64_t(pieces), align, bands) >= 0)
      extra +=
          model.stream((pieces + 1) * resultBytes / pieces) + model.overhead();
    else
      extra += double(pieces - 1) * model.stream(3 * resultBytes);
  } else if (!isOuterAxis(resultType, rule.resultAxis) &&
             !(isStridedJoinInPlace(op, rule.resultAxis, choice.bounds,
                                    align) &&
               !breaksChain(op, rule))) {
    extra += model.copy(resultBytes);
  }
  choice.cycles =
      model.estimate(op, operandFraction, fraction, rule.resultAxis) + extra;
  return choice;
}

Value OpSplitter::getOperandPiece(OpBuilder &builder, Value operand,
                                  int64_t axis,
                                  const SmallVector<int64_t> &bounds,
                                  size_t piece, Attribute placement,
                                  unsigned &followed) {
  if (axis < 0) // whole, or the first piece's only
    return operand;
  auto it = pieceSets.find(operand);
  if (it != pieceSets.end() && it->second.axis == axis &&
      it->second.bounds == bounds) {
    ++followed;
    return it->second.pieces[piece];
  }
  // Slices belong to the piece that reads them (and carry its node name).
  Location loc = builder.getInsertionPoint()->getLoc();
  if (auto constant = operand.getDefiningOp<ConstantOp>())
    if (ElementsAttr sliced = sliceConstantAlongAxis(
            constant.getValue(), axis, bounds[piece], bounds[piece + 1]))
      return builder.create<ConstantOp>(loc, sliced);
  auto type = cast<RankedTensorType>(operand.getType());
  SmallVector<int64_t> starts(type.getRank(), 0), ends(type.getShape()),
      steps(type.getRank(), 1);
  starts[axis] = bounds[piece];
  ends[axis] = bounds[piece + 1];
  // A slice that is not a view copies: on the core that reads it.
  auto slice = builder.create<SliceOp>(loc, operand, starts, ends, steps);
  slice->setAttr(AccelDialect::getPlacementAttrName(), placement);
  return slice;
}

static StringRef getKindName(SplitKind kind) {
  return kind == SplitKind::DataParallel ? "data" : "model";
}

OpSplitter::CheckedHint OpSplitter::checkHint(Operation *op,
                                              HintAttr hint) const {
  CheckedHint checked;
  if (!hint)
    return checked;
  for (int64_t core : hint.getCores())
    if (core >= int64_t(cores)) {
      op->emitWarning() << describeNode(op) << ": core hint " << core
                        << " is out of range (the card has " << cores
                        << " cores to use); the compiler chooses its cores";
      return checked;
    }
  checked.cores.assign(hint.getCores().begin(), hint.getCores().end());
  if (std::optional<int64_t> chunks = hint.getChunks())
    checked.chunks = *chunks;
  if (ParallelKindAttr kind = hint.getParallel())
    checked.kind = kind.getValue() == ParallelKind::data
                       ? SplitKind::DataParallel
                       : SplitKind::ModelParallel;
  return checked;
}

Value OpSplitter::joinPartials(OpBuilder &builder, Operation *op,
                               const SplitRule &rule, ArrayRef<Value> partials,
                               ArrayRef<int64_t> pieceCores, int64_t card) {
  auto splittable = cast<SplitOpInterface>(op);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> bounds;
  int64_t axis = getBandAxis(type, int64_t(partials.size()), align, bounds);
  if (axis < 0)
    return splittable.buildReductionJoin(builder, rule, partials);
  MLIRContext *context = op->getContext();
  SmallVector<Value> bands;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    Attribute placement =
        PlacementAttr::get(context, card, {pieceCores[i]}, {}, {});
    Operation *before = op->getPrevNode();
    SmallVector<int64_t> starts(type.getRank(), 0), ends(type.getShape()),
        steps(type.getRank(), 1);
    starts[axis] = bounds[i];
    ends[axis] = bounds[i + 1];
    SmallVector<Value> slices;
    for (Value partial : partials)
      slices.push_back(
          builder.create<SliceOp>(op->getLoc(), partial, starts, ends, steps));
    bands.push_back(splittable.buildReductionJoin(builder, rule, slices));
    // The band's slices, adds and activation run on the piece's core.
    for (Operation *created = before ? before->getNextNode()
                                     : &op->getBlock()->front();
         created != op; created = created->getNextNode())
      if (!created->hasAttr(AccelDialect::getPlacementAttrName()))
        created->setAttr(AccelDialect::getPlacementAttrName(), placement);
  }
  return builder.create<ConcatOp>(op->getLoc(), bands,
                                  builder.getI64IntegerAttr(axis));
}

size_t OpSplitter::run(Operation *op, int64_t card, unsigned &followed) {
  MLIRContext *context = op->getContext();
  // Cores already chosen (pieces of an earlier run, or a placement the
  // user wrote) stay.
  auto placement =
      op->getAttrOfType<PlacementAttr>(AccelDialect::getPlacementAttrName());
  if (placement && !placement.getCores().empty())
    return 0;
  CheckedHint hint = checkHint(
      op, op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName()));
  auto pinTo = [&](int64_t core) {
    op->setAttr(AccelDialect::getPlacementAttrName(),
                getPlacementOnCores(op, card, {core}));
    return 0;
  };
  int64_t wanted = hint.chunks ? hint.chunks : int64_t(hint.cores.size());
  auto splittable = dyn_cast<SplitOpInterface>(op);
  if (!splittable || op->getNumResults() != 1) {
    if (wanted > 1)
      op->emitWarning() << describeNode(op) << ": cannot be split into "
                        << wanted << " pieces (" << op->getName()
                        << " has no split rule); it runs on one core";
    return hint.cores.empty() ? 0 : pinTo(hint.cores.front());
  }
  if (wanted == 1)
    return hint.cores.empty() ? pinTo(0) : pinTo(hint.cores.front());

  SmallVector<SplitRule> rules = splittable.getSplitRules();
  if (hint.kind) {
    SmallVector<SplitRule> ofKind;
    for (const SplitRule &rule : rules)
      if (rule.kind == *hint.kind)
        ofKind.push_back(rule);
    if (ofKind.empty())
      op->emitWarning() << describeNode(op) << ": has no "
                        << getKindName(*hint.kind)
                        << "-parallel split; the compiler chooses the split";
    else
      rules = std::move(ofKind);
  }
  SplitChoice best;
  best.cycles = model.estimate(op);
  if (wanted > 1) {
    // The user asked for this many pieces: the cheapest rule that can.
    best.cycles = INFINITY;
    for (const SplitRule &rule : rules) {
      SplitChoice choice = price(op, rule, wanted);
      if (choice.cycles < best.cycles)
        best = std::move(choice);
    }
    if (!best.rule) {
      op->emitWarning() << describeNode(op) << ": cannot be split into "
                        << wanted
                        << " pieces (too few aligned units along every "
                           "axis it splits); the compiler chooses the split";
      best = SplitChoice();
      best.cycles = model.estimate(op);
      wanted = 0;
      hint.cores.clear();
    }
  }
  if (wanted == 0) {
    double threshold = kMinSaving * best.cycles;
    for (const SplitRule &rule : rules) {
      SplitChoice choice = price(op, rule, 0);
      if (choice.cycles < threshold && choice.cycles < best.cycles)
        best = std::move(choice);
    }
  }
  if (!best.rule)
    return 0;

  const SplitRule &rule = *best.rule;
  OpBuilder builder(op);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  PieceSet set;
  SmallVector<int64_t> pieceCores;
  set.axis = rule.resultAxis;
  set.bounds = best.bounds;
  size_t pieces = best.bounds.size() - 1;
  for (size_t i = 0; i < pieces; ++i) {
    int64_t core = hint.cores.empty() ? int64_t(i % cores)
                                      : hint.cores[i % hint.cores.size()];
    pieceCores.push_back(core);
    Attribute piecePlacement = getPlacementOnCores(op, card, {core});
    SmallVector<Value> operands;
    for (auto [operand, axis] : llvm::zip(op->getOperands(), rule.operandAxes))
      if (axis != kFirstPieceOnly || i == 0)
        operands.push_back(getOperandPiece(builder, operand, axis, best.bounds,
                                           i, piecePlacement, followed));
    SmallVector<int64_t> shape(resultType.getShape());
    if (!rule.reduction)
      shape[rule.resultAxis] = best.bounds[i + 1] - best.bounds[i];
    Operation *piece = splittable.buildSplitPiece(
        builder, rule, operands,
        RankedTensorType::get(shape, resultType.getElementType()));
    piece->setAttr(AccelDialect::getPlacementAttrName(), piecePlacement);
    piece->setAttr(AccelDialect::getSplitAttrName(),
                   DenseI64ArrayAttr::get(context, {rule.resultAxis, int64_t(i),
                                                    int64_t(pieces)}));
    set.pieces.push_back(piece->getResult(0));
  }
  if (rule.reduction) {
    op->getResult(0).replaceAllUsesWith(
        joinPartials(builder, op, rule, set.pieces, pieceCores, card));
    op->erase();
    return pieces;
  }
  auto concat = builder.create<ConcatOp>(op->getLoc(), set.pieces,
                                         builder.getI64IntegerAttr(set.axis));
  op->getResult(0).replaceAllUsesWith(concat.getResult());
  pieceSets[concat.getResult()] = std::move(set);
  op->erase();
  return pieces;
}

/// An op whose card kernel runs it on several cores as one unit and
/// prefers that (getPreferredKernelCores > 1: a batch-1 recurrence splits
/// its gate columns and exchanges h every step) is not cut into pieces: it
/// is placed on the first cores worth using, at most `cores`. Core hints
/// stay. Returns true when it placed `op`.
bool placeOnKernelCores(Operation *op, int64_t card, unsigned cores,
                        const TargetDesc &target) {
  auto kernel = dyn_cast<CardKernelOpInterface>(op);
  auto placement =
      op->getAttrOfType<PlacementAttr>(AccelDialect::getPlacementAttrName());
  if (!kernel || (placement && !placement.getCores().empty()))
    return false;
  unsigned most = std::min(kernel.getMaxKernelCores(target), cores);
  SmallVector<int64_t> list;
  auto hint = op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
  if (hint && (!hint.getCores().empty() || hint.getChunks()) && most >= 2) {
    // The user's cores (or the first `chunks`), as far as the kernel and
    // the card go; out-of-range cores are OpSplitter's to warn about.
    if (!hint.getCores().empty())
      list.assign(hint.getCores().begin(), hint.getCores().end());
    else
      for (int64_t core = 0; core < *hint.getChunks(); ++core)
        list.push_back(core);
    if (llvm::any_of(list,
                     [&](int64_t core) { return core >= int64_t(cores); }))
      return false;
    if (list.size() > most) {
      op->emitWarning() << describeNode(op) << ": its kernel uses at most "
                        << most
                        << " cores for these shapes; it runs on the first "
                        << most << " of the " << list.size() << " asked for";
      list.resize(most);
    }
  } else {
    unsigned count = std::min(kernel.getPreferredKernelCores(target), cores);
    if (count < 2)
      return false;
    list.resize(count);
    std::iota(list.begin(), list.end(), 0);
  }
  if (list.size() < 2)
    return false;
  op->setAttr(AccelDialect::getPlacementAttrName(),
              getPlacementOnCores(op, card, list));
  return true;
}

struct AccelSplitOpsPass
    : mlir::nnaccel::impl::AccelSplitOpsBase<AccelSplitOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    const TargetDesc *target = npu::lookupTarget(getOperation());
    if (!target)
      return signalPassFailure();
    unsigned cores = std::max<unsigned>(target->coresPerCard, 1);
    if (maxCores)
      cores = std::min<unsigned>(cores, maxCores);
    // With one core nothing splits, but hints are still checked.
    uint64_t align = std::max<uint64_t>(target->memory(Space::Dram).align, 1);
    getOperation().walk([&](CardPartitionOp partition) {
      OpSplitter splitter(*target, cores, align);
      unsigned followed = 0;
      Block &body = partition.getBody().front();
      for (Operation &op : llvm::make_early_inc_range(body)) {
        if (placeOnKernelCores(&op, partition.getCard(), cores, *target))
          continue;
        if (size_t pieces = splitter.run(&op, partition.getCard(), followed)) {
          ++numSplitOps;
          numPieces += pieces;
        }
      }
      numFollowed += followed;
      // Re-joins, slices and constants nobody reads any more (consumers
      // took the pieces); users come later, so one backward sweep does.
      for (Operation &op :
           llvm::make_early_inc_range(llvm::reverse(body.getOperations())))
        if (isa<ConcatOp, SliceOp, ConstantOp>(op) && op.use_empty())
          op.erase();
    });
  }
};
} // namespace
