//===- Composer.h - one ONNX node from accel primitives ---------*- C++ -*-===//
//
// ONNX ops without an accel op of their own import as short compositions
// of broadcasting accel ops (the decomposed activations, the quantisation
// formulas). Composer builds them for one node: result types come from the
// accel broadcasting rule, the first shape error is reported at the node
// and later calls become no-ops, so a converter checks once at the end.
// Internal to lib/Import/ONNX.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_IMPORT_ONNX_COMPOSER_H
#define NNACCEL_LIB_IMPORT_ONNX_COMPOSER_H

#include "ImporterContext.h"

namespace mlir::nnaccel::onnx_import {

/// Builds broadcasting accel ops for one node, stopping at the first error.
class Composer {
public:
  explicit Composer(NodeContext &ctx) : ctx(ctx) {}

  /// A rank-0 constant of `elementType` (float or integer).
  Value scalar(double value, Type elementType) {
    auto type = RankedTensorType::get({}, elementType);
    Attribute attr;
    if (auto floatType = dyn_cast<FloatType>(elementType))
      attr = DenseElementsAttr::get(
          type, FloatAttr::get(floatType, value).getValue());
    else
      attr = DenseElementsAttr::get(
          type, APInt(elementType.getIntOrFloatBitWidth(),
                      static_cast<int64_t>(value), /*isSigned=*/true));
    return ctx.getBuilder().create<accel::ConstantOp>(
        ctx.getLoc(), llvm::cast<ElementsAttr>(attr));
  }
  Value scalarLike(double value, Value like) {
    return scalar(value, getElementType(like));
  }
  static Type getElementType(Value value) {
    return llvm::cast<RankedTensorType>(value.getType()).getElementType();
  }

  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    if (failed(status))
      return lhs;
    SmallVector<Type> inferred;
    if (failed(accel::inferBroadcastResult(
            ctx.getLoc(), {lhs.getType(), rhs.getType()}, {}, inferred))) {
      status = failure();
      return lhs;
    }
    return ctx.create<OpTy>(inferred.front(), lhs, rhs);
  }
  Value compare(accel::CompareKind kind, Value lhs, Value rhs) {
    if (failed(status))
      return lhs;
    SmallVector<Type> inferred;
    if (failed(accel::inferBroadcastResult(
            ctx.getLoc(), {lhs.getType(), rhs.getType()},
            ctx.getBuilder().getI1Type(), inferred))) {
      status = failure();
      return lhs;
    }
    return ctx.create<accel::CompareOp>(inferred.front(), kind, lhs, rhs);
  }
  Value where(Value condition, Value onTrue, Value onFalse) {
    if (failed(status))
      return onTrue;
    SmallVector<Type> inferred;
    if (failed(accel::inferBroadcastResult(
            ctx.getLoc(),
            {condition.getType(), onTrue.getType(), onFalse.getType()}, {},
            inferred, /*firstValue=*/1))) {
      status = failure();
      return onTrue;
    }
    return ctx.create<accel::WhereOp>(inferred.front(), condition, onTrue,
                                      onFalse);
  }
  template <typename OpTy> Value unary(Value input) {
    return ctx.create<OpTy>(input.getType(), input);
  }
  Value cast(Value input, Type elementType) {
    auto type = llvm::cast<RankedTensorType>(input.getType());
    if (type.getElementType() == elementType)
      return input;
    return ctx.create<accel::CastOp>(type.clone(elementType), input);
  }

  LogicalResult finish(Value result) {
    if (failed(status))
      return failure();
    ctx.setOutput(0, result);
    return success();
  }

  NodeContext &ctx;
  LogicalResult status = success();
};

} // namespace mlir::nnaccel::onnx_import

#endif // NNACCEL_LIB_IMPORT_ONNX_COMPOSER_H
