//===- AccelDialect.cpp - accel dialect registration ----------------------===//
//
// Registers the accel operations and attributes, materialises folded
// constants, and checks the discardable `accel.placement` attribute wherever
// it appears.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelDialect.h"
#include "Accel/AccelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

#include "Accel/AccelDialect.cpp.inc"
#include "Accel/AccelEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Accel/AccelAttrs.cpp.inc"

void AccelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Accel/AccelOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Accel/AccelAttrs.cpp.inc"
      >();
}

Operation *AccelDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

LogicalResult AccelDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  if (attr.getName() == getPlacementAttrName()) {
    if (!isa<PlacementAttr>(attr.getValue()))
      return op->emitOpError() << "'" << getPlacementAttrName()
                               << "' must be a #accel.placement attribute";
    return success();
  }
  return op->emitOpError() << "unknown accel dialect attribute '"
                           << attr.getName().getValue() << "'";
}

LogicalResult
PlacementAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t card, ArrayRef<int64_t> cores, Type precision,
                      MemoryKindAttr memory) {
  if (card < -1)
    return emitError() << "card must be -1 (host) or a card index, got "
                       << card;
  if (card == -1 && !cores.empty())
    return emitError() << "a host placement (card = -1) cannot name cores";
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t core : cores) {
    if (core < 0)
      return emitError() << "core index must be non-negative, got " << core;
    if (!seen.insert(core).second)
      return emitError() << "core " << core << " is listed twice";
  }
  if (precision && !llvm::isa<FloatType, quant::QuantizedType>(precision))
    return emitError() << "precision must be a float or quantized type, got "
                       << precision;
  return success();
}
