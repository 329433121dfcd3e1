//===- Kernels.h - Reference dot, matvec and matmul kernels ----*- C++ -*-===//
//
// Bit-exact reference implementations of the NPU's multiply-accumulate
// instructions, over whole spans so the emulator can call them per
// instruction. Every floating-point kernel uses the same accumulation order:
//
//   16 lanes, all starting at +0.0f. Product k (k = 0..K-1, increasing) is
//   added to lane k mod 16:  lane = lane + (a_k * b_k), the product rounded
//   to fp32 first (no FMA). The lanes are then reduced by a fixed tree:
//   for w in 8, 4, 2, 1: lane[l] = lane[l] + lane[l + w] for l < w.
//   The result is lane[0]. With accumulate = true, y = y + result afterwards.
//
// fp16/bf16 inputs are widened to fp32 (exact, and their products are exact
// in fp32) and use the same order, producing fp32. Integer kernels
// accumulate in 32-bit two's complement with wrap-around. Matrices are dense
// row-major; M, K, N are deduced from the span sizes where possible.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_KERNELS_H
#define NNACCEL_NUMERICS_KERNELS_H

#include "nnaccel/Numerics/BlockFloat.h"
#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

constexpr size_t kAccumLanes = 16;

/// The fixed pairwise reduction of 16 lane partial sums described above.
float reduceLanes(const float (&lanes)[kAccumLanes]);

//===--- Dot products (a.size() == b.size()) ------------------------------===//
float dotF32(Span<const float> a, Span<const float> b);
float dotF16(Span<const uint16_t> a, Span<const uint16_t> b);
float dotBf16(Span<const uint16_t> a, Span<const uint16_t> b);
/// int32 sum of products, wrapping modulo 2^32 (order-independent).
int32_t dotI8(Span<const int8_t> a, Span<const int8_t> b);
/// int8 weights x uint8 activations.
int32_t dotI8U8(Span<const int8_t> a, Span<const uint8_t> b);
/// Packed int4 weights (packedInt4Size(b.size()) bytes, low nibble first)
/// x int8 activations.
int32_t dotI4I8(Span<const uint8_t> aPacked, Span<const int8_t> b);

//===--- Matrix-vector: y[M] (+)= W[M x K] * x[K] -------------------------===//
void matVecF32(Span<const float> w, Span<const float> x, Span<float> y,
               bool accumulate);
void matVecF16(Span<const uint16_t> w, Span<const uint16_t> x, Span<float> y,
               bool accumulate);
void matVecBf16(Span<const uint16_t> w, Span<const uint16_t> x, Span<float> y,
                bool accumulate);
void matVecI8(Span<const int8_t> w, Span<const int8_t> x, Span<int32_t> y,
              bool accumulate);
void matVecI8U8(Span<const int8_t> w, Span<const uint8_t> x, Span<int32_t> y,
                bool accumulate);
/// The scalar references of the two above (Simd.h's VNNI path matches them).
void matVecI8Scalar(Span<const int8_t> w, Span<const int8_t> x, Span<int32_t> y,
                    bool accumulate);
void matVecI8U8Scalar(Span<const int8_t> w, Span<const uint8_t> x,
                      Span<int32_t> y, bool accumulate);
/// Each of the M weight rows occupies packedInt4Size(K) bytes (rows are
/// byte aligned; an odd K leaves the last high nibble unused).
void matVecI4I8(Span<const uint8_t> wPacked, Span<const int8_t> x,
                Span<int32_t> y, bool accumulate);

//===--- Matrix-matrix: C[M x N] (+)= A[M x K] * B[K x N] -----------------===//
/// Each C[i][j] is bit-identical to dotF32(row i of A, column j of B).
void matMulF32(Span<const float> a, Span<const float> b, Span<float> c,
               size_t m, size_t k, size_t n, bool accumulate);
void matMulF16(Span<const uint16_t> a, Span<const uint16_t> b, Span<float> c,
               size_t m, size_t k, size_t n, bool accumulate);
void matMulBf16(Span<const uint16_t> a, Span<const uint16_t> b, Span<float> c,
                size_t m, size_t k, size_t n, bool accumulate);
void matMulI8(Span<const int8_t> a, Span<const int8_t> b, Span<int32_t> c,
              size_t m, size_t k, size_t n, bool accumulate);
/// A is int4, rows packed as in matVecI4I8; B is int8.
void matMulI4I8(Span<const uint8_t> aPacked, Span<const int8_t> b,
                Span<int32_t> c, size_t m, size_t k, size_t n, bool accumulate);

//===--- Block floating point ---------------------------------------------===//
/// msfp dot product. Both operands must have the same length and block size
/// (their types may differ). For each block, in block order:
///   p   = sum_i (+-mantA_i) * (+-mantB_i)          exact, int32
///   v   = p * 2^((eA - mA + 1) + (eB - mB + 1))    exact in fp32
///   acc = acc + v                                  fp32, acc starts at +0
float msfpDot(const MsfpView &a, const MsfpView &b);
/// y[r] (+)= msfpDot(row r of w, x); w holds M = y.size() rows of K =
/// x.codes.size() elements, each row with its own msfpNumBlocks(K) fields.
void msfpMatVec(const MsfpView &w, const MsfpView &x, Span<float> y,
                bool accumulate);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_KERNELS_H
