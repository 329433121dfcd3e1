//===- Canonicalize.cpp - accel canonicalization patterns -----------------===//
//
// Rewrites that bring accel IR into the form the backend expects:
// - layout chains collapse (transpose of transpose, transposes that only
//   move unit dimensions become reshapes);
// - activations fuse into their fully_connected / conv producer;
// - inference batch_norm and per-channel bias adds fold into the conv or
//   fully_connected weights and bias when those are constants;
// - chains of exact (widening) precision conversions collapse.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "Accel/ShapeUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nnaccel::accel;

//===----------------------------------------------------------------------===//
// Layout chains
//===----------------------------------------------------------------------===//

namespace {
/// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<TransposeOp>();
    if (!producer)
      return failure();
    ArrayRef<int64_t> first = producer.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t dim : op.getPermutation())
      composed.push_back(first[dim]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(),
                                             producer.getInput(), composed);
    return success();
  }
};

/// A transpose that keeps the order of all non-unit dimensions moves no data:
/// it is a reshape.
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.movesOnlyUnitDims())
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};
} // namespace

bool TransposeOp::movesOnlyUnitDims() {
  ArrayRef<int64_t> inputShape = getInput().getType().getShape();
  int64_t last = -1;
  for (int64_t dim : getPermutation()) {
    if (inputShape[dim] == 1)
      continue;
    if (dim < last)
      return false;
    last = dim;
  }
  return true;
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes, TransposeOfUnitDimsToReshape>(context);
}

//===----------------------------------------------------------------------===//
// Precision chains
//===----------------------------------------------------------------------===//

/// True when every value of `from` is exactly representable in `to`.
static bool isExactWidening(Type from, Type to) {
  auto fromFloat = dyn_cast<FloatType>(from), toFloat = dyn_cast<FloatType>(to);
  if (!fromFloat || !toFloat)
    return false;
  const llvm::fltSemantics &a = fromFloat.getFloatSemantics();
  const llvm::fltSemantics &b = toFloat.getFloatSemantics();
  return APFloat::semanticsPrecision(a) <= APFloat::semanticsPrecision(b) &&
         APFloat::semanticsMaxExponent(a) <= APFloat::semanticsMaxExponent(b) &&
         APFloat::semanticsMinExponent(a) >= APFloat::semanticsMinExponent(b);
}

namespace {
/// convert(convert(x)) -> convert(x) when the first conversion is exact, so
/// dropping it cannot change a single rounding.
struct CollapseExactConverts : OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<ConvertOp>();
    if (!producer ||
        !isExactWidening(producer.getInput().getType().getElementType(),
                         producer.getType().getElementType()))
      return failure();
    rewriter.replaceOpWithNewOp<ConvertOp>(op, op.getType(),
                                           producer.getInput());
    return success();
  }
};
} // namespace

void ConvertOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<CollapseExactConverts>(context);
}

//===----------------------------------------------------------------------===//
// Activation fusion
//===----------------------------------------------------------------------===//

namespace {
/// The activation an elementwise op computes, if it can be fused.
struct FusibleActivation {
  Activation kind;
  FloatAttr min, max;
};

std::optional<FusibleActivation> getFusibleActivation(Operation *op) {
  if (isa<ReluOp>(op))
    return FusibleActivation{Activation::relu, {}, {}};
  if (isa<SigmoidOp>(op))
    return FusibleActivation{Activation::sigmoid, {}, {}};
  if (isa<TanhOp>(op))
    return FusibleActivation{Activation::tanh, {}, {}};
  if (auto gelu = dyn_cast<GeluOp>(op)) {
    // Only the exact (erf) form has a fused encoding.
    if (gelu.getApproximate() != GeluApproximation::none)
      return std::nullopt;
    return FusibleActivation{Activation::gelu, {}, {}};
  }
  if (auto clip = dyn_cast<ClipOp>(op))
    return FusibleActivation{Activation::clip, clip.getMinAttr(),
                             clip.getMaxAttr()};
  return std::nullopt;
}

/// act(producer(...)) -> producer(...) {activation = act} for a
/// fully_connected or conv producer with no activation and no other user.
template <typename ActivationOp>
struct FuseActivationIntoProducer : OpRewritePattern<ActivationOp> {
  using OpRewritePattern<ActivationOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ActivationOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<FusibleActivation> activation = getFusibleActivation(op);
    Operation *producer = op.getInput().getDefiningOp();
    if (!activation || !producer || !producer->hasOneUse() ||
        !isa<FullyConnectedOp, ConvOp>(producer) ||
        producer->getResult(0).getType() != op.getType())
      return failure();
    auto current = producer->getAttrOfType<Attribute>("activation");
    if (current && cast<ActivationAttr>(current).getValue() != Activation::none)
      return failure();
    // A user's hints or placement for the activation alone would be lost
    // in the fused op: the two stay apart unless they ask the same.
    for (StringRef name : {AccelDialect::getHintAttrName(),
                           AccelDialect::getPlacementAttrName()})
      if (Attribute own = op->getAttr(name);
          own && own != producer->getAttr(name))
        return rewriter.notifyMatchFailure(op, "hinted apart");
    rewriter.modifyOpInPlace(producer, [&] {
      producer->setAttr("activation",
                        ActivationAttr::get(op.getContext(), activation->kind));
      if (activation->min)
        producer->setAttr("activation_min", activation->min);
      if (activation->max)
        producer->setAttr("activation_max", activation->max);
      // The fused op now stands where the activation stood.
      producer->setLoc(rewriter.getFusedLoc({producer->getLoc(), op.getLoc()}));
    });
    rewriter.replaceOp(op, producer->getResults());
    return success();
  }
};
} // namespace

void ReluOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FuseActivationIntoProducer<ReluOp>>(context);
}
void ClipOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FuseActivationIntoProducer<ClipOp>>(context);
}
void SigmoidOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<FuseActivationIntoProducer<SigmoidOp>>(context);
}
void TanhOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FuseActivationIntoProducer<TanhOp>>(context);
}
void GeluOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FuseActivationIntoProducer<GeluOp>>(context);
}

//===----------------------------------------------------------------------===//
// Batch norm and bias folding
//===----------------------------------------------------------------------===//

namespace {
/// batch_norm(conv(x, W, b)) -> conv(x, W', b') with
///   s_f = scale_f / sqrt(var_f + eps), W'_f = W_f * s_f,
///   b'_f = (b_f - mean_f) * s_f + bias_f,
/// when W, b and the batch_norm parameters are f32 constants.
struct FoldBatchNormIntoConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    auto conv = op.getInput().getDefiningOp<ConvOp>();
    if (!conv || !conv->hasOneUse() || conv.getActivation() != Activation::none)
      return failure();
    std::optional<F32ConstantView> weight = getF32Constant(conv.getWeight());
    std::optional<F32ConstantView> scale = getF32Constant(op.getScale());
    std::optional<F32ConstantView> shift = getF32Constant(op.getBias());
    std::optional<F32ConstantView> mean = getF32Constant(op.getMean());
    std::optional<F32ConstantView> variance = getF32Constant(op.getVariance());
    std::optional<F32ConstantView> bias;
    if (conv.getBias() && !(bias = getF32Constant(conv.getBias())))
      return failure();
    if (!weight || !scale || !shift || !mean || !variance)
      return failure();

    RankedTensorType weightType = conv.getWeight().getType();
    int64_t filters = weightType.getDimSize(0);
    int64_t perFilter = weightType.getNumElements() / filters;
    float epsilon = op.getEpsilon().convertToFloat();
    SmallVector<float> newWeight(weightType.getNumElements());
    SmallVector<float> newBias(filters);
    for (int64_t f = 0; f < filters; ++f) {
      float factor = (*scale)[f] / std::sqrt((*variance)[f] + epsilon);
      for (int64_t i = 0; i < perFilter; ++i)
        newWeight[f * perFilter + i] = (*weight)[f * perFilter + i] * factor;
      float oldBias = bias ? (*bias)[f] : 0.0f;
      newBias[f] = (oldBias - (*mean)[f]) * factor + (*shift)[f];
    }
    auto biasType =
        RankedTensorType::get({filters}, weightType.getElementType());
    Value weightValue = rewriter.create<ConstantOp>(
        conv.getWeight().getLoc(),
        createF32Constant(weightType, newWeight, "conv_bn_weight"));
    Value biasValue = rewriter.create<ConstantOp>(
        op.getLoc(), createF32Constant(biasType, newBias, "conv_bn_bias"));
    rewriter.modifyOpInPlace(conv, [&] {
      conv.getWeightMutable().assign(weightValue);
      conv.getBiasMutable().assign(biasValue);
      conv->setLoc(rewriter.getFusedLoc({conv.getLoc(), op.getLoc()}));
    });
    rewriter.replaceOp(op, conv.getResult());
    return success();
  }
};

/// add(conv(x), c) or add(fully_connected(x), c) where the constant c varies
/// only along the output channel -> the producer with c added to its bias.
struct FoldAddIntoBias : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  /// For a result of `resultShape`, returns true when `addend` broadcasts
  /// along every dimension except `channelDim` (where it is 1 or full).
  static bool isPerChannel(ArrayRef<int64_t> addend,
                           ArrayRef<int64_t> resultShape, int64_t channelDim) {
    int64_t offset = resultShape.size() - addend.size();
    if (offset < 0)
      return false;
    for (auto [i, size] : llvm::enumerate(addend)) {
      int64_t dim = i + offset;
      if (size != 1 && dim != channelDim)
        return false;
    }
    return true;
  }

  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [producerValue, addendValue] :
         {std::pair{op.getLhs(), op.getRhs()},
          std::pair{op.getRhs(), op.getLhs()}}) {
      Operation *producer = producerValue.getDefiningOp();
      if (!producer || !producer->hasOneUse() ||
          !isa<ConvOp, FullyConnectedOp>(producer) ||
          producerValue.getType() != op.getType())
        continue;
      std::optional<F32ConstantView> addend = getF32Constant(addendValue);
      if (!addend)
        continue;
      ArrayRef<int64_t> resultShape = op.getType().getShape();
      ArrayRef<int64_t> addendShape =
          cast<RankedTensorType>(addendValue.getType()).getShape();
      if (!isPerChannel(addendShape, resultShape, /*channelDim=*/1))
        continue;
      int64_t channels = resultShape[1];
      bool addendPerChannel = getNumElements(addendShape) != 1;

      Value oldBiasValue;
      float biasScale = 1.0f;
      if (auto conv = dyn_cast<ConvOp>(producer)) {
        if (conv.getActivation() != Activation::none)
          continue;
        oldBiasValue = conv.getBias();
      } else {
        auto fc = cast<FullyConnectedOp>(producer);
        if (fc.getActivation() != Activation::none)
          continue;
        oldBiasValue = fc.getBias();
        biasScale = fc.getBeta().convertToFloat();
        // A fully_connected bias may itself broadcast over rows; only a
        // per-column (or scalar) bias can absorb the addend.
        if (oldBiasValue &&
            !isPerChannel(
                cast<RankedTensorType>(oldBiasValue.getType()).getShape(),
                resultShape, 1))
          continue;
      }
      std::optional<F32ConstantView> oldBias;
      if (oldBiasValue && !(oldBias = getF32Constant(oldBiasValue)))
        continue;
      bool oldPerChannel =
          oldBiasValue &&
          cast<RankedTensorType>(oldBiasValue.getType()).getNumElements() != 1;

      SmallVector<float> newBias(channels);
      for (int64_t c = 0; c < channels; ++c) {
        float old =
            oldBias ? (*oldBias)[oldPerChannel ? c : 0] * biasScale : 0.0f;
        newBias[c] = old + (*addend)[addendPerChannel ? c : 0];
      }
      auto biasType =
          RankedTensorType::get({channels}, op.getType().getElementType());
      Value biasValue = rewriter.create<ConstantOp>(
          addendValue.getLoc(),
          createF32Constant(biasType, newBias, "folded_bias"));
      rewriter.modifyOpInPlace(producer, [&] {
        if (auto conv = dyn_cast<ConvOp>(producer)) {
          conv.getBiasMutable().assign(biasValue);
        } else {
          auto fc = cast<FullyConnectedOp>(producer);
          fc.getBiasMutable().assign(biasValue);
          fc.setBetaAttr(rewriter.getF32FloatAttr(1.0f));
        }
        producer->setLoc(
            rewriter.getFusedLoc({producer->getLoc(), op.getLoc()}));
      });
      rewriter.replaceOp(op, producer->getResults());
      return success();
    }
    return failure();
  }
};
} // namespace

void BatchNormOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldBatchNormIntoConv>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FoldAddIntoBias>(context);
}
