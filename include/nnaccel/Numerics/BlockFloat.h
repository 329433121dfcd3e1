//===- BlockFloat.h - MS-FP8 / MS-FP9 block floating point ------*- C++ -*-===//
//
// Brainwave-style block floating point: a block of `blockSize` elements
// (block size is a target parameter) shares one 5-bit exponent field, and
// each element is 1 sign bit + m mantissa bits, sign-magnitude, with no
// implicit leading one (m = 2 for ms-fp8, 3 for ms-fp9).
//
// Encoding of a block with shared exponent e (field E = e + 15, 0..31):
//   value = (-1)^s * mant * 2^(e - m + 1),  mant in [0, 2^m - 1]
//   e     = clamp(floor(log2(max_i |x_i|)), -15, 16)
//   mant  = min(roundHalfEven(|x| / 2^(e - m + 1)), 2^m - 1)
// Element codes are stored one per byte: bit m = sign, bits m-1..0 = mant.
// See docs/numerics.md for special values.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_BLOCKFLOAT_H
#define NNACCEL_NUMERICS_BLOCKFLOAT_H

#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

enum class MsfpType { Msfp8, Msfp9 };

constexpr int kMsfpExponentBias = 15;
constexpr int kMsfpMinExponent = -15; // Field 0.
constexpr int kMsfpMaxExponent = 16;  // Field 31.

/// Explicit mantissa bits m: 2 for ms-fp8, 3 for ms-fp9.
inline int msfpMantissaBits(MsfpType t) { return t == MsfpType::Msfp8 ? 2 : 3; }
/// Number of blocks covering n elements; the last block may be partial.
inline size_t msfpNumBlocks(size_t n, size_t blockSize) {
  return (n + blockSize - 1) / blockSize;
}

/// Encodes one block (1 <= block.size()); codes.size() == block.size().
/// Returns the 5-bit exponent field. Special values (no NaN/inf codes exist):
///  - an all-zero block (or all NaN) gets field 0 and zero mantissas;
///  - +-inf counts as larger than any finite value (forcing e = 16) and
///    saturates to the largest mantissa with its sign;
///  - NaN encodes as +0 and is ignored when choosing the exponent;
///  - -0 encodes as a zero mantissa with the sign bit set (decodes to -0).
uint8_t encodeMsfpBlock(MsfpType type, Span<const float> block,
                        Span<uint8_t> codes);
/// Decodes one block; exact in fp32.
void decodeMsfpBlock(MsfpType type, uint8_t exponentField,
                     Span<const uint8_t> codes, Span<float> out);
/// Value of one element code under exponent field E (exact).
float decodeMsfpElement(MsfpType type, uint8_t exponentField, uint8_t code);

/// Whole-span encode: exponents.size() == msfpNumBlocks(x.size(), blockSize)
/// and codes.size() == x.size(). Block b covers elements
/// [b * blockSize, min((b + 1) * blockSize, n)).
void encodeMsfp(MsfpType type, size_t blockSize, Span<const float> x,
                Span<uint8_t> exponents, Span<uint8_t> codes);
void decodeMsfp(MsfpType type, size_t blockSize, Span<const uint8_t> exponents,
                Span<const uint8_t> codes, Span<float> out);
/// A read-only view of msfp-encoded data: `codes` holds one code per
/// element, `exponents` one field per block. For a matrix, every row starts
/// a new block (rows are encoded independently along K).
struct MsfpView {
  MsfpType type;
  size_t blockSize;
  Span<const uint8_t> exponents;
  Span<const uint8_t> codes;
};

/// encode followed by decode, without materialising the codes.
void fakeQuantMsfp(MsfpType type, size_t blockSize, Span<const float> x,
                   Span<float> out);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_BLOCKFLOAT_H
