//===- VectorOps.cpp - Reference elementwise ops and reductions -----------===//
//
// The transcendental functions are spelled out as fixed sequences of fp32
// operations (compiled with -ffp-contract=off) instead of calling libm:
// glibc, musl and MSVC disagree in the last bit for exp/tanh/erf, and the
// emulator, the host fallback and the compiler's constant folder must not.
// Accuracy against the exact functions is a few ulp (measured in the tests).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/VectorOps.h"

#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/Simd.h"

#include <algorithm>
#include <cassert>

namespace nnaccel {
namespace numerics {

float maxF32(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b) // Equal, including +0 == -0: prefer +0.
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

float minF32(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b) // Prefer -0.
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

float expF32(float x) {
  if (std::isnan(x))
    return x;
  // Outside these bounds the result is inf / 0 anyway; clamping first keeps
  // n within int range and avoids a spurious NaN from inf - inf below.
  if (x > 88.72283935546875f)
    return std::numeric_limits<float>::infinity();
  if (x < -103.972084f)
    return 0.0f;
  constexpr float kLog2e = 1.44269504088896341f;
  // ln2 split so that n * kLn2Hi is exact for |n| <= 256.
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.42860682030941723e-6f;
  float n = roundHalfEven(x * kLog2e);
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  // Taylor coefficients 1/k!, Horner from the top; |r| <= ~0.347 so the
  // truncation error (r^8 / 8!) is below 6e-9.
  float p = 1.98412698e-4f;
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333333e-3f;
  p = p * r + 4.16666667e-2f;
  p = p * r + 1.66666667e-1f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // One rounding at most, and only if the result is subnormal.
  return std::ldexp(p, static_cast<int>(n));
}

float erfF32(float x) {
  if (std::isnan(x))
    return x;
  // erf(x) rounds to +-1 in fp32 beyond |x| = 4; the rational form is
  // fitted on [-4, 4] (same coefficients as Eigen / XLA's fp32 erf).
  float c = std::min(4.0f, std::max(-4.0f, x));
  float x2 = c * c;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 + -2.10102402082508e-06f;
  p = p * x2 + -5.69250639462346e-05f;
  p = p * x2 + -7.34990630326855e-04f;
  p = p * x2 + -2.95459980854025e-03f;
  p = p * x2 + -1.60960333262415e-02f;
  p = c * p;
  float q = -1.45660718464996e-05f;
  q = q * x2 + -2.13374055278905e-04f;
  q = q * x2 + -1.68282697438203e-03f;
  q = q * x2 + -7.37332916720468e-03f;
  q = q * x2 + -1.42647390514189e-02f;
  float r = p / q;
  return std::min(1.0f, std::max(-1.0f, r));
}

float tanhF32(float x) {
  if (std::isnan(x) || x == 0.0f)
    return x; // Keeps the sign of zero.
  float a = std::fabs(x);
  if (a >= 9.0f) // 1 - tanh(9) < 2^-25: rounds to 1.
    return std::copysign(1.0f, x);
  if (a < 0.25f) {
    // Taylor series to x^9; the first omitted term is < 1e-8 relative.
    float t = x * x;
    float p = 2.18694885e-2f;    // 62/2835
    p = p * t + -5.39682540e-2f; // -17/315
    p = p * t + 1.33333333e-1f;  // 2/15
    p = p * t + -3.33333333e-1f; // -1/3
    return x + x * (t * p);
  }
  float e = expF32(2.0f * a);
  float r = 1.0f - 2.0f / (e + 1.0f);
  return std::copysign(r, x);
}

float sigmoidF32(float x) {
  if (std::isnan(x))
    return x;
  return 1.0f / (1.0f + expF32(-x));
}

float geluErfF32(float x) {
  if (std::isinf(x)) // x * 0 would be NaN for -inf.
    return x > 0.0f ? x : -0.0f;
  float e = erfF32(x * 0.707106781186547524f);
  float h = 0.5f * (1.0f + e);
  return x * h;
}

float geluTanhF32(float x) {
  if (std::isinf(x))
    return x > 0.0f ? x : -0.0f;
  float x3 = (x * x) * x;
  float u = x + 0.044715f * x3;
  float v = 0.797884560802865355f * u; // sqrt(2 / pi)
  float t = tanhF32(v);
  float h = 0.5f * (1.0f + t);
  return x * h;
}

namespace {

template <typename Op>
void unary(Span<const float> in, Span<float> out, Op op) {
  assert(in.size() == out.size());
  const float *src = in.data();
  float *dst = out.data();
  for (size_t i = 0, e = in.size(); i != e; ++i)
    dst[i] = op(src[i]);
}

template <typename Op>
void binary(Span<const float> a, Span<const float> b, Span<float> out, Op op) {
  assert(a.size() == b.size() && a.size() == out.size());
  const float *pa = a.data(), *pb = b.data();
  float *dst = out.data();
  for (size_t i = 0, e = a.size(); i != e; ++i)
    dst[i] = op(pa[i], pb[i]);
}

} // namespace

void addF32(Span<const float> a, Span<const float> b, Span<float> out) {
  assert(a.size() == b.size() && a.size() == out.size());
  arithF32Row(getHostSimdLevel(), ArithOp::Add, a.data(), b.data(),
              /*bScalar=*/false, out.data(), a.size());
}
void subF32(Span<const float> a, Span<const float> b, Span<float> out) {
  assert(a.size() == b.size() && a.size() == out.size());
  arithF32Row(getHostSimdLevel(), ArithOp::Sub, a.data(), b.data(),
              /*bScalar=*/false, out.data(), a.size());
}
void mulF32(Span<const float> a, Span<const float> b, Span<float> out) {
  assert(a.size() == b.size() && a.size() == out.size());
  arithF32Row(getHostSimdLevel(), ArithOp::Mul, a.data(), b.data(),
              /*bScalar=*/false, out.data(), a.size());
}
void divF32(Span<const float> a, Span<const float> b, Span<float> out) {
  binary(a, b, out, [](float x, float y) { return x / y; });
}
void maxF32(Span<const float> a, Span<const float> b, Span<float> out) {
  assert(a.size() == b.size() && a.size() == out.size());
  arithF32Row(getHostSimdLevel(), ArithOp::Max, a.data(), b.data(),
              /*bScalar=*/false, out.data(), a.size());
}
void minF32(Span<const float> a, Span<const float> b, Span<float> out) {
  assert(a.size() == b.size() && a.size() == out.size());
  arithF32Row(getHostSimdLevel(), ArithOp::Min, a.data(), b.data(),
              /*bScalar=*/false, out.data(), a.size());
}

namespace {
template <typename T> bool comparePred(ComparePredicate pred, T a, T b) {
  switch (pred) {
  case ComparePredicate::Eq:
    return a == b;
  case ComparePredicate::Ne:
    return a != b;
  case ComparePredicate::Lt:
    return a < b;
  case ComparePredicate::Le:
    return a <= b;
  case ComparePredicate::Gt:
    return a > b;
  case ComparePredicate::Ge:
    return a >= b;
  }
  return false;
}
} // namespace

bool compareF32(ComparePredicate pred, float a, float b) {
  return comparePred(pred, a, b);
}
bool compareI32(ComparePredicate pred, int32_t a, int32_t b) {
  return comparePred(pred, a, b);
}
void compareF32(ComparePredicate pred, Span<const float> a, Span<const float> b,
                Span<float> out) {
  binary(a, b, out, [pred](float x, float y) {
    return compareF32(pred, x, y) ? 1.0f : 0.0f;
  });
}
void compareI32(ComparePredicate pred, Span<const int32_t> a,
                Span<const int32_t> b, Span<int32_t> out) {
  assert(a.size() == b.size() && a.size() == out.size());
  for (size_t i = 0, e = a.size(); i != e; ++i)
    out.data()[i] = compareI32(pred, a.data()[i], b.data()[i]) ? 1 : 0;
}

void negF32(Span<const float> in, Span<float> out) {
  unary(in, out, [](float x) { return -x; });
}
void absF32(Span<const float> in, Span<float> out) {
  unary(in, out, [](float x) { return std::fabs(x); });
}
void reluF32(Span<const float> in, Span<float> out) {
  unary(in, out,
        [](float x) { return std::isnan(x) ? x : (x > 0.0f ? x : 0.0f); });
}
void clipF32(Span<const float> in, float lo, float hi, Span<float> out) {
  assert(!(lo > hi));
  unary(in, out, [lo, hi](float x) { return minF32(maxF32(x, lo), hi); });
}
void expF32(Span<const float> in, Span<float> out) {
  assert(in.size() == out.size());
  expF32Row(getHostSimdLevel(), in.data(), out.data(), in.size());
}
void erfF32(Span<const float> in, Span<float> out) {
  unary(in, out, [](float x) { return erfF32(x); });
}
void tanhF32(Span<const float> in, Span<float> out) {
  assert(in.size() == out.size());
  tanhF32Row(getHostSimdLevel(), in.data(), out.data(), in.size());
}
void sigmoidF32(Span<const float> in, Span<float> out) {
  assert(in.size() == out.size());
  sigmoidF32Row(getHostSimdLevel(), in.data(), out.data(), in.size());
}
void geluErfF32(Span<const float> in, Span<float> out) {
  unary(in, out, [](float x) { return geluErfF32(x); });
}
void geluTanhF32(Span<const float> in, Span<float> out) {
  unary(in, out, [](float x) { return geluTanhF32(x); });
}
void reciprocalF32(Span<const float> in, Span<float> out) {
  unary(in, out, [](float x) { return 1.0f / x; });
}
void sqrtF32(Span<const float> in, Span<float> out) {
  unary(in, out, [](float x) { return std::sqrt(x); });
}
void rsqrtF32(Span<const float> in, Span<float> out) {
  unary(in, out, [](float x) { return 1.0f / std::sqrt(x); });
}

float reduceSumF32(Span<const float> in) {
  return reduceSumF32Row(getHostSimdLevel(), in.data(), in.size());
}

float reduceMaxF32(Span<const float> in) {
  return reduceMaxF32Row(getHostSimdLevel(), in.data(), in.size());
}

float reduceMinF32(Span<const float> in) {
  return reduceMinF32Row(getHostSimdLevel(), in.data(), in.size());
}

float reduceMeanF32(Span<const float> in) {
  if (in.empty())
    return std::numeric_limits<float>::quiet_NaN();
  return reduceSumF32(in) / static_cast<float>(in.size());
}

void softmaxRowF32(Span<const float> in, Span<float> out) {
  assert(in.size() == out.size());
  if (in.empty())
    return;
  float m = reduceMaxF32(in);
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = expF32(in[i] - m);
  float s = reduceSumF32(out);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = out[i] / s;
}

void layerNormRowF32(Span<const float> in, Span<const float> gamma,
                     Span<const float> beta, float eps, Span<float> out) {
  size_t n = in.size();
  assert(out.size() == n && (gamma.empty() || gamma.size() == n) &&
         (beta.empty() || beta.size() == n));
  if (n == 0)
    return;
  float mu = reduceMeanF32(in);
  std::vector<float> sq(n);
  for (size_t i = 0; i < n; ++i) {
    out[i] = in[i] - mu;
    sq[i] = out[i] * out[i];
  }
  float var = reduceMeanF32(sq);
  float r = 1.0f / std::sqrt(var + eps);
  for (size_t i = 0; i < n; ++i) {
    float v = out[i] * r;
    if (!gamma.empty())
      v = v * gamma[i];
    if (!beta.empty())
      v = v + beta[i];
    out[i] = v;
  }
}

} // namespace numerics
} // namespace nnaccel
