//===- MaskPadding.cpp - accel-mask-padding pass --------------------------===//
//
// Proves a function compiled at a padded size exact, or makes it exact with
// masks: a forward dataflow walk over the function's block tracks, per
// value, the axes along which it holds padded positions (and whether those
// are known zeros). Position-wise ops carry the padded axes on; ops that mix
// positions along a padded axis (softmax, reductions, contractions) get a
// mask built from the true length, and anything else that mixes positions
// is refused with an error naming the op. Every decision is an attribute,
// so FileCheck tests see it. Padding buckets (docs/passes.md) run this once
// per bucket size.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "Accel/AccelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <map>

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELMASKPADDING
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

#define DEBUG_TYPE "accel-mask-padding"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

constexpr StringLiteral kPaddedAxisAttr = AccelDialect::getPaddedAxisAttrName();
constexpr StringLiteral kPaddedAxesAttr = AccelDialect::getPaddedAxesAttrName();
constexpr StringLiteral kValidLengthAttr =
    AccelDialect::getValidLengthAttrName();
constexpr StringLiteral kPaddingMaskAttr =
    AccelDialect::getPaddingMaskAttrName();

/// Added to the logits of padded positions: exp(-65504 + x - max) is
/// exactly 0 in f32 (and f16) whenever the padded logit x is within 65000
/// of the row's maximum. It is the largest finite f16, so the bias survives
/// --quantize=fp16/bf16 (1e30 would become inf there, and the valid
/// positions' 0 * inf a NaN).
constexpr float kMaskedLogit = -65504.0f;

/// The padded axes of one value: axis -> whether its padded positions are
/// known to be exactly zero (a masked operand, a masked softmax's weights).
using PadInfo = std::map<int64_t, bool>;

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

int64_t getRank(Value value) {
  return cast<ShapedType>(value.getType()).getRank();
}

class PaddingAnalysis {
public:
  PaddingAnalysis(func::FuncOp func, bool exact, StringRef lengthName)
      : func(func), exact(exact), lengthName(lengthName) {}

  /// Walks the function; fails after reporting an op it cannot mask.
  LogicalResult run();

  unsigned numMasked = 0, numTracked = 0;

private:
  LogicalResult visit(Operation *op);
  /// Reports `op` as mixing positions along a padded axis (exact mode), or
  /// stops tracking its results (value mode).
  LogicalResult refuse(Operation *op, const Twine &why);
  /// Records the padded axes of `op`'s result 0 (and the attribute).
  void setResult(Operation *op, const PadInfo &info);
  const PadInfo *lookup(Value value) const {
    auto it = padded.find(value);
    return it == padded.end() || it->second.empty() ? nullptr : &it->second;
  }
  /// The first operand of `op` that holds padded positions, if any.
  std::optional<unsigned> firstPaddedOperand(Operation *op) const;

  // Transfer functions, one per op family.
  void visitBroadcasting(Operation *op);
  LogicalResult visitReshape(ReshapeOp op);
  void visitTranspose(TransposeOp op);
  LogicalResult visitSlice(SliceOp op);
  LogicalResult visitConcat(ConcatOp op);
  LogicalResult visitGather(GatherOp op);
  LogicalResult visitPad(PadOp op);
  LogicalResult visitSoftmax(Operation *op, int64_t axis);
  LogicalResult visitReduce(Operation *op);
  LogicalResult visitLayerNorm(LayerNormOp op);
  LogicalResult visitMatMul(MatMulOp op);
  LogicalResult visitFullyConnected(FullyConnectedOp op);
  LogicalResult visitConv(ConvOp op);
  LogicalResult visitBatchOnly(Operation *op);
  LogicalResult
  maskContraction(Operation *op,
                  ArrayRef<std::pair<unsigned, int64_t>> contracted);

  // Mask construction. Masks are built once, at the top of the function,
  // and broadcast along `axis` of a value of rank `rank`.
  FailureOr<Value> getLength(Operation *user);
  FailureOr<Value> getMask(Operation *user, int64_t axis, int64_t rank);
  FailureOr<Value> getBias(Operation *user, int64_t axis, int64_t rank);
  /// `value` with its padded positions along `axis` zeroed (value * mask).
  FailureOr<Value> zeroPadded(Operation *user, Value value, int64_t axis);
  LogicalResult checkMaskable(Operation *op, Value value);
  void markMasked(Operation *op, StringRef why) {
    op->setAttr(kPaddingMaskAttr, StringAttr::get(op->getContext(), why));
    ++numMasked;
  }

  func::FuncOp func;
  bool exact;
  std::string lengthName;
  llvm::DenseMap<Value, PadInfo> padded;
  /// The padded size L (all padded arguments share one bucket).
  int64_t paddedSize = -1;
  Value length;
  /// Builders' insertion point for masks: after the last mask op made.
  Operation *maskInsertAfter = nullptr;
  /// mask / bias of shape [L, 1 x trailing] by number of trailing ones.
  llvm::DenseMap<int64_t, Value> masks, biases;
};

std::optional<unsigned>
PaddingAnalysis::firstPaddedOperand(Operation *op) const {
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (lookup(operand))
      return index;
  return std::nullopt;
}

LogicalResult PaddingAnalysis::refuse(Operation *op, const Twine &why) {
  if (!exact) {
    // Value mode promises nothing: guess that the result axes of the padded
    // size hold padded positions, so that the runtime crops them.
    PadInfo guess;
    if (op->getNumResults() != 0)
      if (auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.getDimSize(d) == paddedSize)
            guess[d] = false;
    setResult(op, guess);
    return success();
  }
  InFlightDiagnostic diag = op->emitOpError();
  if (std::optional<StringRef> node = getNodeName(op->getLoc()))
    diag << "(node '" << *node << "') ";
  return diag << "cannot be padded exactly: " << why
              << " (compile with --pad-mode=value:<v> to pad without "
                 "exactness)";
}

void PaddingAnalysis::setResult(Operation *op, const PadInfo &info) {
  if (info.empty() || op->getNumResults() == 0)
    return;
  padded[op->getResult(0)] = info;
  SmallVector<int64_t> axes;
  for (auto &entry : info)
    axes.push_back(entry.first);
  op->setAttr(kPaddedAxesAttr, DenseI64ArrayAttr::get(op->getContext(), axes));
  ++numTracked;
}

//===----------------------------------------------------------------------===//
// Masks.
//===----------------------------------------------------------------------===//

FailureOr<Value> PaddingAnalysis::getLength(Operation *user) {
  if (length)
    return length;
  MLIRContext *context = func.getContext();
  for (auto [index, arg] : llvm::enumerate(func.getArguments()))
    if (auto name = func.getArgAttrOfType<StringAttr>(index, "onnx.name"))
      if (name.getValue() == lengthName &&
          !func.getArgAttr(index, kValidLengthAttr))
        return user->emitOpError()
               << "needs a true-length input, but the model already has an "
                  "input named '"
               << lengthName << "'";
  auto type = RankedTensorType::get({1}, Float32Type::get(context));
  NamedAttrList attrs;
  attrs.set(kValidLengthAttr, UnitAttr::get(context));
  attrs.set("onnx.name", StringAttr::get(context, lengthName));
  unsigned index = func.getNumArguments();
  func.insertArgument(index, type, attrs.getDictionary(context), func.getLoc());
  length = func.getArgument(index);
  return length;
}

FailureOr<Value> PaddingAnalysis::getMask(Operation *user, int64_t axis,
                                          int64_t rank) {
  int64_t trailing = rank - axis - 1;
  if (Value cached = masks.lookup(trailing))
    return cached;
  FailureOr<Value> len = getLength(user);
  if (failed(len))
    return failure();
  OpBuilder builder(func.getContext());
  Block &entry = func.getBody().front();
  if (maskInsertAfter)
    builder.setInsertionPointAfter(maskInsertAfter);
  else
    builder.setInsertionPointToStart(&entry);
  Location loc = func.getLoc();
  auto f32 = builder.getF32Type();
  Value base = masks.lookup(0);
  if (!base) {
    // mask[i] = clip(length - i, 0, 1): 1 below the length, 0 from it on,
    // exactly, with ops the card runs (no compare/select needed).
    SmallVector<float> positions;
    for (int64_t i = 0; i < paddedSize; ++i)
      positions.push_back(static_cast<float>(i));
    auto rowType = RankedTensorType::get({paddedSize}, f32);
    Value iota = builder.create<ConstantOp>(
        loc, DenseElementsAttr::get(rowType, ArrayRef<float>(positions)));
    Value diff = builder.create<SubOp>(loc, *len, iota);
    base = builder.create<ClipOp>(loc, rowType, diff,
                                  builder.getF32FloatAttr(0.0f),
                                  builder.getF32FloatAttr(1.0f));
    masks[0] = base;
    maskInsertAfter = base.getDefiningOp();
    builder.setInsertionPointAfter(maskInsertAfter);
  }
  if (trailing == 0)
    return base;
  SmallVector<int64_t> shape(trailing + 1, 1);
  shape[0] = paddedSize;
  Value shaped =
      builder.create<ReshapeOp>(loc, RankedTensorType::get(shape, f32), base);
  masks[trailing] = shaped;
  maskInsertAfter = shaped.getDefiningOp();
  return shaped;
}

FailureOr<Value> PaddingAnalysis::getBias(Operation *user, int64_t axis,
                                          int64_t rank) {
  int64_t trailing = rank - axis - 1;
  if (Value cached = biases.lookup(trailing))
    return cached;
  FailureOr<Value> mask = getMask(user, axis, rank);
  if (failed(mask))
    return failure();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointAfter(maskInsertAfter);
  Location loc = func.getLoc();
  auto scalar = RankedTensorType::get({}, builder.getF32Type());
  // (mask - 1) * 65504: 0 on valid positions, -65504 on padded ones.
  Value one = builder.create<ConstantOp>(
      loc, DenseElementsAttr::get(scalar, ArrayRef<float>{1.0f}));
  Value big = builder.create<ConstantOp>(
      loc, DenseElementsAttr::get(scalar, ArrayRef<float>{-kMaskedLogit}));
  Value shifted = builder.create<SubOp>(loc, *mask, one);
  Value bias = builder.create<MulOp>(loc, shifted, big);
  biases[trailing] = bias;
  maskInsertAfter = bias.getDefiningOp();
  return bias;
}

LogicalResult PaddingAnalysis::checkMaskable(Operation *op, Value value) {
  if (cast<ShapedType>(value.getType()).getElementType().isF32())
    return success();
  return op->emitOpError() << "cannot be padded exactly: its operand of type "
                           << value.getType()
                           << " would need a padding mask, and masks are f32";
}

FailureOr<Value> PaddingAnalysis::zeroPadded(Operation *user, Value value,
                                             int64_t axis) {
  if (failed(checkMaskable(user, value)))
    return failure();
  FailureOr<Value> mask = getMask(user, axis, getRank(value));
  if (failed(mask))
    return failure();
  OpBuilder builder(user);
  return builder.create<MulOp>(user->getLoc(), value, *mask).getResult();
}

//===----------------------------------------------------------------------===//
// Transfer functions.
//===----------------------------------------------------------------------===//

/// Elementwise ops (numpy broadcasting, trailing axes aligned): a padded
/// operand axis is the result axis at the same distance from the end. Zero
/// padding survives a product with a zero-padded factor and type changes.
void PaddingAnalysis::visitBroadcasting(Operation *op) {
  int64_t rank = getRank(op->getResult(0));
  bool keepsZeros = isa<MulOp, CastOp, ConvertOp, ReluOp, NegOp, AbsOp>(op);
  PadInfo result;
  for (Value operand : op->getOperands()) {
    const PadInfo *info = lookup(operand);
    if (!info)
      continue;
    int64_t shift = rank - getRank(operand);
    for (auto [axis, zero] : *info) {
      auto [it, inserted] =
          result.try_emplace(axis + shift, zero && keepsZeros);
      if (!inserted)
        it->second = isa<MulOp>(op) ? (it->second || zero)
                                    : (it->second && zero && keepsZeros);
    }
  }
  setResult(op, result);
}

/// A padded axis survives a reshape when some result axis has the same
/// size and the same number of elements before it: only the axes around it
/// were split or merged.
LogicalResult PaddingAnalysis::visitReshape(ReshapeOp op) {
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  PadInfo result;
  for (auto [axis, zero] : *lookup(op.getInput())) {
    int64_t before = 1;
    for (int64_t d = 0; d < axis; ++d)
      before *= in[d];
    std::optional<int64_t> mapped;
    int64_t outBefore = 1;
    for (int64_t d = 0; d < static_cast<int64_t>(out.size()); ++d) {
      if (outBefore == before && out[d] == in[axis]) {
        mapped = d;
        break;
      }
      outBefore *= out[d];
    }
    if (!mapped)
      return refuse(op, "it merges or splits the padded axis " + Twine(axis) +
                            " with other axes");
    result[*mapped] = zero;
  }
  setResult(op, result);
  return success();
}

void PaddingAnalysis::visitTranspose(TransposeOp op) {
  PadInfo result;
  const PadInfo &info = *lookup(op.getInput());
  for (auto [to, from] : llvm::enumerate(op.getPermutation()))
    if (auto it = info.find(from); it != info.end())
      result[static_cast<int64_t>(to)] = it->second;
  setResult(op, result);
}

LogicalResult PaddingAnalysis::visitSlice(SliceOp op) {
  ArrayRef<int64_t> shape = op.getInput().getType().getShape();
  // A copy: setResult may grow the map the lookup points into.
  PadInfo info = *lookup(op.getInput());
  for (auto [axis, zero] : info) {
    (void)zero;
    if (op.getStarts()[axis] != 0 || op.getEnds()[axis] != shape[axis] ||
        op.getSteps()[axis] != 1)
      return refuse(op, "it slices the padded axis " + Twine(axis) +
                            ", so its positions depend on the padded size");
  }
  setResult(op, info);
  return success();
}

LogicalResult PaddingAnalysis::visitConcat(ConcatOp op) {
  int64_t axis = normalizeAxis(op.getAxis(), getRank(op.getResult()));
  PadInfo result;
  for (Value input : op.getInputs()) {
    const PadInfo *info = lookup(input);
    if (!info)
      continue;
    if (info->count(axis))
      return refuse(op, "it concatenates along the padded axis " + Twine(axis) +
                            ", which moves the padded positions "
                            "inside the result");
    for (auto [a, zero] : *info) {
      auto [it, inserted] = result.try_emplace(a, zero);
      if (!inserted)
        it->second = it->second && zero;
    }
  }
  setResult(op, result);
  return success();
}

LogicalResult PaddingAnalysis::visitGather(GatherOp op) {
  int64_t axis = normalizeAxis(op.getAxis(), getRank(op.getData()));
  int64_t indicesRank = getRank(op.getIndices());
  PadInfo result;
  if (const PadInfo *info = lookup(op.getData())) {
    if (info->count(axis))
      return refuse(op, "it gathers along the padded axis " + Twine(axis));
    for (auto [a, zero] : *info)
      result[a < axis ? a : a + indicesRank - 1] = zero;
  }
  // Padded indices pick rows for padded positions only; what they pick is
  // garbage (the pad value is just an index).
  if (const PadInfo *info = lookup(op.getIndices()))
    for (auto [a, zero] : *info) {
      (void)zero;
      result[axis + a] = false;
    }
  setResult(op, result);
  return success();
}

LogicalResult PaddingAnalysis::visitPad(PadOp op) {
  const PadInfo &info = *lookup(op.getInput());
  int64_t rank = getRank(op.getInput());
  for (auto [axis, zero] : info) {
    (void)zero;
    if (op.getPads()[axis] != 0 || op.getPads()[axis + rank] != 0)
      return refuse(op, "it pads the padded axis " + Twine(axis));
  }
  PadInfo result;
  for (auto [axis, zero] : info)
    result[axis] = false;
  setResult(op, result);
  return success();
}

LogicalResult PaddingAnalysis::visitSoftmax(Operation *op, int64_t axis) {
  Value input = op->getOperand(0);
  int64_t rank = getRank(input);
  axis = normalizeAxis(axis, rank);
  const PadInfo &info = *lookup(input);
  PadInfo result;
  for (auto [a, zero] : info)
    result[a] = false;
  if (info.count(axis) && exact) {
    if (failed(checkMaskable(op, input)))
      return failure();
    FailureOr<Value> bias = getBias(op, axis, rank);
    if (failed(bias))
      return failure();
    OpBuilder builder(op);
    Value masked = builder.create<AddOp>(op->getLoc(), input, *bias);
    op->setOperand(0, masked);
    markMasked(op, "softmax");
    // exp(-65504 + x - max) is exactly 0: padded positions get no weight.
    result[axis] = isa<SoftmaxOp>(op);
  }
  setResult(op, result);
  return success();
}

LogicalResult PaddingAnalysis::visitReduce(Operation *op) {
  Value input = op->getOperand(0);
  int64_t rank = getRank(input);
  auto axesAttr = op->getAttrOfType<DenseI64ArrayAttr>("axes");
  bool keepdims = true;
  if (auto attr = op->getAttrOfType<BoolAttr>("keepdims"))
    keepdims = attr.getValue();
  SmallVector<bool> reduced(rank, axesAttr.empty());
  for (int64_t axis : axesAttr.asArrayRef())
    reduced[normalizeAxis(axis, rank)] = true;
  const PadInfo &info = *lookup(input);

  // The padded axes the result keeps.
  PadInfo result;
  SmallVector<int64_t> reducedPadded;
  int64_t dropped = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      if (info.count(d))
        reducedPadded.push_back(d);
      ++dropped;
      continue;
    }
    if (auto it = info.find(d); it != info.end())
      result[keepdims ? d : d - dropped] = false;
  }
  if (reducedPadded.empty() || !exact) {
    setResult(op, result);
    return success();
  }

  if (failed(checkMaskable(op, input)))
    return failure();
  OpBuilder builder(op);
  Location loc = op->getLoc();
  Value masked = input;
  for (int64_t axis : reducedPadded) {
    if (info.at(axis))
      continue; // Already zero there.
    FailureOr<Value> mask = getMask(op, axis, rank);
    if (failed(mask))
      return failure();
    masked = builder.create<MulOp>(loc, masked, *mask);
  }
  if (isa<ReduceMaxOp>(op)) {
    for (int64_t axis : reducedPadded) {
      FailureOr<Value> bias = getBias(op, axis, rank);
      if (failed(bias))
        return failure();
      masked = builder.create<AddOp>(loc, masked, *bias);
    }
    op->setOperand(0, masked);
    markMasked(op, "reduce-max");
    setResult(op, result);
    return success();
  }
  if (isa<ReduceSumOp>(op)) {
    op->setOperand(0, masked);
    markMasked(op, "reduce-sum");
    setResult(op, result);
    return success();
  }

  // reduce_mean: the masked sum over the true count, the true length (once
  // per padded axis reduced) times the sizes of the other reduced axes.
  auto mean = cast<ReduceMeanOp>(op);
  ArrayRef<int64_t> shape = mean.getInput().getType().getShape();
  float otherCount = 1.0f;
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d] && !info.count(d))
      otherCount *= static_cast<float>(shape[d]);
  FailureOr<Value> len = getLength(op);
  if (failed(len))
    return failure();
  auto scalar = RankedTensorType::get({}, builder.getF32Type());
  Value count = *len;
  if (otherCount != 1.0f)
    count = builder.create<MulOp>(
        loc, count,
        builder.create<ConstantOp>(
            loc, DenseElementsAttr::get(scalar, ArrayRef<float>{otherCount})));
  for (size_t i = 1; i < reducedPadded.size(); ++i)
    count = builder.create<MulOp>(loc, count, *len);
  auto resultType = cast<RankedTensorType>(mean.getType());
  auto sum = builder.create<ReduceSumOp>(
      loc, resultType, masked, mean.getAxesAttr(), mean.getKeepdimsAttr());
  markMasked(sum, "reduce-mean");
  // The count is [1]; a rank-0 mean needs it rank 0 to keep its type.
  if (resultType.getRank() == 0)
    count = builder.create<ReshapeOp>(loc, scalar, count);
  auto divided = builder.create<DivOp>(loc, sum, count);
  setResult(sum, result);
  setResult(divided, result);
  mean.getResult().replaceAllUsesWith(divided.getResult());
  mean.erase();
  return success();
}

/// layer_norm normalises over axis..rank-1; per position otherwise. Over
/// a padded axis it becomes its formula with masked statistics: mean and
/// variance are sums over the valid positions divided by the true count.
LogicalResult PaddingAnalysis::visitLayerNorm(LayerNormOp op) {
  Value input = op.getInput();
  int64_t rank = getRank(input);
  int64_t first = normalizeAxis(op.getAxis(), rank);
  if (lookup(op.getScale()) || (op.getBias() && lookup(op.getBias())))
    return refuse(op, "its scale or bias holds padded positions");
  PadInfo result;
  SmallVector<int64_t> normalized;
  for (auto [axis, zero] : *lookup(input)) {
    (void)zero;
    result[axis] = false;
    if (axis >= first)
      normalized.push_back(axis);
  }
  if (normalized.empty() || !exact) {
    setResult(op, result);
    return success();
  }
  if (normalized.size() > 1)
    return refuse(op, "it normalises over several padded axes");
  if (failed(checkMaskable(op, input)))
    return failure();
  int64_t axis = normalized.front();
  FailureOr<Value> mask = getMask(op, axis, rank);
  FailureOr<Value> len = getLength(op);
  if (failed(mask) || failed(len))
    return failure();
  OpBuilder builder(op);
  Location loc = op.getLoc();
  auto scalar = RankedTensorType::get({}, builder.getF32Type());
  auto constant = [&](float value) -> Value {
    return builder.create<ConstantOp>(
        loc, DenseElementsAttr::get(scalar, ArrayRef<float>{value}));
  };
  ArrayRef<int64_t> shape = op.getInput().getType().getShape();
  SmallVector<int64_t> axes, statShape(shape);
  float otherCount = 1.0f;
  for (int64_t d = first; d < rank; ++d) {
    axes.push_back(d);
    statShape[d] = 1;
    if (d != axis)
      otherCount *= static_cast<float>(shape[d]);
  }
  auto statType = RankedTensorType::get(statShape, builder.getF32Type());
  auto axesAttr = builder.getDenseI64ArrayAttr(axes);
  auto keep = builder.getBoolAttr(true);
  Value count = builder.create<MulOp>(loc, *len, constant(otherCount));
  Value masked = builder.create<MulOp>(loc, input, *mask);
  Value sum =
      builder.create<ReduceSumOp>(loc, statType, masked, axesAttr, keep);
  Value mean = builder.create<DivOp>(loc, sum, count);
  Value centered = builder.create<MulOp>(
      loc, builder.create<SubOp>(loc, input, mean), *mask);
  Value squares = builder.create<MulOp>(loc, centered, centered);
  Value variance = builder.create<DivOp>(
      loc, builder.create<ReduceSumOp>(loc, statType, squares, axesAttr, keep),
      count);
  Value deviation = builder.create<SqrtOp>(
      loc, builder.create<AddOp>(loc, variance,
                                 constant(op.getEpsilon().convertToFloat())));
  Value normalizedValue = builder.create<DivOp>(loc, centered, deviation);
  Operation *last = builder.create<MulOp>(loc, normalizedValue, op.getScale());
  if (Value bias = op.getBias())
    last = builder.create<AddOp>(loc, last->getResult(0), bias);
  markMasked(last, "layer-norm");
  setResult(last, result);
  op.getResult().replaceAllUsesWith(last->getResult(0));
  op.erase();
  return success();
}

/// A product over a padded axis is exact when every padded term is zero:
/// when one factor is zero at the padded positions (a masked softmax's
/// weights), the other needs nothing (its padded values are finite, which
/// every mask assumes); otherwise the first padded factor is zeroed.
LogicalResult PaddingAnalysis::maskContraction(
    Operation *op, ArrayRef<std::pair<unsigned, int64_t>> contracted) {
  for (auto [index, axis] : contracted) {
    const PadInfo *info = lookup(op->getOperand(index));
    if (info && info->count(axis) && info->at(axis)) {
      // Decided, but nothing inserted.
      op->setAttr(kPaddingMaskAttr,
                  StringAttr::get(op->getContext(), "zero-operand"));
      return success();
    }
  }
  for (auto [index, axis] : contracted) {
    Value operand = op->getOperand(index);
    const PadInfo *info = lookup(operand);
    if (!info || !info->count(axis))
      continue;
    FailureOr<Value> zeroed = zeroPadded(op, operand, axis);
    if (failed(zeroed))
      return failure();
    op->setOperand(index, *zeroed);
    markMasked(op, "contraction");
    return success();
  }
  return success();
}

LogicalResult PaddingAnalysis::visitMatMul(MatMulOp op) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  int64_t lhsRank = getRank(lhs), rhsRank = getRank(rhs);
  int64_t rank = getRank(op.getResult());
  if (lhsRank < 2 || rhsRank < 2)
    return refuse(op, "a rank-1 operand holds padded positions");
  PadInfo result;
  bool contracted = false;
  auto mapOperand = [&](Value operand, int64_t operandRank, int64_t rowAxis,
                        int64_t contractAxis, int64_t resultAxis) {
    const PadInfo *info = lookup(operand);
    if (!info)
      return;
    for (auto [axis, zero] : *info) {
      if (axis == contractAxis)
        contracted = true;
      else if (axis == rowAxis)
        result[resultAxis] = false;
      else // Batch axes broadcast from the end.
        result[axis + rank - operandRank] = false;
    }
  };
  mapOperand(lhs, lhsRank, lhsRank - 2, lhsRank - 1, rank - 2);
  mapOperand(rhs, rhsRank, rhsRank - 1, rhsRank - 2, rank - 1);
  if (contracted && exact &&
      failed(maskContraction(op, {{0, lhsRank - 1}, {1, rhsRank - 2}})))
    return failure();
  setResult(op, result);
  return success();
}

LogicalResult PaddingAnalysis::visitFullyConnected(FullyConnectedOp op) {
  PadInfo result;
  bool contracted = false;
  // input: M x K (K x M transposed); weight: K x N (N x K transposed).
  int64_t inputRow = op.getTransposeInput() ? 1 : 0;
  int64_t weightColumn = op.getTransposeWeight() ? 0 : 1;
  if (const PadInfo *info = lookup(op.getInput()))
    for (auto [axis, zero] : *info) {
      (void)zero;
      if (axis == inputRow)
        result[0] = false;
      else
        contracted = true;
    }
  if (const PadInfo *info = lookup(op.getWeight()))
    for (auto [axis, zero] : *info) {
      (void)zero;
      if (axis == weightColumn)
        result[1] = false;
      else
        contracted = true;
    }
  if (Value bias = op.getBias())
    if (const PadInfo *info = lookup(bias))
      for (auto [axis, zero] : *info) {
        (void)zero;
        result[axis + 2 - getRank(bias)] = false;
      }
  if (contracted && exact &&
      failed(maskContraction(op, {{0, 1 - inputRow}, {1, 1 - weightColumn}})))
    return failure();
  setResult(op, result);
  return success();
}

/// A convolution along a padded spatial axis reads neighbouring positions.
/// With stride 1 and an output as long as the input ("same" padding), the
/// positions past the true length that a valid output reads are exactly
/// the ones the convolution would pad with zeros at that length, so zeroing
/// the padded input makes the valid outputs exact; other shapes change the
/// length and are refused. The batch axis is per position.
LogicalResult PaddingAnalysis::visitConv(ConvOp op) {
  if (lookup(op.getWeight()) || (op.getBias() && lookup(op.getBias())))
    return refuse(op, "its weight or bias holds padded positions");
  Value input = op.getInput();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = cast<RankedTensorType>(op.getType()).getShape();
  PadInfo result;
  std::optional<int64_t> spatial;
  for (auto [axis, zero] : *lookup(input)) {
    if (axis == 0) {
      result[0] = false;
      continue;
    }
    if (axis == 1)
      return refuse(op, "it sums over the padded axis 1 (its channels)");
    int64_t s = axis - 2;
    if (op.getStrides()[s] != 1 || out[axis] != in[axis])
      return refuse(op, "it mixes positions along the padded axis " +
                            Twine(axis) +
                            " and changes its length (stride or padding "
                            "other than 'same')");
    if (spatial)
      return refuse(op, "it mixes positions along two padded axes");
    spatial = axis;
    result[axis] = false;
  }
  if (spatial && exact && !lookup(input)->at(*spatial)) {
    FailureOr<Value> zeroed = zeroPadded(op, input, *spatial);
    if (failed(zeroed))
      return failure();
    op->setOperand(0, *zeroed);
    markMasked(op, "convolution");
  }
  setResult(op, result);
  return success();
}

/// Pools mix positions along their spatial axes; the batch axis (0) alone
/// may be padded.
LogicalResult PaddingAnalysis::visitBatchOnly(Operation *op) {
  PadInfo result;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    const PadInfo *info = lookup(operand);
    if (!info)
      continue;
    for (auto [axis, zero] : *info) {
      (void)zero;
      if (index != 0 || axis != 0)
        return refuse(op, "it mixes positions along the padded axis " +
                              Twine(axis) + " of operand #" + Twine(index));
      result[0] = false;
    }
  }
  setResult(op, result);
  return success();
}

LogicalResult PaddingAnalysis::visit(Operation *op) {
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    for (auto [index, value] : llvm::enumerate(ret.getOperands()))
      if (const PadInfo *info = lookup(value)) {
        SmallVector<int64_t> axes;
        for (auto &entry : *info)
          axes.push_back(entry.first);
        func.setResultAttr(index, kPaddedAxesAttr,
                           DenseI64ArrayAttr::get(op->getContext(), axes));
      }
    return success();
  }
  if (!firstPaddedOperand(op))
    return success();
  if (op->getNumRegions() != 0)
    return refuse(op, "it has regions the analysis does not enter");
  if (isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, CompareOp, WhereOp,
          SqrtOp, ExpOp, ErfOp, TanhOp, SigmoidOp, ReluOp, NegOp, AbsOp,
          RoundOp, GeluOp, ClipOp, CastOp, ConvertOp, QuantizeOp, DequantizeOp,
          RequantizeOp, ExpandOp, BatchNormOp>(op)) {
    visitBroadcasting(op);
    return success();
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op))
    return visitReshape(reshape);
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    visitTranspose(transpose);
    return success();
  }
  if (auto slice = dyn_cast<SliceOp>(op))
    return visitSlice(slice);
  if (auto concat = dyn_cast<ConcatOp>(op))
    return visitConcat(concat);
  if (auto gather = dyn_cast<GatherOp>(op))
    return visitGather(gather);
  if (auto pad = dyn_cast<PadOp>(op))
    return visitPad(pad);
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return visitSoftmax(op, softmax.getAxis());
  if (auto logSoftmax = dyn_cast<LogSoftmaxOp>(op))
    return visitSoftmax(op, logSoftmax.getAxis());
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(op))
    return visitReduce(op);
  if (auto norm = dyn_cast<LayerNormOp>(op))
    return visitLayerNorm(norm);
  if (auto matmul = dyn_cast<MatMulOp>(op))
    return visitMatMul(matmul);
  if (auto fc = dyn_cast<FullyConnectedOp>(op))
    return visitFullyConnected(fc);
  if (auto conv = dyn_cast<ConvOp>(op))
    return visitConv(conv);
  if (isa<MaxPoolOp, AvgPoolOp, GlobalAvgPoolOp>(op))
    return visitBatchOnly(op);
  unsigned index = *firstPaddedOperand(op);
  return refuse(op, "it reads the padded axis " +
                        Twine(lookup(op->getOperand(index))->begin()->first) +
                        " of operand #" + Twine(index) +
                        " and the analysis does not know how it mixes "
                        "positions");
}

LogicalResult PaddingAnalysis::run() {
  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    auto attr = func.getArgAttrOfType<IntegerAttr>(index, kPaddedAxisAttr);
    if (!attr)
      continue;
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    int64_t axis = attr.getInt();
    if (!type || axis < 0 || axis >= type.getRank())
      return func.emitError()
             << "argument #" << index << ": " << kPaddedAxisAttr << " " << axis
             << " is not an axis of " << arg.getType();
    int64_t size = type.getDimSize(axis);
    if (paddedSize >= 0 && size != paddedSize)
      return func.emitError()
             << "argument #" << index << " is padded to " << size
             << " but another padded argument to " << paddedSize
             << ": padded arguments share one bucket";
    paddedSize = size;
    padded[arg][axis] = false;
  }
  for (auto [index, arg] : llvm::enumerate(func.getArguments()))
    if (func.getArgAttr(index, kValidLengthAttr))
      length = arg;
  if (paddedSize < 0)
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitError("accel-mask-padding expects a single-block body");
  // Visiting may insert mask ops before the current op and erase it
  // (reduce_mean), so iterate over a snapshot.
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(visit(op)))
      return failure();
  return success();
}

struct MaskPaddingPass
    : mlir::nnaccel::impl::AccelMaskPaddingBase<MaskPaddingPass> {
  using Base::Base;

  void runOnOperation() override {
    PaddingAnalysis analysis(getOperation(), exact, lengthName);
    if (failed(analysis.run()))
      return signalPassFailure();
    numMasked += analysis.numMasked;
    numTracked += analysis.numTracked;
  }
};

} // namespace
