//===- ElementIO.cpp - Reading and writing typed rows -------------------===//
//
// The conversions of docs/isa.md §3.1 over whole rows. Every narrowing goes
// through a lib/Numerics function (fp32ToFp16, fp32ToBf16, fp32ToFp8*,
// roundHalfEven + saturateToInt, the block encoders), so the emulator has no
// private rounding rules. Rows are processed with tight per-type loops rather
// than per-element dispatch on the type.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Emulator/ElementIO.h"

#include "nnaccel/Emulator/BlockPack.h"
#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/Float16.h"
#include "nnaccel/Numerics/Fp8.h"
#include "nnaccel/Numerics/Simd.h"

#include <cstring>
#include <limits>

namespace nnaccel::emulator {

using isa::DType;
namespace num = nnaccel::numerics;

namespace {

template <typename T> T load(const uint8_t *p, size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T> void store(uint8_t *p, size_t i, T v) {
  std::memcpy(p + i * sizeof(T), &v, sizeof(T));
}

/// Integer range of an integer storage type (i64 stores i32 values, which
/// always fit).
void intRange(DType t, int32_t &lo, int32_t &hi) {
  switch (t) {
  case DType::I16:
    lo = -32768, hi = 32767;
    return;
  case DType::I8:
    lo = -128, hi = 127;
    return;
  case DType::U8:
    lo = 0, hi = 255;
    return;
  case DType::I4:
    lo = -8, hi = 7;
    return;
  case DType::U4:
    lo = 0, hi = 15;
    return;
  default:
    lo = std::numeric_limits<int32_t>::min();
    hi = std::numeric_limits<int32_t>::max();
    return;
  }
}

/// Stores already-saturated i32 values to an integer type.
void storeInts(DType t, const int32_t *v, size_t n, uint8_t *dst) {
  switch (t) {
  case DType::I32:
    std::memcpy(dst, v, n * 4);
    return;
  case DType::I64:
    for (size_t i = 0; i < n; ++i)
      store<int64_t>(dst, i, v[i]);
    return;
  case DType::I16:
    for (size_t i = 0; i < n; ++i)
      store<int16_t>(dst, i, static_cast<int16_t>(v[i]));
    return;
  case DType::I8:
  case DType::U8:
    for (size_t i = 0; i < n; ++i)
      dst[i] = static_cast<uint8_t>(v[i]);
    return;
  case DType::I4:
  case DType::U4:
    // Element 2j in the low nibble of byte j; an odd tail leaves the high
    // nibble zero (numerics.md §2).
    for (size_t j = 0; j < (n + 1) / 2; ++j) {
      uint8_t lo = static_cast<uint8_t>(v[2 * j]) & 0xF;
      uint8_t hi = 2 * j + 1 < n ? static_cast<uint8_t>(v[2 * j + 1]) & 0xF : 0;
      dst[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
    return;
  default:
    return;
  }
}

} // namespace

void readRowF32(DType t, const uint8_t *src, size_t n, float *out) {
  switch (t) {
  case DType::F32:
    std::memcpy(out, src, n * 4);
    return;
  case DType::F16:
    for (size_t i = 0; i < n; ++i)
      out[i] = num::fp16ToFp32(load<uint16_t>(src, i));
    return;
  case DType::BF16:
    for (size_t i = 0; i < n; ++i)
      out[i] = num::bf16ToFp32(load<uint16_t>(src, i));
    return;
  case DType::FP8E4M3:
    num::fp8E4M3ToFp32({src, n}, {out, n});
    return;
  case DType::FP8E5M2:
    num::fp8E5M2ToFp32({src, n}, {out, n});
    return;
  case DType::MSFP8:
  case DType::MSFP9:
  case DType::MXINT8:
  case DType::MXFP8E4M3:
  case DType::MXFP8E5M2:
    decodeBlockRow(t, src, n, out);
    return;
  case DType::I64:
    // i64 widens to f32 directly (round to nearest even), not through i32.
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<float>(load<int64_t>(src, i));
    return;
  default: {
    // Integer types: widen exactly to i32, then one RNE conversion.
    constexpr size_t Chunk = 256;
    int32_t tmp[Chunk];
    for (size_t base = 0; base < n; base += Chunk) {
      size_t c = std::min(Chunk, n - base);
      // Sub-byte rows start on a byte; chunks are even so stay aligned.
      const uint8_t *s = isa::isSubByte(t) ? src + base / 2
                                           : src + base * isa::elementBytes(t);
      readRowI32(t, s, c, tmp);
      for (size_t i = 0; i < c; ++i)
        out[base + i] = static_cast<float>(tmp[i]);
    }
    return;
  }
  }
}

void readRowI32(DType t, const uint8_t *src, size_t n, int32_t *out) {
  switch (t) {
  case DType::I32:
    std::memcpy(out, src, n * 4);
    return;
  case DType::I64:
    for (size_t i = 0; i < n; ++i) {
      int64_t v = load<int64_t>(src, i);
      out[i] = v > std::numeric_limits<int32_t>::max()
                   ? std::numeric_limits<int32_t>::max()
               : v < std::numeric_limits<int32_t>::min()
                   ? std::numeric_limits<int32_t>::min()
                   : static_cast<int32_t>(v);
    }
    return;
  case DType::I16:
    for (size_t i = 0; i < n; ++i)
      out[i] = load<int16_t>(src, i);
    return;
  case DType::I8:
    num::widenI8Row(num::getHostSimdLevel(),
                    reinterpret_cast<const int8_t *>(src), out, n);
    return;
  case DType::U8:
    num::widenU8Row(num::getHostSimdLevel(), src, out, n);
    return;
  case DType::I4:
    for (size_t i = 0; i < n; ++i)
      out[i] = num::readPackedInt4(src, i);
    return;
  case DType::U4:
    for (size_t i = 0; i < n; ++i)
      out[i] = num::readPackedUInt4(src, i);
    return;
  default: {
    // Float domain read as integers: round half to even and saturate.
    constexpr size_t Chunk = 256;
    float tmp[Chunk];
    size_t be = isa::blockElements(t);
    for (size_t base = 0; base < n; base += Chunk) {
      size_t c = std::min(Chunk, n - base);
      // Chunk is a multiple of every block size (16, 32).
      const uint8_t *s = src + base / be * isa::blockBytes(t);
      readRowF32(t, s, c, tmp);
      for (size_t i = 0; i < c; ++i)
        out[base + i] = num::saturateToInt(num::roundHalfEven(tmp[i]),
                                           std::numeric_limits<int32_t>::min(),
                                           std::numeric_limits<int32_t>::max());
    }
    return;
  }
  }
}

void writeRowF32(DType t, const float *in, size_t n, uint8_t *dst) {
  switch (t) {
  case DType::F32:
    std::memcpy(dst, in, n * 4);
    return;
  case DType::F16:
    for (size_t i = 0; i < n; ++i)
      store<uint16_t>(dst, i, num::fp32ToFp16(in[i]));
    return;
  case DType::BF16:
    for (size_t i = 0; i < n; ++i)
      store<uint16_t>(dst, i, num::fp32ToBf16(in[i]));
    return;
  case DType::FP8E4M3:
    num::fp32ToFp8E4M3({in, n}, {dst, n}, num::Fp8Overflow::Saturate);
    return;
  case DType::FP8E5M2:
    num::fp32ToFp8E5M2({in, n}, {dst, n}, num::Fp8Overflow::NonSaturating);
    return;
  case DType::MSFP8:
  case DType::MSFP9:
  case DType::MXINT8:
  case DType::MXFP8E4M3:
  case DType::MXFP8E5M2:
    encodeBlockRow(t, in, n, dst);
    return;
  default: {
    int32_t lo, hi;
    intRange(t, lo, hi);
    constexpr size_t Chunk = 256;
    int32_t tmp[Chunk];
    for (size_t base = 0; base < n; base += Chunk) {
      size_t c = std::min(Chunk, n - base);
      for (size_t i = 0; i < c; ++i)
        tmp[i] = num::saturateToInt(num::roundHalfEven(in[base + i]), lo, hi);
      uint8_t *d = isa::isSubByte(t) ? dst + base / 2
                                     : dst + base * isa::elementBytes(t);
      storeInts(t, tmp, c, d);
    }
    return;
  }
  }
}

void writeRowI32(DType t, const int32_t *in, size_t n, uint8_t *dst) {
  if (isFloatDomain(t)) {
    constexpr size_t Chunk = 256;
    float tmp[Chunk];
    size_t be = isa::blockElements(t);
    for (size_t base = 0; base < n; base += Chunk) {
      size_t c = std::min(Chunk, n - base);
      for (size_t i = 0; i < c; ++i)
        tmp[i] = static_cast<float>(in[base + i]);
      writeRowF32(t, tmp, c, dst + base / be * isa::blockBytes(t));
    }
    return;
  }
  int32_t lo, hi;
  intRange(t, lo, hi);
  if (t == DType::I32 || t == DType::I64) {
    storeInts(t, in, n, dst);
    return;
  }
  if (t == DType::I8 || t == DType::U8) {
    num::narrowToBytesRow(num::getHostSimdLevel(), in, lo, hi, dst, n);
    return;
  }
  constexpr size_t Chunk = 256;
  int32_t tmp[Chunk];
  for (size_t base = 0; base < n; base += Chunk) {
    size_t c = std::min(Chunk, n - base);
    for (size_t i = 0; i < c; ++i)
      tmp[i] = in[base + i] < lo ? lo : in[base + i] > hi ? hi : in[base + i];
    uint8_t *d =
        isa::isSubByte(t) ? dst + base / 2 : dst + base * isa::elementBytes(t);
    storeInts(t, tmp, c, d);
  }
}

} // namespace nnaccel::emulator
