//===- Requantize.h - int32 -> int8/uint8 requantisation ------*- C++ -*-===//
//
// The two requantisation schemes the NPU supports for turning int32 matmul
// accumulators back into 8-bit activations:
//  - float multiplier: q = sat(roundHalfEven(float(acc) * multiplier) + zp);
//  - fixed-point multiplier + shift, bit-exact with gemmlowp / TFLite's
//    MultiplyByQuantizedMultiplier (SaturatingRoundingDoublingHighMul then
//    RoundingDivideByPOT), so TFLite-quantised models reproduce exactly.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_REQUANTIZE_H
#define NNACCEL_NUMERICS_REQUANTIZE_H

#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

//===--- Float multiplier -------------------------------------------------===//
/// t = float(acc) (round to nearest even for |acc| > 2^24);
/// t = t * multiplier (fp32); r = roundHalfEven(t);
/// q = saturate(r + zeroPoint, range). NaN (only from a NaN multiplier)
/// gives the zero point.
int32_t requantizeFloat(int32_t acc, float multiplier, int32_t zeroPoint,
                        QuantRange range);
/// The rule's second half for an already scaled t (a float operand's
/// v.rqnt): r = roundHalfEven(t), q = saturate(r + zeroPoint, range); NaN
/// gives the zero point.
int32_t requantizeScaled(float t, int32_t zeroPoint, QuantRange range);
void requantizeFloatToInt8(Span<const int32_t> acc, float multiplier,
                           int32_t zeroPoint, Span<int8_t> out);
void requantizeFloatToUInt8(Span<const int32_t> acc, float multiplier,
                            int32_t zeroPoint, Span<uint8_t> out);
/// Per-channel: element i uses multipliers[(i / innerSize) % C].
void requantizeFloatPerChannelToInt8(Span<const int32_t> acc,
                                     Span<const float> multipliers,
                                     size_t innerSize, int32_t zeroPoint,
                                     Span<int8_t> out);

//===--- Fixed-point multiplier -------------------------------------------===//
/// real multiplier ~= multiplier * 2^(shift - 31), multiplier a Q0.31 value
/// in [2^30, 2^31) (or 0). shift > 0 is a left shift, shift < 0 a rounding
/// right shift.
struct FixedPointMultiplier {
  int32_t multiplier = 0;
  int shift = 0;
};

/// TFLite QuantizeMultiplier: frexp(real) = q * 2^shift, multiplier =
/// round-half-away(q * 2^31), renormalised if it rounds to 2^31; values too
/// small for shift >= -31 become {0, 0}. Fails for negative, NaN or inf
/// inputs, or values >= 2^31 that would need shift > 31.
Status quantizeMultiplier(double real, FixedPointMultiplier &out);

/// gemmlowp SaturatingRoundingDoublingHighMul: (a * b) / 2^31 rounded to
/// nearest with ties toward +infinity, i.e. floor((a * b + 2^30) / 2^31);
/// a == b == INT32_MIN saturates to INT32_MAX.
int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b);
/// gemmlowp RoundingDivideByPOT: x / 2^exponent rounded half away from zero
/// (0 <= exponent <= 31).
int32_t roundingDivideByPOT(int32_t x, int exponent);
/// TFLite MultiplyByQuantizedMultiplier. The left shift (shift > 0) is done
/// in 64 bits and saturated to int32 (TFLite leaves overflow undefined).
int32_t multiplyByQuantizedMultiplier(int32_t x, FixedPointMultiplier m);

/// q = saturate(multiplyByQuantizedMultiplier(acc, m) + zeroPoint).
int32_t requantizeFixed(int32_t acc, FixedPointMultiplier m, int32_t zeroPoint,
                        QuantRange range);
void requantizeFixedToInt8(Span<const int32_t> acc, FixedPointMultiplier m,
                           int32_t zeroPoint, Span<int8_t> out);
void requantizeFixedToUInt8(Span<const int32_t> acc, FixedPointMultiplier m,
                            int32_t zeroPoint, Span<uint8_t> out);
void requantizeFixedPerChannelToInt8(Span<const int32_t> acc,
                                     Span<const FixedPointMultiplier> ms,
                                     size_t innerSize, int32_t zeroPoint,
                                     Span<int8_t> out);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_REQUANTIZE_H
