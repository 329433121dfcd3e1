//===- Mx.h - OCP Microscaling (MX v1.0) formats ----------------*- C++ -*-===//
//
// OCP Microscaling Formats (MX) v1.0: blocks of 32 elements share one E8M0
// scale X (value 2^(X_bits - 127), 0xFF = NaN, no zero, no sign). Supported
// element types: MXINT8 (int8 two's complement with implicit scale 2^-6),
// MXFP8 E4M3 and MXFP8 E5M2. Quantisation follows the spec's reference
// algorithm: X = floor(log2(max |v|)) - emax_elem, elements v / 2^X are
// rounded to nearest even and saturate to the element's largest normal.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_MX_H
#define NNACCEL_NUMERICS_MX_H

#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

enum class MxElemType { Int8, Fp8E4M3, Fp8E5M2 };

constexpr size_t kMxBlockSize = 32;
constexpr uint8_t kE8M0NaN = 0xFF;
constexpr int kE8M0Bias = 127;

/// emax of the element type: exponent of its largest normal (INT8: 0, since
/// its largest magnitude is 1.984375; E4M3: 8; E5M2: 15).
int mxElemEmax(MxElemType t);
inline size_t mxNumBlocks(size_t n) {
  return (n + kMxBlockSize - 1) / kMxBlockSize;
}

/// 2^(bits - 127) for bits 0..254 (2^-127 is an fp32 subnormal, exact);
/// NaN for 0xFF.
float e8m0ToFp32(uint8_t bits);

/// Value of an element code (scale not applied); exact. MXINT8 code -128
/// decodes to -2.0 although the encoder never produces it.
float decodeMxElement(MxElemType t, uint8_t code);

/// Encodes one block of 1..32 values (a short final block is allowed;
/// elems.size() == block.size()). Returns the E8M0 scale byte.
///  - X = floor(log2(max |v|)) - emax_elem, clamped to [-127, 127].
///  - All-zero block: scale 0x00 (2^-127) and all-zero elements (+0 codes,
///    -0 inputs keep their sign for the fp8 types).
///  - Any NaN or +-inf in the block: scale 0xFF (NaN) and all elements 0;
///    the whole block decodes to NaN, since the element types cannot carry
///    the special value through a shared scale.
///  - Elements: q = roundToElem(v * 2^-X) with RNE and saturation (INT8 to
///    +-127, E4M3 to +-448, E5M2 to +-57344).
uint8_t encodeMxBlock(MxElemType t, Span<const float> block,
                      Span<uint8_t> elems);
/// out[i] = decodeMxElement(elems[i]) * 2^(scale - 127), one fp32 rounding
/// (only possible when the product is an fp32 subnormal). NaN scale gives
/// NaN everywhere.
void decodeMxBlock(MxElemType t, uint8_t scale, Span<const uint8_t> elems,
                   Span<float> out);

/// Span versions over consecutive blocks of 32:
/// scales.size() == mxNumBlocks(x.size()), elems.size() == x.size().
void encodeMx(MxElemType t, Span<const float> x, Span<uint8_t> scales,
              Span<uint8_t> elems);
void decodeMx(MxElemType t, Span<const uint8_t> scales,
              Span<const uint8_t> elems, Span<float> out);
void fakeQuantMx(MxElemType t, Span<const float> x, Span<float> out);

/// MXINT8 dot product (the ISA's `mm` with mxint8 weights). Both operands are
/// MXINT8 data of the same length (scales: one per block of 32). For each
/// block, in block order, starting from acc = +0:
///   p   = sum_i a_i * b_i                               exact int32
///   v   = ldexp(float(p), (Sa - 127 - 6) + (Sb - 127 - 6))   exact unless
///         the result is an fp32 subnormal or overflows (one rounding)
///   acc = acc + v                                       fp32, rounded
/// A NaN scale (0xFF) in either block makes v NaN.
float mxInt8Dot(Span<const uint8_t> scalesA, Span<const uint8_t> elemsA,
                Span<const uint8_t> scalesB, Span<const uint8_t> elemsB);

/// MXFP8 dot product (the ISA's `mm` with mxfp8 weights), `t` Fp8E4M3 or
/// Fp8E5M2; both operands are MXFP8 data of that element type and the same
/// length. For each block, in block order, starting from acc = +0:
///   p   = sum_i a_i * b_i    exact, in integer units of the square of the
///         element's smallest subnormal (2^-18 for E4M3, 2^-32 for E5M2)
///   v   = float(p) * 2^(Sa - 127) * 2^(Sb - 127)   one rounding (fp32 RNE
///         of p), exact scaling unless the result is an fp32 subnormal or
///         overflows
///   acc = acc + v                                       fp32, rounded
/// A NaN scale (0xFF) in either block, or an element code that is NaN or
/// infinite (the encoder never produces one), makes v NaN.
float mxFp8Dot(MxElemType t, Span<const uint8_t> scalesA,
               Span<const uint8_t> elemsA, Span<const uint8_t> scalesB,
               Span<const uint8_t> elemsB);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_MX_H
