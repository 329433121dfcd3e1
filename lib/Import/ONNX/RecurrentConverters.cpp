//===- RecurrentConverters.cpp - ONNX LSTM and GRU ------------------------===//
//
// LSTM and GRU map one to one onto accel.lstm / accel.gru. Variants the
// accel ops do not model (custom activations, input_forget, ragged
// sequence_lens) are rejected with the reason. Layout 1 (batch first) is
// layout 0 between transposes of the inputs and results.
//
//===----------------------------------------------------------------------===//

#include "ImporterContext.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
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
  // sequence_lens (input 4) is fine when every sequence is full length.
  if (ctx.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> lengths =
        ctx.getConstantInts(4, "sequence_lens");
    if (failed(lengths))
      return failure();
    int64_t seq = ctx.getInputType(0).getDimSize(layout);
    if (llvm::any_of(*lengths, [&](int64_t l) { return l != seq; }))
      return (ctx.emitError() << "ragged sequence_lens are not supported",
              failure());
  }
  return kind;
}

Value transposeValue(NodeContext &ctx, Value value, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return ctx.create<TransposeOp>(type.clone(shape), value,
                                 ctx.getBuilder().getDenseI64ArrayAttr(perm));
}

bool isBatchFirst(NodeContext &ctx) { return ctx.getIntAttr("layout", 0); }

/// Operand `index` of the node; batch-first X and initial states become
/// sequence-first.
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
  if (failed(direction))
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
} // namespace

void mlir::nnaccel::onnx_import::registerRecurrentConverters(
    ConverterTable &table) {
  table["LSTM"].push_back({7, convertLSTM});
  table["GRU"].push_back({7, convertGRU});
}
