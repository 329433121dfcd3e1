//===- RecurrentConverters.cpp - ONNX LSTM and GRU ------------------------===//
//
// LSTM and GRU map one to one onto accel.lstm / accel.gru. Variants the
// accel ops do not model (custom activations, input_forget, ragged
// sequence_lens) are rejected with the reason. Layout 1 (batch first) is
// layout 0 between transposes of the inputs and results.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
/// sequence_lens (input 4) is fine when every sequence is full length: the
/// converters run every step of every batch row.
LogicalResult checkFullSequenceLens(NodeContext &ctx, int64_t layout) {
  if (!ctx.hasInput(4))
    return success();
  FailureOr<SmallVector<int64_t>> lengths =
      ctx.getConstantInts(4, "sequence_lens");
  if (failed(lengths))
    return failure();
  int64_t seq = ctx.getInputType(0).getDimSize(layout);
  if (llvm::any_of(*lengths, [&](int64_t l) { return l != seq; }))
    return ctx.emitError() << "ragged sequence_lens are not supported";
  return success();
}

/// Checks the attributes and inputs both recurrences share; returns the
/// direction.
FailureOr<RNNDirection> checkCommon(NodeContext &ctx,
                                    ArrayRef<StringRef> defaultActivations) {
  int64_t layout = ctx.getIntAttr("layout", 0);
  if (layout != 0 && layout != 1)
    return (ctx.emitError() << "unknown layout " << layout, failure());
  std::string direction = ctx.getStringAttr("direction", "forward");
  RNNDirection kind;
  if (direction == "forward")
    kind = RNNDirection::forward;
  else if (direction == "reverse")
    kind = RNNDirection::reverse;
  else if (direction == "bidirectional")
    kind = RNNDirection::bidirectional;
  else
    return (ctx.emitError() << "unknown direction '" << direction << "'",
            failure());
  if (auto activations = ctx.getStringsAttr("activations")) {
    int64_t directions = kind == RNNDirection::bidirectional ? 2 : 1;
    for (auto [i, name] : llvm::enumerate(*activations)) {
      StringRef expected = defaultActivations[i % defaultActivations.size()];
      if (!StringRef(name).equals_insensitive(expected) ||
          static_cast<int64_t>(activations->size()) !=
              directions * static_cast<int64_t>(defaultActivations.size()))
        return (ctx.emitError() << "only the default activations are "
                                   "supported, got '"
                                << name << "' at position " << i,
                failure());
    }
  }
  if (failed(checkFullSequenceLens(ctx, layout)))
    return failure();
  return kind;
}

/// `value` transposed by `perm` (of its rank).
Value transposeValue(NodeContext &ctx, Value value, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return ctx.create<TransposeOp>(type.clone(shape), value,
                                 ctx.getBuilder().getDenseI64ArrayAttr(perm));
}

bool isBatchFirst(NodeContext &ctx) { return ctx.getIntAttr("layout", 0); }

/// X and the initial states, which a batch-first layout transposes, must
/// be rank 3.
LogicalResult checkLayoutRanks(NodeContext &ctx) {
  for (int64_t index : {0, 5, 6})
    if (ctx.hasInput(index) && ctx.getInputType(index).getRank() != 3)
      return ctx.emitError() << "input " << index << " must be rank 3, not "
                             << ctx.getInputType(index).getRank();
  return success();
}

/// Operand `index` of the node; batch-first X and initial states become
/// sequence-first (checkLayoutRanks first).
Value getLayoutInput(NodeContext &ctx, int64_t index) {
  Value value = ctx.getInput(index);
  if (!isBatchFirst(ctx) || (index != 0 && index != 5 && index != 6))
    return value;
  return transposeValue(ctx, value, {1, 0, 2});
}

LogicalResult setResults(NodeContext &ctx,
                         FailureOr<SmallVector<Value>> results) {
  if (failed(results))
    return failure();
  for (auto [i, value] : llvm::enumerate(*results)) {
    // Batch first: Y is [B, S, D, H], the final states [B, D, H].
    if (isBatchFirst(ctx))
      value = transposeValue(ctx, value,
                             i == 0 ? ArrayRef<int64_t>{2, 0, 1, 3}
                                    : ArrayRef<int64_t>{1, 0, 2});
    ctx.setOutput(i, value);
  }
  return success();
}

LogicalResult convertLSTM(NodeContext &ctx) {
  FailureOr<RNNDirection> direction =
      checkCommon(ctx, {"Sigmoid", "Tanh", "Tanh"});
  if (failed(direction))
    return failure();
  if (ctx.getIntAttr("input_forget", 0) != 0)
    return ctx.emitError() << "input_forget = 1 is not supported";
  if (failed(checkLayoutRanks(ctx)))
    return failure();
  Builder &b = ctx.getBuilder();
  SmallVector<Value> operands{getLayoutInput(ctx, 0), ctx.getInput(1),
                              ctx.getInput(2)};
  SmallVector<int32_t> segments{1, 1, 1};
  for (int64_t index : {3, 5, 6, 7}) {
    segments.push_back(ctx.hasInput(index) ? 1 : 0);
    if (ctx.hasInput(index))
      operands.push_back(getLayoutInput(ctx, index));
  }
  SmallVector<NamedAttribute> attrs{
      b.getNamedAttr("hidden_size",
                     b.getI64IntegerAttr(ctx.getIntAttr("hidden_size", 0))),
      b.getNamedAttr("direction",
                     RNNDirectionAttr::get(ctx.getContext(), *direction)),
      b.getNamedAttr("operandSegmentSizes", b.getDenseI32ArrayAttr(segments))};
  if (ctx.getAttr("clip"))
    attrs.push_back(
        b.getNamedAttr("clip", b.getF32FloatAttr(ctx.getFloatAttr("clip", 0))));
  return setResults(ctx, ctx.createInferred<LSTMOp>(operands, attrs, 3));
}

LogicalResult convertGRU(NodeContext &ctx) {
  FailureOr<RNNDirection> direction = checkCommon(ctx, {"Sigmoid", "Tanh"});
  if (failed(direction) || failed(checkLayoutRanks(ctx)))
    return failure();
  Builder &b = ctx.getBuilder();
  SmallVector<Value> operands{getLayoutInput(ctx, 0), ctx.getInput(1),
                              ctx.getInput(2)};
  SmallVector<int32_t> segments{1, 1, 1};
  for (int64_t index : {3, 5}) {
    segments.push_back(ctx.hasInput(index) ? 1 : 0);
    if (ctx.hasInput(index))
      operands.push_back(getLayoutInput(ctx, index));
  }
  SmallVector<NamedAttribute> attrs{
      b.getNamedAttr("hidden_size",
                     b.getI64IntegerAttr(ctx.getIntAttr("hidden_size", 0))),
      b.getNamedAttr("direction",
                     RNNDirectionAttr::get(ctx.getContext(), *direction)),
      b.getNamedAttr("linear_before_reset",
                     b.getBoolAttr(ctx.getIntAttr("linear_before_reset", 0))),
      b.getNamedAttr("operandSegmentSizes", b.getDenseI32ArrayAttr(segments))};
  if (ctx.getAttr("clip"))
    attrs.push_back(
        b.getNamedAttr("clip", b.getF32FloatAttr(ctx.getFloatAttr("clip", 0))));
  return setResults(ctx, ctx.createInferred<GRUOp>(operands, attrs, 2));
}
/// Rows [begin, begin + count) of `value` along `axis`.
FailureOr<Value> sliceAlong(NodeContext &ctx, Value value, int64_t axis,
                            int64_t begin, int64_t count) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> starts(type.getRank(), 0), ends(type.getShape()),
      steps(type.getRank(), 1);
  starts[axis] = begin;
  ends[axis] = begin + count;
  Builder &b = ctx.getBuilder();
  return ctx.createInferred1<SliceOp>(
      {value}, {ctx.named("starts", b.getDenseI64ArrayAttr(starts)),
                ctx.named("ends", b.getDenseI64ArrayAttr(ends)),
                ctx.named("steps", b.getDenseI64ArrayAttr(steps))});
}

FailureOr<Value> concatAlong(NodeContext &ctx, ValueRange values,
                             int64_t axis) {
  if (values.size() == 1)
    return values.front();
  return ctx.createInferred1<ConcatOp>(
      values, {ctx.named("axis", ctx.getBuilder().getI64IntegerAttr(axis))});
}

/// RNN (the simple recurrence, which has no accel op) unrolled over its
/// static sequence: H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb) per direction.
LogicalResult convertRNN(NodeContext &ctx) {
  int64_t layout = ctx.getIntAttr("layout", 0);
  if (layout != 0 && layout != 1)
    return ctx.emitError() << "unknown layout " << layout;
  std::string direction = ctx.getStringAttr("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.emitError() << "unknown direction '" << direction << "'";
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  SmallVector<std::string> activations =
      ctx.getStringsAttr("activations")
          .value_or(SmallVector<std::string>(directions, "Tanh"));
  if (int64_t(activations.size()) != directions)
    return ctx.emitError() << "needs one activation per direction";
  for (const std::string &name : activations)
    if (name != "Tanh" && name != "Relu" && name != "Sigmoid")
      return ctx.emitError() << "activation '" << name << "' is not supported";
  if (failed(checkFullSequenceLens(ctx, layout)))
    return failure();
  if (failed(checkLayoutRanks(ctx)))
    return failure();
  Value x = getLayoutInput(ctx, 0);
  auto xType = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(xType.getElementType()))
    return ctx.emitError() << "expects a float S x B x I input";
  int64_t seq = xType.getDimSize(0), batch = xType.getDimSize(1),
          inputSize = xType.getDimSize(2);
  if (ctx.getInputType(1).getRank() != 3)
    return ctx.emitError() << "W must be [directions, hidden, input]";
  int64_t hidden = ctx.getInputType(1).getDimSize(1);
  // The weights are reshaped and transposed below: their shapes must agree
  // with X and with each other first.
  auto hasShape = [&](unsigned i, ArrayRef<int64_t> want) {
    return ctx.getInputType(i).getShape() == want;
  };
  if (!hasShape(1, {directions, hidden, inputSize}) ||
      !hasShape(2, {directions, hidden, hidden}) ||
      (ctx.hasInput(3) && !hasShape(3, {directions, 2 * hidden})) ||
      (ctx.hasInput(5) &&
       ctx.getInputType(5).getNumElements() != directions * batch * hidden) ||
      ctx.getIntAttr("hidden_size", hidden) != hidden)
    return ctx.emitError() << "W, R, B and initial_h must be [" << directions
                           << ", H, " << inputSize << "], [" << directions
                           << ", H, H], [" << directions << ", 2H] and ["
                           << directions << ", " << batch
                           << ", H] with H = hidden_size, for X of input "
                              "size "
                           << inputSize;
  Composer c(ctx);
  SmallVector<Value> perDirectionY, finals;
  for (int64_t d = 0; d < directions; ++d) {
    FailureOr<Value> w = sliceAlong(ctx, ctx.getInput(1), 0, d, 1);
    FailureOr<Value> r = sliceAlong(ctx, ctx.getInput(2), 0, d, 1);
    if (failed(w) || failed(r))
      return failure();
    FailureOr<Value> wT = ctx.createInferred1<TransposeOp>(
        {ctx.reshape(*w, {hidden, inputSize})},
        {ctx.named("permutation",
                   ctx.getBuilder().getDenseI64ArrayAttr({1, 0}))});
    FailureOr<Value> rT = ctx.createInferred1<TransposeOp>(
        {ctx.reshape(*r, {hidden, hidden})},
        {ctx.named("permutation",
                   ctx.getBuilder().getDenseI64ArrayAttr({1, 0}))});
    if (failed(wT) || failed(rT))
      return failure();
    Value bias;
    if (ctx.hasInput(3)) {
      FailureOr<Value> bd = sliceAlong(ctx, ctx.getInput(3), 0, d, 1);
      if (failed(bd))
        return failure();
      FailureOr<Value> wb = sliceAlong(ctx, *bd, 1, 0, hidden);
      FailureOr<Value> rb = sliceAlong(ctx, *bd, 1, hidden, hidden);
      if (failed(wb) || failed(rb))
        return failure();
      bias = c.binary<AddOp>(*wb, *rb);
    }
    Value h;
    if (ctx.hasInput(5)) {
      FailureOr<Value> h0 = sliceAlong(ctx, getLayoutInput(ctx, 5), 0, d, 1);
      if (failed(h0))
        return failure();
      h = ctx.reshape(*h0, {batch, hidden});
    } else {
      auto zeros = cast<ElementsAttr>(ctx.getBuilder().getZeroAttr(
          RankedTensorType::get({batch, hidden}, xType.getElementType())));
      h = ctx.getBuilder().create<ConstantOp>(ctx.getLoc(), zeros);
    }
    bool reverse = direction == "reverse" || d == 1;
    SmallVector<Value> steps(seq);
    for (int64_t i = 0; i < seq; ++i) {
      int64_t t = reverse ? seq - 1 - i : i;
      FailureOr<Value> xt = sliceAlong(ctx, x, 0, t, 1);
      if (failed(xt))
        return failure();
      FailureOr<Value> xw = ctx.createInferred1<MatMulOp>(
          {ctx.reshape(*xt, {batch, inputSize}), *wT}, {});
      FailureOr<Value> hr = ctx.createInferred1<MatMulOp>({h, *rT}, {});
      if (failed(xw) || failed(hr))
        return failure();
      Value pre = c.binary<AddOp>(*xw, *hr);
      if (bias)
        pre = c.binary<AddOp>(pre, bias);
      if (ctx.getAttr("clip")) {
        Builder &b = ctx.getBuilder();
        float clip = ctx.getFloatAttr("clip", 0);
        pre = ctx.create<ClipOp>(pre.getType(), pre, b.getF32FloatAttr(-clip),
                                 b.getF32FloatAttr(clip));
      }
      const std::string &f = activations[d];
      h = f == "Tanh"   ? c.unary<TanhOp>(pre)
          : f == "Relu" ? c.unary<ReluOp>(pre)
                        : c.unary<SigmoidOp>(pre);
      if (failed(c.status))
        return failure();
      steps[t] = ctx.reshape(h, {1, 1, batch, hidden});
    }
    FailureOr<Value> y = concatAlong(ctx, steps, 0);
    if (failed(y))
      return failure();
    perDirectionY.push_back(*y);
    finals.push_back(ctx.reshape(h, {1, batch, hidden}));
  }
  FailureOr<Value> y = concatAlong(ctx, perDirectionY, 1);
  FailureOr<Value> yh = concatAlong(ctx, finals, 0);
  if (failed(y) || failed(yh))
    return failure();
  return setResults(ctx, SmallVector<Value>{*y, *yh});
}
} // namespace

void mlir::nnaccel::onnx_import::registerRecurrentConverters(
    ConverterTable &table) {
  table["LSTM"].push_back({7, convertLSTM});
  table["GRU"].push_back({7, convertGRU});
  table["RNN"].push_back({7, convertRNN});
}
