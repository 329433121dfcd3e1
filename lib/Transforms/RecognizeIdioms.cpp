//===- RecognizeIdioms.cpp - accel-recognize-idioms pass ------------------===//
//
// Replaces decompositions of embedding bags, GELU (erf and tanh forms) and
// layer normalisation (as PyTorch's ONNX exporter emits them) by the accel
// ops that model them directly, so later passes and the backend see one op
// with known semantics instead of a fragile chain.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

#define DEBUG_TYPE "accel-recognize-idioms"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELRECOGNIZEIDIOMS
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {
/// Statistics the patterns bump, owned by the pass.
struct IdiomCounters {
  llvm::Statistic *embeddingBags = nullptr, *gelus = nullptr,
                  *layerNorms = nullptr, *linearLayers = nullptr,
                  *splitProducts = nullptr, *scalesFolded = nullptr;
};

void bump(llvm::Statistic *statistic) {
  if (statistic)
    ++*statistic;
}

/// True when `value` is a splat constant within `tolerance` of `expected`.
bool isSplatNear(Value value, double expected, double tolerance = 1e-6) {
  DenseFPElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return false;
  double actual = attr.getSplatValue<APFloat>().convertToDouble();
  return std::abs(actual - expected) <= tolerance * std::max(1.0, expected);
}

/// Reads a splat float constant.
std::optional<double> getSplatFloat(Value value) {
  DenseFPElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

//===----------------------------------------------------------------------===//
// Embedding bags
//===----------------------------------------------------------------------===//

/// reduce(gather(table[R x D], ids[B x L], axis 0), axes [1]) ->
/// embedding_bag(table, ids).
template <typename ReduceOp, BagMode mode>
struct GatherReduceToEmbeddingBag : OpRewritePattern<ReduceOp> {
  GatherReduceToEmbeddingBag(MLIRContext *context, IdiomCounters counters)
      : OpRewritePattern<ReduceOp>(context), counters(counters) {}

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto gather = op.getInput().template getDefiningOp<GatherOp>();
    if (!gather || !gather->hasOneUse() || gather.getAxis() != 0)
      return rewriter.notifyMatchFailure(op, "not a single-use row gather");
    RankedTensorType table = gather.getData().getType();
    RankedTensorType ids = gather.getIndices().getType();
    if (table.getRank() != 2 || ids.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "not a 2-D table and 2-D ids");
    ArrayRef<int64_t> axes = op.getAxes();
    if (axes.size() != 1 || (axes[0] != 1 && axes[0] != -2))
      return rewriter.notifyMatchFailure(op, "does not pool over the bag");
    if (mode == BagMode::mean && !isa<FloatType>(table.getElementType()))
      return failure();
    auto bagType = RankedTensorType::get(
        {ids.getDimSize(0), table.getDimSize(1)}, table.getElementType());
    Value bag = rewriter.create<EmbeddingBagOp>(
        rewriter.getFusedLoc({gather.getLoc(), op.getLoc()}), bagType,
        gather.getData(), gather.getIndices(), Value(), Value(), Value(), mode);
    if (op.getKeepdims())
      bag = rewriter.create<ReshapeOp>(op.getLoc(), op.getType(), bag);
    rewriter.replaceOp(op, bag);
    bump(counters.embeddingBags);
    return success();
  }
  IdiomCounters counters;
};

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

/// Collects the factors of a product of at most two levels of `mul`
/// (inner products only when they have no other user).
void collectFactors(Value value, SmallVectorImpl<Value> &factors, int depth) {
  auto mul = value.getDefiningOp<MulOp>();
  if (mul && depth < 2 && (depth == 0 || mul->hasOneUse())) {
    collectFactors(mul.getLhs(), factors, depth + 1);
    collectFactors(mul.getRhs(), factors, depth + 1);
    return;
  }
  factors.push_back(value);
}

/// The non-constant side of `mul(c, v)` or `mul(v, c)` with c a splat near
/// `constant` (relative tolerance 1e-5, enough for f32-rounded constants
/// written as 0.7978845608 or sqrt(2 / pi)); else null.
Value matchScaledBy(Value value, double constant) {
  auto mul = value.getDefiningOp<MulOp>();
  if (!mul)
    return {};
  if (isSplatNear(mul.getLhs(), constant, 1e-5))
    return mul.getRhs();
  if (isSplatNear(mul.getRhs(), constant, 1e-5))
    return mul.getLhs();
  return {};
}

/// If `value` is `1 + t` or `t + 1`, returns t.
Value matchOnePlus(Value value) {
  auto add = value.getDefiningOp<AddOp>();
  if (!add)
    return {};
  if (isSplatNear(add.getLhs(), 1.0))
    return add.getRhs();
  if (isSplatNear(add.getRhs(), 1.0))
    return add.getLhs();
  return {};
}

/// If `value` is `1 + erf(x / sqrt(2))` (or `x * (1/sqrt(2))`), returns x.
Value matchOnePlusErf(Value value) {
  Value term = matchOnePlus(value);
  auto erf = term ? term.getDefiningOp<ErfOp>() : ErfOp();
  if (!erf)
    return {};
  Value scaled = erf.getInput();
  if (auto div = scaled.getDefiningOp<DivOp>())
    return isSplatNear(div.getRhs(), std::sqrt(2.0), 1e-5) ? div.getLhs()
                                                           : Value();
  return matchScaledBy(scaled, 1.0 / std::sqrt(2.0));
}

/// True when `value` is x^3: pow(x, 3), x * (x * x) or (x * x) * x.
bool isCubeOf(Value value, Value x) {
  if (auto pow = value.getDefiningOp<PowOp>())
    return pow.getLhs() == x && isSplatNear(pow.getRhs(), 3.0);
  auto mul = value.getDefiningOp<MulOp>();
  if (!mul)
    return false;
  auto isSquare = [&](Value v) {
    auto square = v.getDefiningOp<MulOp>();
    return square && square.getLhs() == x && square.getRhs() == x;
  };
  return (mul.getLhs() == x && isSquare(mul.getRhs())) ||
         (mul.getRhs() == x && isSquare(mul.getLhs()));
}

/// If `value` is `1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))`, with the
/// operands of every add and mul in either order, returns x.
Value matchOnePlusTanh(Value value) {
  Value term = matchOnePlus(value);
  auto tanh = term ? term.getDefiningOp<TanhOp>() : TanhOp();
  if (!tanh)
    return {};
  Value inner =
      matchScaledBy(tanh.getInput(), 0.797884560802865355 /* sqrt(2/pi) */);
  auto sum = inner ? inner.getDefiningOp<AddOp>() : AddOp();
  if (!sum)
    return {};
  for (auto [x, term] : {std::pair{sum.getLhs(), sum.getRhs()},
                         std::pair{sum.getRhs(), sum.getLhs()}}) {
    Value cube = matchScaledBy(term, 0.044715);
    if (cube && isCubeOf(cube, x))
      return x;
  }
  return {};
}

/// 0.5 * x * (1 + f(x)), factors in any order -> gelu(x) {approximate}:
/// f the erf term (exact GELU) or the tanh term (PyTorch's
/// gelu(approximate='tanh') export, HF's gelu_new and NewGELUActivation;
/// the card computes it with v.gelut, so recognising it keeps the work on
/// the card). `matchTerm` returns x for its `1 + f(x)`, else null.
template <Value (*matchTerm)(Value), GeluApproximation approximation>
struct GeluIdiomToGelu : OpRewritePattern<MulOp> {
  GeluIdiomToGelu(MLIRContext *context, IdiomCounters counters)
      : OpRewritePattern<MulOp>(context), counters(counters) {}

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value, 3> factors;
    collectFactors(op.getResult(), factors, 0);
    if (factors.size() != 3)
      return failure();
    // Find the half, the (1 + f) term, and x among the three factors.
    for (int half = 0; half < 3; ++half) {
      if (!isSplatNear(factors[half], 0.5))
        continue;
      for (int term = 0; term < 3; ++term) {
        if (term == half)
          continue;
        Value x = factors[3 - half - term];
        if (matchTerm(factors[term]) != x || x.getType() != op.getType() ||
            !isa<FloatType>(getElementTypeOrSelf(x.getType())))
          continue;
        rewriter.replaceOpWithNewOp<GeluOp>(op, x, approximation);
        bump(counters.gelus);
        return success();
      }
    }
    return failure();
  }
  IdiomCounters counters;
};
using ErfGeluToGelu = GeluIdiomToGelu<matchOnePlusErf, GeluApproximation::none>;
using TanhGeluToGelu =
    GeluIdiomToGelu<matchOnePlusTanh, GeluApproximation::tanh>;

//===----------------------------------------------------------------------===//
// Layer normalisation
//===----------------------------------------------------------------------===//

/// The first normalised axis when `axes` (of a rank-`rank` tensor) are the
/// trailing axes in order; std::nullopt otherwise.
std::optional<int64_t> getTrailingAxis(ArrayRef<int64_t> axes, int64_t rank) {
  if (axes.empty())
    return std::nullopt;
  SmallVector<int64_t> normalized;
  for (int64_t axis : axes)
    normalized.push_back(axis < 0 ? axis + rank : axis);
  llvm::sort(normalized);
  for (size_t i = 0; i < normalized.size(); ++i)
    if (normalized[i] != rank - static_cast<int64_t>(normalized.size()) +
                             static_cast<int64_t>(i))
      return std::nullopt;
  return normalized.front();
}

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) -> layer_norm(x, 1).
struct DecomposedLayerNorm : OpRewritePattern<DivOp> {
  DecomposedLayerNorm(MLIRContext *context, IdiomCounters counters)
      : OpRewritePattern<DivOp>(context), counters(counters) {}

  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    auto centered = op.getLhs().getDefiningOp<SubOp>();
    auto sqrt = op.getRhs().getDefiningOp<SqrtOp>();
    if (!centered || !sqrt)
      return failure();
    Value x = centered.getLhs();
    auto mean = centered.getRhs().getDefiningOp<ReduceMeanOp>();
    if (!mean || mean.getInput() != x || !mean.getKeepdims() ||
        x.getType() != op.getType())
      return failure();
    auto shifted = sqrt.getInput().getDefiningOp<AddOp>();
    if (!shifted)
      return failure();
    std::optional<double> epsilon = getSplatFloat(shifted.getRhs());
    auto variance = shifted.getLhs().getDefiningOp<ReduceMeanOp>();
    if (!epsilon || !variance || !variance.getKeepdims() ||
        variance.getAxes() != mean.getAxes())
      return failure();
    auto square = variance.getInput().getDefiningOp<PowOp>();
    if (!square || square.getLhs() != centered.getResult() ||
        !isSplatNear(square.getRhs(), 2.0))
      return failure();
    auto type = cast<RankedTensorType>(x.getType());
    std::optional<int64_t> axis =
        getTrailingAxis(mean.getAxes(), type.getRank());
    if (!axis || !isa<FloatType>(type.getElementType()))
      return failure();

    auto scaleType = RankedTensorType::get(type.getShape().drop_front(*axis),
                                           type.getElementType());
    Attribute one = rewriter.getFloatAttr(type.getElementType(), 1.0);
    Value scale = rewriter.create<ConstantOp>(
        op.getLoc(), DenseElementsAttr::get(scaleType, one));
    rewriter.replaceOpWithNewOp<LayerNormOp>(
        op, type, x, scale, Value(), rewriter.getI64IntegerAttr(*axis),
        rewriter.getF32FloatAttr(static_cast<float>(*epsilon)));
    bump(counters.layerNorms);
    return success();
  }
  IdiomCounters counters;
};

/// mul(layer_norm(x, 1), gamma) -> layer_norm(x, gamma) and
/// add(layer_norm(x, s), beta) -> layer_norm(x, s, beta), when gamma / beta
/// are shaped like the normalised dimensions.
template <typename OpTy>
struct AbsorbAffineIntoLayerNorm : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isScale = std::is_same_v<OpTy, MulOp>;
    for (auto [lnValue, param] : {std::pair{op.getLhs(), op.getRhs()},
                                  std::pair{op.getRhs(), op.getLhs()}}) {
      auto ln = lnValue.template getDefiningOp<LayerNormOp>();
      if (!ln || !ln->hasOneUse() || ln.getBias() ||
          ln.getType() != op.getType())
        continue;
      if (isScale && !isSplatNear(ln.getScale(), 1.0))
        continue;
      auto paramType = cast<RankedTensorType>(param.getType());
      if (paramType != ln.getScale().getType())
        continue;
      Value scale = isScale ? param : ln.getScale();
      Value bias = isScale ? Value() : param;
      rewriter.replaceOpWithNewOp<LayerNormOp>(op, ln.getType(), ln.getInput(),
                                               scale, bias, ln.getAxisAttr(),
                                               ln.getEpsilonAttr());
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// Linear layers
//===----------------------------------------------------------------------===//

/// The discardable attributes (hint, placement, calibrated range) that carry
/// over from an op to the op replacing it.
void copyDiscardableAttrs(Operation *from, Operation *to) {
  for (NamedAttribute attr : from->getDiscardableAttrs())
    to->setAttr(attr.getName(), attr.getValue());
}

/// matmul(x[... x K], W[K x N] constant) -> reshape(fully_connected(
/// reshape(x, [rows x K]), W), [... x N]): PyTorch exports nn.Linear on
/// more than two dimensions as MatMul + Add. As a fully_connected the
/// layer gets its weight laid out for the matrix unit at compile time (the
/// matmul kernel transposes K x N tiles in its DMA), and the bias add and
/// activation that follow can fuse into it (the sinking patterns below,
/// then canonicalization). The reshapes are views on the card.
struct MatMulByConstantToFullyConnected : OpRewritePattern<MatMulOp> {
  MatMulByConstantToFullyConnected(MLIRContext *context, IdiomCounters counters)
      : OpRewritePattern<MatMulOp>(context), counters(counters) {}

  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    if (!op.getRhs().getDefiningOp<ConstantOp>() || rhsType.getRank() != 2 ||
        lhsType.getRank() < 2 || !lhsType.hasStaticShape() ||
        !rhsType.hasStaticShape() || !isa<FloatType>(element) ||
        lhsType.getElementType() != element ||
        rhsType.getElementType() != element)
      return failure();
    int64_t k = lhsType.getShape().back(), n = rhsType.getDimSize(1);
    int64_t rows = lhsType.getNumElements() / std::max<int64_t>(k, 1);
    Location loc = op.getLoc();
    Value input = op.getLhs();
    auto rowsType = RankedTensorType::get({rows, k}, element);
    if (lhsType != rowsType)
      input = rewriter.create<ReshapeOp>(loc, rowsType, input);
    auto productType = RankedTensorType::get({rows, n}, element);
    auto product = rewriter.create<FullyConnectedOp>(
        loc, TypeRange{productType}, ValueRange{input, op.getRhs()},
        ArrayRef<NamedAttribute>{});
    copyDiscardableAttrs(op, product);
    Value result = product.getResult();
    if (productType != resultType)
      result = rewriter.create<ReshapeOp>(loc, resultType, result);
    rewriter.replaceOp(op, result);
    bump(counters.linearLayers);
    return success();
  }

  IdiomCounters counters;
};

/// The fully_connected whose result `value` is, directly or through a
/// reshape that keeps its columns (the innermost dimension), when that is
/// its only use; else null.
FullyConnectedOp getColumnPreservingProduct(Value value) {
  if (auto reshape = value.getDefiningOp<ReshapeOp>()) {
    auto type = cast<RankedTensorType>(reshape.getType());
    auto from = cast<RankedTensorType>(reshape.getInput().getType());
    if (type.getRank() == 0 || from.getRank() == 0 ||
        type.getShape().back() != from.getShape().back())
      return {};
    value = reshape.getInput();
  }
  auto product = value.getDefiningOp<FullyConnectedOp>();
  return product && product->hasOneUse() ? product : FullyConnectedOp();
}

/// op(reshape(fc), ...) -> reshape(op(fc, ...)) for an op that works per
/// column of the product: an activation, or an add of a per-column
/// constant (shape [..., 1, N]). The op then meets the fully_connected,
/// into which canonicalization fuses it (FoldAddIntoBias,
/// FuseActivationIntoProducer).
template <typename OpTy>
struct SinkThroughColumnReshape : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i) {
      auto reshape = op->getOperand(i).template getDefiningOp<ReshapeOp>();
      if (!reshape || !reshape->hasOneUse() ||
          reshape.getType() != resultType ||
          !getColumnPreservingProduct(reshape.getResult()))
        continue;
      auto inner = cast<RankedTensorType>(reshape.getInput().getType());
      SmallVector<Value> operands(op->getOperands());
      operands[i] = reshape.getInput();
      if constexpr (std::is_same_v<OpTy, AddOp>) {
        // The other operand: a constant that varies along columns only.
        Value other = op->getOperand(1 - i);
        auto otherType = cast<RankedTensorType>(other.getType());
        if (!other.getDefiningOp<ConstantOp>() || otherType.getRank() == 0 ||
            otherType.getShape().back() != resultType.getShape().back() ||
            otherType.getNumElements() != otherType.getShape().back())
          continue;
        auto columns = RankedTensorType::get({otherType.getShape().back()},
                                             otherType.getElementType());
        if (otherType != columns)
          operands[1 - i] =
              rewriter.create<ReshapeOp>(op.getLoc(), columns, other);
      }
      Operation *moved = rewriter.create<OpTy>(op.getLoc(), TypeRange{inner},
                                               operands, op->getAttrs());
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, resultType,
                                             moved->getResult(0));
      return success();
    }
    return failure();
  }
};

/// The column range [begin, end) a slice takes of the innermost dimension,
/// when it takes everything else whole with unit steps; else nullopt.
std::optional<std::pair<int64_t, int64_t>> getColumnSlice(SliceOp slice) {
  auto type = cast<RankedTensorType>(slice.getInput().getType());
  int64_t rank = type.getRank();
  ArrayRef<int64_t> starts = slice.getStarts(), ends = slice.getEnds(),
                    steps = slice.getSteps();
  if (rank == 0 || int64_t(starts.size()) != rank ||
      int64_t(ends.size()) != rank || int64_t(steps.size()) != rank)
    return std::nullopt;
  for (int64_t axis = 0; axis + 1 < rank; ++axis)
    if (starts[axis] != 0 || ends[axis] != type.getDimSize(axis) ||
        steps[axis] != 1)
      return std::nullopt;
  if (steps.back() != 1 || starts.back() < 0 || ends.back() <= starts.back() ||
      ends.back() > type.getShape().back())
    return std::nullopt;
  return std::pair{starts.back(), ends.back()};
}

/// slice(fc(x, W, b)) along columns -> fc(x, W[cols], b[cols]) when every
/// user of the product takes columns of it (the query, key and value of an
/// attention in-projection): each part is then its own, smaller product
/// over a weight sliced at compile time, and no part is copied out of a
/// wider result. The parts can run on different cores.
struct SliceOfProductToProduct : OpRewritePattern<SliceOp> {
  SliceOfProductToProduct(MLIRContext *context, IdiomCounters counters)
      : OpRewritePattern<SliceOp>(context), counters(counters) {}

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<std::pair<int64_t, int64_t>> columns = getColumnSlice(op);
    Value sliced = op.getInput();
    FullyConnectedOp product = getColumnPreservingProduct(sliced);
    if (!columns || !product)
      return failure();
    // Every user takes columns, or splitting would compute some twice.
    for (Operation *user : sliced.getUsers()) {
      auto slice = dyn_cast<SliceOp>(user);
      if (!slice || !getColumnSlice(slice))
        return failure();
    }
    auto weight = product.getWeight().getDefiningOp<ConstantOp>();
    Value biasValue = product.getBias();
    auto bias =
        biasValue ? biasValue.getDefiningOp<ConstantOp>() : ConstantOp();
    auto productType = cast<RankedTensorType>(product.getType());
    int64_t n = productType.getDimSize(1);
    if (!weight || (biasValue && !bias) || product.getTransposeInput() ||
        (bias && cast<RankedTensorType>(bias.getType()).getNumElements() != n))
      return failure();
    auto [begin, end] = *columns;
    // W is N x K (transpose_weight) or K x N: the columns are its rows or
    // its columns.
    int64_t weightAxis = product.getTransposeWeight() ? 0 : 1;
    // Blobs named after the product's columns, not the "slice" of
    // accel-split-ops: imports of the model at other shapes (calibration)
    // must not shift the names later passes give.
    std::string name = ("columns_" + Twine(begin) + "_" + Twine(end)).str();
    ElementsAttr weightPart = sliceConstantAlongAxis(
        cast<ElementsAttr>(weight.getValue()), weightAxis, begin, end, name);
    if (!weightPart)
      return failure();
    ElementsAttr biasPart;
    if (bias) {
      auto biasType = cast<RankedTensorType>(bias.getType());
      biasPart =
          sliceConstantAlongAxis(cast<ElementsAttr>(bias.getValue()),
                                 biasType.getRank() - 1, begin, end, name);
      if (!biasPart)
        return failure();
    }
    Location loc = op.getLoc();
    Value weightSlice =
        rewriter.create<ConstantOp>(weight.getLoc(), weightPart);
    SmallVector<Value> operands{product.getInput(), weightSlice};
    if (bias)
      operands.push_back(rewriter.create<ConstantOp>(bias.getLoc(), biasPart));
    auto partType = RankedTensorType::get(
        {productType.getDimSize(0), end - begin}, productType.getElementType());
    auto part = rewriter.create<FullyConnectedOp>(
        product.getLoc(), TypeRange{partType}, operands, product->getAttrs());
    Value result = part.getResult();
    if (partType != op.getType())
      result = rewriter.create<ReshapeOp>(loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    bump(counters.splitProducts);
    return success();
  }

  IdiomCounters counters;
};

/// x * s or x / s, for a scalar constant s, where x is a fully_connected
/// by constants seen through single-use reshapes and transposes (the
/// 1/sqrt(d) of attention scores applied to the query): the scale goes into
/// the product's weight and bias at compile time and the op disappears.
/// A ReLU the product fuses commutes with a positive scale only.
template <typename OpTy> struct ScaleIntoProduct : OpRewritePattern<OpTy> {
  ScaleIntoProduct(MLIRContext *context, IdiomCounters counters)
      : OpRewritePattern<OpTy>(context), counters(counters) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    constexpr bool isDiv = std::is_same_v<OpTy, DivOp>;
    for (unsigned side = 0; side < (isDiv ? 1u : 2u); ++side) {
      Value x = op->getOperand(side), scaleValue = op->getOperand(1 - side);
      std::optional<double> scale = getSplatFloat(scaleValue);
      if (!scale || !std::isfinite(*scale) || *scale == 0.0 ||
          x.getType() != op.getType())
        continue;
      double factor = isDiv ? 1.0 / *scale : *scale;
      Value inner = x;
      while (Operation *def = inner.getDefiningOp()) {
        if (!isa<ReshapeOp, TransposeOp>(def) || !def->hasOneUse())
          break;
        inner = def->getOperand(0);
      }
      auto product = inner.getDefiningOp<FullyConnectedOp>();
      if (!product || !product->hasOneUse() ||
          !product.getAlpha().isExactlyValue(1.0) ||
          !product.getBeta().isExactlyValue(1.0) ||
          !(product.getActivation() == Activation::none ||
            (product.getActivation() == Activation::relu && factor > 0)))
        continue;
      std::optional<F32ConstantView> weight =
          getF32Constant(product.getWeight());
      std::optional<F32ConstantView> bias;
      if (!weight ||
          (product.getBias() && !(bias = getF32Constant(product.getBias()))))
        continue;
      auto scaled = [&](Value value, const F32ConstantView &view) -> Value {
        auto type = cast<RankedTensorType>(value.getType());
        SmallVector<float> values(type.getNumElements());
        for (int64_t i = 0, e = int64_t(values.size()); i < e; ++i)
          values[i] = float(double(view[i]) * factor);
        return rewriter.create<ConstantOp>(
            value.getLoc(), createF32Constant(type, values, "scaled"));
      };
      Value newWeight = scaled(product.getWeight(), *weight);
      Value newBias = bias ? scaled(product.getBias(), *bias) : Value();
      rewriter.modifyOpInPlace(product, [&] {
        product->setOperand(1, newWeight);
        if (newBias)
          product->setOperand(2, newBias);
      });
      rewriter.replaceOp(op, x);
      bump(counters.scalesFolded);
      return success();
    }
    return failure();
  }

  IdiomCounters counters;
};

void populateIdiomPatterns(RewritePatternSet &patterns,
                           IdiomCounters counters) {
  MLIRContext *context = patterns.getContext();
  patterns.add<GatherReduceToEmbeddingBag<ReduceSumOp, BagMode::sum>,
               GatherReduceToEmbeddingBag<ReduceMeanOp, BagMode::mean>,
               ErfGeluToGelu, TanhGeluToGelu, DecomposedLayerNorm,
               MatMulByConstantToFullyConnected, SliceOfProductToProduct,
               ScaleIntoProduct<MulOp>, ScaleIntoProduct<DivOp>>(context,
                                                                 counters);
  // The fusions the sunk ops are for, so the slices of a fused product are
  // seen in the same run.
  AddOp::getCanonicalizationPatterns(patterns, context);
  ReluOp::getCanonicalizationPatterns(patterns, context);
  SigmoidOp::getCanonicalizationPatterns(patterns, context);
  TanhOp::getCanonicalizationPatterns(patterns, context);
  GeluOp::getCanonicalizationPatterns(patterns, context);
  ClipOp::getCanonicalizationPatterns(patterns, context);
  patterns
      .add<SinkThroughColumnReshape<AddOp>, SinkThroughColumnReshape<ReluOp>,
           SinkThroughColumnReshape<SigmoidOp>,
           SinkThroughColumnReshape<TanhOp>, SinkThroughColumnReshape<GeluOp>,
           SinkThroughColumnReshape<ClipOp>>(context);
  patterns
      .add<AbsorbAffineIntoLayerNorm<MulOp>, AbsorbAffineIntoLayerNorm<AddOp>>(
          context);
}

struct AccelRecognizeIdiomsPass
    : mlir::nnaccel::impl::AccelRecognizeIdiomsBase<AccelRecognizeIdiomsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateIdiomPatterns(patterns, {&numEmbeddingBags, &numGelus,
                                     &numLayerNorms, &numLinearLayers,
                                     &numSplitProducts, &numScalesFolded});
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::nnaccel::populateAccelIdiomPatterns(RewritePatternSet &patterns) {
  populateIdiomPatterns(patterns, {});
}
