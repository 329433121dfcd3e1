//===- AccelDialect.h - accel dialect declaration ---------------*- C++ -*-===//
//
// Declares the accel dialect, its enums, attributes and types.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_ACCELDIALECT_H
#define NNACCEL_DIALECT_ACCEL_ACCELDIALECT_H

#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "Accel/AccelDialect.h.inc"
#include "Accel/AccelEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Accel/AccelAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Accel/AccelTypes.h.inc"

#endif // NNACCEL_DIALECT_ACCEL_ACCELDIALECT_H
