//===- Folders.cpp - accel op folders -------------------------------------===//
//
// Folders remove identities (x + 0, reshape to the same type, ...) and
// evaluate ops whose operands are small inline constants. The latter is what
// resolves the shape arithmetic of ONNX exports (Shape -> Gather -> Concat
// -> Reshape) to static values. Constants larger than kMaxFoldedElements are
// never expanded.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "Accel/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nnaccel::accel;

namespace {
/// Row-major strides of a shape.
SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Maps a linear index of `resultShape` to the linear index of an operand of
/// `operandShape` under numpy broadcasting.
int64_t broadcastIndex(int64_t linear, ArrayRef<int64_t> resultShape,
                       ArrayRef<int64_t> operandShape,
                       ArrayRef<int64_t> operandStrides) {
  int64_t offset = resultShape.size() - operandShape.size();
  int64_t index = 0;
  for (int64_t dim = resultShape.size() - 1; dim >= 0; --dim) {
    int64_t coord = linear % resultShape[dim];
    linear /= resultShape[dim];
    int64_t operandDim = dim - offset;
    if (operandDim >= 0 && operandShape[operandDim] != 1)
      index += coord * operandStrides[operandDim];
  }
  return index;
}

/// An inline dense constant small enough to fold, or null.
DenseElementsAttr getFoldable(Attribute attr) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kMaxFoldedElements)
    return nullptr;
  return dense;
}

enum class BinaryKind { Add, Sub, Mul, Div, Pow, Max, Min };

/// Evaluates a broadcasting binary op on two foldable constants of float or
/// integer element type. Integer division by zero and integer pow are not
/// folded (they are runtime matters).
Attribute foldBinaryConstants(BinaryKind kind, Attribute lhsAttr,
                              Attribute rhsAttr, RankedTensorType resultType) {
  DenseElementsAttr lhs = getFoldable(lhsAttr), rhs = getFoldable(rhsAttr);
  if (!lhs || !rhs || resultType.getNumElements() > kMaxFoldedElements ||
      lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != resultType.getElementType())
    return {};
  ArrayRef<int64_t> shape = resultType.getShape();
  auto lhsShape = lhs.getType().getShape(), rhsShape = rhs.getType().getShape();
  SmallVector<int64_t> lhsStrides = getStrides(lhsShape),
                       rhsStrides = getStrides(rhsShape);
  int64_t count = resultType.getNumElements();

  if (isa<FloatType>(resultType.getElementType())) {
    auto lhsValues = llvm::to_vector(lhs.getValues<APFloat>());
    auto rhsValues = llvm::to_vector(rhs.getValues<APFloat>());
    SmallVector<APFloat> result;
    result.reserve(count);
    for (int64_t i = 0; i < count; ++i) {
      APFloat a = lhsValues[broadcastIndex(i, shape, lhsShape, lhsStrides)];
      const APFloat &b =
          rhsValues[broadcastIndex(i, shape, rhsShape, rhsStrides)];
      constexpr auto rounding = APFloat::rmNearestTiesToEven;
      switch (kind) {
      case BinaryKind::Add:
        a.add(b, rounding);
        break;
      case BinaryKind::Sub:
        a.subtract(b, rounding);
        break;
      case BinaryKind::Mul:
        a.multiply(b, rounding);
        break;
      case BinaryKind::Div:
        a.divide(b, rounding);
        break;
      case BinaryKind::Max:
        a = llvm::maximum(a, b);
        break;
      case BinaryKind::Min:
        a = llvm::minimum(a, b);
        break;
      case BinaryKind::Pow: {
        bool lost;
        APFloat power(std::pow(a.convertToDouble(), b.convertToDouble()));
        power.convert(a.getSemantics(), rounding, &lost);
        a = power;
        break;
      }
      }
      result.push_back(a);
    }
    return DenseElementsAttr::get(resultType, result);
  }

  if (!resultType.getElementType().isSignlessInteger() ||
      kind == BinaryKind::Pow)
    return {};
  auto lhsValues = llvm::to_vector(lhs.getValues<APInt>());
  auto rhsValues = llvm::to_vector(rhs.getValues<APInt>());
  SmallVector<APInt> result;
  result.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    const APInt &a = lhsValues[broadcastIndex(i, shape, lhsShape, lhsStrides)];
    const APInt &b = rhsValues[broadcastIndex(i, shape, rhsShape, rhsStrides)];
    switch (kind) {
    case BinaryKind::Add:
      result.push_back(a + b);
      break;
    case BinaryKind::Sub:
      result.push_back(a - b);
      break;
    case BinaryKind::Mul:
      result.push_back(a * b);
      break;
    case BinaryKind::Div:
      if (b.isZero())
        return {};
      result.push_back(a.sdiv(b));
      break;
    case BinaryKind::Max:
      result.push_back(a.sge(b) ? a : b);
      break;
    case BinaryKind::Min:
      result.push_back(a.sle(b) ? a : b);
      break;
    case BinaryKind::Pow:
      return {};
    }
  }
  return DenseElementsAttr::get(resultType, result);
}

/// Gathers elements of a foldable constant into `resultType` by an index
/// function (element moves: transpose, slice, concat, gather, broadcast).
template <typename IndexFn>
Attribute permuteConstant(DenseElementsAttr input, RankedTensorType resultType,
                          IndexFn sourceIndex) {
  if (resultType.getNumElements() > kMaxFoldedElements)
    return {};
  if (input.isSplat())
    return DenseElementsAttr::get(resultType, input.getSplatValue<Attribute>());
  auto values = llvm::to_vector(input.getValues<Attribute>());
  SmallVector<Attribute> result;
  result.reserve(resultType.getNumElements());
  for (int64_t i = 0, e = resultType.getNumElements(); i < e; ++i)
    result.push_back(values[sourceIndex(i)]);
  return DenseElementsAttr::get(resultType, result);
}

/// Splits a linear index into coordinates of `shape`.
SmallVector<int64_t> delinearize(int64_t linear, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> coords(shape.size());
  for (int64_t dim = shape.size() - 1; dim >= 0; --dim) {
    coords[dim] = linear % shape[dim];
    linear /= shape[dim];
  }
  return coords;
}

/// Returns `value` if it already has `type` (for identity folds).
OpFoldResult identityIfSameType(Value value, Type type) {
  return value.getType() == type ? value : OpFoldResult();
}
} // namespace

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0.0))
    if (OpFoldResult same = identityIfSameType(getLhs(), getType()))
      return same;
  if (isSplatOf(adaptor.getLhs(), 0.0))
    if (OpFoldResult same = identityIfSameType(getRhs(), getType()))
      return same;
  return foldBinaryConstants(BinaryKind::Add, adaptor.getLhs(),
                             adaptor.getRhs(), getType());
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0.0))
    if (OpFoldResult same = identityIfSameType(getLhs(), getType()))
      return same;
  return foldBinaryConstants(BinaryKind::Sub, adaptor.getLhs(),
                             adaptor.getRhs(), getType());
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    if (OpFoldResult same = identityIfSameType(getLhs(), getType()))
      return same;
  if (isSplatOf(adaptor.getLhs(), 1.0))
    if (OpFoldResult same = identityIfSameType(getRhs(), getType()))
      return same;
  return foldBinaryConstants(BinaryKind::Mul, adaptor.getLhs(),
                             adaptor.getRhs(), getType());
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    if (OpFoldResult same = identityIfSameType(getLhs(), getType()))
      return same;
  return foldBinaryConstants(BinaryKind::Div, adaptor.getLhs(),
                             adaptor.getRhs(), getType());
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    if (OpFoldResult same = identityIfSameType(getLhs(), getType()))
      return same;
  return foldBinaryConstants(BinaryKind::Pow, adaptor.getLhs(),
                             adaptor.getRhs(), getType());
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return identityIfSameType(getLhs(), getType());
  return foldBinaryConstants(BinaryKind::Max, adaptor.getLhs(),
                             adaptor.getRhs(), getType());
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return identityIfSameType(getLhs(), getType());
  return foldBinaryConstants(BinaryKind::Min, adaptor.getLhs(),
                             adaptor.getRhs(), getType());
}

/// A compare of two constants (a causal mask from position ids, a padding
/// mask from constant lengths) is a constant: IEEE comparisons for floats
/// (NaN unordered: only ne holds), signed ones for signless integers,
/// unsigned for unsigned integers and bools.
OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr lhs = getFoldable(adaptor.getLhs()),
                    rhs = getFoldable(adaptor.getRhs());
  auto resultType = cast<RankedTensorType>(getType());
  if (!lhs || !rhs || !resultType.hasStaticShape() ||
      resultType.getNumElements() > kMaxFoldedElements ||
      lhs.getElementType() != rhs.getElementType())
    return {};
  Type element = lhs.getElementType();
  ArrayRef<int64_t> shape = resultType.getShape();
  auto lhsShape = lhs.getType().getShape(), rhsShape = rhs.getType().getShape();
  SmallVector<int64_t> lhsStrides = getStrides(lhsShape),
                       rhsStrides = getStrides(rhsShape);
  const int64_t count = resultType.getNumElements();
  const CompareKind kind = getKind();
  // -1, 0, 1 for less, equal, greater; nullopt for unordered (NaN).
  auto holds = [&](std::optional<int> order) {
    if (!order)
      return kind == CompareKind::ne;
    switch (kind) {
    case CompareKind::eq:
      return *order == 0;
    case CompareKind::ne:
      return *order != 0;
    case CompareKind::lt:
      return *order < 0;
    case CompareKind::le:
      return *order <= 0;
    case CompareKind::gt:
      return *order > 0;
    case CompareKind::ge:
      return *order >= 0;
    }
    return false;
  };
  SmallVector<bool> result;
  result.reserve(count);
  if (isa<FloatType>(element)) {
    auto lhsValues = llvm::to_vector(lhs.getValues<APFloat>());
    auto rhsValues = llvm::to_vector(rhs.getValues<APFloat>());
    for (int64_t i = 0; i < count; ++i) {
      const APFloat &a =
          lhsValues[broadcastIndex(i, shape, lhsShape, lhsStrides)];
      const APFloat &b =
          rhsValues[broadcastIndex(i, shape, rhsShape, rhsStrides)];
      std::optional<int> order;
      switch (a.compare(b)) {
      case APFloat::cmpLessThan:
        order = -1;
        break;
      case APFloat::cmpEqual:
        order = 0;
        break;
      case APFloat::cmpGreaterThan:
        order = 1;
        break;
      case APFloat::cmpUnordered:
        break;
      }
      result.push_back(holds(order));
    }
  } else if (auto integer = dyn_cast<IntegerType>(element)) {
    bool isSigned = integer.isSignless() && integer.getWidth() > 1;
    auto lhsValues = llvm::to_vector(lhs.getValues<APInt>());
    auto rhsValues = llvm::to_vector(rhs.getValues<APInt>());
    for (int64_t i = 0; i < count; ++i) {
      const APInt &a =
          lhsValues[broadcastIndex(i, shape, lhsShape, lhsStrides)];
      const APInt &b =
          rhsValues[broadcastIndex(i, shape, rhsShape, rhsStrides)];
      int order = isSigned ? (a.slt(b)   ? -1
                              : a.sgt(b) ? 1
                                         : 0)
                           : (a.ult(b)   ? -1
                              : a.ugt(b) ? 1
                                         : 0);
      result.push_back(holds(order));
    }
  } else {
    return {};
  }
  return DenseElementsAttr::get(resultType, ArrayRef<bool>(result));
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  auto condition =
      dyn_cast_if_present<DenseElementsAttr>(adaptor.getCondition());
  if (!condition || !condition.isSplat())
    return {};
  Value chosen = condition.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  return identityIfSameType(chosen, getType());
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  // relu is idempotent.
  if (getInput().getDefiningOp<ReluOp>())
    return getInput();
  auto input = getFoldable(adaptor.getInput());
  if (!input || !isa<FloatType>(input.getElementType()))
    return {};
  return input.mapValues(input.getElementType(), [](const APFloat &value) {
    APFloat result = value.isNegative() && !value.isNaN()
                         ? APFloat::getZero(value.getSemantics())
                         : value;
    return result.bitcastToAPInt();
  });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  auto input = getFoldable(adaptor.getInput());
  if (!input)
    return {};
  if (isa<FloatType>(input.getElementType()))
    return input.mapValues(input.getElementType(), [](const APFloat &value) {
      return (-value).bitcastToAPInt();
    });
  if (input.getElementType().isSignlessInteger())
    return input.mapValues(input.getElementType(),
                           [](const APInt &value) { return -value; });
  return {};
}

OpFoldResult RoundOp::fold(FoldAdaptor adaptor) {
  auto input = getFoldable(adaptor.getInput());
  if (!input)
    return {};
  return input.mapValues(input.getElementType(), [](const APFloat &value) {
    APFloat result = value;
    result.roundToIntegral(APFloat::rmNearestTiesToEven);
    return result.bitcastToAPInt();
  });
}

OpFoldResult ClipOp::fold(FoldAdaptor adaptor) {
  if (!getMin() && !getMax())
    return getInput();
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto input = getFoldable(adaptor.getInput());
  if (!input)
    return {};
  Type from = input.getElementType(), to = getType().getElementType();
  auto toFloat = dyn_cast<FloatType>(to);
  auto toInt = dyn_cast<IntegerType>(to);
  // ONNX bools are 0/1 and ui8 is unsigned: both widen without sign
  // extension.
  bool fromUnsigned = from.isInteger(1) || from.isUnsignedInteger();
  if (isa<IntegerType>(from) && toInt) {
    bool toBool = toInt.getWidth() == 1;
    return input.mapValues(to, [&](const APInt &value) {
      if (toBool)
        return APInt(1, !value.isZero());
      return fromUnsigned ? value.zextOrTrunc(toInt.getWidth())
                          : value.sextOrTrunc(toInt.getWidth());
    });
  }
  if (isa<IntegerType>(from) && toFloat) {
    return input.mapValues(to, [&](const APInt &value) {
      APFloat result(toFloat.getFloatSemantics());
      result.convertFromAPInt(value, /*IsSigned=*/!fromUnsigned,
                              APFloat::rmNearestTiesToEven);
      return result.bitcastToAPInt();
    });
  }
  if (isa<FloatType>(from) && toFloat) {
    return input.mapValues(to, [&](const APFloat &value) {
      APFloat result = value;
      bool lost;
      result.convert(toFloat.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                     &lost);
      return result.bitcastToAPInt();
    });
  }
  if (isa<FloatType>(from) && toInt) {
    if (toInt.getWidth() == 1)
      return input.mapValues(
          to, [](const APFloat &value) { return APInt(1, !value.isZero()); });
    return input.mapValues(to, [&](const APFloat &value) {
      APSInt result(toInt.getWidth(), toInt.isUnsigned());
      bool exact;
      value.convertToInteger(result, APFloat::rmTowardZero, &exact);
      return APInt(result);
    });
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Constants and data movement
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor adaptor) { return getValue(); }

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // A chain of reshapes is one reshape.
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  // A resource blob is reinterpreted in place: the data is shared.
  if (auto resource =
          dyn_cast_if_present<DenseResourceElementsAttr>(adaptor.getInput()))
    return DenseResourceElementsAttr::get(getType(), resource.getRawHandle());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> permutation = getPermutation();
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return getInput();
  DenseElementsAttr input = getFoldable(adaptor.getInput());
  if (!input)
    return {};
  ArrayRef<int64_t> inputShape = getInput().getType().getShape();
  SmallVector<int64_t> inputStrides = getStrides(inputShape);
  ArrayRef<int64_t> resultShape = getType().getShape();
  return permuteConstant(input, getType(), [&](int64_t linear) {
    SmallVector<int64_t> coords = delinearize(linear, resultShape);
    int64_t source = 0;
    for (auto [dim, coord] : llvm::enumerate(coords))
      source += coord * inputStrides[permutation[dim]];
    return source;
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return identityIfSameType(getInputs().front(), getType());
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute attr : adaptor.getInputs()) {
    DenseElementsAttr dense = getFoldable(attr);
    if (!dense)
      return {};
    inputs.push_back(dense);
  }
  if (getType().getNumElements() > kMaxFoldedElements)
    return {};
  int64_t axis =
      *normalizeAxis(static_cast<int64_t>(getAxis()), getType().getRank());
  ArrayRef<int64_t> resultShape = getType().getShape();
  // outer x (concatenated axis x inner) blocks, copied input by input.
  int64_t outer = getNumElements(resultShape.take_front(axis));
  int64_t inner = getNumElements(resultShape.drop_front(axis + 1));
  SmallVector<Attribute> result;
  result.reserve(getType().getNumElements());
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr input : inputs)
    values.push_back(llvm::to_vector(input.getValues<Attribute>()));
  for (int64_t o = 0; o < outer; ++o)
    for (auto [input, data] : llvm::zip(inputs, values)) {
      int64_t block = input.getType().getDimSize(axis) * inner;
      for (int64_t i = 0; i < block; ++i)
        result.push_back(data[o * block + i]);
    }
  return DenseElementsAttr::get(getType(), result);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getSteps(), [](int64_t step) { return step == 1; }))
    return getInput();
  DenseElementsAttr input = getFoldable(adaptor.getInput());
  if (!input)
    return {};
  SmallVector<int64_t> inputStrides =
      getStrides(getInput().getType().getShape());
  ArrayRef<int64_t> resultShape = getType().getShape();
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  return permuteConstant(input, getType(), [&](int64_t linear) {
    SmallVector<int64_t> coords = delinearize(linear, resultShape);
    int64_t source = 0;
    for (auto [dim, coord] : llvm::enumerate(coords))
      source += (starts[dim] + coord * steps[dim]) * inputStrides[dim];
    return source;
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr data = getFoldable(adaptor.getData());
  DenseElementsAttr indices = getFoldable(adaptor.getIndices());
  if (!data || !indices)
    return {};
  ArrayRef<int64_t> dataShape = getData().getType().getShape();
  int64_t axis =
      *normalizeAxis(static_cast<int64_t>(getAxis()), dataShape.size());
  int64_t axisSize = dataShape[axis];
  SmallVector<int64_t> indexValues;
  for (const APInt &index : indices.getValues<APInt>()) {
    int64_t value = index.getSExtValue();
    if (value < -axisSize || value >= axisSize)
      return {}; // Out of range: a runtime fault, not a fold.
    indexValues.push_back(value < 0 ? value + axisSize : value);
  }
  int64_t inner = getNumElements(dataShape.drop_front(axis + 1));
  int64_t numIndices = indexValues.size();
  return permuteConstant(data, getType(), [&](int64_t linear) {
    int64_t innerPos = linear % inner;
    int64_t rest = linear / inner;
    int64_t index = indexValues[rest % numIndices];
    int64_t outerPos = rest / numIndices;
    return (outerPos * axisSize + index) * inner + innerPos;
  });
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr input = getFoldable(adaptor.getInput());
  if (!input)
    return {};
  ArrayRef<int64_t> inputShape = getInput().getType().getShape();
  SmallVector<int64_t> inputStrides = getStrides(inputShape);
  ArrayRef<int64_t> resultShape = getType().getShape();
  return permuteConstant(input, getType(), [&](int64_t linear) {
    return broadcastIndex(linear, resultShape, inputShape, inputStrides);
  });
}

OpFoldResult PadOp::fold(FoldAdaptor adaptor) {
  if (llvm::all_of(getPads(), [](int64_t pad) { return pad == 0; }))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

OpFoldResult RequantizeOp::fold(FoldAdaptor adaptor) {
  return identityIfSameType(getInput(), getType());
}

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  return identityIfSameType(getInput(), getType());
}
