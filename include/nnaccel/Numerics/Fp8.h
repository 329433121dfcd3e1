//===- Fp8.h - OCP 8-bit floating point (E4M3, E5M2) ------------*- C++ -*-===//
//
// The two OCP FP8 formats (OCP 8-bit Floating Point Specification 1.0), used
// standalone and as MX element types. Values are held as raw uint8_t codes.
// fp32 -> fp8 rounds to nearest even; overflow handling is selected by the
// caller because ONNX exposes both the saturating and non-saturating casts.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_FP8_H
#define NNACCEL_NUMERICS_FP8_H

#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

/// E4M3 ("E4M3FN"): bias 7, no infinities, NaN = S.1111.111, max 448.
constexpr uint8_t kFp8E4M3MaxFinite = 0x7E; // 448
constexpr uint8_t kFp8E4M3NaN = 0x7F;
/// E5M2: bias 15, IEEE-like, inf = S.11111.00, max 57344.
constexpr uint8_t kFp8E5M2MaxFinite = 0x7B; // 57344
constexpr uint8_t kFp8E5M2PosInf = 0x7C;
constexpr uint8_t kFp8E5M2NaN = 0x7E; // Canonical quiet NaN produced.

/// Overflow policy of fp32 -> fp8, mirroring ONNX Cast's `saturate`.
///  Saturate:      |x| beyond max finite, and +-inf, become +-max finite.
///  NonSaturating: E4M3 overflow and +-inf become NaN; E5M2 overflow and
///                 +-inf become +-inf.
/// NaN inputs always become NaN (sign kept).
enum class Fp8Overflow { Saturate, NonSaturating };

uint8_t fp32ToFp8E4M3(float x, Fp8Overflow overflow = Fp8Overflow::Saturate);
uint8_t fp32ToFp8E5M2(float x, Fp8Overflow overflow = Fp8Overflow::Saturate);
/// Exact widening. E4M3 0x7F/0xFF and E5M2 exponent-31 non-zero mantissa
/// codes decode to quiet NaN with the code's sign.
float fp8E4M3ToFp32(uint8_t v);
float fp8E5M2ToFp32(uint8_t v);

bool isFp8E4M3NaN(uint8_t v);
bool isFp8E5M2NaN(uint8_t v);

/// Span conversions (in.size() == out.size() is a precondition).
void fp32ToFp8E4M3(Span<const float> in, Span<uint8_t> out,
                   Fp8Overflow overflow = Fp8Overflow::Saturate);
void fp32ToFp8E5M2(Span<const float> in, Span<uint8_t> out,
                   Fp8Overflow overflow = Fp8Overflow::Saturate);
void fp8E4M3ToFp32(Span<const uint8_t> in, Span<float> out);
void fp8E5M2ToFp32(Span<const uint8_t> in, Span<float> out);

/// Encodes a finite, non-negative magnitude into a minifloat with `manBits`
/// explicit mantissa bits whose smallest normal exponent is `minExp`, round
/// to nearest even, without any overflow check: the returned code is the
/// unsigned magnitude code (exponent field << manBits | mantissa) and may
/// exceed the format's largest code, which tells the caller it overflowed.
/// Exposed because fp8, MX elements and tests share this one rounding rule.
uint32_t encodeMinifloatMagnitude(float absValue, int manBits, int minExp);
/// Inverse of encodeMinifloatMagnitude for finite codes (exact).
float decodeMinifloatMagnitude(uint32_t code, int manBits, int minExp);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_FP8_H
