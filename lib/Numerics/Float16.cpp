//===- Float16.cpp - IEEE binary16 and bfloat16 conversions ---------------===//
//
// Bit-level implementations of the fp16/bf16 conversions. They work on the
// integer representation rather than through the host's _Float16 or F16C
// instructions so that the result does not depend on the host compiler or
// CPU, and so that the hardware team can read the rounding directly.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Float16.h"

namespace nnaccel {
namespace numerics {

uint16_t fp32ToFp16(float x) {
  uint32_t bits = floatToBits(x);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t abs = bits & 0x7FFFFFFFu;

  if (abs > 0x7F800000u) // NaN: force quiet, keep the top payload bits.
    return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
  if (abs >= 0x477FF000u) // >= 65520 (and +-inf) rounds to infinity.
    return static_cast<uint16_t>(sign | 0x7C00u);
  if (abs >= 0x38800000u) { // >= 2^-14: normal fp16 result.
    // Rebias the exponent (127 -> 15) and round the 13 dropped bits to
    // nearest even; a carry out of the mantissa correctly bumps the
    // exponent, up to and including 65504 -> inf, which the test above
    // already excluded.
    uint32_t lsb = (abs >> 13) & 1u;
    abs += 0xC8000FFFu + lsb; // -(112 << 23) + 0xFFF, mod 2^32.
    return static_cast<uint16_t>(sign | (abs >> 13));
  }
  // Subnormal fp16 (quantum 2^-24) or zero. Anything at or below 2^-25 is
  // at most half a quantum and rounds to (signed) zero, ties to even.
  uint32_t exp = abs >> 23;
  if (exp < 102) // < 2^-25; also covers fp32 zeros and subnormals.
    return static_cast<uint16_t>(sign);
  uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
  uint32_t shift = 126 - exp; // value / 2^-24 == mant >> shift; 14..24.
  uint32_t q = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u)))
    ++q; // May carry into 0x400, the smallest normal: still correct.
  return static_cast<uint16_t>(sign | q);
}

float fp16ToFp32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) {
    if (mant == 0)
      return bitsToFloat(sign | 0x7F800000u);
    return bitsToFloat(sign | 0x7FC00000u | (mant << 13));
  }
  if (exp != 0)
    return bitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0)
    return bitsToFloat(sign);
  // Subnormal: normalise so the leading one becomes the implicit bit.
  int e = 113; // Biased fp32 exponent of 2^-14.
  while ((mant & 0x400u) == 0) {
    mant <<= 1;
    --e;
  }
  return bitsToFloat(sign | (static_cast<uint32_t>(e) << 23) |
                     ((mant & 0x3FFu) << 13));
}

uint16_t fp32ToBf16(float x) {
  uint32_t bits = floatToBits(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Round to nearest even: add 0x7FFF plus the lsb of the kept half. The
  // carry propagates into the exponent, turning the largest values into inf.
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7FFFu + lsb;
  return static_cast<uint16_t>(bits >> 16);
}

float bf16ToFp32(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    bits |= 0x00400000u;
  return bitsToFloat(bits);
}

bool isFp16NaN(uint16_t h) { return (h & 0x7FFFu) > 0x7C00u; }
bool isBf16NaN(uint16_t b) { return (b & 0x7FFFu) > 0x7F80u; }

void fp32ToFp16(Span<const float> in, Span<uint16_t> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp32ToFp16(in.data()[i]);
}

void fp16ToFp32(Span<const uint16_t> in, Span<float> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp16ToFp32(in.data()[i]);
}

void fp32ToBf16(Span<const float> in, Span<uint16_t> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp32ToBf16(in.data()[i]);
}

void bf16ToFp32(Span<const uint16_t> in, Span<float> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = bf16ToFp32(in.data()[i]);
}

void fp16ToBf16(Span<const uint16_t> in, Span<uint16_t> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp32ToBf16(fp16ToFp32(in.data()[i]));
}

void bf16ToFp16(Span<const uint16_t> in, Span<uint16_t> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp32ToFp16(bf16ToFp32(in.data()[i]));
}

void roundToFp16(Span<const float> in, Span<float> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp16ToFp32(fp32ToFp16(in.data()[i]));
}

void roundToBf16(Span<const float> in, Span<float> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = bf16ToFp32(fp32ToBf16(in.data()[i]));
}

} // namespace numerics
} // namespace nnaccel
