//===- NPUDialect.h - npu dialect declaration -------------------*- C++ -*-===//
//
// Declares the npu dialect, its enumerations (the ISA's, with identical
// values) and attributes (#npu.mem and the enum attributes).
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_NPU_NPUDIALECT_H
#define NNACCEL_DIALECT_NPU_NPUDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "NPU/NPUDialect.h.inc"
#include "NPU/NPUEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "NPU/NPUAttrs.h.inc"

namespace mlir::nnaccel::npu::detail {
/// Parses the ISA syntax of a memory operand (`dram[0x40+s1]`, `vrf[s2]`,
/// `chain`). Register-indirect operands (`indirect`) take no address.
ParseResult parseMemOperand(AsmParser &parser, MemAttr &result, bool indirect);
/// Prints the syntax parseMemOperand reads.
void printMemOperand(AsmPrinter &printer, MemAttr mem, bool indirect);
} // namespace mlir::nnaccel::npu::detail

#endif // NNACCEL_DIALECT_NPU_NPUDIALECT_H
