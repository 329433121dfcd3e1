//===- DecomposedConverters.cpp - ONNX ops built from accel primitives ----===//
//
// ONNX ops that have no accel op of their own but are short compositions
// of existing ones: activations (LeakyRelu, Elu, Selu, Celu, HardSigmoid,
// HardSwish, Softsign, PRelu, ThresholdedRelu), logic (Not, And, Or, Xor),
// Reciprocal, Sign, Mean, CastLike, Trilu with a constant diagonal, Split,
// and reductions (ReduceL1, ReduceL2, ReduceSumSquare, ReduceMin). The
// compositions follow the ONNX function bodies, so they inherit the accel
// ops' numerics and their NPU lowerings.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
bool hasFloatInput(NodeContext &ctx, int64_t index = 0) {
  return ctx.getInput(index) &&
         isa<FloatType>(ctx.getInputType(index).getElementType());
}

LogicalResult requireFloat(NodeContext &ctx) {
  if (!hasFloatInput(ctx))
    return ctx.emitError() << "expects a floating point input";
  return success();
}

LogicalResult convertReciprocal(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  return c.finish(c.binary<DivOp>(c.scalarLike(1.0, x), x));
}

/// where(x < 0, negative(x), x) for the leaky family.
LogicalResult convertLeakyRelu(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  Value alpha = c.scalarLike(ctx.getFloatAttr("alpha", 0.01f), x);
  Value negative = c.compare(CompareKind::lt, x, c.scalarLike(0.0, x));
  return c.finish(c.where(negative, c.binary<MulOp>(x, alpha), x));
}

LogicalResult convertPRelu(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0), slope = ctx.getInput(1);
  // Before opset 7 a 1-D slope of C values applies per channel (axis 1).
  RankedTensorType xType = ctx.getInputType(0), slopeType = ctx.getInputType(1);
  if (ctx.getOpset() < 7 && slopeType.getRank() == 1 && xType.getRank() > 2 &&
      slopeType.getDimSize(0) == xType.getDimSize(1) &&
      slopeType.getDimSize(0) != 1) {
    SmallVector<int64_t> shape(xType.getRank() - 1, 1);
    shape[0] = slopeType.getDimSize(0);
    slope = ctx.reshape(slope, shape);
  }
  Value negative = c.compare(CompareKind::lt, x, c.scalarLike(0.0, x));
  return c.finish(c.where(negative, c.binary<MulOp>(x, slope), x));
}

/// alpha * (exp(x) - 1) for x < 0, else x.
LogicalResult convertElu(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  Value alpha = c.scalarLike(ctx.getFloatAttr("alpha", 1.0f), x);
  Value expm1 = c.binary<SubOp>(c.unary<ExpOp>(x), c.scalarLike(1.0, x));
  Value negative = c.compare(CompareKind::lt, x, c.scalarLike(0.0, x));
  return c.finish(c.where(negative, c.binary<MulOp>(alpha, expm1), x));
}

/// gamma * (alpha * exp(x) - alpha) for x <= 0, gamma * x otherwise.
LogicalResult convertSelu(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  Value alpha =
      c.scalarLike(ctx.getFloatAttr("alpha", 1.67326319217681884765625f), x);
  Value gamma =
      c.scalarLike(ctx.getFloatAttr("gamma", 1.05070102214813232421875f), x);
  Value negativePart =
      c.binary<SubOp>(c.binary<MulOp>(alpha, c.unary<ExpOp>(x)), alpha);
  Value nonPositive = c.compare(CompareKind::le, x, c.scalarLike(0.0, x));
  return c.finish(
      c.binary<MulOp>(gamma, c.where(nonPositive, negativePart, x)));
}

/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
LogicalResult convertCelu(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  Value alpha = c.scalarLike(ctx.getFloatAttr("alpha", 1.0f), x);
  Value zero = c.scalarLike(0.0, x);
  Value expm1 = c.binary<SubOp>(c.unary<ExpOp>(c.binary<DivOp>(x, alpha)),
                                c.scalarLike(1.0, x));
  return c.finish(
      c.binary<AddOp>(c.binary<MaxOp>(zero, x),
                      c.binary<MinOp>(zero, c.binary<MulOp>(alpha, expm1))));
}

LogicalResult convertThresholdedRelu(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  Value above = c.compare(CompareKind::gt, x,
                          c.scalarLike(ctx.getFloatAttr("alpha", 1.0f), x));
  return c.finish(c.where(above, x, c.scalarLike(0.0, x)));
}

/// clip(alpha * x + beta, 0, 1).
Value hardSigmoid(Composer &c, Value x, float alpha, float beta) {
  Value linear = c.binary<AddOp>(c.binary<MulOp>(x, c.scalarLike(alpha, x)),
                                 c.scalarLike(beta, x));
  if (failed(c.status))
    return linear;
  Builder &b = c.ctx.getBuilder();
  return c.ctx.create<ClipOp>(linear.getType(), linear, b.getF32FloatAttr(0.0f),
                              b.getF32FloatAttr(1.0f));
}

LogicalResult convertHardSigmoid(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  return c.finish(hardSigmoid(c, ctx.getInput(0),
                              ctx.getFloatAttr("alpha", 0.2f),
                              ctx.getFloatAttr("beta", 0.5f)));
}

LogicalResult convertHardSwish(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  return c.finish(c.binary<MulOp>(x, hardSigmoid(c, x, 1.0f / 6.0f, 0.5f)));
}

LogicalResult convertSoftsign(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  return c.finish(c.binary<DivOp>(
      x, c.binary<AddOp>(c.scalarLike(1.0, x), c.unary<AbsOp>(x))));
}

/// Softplus = log(exp(x) + 1), its ONNX function body.
LogicalResult convertSoftplus(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  return c.finish(
      c.unary<LogOp>(c.binary<AddOp>(c.unary<ExpOp>(x), c.scalarLike(1.0, x))));
}

/// IsNaN = x != x.
LogicalResult convertIsNaN(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  return c.finish(c.compare(CompareKind::ne, x, x));
}

/// IsInf: |x| == inf, or x == +inf (only detect_positive) or x == -inf
/// (only detect_negative).
LogicalResult convertIsInf(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value x = ctx.getInput(0);
  bool positive = ctx.getIntAttr("detect_positive", 1);
  bool negative = ctx.getIntAttr("detect_negative", 1);
  Value inf = c.scalarLike(INFINITY, x);
  if (positive && negative)
    return c.finish(c.compare(CompareKind::eq, c.unary<AbsOp>(x), inf));
  if (positive)
    return c.finish(c.compare(CompareKind::eq, x, inf));
  if (negative)
    return c.finish(c.compare(CompareKind::eq, x, c.scalarLike(-INFINITY, x)));
  // Neither: all false (|x| > inf never holds, NaN included).
  return c.finish(c.compare(CompareKind::gt, c.unary<AbsOp>(x), inf));
}

/// InstanceNormalization: (x - mean) / sqrt(var + epsilon) * scale + bias
/// over the spatial dimensions of each (n, c).
LogicalResult convertInstanceNorm(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  RankedTensorType type = ctx.getInputType(0);
  int64_t rank = type.getRank();
  if (rank < 3)
    return ctx.emitError() << "expects N x C x D... input";
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  Builder &b = ctx.getBuilder();
  SmallVector<NamedAttribute> attrs{
      b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
      b.getNamedAttr("keepdims", b.getBoolAttr(true))};
  Value x = ctx.getInput(0);
  FailureOr<Value> mean = ctx.createInferred1<ReduceMeanOp>({x}, attrs);
  if (failed(mean))
    return failure();
  Composer c(ctx);
  Value centered = c.binary<SubOp>(x, *mean);
  if (failed(c.status))
    return failure();
  FailureOr<Value> var = ctx.createInferred1<ReduceMeanOp>(
      {c.binary<MulOp>(centered, centered)}, attrs);
  if (failed(var))
    return failure();
  Value denom = c.unary<SqrtOp>(c.binary<AddOp>(
      *var, c.scalarLike(ctx.getFloatAttr("epsilon", 1e-5f), x)));
  SmallVector<int64_t> channelShape(rank, 1);
  channelShape[1] = type.getDimSize(1);
  Value scale = ctx.reshape(ctx.getInput(1), channelShape);
  Value bias = ctx.reshape(ctx.getInput(2), channelShape);
  return c.finish(c.binary<AddOp>(
      c.binary<MulOp>(c.binary<DivOp>(centered, denom), scale), bias));
}

/// Shrink: x + bias below -lambd, x - bias above lambd, else 0.
LogicalResult convertShrink(NodeContext &ctx) {
  Composer c(ctx);
  Value x = ctx.getInput(0);
  double lambd = ctx.getFloatAttr("lambd", 0.5f);
  double bias = ctx.getFloatAttr("bias", 0.0f);
  Value zero = c.scalarLike(0.0, x);
  Value below = c.compare(CompareKind::lt, x, c.scalarLike(-lambd, x));
  Value above = c.compare(CompareKind::gt, x, c.scalarLike(lambd, x));
  Value biasValue = c.scalarLike(bias, x);
  return c.finish(c.where(below, c.binary<AddOp>(x, biasValue),
                          c.where(above, c.binary<SubOp>(x, biasValue), zero)));
}

/// MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)
/// over `axes` (default N, H, W), as the ONNX reference computes it.
LogicalResult convertMeanVarianceNormalization(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  SmallVector<int64_t> axes =
      ctx.getIntsAttr("axes").value_or(SmallVector<int64_t>{0, 2, 3});
  Builder &b = ctx.getBuilder();
  SmallVector<NamedAttribute> attrs{
      b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
      b.getNamedAttr("keepdims", b.getBoolAttr(true))};
  Value x = ctx.getInput(0);
  Composer c(ctx);
  FailureOr<Value> mean = ctx.createInferred1<ReduceMeanOp>({x}, attrs);
  if (failed(mean))
    return failure();
  FailureOr<Value> meanOfSquares =
      ctx.createInferred1<ReduceMeanOp>({c.binary<MulOp>(x, x)}, attrs);
  if (failed(meanOfSquares))
    return failure();
  Value variance =
      c.binary<SubOp>(*meanOfSquares, c.binary<MulOp>(*mean, *mean));
  Value stddev = c.unary<SqrtOp>(variance);
  return c.finish(
      c.binary<DivOp>(c.binary<SubOp>(x, *mean),
                      c.binary<AddOp>(stddev, c.scalarLike(1e-9, x))));
}

/// LRN: x / (bias + alpha / size * sum of x^2 over `size` channels)^beta;
/// the channel window sums size slices of the zero-padded squares.
LogicalResult convertLRN(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  RankedTensorType type = ctx.getInputType(0);
  int64_t rank = type.getRank(), size = ctx.getIntAttr("size", 0);
  if (rank < 3 || size < 1)
    return ctx.emitError() << "expects N x C x D... input and size >= 1";
  double alpha = ctx.getFloatAttr("alpha", 1e-4f);
  double beta = ctx.getFloatAttr("beta", 0.75f);
  double bias = ctx.getFloatAttr("bias", 1.0f);
  Composer c(ctx);
  Value x = ctx.getInput(0);
  Value squares = c.binary<MulOp>(x, x);
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[1] = before;
  pads[rank + 1] = after;
  Builder &b = ctx.getBuilder();
  FailureOr<Value> padded = ctx.createInferred1<PadOp>(
      {squares}, {ctx.named("pads", b.getDenseI64ArrayAttr(pads))});
  if (failed(padded))
    return failure();
  int64_t channels = type.getDimSize(1);
  Value sum;
  for (int64_t i = 0; i < size; ++i) {
    SmallVector<int64_t> starts(rank, 0), ends(type.getShape()), steps(rank, 1);
    starts[1] = i;
    ends[1] = i + channels;
    FailureOr<Value> slice = ctx.createInferred1<SliceOp>(
        {*padded}, {ctx.named("starts", b.getDenseI64ArrayAttr(starts)),
                    ctx.named("ends", b.getDenseI64ArrayAttr(ends)),
                    ctx.named("steps", b.getDenseI64ArrayAttr(steps))});
    if (failed(slice))
      return failure();
    sum = sum ? c.binary<AddOp>(sum, *slice) : *slice;
  }
  Value scaled = c.binary<AddOp>(
      c.scalarLike(bias, x),
      c.binary<MulOp>(c.scalarLike(alpha / double(size), x), sum));
  return c.finish(
      c.binary<DivOp>(x, c.binary<PowOp>(scaled, c.scalarLike(beta, x))));
}

LogicalResult convertSign(NodeContext &ctx) {
  Composer c(ctx);
  Value x = ctx.getInput(0);
  Value zero = c.scalarLike(0.0, x);
  Value positive = c.compare(CompareKind::gt, x, zero);
  Value negative = c.compare(CompareKind::lt, x, zero);
  return c.finish(c.where(positive, c.scalarLike(1.0, x),
                          c.where(negative, c.scalarLike(-1.0, x), zero)));
}

/// Logic on i1 through i8 arithmetic: and = min, or = max, xor = ne.
/// Not / And / Or / Xor as compares and selects of bools, which run on the
/// card (SelectKernels.cpp) as well as on the host: not a = (a == false),
/// a xor b = (a != b), a and b = a ? b : a, a or b = a ? a : b.
LogicalResult convertLogic(NodeContext &ctx, StringRef kind) {
  Composer c(ctx);
  Type i1 = ctx.getBuilder().getI1Type();
  auto asBool = [&](Value value) {
    return Composer::getElementType(value) == i1 ? value : c.cast(value, i1);
  };
  Value lhs = asBool(ctx.getInput(0));
  if (kind == "not")
    return c.finish(c.compare(CompareKind::eq, lhs, c.scalar(0, i1)));
  Value rhs = asBool(ctx.getInput(1));
  if (kind == "xor")
    return c.finish(c.compare(CompareKind::ne, lhs, rhs));
  return c.finish(kind == "and" ? c.where(lhs, rhs, lhs)
                                : c.where(lhs, lhs, rhs));
}

LogicalResult convertMean(NodeContext &ctx) {
  if (failed(requireFloat(ctx)))
    return failure();
  Composer c(ctx);
  Value sum = ctx.getInput(0);
  for (int64_t i = 1; i < ctx.getNumInputs(); ++i)
    sum = c.binary<AddOp>(sum, ctx.getInput(i));
  return c.finish(c.binary<DivOp>(
      sum, c.scalarLike(static_cast<double>(ctx.getNumInputs()), sum)));
}

LogicalResult convertCastLike(NodeContext &ctx) {
  Composer c(ctx);
  return c.finish(
      c.cast(ctx.getInput(0), Composer::getElementType(ctx.getInput(1))));
}

/// Trilu: a mask of the kept triangle selects the input. With a
/// compile-time diagonal k the mask is a constant; with k computed at run
/// time (a graph input) it compares a constant of j - i per element with
/// k, so the package serves every k.
LogicalResult convertTrilu(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  if (type.getRank() < 2)
    return ctx.emitError() << "expects rank >= 2";
  bool upper = ctx.getIntAttr("upper", 1) != 0;
  int64_t rows = type.getDimSize(type.getRank() - 2);
  int64_t cols = type.getDimSize(type.getRank() - 1);
  Composer c(ctx);
  Value x = ctx.getInput(0);
  Value maskValue;
  if (ctx.hasInput(1) && !matchPattern(ctx.getInput(1), m_Constant())) {
    RankedTensorType kType = ctx.getInputType(1);
    if (kType.getNumElements() != 1 ||
        !kType.getElementType().isSignlessInteger(64))
      return ctx.emitError() << "k must be an int64 scalar, got " << kType;
    SmallVector<int64_t> offsets;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        offsets.push_back(j - i);
    const int64_t shape[] = {rows, cols};
    Value diagonal = ctx.createI64Constant(offsets, ArrayRef<int64_t>(shape));
    Value k = ctx.getInput(1);
    if (kType.getRank() != 0)
      k = ctx.create<ReshapeOp>(
          RankedTensorType::get({}, kType.getElementType()), k);
    maskValue =
        c.compare(upper ? CompareKind::ge : CompareKind::le, diagonal, k);
  } else {
    int64_t k = 0;
    if (ctx.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> given = ctx.getConstantInts(1, "k");
      if (failed(given))
        return failure();
      if (!given->empty())
        k = (*given)[0];
    }
    SmallVector<bool> mask;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        mask.push_back(upper ? j - i >= k : j - i <= k);
    auto maskType =
        RankedTensorType::get({rows, cols}, ctx.getBuilder().getI1Type());
    maskValue = ctx.getBuilder().create<ConstantOp>(
        ctx.getLoc(),
        cast<ElementsAttr>(DenseElementsAttr::get(maskType, mask)));
  }
  return c.finish(c.where(maskValue, x, c.scalarLike(0.0, x)));
}

/// Split into slices along `axis`; sizes from the `split` attribute (< 13),
/// the `split` input (>= 13), `num_outputs` (18) or equal parts.
LogicalResult convertSplit(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getIntAttr("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  int64_t outputs = ctx.getNumOutputs();
  SmallVector<int64_t> sizes;
  if (ctx.getOpset() >= 13 && ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = ctx.getConstantInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else if (auto given = ctx.getIntsAttr("split")) {
    sizes = *given;
  }
  int64_t dim = type.getDimSize(*axis);
  if (sizes.empty()) {
    int64_t part = (dim + outputs - 1) / outputs;
    for (int64_t i = 0, begin = 0; i < outputs; ++i, begin += part)
      sizes.push_back(std::max<int64_t>(0, std::min(part, dim - begin)));
  }
  if (static_cast<int64_t>(sizes.size()) != outputs ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim)
    return ctx.emitError() << "split sizes do not add up to dimension " << *axis
                           << " (" << dim << ") over " << outputs << " outputs";
  Builder &b = ctx.getBuilder();
  int64_t begin = 0;
  for (int64_t i = 0; i < outputs; ++i) {
    SmallVector<int64_t> starts(type.getRank(), 0), ends(type.getShape()),
        steps(type.getRank(), 1);
    starts[*axis] = begin;
    ends[*axis] = begin + sizes[i];
    begin += sizes[i];
    FailureOr<Value> slice = ctx.createInferred1<SliceOp>(
        {ctx.getInput(0)},
        {b.getNamedAttr("starts", b.getDenseI64ArrayAttr(starts)),
         b.getNamedAttr("ends", b.getDenseI64ArrayAttr(ends)),
         b.getNamedAttr("steps", b.getDenseI64ArrayAttr(steps))});
    if (failed(slice))
      return failure();
    ctx.setOutput(i, *slice);
  }
  return success();
}

/// Axes of a reduction node: attribute (< 18, ReduceSum < 13) or input.
FailureOr<SmallVector<int64_t>> getReduceAxes(NodeContext &ctx,
                                              int64_t inputSince) {
  if (ctx.getOpset() >= inputSince) {
    if (!ctx.hasInput(1))
      return SmallVector<int64_t>();
    return ctx.getConstantInts(1, "axes");
  }
  return ctx.getIntsAttr("axes").value_or(SmallVector<int64_t>());
}

/// reduce(f(x)) then g: ReduceL1 = sum |x|, ReduceSumSquare = sum x^2,
/// ReduceL2 = sqrt(sum x^2), ReduceMin = -max(-x).
LogicalResult convertDerivedReduce(NodeContext &ctx, StringRef kind) {
  FailureOr<SmallVector<int64_t>> axes = getReduceAxes(ctx, 18);
  if (failed(axes))
    return failure();
  if (axes->empty() && ctx.getIntAttr("noop_with_empty_axes", 0)) {
    ctx.setOutput(0, ctx.getInput(0));
    return success();
  }
  Composer c(ctx);
  Value x = ctx.getInput(0);
  if ((kind == "logsum" || kind == "logsumexp") && !hasFloatInput(ctx))
    return ctx.emitError() << "expects a floating point input";
  Value mapped = kind == "l1"          ? c.unary<AbsOp>(x)
                 : kind == "min"       ? c.unary<NegOp>(x)
                 : kind == "logsum"    ? x
                 : kind == "logsumexp" ? c.unary<ExpOp>(x)
                                       : c.binary<MulOp>(x, x);
  if (failed(c.status))
    return failure();
  Builder &b = ctx.getBuilder();
  SmallVector<NamedAttribute> attrs{
      b.getNamedAttr("axes", b.getDenseI64ArrayAttr(*axes)),
      b.getNamedAttr("keepdims", b.getBoolAttr(ctx.getIntAttr("keepdims", 1)))};
  FailureOr<Value> reduced =
      kind == "min" ? ctx.createInferred1<ReduceMaxOp>({mapped}, attrs)
                    : ctx.createInferred1<ReduceSumOp>({mapped}, attrs);
  if (failed(reduced))
    return failure();
  if (kind == "min")
    return c.finish(c.unary<NegOp>(*reduced));
  if (kind == "logsum" || kind == "logsumexp")
    return c.finish(c.unary<LogOp>(*reduced));
  if (kind == "l2") {
    if (!hasFloatInput(ctx))
      return ctx.emitError() << "ReduceL2 needs a floating point input";
    return c.finish(c.unary<SqrtOp>(*reduced));
  }
  return c.finish(*reduced);
}
} // namespace

void mlir::nnaccel::onnx_import::registerDecomposedConverters(
    ConverterTable &table) {
  auto add = [&](StringRef name, int64_t minOpset, ConverterFn fn) {
    table[name].push_back({minOpset, std::move(fn)});
  };
  add("Reciprocal", 6, convertReciprocal);
  add("LeakyRelu", 6, convertLeakyRelu);
  add("PRelu", 6, convertPRelu);
  add("Elu", 6, convertElu);
  add("Selu", 6, convertSelu);
  add("Celu", 12, convertCelu);
  add("ThresholdedRelu", 10, convertThresholdedRelu);
  add("HardSigmoid", 6, convertHardSigmoid);
  add("HardSwish", 14, convertHardSwish);
  add("Softsign", 1, convertSoftsign);
  add("Sign", 9, convertSign);
  add("Not", 1, [](NodeContext &c) { return convertLogic(c, "not"); });
  add("And", 7, [](NodeContext &c) { return convertLogic(c, "and"); });
  add("Or", 7, [](NodeContext &c) { return convertLogic(c, "or"); });
  add("Xor", 7, [](NodeContext &c) { return convertLogic(c, "xor"); });
  add("Mean", 8, convertMean);
  add("CastLike", 15, convertCastLike);
  add("Trilu", 14, convertTrilu);
  add("Split", 2, convertSplit);
  add("ReduceL1", 1,
      [](NodeContext &c) { return convertDerivedReduce(c, "l1"); });
  add("ReduceL2", 1,
      [](NodeContext &c) { return convertDerivedReduce(c, "l2"); });
  add("ReduceSumSquare", 1,
      [](NodeContext &c) { return convertDerivedReduce(c, "sumsquare"); });
  add("ReduceLogSum", 1,
      [](NodeContext &c) { return convertDerivedReduce(c, "logsum"); });
  add("ReduceLogSumExp", 1,
      [](NodeContext &c) { return convertDerivedReduce(c, "logsumexp"); });
  add("Softplus", 1, convertSoftplus);
  add("Shrink", 9, convertShrink);
  add("MeanVarianceNormalization", 9, convertMeanVarianceNormalization);
  add("LRN", 1, convertLRN);
  add("IsNaN", 9, convertIsNaN);
  add("IsInf", 10, convertIsInf);
  add("InstanceNormalization", 6, convertInstanceNorm);
  add("ReduceMin", 1,
      [](NodeContext &c) { return convertDerivedReduce(c, "min"); });
}
