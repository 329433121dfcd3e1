//===- Float16.h - IEEE binary16 and bfloat16 conversions -------*- C++ -*-===//
//
// The device's two 16-bit floating-point formats, held as raw uint16_t bit
// patterns so that storage, emulator memories and serialised weights all use
// the same representation. Every conversion from fp32 rounds to nearest,
// ties to even; conversions to fp32 are exact. See docs/numerics.md.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_FLOAT16_H
#define NNACCEL_NUMERICS_FLOAT16_H

#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

/// fp16 (IEEE 754 binary16): 1 sign, 5 exponent (bias 15), 10 mantissa bits.
constexpr uint16_t kFp16PosInf = 0x7C00;
constexpr uint16_t kFp16NegInf = 0xFC00;
constexpr uint16_t kFp16QuietNaN = 0x7E00;
constexpr uint16_t kFp16MaxFinite = 0x7BFF; // 65504
/// bf16: the upper half of an fp32 (1 sign, 8 exponent, 7 mantissa bits).
constexpr uint16_t kBf16PosInf = 0x7F80;
constexpr uint16_t kBf16QuietNaN = 0x7FC0;

/// fp32 -> fp16, round to nearest even. Magnitudes >= 65520 (the midpoint
/// between 65504 and 2^16) become infinity; NaN stays NaN with the quiet bit
/// set and the top 9 payload bits kept; subnormal results are rounded
/// exactly (one rounding) and -0 stays -0.
uint16_t fp32ToFp16(float x);
/// fp16 -> fp32, exact. Signalling NaNs come back quiet.
float fp16ToFp32(uint16_t h);

/// fp32 -> bf16, round to nearest even on the 16 dropped bits. Overflow
/// rounds to infinity; NaN stays NaN (quiet bit forced, top payload kept);
/// fp32 subnormals map onto bf16 subnormals with the same rounding.
uint16_t fp32ToBf16(float x);
/// bf16 -> fp32, exact (the bits are the upper half). Signalling NaNs come
/// back quiet.
float bf16ToFp32(uint16_t b);

bool isFp16NaN(uint16_t h);
bool isBf16NaN(uint16_t b);

/// Span conversions: in.size() == out.size() is a precondition.
void fp32ToFp16(Span<const float> in, Span<uint16_t> out);
void fp16ToFp32(Span<const uint16_t> in, Span<float> out);
void fp32ToBf16(Span<const float> in, Span<uint16_t> out);
void bf16ToFp32(Span<const uint16_t> in, Span<float> out);
/// fp16 <-> bf16 through fp32. Both directions have a single rounding,
/// because widening to fp32 is exact.
void fp16ToBf16(Span<const uint16_t> in, Span<uint16_t> out);
void bf16ToFp16(Span<const uint16_t> in, Span<uint16_t> out);

/// Round-trips fp32 values through fp16 / bf16 ("fake quantisation"); the
/// quantisation passes use these to model device storage in fp32 graphs.
void roundToFp16(Span<const float> in, Span<float> out);
void roundToBf16(Span<const float> in, Span<float> out);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_FLOAT16_H
