//===- LossConverters.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropy
//-===//
//
// The two ONNX loss functions, evaluated forward (as in an exported
// evaluation graph), following their function bodies: the input's entry
// at each target class is picked with accel.gather_elements along the
// class axis, weighted by the class weight (accel.gather), masked where
// the target is ignore_index, and reduced (`none`, `sum`, or `mean`: the
// weighted sum divided by the sum of the weights that took part).
// SoftmaxCrossEntropyLoss applies accel.log_softmax along the class axis
// first and may also return it.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
/// -input[n, target[n, d...], d...] * weight[target] with reduction, for
/// an N x C x d... input and an N x d... target.
FailureOr<Value> buildNegativeLogLikelihood(NodeContext &ctx, Value input,
                                            Value target, Value weight) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto targetType = cast<RankedTensorType>(target.getType());
  if (inputType.getRank() < 2 ||
      targetType.getRank() != inputType.getRank() - 1)
    return (ctx.emitError() << "expects an N x C x d... input and an "
                               "N x d... target",
            failure());
  if (!isa<FloatType>(inputType.getElementType()))
    return (ctx.emitError() << "expects a floating point input", failure());
  std::string reduction = ctx.getStringAttr("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return (ctx.emitError() << "unknown reduction '" << reduction << "'",
            failure());
  Composer c(ctx);
  Type element = inputType.getElementType();
  Type indexType = targetType.getElementType();
  // Ignored positions read class 0 and are masked out afterwards.
  Value mask;
  if (const onnx::AttributeProto *ignore = ctx.getAttr("ignore_index")) {
    mask = c.compare(CompareKind::ne, target,
                     c.scalar(double(ignore->i()), indexType));
    target = c.where(mask, target, c.scalar(0, indexType));
  }
  if (failed(c.status))
    return failure();
  SmallVector<int64_t> pickShape(targetType.getShape());
  pickShape.insert(pickShape.begin() + 1, 1);
  Builder &b = ctx.getBuilder();
  FailureOr<Value> picked = ctx.createInferred1<GatherElementsOp>(
      {input, ctx.reshape(target, pickShape)},
      {ctx.named("axis", b.getI64IntegerAttr(1))});
  if (failed(picked))
    return failure();
  Value loss = c.unary<NegOp>(ctx.reshape(*picked, targetType.getShape()));
  Value weights;
  if (weight) {
    FailureOr<Value> gathered = ctx.createInferred1<GatherOp>(
        {weight, target}, {ctx.named("axis", b.getI64IntegerAttr(0))});
    if (failed(gathered))
      return failure();
    weights = *gathered;
    loss = c.binary<MulOp>(loss, weights);
  }
  if (mask) {
    Value zero = c.scalar(0, element);
    loss = c.where(mask, loss, zero);
    weights = c.where(mask, weights ? weights : c.scalar(1, element), zero);
  }
  if (failed(c.status))
    return failure();
  if (reduction == "none")
    return loss;
  SmallVector<NamedAttribute> all{ctx.named("axes", b.getDenseI64ArrayAttr({})),
                                  ctx.named("keepdims", b.getBoolAttr(false))};
  if (reduction == "mean" && !weights)
    return ctx.createInferred1<ReduceMeanOp>({loss}, all);
  FailureOr<Value> sum = ctx.createInferred1<ReduceSumOp>({loss}, all);
  if (failed(sum) || reduction == "sum")
    return sum;
  FailureOr<Value> total = ctx.createInferred1<ReduceSumOp>({weights}, all);
  if (failed(total))
    return failure();
  Value mean = c.binary<DivOp>(*sum, *total);
  if (failed(c.status))
    return failure();
  return mean;
}

LogicalResult convertNegativeLogLikelihoodLoss(NodeContext &ctx) {
  return ctx.setSingleOutput(buildNegativeLogLikelihood(
      ctx, ctx.getInput(0), ctx.getInput(1), ctx.getInput(2)));
}

LogicalResult convertSoftmaxCrossEntropyLoss(NodeContext &ctx) {
  Value scores = ctx.getInput(0);
  if (ctx.getInputType(0).getRank() < 2)
    return ctx.emitError() << "expects N x C x d... scores";
  OpBuilder &b = ctx.getBuilder();
  Value logProb =
      b.create<LogSoftmaxOp>(ctx.getLoc(), scores, b.getI64IntegerAttr(1));
  FailureOr<Value> loss = buildNegativeLogLikelihood(
      ctx, logProb, ctx.getInput(1), ctx.getInput(2));
  if (failed(loss))
    return failure();
  ctx.setOutput(0, *loss);
  ctx.setOutput(1, logProb);
  return success();
}
} // namespace

void mlir::nnaccel::onnx_import::registerLossConverters(ConverterTable &table) {
  table["NegativeLogLikelihoodLoss"].push_back(
      {12, convertNegativeLogLikelihoodLoss});
  table["SoftmaxCrossEntropyLoss"].push_back(
      {12, convertSoftmaxCrossEntropyLoss});
}
