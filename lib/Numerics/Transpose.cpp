//===- Transpose.cpp - Strided 2-D element transposes ---------------------===//
//
// See Transpose.h.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Transpose.h"

#include "X86Intrinsics.h"

#include "nnaccel/Numerics/Simd.h"

#include <algorithm>
#include <cstring>

namespace nnaccel {
namespace numerics {

namespace {

constexpr size_t kBlock = 16;

/// The element loop over rows [r0, r1) x columns [c0, c1).
template <typename T>
void transposeLoop(const uint8_t *src, size_t srcStride, uint8_t *dst,
                   size_t dstStride, size_t r0, size_t r1, size_t c0,
                   size_t c1) {
  for (size_t c = c0; c < c1; ++c) {
    uint8_t *out = dst + c * dstStride;
    for (size_t r = r0; r < r1; ++r) {
      T v;
      std::memcpy(&v, src + r * srcStride + c * sizeof(T), sizeof(T));
      std::memcpy(out + r * sizeof(T), &v, sizeof(T));
    }
  }
}

/// Every 16 x 16 block, partial ones at the edges: block(r0, c0, nr, nc)
/// moves rows [r0, r0 + nr) x columns [c0, c0 + nc).
template <typename Block>
void forEachBlock(size_t rows, size_t cols, Block block) {
  for (size_t r0 = 0; r0 < rows; r0 += kBlock)
    for (size_t c0 = 0; c0 < cols; c0 += kBlock)
      block(r0, c0, std::min(kBlock, rows - r0), std::min(kBlock, cols - c0));
}

#ifdef NNACCEL_X86_SIMD

/// The byte interleaves of a 16 x 16 block held in a[0..15] (row i in
/// a[i]); column c ends in out[c].
__attribute__((always_inline)) inline void
transposeByteRegs(__m128i (&a)[16], __m128i (&out)[16]) {
  __m128i b[16];
  for (int i = 0; i < 16; i += 2) {
    b[i] = _mm_unpacklo_epi8(a[i], a[i + 1]);
    b[i + 1] = _mm_unpackhi_epi8(a[i], a[i + 1]);
  }
  // b[2j]: columns 0-7 of rows 2j, 2j + 1 interleaved; b[2j + 1]: 8-15.
  for (int i = 0; i < 16; i += 4)
    for (int h = 0; h < 2; ++h) {
      a[i + 2 * h] = _mm_unpacklo_epi16(b[i + h], b[i + 2 + h]);
      a[i + 2 * h + 1] = _mm_unpackhi_epi16(b[i + h], b[i + 2 + h]);
    }
  // a[4j + q]: columns 4q .. 4q + 3 of rows 4j .. 4j + 3.
  for (int i = 0; i < 16; i += 8)
    for (int q = 0; q < 4; ++q) {
      b[i + 2 * q] = _mm_unpacklo_epi32(a[i + q], a[i + 4 + q]);
      b[i + 2 * q + 1] = _mm_unpackhi_epi32(a[i + q], a[i + 4 + q]);
    }
  // b[8j + e]: columns 2e, 2e + 1 of rows 8j .. 8j + 7.
  for (int e = 0; e < 8; ++e) {
    out[2 * e] = _mm_unpacklo_epi64(b[e], b[8 + e]);
    out[2 * e + 1] = _mm_unpackhi_epi64(b[e], b[8 + e]);
  }
}

/// One whole 16 x 16 byte block (SSE2, baseline x86-64).
void transposeBytes16(const uint8_t *src, size_t srcStride, uint8_t *dst,
                      size_t dstStride) {
  __m128i a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = _mm_loadu_si128(
        reinterpret_cast<const __m128i *>(src + size_t(i) * srcStride));
  __m128i out[16];
  transposeByteRegs(a, out);
  for (int c = 0; c < 16; ++c)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + size_t(c) * dstStride),
                     out[c]);
}

/// A partial byte block, nr x nc, through AVX-512 BW / VL byte masks.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
transposeBytesPartial(const uint8_t *src, size_t srcStride, uint8_t *dst,
                      size_t dstStride, size_t nr, size_t nc) {
  const __mmask16 colMask = __mmask16((1u << nc) - 1u);
  const __mmask16 rowMask = __mmask16((1u << nr) - 1u);
  __m128i a[16];
  for (size_t i = 0; i < 16; ++i)
    a[i] = i < nr ? _mm_maskz_loadu_epi8(colMask, src + i * srcStride)
                  : _mm_setzero_si128();
  __m128i out[16];
  transposeByteRegs(a, out);
  for (size_t c = 0; c < nc; ++c)
    _mm_mask_storeu_epi8(dst + c * dstStride, rowMask, out[c]);
}

bool hostHasByteMasks() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
  }();
  return has;
}

/// One 16 x 16 block of 32-bit words, nr x nc of it (AVX-512F: masked
/// loads of the columns, masked stores of the rows).
__attribute__((target("avx512f"))) void
transposeWords16(const uint8_t *src, size_t srcStride, uint8_t *dst,
                 size_t dstStride, size_t nr, size_t nc) {
  const __mmask16 colMask = __mmask16((1u << nc) - 1u);
  const __mmask16 rowMask = __mmask16((1u << nr) - 1u);
  __m512i r[16], t[16];
  for (size_t i = 0; i < 16; ++i)
    r[i] = i < nr ? _mm512_maskz_loadu_epi32(colMask, src + i * srcStride)
                  : _mm512_setzero_si512();
  for (size_t i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (size_t i = 0; i < 16; i += 4) {
    r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  // r[4h + j]: columns j, j + 4, j + 8, j + 12 of rows 4h .. 4h + 3.
  for (size_t h = 0; h < 16; h += 8)
    for (size_t j = 0; j < 4; ++j) {
      t[h + j] = _mm512_shuffle_i32x4(r[h + j], r[h + 4 + j], 0x88);
      t[h + 4 + j] = _mm512_shuffle_i32x4(r[h + j], r[h + 4 + j], 0xDD);
    }
  for (size_t j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_i32x4(t[j], t[8 + j], 0x88);
    r[8 + j] = _mm512_shuffle_i32x4(t[j], t[8 + j], 0xDD);
  }
  for (size_t c = 0; c < nc; ++c)
    _mm512_mask_storeu_epi32(dst + c * dstStride, rowMask, r[c]);
}

#endif // NNACCEL_X86_SIMD

} // namespace

bool transposeElements(const uint8_t *src, size_t srcStride, uint8_t *dst,
                       size_t dstStride, size_t rows, size_t cols,
                       unsigned elemBytes, bool vector) {
  switch (elemBytes) {
  case 1:
#ifdef NNACCEL_X86_SIMD
    if (vector) {
      const bool masks = hostHasByteMasks();
      forEachBlock(rows, cols, [&](size_t r0, size_t c0, size_t nr, size_t nc) {
        const uint8_t *in = src + r0 * srcStride + c0;
        uint8_t *out = dst + c0 * dstStride + r0;
        if (nr == kBlock && nc == kBlock)
          transposeBytes16(in, srcStride, out, dstStride);
        else if (masks)
          transposeBytesPartial(in, srcStride, out, dstStride, nr, nc);
        else
          transposeLoop<uint8_t>(src, srcStride, dst, dstStride, r0, r0 + nr,
                                 c0, c0 + nc);
      });
      return true;
    }
#endif
    transposeLoop<uint8_t>(src, srcStride, dst, dstStride, 0, rows, 0, cols);
    return true;
  case 2:
    transposeLoop<uint16_t>(src, srcStride, dst, dstStride, 0, rows, 0, cols);
    return true;
  case 4:
#ifdef NNACCEL_X86_SIMD
    if (vector && getHostSimdLevel() == SimdLevel::Avx512) {
      forEachBlock(rows, cols, [&](size_t r0, size_t c0, size_t nr, size_t nc) {
        transposeWords16(src + r0 * srcStride + c0 * 4, srcStride,
                         dst + c0 * dstStride + r0 * 4, dstStride, nr, nc);
      });
      return true;
    }
#endif
    transposeLoop<uint32_t>(src, srcStride, dst, dstStride, 0, rows, 0, cols);
    return true;
  default:
    return false;
  }
}

} // namespace numerics
} // namespace nnaccel
