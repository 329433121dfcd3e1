//===- SimdKernels.cpp - AVX-512 / AVX2 paths of the f32 matVec -----------===//
//
// See Simd.h. Each function below is compiled for its instruction set with a
// target attribute (the library itself stays baseline x86-64) and is only
// called when the CPU reports that set. Rows go in blocks of four, so x is
// loaded once per block and the four rows' lanes stay in registers; the
// operand order of every multiply and add is the scalar code's (w * x,
// lane + product, lane[l] + lane[l + w]).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Simd.h"

#include "ArithDispatch.h"
#include "X86Intrinsics.h"

#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/Requantize.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <type_traits>

namespace nnaccel {
namespace numerics {

namespace {

/// The scalar reference: one dotF32 per row.
void matVecScalar(const float *w, const float *x, float *y, size_t rows,
                  size_t k, bool accumulate) {
  for (size_t r = 0; r < rows; ++r) {
    float v = dotF32({w + r * k, k}, {x, k});
    y[r] = accumulate ? y[r] + v : v;
  }
}

#ifdef NNACCEL_X86_SIMD

/// The tree t[l] + t[l + w] for w = 2, 1 over the four lanes of `s4`.
__attribute__((target("sse2"))) inline float reduce4(__m128 s4) {
  __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  __m128 s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));
  return _mm_cvtss_f32(s1);
}

/// The tree over 16 lanes held as lanes 0-7 (`lo`) and 8-15 (`hi`).
__attribute__((target("avx2"))) inline float reduce16(__m256 lo, __m256 hi) {
  __m256 s8 = _mm256_add_ps(lo, hi);
  return reduce4(
      _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1)));
}

/// The 16-lane tree of reduce16 for eight rows at once: out[b] is
/// reduce16 of acc[b]'s lanes 0-7 and 8-15 bit for bit. Each step adds the same
/// lane pairs in the same order (l and l + 8, then l and l + 4, l and l + 2, l
/// and l + 1), with the rows side by side in the registers.
__attribute__((target("avx512f"))) inline void reduce8x512(const __m512 *acc,
                                                           float *out) {
  // s8: rows (2j, 2j + 1), lanes 0-7 each.
  __m512 t[4];
  for (int j = 0; j < 4; ++j) {
    const __m512 lo = _mm512_shuffle_f32x4(acc[2 * j], acc[2 * j + 1], 0x44);
    const __m512 hi = _mm512_shuffle_f32x4(acc[2 * j], acc[2 * j + 1], 0xEE);
    t[j] = _mm512_add_ps(lo, hi);
  }
  // s4: rows 4h .. 4h + 3, lanes 0-3 each (128-bit lane r: row 4h + r).
  __m512 u[2];
  for (int h = 0; h < 2; ++h) {
    const __m512 lo = _mm512_shuffle_f32x4(t[2 * h], t[2 * h + 1], 0x88);
    const __m512 hi = _mm512_shuffle_f32x4(t[2 * h], t[2 * h + 1], 0xDD);
    u[h] = _mm512_add_ps(lo, hi);
  }
  // s2: 128-bit lane r holds rows r and 4 + r, lanes 0-1 each.
  const __m512 v = _mm512_add_ps(_mm512_shuffle_ps(u[0], u[1], 0x44),
                                 _mm512_shuffle_ps(u[0], u[1], 0xEE));
  // s1: 128-bit lane r holds rows r and 4 + r.
  const __m512 z = _mm512_add_ps(_mm512_shuffle_ps(v, v, 0x88),
                                 _mm512_shuffle_ps(v, v, 0xDD));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, z);
  for (int r = 0; r < 4; ++r) {
    out[r] = lanes[4 * r];
    out[4 + r] = lanes[4 * r + 1];
  }
}

/// Eight weight rows at a time (eight independent accumulation chains, the
/// activation chunk loaded once for all), reduced together.
__attribute__((target("avx512f"))) void matVecAvx512(const float *w,
                                                     const float *x, float *y,
                                                     size_t rows, size_t k,
                                                     bool accumulate) {
  constexpr size_t B = 8;
  const size_t full = k - k % kAccumLanes;
  const __mmask16 tail = __mmask16((1u << (k - full)) - 1u);
  for (size_t r = 0; r < rows; r += B) {
    const size_t block = rows - r < B ? rows - r : B;
    const float *row = w + r * k;
    __m512 acc[B];
    for (size_t b = 0; b < B; ++b)
      acc[b] = _mm512_setzero_ps();
    if (block == B) {
      for (size_t i = 0; i < full; i += kAccumLanes) {
        const __m512 xv = _mm512_loadu_ps(x + i);
        for (size_t b = 0; b < B; ++b)
          acc[b] = _mm512_add_ps(
              acc[b], _mm512_mul_ps(_mm512_loadu_ps(row + b * k + i), xv));
      }
    } else {
      for (size_t i = 0; i < full; i += kAccumLanes) {
        const __m512 xv = _mm512_loadu_ps(x + i);
        for (size_t b = 0; b < block; ++b)
          acc[b] = _mm512_add_ps(
              acc[b], _mm512_mul_ps(_mm512_loadu_ps(row + b * k + i), xv));
      }
    }
    if (tail) {
      const __m512 xv = _mm512_maskz_loadu_ps(tail, x + full);
      for (size_t b = 0; b < block; ++b) {
        const __m512 p =
            _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, row + b * k + full), xv);
        acc[b] = _mm512_mask_add_ps(acc[b], tail, acc[b], p);
      }
    }
    float v[B];
    reduce8x512(acc, v);
    for (size_t b = 0; b < block; ++b)
      y[r + b] = accumulate ? y[r + b] + v[b] : v[b];
  }
}

__attribute__((target("avx2"))) void matVecAvx2(const float *w, const float *x,
                                                float *y, size_t rows, size_t k,
                                                bool accumulate) {
  constexpr size_t B = 4;
  const size_t full = k - k % kAccumLanes;
  const size_t left = k - full;
  // Lanes the tail reaches: all bits set in those of lo (0-7) and hi (8-15).
  alignas(32) int32_t maskBits[kAccumLanes];
  for (size_t l = 0; l < kAccumLanes; ++l)
    maskBits[l] = l < left ? -1 : 0;
  const __m256i maskLo =
      _mm256_load_si256(reinterpret_cast<const __m256i *>(maskBits));
  const __m256i maskHi =
      _mm256_load_si256(reinterpret_cast<const __m256i *>(maskBits + 8));
  for (size_t r = 0; r < rows; r += B) {
    const size_t block = rows - r < B ? rows - r : B;
    const float *row = w + r * k;
    __m256 lo[B], hi[B];
    for (size_t b = 0; b < B; ++b)
      lo[b] = hi[b] = _mm256_setzero_ps();
    for (size_t i = 0; i < full; i += kAccumLanes) {
      const __m256 xl = _mm256_loadu_ps(x + i), xh = _mm256_loadu_ps(x + i + 8);
      for (size_t b = 0; b < block; ++b) {
        const float *wr = row + b * k + i;
        lo[b] = _mm256_add_ps(lo[b], _mm256_mul_ps(_mm256_loadu_ps(wr), xl));
        hi[b] =
            _mm256_add_ps(hi[b], _mm256_mul_ps(_mm256_loadu_ps(wr + 8), xh));
      }
    }
    if (left) {
      const __m256 xl = _mm256_maskload_ps(x + full, maskLo);
      const __m256 xh = _mm256_maskload_ps(x + full + 8, maskHi);
      for (size_t b = 0; b < block; ++b) {
        const float *wr = row + b * k + full;
        const __m256 pl = _mm256_mul_ps(_mm256_maskload_ps(wr, maskLo), xl);
        const __m256 ph = _mm256_mul_ps(_mm256_maskload_ps(wr + 8, maskHi), xh);
        // Lanes the tail does not reach keep their bits (-0 + 0 is +0).
        lo[b] = _mm256_blendv_ps(lo[b], _mm256_add_ps(lo[b], pl),
                                 _mm256_castsi256_ps(maskLo));
        hi[b] = _mm256_blendv_ps(hi[b], _mm256_add_ps(hi[b], ph),
                                 _mm256_castsi256_ps(maskHi));
      }
    }
    for (size_t b = 0; b < block; ++b) {
      const float v = reduce16(lo[b], hi[b]);
      y[r + b] = accumulate ? y[r + b] + v : v;
    }
  }
}

/// requantizeFloat on 16 lanes: float(acc) and the product round to
/// nearest even like the scalar conversions, roundscale rounds half to even
/// (NaN stays NaN), then the scalar saturation in its order: NaN first,
/// then at or below the low bound, then at or above the high one.
/// The same for f32 inputs (already float: no conversion).
template <typename In>
__attribute__((target("avx512f"))) void
requantizeRowAvx512(const In *acc, const float *scales, bool perChannel,
                    int32_t zeroPoint, QuantRange range, int32_t *out,
                    size_t n) {
  const int32_t lo = range.min - zeroPoint, hi = range.max - zeroPoint;
  const int32_t ifNan = 0 < lo ? lo : (0 > hi ? hi : 0);
  const __m512 loF = _mm512_set1_ps(static_cast<float>(lo));
  const __m512 hiF = _mm512_set1_ps(static_cast<float>(hi));
  const __m512i loI = _mm512_set1_epi32(lo), hiI = _mm512_set1_epi32(hi);
  const __m512i nanI = _mm512_set1_epi32(ifNan);
  const __m512i zp = _mm512_set1_epi32(zeroPoint);
  const __m512 scalar = _mm512_set1_ps(scales[0]);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1u);
    __m512 a;
    if constexpr (std::is_same_v<In, float>)
      a = _mm512_maskz_loadu_ps(m, acc + i);
    else
      a = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(m, acc + i));
    const __m512 s = perChannel ? _mm512_maskz_loadu_ps(m, scales + i) : scalar;
    const __m512 r = _mm512_roundscale_ps(
        _mm512_mul_ps(a, s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512i q = _mm512_cvttps_epi32(r);
    q = _mm512_mask_mov_epi32(q, _mm512_cmp_ps_mask(r, hiF, _CMP_GE_OQ), hiI);
    q = _mm512_mask_mov_epi32(q, _mm512_cmp_ps_mask(r, loF, _CMP_LE_OQ), loI);
    q = _mm512_mask_mov_epi32(q, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), nanI);
    _mm512_mask_storeu_epi32(out + i, m, _mm512_add_epi32(q, zp));
  }
}

/// dequantizeRow on 16 lanes: cvtepi32_ps rounds to nearest even like the
/// scalar conversion, then one product.
__attribute__((target("avx512f"))) void
dequantizeRowAvx512(const int32_t *q, const float *scales, bool perChannel,
                    float *out, size_t n) {
  const __m512 scalar = _mm512_set1_ps(scales[0]);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1u);
    const __m512 a = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(m, q + i));
    const __m512 s = perChannel ? _mm512_maskz_loadu_ps(m, scales + i) : scalar;
    _mm512_mask_storeu_ps(out + i, m, _mm512_mul_ps(a, s));
  }
}

/// expF32 on 16 lanes: n = roundHalfEven(x log2e), the two-step
/// reduction, the same Horner steps, ldexp as vscalefps (one rounding, as
/// ldexp rounds a subnormal result once); NaN lanes keep x, the clamped
/// ones take inf / 0 like the scalar early returns.
__attribute__((target("avx512f"))) inline __m512 expAvx512(__m512 x) {
  const __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r =
      _mm512_sub_ps(x, _mm512_mul_ps(n, _mm512_set1_ps(0.693145751953125f)));
  r = _mm512_sub_ps(r,
                    _mm512_mul_ps(n, _mm512_set1_ps(1.42860682030941723e-6f)));
  __m512 p = _mm512_set1_ps(1.98412698e-4f);
  for (float c : {1.38888889e-3f, 8.33333333e-3f, 4.16666667e-2f,
                  1.66666667e-1f, 0.5f, 1.0f, 1.0f})
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(c));
  __m512 y = _mm512_scalef_ps(p, n);
  y = _mm512_mask_mov_ps(
      y, _mm512_cmp_ps_mask(x, _mm512_set1_ps(88.72283935546875f), _CMP_GT_OQ),
      _mm512_set1_ps(std::numeric_limits<float>::infinity()));
  y = _mm512_mask_mov_ps(
      y, _mm512_cmp_ps_mask(x, _mm512_set1_ps(-103.972084f), _CMP_LT_OQ),
      _mm512_setzero_ps());
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

/// 1 / (1 + exp(-x)); NaN lanes keep x.
__attribute__((target("avx512f"))) inline __m512 sigmoidAvx512(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 e = expAvx512(_mm512_sub_ps(_mm512_setzero_ps(), x));
  const __m512 y = _mm512_div_ps(one, _mm512_add_ps(one, e));
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

/// |v| with the sign bit of `x` (copysign).
__attribute__((target("avx512f"))) inline __m512 copySign(__m512 v, __m512 x) {
  const __m512i signBit = _mm512_set1_epi32(int32_t(0x80000000u));
  return _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_andnot_si512(signBit, _mm512_castps_si512(v)),
                      _mm512_and_si512(signBit, _mm512_castps_si512(x))));
}

/// tanhF32's three ranges computed on every lane and blended: the Taylor
/// series below 0.25, 1 - 2 / (exp(2|x|) + 1) with x's sign up to 9, then
/// +-1; NaN and zeros keep x.
__attribute__((target("avx512f"))) inline __m512 tanhAvx512(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 a = _mm512_abs_ps(x);
  const __m512 t = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(2.18694885e-2f);
  for (float c : {-5.39682540e-2f, 1.33333333e-1f, -3.33333333e-1f})
    p = _mm512_add_ps(_mm512_mul_ps(p, t), _mm512_set1_ps(c));
  const __m512 small = _mm512_add_ps(x, _mm512_mul_ps(x, _mm512_mul_ps(t, p)));
  const __m512 e = expAvx512(_mm512_mul_ps(_mm512_set1_ps(2.0f), a));
  const __m512 mid =
      copySign(_mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f),
                                                _mm512_add_ps(e, one))),
               x);
  __m512 y = mid;
  y = _mm512_mask_mov_ps(
      y, _mm512_cmp_ps_mask(a, _mm512_set1_ps(0.25f), _CMP_LT_OQ), small);
  y = _mm512_mask_mov_ps(
      y, _mm512_cmp_ps_mask(a, _mm512_set1_ps(9.0f), _CMP_GE_OQ),
      copySign(one, x));
  const __mmask16 keep = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) |
                         _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ);
  return _mm512_mask_mov_ps(y, keep, x);
}

/// maxF32 / minF32 on 16 lanes: the larger (smaller) one; of equal ones a
/// for max unless a is -0, a for min if a is -0 (so +0 wins max, -0 min);
/// the canonical quiet NaN if either is NaN.
template <ArithOp Op>
__attribute__((target("avx512f"))) inline __m512 arithAvx512(__m512 a,
                                                             __m512 b) {
  if constexpr (Op == ArithOp::Add)
    return _mm512_add_ps(a, b);
  else if constexpr (Op == ArithOp::Sub)
    return _mm512_sub_ps(a, b);
  else if constexpr (Op == ArithOp::Mul)
    return _mm512_mul_ps(a, b);
  else {
    const __mmask16 signA = _mm512_test_epi32_mask(
        _mm512_castps_si512(a), _mm512_set1_epi32(int32_t(0x80000000u)));
    const __mmask16 eq = _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
    __m512 r;
    if constexpr (Op == ArithOp::Max)
      r = _mm512_mask_mov_ps(
          b, _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ) | (eq & __mmask16(~signA)),
          a);
    else
      r = _mm512_mask_mov_ps(
          b, _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ) | (eq & signA), a);
    return _mm512_mask_mov_ps(
        r, _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q),
        _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN()));
  }
}

template <ArithOp Op>
__attribute__((target("avx512f"))) void
arithRowAvx512(const float *a, const float *b, bool bScalar, float *out,
               size_t n) {
  const __m512 bs = _mm512_set1_ps(bScalar ? b[0] : 0.0f);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1u);
    const __m512 vb = bScalar ? bs : _mm512_maskz_loadu_ps(m, b + i);
    _mm512_mask_storeu_ps(out + i, m,
                          arithAvx512<Op>(_mm512_maskz_loadu_ps(m, a + i), vb));
  }
}

template <ArithOp Op>
__attribute__((target("avx512f"))) void
arithBlockAvx512(const float *a, size_t aPitch, const float *b, size_t bPitch,
                 BLayout bLayout, float *out, size_t outPitch, size_t rows,
                 size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    const float *ar = a + r * aPitch;
    float *outr = out + r * outPitch;
    const float *br = bLayout == BLayout::Rows ? b + r * bPitch : b;
    const bool one = bLayout == BLayout::PerRow || bLayout == BLayout::Scalar;
    const __m512 bs =
        _mm512_set1_ps(bLayout == BLayout::PerRow ? b[r * bPitch] : b[0]);
    for (size_t i = 0; i < cols; i += 16) {
      const __mmask16 m = cols - i >= 16 ? __mmask16(0xFFFF)
                                         : __mmask16((1u << (cols - i)) - 1u);
      const __m512 vb = one ? bs : _mm512_maskz_loadu_ps(m, br + i);
      _mm512_mask_storeu_ps(
          outr + i, m, arithAvx512<Op>(_mm512_maskz_loadu_ps(m, ar + i), vb));
    }
  }
}

/// reduceSumF32's 16 lanes (lane i % 16 accumulates x[i] in order, a tail
/// only the lanes it reaches) and its tree.
__attribute__((target("avx512f"))) float reduceSumAvx512(const float *x,
                                                         size_t n) {
  __m512 acc = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    acc = _mm512_add_ps(acc, _mm512_loadu_ps(x + i));
  if (i < n) {
    const __mmask16 m = __mmask16((1u << (n - i)) - 1u);
    acc = _mm512_mask_add_ps(acc, m, acc, _mm512_maskz_loadu_ps(m, x + i));
  }
  return reduce16(_mm512_castps512_ps256(acc),
                  _mm512_castps512_ps256(_mm512_shuffle_f32x4(acc, acc, 0xEE)));
}

/// The maximum / minimum of maxF32 / minF32 over x[0, n): those are
/// associative and commutative (NaN absorbs, -0 orders below +0), so 16
/// lanes and a tree give the sequential result.
template <ArithOp Op>
__attribute__((target("avx512f"))) float reduceExtremumAvx512(const float *x,
                                                              size_t n) {
  const float start = Op == ArithOp::Max
                          ? -std::numeric_limits<float>::infinity()
                          : std::numeric_limits<float>::infinity();
  __m512 acc = _mm512_set1_ps(start);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1u);
    acc = arithAvx512<Op>(acc, _mm512_mask_loadu_ps(acc, m, x + i));
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, acc);
  float r = lanes[0];
  for (int l = 1; l < 16; ++l)
    r = Op == ArithOp::Max ? maxF32(r, lanes[l]) : minF32(r, lanes[l]);
  return r;
}

/// F over x[0, n) 16 lanes at a time (masked tail).
template <__m512 (*F)(__m512)>
__attribute__((target("avx512f"))) void mapAvx512(const float *x, float *out,
                                                  size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(out + i, m, F(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

/// y[r] (+)= sum_i w[r][i] * x[i] on vpdpbusd (u8 x i8, four products a
/// lane). Signed activations are biased to unsigned (x + 128) and the bias
/// is taken back as 128 * sum_i w[r][i], which a second vpdpbusd by ones
/// computes; everything wraps modulo 2^32 like the scalar sums. Masked
/// loads zero a chunk's missing bytes, whose products are then 0.
/// The mask of chunk c's bytes (64, fewer in the last chunk).
inline __mmask64 chunkMask(size_t k, size_t c) {
  const size_t n = std::min<size_t>(64, k - c * 64);
  return n == 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1;
}

/// Chunk c of x (zero beyond k), biased to unsigned when signed.
template <bool SignedX>
__attribute__((target("avx512f,avx512bw"))) inline __m512i
loadActivations(const uint8_t *x, size_t k, size_t c) {
  __m512i v = _mm512_maskz_loadu_epi8(chunkMask(k, c), x + c * 64);
  if (SignedX)
    v = _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(0x80)));
  return v;
}

template <bool SignedX>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void
matVecInt8Vnni(const int8_t *w, const uint8_t *x, int32_t *y, size_t rows,
               size_t k, bool accumulate) {
  const __m512i ones = _mm512_set1_epi8(1);
  const size_t chunks = (k + 63) / 64;
  // Up to four chunks of x stay in registers.
  __m512i xs[4];
  for (size_t c = 0; c < chunks && c < 4; ++c)
    xs[c] = loadActivations<SignedX>(x, k, c);
  for (size_t r = 0; r < rows; ++r) {
    const int8_t *row = w + r * k;
    __m512i acc = _mm512_setzero_si512(), sum = _mm512_setzero_si512();
    for (size_t c = 0; c < chunks; ++c) {
      const __m512i wv = _mm512_maskz_loadu_epi8(chunkMask(k, c), row + c * 64);
      const __m512i xv = c < 4 ? xs[c] : loadActivations<SignedX>(x, k, c);
      acc = _mm512_dpbusd_epi32(acc, xv, wv);
      if (SignedX)
        sum = _mm512_dpbusd_epi32(sum, ones, wv);
    }
    uint32_t v = static_cast<uint32_t>(_mm512_reduce_add_epi32(acc));
    if (SignedX)
      v -= 128u * static_cast<uint32_t>(_mm512_reduce_add_epi32(sum));
    if (accumulate)
      v += static_cast<uint32_t>(y[r]);
    y[r] = static_cast<int32_t>(v);
  }
}

#endif // NNACCEL_X86_SIMD

bool detectInt8Dot() {
#ifdef NNACCEL_X86_SIMD
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

SimdLevel detectSimdLevel() {
#ifdef NNACCEL_X86_SIMD
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return SimdLevel::Avx512;
  if (__builtin_cpu_supports("avx2"))
    return SimdLevel::Avx2;
#endif
  return SimdLevel::Scalar;
}

} // namespace

SimdLevel getHostSimdLevel() {
  static const SimdLevel level = detectSimdLevel();
  return level;
}

bool hostHasInt8Dot() {
  static const bool has = detectInt8Dot();
  return has;
}

void matVecI8At(bool vnni, Span<const int8_t> w, Span<const int8_t> x,
                Span<int32_t> y, bool accumulate) {
  assert(w.size() == y.size() * x.size());
  assert((!vnni || hostHasInt8Dot()) && "the CPU lacks AVX-512 VNNI");
#ifdef NNACCEL_X86_SIMD
  if (vnni && x.size())
    return matVecInt8Vnni<true>(w.data(),
                                reinterpret_cast<const uint8_t *>(x.data()),
                                y.data(), y.size(), x.size(), accumulate);
#endif
  matVecI8Scalar(w, x, y, accumulate);
}

void matVecI8U8At(bool vnni, Span<const int8_t> w, Span<const uint8_t> x,
                  Span<int32_t> y, bool accumulate) {
  assert(w.size() == y.size() * x.size());
  assert((!vnni || hostHasInt8Dot()) && "the CPU lacks AVX-512 VNNI");
#ifdef NNACCEL_X86_SIMD
  if (vnni && x.size())
    return matVecInt8Vnni<false>(w.data(), x.data(), y.data(), y.size(),
                                 x.size(), accumulate);
#endif
  matVecI8U8Scalar(w, x, y, accumulate);
}

void matVecF32At(SimdLevel level, Span<const float> w, Span<const float> x,
                 Span<float> y, bool accumulate) {
  const size_t k = x.size(), rows = y.size();
  assert(w.size() == rows * k);
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512 && k)
    return matVecAvx512(w.data(), x.data(), y.data(), rows, k, accumulate);
  if (level == SimdLevel::Avx2 && k)
    return matVecAvx2(w.data(), x.data(), y.data(), rows, k, accumulate);
#endif
  matVecScalar(w.data(), x.data(), y.data(), rows, k, accumulate);
}

void requantizeFloatRow(SimdLevel level, const int32_t *acc,
                        const float *scales, bool perChannel, int32_t zeroPoint,
                        QuantRange range, int32_t *out, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return requantizeRowAvx512(acc, scales, perChannel, zeroPoint, range, out,
                               n);
#endif
  for (size_t i = 0; i < n; ++i)
    out[i] =
        requantizeFloat(acc[i], scales[perChannel ? i : 0], zeroPoint, range);
}

void requantizeScaledRow(SimdLevel level, const float *x, const float *scales,
                         bool perChannel, int32_t zeroPoint, QuantRange range,
                         int32_t *out, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return requantizeRowAvx512(x, scales, perChannel, zeroPoint, range, out, n);
#endif
  for (size_t i = 0; i < n; ++i)
    out[i] =
        requantizeScaled(x[i] * scales[perChannel ? i : 0], zeroPoint, range);
}

void arithF32Row(SimdLevel level, ArithOp op, const float *a, const float *b,
                 bool bScalar, float *out, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512) {
    return withArithOp(op, [&](auto k) {
      arithRowAvx512<decltype(k)::value>(a, b, bScalar, out, n);
    });
  }
#endif
  auto apply = [&](auto f) {
    if (bScalar) {
      const float v = b[0];
      for (size_t i = 0; i < n; ++i)
        out[i] = f(a[i], v);
    } else {
      for (size_t i = 0; i < n; ++i)
        out[i] = f(a[i], b[i]);
    }
  };
  switch (op) {
  case ArithOp::Add:
    return apply([](float x, float y) { return x + y; });
  case ArithOp::Sub:
    return apply([](float x, float y) { return x - y; });
  case ArithOp::Mul:
    return apply([](float x, float y) { return x * y; });
  case ArithOp::Max:
    return apply([](float x, float y) { return maxF32(x, y); });
  case ArithOp::Min:
    return apply([](float x, float y) { return minF32(x, y); });
  }
}

void arithF32Block(SimdLevel level, ArithOp op, const float *a, size_t aPitch,
                   const float *b, size_t bPitch, BLayout bLayout, float *out,
                   size_t outPitch, size_t rows, size_t cols) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512) {
    return withArithOp(op, [&](auto k) {
      arithBlockAvx512<decltype(k)::value>(a, aPitch, b, bPitch, bLayout, out,
                                           outPitch, rows, cols);
    });
  }
#endif
  for (size_t r = 0; r < rows; ++r) {
    const bool one = bLayout == BLayout::PerRow || bLayout == BLayout::Scalar;
    const float *br = bLayout == BLayout::Rows     ? b + r * bPitch
                      : bLayout == BLayout::PerRow ? b + r * bPitch
                                                   : b;
    arithF32Row(level, op, a + r * aPitch, br, one, out + r * outPitch, cols);
  }
}

float reduceSumF32Row(SimdLevel level, const float *x, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return reduceSumAvx512(x, n);
#endif
  float lanes[kAccumLanes] = {};
  for (size_t i = 0; i < n; ++i)
    lanes[i % kAccumLanes] = lanes[i % kAccumLanes] + x[i];
  return reduceLanes(lanes);
}

namespace {
/// reduceMaxF32Row / reduceMinF32Row: the scalar fold from -inf / +inf, or
/// the AVX-512 lanes and tree.
template <ArithOp Op>
float reduceExtremumRow(SimdLevel level, const float *x, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return reduceExtremumAvx512<Op>(x, n);
#endif
  float m = Op == ArithOp::Max ? -std::numeric_limits<float>::infinity()
                               : std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i)
    m = Op == ArithOp::Max ? maxF32(m, x[i]) : minF32(m, x[i]);
  return m;
}
} // namespace

float reduceMaxF32Row(SimdLevel level, const float *x, size_t n) {
  return reduceExtremumRow<ArithOp::Max>(level, x, n);
}

float reduceMinF32Row(SimdLevel level, const float *x, size_t n) {
  return reduceExtremumRow<ArithOp::Min>(level, x, n);
}

namespace {
/// out[i] = scalar(x[i]) for i < n, through `avx512` (16 lanes at a time,
/// null without x86 SIMD) at that level.
using RowKernel = void (*)(const float *, float *, size_t);
void unaryRow(SimdLevel level, const float *x, float *out, size_t n,
              float (*scalar)(float), RowKernel avx512) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
  if (level == SimdLevel::Avx512 && avx512)
    return avx512(x, out, n);
  for (size_t i = 0; i < n; ++i)
    out[i] = scalar(x[i]);
}
#ifdef NNACCEL_X86_SIMD
constexpr RowKernel kExpAvx512 = mapAvx512<expAvx512>;
constexpr RowKernel kSigmoidAvx512 = mapAvx512<sigmoidAvx512>;
constexpr RowKernel kTanhAvx512 = mapAvx512<tanhAvx512>;
#else
constexpr RowKernel kExpAvx512 = nullptr, kSigmoidAvx512 = nullptr,
                    kTanhAvx512 = nullptr;
#endif
} // namespace

void expF32Row(SimdLevel level, const float *x, float *out, size_t n) {
  unaryRow(level, x, out, n, static_cast<float (*)(float)>(expF32), kExpAvx512);
}

void sigmoidF32Row(SimdLevel level, const float *x, float *out, size_t n) {
  unaryRow(level, x, out, n, static_cast<float (*)(float)>(sigmoidF32),
           kSigmoidAvx512);
}

void tanhF32Row(SimdLevel level, const float *x, float *out, size_t n) {
  unaryRow(level, x, out, n, static_cast<float (*)(float)>(tanhF32),
           kTanhAvx512);
}

void dequantizeRow(SimdLevel level, const int32_t *q, const float *scales,
                   bool perChannel, float *out, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return dequantizeRowAvx512(q, scales, perChannel, out, n);
#endif
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<float>(q[i]) * scales[perChannel ? i : 0];
}

} // namespace numerics
} // namespace nnaccel
