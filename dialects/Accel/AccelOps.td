//===- AccelOps.td - accel operations ----------------------*- tablegen -*-===//
//
// Umbrella file for the accel operations; each op family lives in its own
// file included below.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_ACCELOPS_TD
#define NNACCEL_DIALECT_ACCEL_ACCELOPS_TD

include "AccelBase.td"
include "AccelAttrs.td"
include "AccelTypes.td"
include "AccelInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// An op whose result types are computed from its operands and attributes.
// Element types of results may differ from the inferred ones only between
// quantized types (a quantized op may choose its own output scale).
class Accel_InferredOp<string mnemonic, list<Trait> traits = []>
    : Accel_Op<mnemonic, !listconcat(traits, [
        Pure, InferTypeOpAdaptorWithIsCompatible])> {
  code compatDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l,
                                            ::mlir::TypeRange r) {
      return ::mlir::nnaccel::accel::areCompatibleResultTypes(l, r);
    }
  }];
  let extraClassDefinition = compatDefinition;
}

include "AccelElementwiseOps.td"
include "AccelComputeOps.td"
include "AccelDataMovementOps.td"
include "AccelIndexingOps.td"
include "AccelSequenceOps.td"
include "AccelHardwareOps.td"

#endif // NNACCEL_DIALECT_ACCEL_ACCELOPS_TD
