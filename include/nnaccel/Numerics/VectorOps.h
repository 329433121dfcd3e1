//===- VectorOps.h - Reference elementwise ops and reductions ---*- C++ -*-===//
//
// fp32 vector operations of the NPU's vector unit, over spans. Arithmetic
// ops are single IEEE fp32 operations. Transcendentals are defined by the
// fixed polynomial/rational evaluations in VectorOps.cpp (documented in
// docs/numerics.md), not by the host libm, so results are identical on every
// host and can be reproduced by hardware. Sizes must match (precondition);
// `out` may alias an input.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_NUMERICS_VECTOROPS_H
#define NNACCEL_NUMERICS_VECTOROPS_H

#include "nnaccel/Numerics/Common.h"

namespace nnaccel {
namespace numerics {

//===--- Scalar definitions (the span ops apply these elementwise) --------===//
/// NaN-propagating max/min: NaN if either input is NaN; max(+0, -0) = +0,
/// min(+0, -0) = -0.
float maxF32(float a, float b);
float minF32(float a, float b);
/// exp: Cody-Waite reduction x = n ln2 + r, degree-7 polynomial, scaling by
/// 2^n. x > 88.72283935546875 -> +inf, x < -103.972084 -> +0, NaN -> NaN.
float expF32(float x);
/// erf: odd/even rational approximation on x clamped to [-4, 4].
float erfF32(float x);
/// tanh: odd Taylor polynomial for |x| < 0.25, else
/// sign(x) * (1 - 2 / (exp(2|x|) + 1)); +-1 for |x| >= 9.
float tanhF32(float x);
/// 1 / (1 + exp(-x)).
float sigmoidF32(float x);
/// 0.5 * x * (1 + erf(x / sqrt(2))), evaluated as x * (0.5 * (1 + erf(x *
/// 0.70710678f))).
float geluErfF32(float x);
/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
float geluTanhF32(float x);

//===--- Binary ops: out[i] = op(a[i], b[i]) ------------------------------===//
void addF32(Span<const float> a, Span<const float> b, Span<float> out);
void subF32(Span<const float> a, Span<const float> b, Span<float> out);
void mulF32(Span<const float> a, Span<const float> b, Span<float> out);
void divF32(Span<const float> a, Span<const float> b, Span<float> out);
void maxF32(Span<const float> a, Span<const float> b, Span<float> out);
void minF32(Span<const float> a, Span<const float> b, Span<float> out);

//===--- Comparisons: out[i] = pred(a[i], b[i]) ? 1 : 0 -------------------===//
/// The predicates of the vector unit's v.ceq .. v.cge (ONNX Equal, Less, ...).
enum class ComparePredicate { Eq, Ne, Lt, Le, Gt, Ge };
/// IEEE comparisons: every predicate but Ne is false when an operand is NaN
/// (Ne is true), +0 == -0, and -inf < finite < +inf; as numpy and ONNX.
bool compareF32(ComparePredicate pred, float a, float b);
/// Exact two's complement comparisons.
bool compareI32(ComparePredicate pred, int32_t a, int32_t b);
void compareF32(ComparePredicate pred, Span<const float> a, Span<const float> b,
                Span<float> out);
void compareI32(ComparePredicate pred, Span<const int32_t> a,
                Span<const int32_t> b, Span<int32_t> out);

//===--- Unary ops: out[i] = op(in[i]) ------------------------------------===//
void negF32(Span<const float> in, Span<float> out);
void absF32(Span<const float> in, Span<float> out);
/// x > 0 ? x : +0; NaN stays NaN.
void reluF32(Span<const float> in, Span<float> out);
/// min(max(x, lo), hi) with the NaN-propagating max/min (lo <= hi).
void clipF32(Span<const float> in, float lo, float hi, Span<float> out);
void expF32(Span<const float> in, Span<float> out);
void erfF32(Span<const float> in, Span<float> out);
void tanhF32(Span<const float> in, Span<float> out);
void sigmoidF32(Span<const float> in, Span<float> out);
void geluErfF32(Span<const float> in, Span<float> out);
void geluTanhF32(Span<const float> in, Span<float> out);
/// 1 / x (IEEE division).
void reciprocalF32(Span<const float> in, Span<float> out);
/// IEEE square root.
void sqrtF32(Span<const float> in, Span<float> out);
/// 1 / sqrt(x): correctly rounded sqrt, then correctly rounded division.
void rsqrtF32(Span<const float> in, Span<float> out);

//===--- Reductions -------------------------------------------------------===//
/// Sum in the 16-lane order of the dot kernels (see Kernels.h).
float reduceSumF32(Span<const float> in);
/// NaN-propagating max / min, left to right; -inf / +inf for empty spans.
float reduceMaxF32(Span<const float> in);
float reduceMinF32(Span<const float> in);
/// reduceSumF32(in) / float(in.size()); NaN for an empty span.
float reduceMeanF32(Span<const float> in);

//===--- Composite references (built only from the primitives above) ------===//
/// m = reduceMax(x); e_i = exp(x_i - m); s = reduceSum(e); out_i = e_i / s.
void softmaxRowF32(Span<const float> in, Span<float> out);
/// mu = reduceMean(x); d_i = x_i - mu; var = reduceMean(d_i * d_i);
/// r = rsqrt(var + eps); out_i = (d_i * r) * gamma_i + beta_i.
/// gamma/beta may be empty (1 and 0).
void layerNormRowF32(Span<const float> in, Span<const float> gamma,
                     Span<const float> beta, float eps, Span<float> out);

} // namespace numerics
} // namespace nnaccel

#endif // NNACCEL_NUMERICS_VECTOROPS_H
