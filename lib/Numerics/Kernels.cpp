//===- Kernels.cpp - Reference dot, matrix-vector and matmul kernels ------===//
//
// The loops are written so that the documented 16-lane order is what the
// source says literally (this file is compiled with -ffp-contract=off), yet
// the inner loops are still vectorisable: the lane loop maps onto SIMD
// registers without any reassociation. matMul keeps 16 lane accumulators
// per output column so each C[i][j] follows exactly the dot-product order.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/Kernels.h"

#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/Float16.h"
#include "nnaccel/Numerics/Simd.h"

#include <algorithm>

namespace nnaccel {
namespace numerics {

float reduceLanes(const float (&lanes)[kAccumLanes]) {
  float t[kAccumLanes];
  std::copy(lanes, lanes + kAccumLanes, t);
  for (size_t w = kAccumLanes / 2; w >= 1; w /= 2)
    for (size_t l = 0; l < w; ++l)
      t[l] = t[l] + t[l + w];
  return t[0];
}

namespace {

/// Lane-ordered fp32 dot over k elements fetched through loadA/loadB.
template <typename LoadA, typename LoadB>
float laneDot(size_t k, LoadA loadA, LoadB loadB) {
  float lanes[kAccumLanes] = {};
  size_t i = 0;
  for (; i + kAccumLanes <= k; i += kAccumLanes)
    for (size_t l = 0; l < kAccumLanes; ++l) {
      float p = loadA(i + l) * loadB(i + l);
      lanes[l] = lanes[l] + p;
    }
  for (size_t l = 0; i + l < k; ++l) {
    float p = loadA(i + l) * loadB(i + l);
    lanes[l] = lanes[l] + p;
  }
  return reduceLanes(lanes);
}

/// Wrapping int32 dot: products fit in int32; sums wrap through uint32.
template <typename LoadA, typename LoadB>
int32_t intDot(size_t k, LoadA loadA, LoadB loadB) {
  uint32_t acc = 0;
  for (size_t i = 0; i < k; ++i)
    acc += static_cast<uint32_t>(static_cast<int32_t>(loadA(i)) *
                                 static_cast<int32_t>(loadB(i)));
  return static_cast<int32_t>(acc);
}

inline int32_t wrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) +
                              static_cast<uint32_t>(b));
}

inline void storeF(float *y, float v, bool accumulate) {
  *y = accumulate ? *y + v : v;
}
inline void storeI(int32_t *y, int32_t v, bool accumulate) {
  *y = accumulate ? wrapAdd(*y, v) : v;
}

std::vector<float> widen(Span<const uint16_t> in, float (*cvt)(uint16_t)) {
  std::vector<float> out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = cvt(in.data()[i]);
  return out;
}

/// Dense fp32 matmul in lane order (see file comment).
void matMulLanes(const float *a, const float *b, float *c, size_t m, size_t k,
                 size_t n, bool accumulate) {
  std::vector<float> lanes(kAccumLanes * n);
  std::vector<float> col(kAccumLanes);
  for (size_t i = 0; i < m; ++i) {
    std::fill(lanes.begin(), lanes.end(), 0.0f);
    const float *aRow = a + i * k;
    for (size_t kk = 0; kk < k; ++kk) {
      float av = aRow[kk];
      const float *bRow = b + kk * n;
      float *lane = lanes.data() + (kk % kAccumLanes) * n;
      for (size_t j = 0; j < n; ++j) {
        float p = av * bRow[j];
        lane[j] = lane[j] + p;
      }
    }
    // Tree reduction across the 16 lane rows, column-wise (same tree).
    for (size_t w = kAccumLanes / 2; w >= 1; w /= 2)
      for (size_t l = 0; l < w; ++l) {
        float *dst = lanes.data() + l * n;
        const float *src = lanes.data() + (l + w) * n;
        for (size_t j = 0; j < n; ++j)
          dst[j] = dst[j] + src[j];
      }
    for (size_t j = 0; j < n; ++j)
      storeF(c + i * n + j, lanes[j], accumulate);
  }
}

template <typename LoadA>
void matMulIntImpl(size_t m, size_t k, size_t n, LoadA loadA, const int8_t *b,
                   int32_t *c, bool accumulate) {
  std::vector<uint32_t> acc(n);
  for (size_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), 0u);
    for (size_t kk = 0; kk < k; ++kk) {
      int32_t av = loadA(i, kk);
      const int8_t *bRow = b + kk * n;
      for (size_t j = 0; j < n; ++j)
        acc[j] += static_cast<uint32_t>(av * static_cast<int32_t>(bRow[j]));
    }
    for (size_t j = 0; j < n; ++j)
      storeI(c + i * n + j, static_cast<int32_t>(acc[j]), accumulate);
  }
}

} // namespace

float dotF32(Span<const float> a, Span<const float> b) {
  assert(a.size() == b.size());
  const float *pa = a.data(), *pb = b.data();
  return laneDot(
      a.size(), [pa](size_t i) { return pa[i]; },
      [pb](size_t i) { return pb[i]; });
}

float dotF16(Span<const uint16_t> a, Span<const uint16_t> b) {
  assert(a.size() == b.size());
  const uint16_t *pa = a.data(), *pb = b.data();
  return laneDot(
      a.size(), [pa](size_t i) { return fp16ToFp32(pa[i]); },
      [pb](size_t i) { return fp16ToFp32(pb[i]); });
}

float dotBf16(Span<const uint16_t> a, Span<const uint16_t> b) {
  assert(a.size() == b.size());
  const uint16_t *pa = a.data(), *pb = b.data();
  return laneDot(
      a.size(), [pa](size_t i) { return bf16ToFp32(pa[i]); },
      [pb](size_t i) { return bf16ToFp32(pb[i]); });
}

int32_t dotI8(Span<const int8_t> a, Span<const int8_t> b) {
  assert(a.size() == b.size());
  const int8_t *pa = a.data(), *pb = b.data();
  return intDot(
      a.size(), [pa](size_t i) { return pa[i]; },
      [pb](size_t i) { return pb[i]; });
}

int32_t dotI8U8(Span<const int8_t> a, Span<const uint8_t> b) {
  assert(a.size() == b.size());
  const int8_t *pa = a.data();
  const uint8_t *pb = b.data();
  return intDot(
      a.size(), [pa](size_t i) { return pa[i]; },
      [pb](size_t i) { return pb[i]; });
}

int32_t dotI4I8(Span<const uint8_t> aPacked, Span<const int8_t> b) {
  assert(aPacked.size() == packedInt4Size(b.size()));
  const uint8_t *pa = aPacked.data();
  const int8_t *pb = b.data();
  return intDot(
      b.size(), [pa](size_t i) { return readPackedInt4(pa, i); },
      [pb](size_t i) { return pb[i]; });
}

void matVecF32(Span<const float> w, Span<const float> x, Span<float> y,
               bool accumulate) {
  matVecF32At(getHostSimdLevel(), w, x, y, accumulate);
}

namespace {
void matVecHalf(Span<const uint16_t> w, Span<const uint16_t> x, Span<float> y,
                bool accumulate, float (*cvt)(uint16_t)) {
  size_t k = x.size();
  assert(w.size() == y.size() * k);
  std::vector<float> xf = widen(x, cvt);
  const float *px = xf.data();
  for (size_t r = 0; r < y.size(); ++r) {
    const uint16_t *row = w.data() + r * k;
    float v = laneDot(
        k, [row, cvt](size_t i) { return cvt(row[i]); },
        [px](size_t i) { return px[i]; });
    storeF(y.data() + r, v, accumulate);
  }
}
} // namespace

void matVecF16(Span<const uint16_t> w, Span<const uint16_t> x, Span<float> y,
               bool accumulate) {
  matVecHalf(w, x, y, accumulate, &fp16ToFp32);
}

void matVecBf16(Span<const uint16_t> w, Span<const uint16_t> x, Span<float> y,
                bool accumulate) {
  matVecHalf(w, x, y, accumulate, &bf16ToFp32);
}

void matVecI8Scalar(Span<const int8_t> w, Span<const int8_t> x, Span<int32_t> y,
                    bool accumulate) {
  size_t k = x.size();
  assert(w.size() == y.size() * k);
  for (size_t r = 0; r < y.size(); ++r)
    storeI(y.data() + r, dotI8(w.subspan(r * k, k), x), accumulate);
}

void matVecI8U8Scalar(Span<const int8_t> w, Span<const uint8_t> x,
                      Span<int32_t> y, bool accumulate) {
  size_t k = x.size();
  assert(w.size() == y.size() * k);
  for (size_t r = 0; r < y.size(); ++r)
    storeI(y.data() + r, dotI8U8(w.subspan(r * k, k), x), accumulate);
}

void matVecI8(Span<const int8_t> w, Span<const int8_t> x, Span<int32_t> y,
              bool accumulate) {
  matVecI8At(hostHasInt8Dot(), w, x, y, accumulate);
}

void matVecI8U8(Span<const int8_t> w, Span<const uint8_t> x, Span<int32_t> y,
                bool accumulate) {
  matVecI8U8At(hostHasInt8Dot(), w, x, y, accumulate);
}

void matVecI4I8(Span<const uint8_t> wPacked, Span<const int8_t> x,
                Span<int32_t> y, bool accumulate) {
  size_t k = x.size(), rowBytes = packedInt4Size(k);
  assert(wPacked.size() == y.size() * rowBytes);
  for (size_t r = 0; r < y.size(); ++r)
    storeI(y.data() + r, dotI4I8(wPacked.subspan(r * rowBytes, rowBytes), x),
           accumulate);
}

void matMulF32(Span<const float> a, Span<const float> b, Span<float> c,
               size_t m, size_t k, size_t n, bool accumulate) {
  assert(a.size() == m * k && b.size() == k * n && c.size() == m * n);
  matMulLanes(a.data(), b.data(), c.data(), m, k, n, accumulate);
}

void matMulF16(Span<const uint16_t> a, Span<const uint16_t> b, Span<float> c,
               size_t m, size_t k, size_t n, bool accumulate) {
  assert(a.size() == m * k && b.size() == k * n && c.size() == m * n);
  std::vector<float> af = widen(a, &fp16ToFp32), bf = widen(b, &fp16ToFp32);
  matMulLanes(af.data(), bf.data(), c.data(), m, k, n, accumulate);
}

void matMulBf16(Span<const uint16_t> a, Span<const uint16_t> b, Span<float> c,
                size_t m, size_t k, size_t n, bool accumulate) {
  assert(a.size() == m * k && b.size() == k * n && c.size() == m * n);
  std::vector<float> af = widen(a, &bf16ToFp32), bf = widen(b, &bf16ToFp32);
  matMulLanes(af.data(), bf.data(), c.data(), m, k, n, accumulate);
}

void matMulI8(Span<const int8_t> a, Span<const int8_t> b, Span<int32_t> c,
              size_t m, size_t k, size_t n, bool accumulate) {
  assert(a.size() == m * k && b.size() == k * n && c.size() == m * n);
  const int8_t *pa = a.data();
  matMulIntImpl(
      m, k, n, [pa, k](size_t i, size_t kk) { return pa[i * k + kk]; },
      b.data(), c.data(), accumulate);
}

void matMulI4I8(Span<const uint8_t> aPacked, Span<const int8_t> b,
                Span<int32_t> c, size_t m, size_t k, size_t n,
                bool accumulate) {
  size_t rowBytes = packedInt4Size(k);
  assert(aPacked.size() == m * rowBytes && b.size() == k * n &&
         c.size() == m * n);
  const uint8_t *pa = aPacked.data();
  matMulIntImpl(
      m, k, n,
      [pa, rowBytes](size_t i, size_t kk) {
        return readPackedInt4(pa + i * rowBytes, kk);
      },
      b.data(), c.data(), accumulate);
}

float msfpDot(const MsfpView &a, const MsfpView &b) {
  size_t n = a.codes.size(), bs = a.blockSize;
  assert(b.codes.size() == n && b.blockSize == bs && bs > 0);
  assert(a.exponents.size() == msfpNumBlocks(n, bs) &&
         b.exponents.size() == a.exponents.size());
  int ma = msfpMantissaBits(a.type), mb = msfpMantissaBits(b.type);
  uint32_t maskA = (1u << ma) - 1u, maskB = (1u << mb) - 1u;
  float acc = 0.0f;
  for (size_t blk = 0, nb = a.exponents.size(); blk != nb; ++blk) {
    size_t begin = blk * bs, end = std::min(n, begin + bs);
    int32_t p = 0;
    for (size_t i = begin; i < end; ++i) {
      uint8_t ca = a.codes.data()[i], cb = b.codes.data()[i];
      int32_t prod = static_cast<int32_t>((ca & maskA) * (cb & maskB));
      // Sign-magnitude: the product is negative iff exactly one sign is set.
      p += (((ca >> ma) ^ (cb >> mb)) & 1u) ? -prod : prod;
    }
    int ea =
        static_cast<int>(a.exponents.data()[blk] & 0x1F) - kMsfpExponentBias;
    int eb =
        static_cast<int>(b.exponents.data()[blk] & 0x1F) - kMsfpExponentBias;
    float v = std::ldexp(static_cast<float>(p), (ea - ma + 1) + (eb - mb + 1));
    acc = acc + v;
  }
  return acc;
}

void msfpMatVec(const MsfpView &w, const MsfpView &x, Span<float> y,
                bool accumulate) {
  size_t k = x.codes.size(), nb = msfpNumBlocks(k, x.blockSize);
  assert(w.blockSize == x.blockSize);
  assert(w.codes.size() == y.size() * k && w.exponents.size() == y.size() * nb);
  for (size_t r = 0; r < y.size(); ++r) {
    MsfpView row{w.type, w.blockSize, w.exponents.subspan(r * nb, nb),
                 w.codes.subspan(r * k, k)};
    storeF(y.data() + r, msfpDot(row, x), accumulate);
  }
}

} // namespace numerics
} // namespace nnaccel
