//===- ElementwiseConverters.cpp - ONNX elementwise ops -------------------===//
//
// Arithmetic, comparisons, activations and casts. ONNX broadcasting is the
// same numpy rule the accel ops verify, so most converters are one op.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"
#include "ImporterContext.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;
using namespace mlir::nnaccel::accel;

namespace {
/// A binary op; variadic ONNX forms (Max, Min, Sum) fold left.
template <typename OpTy> LogicalResult convertVariadic(NodeContext &ctx) {
  if (ctx.getNumInputs() < 1)
    return ctx.emitError() << "needs at least one input";
  Value result = ctx.getInput(0);
  for (int64_t i = 1; i < ctx.getNumInputs(); ++i) {
    Value rhs = ctx.getInput(i);
    SmallVector<Type> inferred;
    if (failed(inferBroadcastResult(
            ctx.getLoc(), {result.getType(), rhs.getType()}, {}, inferred)))
      return failure();
    result = ctx.create<OpTy>(inferred.front(), result, rhs);
  }
  ctx.setOutput(0, result);
  return success();
}

/// Arithmetic on unsigned integers (storage types for accel: uint8, and
/// the host-only uint16 / uint32) computes in a signed type that holds
/// every value (i32; i64 for uint32) and casts back: the casts wrap, as
/// unsigned arithmetic does; ops whose result stays in range (division,
/// max, min, mod) are exact.
template <typename OpTy> LogicalResult convertUnsigned(NodeContext &ctx) {
  unsigned widest = 8;
  for (int64_t i = 0; i < ctx.getNumInputs(); ++i)
    if (auto integer =
            dyn_cast<IntegerType>(ctx.getInputType(i).getElementType()))
      widest = std::max(widest, integer.getWidth());
  Type wide = ctx.getBuilder().getIntegerType(widest >= 32 ? 64 : 32);
  Type resultElement;
  Value result;
  for (int64_t i = 0; i < ctx.getNumInputs(); ++i) {
    RankedTensorType type = ctx.getInputType(i);
    resultElement = type.getElementType();
    Value operand = ctx.create<CastOp>(type.clone(wide), ctx.getInput(i));
    if (!result) {
      result = operand;
      continue;
    }
    SmallVector<Type> inferred;
    if (failed(inferBroadcastResult(
            ctx.getLoc(), {result.getType(), operand.getType()}, {}, inferred)))
      return failure();
    result = ctx.create<OpTy>(inferred.front(), result, operand);
  }
  auto type = cast<RankedTensorType>(result.getType());
  ctx.setOutput(0, ctx.create<CastOp>(type.clone(resultElement), result));
  return success();
}

bool hasUnsignedInput(NodeContext &ctx) {
  for (int64_t i = 0; i < ctx.getNumInputs(); ++i) {
    if (!ctx.getInput(i))
      continue;
    Type element = ctx.getInputType(i).getElementType();
    if (element.isUnsignedInteger(8) || element.isUnsignedInteger(16) ||
        element.isUnsignedInteger(32))
      return true;
  }
  return false;
}

template <typename OpTy> LogicalResult convertBinary(NodeContext &ctx) {
  if (ctx.getNumInputs() != 2)
    return ctx.emitError() << "expects 2 inputs, got " << ctx.getNumInputs();
  if (hasUnsignedInput(ctx))
    return convertUnsigned<OpTy>(ctx);
  // Before opset 7, `broadcast = 1` aligned B with A starting at `axis`
  // (default: trailing alignment). Reshape B so numpy rules give the same.
  if (ctx.getOpset() < 7 && ctx.getIntAttr("broadcast", 0)) {
    RankedTensorType a = ctx.getInputType(0), b = ctx.getInputType(1);
    int64_t axis = ctx.getIntAttr("axis", a.getRank() - b.getRank());
    if (axis < 0 || axis + b.getRank() > a.getRank())
      return ctx.emitError() << "legacy broadcast axis " << axis
                             << " does not fit " << b << " into " << a;
    SmallVector<int64_t> shape(b.getShape());
    shape.append(a.getRank() - axis - b.getRank(), 1);
    Value rhs = ctx.reshape(ctx.getInput(1), shape);
    SmallVector<Type> inferred;
    if (failed(inferBroadcastResult(ctx.getLoc(), {a, rhs.getType()}, {},
                                    inferred)))
      return failure();
    ctx.setOutput(0, ctx.create<OpTy>(inferred.front(), ctx.getInput(0), rhs));
    return success();
  }
  return convertVariadic<OpTy>(ctx);
}

LogicalResult convertCompare(NodeContext &ctx, CompareKind kind) {
  if (ctx.getNumInputs() != 2)
    return ctx.emitError() << "expects 2 inputs";
  SmallVector<Type> inferred;
  if (failed(inferBroadcastResult(ctx.getLoc(),
                                  {ctx.getInputType(0), ctx.getInputType(1)},
                                  ctx.getBuilder().getI1Type(), inferred)))
    return failure();
  ctx.setOutput(0, ctx.create<CompareOp>(inferred.front(), kind,
                                         ctx.getInput(0), ctx.getInput(1)));
  return success();
}

template <typename OpTy> LogicalResult convertUnary(NodeContext &ctx) {
  Value input = ctx.getInput(0);
  if (!input)
    return ctx.emitError() << "expects 1 input";
  ctx.setOutput(0, ctx.create<OpTy>(input.getType(), input));
  return success();
}

/// True for element types the float-only accel activations accept.
bool isFloatInput(NodeContext &ctx) {
  return isa<FloatType>(ctx.getInputType(0).getElementType());
}

template <typename OpTy> LogicalResult convertFloatUnary(NodeContext &ctx) {
  if (!ctx.getInput(0) || !isFloatInput(ctx))
    return ctx.emitError() << "expects one floating point input";
  return convertUnary<OpTy>(ctx);
}

/// Pow with differing base and exponent types (opset 12+): the result has
/// the base's type. An integer exponent of a float base is cast to the base
/// type; an integer base with a float exponent is raised in the exponent's
/// type and truncated back, as the ONNX reference does.
LogicalResult convertPow(NodeContext &ctx) {
  if (ctx.getNumInputs() != 2)
    return ctx.emitError() << "expects 2 inputs";
  Type base = ctx.getInputType(0).getElementType();
  Type exponent = ctx.getInputType(1).getElementType();
  if (base == exponent || ctx.getOpset() < 7)
    return convertBinary<PowOp>(ctx);
  auto castTo = [&](Value v, Type element) -> Value {
    auto type = cast<RankedTensorType>(v.getType());
    return ctx.create<CastOp>(type.clone(element), v);
  };
  Value lhs = ctx.getInput(0), rhs = ctx.getInput(1);
  Type compute = isa<FloatType>(base) ? base : exponent;
  if (!isa<FloatType>(compute))
    compute = base;
  lhs = base == compute ? lhs : castTo(lhs, compute);
  rhs = exponent == compute ? rhs : castTo(rhs, compute);
  SmallVector<Type> inferred;
  if (failed(inferBroadcastResult(ctx.getLoc(), {lhs.getType(), rhs.getType()},
                                  {}, inferred)))
    return failure();
  Value result = ctx.create<PowOp>(inferred.front(), lhs, rhs);
  ctx.setOutput(0, compute == base ? result : castTo(result, base));
  return success();
}

/// Mod: fmod = 1 is C fmod, else the sign of the divisor (integers).
LogicalResult convertMod(NodeContext &ctx) {
  bool fmod = ctx.getIntAttr("fmod", 0);
  if (hasUnsignedInput(ctx))
    return convertUnsigned<ModOp>(ctx); // both remainders agree on >= 0
  if (!fmod && isa<FloatType>(ctx.getInputType(0).getElementType()))
    return ctx.emitError() << "a floating point Mod needs fmod = 1";
  Builder &b = ctx.getBuilder();
  SmallVector<NamedAttribute> attrs;
  if (fmod)
    attrs.push_back(ctx.named("fmod", b.getUnitAttr()));
  return ctx.setSingleOutput(
      ctx.createInferred1<ModOp>({ctx.getInput(0), ctx.getInput(1)}, attrs));
}

/// Clip. Constant bounds become the op's attributes; a bound computed at
/// run time (a graph input) becomes Max(x, min) and Min(., max), as ONNX
/// defines Clip, so the package serves every bound.
LogicalResult convertClip(NodeContext &ctx) {
  std::optional<float> min, max;
  Value minValue, maxValue;
  if (ctx.getOpset() < 11) {
    if (ctx.getAttr("min"))
      min = ctx.getFloatAttr("min", 0);
    if (ctx.getAttr("max"))
      max = ctx.getFloatAttr("max", 0);
  } else {
    for (auto [index, bound, runtime, name] :
         {std::tuple{1, &min, &minValue, "min"},
          std::tuple{2, &max, &maxValue, "max"}}) {
      if (!ctx.hasInput(index))
        continue;
      Value given = ctx.getInput(index);
      if (!matchPattern(given, m_Constant())) {
        if (ctx.getInputType(index).getNumElements() != 1)
          return ctx.emitError()
                 << name << " (input " << index << ") must be a scalar, got "
                 << ctx.getInputType(index);
        *runtime = given;
        continue;
      }
      FailureOr<float> value = ctx.getConstantFloat(index, name);
      if (failed(value))
        return failure();
      *bound = *value;
    }
  }
  Builder &b = ctx.getBuilder();
  Value result = ctx.getInput(0);
  if (min || max)
    result = ctx.create<ClipOp>(result.getType(), result,
                                min ? b.getF32FloatAttr(*min) : FloatAttr(),
                                max ? b.getF32FloatAttr(*max) : FloatAttr());
  Composer c(ctx);
  if (minValue)
    result = c.binary<MaxOp>(result, minValue);
  if (maxValue)
    result = c.binary<MinOp>(result, maxValue);
  return c.finish(result);
}

LogicalResult convertCast(NodeContext &ctx) {
  int64_t to = ctx.getIntAttr("to", 0);
  Type element = convertElementType(to, ctx.getContext());
  if (!element)
    return ctx.emitError() << "cast to unsupported data type "
                           << onnxTypeName(to);
  RankedTensorType type = ctx.getInputType(0);
  ctx.setOutput(0, ctx.create<CastOp>(type.clone(element), ctx.getInput(0)));
  return success();
}

LogicalResult convertWhere(NodeContext &ctx) {
  SmallVector<Type> inferred;
  if (failed(inferBroadcastResult(
          ctx.getLoc(),
          {ctx.getInputType(0), ctx.getInputType(1), ctx.getInputType(2)}, {},
          inferred, /*firstValue=*/1)))
    return failure();
  ctx.setOutput(0, ctx.create<WhereOp>(inferred.front(), ctx.getInput(0),
                                       ctx.getInput(1), ctx.getInput(2)));
  return success();
}

LogicalResult convertIdentity(NodeContext &ctx) {
  ctx.setOutput(0, ctx.getInput(0));
  return success();
}

/// Dropout in inference is the identity; its mask output (if requested)
/// is all ones.
LogicalResult convertDropout(NodeContext &ctx) {
  if (ctx.getOpset() >= 12 && ctx.hasInput(2)) {
    FailureOr<SmallVector<int64_t>> training =
        ctx.getConstantInts(2, "training_mode");
    if (failed(training))
      return failure();
    // Training mode drops elements at random, except with ratio 0.
    if (!training->empty() && (*training)[0] != 0) {
      SmallVector<double> ratio{0.5};
      if (ctx.hasInput(1)) {
        FailureOr<SmallVector<double>> given =
            ctx.getConstantValues(1, "ratio");
        if (failed(given))
          return failure();
        ratio = *given;
      }
      if (ratio.size() != 1 || ratio.front() != 0)
        return ctx.emitError() << "training_mode = true drops elements at "
                                  "random; only ratio = 0 is supported";
    }
  }
  Value input = ctx.getInput(0);
  ctx.setOutput(0, input);
  if (ctx.hasOutput(1)) {
    auto maskType = ctx.getInputType(0).clone(ctx.getBuilder().getI1Type());
    ctx.setOutput(1, ctx.getBuilder().create<ConstantOp>(
                         ctx.getLoc(), DenseElementsAttr::get(maskType, true)));
  }
  return success();
}

} // namespace

void mlir::nnaccel::onnx_import::registerElementwiseConverters(
    ConverterTable &table) {
  auto add = [&](StringRef name, int64_t minOpset, ConverterFn fn) {
    table[name].push_back({minOpset, std::move(fn)});
  };
  add("Add", 1, convertBinary<AddOp>);
  add("Sub", 1, convertBinary<SubOp>);
  add("Mul", 1, convertBinary<MulOp>);
  add("Div", 1, convertBinary<DivOp>);
  add("Pow", 1, convertPow);
  add("Mod", 10, convertMod);
  add("Max", 6, [](NodeContext &c) {
    return hasUnsignedInput(c) ? convertUnsigned<MaxOp>(c)
                               : convertVariadic<MaxOp>(c);
  });
  add("Min", 6, [](NodeContext &c) {
    return hasUnsignedInput(c) ? convertUnsigned<MinOp>(c)
                               : convertVariadic<MinOp>(c);
  });
  add("Sum", 6, convertVariadic<AddOp>);
  add("Equal", 7,
      [](NodeContext &c) { return convertCompare(c, CompareKind::eq); });
  add("Less", 7,
      [](NodeContext &c) { return convertCompare(c, CompareKind::lt); });
  add("LessOrEqual", 12,
      [](NodeContext &c) { return convertCompare(c, CompareKind::le); });
  add("Greater", 7,
      [](NodeContext &c) { return convertCompare(c, CompareKind::gt); });
  add("GreaterOrEqual", 12,
      [](NodeContext &c) { return convertCompare(c, CompareKind::ge); });
  add("Where", 9, convertWhere);
  add("Relu", 6, convertUnary<ReluOp>);
  add("Neg", 6, convertUnary<NegOp>);
  add("Abs", 6, convertUnary<AbsOp>);
  add("Sqrt", 6, convertFloatUnary<SqrtOp>);
  add("Exp", 6, convertFloatUnary<ExpOp>);
  add("Erf", 9, convertFloatUnary<ErfOp>);
  add("Round", 11, convertFloatUnary<RoundOp>);
  add("Tanh", 6, convertFloatUnary<TanhOp>);
  add("Log", 6, convertFloatUnary<LogOp>);
  add("Ceil", 6, convertFloatUnary<CeilOp>);
  add("Floor", 6, convertFloatUnary<FloorOp>);
  add("Sin", 7, convertFloatUnary<SinOp>);
  add("Cos", 7, convertFloatUnary<CosOp>);
  add("Tan", 7, convertFloatUnary<TanOp>);
  add("Asin", 7, convertFloatUnary<AsinOp>);
  add("Acos", 7, convertFloatUnary<AcosOp>);
  add("Atan", 7, convertFloatUnary<AtanOp>);
  add("Sinh", 9, convertFloatUnary<SinhOp>);
  add("Cosh", 9, convertFloatUnary<CoshOp>);
  add("Asinh", 9, convertFloatUnary<AsinhOp>);
  add("Acosh", 9, convertFloatUnary<AcoshOp>);
  add("Atanh", 9, convertFloatUnary<AtanhOp>);
  add("Sigmoid", 6, convertFloatUnary<SigmoidOp>);
  add("Clip", 6, convertClip);
  add("Cast", 6, convertCast);
  add("Identity", 1, convertIdentity);
  add("Dropout", 6, convertDropout);
}
