//===- Mx.cpp - OCP Microscaling (MX v1.0) formats ------------------------===//
//
// MX block encode/decode. The element rounding reuses the fp8 conversions
// (saturating mode) so that MXFP8 elements and standalone fp8 tensors can
// never disagree; MXINT8 rounds with the shared roundHalfEven.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Mx.h"

#include "nnaccel/Numerics/Fp8.h"

#include <algorithm>

namespace nnaccel {
namespace numerics {

int mxElemEmax(MxElemType t) {
  switch (t) {
  case MxElemType::Int8:
    return 0;
  case MxElemType::Fp8E4M3:
    return 8;
  case MxElemType::Fp8E5M2:
    return 15;
  }
  return 0;
}

float e8m0ToFp32(uint8_t bits) {
  if (bits == kE8M0NaN)
    return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(bits) - kE8M0Bias);
}

float decodeMxElement(MxElemType t, uint8_t code) {
  switch (t) {
  case MxElemType::Int8:
    return std::ldexp(static_cast<float>(static_cast<int8_t>(code)), -6);
  case MxElemType::Fp8E4M3:
    return fp8E4M3ToFp32(code);
  case MxElemType::Fp8E5M2:
    return fp8E5M2ToFp32(code);
  }
  return 0.0f;
}

namespace {

/// Element code for an already scaled value (finite).
inline uint8_t encodeElement(MxElemType t, float scaled) {
  switch (t) {
  case MxElemType::Int8: {
    float r = roundHalfEven(std::ldexp(scaled, 6));
    // Symmetric saturation: -128 (-2.0) is left unused, as in the spec's
    // reference, so negation never overflows.
    return static_cast<uint8_t>(
        static_cast<int8_t>(saturateToInt(r, -127, 127)));
  }
  case MxElemType::Fp8E4M3:
    return fp32ToFp8E4M3(scaled, Fp8Overflow::Saturate);
  case MxElemType::Fp8E5M2:
    return fp32ToFp8E5M2(scaled, Fp8Overflow::Saturate);
  }
  return 0;
}

} // namespace

uint8_t encodeMxBlock(MxElemType t, Span<const float> block,
                      Span<uint8_t> elems) {
  assert(!block.empty() && block.size() <= kMxBlockSize);
  assert(block.size() == elems.size());
  float maxAbs = 0.0f;
  for (float v : block) {
    if (!std::isfinite(v)) {
      std::fill(elems.begin(), elems.end(), 0);
      return kE8M0NaN;
    }
    maxAbs = std::max(maxAbs, std::fabs(v));
  }
  int x;
  if (maxAbs == 0.0f) {
    x = -kE8M0Bias;
  } else {
    x = floorLog2(maxAbs) - mxElemEmax(t);
    x = std::max(-kE8M0Bias, std::min(kE8M0Bias, x));
  }
  for (size_t i = 0, n = block.size(); i != n; ++i) {
    // v * 2^-X is exact unless it lands in the fp32 subnormal range, where
    // it is far below half the smallest element subnormal and rounds to 0
    // (with its sign) either way.
    float scaled = std::ldexp(block.data()[i], -x);
    elems.data()[i] = encodeElement(t, scaled);
  }
  return static_cast<uint8_t>(x + kE8M0Bias);
}

void decodeMxBlock(MxElemType t, uint8_t scale, Span<const uint8_t> elems,
                   Span<float> out) {
  assert(elems.size() == out.size() && elems.size() <= kMxBlockSize);
  if (scale == kE8M0NaN) {
    std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
    return;
  }
  int x = static_cast<int>(scale) - kE8M0Bias;
  for (size_t i = 0, n = elems.size(); i != n; ++i)
    out.data()[i] = std::ldexp(decodeMxElement(t, elems.data()[i]), x);
}

void encodeMx(MxElemType t, Span<const float> x, Span<uint8_t> scales,
              Span<uint8_t> elems) {
  assert(elems.size() == x.size() && scales.size() == mxNumBlocks(x.size()));
  for (size_t b = 0, nb = scales.size(); b != nb; ++b) {
    size_t begin = b * kMxBlockSize;
    size_t len = std::min(kMxBlockSize, x.size() - begin);
    scales.data()[b] =
        encodeMxBlock(t, x.subspan(begin, len), elems.subspan(begin, len));
  }
}

void decodeMx(MxElemType t, Span<const uint8_t> scales,
              Span<const uint8_t> elems, Span<float> out) {
  assert(elems.size() == out.size() &&
         scales.size() == mxNumBlocks(out.size()));
  for (size_t b = 0, nb = scales.size(); b != nb; ++b) {
    size_t begin = b * kMxBlockSize;
    size_t len = std::min(kMxBlockSize, out.size() - begin);
    decodeMxBlock(t, scales.data()[b], elems.subspan(begin, len),
                  out.subspan(begin, len));
  }
}

void fakeQuantMx(MxElemType t, Span<const float> x, Span<float> out) {
  assert(x.size() == out.size());
  uint8_t codes[kMxBlockSize];
  for (size_t begin = 0; begin < x.size(); begin += kMxBlockSize) {
    size_t len = std::min(kMxBlockSize, x.size() - begin);
    Span<uint8_t> c(codes, len);
    uint8_t s = encodeMxBlock(t, x.subspan(begin, len), c);
    decodeMxBlock(t, s, c, out.subspan(begin, len));
  }
}

float mxInt8Dot(Span<const uint8_t> scalesA, Span<const uint8_t> elemsA,
                Span<const uint8_t> scalesB, Span<const uint8_t> elemsB) {
  size_t n = elemsA.size();
  assert(elemsB.size() == n && scalesA.size() == mxNumBlocks(n) &&
         scalesB.size() == scalesA.size());
  float acc = 0.0f;
  for (size_t blk = 0, nb = scalesA.size(); blk != nb; ++blk) {
    size_t begin = blk * kMxBlockSize, end = std::min(n, begin + kMxBlockSize);
    uint8_t sa = scalesA.data()[blk], sb = scalesB.data()[blk];
    float v;
    if (sa == kE8M0NaN || sb == kE8M0NaN) {
      v = std::numeric_limits<float>::quiet_NaN();
    } else {
      // |p| <= 32 * 128 * 128 = 2^19: exact in int32 and in fp32.
      int32_t p = 0;
      for (size_t i = begin; i < end; ++i)
        p += static_cast<int32_t>(static_cast<int8_t>(elemsA.data()[i])) *
             static_cast<int32_t>(static_cast<int8_t>(elemsB.data()[i]));
      int e = (static_cast<int>(sa) - kE8M0Bias - 6) +
              (static_cast<int>(sb) - kE8M0Bias - 6);
      v = std::ldexp(static_cast<float>(p), e);
    }
    acc = acc + v;
  }
  return acc;
}

namespace {

__extension__ typedef __int128 Int128;

/// Smallest subnormal exponent of an MXFP8 element type: every finite code is
/// an integer multiple of 2^-minExp.
int mxFp8MinExp(MxElemType t) { return t == MxElemType::Fp8E4M3 ? 9 : 16; }

/// Integer value of every code in units of 2^-minExp (exact: E4M3 codes are
/// at most 448 * 2^9 < 2^18, E5M2 57344 * 2^16 < 2^32); NaN and infinite
/// codes are flagged.
struct Fp8Units {
  int64_t units[256];
  bool special[256];
  explicit Fp8Units(MxElemType t) {
    for (unsigned c = 0; c < 256; ++c) {
      float v = decodeMxElement(t, static_cast<uint8_t>(c));
      special[c] = !std::isfinite(v);
      units[c] =
          special[c] ? 0 : static_cast<int64_t>(std::ldexp(v, mxFp8MinExp(t)));
    }
  }
};

const Fp8Units &fp8Units(MxElemType t) {
  static const Fp8Units e4m3(MxElemType::Fp8E4M3), e5m2(MxElemType::Fp8E5M2);
  return t == MxElemType::Fp8E4M3 ? e4m3 : e5m2;
}

} // namespace

float mxFp8Dot(MxElemType t, Span<const uint8_t> scalesA,
               Span<const uint8_t> elemsA, Span<const uint8_t> scalesB,
               Span<const uint8_t> elemsB) {
  assert(t == MxElemType::Fp8E4M3 || t == MxElemType::Fp8E5M2);
  size_t n = elemsA.size();
  assert(elemsB.size() == n && scalesA.size() == mxNumBlocks(n) &&
         scalesB.size() == scalesA.size());
  const int minExp = mxFp8MinExp(t);
  const Fp8Units &tab = fp8Units(t);
  const int64_t *units = tab.units;
  const bool *special = tab.special;
  float acc = 0.0f;
  for (size_t blk = 0, nb = scalesA.size(); blk != nb; ++blk) {
    size_t begin = blk * kMxBlockSize, end = std::min(n, begin + kMxBlockSize);
    uint8_t sa = scalesA.data()[blk], sb = scalesB.data()[blk];
    bool nan = sa == kE8M0NaN || sb == kE8M0NaN;
    // |p| <= 32 * 2^32 * 2^32 = 2^69 for E5M2: exact in 128 bits.
    Int128 p = 0;
    for (size_t i = begin; i < end && !nan; ++i) {
      uint8_t ca = elemsA.data()[i], cb = elemsB.data()[i];
      if (special[ca] || special[cb])
        nan = true;
      else
        p += static_cast<Int128>(units[ca]) * units[cb];
    }
    float v;
    if (nan) {
      v = std::numeric_limits<float>::quiet_NaN();
    } else {
      int e = (static_cast<int>(sa) - kE8M0Bias) +
              (static_cast<int>(sb) - kE8M0Bias) - 2 * minExp;
      // Int128 -> float is one round-to-nearest-even; the scaling by 2^e
      // (e >= -290) is exact in double, so the final conversion rounds only
      // when the result is an fp32 subnormal or overflows.
      float pf = static_cast<float>(p);
      v = static_cast<float>(std::ldexp(static_cast<double>(pf), e));
    }
    acc = acc + v;
  }
  return acc;
}

} // namespace numerics
} // namespace nnaccel
