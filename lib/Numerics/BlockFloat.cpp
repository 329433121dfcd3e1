//===- BlockFloat.cpp - MS-FP8 / MS-FP9 block floating point --------------===//
//
// Encoder and decoder for the shared-exponent formats. The element mantissa
// has no implicit one, so the largest element of a block keeps only m
// significant bits and saturates at (2^m - 1) rather than rounding up into
// a larger exponent: the exponent is fixed before any element is rounded,
// which is what a single-pass hardware encoder does.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/BlockFloat.h"

#include <algorithm>

namespace nnaccel {
namespace numerics {

namespace {

/// Shared exponent for a block: floor(log2(max |x|)) clamped to the 5-bit
/// field range; inf forces the top exponent, NaN is ignored, and a block with
/// no non-zero non-NaN value gets the bottom exponent.
int sharedExponent(Span<const float> block) {
  float maxAbs = 0.0f;
  for (float v : block) {
    if (std::isnan(v))
      continue;
    float a = std::fabs(v);
    if (std::isinf(a))
      return kMsfpMaxExponent;
    if (a > maxAbs)
      maxAbs = a;
  }
  if (maxAbs == 0.0f)
    return kMsfpMinExponent;
  int e = floorLog2(maxAbs);
  return e < kMsfpMinExponent   ? kMsfpMinExponent
         : e > kMsfpMaxExponent ? kMsfpMaxExponent
                                : e;
}

inline uint8_t encodeElement(float v, int quantumExp, int m) {
  if (std::isnan(v))
    return 0;
  uint8_t sign = std::signbit(v) ? static_cast<uint8_t>(1u << m) : 0;
  uint32_t maxMant = (1u << m) - 1u;
  float a = std::fabs(v);
  uint32_t mant;
  if (std::isinf(a)) {
    mant = maxMant;
  } else {
    // Dividing by a power of two is exact unless the result drops into the
    // fp32 subnormal range, where it is < 2^-126 and rounds to 0 anyway.
    float scaled = std::ldexp(a, -quantumExp);
    float r = roundHalfEven(scaled);
    mant =
        r >= static_cast<float>(maxMant) ? maxMant : static_cast<uint32_t>(r);
  }
  return static_cast<uint8_t>(sign | mant);
}

} // namespace

float decodeMsfpElement(MsfpType type, uint8_t exponentField, uint8_t code) {
  int m = msfpMantissaBits(type);
  int e = static_cast<int>(exponentField & 0x1F) - kMsfpExponentBias;
  float mag =
      std::ldexp(static_cast<float>(code & ((1u << m) - 1u)), e - m + 1);
  return (code >> m) & 1u ? -mag : mag;
}

uint8_t encodeMsfpBlock(MsfpType type, Span<const float> block,
                        Span<uint8_t> codes) {
  assert(!block.empty() && block.size() == codes.size());
  int m = msfpMantissaBits(type);
  int e = sharedExponent(block);
  int quantumExp = e - m + 1;
  for (size_t i = 0, n = block.size(); i != n; ++i)
    codes.data()[i] = encodeElement(block.data()[i], quantumExp, m);
  return static_cast<uint8_t>(e + kMsfpExponentBias);
}

void decodeMsfpBlock(MsfpType type, uint8_t exponentField,
                     Span<const uint8_t> codes, Span<float> out) {
  assert(codes.size() == out.size());
  for (size_t i = 0, n = codes.size(); i != n; ++i)
    out.data()[i] = decodeMsfpElement(type, exponentField, codes.data()[i]);
}

void encodeMsfp(MsfpType type, size_t blockSize, Span<const float> x,
                Span<uint8_t> exponents, Span<uint8_t> codes) {
  assert(blockSize > 0);
  assert(codes.size() == x.size());
  assert(exponents.size() == msfpNumBlocks(x.size(), blockSize));
  for (size_t b = 0, nb = exponents.size(); b != nb; ++b) {
    size_t begin = b * blockSize;
    size_t len = std::min(blockSize, x.size() - begin);
    exponents.data()[b] =
        encodeMsfpBlock(type, x.subspan(begin, len), codes.subspan(begin, len));
  }
}

void decodeMsfp(MsfpType type, size_t blockSize, Span<const uint8_t> exponents,
                Span<const uint8_t> codes, Span<float> out) {
  assert(blockSize > 0);
  assert(codes.size() == out.size());
  assert(exponents.size() == msfpNumBlocks(out.size(), blockSize));
  for (size_t b = 0, nb = exponents.size(); b != nb; ++b) {
    size_t begin = b * blockSize;
    size_t len = std::min(blockSize, out.size() - begin);
    decodeMsfpBlock(type, exponents.data()[b], codes.subspan(begin, len),
                    out.subspan(begin, len));
  }
}

void fakeQuantMsfp(MsfpType type, size_t blockSize, Span<const float> x,
                   Span<float> out) {
  assert(blockSize > 0 && x.size() == out.size());
  std::vector<uint8_t> codes(std::min(blockSize, x.size()));
  for (size_t begin = 0; begin < x.size(); begin += blockSize) {
    size_t len = std::min(blockSize, x.size() - begin);
    Span<uint8_t> c(codes.data(), len);
    uint8_t e = encodeMsfpBlock(type, x.subspan(begin, len), c);
    decodeMsfpBlock(type, e, c, out.subspan(begin, len));
  }
}

} // namespace numerics
} // namespace nnaccel
