//===- ElementTypes.h - MLIR element types as toolchain DTypes --*- C++ -*-===//
//
// The one mapping from MLIR element types to the toolchain's element types
// (nnaccel::DType, Numerics/DType.h), and the byte size of a tensor in card
// memory and packages that follows from it. The memory planner, the
// kernels, the package writer and the compile report all size tensors
// with these, so a packed i4 tensor or a block-float weight takes the same
// bytes everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_ELEMENTTYPES_H
#define NNACCEL_DIALECT_ACCEL_ELEMENTTYPES_H

#include "nnaccel/Numerics/DType.h"

#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace mlir::nnaccel::accel {

/// The toolchain element type of an MLIR element type (or of a shaped
/// type's elements): f32, f16, bf16, f64, f8E4M3FN, f8E5M2, i1, i4, ui4, i8,
/// ui8, i16, i32, i64, !accel.bfp<...>, !accel.rowwise<4|8> (rw4, rw8), and
/// quantized types by their storage type. nullopt for anything else.
std::optional<::nnaccel::DType> getElementDType(Type type);

/// True for a rowwise-quantized table (a tensor, or the element type, of
/// !accel.rowwise<...>).
bool isRowwiseTable(Type type);

/// Bytes of a dense row-major tensor of `type` (a ranked, static shape):
/// Numerics' denseBytes for element types with a DType; otherwise each
/// innermost row rounded up to whole bytes.
uint64_t getDenseByteSize(Type type);

} // namespace mlir::nnaccel::accel

#endif // NNACCEL_DIALECT_ACCEL_ELEMENTTYPES_H
