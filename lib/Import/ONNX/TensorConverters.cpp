//===- TensorConverters.cpp - ONNX shape and data movement ops ------------===//
//
// Constants, shape queries and layout ops. With static input shapes every
// Shape/Size becomes a constant and the accel folders evaluate the shape
// arithmetic that follows (Gather, Concat, Unsqueeze, ...), so Reshape,
// Expand, Slice and friends always see constant operands here.
//
//===----------------------------------------------------------------------===//

#include "ImporterContext.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
LogicalResult convertConstant(NodeContext &ctx) {
  OpBuilder &b = ctx.getBuilder();
  if (const onnx::AttributeProto *value = ctx.getAttr("value")) {
    FailureOr<ElementsAttr> attr =
        importTensor(value->t(), ctx.baseDir, /*protoOwner=*/nullptr,
                     ctx.getContext(), ctx.getLoc());
    if (failed(attr))
      return failure();
    ctx.setOutput(0, b.create<ConstantOp>(ctx.getLoc(), *attr));
    return success();
  }
  if (const onnx::AttributeProto *attr = ctx.getAttr("value_float")) {
    ctx.setOutput(0, ctx.createF32Constant({attr->f()}, {}));
    return success();
  }
  if (auto floats = ctx.getFloatsAttr("value_floats")) {
    ctx.setOutput(0, ctx.createF32Constant(
                         *floats, {static_cast<int64_t>(floats->size())}));
    return success();
  }
  if (const onnx::AttributeProto *attr = ctx.getAttr("value_int")) {
    ctx.setOutput(0, ctx.createI64Constant({attr->i()}, ArrayRef<int64_t>{}));
    return success();
  }
  if (auto ints = ctx.getIntsAttr("value_ints")) {
    ctx.setOutput(0, ctx.createI64Constant(*ints));
    return success();
  }
  return ctx.emitError() << "needs a value, value_float(s) or value_int(s) "
                            "attribute (sparse and string constants are not "
                            "supported)";
}

/// Reshape with ONNX's 0 (copy) and -1 (infer) conventions.
LogicalResult convertReshape(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  FailureOr<SmallVector<int64_t>> shape = ctx.getConstantInts(1, "shape");
  if (failed(shape))
    return failure();
  bool allowZero = ctx.getIntAttr("allowzero", 0) != 0;
  int64_t known = 1, inferAt = -1;
  SmallVector<int64_t> dims(*shape);
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= type.getRank())
        return ctx.emitError()
               << "shape entry " << i << " copies a dimension the input (rank "
               << type.getRank() << ") does not have";
      dim = type.getDimSize(i);
    }
    if (dim == -1) {
      if (inferAt >= 0)
        return ctx.emitError() << "shape has more than one -1";
      inferAt = i;
      continue;
    }
    if (dim < 0)
      return ctx.emitError() << "invalid shape entry " << dim;
    if (llvm::MulOverflow(known, dim, known))
      return ctx.emitError() << "shape has more than 2^63 - 1 elements";
  }
  if (inferAt >= 0) {
    if (known == 0 || type.getNumElements() % known != 0)
      return ctx.emitError()
             << "cannot infer the -1 dimension: " << type.getNumElements()
             << " elements do not divide by " << known;
    dims[inferAt] = type.getNumElements() / known;
  }
  auto result = type.clone(dims);
  if (result.getNumElements() != type.getNumElements())
    return ctx.emitError() << "cannot reshape " << type << " to " << result;
  ctx.setOutput(0, ctx.reshape(ctx.getInput(0), dims));
  return success();
}

LogicalResult convertFlatten(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  int64_t rank = type.getRank();
  int64_t axis = ctx.getIntAttr("axis", 1);
  if (axis < -rank || axis > rank)
    return ctx.emitError() << "axis " << axis << " is out of range for rank "
                           << rank;
  if (axis < 0)
    axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? outer : inner) *= type.getDimSize(i);
  ctx.setOutput(0, ctx.reshape(ctx.getInput(0), {outer, inner}));
  return success();
}

/// Axes of Squeeze/Unsqueeze: an attribute before opset 13, an input since.
FailureOr<std::optional<SmallVector<int64_t>>> getAxes(NodeContext &ctx) {
  if (ctx.getOpset() >= 13) {
    if (!ctx.hasInput(1))
      return std::optional<SmallVector<int64_t>>();
    FailureOr<SmallVector<int64_t>> axes = ctx.getConstantInts(1, "axes");
    if (failed(axes))
      return failure();
    return std::optional<SmallVector<int64_t>>(*axes);
  }
  return ctx.getIntsAttr("axes");
}

LogicalResult convertSqueeze(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  FailureOr<std::optional<SmallVector<int64_t>>> axes = getAxes(ctx);
  if (failed(axes))
    return failure();
  SmallVector<bool> drop(type.getRank(), false);
  if (*axes) {
    for (int64_t axis : **axes) {
      FailureOr<int64_t> normalized = normalizeAxis(ctx, axis, type.getRank());
      if (failed(normalized))
        return failure();
      if (type.getDimSize(*normalized) != 1)
        return ctx.emitError() << "cannot squeeze dimension " << *normalized
                               << " of size " << type.getDimSize(*normalized);
      drop[*normalized] = true;
    }
  } else {
    for (int64_t i = 0; i < type.getRank(); ++i)
      drop[i] = type.getDimSize(i) == 1;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!drop[i])
      shape.push_back(type.getDimSize(i));
  ctx.setOutput(0, ctx.reshape(ctx.getInput(0), shape));
  return success();
}

LogicalResult convertUnsqueeze(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  FailureOr<std::optional<SmallVector<int64_t>>> axes = getAxes(ctx);
  if (failed(axes))
    return failure();
  if (!*axes)
    return ctx.emitError() << "needs axes";
  int64_t rank = type.getRank() + (*axes)->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t axis : **axes) {
    FailureOr<int64_t> normalized = normalizeAxis(ctx, axis, rank);
    if (failed(normalized))
      return failure();
    if (inserted[*normalized])
      return ctx.emitError() << "axis " << axis << " is repeated";
    inserted[*normalized] = true;
  }
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(inserted[i] ? 1 : type.getDimSize(next++));
  ctx.setOutput(0, ctx.reshape(ctx.getInput(0), shape));
  return success();
}

LogicalResult convertTranspose(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  SmallVector<int64_t> perm;
  if (auto given = ctx.getIntsAttr("perm"))
    perm = *given;
  else
    for (int64_t i = type.getRank() - 1; i >= 0; --i)
      perm.push_back(i);
  return ctx.setSingleOutput(ctx.createInferred1<TransposeOp>(
      {ctx.getInput(0)},
      {ctx.named("permutation", ctx.getBuilder().getDenseI64ArrayAttr(perm))}));
}

LogicalResult convertConcat(NodeContext &ctx) {
  SmallVector<Value> inputs;
  for (int64_t i = 0; i < ctx.getNumInputs(); ++i)
    if (ctx.hasInput(i))
      inputs.push_back(ctx.getInput(i));
  if (!ctx.getAttr("axis"))
    return ctx.emitError() << "missing axis";
  return ctx.setSingleOutput(ctx.createInferred1<ConcatOp>(
      inputs, {ctx.named("axis", ctx.getBuilder().getI64IntegerAttr(
                                     ctx.getIntAttr("axis", 0)))}));
}

/// Slice with ONNX clamping: starts/ends are clamped to the dimension, then
/// normalised to the accel form (non-negative start, end >= -1).
LogicalResult convertSlice(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (ctx.getOpset() < 10) {
    starts = ctx.getIntsAttr("starts").value_or(SmallVector<int64_t>());
    ends = ctx.getIntsAttr("ends").value_or(SmallVector<int64_t>());
    axes = ctx.getIntsAttr("axes").value_or(SmallVector<int64_t>());
  } else {
    FailureOr<SmallVector<int64_t>> s = ctx.getConstantInts(1, "starts");
    FailureOr<SmallVector<int64_t>> e = ctx.getConstantInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (ctx.hasInput(3)) {
      FailureOr<SmallVector<int64_t>> a = ctx.getConstantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (ctx.hasInput(4)) {
      FailureOr<SmallVector<int64_t>> st = ctx.getConstantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size())
    return ctx.emitError() << "starts, ends, axes and steps differ in length";

  SmallVector<int64_t> fullStarts(rank, 0), fullEnds(type.getShape()),
      fullSteps(rank, 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, axes[i], rank);
    if (failed(axis))
      return failure();
    int64_t dim = type.getDimSize(*axis), step = steps[i];
    if (step == 0)
      return ctx.emitError() << "step 0 on axis " << *axis;
    int64_t start = starts[i], end = ends[i];
    if (start < 0)
      start += dim;
    if (end < 0 && end > std::numeric_limits<int64_t>::min() / 2)
      end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      end = std::max(end, start);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      end = std::min(end, start);
    }
    fullStarts[*axis] = start;
    fullEnds[*axis] = end;
    fullSteps[*axis] = step;
  }
  Builder &b = ctx.getBuilder();
  return ctx.setSingleOutput(ctx.createInferred1<SliceOp>(
      {ctx.getInput(0)},
      {ctx.named("starts", b.getDenseI64ArrayAttr(fullStarts)),
       ctx.named("ends", b.getDenseI64ArrayAttr(fullEnds)),
       ctx.named("steps", b.getDenseI64ArrayAttr(fullSteps))}));
}

LogicalResult convertGather(NodeContext &ctx) {
  return ctx.setSingleOutput(ctx.createInferred1<GatherOp>(
      {ctx.getInput(0), ctx.getInput(1)},
      {ctx.named("axis", ctx.getBuilder().getI64IntegerAttr(
                             ctx.getIntAttr("axis", 0)))}));
}

LogicalResult convertExpand(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  FailureOr<SmallVector<int64_t>> shape = ctx.getConstantInts(1, "shape");
  if (failed(shape))
    return failure();
  SmallVector<int64_t> result;
  if (!OpTrait::util::getBroadcastedShape(type.getShape(), *shape, result))
    return ctx.emitError() << "cannot broadcast " << type << " with shape ["
                           << llvm::make_range(shape->begin(), shape->end())
                           << "]";
  ctx.setOutput(0, ctx.create<ExpandOp>(type.clone(result), ctx.getInput(0)));
  return success();
}

LogicalResult convertShape(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputType(0).getShape();
  int64_t rank = shape.size();
  int64_t start = ctx.getIntAttr("start", 0), end = ctx.getIntAttr("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  ctx.setOutput(0, ctx.createI64Constant(shape.slice(start, end - start)));
  return success();
}

LogicalResult convertSize(NodeContext &ctx) {
  ctx.setOutput(0, ctx.createI64Constant({ctx.getInputType(0).getNumElements()},
                                         ArrayRef<int64_t>{}));
  return success();
}

LogicalResult convertConstantOfShape(NodeContext &ctx) {
  FailureOr<SmallVector<int64_t>> shape = ctx.getConstantInts(0, "shape");
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.emitError() << "negative dimension in shape";
  DenseElementsAttr value;
  if (const onnx::AttributeProto *attr = ctx.getAttr("value")) {
    FailureOr<ElementsAttr> tensor = importTensor(
        attr->t(), ctx.baseDir, nullptr, ctx.getContext(), ctx.getLoc());
    if (failed(tensor))
      return failure();
    value = dyn_cast<DenseElementsAttr>(*tensor);
    if (!value || value.getNumElements() != 1)
      return ctx.emitError() << "value must hold exactly one element";
  } else {
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, ctx.getBuilder().getF32Type()), 0.0f);
  }
  auto type = RankedTensorType::get(*shape, value.getElementType());
  ctx.setOutput(
      0, ctx.getBuilder().create<ConstantOp>(
             ctx.getLoc(),
             DenseElementsAttr::get(type, value.getSplatValue<Attribute>())));
  return success();
}

LogicalResult convertPad(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  SmallVector<int64_t> pads;
  float value = 0.0f;
  if (ctx.getOpset() < 11) {
    pads = ctx.getIntsAttr("pads").value_or(SmallVector<int64_t>());
    value = ctx.getFloatAttr("value", 0.0f);
  } else {
    FailureOr<SmallVector<int64_t>> given = ctx.getConstantInts(1, "pads");
    if (failed(given))
      return failure();
    pads = *given;
    if (ctx.hasInput(2)) {
      FailureOr<float> constant = ctx.getConstantFloat(2, "constant_value");
      if (failed(constant))
        return failure();
      value = *constant;
    }
    if (ctx.hasInput(3))
      return ctx.emitError() << "the axes input is not supported";
  }
  std::string mode = ctx.getStringAttr("mode", "constant");
  PadMode padMode;
  if (mode == "constant")
    padMode = PadMode::constant;
  else if (mode == "reflect")
    padMode = PadMode::reflect;
  else if (mode == "edge")
    padMode = PadMode::edge;
  else
    return ctx.emitError() << "unsupported mode '" << mode << "'";
  if (static_cast<int64_t>(pads.size()) != 2 * type.getRank())
    return ctx.emitError() << "pads needs " << 2 * type.getRank()
                           << " entries, got " << pads.size();
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return ctx.emitError() << "negative pads (cropping) are not supported";
  Builder &b = ctx.getBuilder();
  return ctx.setSingleOutput(ctx.createInferred1<PadOp>(
      {ctx.getInput(0)},
      {ctx.named("pads", b.getDenseI64ArrayAttr(pads)),
       ctx.named("mode", PadModeAttr::get(ctx.getContext(), padMode)),
       ctx.named("value", b.getF32FloatAttr(value))}));
}
} // namespace

void mlir::nnaccel::onnx_import::registerTensorConverters(
    ConverterTable &table) {
  auto add = [&](StringRef name, int64_t minOpset, ConverterFn fn) {
    table[name].push_back({minOpset, std::move(fn)});
  };
  add("Constant", 1, convertConstant);
  add("Reshape", 5, convertReshape);
  add("Flatten", 1, convertFlatten);
  add("Squeeze", 1, convertSqueeze);
  add("Unsqueeze", 1, convertUnsqueeze);
  add("Transpose", 1, convertTranspose);
  add("Concat", 4, convertConcat);
  add("Slice", 1, convertSlice);
  add("Gather", 1, convertGather);
  add("Expand", 8, convertExpand);
  add("Shape", 1, convertShape);
  add("Size", 1, convertSize);
  add("ConstantOfShape", 9, convertConstantOfShape);
  add("Pad", 2, convertPad);
}
