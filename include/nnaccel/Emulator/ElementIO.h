//===- ElementIO.h - Reading and writing typed rows ------------*- C++ -*-===//
//
// Every ISA element type widened to its compute domain (f32 for float and
// block types, i32 for integer types) and every domain value narrowed back to
// a storage type, following docs/isa.md §3.1 by calling the lib/Numerics
// conversions. Vector and matrix units read and write whole rows through
// these functions, so a conversion rule lives in exactly one place.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_EMULATOR_ELEMENTIO_H
#define NNACCEL_EMULATOR_ELEMENTIO_H

#include "nnaccel/ISA/Types.h"

#include <cstddef>
#include <cstdint>

namespace nnaccel::emulator {

/// True for the float domain (float and block types).
inline bool isFloatDomain(isa::DType t) {
  return isa::isFloat(t) || isa::isBlock(t);
}

/// Widens `n` elements of `t` at `src` (rowBytes(t, n) bytes) to f32. Float
/// types widen exactly; integer types convert with round to nearest even.
void readRowF32(isa::DType t, const uint8_t *src, size_t n, float *out);
/// Widens `n` integer elements to i32 (i64 saturates). Float-domain types
/// convert with round-half-even and saturation (NaN -> 0).
void readRowI32(isa::DType t, const uint8_t *src, size_t n, int32_t *out);
/// Narrows f32 values to `t`: float types round to nearest even (f16, bf16,
/// fp8e5m2 overflow to inf; fp8e4m3 saturates), block types use the block
/// encoders, integer types round half to even and saturate (NaN -> 0).
void writeRowF32(isa::DType t, const float *in, size_t n, uint8_t *dst);
/// Narrows i32 values to `t`: integer types saturate, float types round to
/// nearest even.
void writeRowI32(isa::DType t, const int32_t *in, size_t n, uint8_t *dst);

} // namespace nnaccel::emulator

#endif // NNACCEL_EMULATOR_ELEMENTIO_H
