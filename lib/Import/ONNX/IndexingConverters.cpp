//===- IndexingConverters.cpp - ONNX ops built around indices -------------===//
//
// ArgMax, ArgMin, TopK, GatherElements, ScatterElements (and the deprecated
// Scatter), CumSum become the accel ops of the same names (host kernels);
// Hardmax and OneHot are compositions comparing indices with an iota
// constant; Range, Tile and NonZero need constant operands (their result
// shapes depend on them): Range and NonZero fold to constants, Tile is a
// reshape - expand - reshape.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
template <typename OpTy> LogicalResult convertArgReduce(NodeContext &ctx) {
  Builder &b = ctx.getBuilder();
  return ctx.setSingleOutput(ctx.createInferred1<OpTy>(
      {ctx.getInput(0)},
      {ctx.named("axis", b.getI64IntegerAttr(ctx.getIntAttr("axis", 0))),
       ctx.named("keepdims", b.getBoolAttr(ctx.getIntAttr("keepdims", 1))),
       ctx.named("select_last_index",
                 b.getBoolAttr(ctx.getIntAttr("select_last_index", 0)))}));
}

LogicalResult convertTopK(NodeContext &ctx) {
  int64_t k;
  if (ctx.getOpset() < 10) {
    k = ctx.getIntAttr("k", -1);
  } else {
    FailureOr<SmallVector<int64_t>> given = ctx.getConstantInts(1, "k");
    if (failed(given))
      return failure();
    if (given->size() != 1)
      return ctx.emitError() << "k must hold one value";
    k = given->front();
  }
  Builder &b = ctx.getBuilder();
  FailureOr<SmallVector<Value>> results = ctx.createInferred<TopKOp>(
      {ctx.getInput(0)},
      {ctx.named("k", b.getI64IntegerAttr(k)),
       ctx.named("axis", b.getI64IntegerAttr(ctx.getIntAttr("axis", -1))),
       ctx.named("largest", b.getBoolAttr(ctx.getIntAttr("largest", 1))),
       ctx.named("sorted", b.getBoolAttr(ctx.getIntAttr("sorted", 1)))},
      2);
  if (failed(results))
    return failure();
  ctx.setOutput(0, (*results)[0]);
  ctx.setOutput(1, (*results)[1]);
  return success();
}

LogicalResult convertGatherElements(NodeContext &ctx) {
  return ctx.setSingleOutput(ctx.createInferred1<GatherElementsOp>(
      {ctx.getInput(0), ctx.getInput(1)},
      {ctx.named("axis", ctx.getBuilder().getI64IntegerAttr(
                             ctx.getIntAttr("axis", 0)))}));
}

LogicalResult convertScatterElements(NodeContext &ctx) {
  Builder &b = ctx.getBuilder();
  return ctx.setSingleOutput(ctx.createInferred1<ScatterElementsOp>(
      {ctx.getInput(0), ctx.getInput(1), ctx.getInput(2)},
      {ctx.named("axis", b.getI64IntegerAttr(ctx.getIntAttr("axis", 0))),
       ctx.named("reduction",
                 b.getStringAttr(ctx.getStringAttr("reduction", "none")))}));
}

LogicalResult convertCumSum(NodeContext &ctx) {
  FailureOr<SmallVector<int64_t>> axis = ctx.getConstantInts(1, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return ctx.emitError() << "axis must hold one value";
  Value input = ctx.getInput(0);
  FailureOr<int64_t> normalized =
      normalizeAxis(ctx, axis->front(), ctx.getInputType(0).getRank());
  if (failed(normalized))
    return failure();
  Builder &b = ctx.getBuilder();
  auto op = ctx.getBuilder().create<CumSumOp>(
      ctx.getLoc(), input.getType(), input, b.getI64IntegerAttr(*normalized),
      ctx.getIntAttr("exclusive", 0) ? b.getUnitAttr() : UnitAttr(),
      ctx.getIntAttr("reverse", 0) ? b.getUnitAttr() : UnitAttr());
  ctx.setOutput(0, op);
  return success();
}

/// 0, 1, ..., size - 1 as i64, laid along `axis` of a rank-`rank` shape of
/// ones.
Value createIota(NodeContext &ctx, int64_t size, int64_t axis, int64_t rank) {
  SmallVector<int64_t> values(size);
  for (int64_t i = 0; i < size; ++i)
    values[i] = i;
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = size;
  return ctx.createI64Constant(values, shape);
}

LogicalResult convertGatherND(NodeContext &ctx) {
  return ctx.setSingleOutput(ctx.createInferred1<GatherNDOp>(
      {ctx.getInput(0), ctx.getInput(1)},
      {ctx.named("batch_dims", ctx.getBuilder().getI64IntegerAttr(
                                   ctx.getIntAttr("batch_dims", 0)))}));
}

LogicalResult convertScatterND(NodeContext &ctx) {
  return ctx.setSingleOutput(ctx.createInferred1<ScatterNDOp>(
      {ctx.getInput(0), ctx.getInput(1), ctx.getInput(2)},
      {ctx.named("reduction", ctx.getBuilder().getStringAttr(
                                  ctx.getStringAttr("reduction", "none")))}));
}

LogicalResult convertGridSample(NodeContext &ctx) {
  Builder &b = ctx.getBuilder();
  SmallVector<NamedAttribute> attrs{
      ctx.named("mode", b.getStringAttr(ctx.getStringAttr("mode", "bilinear"))),
      ctx.named("padding_mode",
                b.getStringAttr(ctx.getStringAttr("padding_mode", "zeros")))};
  if (ctx.getIntAttr("align_corners", 0))
    attrs.push_back(ctx.named("align_corners", b.getUnitAttr()));
  return ctx.setSingleOutput(ctx.createInferred1<GridSampleOp>(
      {ctx.getInput(0), ctx.getInput(1)}, attrs));
}

/// ReverseSequence with constant sequence_lens: a gather_elements along
/// the time axis by the constant index t' = t < len[b] ? len[b] - 1 - t : t.
LogicalResult convertReverseSequence(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  int64_t rank = type.getRank();
  FailureOr<int64_t> timeAxis =
      normalizeAxis(ctx, ctx.getIntAttr("time_axis", 0), rank, "time_axis");
  FailureOr<int64_t> batchAxis =
      normalizeAxis(ctx, ctx.getIntAttr("batch_axis", 1), rank, "batch_axis");
  if (failed(timeAxis) || failed(batchAxis))
    return failure();
  if (*timeAxis == *batchAxis)
    return ctx.emitError() << "time_axis and batch_axis must differ";
  FailureOr<SmallVector<int64_t>> lengths =
      ctx.getConstantInts(1, "sequence_lens");
  if (failed(lengths))
    return failure();
  int64_t steps = type.getDimSize(*timeAxis);
  int64_t batch = type.getDimSize(*batchAxis);
  if (int64_t(lengths->size()) != batch)
    return ctx.emitError() << "sequence_lens needs " << batch << " values";
  SmallVector<int64_t> shape(rank, 1);
  shape[*timeAxis] = steps;
  shape[*batchAxis] = batch;
  SmallVector<int64_t> indices(steps * batch);
  for (int64_t t = 0; t < steps; ++t)
    for (int64_t b = 0; b < batch; ++b) {
      int64_t len = std::clamp<int64_t>((*lengths)[b], 0, steps);
      int64_t source = t < len ? len - 1 - t : t;
      // Row-major over the two axes in their order in the shape.
      int64_t at = *timeAxis < *batchAxis ? t * batch + b : b * steps + t;
      indices[at] = source;
    }
  Value index = ctx.createI64Constant(indices, shape);
  auto indexType =
      RankedTensorType::get(type.getShape(), ctx.getBuilder().getI64Type());
  if (indexType.getShape() != ArrayRef<int64_t>(shape))
    index = ctx.create<ExpandOp>(indexType, index);
  return ctx.setSingleOutput(ctx.createInferred1<GatherElementsOp>(
      {ctx.getInput(0), index},
      {ctx.named("axis", ctx.getBuilder().getI64IntegerAttr(*timeAxis))}));
}

/// MaxUnpool: the result shape is output_shape (constant) or the pooling
/// window's inverse, (in - 1) * stride + kernel - pads.
LogicalResult convertMaxUnpool(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  int64_t k = type.getRank() - 2;
  std::optional<SmallVector<int64_t>> kernel = ctx.getIntsAttr("kernel_shape");
  if (k < 1 || !kernel || int64_t(kernel->size()) != k)
    return ctx.emitError() << "expects N x C x D... input and kernel_shape";
  auto strides =
      ctx.getIntsAttr("strides").value_or(SmallVector<int64_t>(k, 1));
  auto pads = ctx.getIntsAttr("pads").value_or(SmallVector<int64_t>(2 * k, 0));
  if (int64_t(strides.size()) != k || int64_t(pads.size()) != 2 * k)
    return ctx.emitError() << "strides/pads do not match the kernel";
  SmallVector<int64_t> shape, unpooled{type.getDimSize(0), type.getDimSize(1)};
  for (int64_t i = 0; i < k; ++i)
    unpooled.push_back((type.getDimSize(i + 2) - 1) * strides[i] +
                       (*kernel)[i] - pads[i] - pads[i + k]);
  Value indices = ctx.getInput(1);
  if (ctx.hasInput(2)) {
    FailureOr<SmallVector<int64_t>> given =
        ctx.getConstantInts(2, "output_shape");
    if (failed(given))
      return failure();
    shape = *given;
    if (int64_t(shape.size()) != type.getRank())
      return ctx.emitError()
             << "output_shape needs " << type.getRank() << " values";
    // The indices address the unpooled shape; place each position at the
    // same coordinates of the larger output_shape.
    if (shape != unpooled) {
      Composer c(ctx);
      Type i64 = ctx.getBuilder().getI64Type();
      Value flat = c.cast(indices, i64), moved;
      int64_t from = 1, to = 1;
      for (int64_t d = type.getRank() - 1; d >= 0; --d) {
        Value coordinate = c.binary<DivOp>(flat, c.scalar(double(from), i64));
        coordinate =
            ctx.create<ModOp>(coordinate.getType(), coordinate,
                              c.scalar(double(unpooled[d]), i64), UnitAttr());
        Value term = c.binary<MulOp>(coordinate, c.scalar(double(to), i64));
        moved = moved ? c.binary<AddOp>(moved, term) : term;
        from *= unpooled[d];
        to *= shape[d];
      }
      if (failed(c.status))
        return failure();
      indices = moved;
    }
  } else {
    shape = unpooled;
  }
  ctx.setOutput(
      0, ctx.getBuilder().create<MaxUnpoolOp>(ctx.getLoc(), type.clone(shape),
                                              ctx.getInput(0), indices));
  return success();
}

LogicalResult convertDet(NodeContext &ctx) {
  if (!isa<FloatType>(ctx.getInputType(0).getElementType()))
    return ctx.emitError() << "expects a floating point input";
  return ctx.setSingleOutput(ctx.createInferred1<DetOp>({ctx.getInput(0)}, {}));
}

/// Hardmax: 1 where the first maximum along the axis is, else 0. Before
/// opset 13 the input is coerced to 2-D at `axis`.
LogicalResult convertHardmax(NodeContext &ctx) {
  Value input = ctx.getInput(0);
  RankedTensorType type = ctx.getInputType(0);
  if (!isa<FloatType>(type.getElementType()))
    return ctx.emitError() << "expects a floating point input";
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = normalizeAxis(
      ctx, ctx.getIntAttr("axis", ctx.getOpset() < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  Value x = input;
  int64_t reduceAxis = *axis;
  if (ctx.getOpset() < 13) {
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i)
      (i < *axis ? outer : inner) *= type.getDimSize(i);
    x = ctx.reshape(input, {outer, inner});
    reduceAxis = 1;
  }
  auto xType = cast<RankedTensorType>(x.getType());
  Builder &b = ctx.getBuilder();
  FailureOr<Value> index = ctx.createInferred1<ArgMaxOp>(
      {x}, {ctx.named("axis", b.getI64IntegerAttr(reduceAxis)),
            ctx.named("keepdims", b.getBoolAttr(true))});
  if (failed(index))
    return failure();
  Composer c(ctx);
  Value iota = createIota(ctx, xType.getDimSize(reduceAxis), reduceAxis,
                          xType.getRank());
  Value hot =
      c.cast(c.compare(CompareKind::eq, *index, iota), type.getElementType());
  if (failed(c.status))
    return failure();
  ctx.setOutput(0, ctx.reshape(hot, type.getShape()));
  return success();
}

/// OneHot: compares the (wrapped) indices, given a new axis, with an iota
/// of `depth` along it and selects on/off values.
LogicalResult convertOneHot(NodeContext &ctx) {
  FailureOr<SmallVector<double>> depth = ctx.getConstantValues(1, "depth");
  if (failed(depth))
    return failure();
  if (depth->size() != 1)
    return ctx.emitError() << "depth must hold one value";
  int64_t size = static_cast<int64_t>(depth->front());
  if (size < 1)
    return ctx.emitError() << "depth must be positive";
  RankedTensorType indicesType = ctx.getInputType(0);
  int64_t rank = indicesType.getRank() + 1;
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getIntAttr("axis", -1), rank);
  if (failed(axis))
    return failure();
  Value values = ctx.getInput(2);
  auto valuesType = cast<RankedTensorType>(values.getType());
  if (valuesType.getNumElements() != 2)
    return ctx.emitError() << "values must hold [off, on]";
  Composer c(ctx);
  Type i64 = ctx.getBuilder().getI64Type();
  Value indices = c.cast(ctx.getInput(0), i64);
  // Negative indices count from the end.
  Value negative = c.compare(CompareKind::lt, indices, c.scalar(0, i64));
  indices = c.where(
      negative, c.binary<AddOp>(indices, c.scalar(double(size), i64)), indices);
  SmallVector<int64_t> shape(indicesType.getShape());
  shape.insert(shape.begin() + *axis, 1);
  if (failed(c.status))
    return failure();
  indices = ctx.reshape(indices, shape);
  Value hot =
      c.compare(CompareKind::eq, indices, createIota(ctx, size, *axis, rank));
  Value flat = ctx.reshape(values, {2});
  Builder &b = ctx.getBuilder();
  auto pick = [&](int64_t i) -> FailureOr<Value> {
    FailureOr<Value> one = ctx.createInferred1<SliceOp>(
        {flat}, {ctx.named("starts", b.getDenseI64ArrayAttr({i})),
                 ctx.named("ends", b.getDenseI64ArrayAttr({i + 1})),
                 ctx.named("steps", b.getDenseI64ArrayAttr({1}))});
    if (failed(one))
      return failure();
    return ctx.reshape(*one, {});
  };
  FailureOr<Value> off = pick(0), on = pick(1);
  if (failed(off) || failed(on))
    return failure();
  return c.finish(c.where(hot, *on, *off));
}

/// Range with constant operands folds to a constant of
/// max(ceil((limit - start) / delta), 0) elements.
LogicalResult convertRange(NodeContext &ctx) {
  static const StringRef kNames[] = {"start", "limit", "delta"};
  SmallVector<double> bounds;
  for (auto [index, what] : llvm::enumerate(kNames)) {
    FailureOr<SmallVector<double>> value = ctx.getConstantValues(index, what);
    if (failed(value))
      return failure();
    if (value->size() != 1)
      return ctx.emitError() << what << " must be a scalar";
    bounds.push_back(value->front());
  }
  double start = bounds[0], limit = bounds[1], delta = bounds[2];
  if (delta == 0)
    return ctx.emitError() << "delta must not be zero";
  int64_t count =
      std::max<int64_t>(int64_t(std::ceil((limit - start) / delta)), 0);
  Type element = ctx.getInputType(0).getElementType();
  auto type = RankedTensorType::get({count}, element);
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    // Accumulated the way the ONNX reference (numpy arange) computes it:
    // start + i * delta in the element type.
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < count; ++i) {
      APFloat v(start + double(i) * delta);
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    attr = DenseElementsAttr::get(type, values);
  } else {
    SmallVector<APInt> values;
    unsigned width = element.getIntOrFloatBitWidth();
    for (int64_t i = 0; i < count; ++i)
      values.push_back(APInt(width, int64_t(start) + i * int64_t(delta),
                             /*isSigned=*/true));
    attr = DenseElementsAttr::get(type, values);
  }
  ctx.setOutput(0, ctx.getBuilder().create<ConstantOp>(
                       ctx.getLoc(), cast<ElementsAttr>(attr)));
  return success();
}

/// Tile: [d0, d1] by [r0, r1] is [1, d0, 1, d1] expanded to
/// [r0, d0, r1, d1], reshaped to [r0 * d0, r1 * d1].
LogicalResult convertTile(NodeContext &ctx) {
  FailureOr<SmallVector<int64_t>> repeats = ctx.getConstantInts(1, "repeats");
  if (failed(repeats))
    return failure();
  RankedTensorType type = ctx.getInputType(0);
  if (int64_t(repeats->size()) != type.getRank())
    return ctx.emitError() << "repeats needs " << type.getRank()
                           << " values, got " << repeats->size();
  SmallVector<int64_t> spread, expanded, result;
  for (auto [dim, repeat] : llvm::zip(type.getShape(), *repeats)) {
    if (repeat < 0)
      return ctx.emitError() << "repeats must not be negative";
    spread.append({1, dim});
    expanded.append({repeat, dim});
    result.push_back(repeat * dim);
  }
  Value x = ctx.reshape(ctx.getInput(0), spread);
  if (expanded != spread)
    x = ctx.create<ExpandOp>(type.clone(expanded), x);
  ctx.setOutput(0, ctx.reshape(x, result));
  return success();
}

/// NonZero: its result shape is the number of non-zero elements, so only a
/// constant input can be imported (it folds).
LogicalResult convertNonZero(NodeContext &ctx) {
  Value input = ctx.getInput(0);
  DenseElementsAttr attr;
  if (!matchPattern(input, m_Constant(&attr)))
    return ctx.emitError()
           << "the result shape depends on the input's values; only a "
              "constant input can be imported (static shapes)";
  RankedTensorType type = ctx.getInputType(0);
  SmallVector<bool> nonZero;
  if (isa<FloatType>(type.getElementType()))
    for (const APFloat &v : attr.getValues<APFloat>())
      nonZero.push_back(!v.isZero());
  else
    for (const APInt &v : attr.getValues<APInt>())
      nonZero.push_back(!v.isZero());
  int64_t rank = type.getRank();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * type.getDimSize(i + 1);
  int64_t count = llvm::count(nonZero, true);
  SmallVector<int64_t> values(rank * count);
  int64_t n = 0;
  for (auto [flat, set] : llvm::enumerate(nonZero)) {
    if (!set)
      continue;
    int64_t rest = flat;
    for (int64_t d = 0; d < rank; ++d) {
      values[d * count + n] = rest / strides[d];
      rest %= strides[d];
    }
    ++n;
  }
  ctx.setOutput(0, ctx.createI64Constant(values, {{rank, count}}));
  return success();
}
/// A float32 constant tensor (or another float type) of `values`.
Value createFloatConstant(NodeContext &ctx, ArrayRef<double> values,
                          ArrayRef<int64_t> shape, Type element) {
  auto type = RankedTensorType::get(shape, element);
  Attribute attr;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> data;
    for (double v : values) {
      APFloat f(v);
      bool lost;
      f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      data.push_back(f);
    }
    attr = DenseElementsAttr::get(type, data);
  } else {
    SmallVector<APInt> data;
    for (double v : values)
      data.push_back(APInt(element.getIntOrFloatBitWidth(), int64_t(v),
                           /*isSigned=*/true));
    attr = DenseElementsAttr::get(type, data);
  }
  return ctx.getBuilder().create<ConstantOp>(ctx.getLoc(),
                                             cast<ElementsAttr>(attr));
}

/// HannWindow, HammingWindow, BlackmanWindow of a constant size: the
/// generalized cosine windows of their function bodies, folded.
LogicalResult convertWindow(NodeContext &ctx, ArrayRef<double> coefficients) {
  FailureOr<SmallVector<double>> size = ctx.getConstantValues(0, "size");
  if (failed(size))
    return failure();
  if (size->size() != 1 || size->front() < 0)
    return ctx.emitError() << "size must be a non-negative scalar";
  int64_t n = int64_t(size->front());
  Type element = convertElementType(ctx.getIntAttr("output_datatype", 1),
                                    ctx.getContext());
  if (!element)
    return ctx.emitError() << "unsupported output_datatype";
  double denominator = ctx.getIntAttr("periodic", 1) ? n : n - 1;
  SmallVector<double> values;
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    for (auto [k, a] : llvm::enumerate(coefficients))
      v += (k % 2 ? -a : a) *
           std::cos(2.0 * M_PI * double(k) * double(i) / denominator);
    values.push_back(v);
  }
  ctx.setOutput(0, createFloatConstant(ctx, values, {n}, element));
  return success();
}

/// EyeLike of a static 2-D shape: ones on diagonal k, as a constant.
LogicalResult convertEyeLike(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  if (type.getRank() != 2)
    return ctx.emitError() << "expects a 2-D input";
  Type element = type.getElementType();
  if (const onnx::AttributeProto *dtype = ctx.getAttr("dtype")) {
    element = convertElementType(dtype->i(), ctx.getContext());
    if (!element)
      return ctx.emitError() << "unsupported dtype";
  }
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t k = ctx.getIntAttr("k", 0);
  SmallVector<double> values(rows * cols, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    if (r + k >= 0 && r + k < cols)
      values[r * cols + r + k] = 1.0;
  ctx.setOutput(0, createFloatConstant(ctx, values, {rows, cols}, element));
  return success();
}
} // namespace

void mlir::nnaccel::onnx_import::registerIndexingConverters(
    ConverterTable &table) {
  auto add = [&](StringRef name, int64_t minOpset, ConverterFn fn) {
    table[name].push_back({minOpset, std::move(fn)});
  };
  add("ArgMax", 1, convertArgReduce<ArgMaxOp>);
  add("ArgMin", 1, convertArgReduce<ArgMinOp>);
  add("TopK", 1, convertTopK);
  add("GatherElements", 11, convertGatherElements);
  add("ScatterElements", 11, convertScatterElements);
  add("Scatter", 9, convertScatterElements);
  add("CumSum", 11, convertCumSum);
  add("GatherND", 11, convertGatherND);
  add("MaxUnpool", 9, convertMaxUnpool);
  add("Det", 11, convertDet);
  add("ReverseSequence", 10, convertReverseSequence);
  add("ScatterND", 11, convertScatterND);
  add("GridSample", 16, convertGridSample);
  add("Hardmax", 1, convertHardmax);
  add("OneHot", 9, convertOneHot);
  add("Range", 11, convertRange);
  add("Tile", 6, convertTile);
  add("NonZero", 9, convertNonZero);
  add("EyeLike", 9, convertEyeLike);
  add("HannWindow", 17,
      [](NodeContext &c) { return convertWindow(c, {0.5, 0.5}); });
  add("HammingWindow", 17, [](NodeContext &c) {
    return convertWindow(c, {25.0 / 46.0, 21.0 / 46.0});
  });
  add("BlackmanWindow", 17,
      [](NodeContext &c) { return convertWindow(c, {0.42, 0.5, 0.08}); });
}
