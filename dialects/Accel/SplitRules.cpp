//===- SplitRules.cpp - SplitOpInterface of the accel ops -----------------===//
//
// How each op family divides its result into independent pieces. A rule
// only says which axes correspond; whether a split pays off (and into how
// many pieces) is accel-split-ops' cost model.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

namespace {
int64_t getRank(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

int64_t getDim(Value value, int64_t axis) {
  return cast<RankedTensorType>(value.getType()).getDimSize(axis);
}

/// One data-parallel rule per axis of the result before `end`.
SmallVector<SplitRule> rulesForLeadingAxes(Operation *op, int64_t end) {
  SmallVector<SplitRule> rules;
  for (int64_t axis = 0; axis < end; ++axis)
    rules.push_back(getBroadcastSplitRule(op, axis));
  return rules;
}
} // namespace

SplitRule mlir::nnaccel::accel::getBroadcastSplitRule(Operation *op,
                                                      int64_t axis) {
  SplitRule rule;
  rule.resultAxis = axis;
  Value result = op->getResult(0);
  int64_t rank = getRank(result);
  for (Value operand : op->getOperands()) {
    int64_t operandAxis = axis - (rank - getRank(operand));
    bool sliced = operandAxis >= 0 &&
                  getDim(operand, operandAxis) == getDim(result, axis);
    rule.operandAxes.push_back(sliced ? operandAxis : -1);
  }
  return rule;
}

Operation *mlir::nnaccel::accel::buildSplitPieceByCloning(OpBuilder &builder,
                                                          Operation *op,
                                                          ValueRange operands,
                                                          Type resultType) {
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addTypes(resultType);
  state.addAttributes(op->getAttrs());
  return builder.create(state);
}

Value mlir::nnaccel::accel::buildSumOfPartials(OpBuilder &builder, Location loc,
                                               ValueRange partials) {
  Value sum = partials.front();
  for (Value partial : partials.drop_front())
    sum = builder.create<AddOp>(loc, sum.getType(), sum, partial);
  return sum;
}

/// True when an op with fused `activation` can be split along its
/// reduction: the activation must exist as an op of its own to run after
/// the sum.
static bool canActivateAfterSum(Activation activation) {
  return activation == Activation::none || activation == Activation::relu ||
         activation == Activation::sigmoid || activation == Activation::tanh;
}

/// A partial product is activated only once summed: the piece of a
/// reduction rule drops the fused activation.
static void dropFusedActivation(Operation *piece) {
  piece->setAttr("activation",
                 ActivationAttr::get(piece->getContext(), Activation::none));
  piece->removeAttr("activation_min");
  piece->removeAttr("activation_max");
}

/// The sum of `partials`, then the fused activation as an op of its own.
static Value sumThenActivate(OpBuilder &builder, Location loc,
                             ValueRange partials, Activation activation) {
  Value sum = buildSumOfPartials(builder, loc, partials);
  switch (activation) {
  case Activation::relu:
    return builder.create<ReluOp>(loc, sum);
  case Activation::sigmoid:
    return builder.create<SigmoidOp>(loc, sum);
  case Activation::tanh:
    return builder.create<TanhOp>(loc, sum);
  default:
    return sum;
  }
}

//===----------------------------------------------------------------------===//
// Elementwise: any axis.
//===----------------------------------------------------------------------===//

#define ELEMENTWISE_SPLIT(Op)                                                  \
  SmallVector<SplitRule> Op::getSplitRules() {                                 \
    return rulesForLeadingAxes(*this, getType().getRank());                    \
  }
ELEMENTWISE_SPLIT(AddOp)
ELEMENTWISE_SPLIT(SubOp)
ELEMENTWISE_SPLIT(MulOp)
ELEMENTWISE_SPLIT(DivOp)
ELEMENTWISE_SPLIT(PowOp)
ELEMENTWISE_SPLIT(MaxOp)
ELEMENTWISE_SPLIT(MinOp)
ELEMENTWISE_SPLIT(SqrtOp)
ELEMENTWISE_SPLIT(ExpOp)
ELEMENTWISE_SPLIT(ErfOp)
ELEMENTWISE_SPLIT(TanhOp)
ELEMENTWISE_SPLIT(SigmoidOp)
ELEMENTWISE_SPLIT(ReluOp)
ELEMENTWISE_SPLIT(NegOp)
ELEMENTWISE_SPLIT(AbsOp)
ELEMENTWISE_SPLIT(RoundOp)
ELEMENTWISE_SPLIT(GeluOp)
ELEMENTWISE_SPLIT(ClipOp)
#undef ELEMENTWISE_SPLIT

//===----------------------------------------------------------------------===//
// Normalisations: any axis outside the normalised ones.
//===----------------------------------------------------------------------===//

SmallVector<SplitRule> SoftmaxOp::getSplitRules() {
  int64_t rank = getType().getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  SmallVector<SplitRule> rules;
  for (int64_t a = 0; a < rank; ++a)
    if (a != axis)
      rules.push_back(getBroadcastSplitRule(*this, a));
  return rules;
}

SmallVector<SplitRule> LogSoftmaxOp::getSplitRules() {
  int64_t rank = getType().getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  SmallVector<SplitRule> rules;
  for (int64_t a = 0; a < rank; ++a)
    if (a != axis)
      rules.push_back(getBroadcastSplitRule(*this, a));
  return rules;
}

SmallVector<SplitRule> LayerNormOp::getSplitRules() {
  int64_t rank = getType().getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  // Scale and bias have the normalised shape: every piece reads them whole.
  SmallVector<SplitRule> rules;
  for (int64_t a = 0; a < axis; ++a) {
    SplitRule rule;
    rule.resultAxis = a;
    rule.operandAxes.assign(getNumOperands(), -1);
    rule.operandAxes[0] = a;
    rules.push_back(rule);
  }
  return rules;
}

//===----------------------------------------------------------------------===//
// Matrix products.
//===----------------------------------------------------------------------===//

SmallVector<SplitRule> FullyConnectedOp::getSplitRules() {
  // input M x K (K x M transposed), weight K x N (N x K transposed), bias
  // broadcast to M x N.
  int64_t m = getType().getDimSize(0), n = getType().getDimSize(1);
  auto biasAxis = [&](int64_t resultAxis) -> int64_t {
    Value bias = getBias();
    if (!bias)
      return -1;
    int64_t rank = getRank(bias);
    int64_t axis = resultAxis - (2 - rank);
    if (axis < 0 || getDim(bias, axis) != (resultAxis ? n : m))
      return -1;
    return axis;
  };
  auto operandAxes = [&](int64_t input, int64_t weight, int64_t bias) {
    SmallVector<int64_t> axes{input, weight};
    if (getBias())
      axes.push_back(bias);
    return axes;
  };
  SmallVector<SplitRule> rules;
  SplitRule rows;
  rows.resultAxis = 0;
  rows.operandAxes = operandAxes(getTransposeInput() ? 1 : 0, -1, biasAxis(0));
  rules.push_back(rows);
  SplitRule columns;
  columns.resultAxis = 1;
  columns.kind = SplitKind::ModelParallel;
  columns.operandAxes =
      operandAxes(-1, getTransposeWeight() ? 0 : 1, biasAxis(1));
  rules.push_back(columns);
  // The reduction over K: partial products of K ranges, summed; the bias
  // goes to the first piece, the activation after the sum (one the sum can
  // be followed by as an op of its own).
  if (canActivateAfterSum(getActivation())) {
    SplitRule reduction;
    reduction.resultAxis = -1;
    reduction.reduction = true;
    reduction.kind = SplitKind::ModelParallel;
    reduction.operandAxes =
        operandAxes(getTransposeInput() ? 0 : 1, getTransposeWeight() ? 1 : 0,
                    kFirstPieceOnly);
    rules.push_back(reduction);
  }
  return rules;
}

Operation *FullyConnectedOp::buildSplitPiece(OpBuilder &builder,
                                             const SplitRule &rule,
                                             ValueRange operands,
                                             Type resultType) {
  Operation *piece =
      buildSplitPieceByCloning(builder, *this, operands, resultType);
  if (rule.reduction)
    dropFusedActivation(piece);
  return piece;
}

Value FullyConnectedOp::buildReductionJoin(OpBuilder &builder,
                                           const SplitRule &rule,
                                           ValueRange partials) {
  return sumThenActivate(builder, getLoc(), partials, getActivation());
}

SmallVector<SplitRule> MatMulOp::getSplitRules() {
  int64_t lhsRank = getRank(getLhs()), rhsRank = getRank(getRhs());
  int64_t rank = getType().getRank();
  // Rank-1 operands drop a result axis; those products stay whole.
  if (lhsRank < 2 || rhsRank < 2)
    return {};
  SmallVector<SplitRule> rules;
  // Batch axes broadcast like an elementwise op's.
  for (int64_t axis = 0; axis < rank - 2; ++axis) {
    SplitRule rule;
    rule.resultAxis = axis;
    for (Value operand : {getLhs(), getRhs()}) {
      int64_t a = axis - (rank - getRank(operand));
      rule.operandAxes.push_back(
          a >= 0 && getDim(operand, a) == getType().getDimSize(axis) ? a : -1);
    }
    rules.push_back(rule);
  }
  SplitRule rows;
  rows.resultAxis = rank - 2;
  rows.operandAxes = {lhsRank - 2, -1};
  rules.push_back(rows);
  SplitRule columns;
  columns.resultAxis = rank - 1;
  columns.operandAxes = {-1, rhsRank - 1};
  columns.kind = getRhs().getDefiningOp<ConstantOp>() ? SplitKind::ModelParallel
                                                      : SplitKind::DataParallel;
  rules.push_back(columns);
  return rules;
}

//===----------------------------------------------------------------------===//
// Quantize and dequantize: elementwise, any axis when quantized per tensor
// (a per-axis type would need its parameters sliced with the pieces).
//===----------------------------------------------------------------------===//

static SmallVector<SplitRule> getPerTensorRules(Operation *op, Type quantized) {
  if (!isa<quant::UniformQuantizedType>(
          cast<RankedTensorType>(quantized).getElementType()))
    return {};
  return rulesForLeadingAxes(op, getRank(op->getResult(0)));
}

SmallVector<SplitRule> QuantizeOp::getSplitRules() {
  return getPerTensorRules(*this, getType());
}

SmallVector<SplitRule> DequantizeOp::getSplitRules() {
  return getPerTensorRules(*this, getInput().getType());
}

//===----------------------------------------------------------------------===//
// Convolutions and pools (NCHW).
//===----------------------------------------------------------------------===//

SmallVector<SplitRule> ConvOp::getSplitRules() {
  int64_t channels = getDim(getInput(), 1);
  int64_t filters = getType().getDimSize(1);
  int64_t groups = static_cast<int64_t>(getGroups());
  auto withBias = [&](SmallVector<int64_t> axes, int64_t bias) {
    if (getBias())
      axes.push_back(bias);
    return axes;
  };
  SmallVector<SplitRule> rules;
  // Images of a batch.
  SplitRule batch;
  batch.resultAxis = 0;
  batch.operandAxes = withBias({0, -1}, -1);
  rules.push_back(batch);
  if (groups == 1) {
    // Output channels: each piece reads the whole input and its filters.
    SplitRule out;
    out.resultAxis = 1;
    out.kind = SplitKind::ModelParallel;
    out.operandAxes = withBias({-1, 0}, 0);
    rules.push_back(out);
  } else if (groups == channels && groups == filters) {
    // Depthwise: channel c of the result needs channel c of the input.
    SplitRule depthwise;
    depthwise.resultAxis = 1;
    depthwise.operandAxes = withBias({1, 0}, 0);
    // The card's int8 depthwise kernel takes multiples of 4 channels (it
    // moves them 4 bytes at a time).
    if (isa<quant::QuantizedType>(getElementTypeOrSelf(getInput().getType())))
      depthwise.alignment = 4;
    rules.push_back(depthwise);
  }
  return rules;
}

Operation *ConvOp::buildSplitPiece(OpBuilder &builder, const SplitRule &rule,
                                   ValueRange operands, Type resultType) {
  Operation *piece =
      buildSplitPieceByCloning(builder, *this, operands, resultType);
  // A depthwise piece has one group per channel it computes.
  if (getGroups() != 1 && rule.resultAxis == 1)
    cast<ConvOp>(piece).setGroups(
        cast<RankedTensorType>(resultType).getDimSize(1));
  return piece;
}

#define POOL_SPLIT(Op)                                                         \
  SmallVector<SplitRule> Op::getSplitRules() {                                 \
    return rulesForLeadingAxes(*this, 2);                                      \
  }
POOL_SPLIT(MaxPoolOp)
POOL_SPLIT(AvgPoolOp)
POOL_SPLIT(GlobalAvgPoolOp)
#undef POOL_SPLIT

//===----------------------------------------------------------------------===//
// Data movement.
//===----------------------------------------------------------------------===//

SmallVector<SplitRule> TransposeOp::getSplitRules() {
  // Result axis a is input axis permutation[a].
  SmallVector<SplitRule> rules;
  for (auto [axis, source] : llvm::enumerate(getPermutation())) {
    if (getType().getDimSize(axis) < 2)
      continue;
    SplitRule rule;
    rule.resultAxis = int64_t(axis);
    rule.operandAxes = {source};
    rules.push_back(rule);
  }
  return rules;
}

//===----------------------------------------------------------------------===//
// Gathers: by indices.
//===----------------------------------------------------------------------===//

SmallVector<SplitRule> GatherOp::getSplitRules() {
  // The result's axes axis .. axis + rank(indices) - 1 are the indices'
  // axes: each piece looks up its share of the indices in the whole table
  // (a table is a weight; cutting it would copy it per piece).
  SmallVector<SplitRule> rules;
  const int64_t axis = getAxis();
  for (int64_t i = 0, e = getRank(getIndices()); i < e; ++i) {
    SplitRule rule;
    rule.resultAxis = axis + i;
    rule.operandAxes = {-1, i};
    rules.push_back(rule);
  }
  return rules;
}

//===----------------------------------------------------------------------===//
// Embedding bags: by bags.
//===----------------------------------------------------------------------===//

SmallVector<SplitRule> EmbeddingBagOp::getSplitRules() {
  // Bags of a fixed size (B x L indices) divide by bags: each piece
  // gathers its bags' rows of the shared table. Ragged bags (offsets,
  // lengths) would need the runtime index ranges of each piece.
  if (getOffsets() || getLengths())
    return {};
  SplitRule bags;
  bags.resultAxis = 0;
  bags.operandAxes = {-1, 0};
  if (getPerSampleWeights())
    bags.operandAxes.push_back(0);
  return {bags};
}
