//===- Simd.h - Vectorised paths of the reference kernels -------*- C++ -*-===//
//
// The emulator spends most of its arithmetic in f32 matrix-vector products.
// These are the same products as Kernels.h's, in the same documented
// 16-lane order, computed with AVX-512 or AVX2 when the CPU has them: the
// 16 lanes of a dot product are one 512-bit register (two 256-bit ones),
// products are rounded before they are added (no FMA), a row's tail only
// adds to the lanes it reaches, and the lanes are reduced by the same tree.
// Every level therefore gives the same bits as the scalar reference (NaN
// payloads aside, which no kernel specifies).
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_SIMD_H
#define NNACCEL_NUMERICS_SIMD_H

#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/Common.h"

#include <cstdint>

namespace nnaccel {
namespace numerics {

/// Instruction-set levels of the vectorised kernels.
enum class SimdLevel { Scalar, Avx2, Avx512 };

/// The best level this CPU runs (detected once).
SimdLevel getHostSimdLevel();

/// y (+)= W x (W: y.size() rows of x.size()) in the documented lane order at
/// `level`, which must not exceed getHostSimdLevel(). matVecF32 calls it at
/// the host's level; tests compare the levels.
void matVecF32At(SimdLevel level, Span<const float> w, Span<const float> x,
                 Span<float> y, bool accumulate);

/// out[i] = requantizeFloat(acc[i], scales[perChannel ? i : 0], zeroPoint,
/// range) for i < n, at `level` (AVX-512: 16 at a time, the conversion,
/// product and round-half-even of each lane the scalar ones, the same
/// saturation order). AVX2 runs the scalar loop.
void requantizeFloatRow(SimdLevel level, const int32_t *acc,
                        const float *scales, bool perChannel, int32_t zeroPoint,
                        QuantRange range, int32_t *out, size_t n);
/// The same for f32 inputs: out[i] = requantizeScaled(x[i] *
/// scales[perChannel ? i : 0], zeroPoint, range) (AVX-512: 16 at a time,
/// each lane's product and round-half-even the scalar ones).
void requantizeScaledRow(SimdLevel level, const float *x, const float *scales,
                         bool perChannel, int32_t zeroPoint, QuantRange range,
                         int32_t *out, size_t n);
/// out[i] = float(q[i]) * scales[perChannel ? i : 0] (DequantizeLinear with
/// zero point 0: one rounding for the conversion, one for the product;
/// AVX-512: 16 at a time, the same roundings).
void dequantizeRow(SimdLevel level, const int32_t *q, const float *scales,
                   bool perChannel, float *out, size_t n);

/// The element-wise binary operations of VectorOps.h.
enum class ArithOp : uint8_t { Add, Sub, Mul, Max, Min };

/// out[i] = a[i] op b[bScalar ? 0 : i] for i < n at `level`: add, sub and
/// mul as IEEE operations, max / min as maxF32 / minF32 (NaN if either is,
/// +0 over -0 for max, -0 for min). AVX-512: 16 lanes at a time. The span
/// functions of VectorOps.h call it at the host's level; `bScalar` serves
/// a broadcast operand without expanding it. `out` may be `a` or `b`.
void arithF32Row(SimdLevel level, ArithOp op, const float *a, const float *b,
                 bool bScalar, float *out, size_t n);

/// How the b operand of a block operation (arithF32Block, arithI32Block)
/// is laid out: rows like a (`Rows`), one row for every row (`Row`), one
/// value per row (`PerRow`), or one value (`Scalar`).
enum class BLayout : uint8_t { Rows, Row, PerRow, Scalar };
/// out[r][i] = a[r][i] op b(r, i) for r < rows, i < cols, rows `aPitch`,
/// `bPitch`, `outPitch` elements apart (b's per BLayout: Rows and PerRow
/// step by bPitch), with arithF32Row's / arithI32Row's element semantics:
/// one call for a block whose rows are too short for a call each. `out`
/// may be `a` or b's rows (same pitch).
void arithF32Block(SimdLevel level, ArithOp op, const float *a, size_t aPitch,
                   const float *b, size_t bPitch, BLayout bLayout, float *out,
                   size_t outPitch, size_t rows, size_t cols);
void arithI32Block(SimdLevel level, ArithOp op, const int32_t *a, size_t aPitch,
                   const int32_t *b, size_t bPitch, BLayout bLayout,
                   int32_t *out, size_t outPitch, size_t rows, size_t cols);
/// out[i] = a[i] op b[bScalar ? 0 : i] for i < n on int32 at `level`: add,
/// sub and mul wrap modulo 2^32, max / min are exact (any order gives the
/// same bits). AVX-512: 16 lanes at a time. `out` may be `a` or `b`.
void arithI32Row(SimdLevel level, ArithOp op, const int32_t *a,
                 const int32_t *b, bool bScalar, int32_t *out, size_t n);
/// Element types arithI32WideningBlock reads as int32.
enum class IntElem : uint8_t { I8, U8, I32 };
/// arithI32Block on operands stored as int8, uint8 or int32 elements
/// (`aType`, `bType`; pitches in elements of their own type), each widened
/// to int32 as it is loaded: the quantised kernels' products of 8-bit
/// activations and weights without a widened copy of either.
void arithI32WideningBlock(SimdLevel level, ArithOp op, const void *a,
                           IntElem aType, size_t aPitch, const void *b,
                           IntElem bType, size_t bPitch, BLayout bLayout,
                           int32_t *out, size_t outPitch, size_t rows,
                           size_t cols);
/// out[i] = x[i] sign- (int8) or zero-extended (uint8) to int32.
void widenI8Row(SimdLevel level, const int8_t *x, int32_t *out, size_t n);
void widenU8Row(SimdLevel level, const uint8_t *x, int32_t *out, size_t n);
/// out[i] = the low byte of clamp(x[i], lo, hi): int32 narrowed to an
/// 8-bit type with saturation to its range [lo, hi].
void narrowToBytesRow(SimdLevel level, const int32_t *x, int32_t lo, int32_t hi,
                      uint8_t *out, size_t n);
/// reduceSumF32 / reduceMaxF32 / reduceMinF32 of x[0, n) at `level`
/// (AVX-512: the sum's 16 lanes are one register and its tree the same;
/// max / min are order-free). The span functions of VectorOps.h call these
/// at the host's level.
float reduceSumF32Row(SimdLevel level, const float *x, size_t n);
float reduceMaxF32Row(SimdLevel level, const float *x, size_t n);
float reduceMinF32Row(SimdLevel level, const float *x, size_t n);
/// out[i] = expF32(x[i]), sigmoidF32(x[i]), tanhF32(x[i]) for i < n at
/// `level` (AVX-512: 16 lanes through the scalar definitions' operations in
/// their order, ldexp as vscalefps, the branches as blends; bit-identical,
/// SimdTest compares them). The span functions of VectorOps.h call these at
/// the host's level.
void expF32Row(SimdLevel level, const float *x, float *out, size_t n);
void sigmoidF32Row(SimdLevel level, const float *x, float *out, size_t n);
void tanhF32Row(SimdLevel level, const float *x, float *out, size_t n);

/// True when the CPU has AVX-512 VNNI (with BW): the int8 products below
/// then run on vpdpbusd.
bool hostHasInt8Dot();

/// y (+)= W x for int8 weights (W: y.size() rows of x.size()) and int8 /
/// uint8 activations, wrapping in int32 like the scalar matVecI8 /
/// matVecI8U8. Integer sums are exact modulo 2^32 in any order, so the
/// VNNI path (`vnni`, which needs hostHasInt8Dot()) gives the scalar
/// results bit for bit. matVecI8 / matVecI8U8 call it with the host's
/// capability; tests compare both.
void matVecI8At(bool vnni, Span<const int8_t> w, Span<const int8_t> x,
                Span<int32_t> y, bool accumulate);
void matVecI8U8At(bool vnni, Span<const int8_t> w, Span<const uint8_t> x,
                  Span<int32_t> y, bool accumulate);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_SIMD_H
