//===- QuantConverters.cpp - ONNX quantisation and integer ops ------------===//
//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and the integer
// operators MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv.
//
// Quantisation parameters take one of two forms:
// - Constants (what quantisation tools emit): the scale and zero point
//   become a `!quant.uniform` element type (per tensor or per axis) and the
//   ops accel.quantize / accel.dequantize / accel.requantize, which later
//   passes and card kernels can specialise.
// - Values computed at run time (graph inputs, DynamicQuantizeLinear): no
//   type can hold them, so the ONNX formulas are built from accel
//   arithmetic in fp32, as ONNX (and onnxruntime) evaluate them:
//     quantize   y = cast(clip(round(x / scale) + zp, qmin, qmax))
//     dequantize x = float(q - zp) * scale
//     requantize y = quantize(float(acc) * (scale_a * scale_b / scale_y))
// Both forms round half to even and give the same integers.
//
// ONNX 8-bit tensors are plain integer tensors (int8 is i8, uint8 is ui8)
// or quantized tensors (results of the constant form); accel.cast reads
// either as its stored integers. Integer products widen their operands to
// i32 and subtract the zero points before the accel.matmul / accel.conv
// (exact, with i32 wrap-around), so a convolution's zero padding stands for
// the input's zero point, as ONNX ConvInteger pads.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"

#include "Accel/ShapeUtils.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {

//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

Type getElementType(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// The integers a tensor stores, as the MLIR type of a plain tensor holding
/// them: its own type for integer tensors, the storage of quantized ones
/// (ui8 for unsigned bytes). Null for other element types.
IntegerType getStoredType(Value value) {
  Type element = getElementType(value);
  if (auto quant = dyn_cast<quant::QuantizedType>(element))
    return IntegerType::get(
        value.getContext(), quant.getStorageTypeIntegralWidth(),
        quant.isSigned() ? IntegerType::Signless : IntegerType::Unsigned);
  return dyn_cast<IntegerType>(element);
}

bool isByte(IntegerType type) { return type && type.getWidth() == 8; }

/// "uint8", "int8", "int32", ... for diagnostics, in ONNX's words.
std::string describeType(Type type) {
  if (auto integer = dyn_cast_if_present<IntegerType>(type))
    return (integer.isUnsigned() ? "uint" : "int") +
           std::to_string(integer.getWidth());
  if (!type)
    return "none";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The elements of a constant (inline or resource blob) of f32 or integer
/// type as doubles (unsigned integers zero-extended); nullopt when `value`
/// is not a constant.
std::optional<SmallVector<double>> readConstant(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  Type element = attr.getElementType();
  SmallVector<double> result;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (isa<FloatType>(element)) {
      for (const APFloat &v : dense.getValues<APFloat>())
        result.push_back(v.convertToDouble());
      return result;
    }
    if (!isa<IntegerType>(element))
      return std::nullopt;
    for (const APInt &v : dense.getValues<APInt>())
      result.push_back(element.isUnsignedInteger() ? double(v.getZExtValue())
                                                   : double(v.getSExtValue()));
    return result;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return std::nullopt;
  ArrayRef<char> bytes = blob->getData();
  int64_t count = resource.getNumElements();
  auto read = [&](auto tag) {
    using T = decltype(tag);
    if (bytes.size() != count * sizeof(T))
      return false;
    for (int64_t i = 0; i < count; ++i) {
      T v;
      std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
      result.push_back(double(v));
    }
    return true;
  };
  bool ok = element.isF32()                ? read(float{})
            : element.isUnsignedInteger(8) ? read(uint8_t{})
            : element.isInteger(8)         ? read(int8_t{})
            : element.isInteger(32)        ? read(int32_t{})
                                           : false;
  if (!ok)
    return std::nullopt;
  return result;
}

/// True when `value` is absent or a constant of zeros.
bool isZero(Value value) {
  if (!value)
    return true;
  std::optional<SmallVector<double>> values = readConstant(value);
  return values && llvm::all_of(*values, [](double v) { return v == 0; });
}

/// The storage range of an 8- or 32-bit integer type.
std::pair<int64_t, int64_t> getStorageRange(IntegerType type) {
  unsigned width = type.getWidth();
  if (type.isUnsigned())
    return {0, (int64_t(1) << width) - 1};
  return {-(int64_t(1) << (width - 1)), (int64_t(1) << (width - 1)) - 1};
}

/// The `!quant.uniform` type of constant parameters over `storage`: per
/// tensor, or per axis along `axis` (of the tensor the type describes).
/// Null when no such type exists (a scale that is not finite and positive,
/// a zero point outside the storage range): the parameters then take the
/// arithmetic form, which reproduces what ONNX computes for them.
quant::QuantizedType getQuantizedType(IntegerType storage,
                                      ArrayRef<double> scales,
                                      ArrayRef<double> zeroPoints,
                                      std::optional<int64_t> axis) {
  auto [min, max] = getStorageRange(storage);
  SmallVector<int64_t> points;
  for (auto [index, scale] : llvm::enumerate(scales)) {
    double zeroPoint = zeroPoints.empty()       ? 0.0
                       : zeroPoints.size() == 1 ? zeroPoints[0]
                                                : zeroPoints[index];
    if (!std::isfinite(scale) || scale <= 0 || zeroPoint < min ||
        zeroPoint > max)
      return {};
    points.push_back(int64_t(zeroPoint));
  }
  MLIRContext *context = storage.getContext();
  unsigned flags = storage.isUnsigned() ? 0 : quant::QuantizationFlags::Signed;
  auto signless = IntegerType::get(context, storage.getWidth());
  auto f32 = Float32Type::get(context);
  if (!axis)
    return quant::UniformQuantizedType::get(flags, signless, f32, scales[0],
                                            points[0], min, max);
  return quant::UniformQuantizedPerAxisType::get(
      flags, signless, f32, scales, points, int32_t(*axis), min, max);
}

//===----------------------------------------------------------------------===//
// Quantisation parameters
//===----------------------------------------------------------------------===//

/// The scale and zero point of one quantised tensor, as a node gives them.
struct QuantParams {
  Value scale;
  Value zeroPoint; // Null: zero.
  /// The axis of per-axis parameters (normalised), nullopt per tensor.
  std::optional<int64_t> axis;
  /// Both parameters' values when they are constants.
  std::optional<SmallVector<double>> scales, zeroPoints;

  bool isConstant() const { return scales && (zeroPoints || !zeroPoint); }
};

/// Reads the scale (input `scaleIndex`) and zero point (`zpIndex`, may be
/// absent) of a tensor of `type` that `name` names in diagnostics. A 1-D
/// scale of more than one element is per axis: along the node's `axis`
/// attribute (opset >= 13, default 1), or `fixedAxis` when the operator
/// fixes it (nullopt: per-axis is an error).
FailureOr<QuantParams> readParams(NodeContext &ctx, int64_t scaleIndex,
                                  int64_t zpIndex, StringRef name,
                                  RankedTensorType type,
                                  std::optional<int64_t> fixedAxis = {},
                                  bool axisAttr = false) {
  QuantParams params;
  params.scale = ctx.getInput(scaleIndex);
  params.zeroPoint = ctx.getInput(zpIndex);
  RankedTensorType scaleType = ctx.getInputType(scaleIndex);
  std::string scaleName = (name + "_scale").str();
  std::string zpName = (name + "_zero_point").str();
  if (!scaleType.getElementType().isF32())
    return (ctx.emitError() << scaleName << " must be float32, got "
                            << describeType(scaleType.getElementType()),
            failure());
  if (scaleType.getRank() > 1)
    return (ctx.emitError() << scaleName << " must be a scalar or 1-D, got "
                            << formatShape(scaleType.getShape()),
            failure());
  // A single zero point may serve per-axis scales.
  if (params.zeroPoint &&
      ctx.getInputType(zpIndex).getShape() != scaleType.getShape() &&
      ctx.getInputType(zpIndex).getNumElements() != 1)
    return (ctx.emitError() << zpName << " has shape "
                            << formatShape(ctx.getInputType(zpIndex).getShape())
                            << " but " << scaleName << " has shape "
                            << formatShape(scaleType.getShape()),
            failure());
  int64_t count = scaleType.getNumElements();
  if (count != 1) {
    int64_t axis;
    if (axisAttr) {
      if (ctx.getOpset() < 13)
        return (ctx.emitError() << "per-axis " << scaleName << " (" << count
                                << " elements) needs opset 13",
                failure());
      FailureOr<int64_t> normalized =
          normalizeAxis(ctx, ctx.getIntAttr("axis", 1), type.getRank());
      if (failed(normalized))
        return failure();
      axis = *normalized;
    } else if (fixedAxis) {
      axis = *fixedAxis;
    } else {
      return (ctx.emitError() << scaleName << " must be a scalar, got " << count
                              << " elements",
              failure());
    }
    if (axis >= type.getRank() || type.getDimSize(axis) != count)
      return (ctx.emitError() << scaleName << " has " << count
                              << " elements but " << name << " has "
                              << (axis < type.getRank()
                                      ? std::to_string(type.getDimSize(axis))
                                      : std::string("no"))
                              << " along axis " << axis,
              failure());
    params.axis = axis;
  }
  params.scales = readConstant(params.scale);
  params.zeroPoints = readConstant(params.zeroPoint);
  return params;
}

/// A parameter reshaped to broadcast against a rank-`rank` tensor: a scalar
/// for per-tensor parameters, `C x 1 x ... x 1` from `axis` on otherwise.
Value broadcastParam(NodeContext &ctx, Value param, std::optional<int64_t> axis,
                     int64_t rank) {
  auto type = cast<RankedTensorType>(param.getType());
  if (!axis)
    return ctx.reshape(param, {});
  SmallVector<int64_t> shape(rank - *axis, 1);
  shape[0] = type.getNumElements();
  return ctx.reshape(param, shape);
}

//===----------------------------------------------------------------------===//
// The arithmetic form
//===----------------------------------------------------------------------===//

/// Places the accel ops a converter builds after its construction on the
/// host (`apply`). The arithmetic form divides by run-time scales, and the
/// integers ONNX expects depend on that division being exactly rounded:
/// the host's is (IEEE); the card's goes through a reciprocal and can move
/// a quotient across a rounding tie (DynamicQuantizeLinear's -2.5 / (5 /
/// 255) quantises to 25 instead of 26). The rest of the formula runs on the
/// host anyway (round and integer casts have no card kernel), so keeping
/// it together saves card round trips.
class HostPlacement {
public:
  explicit HostPlacement(NodeContext &ctx)
      : ctx(ctx), block(ctx.getBuilder().getInsertionBlock()),
        before(block->empty() ? nullptr : &block->back()) {}

  void apply() {
    MLIRContext *context = ctx.getContext();
    auto placement = PlacementAttr::get(context, -1, {}, {}, {});
    auto reason = StringAttr::get(
        context, "ONNX quantisation arithmetic needs exactly rounded division");
    for (Operation &op : llvm::make_range(
             before ? std::next(before->getIterator()) : block->begin(),
             block->end())) {
      if (isa<ConstantOp>(op))
        continue;
      op.setAttr(AccelDialect::getPlacementAttrName(), placement);
      op.setAttr(AccelDialect::getHostReasonAttrName(), reason);
    }
  }

private:
  NodeContext &ctx;
  Block *block;
  Operation *before;
};

/// `value`'s stored integers as i32 (u8 without sign extension).
Value toI32(Composer &c, Value value) {
  return c.cast(value, c.ctx.getBuilder().getI32Type());
}

/// ONNX's saturating quantisation of `scaled` (x / scale, f32):
/// cast(clip(round(scaled) + zeroPoint, qmin, qmax)) to `storage`.
/// `zeroPoint` (null: zero) broadcasts against `scaled`. Rounding first
/// keeps the addition exact wherever the result is in range.
Value quantizeScaled(Composer &c, Value scaled, Value zeroPoint,
                     IntegerType storage) {
  NodeContext &ctx = c.ctx;
  Builder &b = ctx.getBuilder();
  Value rounded = c.unary<RoundOp>(scaled);
  if (zeroPoint && !isZero(zeroPoint))
    rounded = c.binary<AddOp>(rounded, c.cast(zeroPoint, b.getF32Type()));
  auto [min, max] = getStorageRange(storage);
  Value clipped = ctx.create<ClipOp>(rounded.getType(), rounded,
                                     b.getF32FloatAttr(float(min)),
                                     b.getF32FloatAttr(float(max)));
  return c.cast(clipped, storage);
}

/// float(stored(x) - zeroPoint) * scale: the difference is exact in i32,
/// and the product rounds once.
Value dequantizeArithmetic(Composer &c, Value x, Value zeroPoint, Value scale) {
  Value shifted = toI32(c, x);
  if (!isZero(zeroPoint))
    shifted = c.binary<SubOp>(shifted, toI32(c, zeroPoint));
  return c.binary<MulOp>(c.cast(shifted, c.ctx.getBuilder().getF32Type()),
                         scale);
}

//===----------------------------------------------------------------------===//
// QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

LogicalResult convertQuantizeLinear(NodeContext &ctx) {
  Value x = ctx.getInput(0);
  RankedTensorType xType = ctx.getInputType(0);
  Type xElement = xType.getElementType();
  if (!xElement.isF32() && !xElement.isSignlessInteger(32))
    return ctx.emitError() << "x must be float32 or int32, got "
                           << describeType(xElement);
  // The zero point's type is the result's; uint8 without one.
  IntegerType storage =
      ctx.hasInput(2)
          ? getStoredType(ctx.getInput(2))
          : IntegerType::get(ctx.getContext(), 8, IntegerType::Unsigned);
  if (!isByte(storage))
    return ctx.emitError() << "y_zero_point must be uint8 or int8, got "
                           << describeType(storage);
  FailureOr<QuantParams> params =
      readParams(ctx, 1, 2, "y", xType, {}, /*axisAttr=*/true);
  if (failed(params))
    return failure();
  Composer c(ctx);
  Value real = c.cast(x, ctx.getBuilder().getF32Type());
  if (params->isConstant())
    if (quant::QuantizedType quantized = getQuantizedType(
            storage, *params->scales,
            params->zeroPoints.value_or(SmallVector<double>()), params->axis)) {
      ctx.setOutput(0, ctx.create<QuantizeOp>(xType.clone(quantized), real));
      return success();
    }
  HostPlacement onHost(ctx);
  int64_t rank = xType.getRank();
  Value scaled = c.binary<DivOp>(
      real, broadcastParam(ctx, params->scale, params->axis, rank));
  Value zeroPoint = params->zeroPoint ? broadcastParam(ctx, params->zeroPoint,
                                                       params->axis, rank)
                                      : Value();
  Value y = quantizeScaled(c, scaled, zeroPoint, storage);
  onHost.apply();
  return c.finish(y);
}

LogicalResult convertDequantizeLinear(NodeContext &ctx) {
  Value x = ctx.getInput(0);
  RankedTensorType xType = ctx.getInputType(0);
  IntegerType storage = getStoredType(x);
  if (!storage || (!isByte(storage) && !storage.isSignlessInteger(32)))
    return ctx.emitError() << "x must be int8, uint8 or int32, got "
                           << describeType(xType.getElementType());
  if (ctx.hasInput(2) && getStoredType(ctx.getInput(2)) != storage)
    return ctx.emitError() << "x_zero_point is "
                           << describeType(getStoredType(ctx.getInput(2)))
                           << " but x is " << describeType(storage);
  FailureOr<QuantParams> params =
      readParams(ctx, 1, 2, "x", xType, {}, /*axisAttr=*/true);
  if (failed(params))
    return failure();
  Composer c(ctx);
  if (params->isConstant())
    if (quant::QuantizedType quantized = getQuantizedType(
            storage, *params->scales,
            params->zeroPoints.value_or(SmallVector<double>()), params->axis)) {
      Value stored = c.cast(x, quantized);
      ctx.setOutput(0, ctx.create<DequantizeOp>(
                           xType.clone(ctx.getBuilder().getF32Type()), stored));
      return success();
    }
  int64_t rank = xType.getRank();
  Value zeroPoint = params->zeroPoint ? broadcastParam(ctx, params->zeroPoint,
                                                       params->axis, rank)
                                      : Value();
  return c.finish(dequantizeArithmetic(
      c, x, zeroPoint, broadcastParam(ctx, params->scale, params->axis, rank)));
}

/// The ONNX function body of DynamicQuantizeLinear (uint8): the range
/// [min(x_min, 0), max(x_max, 0)] maps onto [0, 255]. The parameters exist
/// only at run time, so this is the arithmetic form throughout; it needs
/// nothing the other quantisation ops do not, hence no kernel of its own.
/// (An all-zero x gives scale 0 and NaN intermediates, as the function body
/// does; the casts turn NaN into 0, so y and the zero point are 0.)
LogicalResult convertDynamicQuantizeLinear(NodeContext &ctx) {
  Value x = ctx.getInput(0);
  RankedTensorType xType = ctx.getInputType(0);
  if (!xType.getElementType().isF32())
    return ctx.emitError() << "x must be float32, got "
                           << describeType(xType.getElementType());
  Composer c(ctx);
  HostPlacement onHost(ctx);
  Builder &b = ctx.getBuilder();
  SmallVector<NamedAttribute> allAxes{
      ctx.named("axes", b.getDenseI64ArrayAttr({})),
      ctx.named("keepdims", b.getBoolAttr(false))};
  // ReduceMin is -reduce_max(-x), as the ReduceMin import.
  FailureOr<Value> negMin =
      ctx.createInferred1<ReduceMaxOp>({c.unary<NegOp>(x)}, allAxes);
  FailureOr<Value> max = ctx.createInferred1<ReduceMaxOp>({x}, allAxes);
  if (failed(negMin) || failed(max))
    return failure();
  Value zero = c.scalar(0.0, b.getF32Type());
  Value lo = c.binary<MinOp>(c.unary<NegOp>(*negMin), zero);
  Value hi = c.binary<MaxOp>(*max, zero);
  Value scale =
      c.binary<DivOp>(c.binary<SubOp>(hi, lo), c.scalar(255.0, b.getF32Type()));
  Value initialZeroPoint = c.binary<SubOp>(zero, c.binary<DivOp>(lo, scale));
  Value clipped =
      ctx.create<ClipOp>(initialZeroPoint.getType(), initialZeroPoint,
                         b.getF32FloatAttr(0.0f), b.getF32FloatAttr(255.0f));
  Value zeroPoint = c.unary<RoundOp>(clipped);
  auto u8 = IntegerType::get(ctx.getContext(), 8, IntegerType::Unsigned);
  // zeroPoint is integral and in [0, 255]: it is added in fp32 as is.
  Value y = quantizeScaled(c, c.binary<DivOp>(x, scale), zeroPoint, u8);
  Value storedZeroPoint = c.cast(zeroPoint, u8);
  if (failed(c.status))
    return failure();
  onHost.apply();
  ctx.setOutput(0, y);
  ctx.setOutput(1, scale);
  ctx.setOutput(2, storedZeroPoint);
  return success();
}

//===----------------------------------------------------------------------===//
// Integer products
//===----------------------------------------------------------------------===//

/// Input `index`'s stored integers as i32 minus its zero point (input
/// `zpIndex`, absent or zero: nothing subtracted) reshaped by `shapeZp`.
/// `name` names the input in diagnostics.
FailureOr<Value> shiftedOperand(Composer &c, int64_t index, int64_t zpIndex,
                                StringRef name,
                                function_ref<FailureOr<Value>(Value)> shapeZp) {
  NodeContext &ctx = c.ctx;
  Value value = ctx.getInput(index);
  IntegerType stored = getStoredType(value);
  if (!isByte(stored))
    return (ctx.emitError() << name << " must be int8 or uint8, got "
                            << describeType(getElementType(value)),
            failure());
  Value zeroPoint = ctx.getInput(zpIndex);
  if (zeroPoint && getStoredType(zeroPoint) != stored)
    return (ctx.emitError() << name << "'s zero point is "
                            << describeType(getStoredType(zeroPoint)) << " but "
                            << name << " is " << describeType(stored),
            failure());
  Value shifted = toI32(c, value);
  if (isZero(zeroPoint))
    return shifted;
  FailureOr<Value> shaped = shapeZp(toI32(c, zeroPoint));
  if (failed(shaped))
    return failure();
  return c.binary<SubOp>(shifted, *shaped);
}

/// MatMulInteger's zero points: a_zero_point is per tensor or per row (M
/// values, or N-D shaped like `a` with a last dimension of 1);
/// b_zero_point per tensor or per column (N values, or N-D with a
/// second-to-last dimension of 1). numpy broadcasting takes all of these
/// except a 1-D per-row vector, which becomes M x 1.
FailureOr<Value> matmulProduct(Composer &c, int64_t a, int64_t aZp, int64_t b,
                               int64_t bZp) {
  NodeContext &ctx = c.ctx;
  RankedTensorType aType = ctx.getInputType(a);
  auto perRow = [&](Value zp) -> FailureOr<Value> {
    auto type = cast<RankedTensorType>(zp.getType());
    if (type.getRank() != 1 || type.getNumElements() == 1 ||
        aType.getRank() < 2)
      return zp;
    int64_t rows = aType.getDimSize(aType.getRank() - 2);
    if (type.getNumElements() != rows)
      return (ctx.emitError()
                  << "per-row zero point of " << type.getNumElements()
                  << " elements for " << rows << " rows",
              failure());
    return ctx.reshape(zp, {rows, 1});
  };
  auto asIs = [](Value zp) -> FailureOr<Value> { return zp; };
  FailureOr<Value> lhs = shiftedOperand(c, a, aZp, "A", perRow);
  FailureOr<Value> rhs = shiftedOperand(c, b, bZp, "B", asIs);
  if (failed(lhs) || failed(rhs) || failed(c.status))
    return failure();
  return ctx.createInferred1<MatMulOp>({*lhs, *rhs});
}

/// ConvInteger's zero points: x's per tensor, w's per tensor or per output
/// channel (M values, reshaped to M x 1 x ... x 1).
FailureOr<Value> convProduct(Composer &c, int64_t x, int64_t xZp, int64_t w,
                             int64_t wZp, Value bias) {
  NodeContext &ctx = c.ctx;
  RankedTensorType wType = ctx.getInputType(w);
  auto perTensor = [&](Value zp) -> FailureOr<Value> {
    int64_t count = cast<RankedTensorType>(zp.getType()).getNumElements();
    if (count != 1)
      return (ctx.emitError() << "x_zero_point must be one value (per "
                                 "tensor), got "
                              << count,
              failure());
    return ctx.reshape(zp, {});
  };
  auto perChannel = [&](Value zp) -> FailureOr<Value> {
    auto type = cast<RankedTensorType>(zp.getType());
    if (type.getNumElements() == 1)
      return ctx.reshape(zp, {});
    if (type.getRank() != 1 || wType.getRank() < 1 ||
        type.getDimSize(0) != wType.getDimSize(0))
      return (ctx.emitError()
                  << "w_zero_point must be one value or one per output "
                     "channel ("
                  << (wType.getRank() ? wType.getDimSize(0) : 0) << "), got "
                  << formatShape(type.getShape()),
              failure());
    SmallVector<int64_t> shape(wType.getRank(), 1);
    shape[0] = type.getDimSize(0);
    return ctx.reshape(zp, shape);
  };
  FailureOr<Value> input = shiftedOperand(c, x, xZp, "x", perTensor);
  FailureOr<Value> weight = shiftedOperand(c, w, wZp, "w", perChannel);
  if (failed(input) || failed(weight) || failed(c.status))
    return failure();
  return createConvFromNode(ctx, *input, *weight, bias);
}

LogicalResult convertMatMulInteger(NodeContext &ctx) {
  Composer c(ctx);
  return ctx.setSingleOutput(matmulProduct(c, 0, 2, 1, 3));
}

LogicalResult convertConvInteger(NodeContext &ctx) {
  Composer c(ctx);
  return ctx.setSingleOutput(convProduct(c, 0, 2, 1, 3, Value()));
}

/// The scales of a QLinear op's two operands, whose product is the scale
/// of its i32 accumulator.
struct Requantization {
  /// As the node gives them (rank 0 or 1).
  Value aScale, bScale;
  /// The accumulator dimension a per-axis scale runs along.
  std::optional<int64_t> aAxis, bAxis;
  /// The values of constant scales.
  std::optional<SmallVector<double>> aScales, bScales;
};

/// Requantises the i32 accumulator `acc` of a QLinear op to y's parameters
/// `out` and `storage`, and sets it as the node's output.
LogicalResult requantizeProduct(Composer &c, Value acc,
                                const Requantization &in,
                                const QuantParams &out, IntegerType storage) {
  NodeContext &ctx = c.ctx;
  auto accType = cast<RankedTensorType>(acc.getType());
  int64_t rank = accType.getRank();
  // Constant form: one accumulator type (scale_a * scale_b in fp32, zero
  // point 0), per tensor or along one axis, then accel.requantize.
  if (in.aScales && in.bScales && out.isConstant() && !(in.aAxis && in.bAxis)) {
    std::optional<int64_t> axis = in.aAxis ? in.aAxis : in.bAxis;
    size_t count = std::max(in.aScales->size(), in.bScales->size());
    SmallVector<double> scales;
    for (size_t i = 0; i < count; ++i)
      scales.push_back(double(float((*in.aScales)[in.aAxis ? i : 0]) *
                              float((*in.bScales)[in.bAxis ? i : 0])));
    quant::QuantizedType accQuant = getQuantizedType(
        IntegerType::get(ctx.getContext(), 32), scales, {}, axis);
    quant::QuantizedType yQuant =
        getQuantizedType(storage, *out.scales,
                         out.zeroPoints.value_or(SmallVector<double>()), {});
    if (accQuant && yQuant) {
      Value stored = c.cast(acc, accQuant);
      return c.finish(ctx.create<RequantizeOp>(accType.clone(yQuant), stored));
    }
  }
  // Arithmetic form: float(acc) * (scale_a * scale_b / scale_y).
  HostPlacement onHost(ctx);
  Builder &b = ctx.getBuilder();
  Value aScale = broadcastParam(ctx, in.aScale, in.aAxis, rank);
  Value bScale = broadcastParam(ctx, in.bScale, in.bAxis, rank);
  Value multiplier = c.binary<DivOp>(c.binary<MulOp>(aScale, bScale),
                                     ctx.reshape(out.scale, {}));
  Value scaled = c.binary<MulOp>(c.cast(acc, b.getF32Type()), multiplier);
  Value zeroPoint = out.zeroPoint ? ctx.reshape(out.zeroPoint, {}) : Value();
  Value y = quantizeScaled(c, scaled, zeroPoint, storage);
  onHost.apply();
  return c.finish(y);
}

/// y's storage type (its zero point's) for the QLinear ops.
FailureOr<IntegerType> getOutputStorage(NodeContext &ctx, int64_t zpIndex) {
  IntegerType storage = getStoredType(ctx.getInput(zpIndex));
  if (!isByte(storage))
    return (ctx.emitError() << "y_zero_point must be uint8 or int8, got "
                            << describeType(storage),
            failure());
  return storage;
}

LogicalResult convertQLinearMatMul(NodeContext &ctx) {
  // a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
  // y_zero_point.
  FailureOr<IntegerType> storage = getOutputStorage(ctx, 7);
  if (failed(storage))
    return failure();
  RankedTensorType aType = ctx.getInputType(0), bType = ctx.getInputType(3);
  if (aType.getRank() < 2 || bType.getRank() < 2)
    return ctx.emitError() << "a and b must have rank >= 2, got "
                           << formatShape(aType.getShape()) << " and "
                           << formatShape(bType.getShape());
  // a's scale is per tensor or per row, b's per tensor or per column.
  FailureOr<QuantParams> a =
      readParams(ctx, 1, 2, "a", aType, aType.getRank() - 2);
  if (failed(a))
    return failure();
  FailureOr<QuantParams> b =
      readParams(ctx, 4, 5, "b", bType, bType.getRank() - 1);
  if (failed(b))
    return failure();
  Composer c(ctx);
  FailureOr<Value> acc = matmulProduct(c, 0, 2, 3, 5);
  if (failed(acc))
    return failure();
  auto accType = cast<RankedTensorType>(acc->getType());
  FailureOr<QuantParams> y = readParams(ctx, 6, 7, "y", accType);
  if (failed(y))
    return failure();
  int64_t rank = accType.getRank();
  Requantization in{a->scale,
                    b->scale,
                    a->axis ? std::optional<int64_t>(rank - 2) : std::nullopt,
                    b->axis ? std::optional<int64_t>(rank - 1) : std::nullopt,
                    a->scales,
                    b->scales};
  return requantizeProduct(c, *acc, in, *y, *storage);
}

LogicalResult convertQLinearConv(NodeContext &ctx) {
  // x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
  // y_zero_point, B.
  FailureOr<IntegerType> storage = getOutputStorage(ctx, 7);
  if (failed(storage))
    return failure();
  Value bias = ctx.getInput(8);
  if (bias && !getElementType(bias).isSignlessInteger(32))
    return ctx.emitError() << "B must be int32, got "
                           << describeType(getElementType(bias));
  RankedTensorType xType = ctx.getInputType(0), wType = ctx.getInputType(3);
  // x's scale is per tensor, w's per tensor or per output channel.
  FailureOr<QuantParams> x = readParams(ctx, 1, 2, "x", xType);
  if (failed(x))
    return failure();
  FailureOr<QuantParams> w = readParams(ctx, 4, 5, "w", wType, 0);
  if (failed(w))
    return failure();
  Composer c(ctx);
  FailureOr<Value> acc = convProduct(c, 0, 2, 3, 5, bias);
  if (failed(acc))
    return failure();
  FailureOr<QuantParams> y =
      readParams(ctx, 6, 7, "y", cast<RankedTensorType>(acc->getType()));
  if (failed(y))
    return failure();
  Requantization in{
      x->scale,     w->scale,
      std::nullopt, w->axis ? std::optional<int64_t>(1) : std::nullopt,
      x->scales,    w->scales};
  return requantizeProduct(c, *acc, in, *y, *storage);
}

} // namespace

void mlir::nnaccel::onnx_import::registerQuantConverters(
    ConverterTable &table) {
  auto add = [&](StringRef name, int64_t minOpset, ConverterFn fn) {
    table[name].push_back({minOpset, std::move(fn)});
  };
  // Opset 13 adds per-axis parameters (the `axis` attribute), read by the
  // same converters.
  add("QuantizeLinear", 10, convertQuantizeLinear);
  add("DequantizeLinear", 10, convertDequantizeLinear);
  add("DynamicQuantizeLinear", 11, convertDynamicQuantizeLinear);
  add("MatMulInteger", 10, convertMatMulInteger);
  add("ConvInteger", 10, convertConvInteger);
  add("QLinearMatMul", 10, convertQLinearMatMul);
  add("QLinearConv", 10, convertQLinearConv);
}
