//===- Fp8.cpp - OCP 8-bit floating point (E4M3, E5M2) --------------------===//
//
// fp8 conversions built on one generic minifloat rounding routine. The
// routine works on the exact value (power-of-two scaling and an integer
// round-half-even), so there is exactly one rounding per conversion and the
// same code serves both formats and the MX element encoders.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Fp8.h"

namespace nnaccel {
namespace numerics {

uint32_t encodeMinifloatMagnitude(float absValue, int manBits, int minExp) {
  assert(std::isfinite(absValue) && absValue >= 0.0f);
  if (absValue == 0.0f)
    return 0;
  // The quantum is 2^(max(e, minExp) - manBits); below minExp the format is
  // subnormal and the quantum stops shrinking.
  int e = floorLog2(absValue);
  int eff = e > minExp ? e : minExp;
  // Scaling by a power of two is exact here: the result lies in
  // [0, 2^(manBits + 1)), far inside the normal fp32 range.
  float scaled = std::ldexp(absValue, manBits - eff);
  uint32_t m = static_cast<uint32_t>(roundHalfEven(scaled));
  // m carries the implicit leading one for normals, which is exactly what
  // makes the exponent field come out right, including the carry when m
  // rounds up to 2^(manBits + 1) and the subnormal -> normal transition.
  return (static_cast<uint32_t>(eff - minExp) << manBits) + m;
}

float decodeMinifloatMagnitude(uint32_t code, int manBits, int minExp) {
  uint32_t field = code >> manBits;
  uint32_t mant = code & ((1u << manBits) - 1u);
  if (field == 0)
    return std::ldexp(static_cast<float>(mant), minExp - manBits);
  return std::ldexp(static_cast<float>(mant | (1u << manBits)),
                    static_cast<int>(field) - 1 + minExp - manBits);
}

namespace {
constexpr int kE4M3ManBits = 3, kE4M3MinExp = -6;
constexpr int kE5M2ManBits = 2, kE5M2MinExp = -14;
} // namespace

uint8_t fp32ToFp8E4M3(float x, Fp8Overflow overflow) {
  uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  if (std::isnan(x))
    return sign | kFp8E4M3NaN;
  bool saturate = overflow == Fp8Overflow::Saturate;
  if (std::isinf(x))
    return sign | (saturate ? kFp8E4M3MaxFinite : kFp8E4M3NaN);
  uint32_t code =
      encodeMinifloatMagnitude(std::fabs(x), kE4M3ManBits, kE4M3MinExp);
  // Code 0x7F is NaN in E4M3, so anything above 0x7E (rounded value 480 and
  // up, i.e. |x| > 464; 464 itself ties to even 448) overflowed.
  if (code > kFp8E4M3MaxFinite)
    return sign | (saturate ? kFp8E4M3MaxFinite : kFp8E4M3NaN);
  return static_cast<uint8_t>(sign | code);
}

uint8_t fp32ToFp8E5M2(float x, Fp8Overflow overflow) {
  uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  if (std::isnan(x))
    return sign | kFp8E5M2NaN;
  bool saturate = overflow == Fp8Overflow::Saturate;
  if (std::isinf(x))
    return sign | (saturate ? kFp8E5M2MaxFinite : kFp8E5M2PosInf);
  uint32_t code =
      encodeMinifloatMagnitude(std::fabs(x), kE5M2ManBits, kE5M2MinExp);
  if (code > kFp8E5M2MaxFinite) // Rounded to 65536 or more: |x| >= 61440.
    return sign | (saturate ? kFp8E5M2MaxFinite : kFp8E5M2PosInf);
  return static_cast<uint8_t>(sign | code);
}

float fp8E4M3ToFp32(uint8_t v) {
  float mag;
  if ((v & 0x7F) == kFp8E4M3NaN)
    mag = std::numeric_limits<float>::quiet_NaN();
  else
    mag = decodeMinifloatMagnitude(v & 0x7Fu, kE4M3ManBits, kE4M3MinExp);
  return (v & 0x80) ? -mag : mag;
}

float fp8E5M2ToFp32(uint8_t v) {
  float mag;
  uint32_t abs = v & 0x7Fu;
  if (abs == kFp8E5M2PosInf)
    mag = std::numeric_limits<float>::infinity();
  else if (abs > kFp8E5M2PosInf)
    mag = std::numeric_limits<float>::quiet_NaN();
  else
    mag = decodeMinifloatMagnitude(abs, kE5M2ManBits, kE5M2MinExp);
  return (v & 0x80) ? -mag : mag;
}

bool isFp8E4M3NaN(uint8_t v) { return (v & 0x7F) == kFp8E4M3NaN; }
bool isFp8E5M2NaN(uint8_t v) { return (v & 0x7F) > kFp8E5M2PosInf; }

void fp32ToFp8E4M3(Span<const float> in, Span<uint8_t> out,
                   Fp8Overflow overflow) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp32ToFp8E4M3(in.data()[i], overflow);
}

void fp32ToFp8E5M2(Span<const float> in, Span<uint8_t> out,
                   Fp8Overflow overflow) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp32ToFp8E5M2(in.data()[i], overflow);
}

void fp8E4M3ToFp32(Span<const uint8_t> in, Span<float> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp8E4M3ToFp32(in.data()[i]);
}

void fp8E5M2ToFp32(Span<const uint8_t> in, Span<float> out) {
  assert(in.size() == out.size());
  for (size_t i = 0, e = in.size(); i != e; ++i)
    out.data()[i] = fp8E5M2ToFp32(in.data()[i]);
}

} // namespace numerics
} // namespace nnaccel
