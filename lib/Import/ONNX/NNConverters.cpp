//===- NNConverters.cpp - ONNX neural network ops -------------------------===//
//
// Gemm, MatMul, convolutions, pooling, normalisation, softmax and
// reductions. ONNX `auto_pad` is resolved to explicit pads here so the
// accel ops only ever see explicit windows.
//
//===----------------------------------------------------------------------===//

#include "ImporterContext.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
LogicalResult convertGemm(NodeContext &ctx) {
  Builder &b = ctx.getBuilder();
  SmallVector<Value> operands{ctx.getInput(0), ctx.getInput(1)};
  if (ctx.hasInput(2))
    operands.push_back(ctx.getInput(2));
  SmallVector<NamedAttribute> attrs{
      ctx.named("transpose_input", b.getBoolAttr(ctx.getIntAttr("transA", 0))),
      ctx.named("transpose_weight", b.getBoolAttr(ctx.getIntAttr("transB", 0))),
      ctx.named("alpha", b.getF32FloatAttr(ctx.getFloatAttr("alpha", 1.0f))),
      ctx.named("beta", b.getF32FloatAttr(ctx.getFloatAttr("beta", 1.0f)))};
  return ctx.setSingleOutput(
      ctx.createInferred1<FullyConnectedOp>(operands, attrs));
}

LogicalResult convertMatMul(NodeContext &ctx) {
  return ctx.setSingleOutput(
      ctx.createInferred1<MatMulOp>({ctx.getInput(0), ctx.getInput(1)}));
}

/// Window attributes shared by Conv and pooling, with auto_pad resolved.
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
};

FailureOr<Window> getWindow(NodeContext &ctx, ArrayRef<int64_t> spatial,
                            ArrayRef<int64_t> kernel) {
  size_t rank = spatial.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides =
      ctx.getIntsAttr("strides").value_or(SmallVector<int64_t>(rank, 1));
  w.dilations =
      ctx.getIntsAttr("dilations").value_or(SmallVector<int64_t>(rank, 1));
  w.pads = ctx.getIntsAttr("pads").value_or(SmallVector<int64_t>(2 * rank, 0));
  if (w.kernel.size() != rank || w.strides.size() != rank ||
      w.dilations.size() != rank || w.pads.size() != 2 * rank)
    return (ctx.emitError() << "kernel_shape/strides/dilations/pads do not "
                               "match the "
                            << rank << " spatial dimensions",
            failure());
  std::string autoPad = ctx.getStringAttr("auto_pad", "NOTSET");
  if (autoPad == "NOTSET")
    return w;
  if (autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
    return w;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return (ctx.emitError() << "unknown auto_pad '" << autoPad << "'",
            failure());
  for (size_t i = 0; i < rank; ++i) {
    if (w.strides[i] < 1)
      return (ctx.emitError() << "strides must be positive", failure());
    int64_t out = (spatial[i] + w.strides[i] - 1) / w.strides[i];
    int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * w.strides[i] + extent - spatial[i]);
    int64_t small = total / 2, large = total - small;
    w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
    w.pads[i + rank] = autoPad == "SAME_UPPER" ? large : small;
  }
  return w;
}

LogicalResult convertConv(NodeContext &ctx) {
  return ctx.setSingleOutput(createConvFromNode(
      ctx, ctx.getInput(0), ctx.getInput(1), ctx.getInput(2)));
}

template <typename OpTy> LogicalResult convertPool(NodeContext &ctx) {
  if (ctx.hasOutput(1))
    return ctx.emitError() << "the Indices output is not supported";
  RankedTensorType input = ctx.getInputType(0);
  std::optional<SmallVector<int64_t>> kernel = ctx.getIntsAttr("kernel_shape");
  if (!kernel)
    return ctx.emitError() << "missing kernel_shape";
  if (input.getRank() < 3)
    return ctx.emitError() << "expects an N x C x D... input";
  FailureOr<Window> w = getWindow(ctx, input.getShape().drop_front(2), *kernel);
  if (failed(w))
    return failure();
  Builder &b = ctx.getBuilder();
  SmallVector<NamedAttribute> attrs{
      ctx.named("kernel_shape", b.getDenseI64ArrayAttr(w->kernel)),
      ctx.named("strides", b.getDenseI64ArrayAttr(w->strides)),
      ctx.named("pads", b.getDenseI64ArrayAttr(w->pads)),
      ctx.named("ceil_mode", b.getBoolAttr(ctx.getIntAttr("ceil_mode", 0)))};
  if constexpr (std::is_same_v<OpTy, MaxPoolOp>) {
    attrs.push_back(
        ctx.named("dilations", b.getDenseI64ArrayAttr(w->dilations)));
  } else {
    if (llvm::any_of(w->dilations, [](int64_t d) { return d != 1; }))
      return ctx.emitError() << "dilated average pooling is not supported";
    attrs.push_back(
        ctx.named("count_include_pad",
                  b.getBoolAttr(ctx.getIntAttr("count_include_pad", 0))));
  }
  // uint8 max pooling (a storage type for accel) pools in i32: exact.
  Value x = ctx.getInput(0);
  if (std::is_same_v<OpTy, MaxPoolOp> &&
      input.getElementType().isUnsignedInteger(8)) {
    Type i32 = ctx.getBuilder().getI32Type();
    FailureOr<Value> pooled = ctx.createInferred1<OpTy>(
        {ctx.create<CastOp>(input.clone(i32), x)}, attrs);
    if (failed(pooled))
      return failure();
    auto type = cast<RankedTensorType>(pooled->getType());
    ctx.setOutput(
        0, ctx.create<CastOp>(type.clone(input.getElementType()), *pooled));
    return success();
  }
  return ctx.setSingleOutput(ctx.createInferred1<OpTy>({x}, attrs));
}

LogicalResult convertGlobalAveragePool(NodeContext &ctx) {
  return ctx.setSingleOutput(
      ctx.createInferred1<GlobalAvgPoolOp>({ctx.getInput(0)}));
}

/// GlobalMaxPool is a max reduction over the spatial dimensions.
LogicalResult convertGlobalMaxPool(NodeContext &ctx) {
  RankedTensorType input = ctx.getInputType(0);
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < input.getRank(); ++i)
    axes.push_back(i);
  Builder &b = ctx.getBuilder();
  return ctx.setSingleOutput(ctx.createInferred1<ReduceMaxOp>(
      {ctx.getInput(0)}, {ctx.named("axes", b.getDenseI64ArrayAttr(axes)),
                          ctx.named("keepdims", b.getBoolAttr(true))}));
}

LogicalResult convertBatchNorm(NodeContext &ctx) {
  if (ctx.getNumOutputs() > 1 && (ctx.hasOutput(1) || ctx.hasOutput(2)))
    return ctx.emitError() << "training outputs (running mean/var) are not "
                              "supported";
  if (ctx.getIntAttr("training_mode", 0))
    return ctx.emitError() << "training_mode = 1 is not supported";
  if (ctx.getOpset() < 9 && ctx.getIntAttr("spatial", 1) == 0)
    return ctx.emitError() << "spatial = 0 (per-activation statistics) is "
                              "not supported";
  Value input = ctx.getInput(0);
  auto op = ctx.getBuilder().create<BatchNormOp>(
      ctx.getLoc(), input.getType(), input, ctx.getInput(1), ctx.getInput(2),
      ctx.getInput(3), ctx.getInput(4),
      ctx.getBuilder().getF32FloatAttr(ctx.getFloatAttr("epsilon", 1e-5f)));
  if (failed(op.verify()))
    return failure();
  ctx.setOutput(0, op);
  return success();
}

LogicalResult convertLayerNorm(NodeContext &ctx) {
  Value input = ctx.getInput(0);
  RankedTensorType type = ctx.getInputType(0);
  int64_t rawAxis = ctx.getIntAttr("axis", -1);
  float epsilon = ctx.getFloatAttr("epsilon", 1e-5f);
  OpBuilder &b = ctx.getBuilder();
  auto op = b.create<LayerNormOp>(
      ctx.getLoc(), input.getType(), input, ctx.getInput(1), ctx.getInput(2),
      b.getI64IntegerAttr(rawAxis), b.getF32FloatAttr(epsilon));
  if (failed(op.verify()))
    return failure();
  ctx.setOutput(0, op);
  if (!ctx.hasOutput(1) && !ctx.hasOutput(2))
    return success();

  // Mean and InvStdDev (over the normalised axes, kept as size 1) as the
  // ONNX function body computes them.
  if (!type.getElementType().isF32())
    return ctx.emitError() << "Mean/InvStdDev outputs need an f32 input";
  FailureOr<int64_t> axis = normalizeAxis(ctx, rawAxis, type.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < type.getRank(); ++i)
    axes.push_back(i);
  SmallVector<NamedAttribute> reduceAttrs{
      ctx.named("axes", b.getDenseI64ArrayAttr(axes)),
      ctx.named("keepdims", b.getBoolAttr(true))};
  FailureOr<Value> mean =
      ctx.createInferred1<ReduceMeanOp>({input}, reduceAttrs);
  if (failed(mean))
    return failure();
  Value centered = ctx.create<SubOp>(input.getType(), input, *mean);
  Value squared = ctx.create<MulOp>(input.getType(), centered, centered);
  FailureOr<Value> variance =
      ctx.createInferred1<ReduceMeanOp>({squared}, reduceAttrs);
  if (failed(variance))
    return failure();
  Type statType = variance->getType();
  auto scalarType = RankedTensorType::get({}, b.getF32Type());
  Value eps = b.create<ConstantOp>(
      ctx.getLoc(),
      cast<ElementsAttr>(DenseElementsAttr::get(scalarType, epsilon)));
  Value one = b.create<ConstantOp>(
      ctx.getLoc(),
      cast<ElementsAttr>(DenseElementsAttr::get(scalarType, 1.0f)));
  Value stddev =
      ctx.create<SqrtOp>(statType, ctx.create<AddOp>(statType, *variance, eps));
  ctx.setOutput(1, *mean);
  ctx.setOutput(2, ctx.create<DivOp>(statType, one, stddev));
  return success();
}

/// Softmax/LogSoftmax. Before opset 13 the input is coerced to 2-D at
/// `axis` (default 1) and normalised over the flattened trailing part.
template <typename OpTy> LogicalResult convertSoftmax(NodeContext &ctx) {
  Value input = ctx.getInput(0);
  RankedTensorType type = ctx.getInputType(0);
  int64_t rank = type.getRank();
  bool legacy = ctx.getOpset() < 13;
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getIntAttr("axis", legacy ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  OpBuilder &b = ctx.getBuilder();
  if (!legacy || *axis == rank - 1) {
    ctx.setOutput(
        0, b.create<OpTy>(ctx.getLoc(), input, b.getI64IntegerAttr(*axis)));
    return success();
  }
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < *axis ? outer : inner) *= type.getDimSize(i);
  Value flat = ctx.reshape(input, {outer, inner});
  Value result = b.create<OpTy>(ctx.getLoc(), flat, b.getI64IntegerAttr(1));
  ctx.setOutput(0, ctx.reshape(result, type.getShape()));
  return success();
}

/// Reductions: axes come from an attribute, or from an input (ReduceSum
/// since opset 13, the others since 18).
template <typename OpTy>
LogicalResult convertReduce(NodeContext &ctx, int64_t axesInputSince) {
  SmallVector<int64_t> axes;
  bool noopWithEmptyAxes = ctx.getIntAttr("noop_with_empty_axes", 0);
  if (ctx.getOpset() >= axesInputSince) {
    if (ctx.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> given = ctx.getConstantInts(1, "axes");
      if (failed(given))
        return failure();
      axes = *given;
    }
  } else if (auto given = ctx.getIntsAttr("axes")) {
    axes = *given;
  }
  if (axes.empty() && noopWithEmptyAxes) {
    ctx.setOutput(0, ctx.getInput(0));
    return success();
  }
  Builder &b = ctx.getBuilder();
  return ctx.setSingleOutput(ctx.createInferred1<OpTy>(
      {ctx.getInput(0)},
      {ctx.named("axes", b.getDenseI64ArrayAttr(axes)),
       ctx.named("keepdims",
                 b.getBoolAttr(ctx.getIntAttr("keepdims", 1) != 0))}));
}
} // namespace

FailureOr<Value>
mlir::nnaccel::onnx_import::createConvFromNode(NodeContext &ctx, Value input,
                                               Value weight, Value bias) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto weightType = cast<RankedTensorType>(weight.getType());
  if (inputType.getRank() < 3 || weightType.getRank() != inputType.getRank())
    return (ctx.emitError() << "expects N x C x D... input and matching weight",
            failure());
  ArrayRef<int64_t> kernel = weightType.getShape().drop_front(2);
  if (auto given = ctx.getIntsAttr("kernel_shape"))
    if (ArrayRef<int64_t>(*given) != kernel)
      return (ctx.emitError() << "kernel_shape differs from the weight shape",
              failure());
  FailureOr<Window> w =
      getWindow(ctx, inputType.getShape().drop_front(2), kernel);
  if (failed(w))
    return failure();
  Builder &b = ctx.getBuilder();
  SmallVector<Value> operands{input, weight};
  if (bias)
    operands.push_back(bias);
  return ctx.createInferred1<ConvOp>(
      operands,
      {ctx.named("strides", b.getDenseI64ArrayAttr(w->strides)),
       ctx.named("pads", b.getDenseI64ArrayAttr(w->pads)),
       ctx.named("dilations", b.getDenseI64ArrayAttr(w->dilations)),
       ctx.named("groups", b.getI64IntegerAttr(ctx.getIntAttr("group", 1)))});
}

void mlir::nnaccel::onnx_import::registerNNConverters(ConverterTable &table) {
  auto add = [&](StringRef name, int64_t minOpset, ConverterFn fn) {
    table[name].push_back({minOpset, std::move(fn)});
  };
  add("Gemm", 6, convertGemm);
  add("MatMul", 1, convertMatMul);
  add("Conv", 1, convertConv);
  add("MaxPool", 1, convertPool<MaxPoolOp>);
  add("AveragePool", 1, convertPool<AvgPoolOp>);
  add("GlobalAveragePool", 1, convertGlobalAveragePool);
  add("GlobalMaxPool", 1, convertGlobalMaxPool);
  add("BatchNormalization", 6, convertBatchNorm);
  add("LayerNormalization", 17, convertLayerNorm);
  add("Softmax", 1, convertSoftmax<SoftmaxOp>);
  add("LogSoftmax", 1, convertSoftmax<LogSoftmaxOp>);
  add("ReduceSum", 1,
      [](NodeContext &c) { return convertReduce<ReduceSumOp>(c, 13); });
  add("ReduceMean", 1,
      [](NodeContext &c) { return convertReduce<ReduceMeanOp>(c, 18); });
  add("ReduceMax", 1,
      [](NodeContext &c) { return convertReduce<ReduceMaxOp>(c, 18); });
  add("ReduceProd", 1,
      [](NodeContext &c) { return convertReduce<ReduceProdOp>(c, 18); });
}
