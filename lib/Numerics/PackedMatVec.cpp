//===- PackedMatVec.cpp - Matrix-vector products on repacked weights ------===//
//
// See PackedMatVec.h. The vector paths are compiled for their instruction
// set with target attributes (the library stays baseline x86-64) and only
// run when the CPU reports that set.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/PackedMatVec.h"

#include "X86Intrinsics.h"

#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/Transpose.h"

#include <cassert>
#include <cstring>

namespace nnaccel {
namespace numerics {

namespace {

/// One output of the transposed layout in dotF32's lane order.
float transposedDotScalar(const float *wT, size_t stride, size_t r, size_t k,
                          const float *x) {
  float lanes[kAccumLanes] = {};
  for (size_t i = 0; i < k; ++i) {
    float p = wT[i * stride + r] * x[i];
    lanes[i % kAccumLanes] = lanes[i % kAccumLanes] + p;
  }
  return reduceLanes(lanes);
}

/// Σ W[r][i] x[i] modulo 2^32 from the quad layout.
template <typename X>
int32_t quadsDotScalar(const int8_t *q, size_t stride, size_t r, size_t k,
                       const X *x) {
  uint32_t acc = 0;
  for (size_t i = 0; i < k; ++i)
    acc += static_cast<uint32_t>(
        static_cast<int32_t>(q[((i / 4) * stride + r) * 4 + i % 4]) *
        static_cast<int32_t>(x[i]));
  return static_cast<int32_t>(acc);
}

template <typename X>
void matVecQuadsScalar(const int8_t *q, size_t rows, size_t k, const X *x,
                       int32_t *y, bool accumulate) {
  const size_t stride = packedStride(rows);
  for (size_t r = 0; r < rows; ++r) {
    uint32_t v = static_cast<uint32_t>(quadsDotScalar(q, stride, r, k, x));
    if (accumulate)
      v += static_cast<uint32_t>(y[r]);
    y[r] = static_cast<int32_t>(v);
  }
}

#ifdef NNACCEL_X86_SIMD

/// acc[l] = acc[l] + wT[i] * x[i] for lane l = i mod 16 of the 16 outputs
/// at `col`, for the products i = base + l with l < count.
__attribute__((target("avx512f"), always_inline)) inline void
accumulateLanes(__m512 (&acc)[kAccumLanes], const float *col, size_t stride,
                const float *x, size_t base, size_t count) {
#pragma GCC unroll 16
  for (size_t l = 0; l < kAccumLanes; ++l)
    if (l < count)
      acc[l] = _mm512_add_ps(
          acc[l], _mm512_mul_ps(_mm512_loadu_ps(col + (base + l) * stride),
                                _mm512_set1_ps(x[base + l])));
}

__attribute__((target("avx512f"))) void
matVecTransposedAvx512(const float *wT, size_t rows, size_t k, const float *x,
                       float *y, bool accumulate) {
  const size_t stride = packedStride(rows);
  for (size_t r = 0; r < rows; r += kPackedBlockRows) {
    const size_t left = rows - r;
    const __mmask16 mask = left >= kPackedBlockRows
                               ? __mmask16(0xFFFF)
                               : __mmask16((1u << left) - 1u);
    __m512 acc[kAccumLanes];
#pragma GCC unroll 16
    for (size_t l = 0; l < kAccumLanes; ++l)
      acc[l] = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + kAccumLanes <= k; i += kAccumLanes)
      accumulateLanes(acc, wT + r, stride, x, i, kAccumLanes);
    if (i < k)
      accumulateLanes(acc, wT + r, stride, x, i, k - i);
    // The lane tree of reduceLanes: l + 8, l + 4, l + 2, l + 1 into l.
#pragma GCC unroll 8
    for (size_t l = 0; l < 8; ++l)
      acc[l] = _mm512_add_ps(acc[l], acc[l + 8]);
#pragma GCC unroll 4
    for (size_t l = 0; l < 4; ++l)
      acc[l] = _mm512_add_ps(acc[l], acc[l + 4]);
    acc[0] = _mm512_add_ps(acc[0], acc[2]);
    acc[1] = _mm512_add_ps(acc[1], acc[3]);
    __m512 v = _mm512_add_ps(acc[0], acc[1]);
    if (accumulate)
      v = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, y + r), v);
    _mm512_mask_storeu_ps(y + r, mask, v);
  }
}

/// x[4g .. 4g + 3] broadcast to every 32-bit lane, `flip` xor-ed in.
__attribute__((target("avx512f"), always_inline)) inline __m512i
xQuad(const uint8_t *x, size_t g, uint32_t flip) {
  uint32_t v;
  std::memcpy(&v, x + 4 * g, 4);
  return _mm512_set1_epi32(static_cast<int>(v ^ flip));
}

template <bool SignedX>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void
matVecQuadsVnni(const int8_t *q, const int32_t *rowSums, size_t rows, size_t k,
                const uint8_t *x, int32_t *y, bool accumulate) {
  const size_t stride = packedStride(rows), full = k / 4;
  // A signed x goes in as the unsigned x + 128 (its sign bit flipped); the
  // padding of the last quad meets zero weights.
  const uint32_t flip = SignedX ? 0x80808080u : 0u;
  uint32_t last = 0;
  std::memcpy(&last, x + 4 * full, k % 4);
  last ^= flip;
  for (size_t r = 0; r < rows; r += kPackedBlockRows) {
    const size_t left = rows - r;
    const __mmask16 mask = left >= kPackedBlockRows
                               ? __mmask16(0xFFFF)
                               : __mmask16((1u << left) - 1u);
    // Two chains hide vpdpbusd's latency.
    __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
    const int8_t *block = q + r * 4;
    const size_t step = stride * 4;
    size_t g = 0;
    for (; g + 2 <= full; g += 2) {
      acc0 = _mm512_dpbusd_epi32(acc0, xQuad(x, g, flip),
                                 _mm512_loadu_si512(block + g * step));
      acc1 = _mm512_dpbusd_epi32(acc1, xQuad(x, g + 1, flip),
                                 _mm512_loadu_si512(block + (g + 1) * step));
    }
    if (g < full)
      acc0 = _mm512_dpbusd_epi32(acc0, xQuad(x, g, flip),
                                 _mm512_loadu_si512(block + g * step));
    if (k % 4)
      acc1 =
          _mm512_dpbusd_epi32(acc1, _mm512_set1_epi32(static_cast<int>(last)),
                              _mm512_loadu_si512(block + full * step));
    __m512i v = _mm512_add_epi32(acc0, acc1);
    if (SignedX)
      v = _mm512_sub_epi32(
          v, _mm512_slli_epi32(_mm512_loadu_si512(rowSums + r), 7));
    if (accumulate)
      v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(mask, y + r));
    _mm512_mask_storeu_epi32(y + r, mask, v);
  }
}

#endif // NNACCEL_X86_SIMD

} // namespace

/// Zeroes columns [rows, stride) of `count` rows of `stride` 32-bit words.
static void zeroPadding(uint8_t *words, size_t count, size_t rows,
                        size_t stride) {
  for (size_t i = 0; i < count; ++i)
    std::memset(words + (i * stride + rows) * 4, 0, (stride - rows) * 4);
}

void transposeF32(const float *w, size_t rows, size_t k, float *wT) {
  const size_t stride = packedStride(rows);
  uint8_t *out = reinterpret_cast<uint8_t *>(wT);
  transposeElements(reinterpret_cast<const uint8_t *>(w), k * 4, out,
                    stride * 4, rows, k, 4);
  zeroPadding(out, k, rows, stride);
}

void packQuadsI8(const int8_t *w, size_t rows, size_t k, int8_t *q,
                 int32_t *rowSums) {
  const size_t stride = packedStride(rows), groups = (k + 3) / 4;
  for (size_t r = 0; r < rows; ++r) {
    uint32_t sum = 0;
    for (size_t i = 0; i < k; ++i)
      sum += static_cast<uint32_t>(static_cast<int32_t>(w[r * k + i]));
    rowSums[r] = static_cast<int32_t>(sum);
  }
  for (size_t r = rows; r < stride; ++r)
    rowSums[r] = 0;
  uint8_t *out = reinterpret_cast<uint8_t *>(q);
  // Whole quads are 32-bit words: the layout is their transpose.
  if (k % 4 == 0) {
    transposeElements(reinterpret_cast<const uint8_t *>(w), k, out, stride * 4,
                      rows, groups, 4);
    zeroPadding(out, groups, rows, stride);
    return;
  }
  std::memset(q, 0, stride * groups * 4);
  for (size_t r = 0; r < rows; ++r)
    for (size_t i = 0; i < k; ++i)
      q[((i / 4) * stride + r) * 4 + i % 4] = w[r * k + i];
}

void matVecTransposedF32At(SimdLevel level, const float *wT, size_t rows,
                           size_t k, const float *x, float *y,
                           bool accumulate) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return matVecTransposedAvx512(wT, rows, k, x, y, accumulate);
#endif
  const size_t stride = packedStride(rows);
  for (size_t r = 0; r < rows; ++r) {
    float v = transposedDotScalar(wT, stride, r, k, x);
    y[r] = accumulate ? y[r] + v : v;
  }
}

void matVecQuadsI8At(bool vnni, const int8_t *q, const int32_t *rowSums,
                     size_t rows, size_t k, const int8_t *x, int32_t *y,
                     bool accumulate) {
  assert((!vnni || hostHasInt8Dot()) && "the CPU lacks AVX-512 VNNI");
#ifdef NNACCEL_X86_SIMD
  if (vnni)
    return matVecQuadsVnni<true>(q, rowSums, rows, k,
                                 reinterpret_cast<const uint8_t *>(x), y,
                                 accumulate);
#endif
  (void)rowSums;
  matVecQuadsScalar(q, rows, k, x, y, accumulate);
}

void matVecQuadsI8U8At(bool vnni, const int8_t *q, size_t rows, size_t k,
                       const uint8_t *x, int32_t *y, bool accumulate) {
  assert((!vnni || hostHasInt8Dot()) && "the CPU lacks AVX-512 VNNI");
#ifdef NNACCEL_X86_SIMD
  if (vnni)
    return matVecQuadsVnni<false>(q, nullptr, rows, k, x, y, accumulate);
#endif
  matVecQuadsScalar(q, rows, k, x, y, accumulate);
}

} // namespace numerics
} // namespace nnaccel
