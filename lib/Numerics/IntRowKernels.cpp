//===- IntRowKernels.cpp - int32 element-wise rows, scalar and AVX-512 ----===//
//
// See Simd.h: the integer-domain vector operations of the emulator's
// quantised kernels. Integer arithmetic is exact (wrapping) in any order,
// so every level gives the same bits by construction; the tests compare
// them anyway. The AVX-512 paths are compiled with target attributes and
// only called when the CPU has AVX-512F.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Simd.h"

#include "ArithDispatch.h"
#include "X86Intrinsics.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace nnaccel {
namespace numerics {

namespace {

int32_t wrapping(ArithOp op, int32_t a, int32_t b) {
  const uint32_t x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
  switch (op) {
  case ArithOp::Add:
    return static_cast<int32_t>(x + y);
  case ArithOp::Sub:
    return static_cast<int32_t>(x - y);
  case ArithOp::Mul:
    return static_cast<int32_t>(x * y);
  case ArithOp::Max:
    return std::max(a, b);
  case ArithOp::Min:
    return std::min(a, b);
  }
  return 0;
}

inline size_t elemBytes(IntElem t) { return t == IntElem::I32 ? 4 : 1; }

int32_t loadScalar(const uint8_t *p, IntElem t, size_t i) {
  switch (t) {
  case IntElem::I8:
    return static_cast<int8_t>(p[i]);
  case IntElem::U8:
    return p[i];
  case IntElem::I32: {
    int32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  }
  return 0;
}

#ifdef NNACCEL_X86_SIMD

inline __mmask16 tailMask(size_t n, size_t i) {
  return n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1u);
}

template <ArithOp Op>
__attribute__((target("avx512f"), always_inline)) inline __m512i
arithI32Avx512(__m512i a, __m512i b) {
  if constexpr (Op == ArithOp::Add)
    return _mm512_add_epi32(a, b);
  else if constexpr (Op == ArithOp::Sub)
    return _mm512_sub_epi32(a, b);
  else if constexpr (Op == ArithOp::Mul)
    return _mm512_mullo_epi32(a, b);
  else if constexpr (Op == ArithOp::Max)
    return _mm512_max_epi32(a, b);
  else
    return _mm512_min_epi32(a, b);
}

template <ArithOp Op>
__attribute__((target("avx512f"))) void
arithI32RowAvx512(const int32_t *a, const int32_t *b, bool bScalar,
                  int32_t *out, size_t n) {
  const __m512i bs = _mm512_set1_epi32(bScalar ? b[0] : 0);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tailMask(n, i);
    const __m512i vb = bScalar ? bs : _mm512_maskz_loadu_epi32(m, b + i);
    _mm512_mask_storeu_epi32(
        out + i, m, arithI32Avx512<Op>(_mm512_maskz_loadu_epi32(m, a + i), vb));
  }
}

template <ArithOp Op>
__attribute__((target("avx512f"))) void
arithI32BlockAvx512(const int32_t *a, size_t aPitch, const int32_t *b,
                    size_t bPitch, BLayout bLayout, int32_t *out,
                    size_t outPitch, size_t rows, size_t cols) {
  const bool one = bLayout == BLayout::PerRow || bLayout == BLayout::Scalar;
  for (size_t r = 0; r < rows; ++r) {
    const int32_t *ar = a + r * aPitch;
    int32_t *outr = out + r * outPitch;
    const int32_t *br = bLayout == BLayout::Rows ? b + r * bPitch : b;
    const __m512i bs =
        _mm512_set1_epi32(bLayout == BLayout::PerRow ? b[r * bPitch] : b[0]);
    for (size_t i = 0; i < cols; i += 16) {
      const __mmask16 m = tailMask(cols, i);
      const __m512i vb = one ? bs : _mm512_maskz_loadu_epi32(m, br + i);
      _mm512_mask_storeu_epi32(
          outr + i, m,
          arithI32Avx512<Op>(_mm512_maskz_loadu_epi32(m, ar + i), vb));
    }
  }
}

/// 16 elements of type `t` from `p` (n <= 16 of them) as int32 lanes.
__attribute__((target("avx512f"), always_inline)) inline __m512i
loadWidened(const void *p, IntElem t, size_t n) {
  if (t == IntElem::I32)
    return _mm512_maskz_loadu_epi32(tailMask(n, 0), p);
  // A tail's bytes through a zeroed copy (a masked byte load needs BW).
  alignas(16) uint8_t tail[16] = {};
  const uint8_t *src = static_cast<const uint8_t *>(p);
  if (n < 16) {
    std::memcpy(tail, src, n);
    src = tail;
  }
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src));
  return t == IntElem::I8 ? _mm512_cvtepi8_epi32(v) : _mm512_cvtepu8_epi32(v);
}

template <ArithOp Op>
__attribute__((target("avx512f"))) void
arithWideningAvx512(const uint8_t *a, IntElem aType, size_t aPitch,
                    const uint8_t *b, IntElem bType, size_t bPitch,
                    BLayout bLayout, int32_t *out, size_t outPitch, size_t rows,
                    size_t cols) {
  const size_t ae = elemBytes(aType), be = elemBytes(bType);
  const bool one = bLayout == BLayout::PerRow || bLayout == BLayout::Scalar;
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t *ar = a + r * aPitch * ae;
    const uint8_t *br = bLayout == BLayout::Rows || bLayout == BLayout::PerRow
                            ? b + r * bPitch * be
                            : b;
    int32_t *outr = out + r * outPitch;
    __m512i bs = _mm512_setzero_si512();
    if (one) {
      const __m512i v = loadWidened(br, bType, 1);
      bs = _mm512_broadcastd_epi32(_mm512_castsi512_si128(v));
    }
    for (size_t i = 0; i < cols; i += 16) {
      const size_t n = cols - i < 16 ? cols - i : 16;
      const __m512i va = loadWidened(ar + i * ae, aType, n);
      const __m512i vb = one ? bs : loadWidened(br + i * be, bType, n);
      _mm512_mask_storeu_epi32(outr + i, tailMask(cols, i),
                               arithI32Avx512<Op>(va, vb));
    }
  }
}

template <bool Signed>
__attribute__((target("avx512f"))) void
widenBytesAvx512(const uint8_t *x, int32_t *out, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tailMask(n, i);
    // A tail's bytes through a zeroed copy (a masked byte load needs BW).
    alignas(16) uint8_t tail[16] = {};
    const uint8_t *src = x + i;
    if (n - i < 16) {
      std::memcpy(tail, src, n - i);
      src = tail;
    }
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src));
    _mm512_mask_storeu_epi32(
        out + i, m, Signed ? _mm512_cvtepi8_epi32(v) : _mm512_cvtepu8_epi32(v));
  }
}

__attribute__((target("avx512f"))) void
narrowToBytesAvx512(const int32_t *x, int32_t lo, int32_t hi, uint8_t *out,
                    size_t n) {
  const __m512i vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = tailMask(n, i);
    const __m512i v = _mm512_min_epi32(
        _mm512_max_epi32(_mm512_maskz_loadu_epi32(m, x + i), vlo), vhi);
    _mm512_mask_cvtepi32_storeu_epi8(out + i, m, v);
  }
}

#endif // NNACCEL_X86_SIMD

} // namespace

void arithI32Row(SimdLevel level, ArithOp op, const int32_t *a,
                 const int32_t *b, bool bScalar, int32_t *out, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512) {
    return withArithOp(op, [&](auto k) {
      arithI32RowAvx512<decltype(k)::value>(a, b, bScalar, out, n);
    });
  }
#endif
  for (size_t i = 0; i < n; ++i)
    out[i] = wrapping(op, a[i], b[bScalar ? 0 : i]);
}

void arithI32Block(SimdLevel level, ArithOp op, const int32_t *a, size_t aPitch,
                   const int32_t *b, size_t bPitch, BLayout bLayout,
                   int32_t *out, size_t outPitch, size_t rows, size_t cols) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512) {
    return withArithOp(op, [&](auto k) {
      arithI32BlockAvx512<decltype(k)::value>(a, aPitch, b, bPitch, bLayout,
                                              out, outPitch, rows, cols);
    });
  }
#endif
  const bool one = bLayout == BLayout::PerRow || bLayout == BLayout::Scalar;
  for (size_t r = 0; r < rows; ++r) {
    const int32_t *br = bLayout == BLayout::Rows || bLayout == BLayout::PerRow
                            ? b + r * bPitch
                            : b;
    arithI32Row(level, op, a + r * aPitch, br, one, out + r * outPitch, cols);
  }
}

void arithI32WideningBlock(SimdLevel level, ArithOp op, const void *a,
                           IntElem aType, size_t aPitch, const void *b,
                           IntElem bType, size_t bPitch, BLayout bLayout,
                           int32_t *out, size_t outPitch, size_t rows,
                           size_t cols) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
  const auto *pa = static_cast<const uint8_t *>(a);
  const auto *pb = static_cast<const uint8_t *>(b);
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512) {
    return withArithOp(op, [&](auto k) {
      arithWideningAvx512<decltype(k)::value>(pa, aType, aPitch, pb, bType,
                                              bPitch, bLayout, out, outPitch,
                                              rows, cols);
    });
  }
#endif
  const size_t ae = elemBytes(aType), be = elemBytes(bType);
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t *ar = pa + r * aPitch * ae;
    const uint8_t *br = bLayout == BLayout::Rows || bLayout == BLayout::PerRow
                            ? pb + r * bPitch * be
                            : pb;
    for (size_t i = 0; i < cols; ++i) {
      const bool one = bLayout == BLayout::PerRow || bLayout == BLayout::Scalar;
      out[r * outPitch + i] = wrapping(op, loadScalar(ar, aType, i),
                                       loadScalar(br, bType, one ? 0 : i));
    }
  }
}

void widenI8Row(SimdLevel level, const int8_t *x, int32_t *out, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return widenBytesAvx512<true>(reinterpret_cast<const uint8_t *>(x), out, n);
#endif
  for (size_t i = 0; i < n; ++i)
    out[i] = x[i];
}

void widenU8Row(SimdLevel level, const uint8_t *x, int32_t *out, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return widenBytesAvx512<false>(x, out, n);
#endif
  for (size_t i = 0; i < n; ++i)
    out[i] = x[i];
}

void narrowToBytesRow(SimdLevel level, const int32_t *x, int32_t lo, int32_t hi,
                      uint8_t *out, size_t n) {
  assert(level <= getHostSimdLevel() && "the CPU lacks that instruction set");
#ifdef NNACCEL_X86_SIMD
  if (level == SimdLevel::Avx512)
    return narrowToBytesAvx512(x, lo, hi, out, n);
#endif
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<uint8_t>(std::min(std::max(x[i], lo), hi));
}

} // namespace numerics
} // namespace nnaccel
