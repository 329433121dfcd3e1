//===- PackedMatVec.h - Matrix-vector products on repacked weights -*- C++
//-*-===//
//
// matVecF32 / matVecI8 take W row by row: each output is one dot product,
// whose 16 lanes end in a horizontal reduction. With the native 64-wide
// tiles (k <= 64: at most four 16-lane chunks) that reduction costs as much
// as the products. A weight tile that is multiplied many times (a pinned or
// resident MRF tile, or one applied to many activation rows) pays for a
// one-time repacking that puts 16 *outputs* side by side instead:
//
//  * f32: W transposed, wT[i * stride + r] = W[r][i]. Output block r..r+15
//    keeps one register per dot-product lane l (16 registers): lane l
//    accumulates W[r..r+15][i] * x[i] for i = l (mod 16) in order, and the
//    final tree adds register l + 8 to l, then l + 4, l + 2, l + 1. Every
//    output sees the products, sums and tree of dotF32 in the same order,
//    so the result is matVecF32's bit for bit; only the shuffles go.
//  * int8: W in quads, q[(g * stride + r) * 4 + j] = W[r][4g + j] (zero
//    past k), so one vpdpbusd adds four products for 16 outputs. Integer
//    sums wrap modulo 2^32 in any order: matVecI8's results exactly.
//
// stride is the row count rounded up to 16 (padded rows are zero); the
// scalar entry points read the same layouts one output at a time and are
// the reference the tests compare the vector paths with.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_PACKEDMATVEC_H
#define NNACCEL_NUMERICS_PACKEDMATVEC_H

#include "nnaccel/Numerics/Simd.h"

#include <cstddef>
#include <cstdint>

namespace nnaccel {
namespace numerics {

/// Outputs per block of the packed layouts.
constexpr size_t kPackedBlockRows = 16;

/// The packed layouts' row stride for `rows` outputs: a multiple of 16.
inline size_t packedStride(size_t rows) {
  return (rows + kPackedBlockRows - 1) / kPackedBlockRows * kPackedBlockRows;
}

/// Elements of the transposed f32 layout of a rows x k tile.
inline size_t transposedF32Size(size_t rows, size_t k) {
  return packedStride(rows) * k;
}
/// Bytes of the int8 quad layout of a rows x k tile.
inline size_t quadsI8Size(size_t rows, size_t k) {
  return packedStride(rows) * ((k + 3) / 4) * 4;
}

/// wT = W (rows x k, row-major) transposed with rows padded to
/// packedStride(rows) by zeros; wT holds transposedF32Size(rows, k) floats.
void transposeF32(const float *w, size_t rows, size_t k, float *wT);

/// q = W (rows x k int8) in quads, zero past k and `rows`
/// (quadsI8Size(rows, k) bytes); rowSums[r] = Σ W[r][i] modulo 2^32, zero
/// for the padded rows (packedStride(rows) entries), which a signed x needs.
void packQuadsI8(const int8_t *w, size_t rows, size_t k, int8_t *q,
                 int32_t *rowSums);

/// y (+)= W x, W transposed by transposeF32: matVecF32's bits. AVX-512
/// puts 16 outputs in a register; lower levels read the layout one output
/// at a time in the scalar lane order.
void matVecTransposedF32At(SimdLevel level, const float *wT, size_t rows,
                           size_t k, const float *x, float *y, bool accumulate);

/// y (+)= W x for W packed by packQuadsI8 and int8 or uint8 x: matVecI8's /
/// matVecI8U8's bits. `vnni` (hostHasInt8Dot()) runs vpdpbusd on 16
/// outputs at a time; signed x goes in as x + 128 and 128 · rowSums comes
/// off, as in matVecI8.
void matVecQuadsI8At(bool vnni, const int8_t *q, const int32_t *rowSums,
                     size_t rows, size_t k, const int8_t *x, int32_t *y,
                     bool accumulate);
void matVecQuadsI8U8At(bool vnni, const int8_t *q, size_t rows, size_t k,
                       const uint8_t *x, int32_t *y, bool accumulate);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_PACKEDMATVEC_H
