//===- VectorOpsTest.cpp - Elementwise op and reduction tests -------------===//
//
// Accuracy of the library's own transcendental implementations against the
// double-precision libm, special values (NaN, inf, signed zero), the
// NaN-propagating max/min, and the reduction order.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Numerics/VectorOps.h"

#include "nnaccel/Numerics/Kernels.h"

#include <catch2/catch.hpp>

using namespace nnaccel::numerics;

namespace {
/// Error in units of the fp32 ulp of the reference value.
double ulpError(float got, double want) {
  if (want == 0.0)
    return got == 0.0f ? 0.0 : 1e9;
  int e;
  std::frexp(want, &e);
  double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

std::vector<float> grid(float lo, float hi, size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n - 1);
  return v;
}
} // namespace

TEST_CASE("expF32 accuracy and special values", "[vector][transcendental]") {
  double worst = 0;
  for (float x : grid(-87.0f, 88.5f, 200001))
    worst =
        std::max(worst, ulpError(expF32(x), std::exp(static_cast<double>(x))));
  CHECK(worst <= 2.0);
  CHECK(expF32(0.0f) == 1.0f);
  CHECK(expF32(-0.0f) == 1.0f);
  CHECK(expF32(1.0f) == Approx(2.718281828f).epsilon(1e-7));
  CHECK(expF32(INFINITY) == INFINITY);
  CHECK(expF32(-INFINITY) == 0.0f);
  CHECK(std::isnan(expF32(NAN)));
  CHECK(expF32(89.0f) == INFINITY);
  CHECK(expF32(88.7f) < INFINITY);
  CHECK(expF32(-200.0f) == 0.0f);
  // Subnormal results are produced (one rounding).
  float sub = expF32(-100.0f);
  CHECK(sub > 0.0f);
  CHECK(sub < std::numeric_limits<float>::min());
  CHECK(ulpError(sub, std::exp(-100.0)) <= 1.0);
}

TEST_CASE("tanh, sigmoid, erf accuracy", "[vector][transcendental]") {
  double wTanh = 0, wSig = 0, wErf = 0;
  for (float x : grid(-10.0f, 10.0f, 100001)) {
    double xd = x;
    wTanh = std::max(wTanh, std::fabs(tanhF32(x) - std::tanh(xd)) /
                                std::max(std::fabs(std::tanh(xd)), 1e-30));
    wSig = std::max(wSig, std::fabs(sigmoidF32(x) - 1 / (1 + std::exp(-xd))) /
                              (1 / (1 + std::exp(-xd))));
    wErf = std::max(wErf, std::fabs(erfF32(x) - std::erf(xd)));
  }
  CHECK(wTanh < 5e-7);
  CHECK(wSig < 5e-7);
  CHECK(wErf < 1e-6);
  // Small arguments: relative accuracy, signed zero.
  CHECK(tanhF32(1e-20f) == 1e-20f);
  CHECK(std::signbit(tanhF32(-0.0f)));
  CHECK(tanhF32(0.2f) == Approx(std::tanh(0.2)).epsilon(2e-7));
  CHECK(erfF32(1e-10f) == Approx(1.1283791671e-10).epsilon(1e-6));
  CHECK(tanhF32(INFINITY) == 1.0f);
  CHECK(tanhF32(-50.0f) == -1.0f);
  CHECK(erfF32(-INFINITY) == -1.0f);
  CHECK(erfF32(5.0f) == 1.0f);
  CHECK(sigmoidF32(-INFINITY) == 0.0f);
  CHECK(sigmoidF32(INFINITY) == 1.0f);
  CHECK(sigmoidF32(0.0f) == 0.5f);
  CHECK(std::isnan(tanhF32(NAN)));
  CHECK(std::isnan(erfF32(NAN)));
  CHECK(std::isnan(sigmoidF32(NAN)));
}

TEST_CASE("gelu variants", "[vector][transcendental]") {
  for (float x : grid(-6.0f, 6.0f, 1201)) {
    double xd = x;
    double erfForm = 0.5 * xd * (1 + std::erf(xd / std::sqrt(2.0)));
    double tanhForm =
        0.5 * xd *
        (1 + std::tanh(std::sqrt(2 / M_PI) * (xd + 0.044715 * xd * xd * xd)));
    REQUIRE(geluErfF32(x) == Approx(erfForm).margin(2e-6));
    REQUIRE(geluTanhF32(x) == Approx(tanhForm).margin(2e-6));
  }
  CHECK(geluErfF32(0.0f) == 0.0f);
  CHECK(geluErfF32(INFINITY) == INFINITY);
  CHECK(geluErfF32(-INFINITY) == 0.0f);
  CHECK(geluTanhF32(-INFINITY) == 0.0f);
  CHECK(geluTanhF32(1e30f) == 1e30f);
  CHECK(std::isnan(geluTanhF32(NAN)));
  std::vector<float> in = {-1.0f, 0.5f}, out(2);
  geluErfF32(in, out);
  CHECK(out[0] == geluErfF32(-1.0f));
  geluTanhF32(in, out);
  CHECK(out[1] == geluTanhF32(0.5f));
}

TEST_CASE("max / min / relu / clip special values", "[vector]") {
  CHECK(std::isnan(maxF32(NAN, 1.0f)));
  CHECK(std::isnan(maxF32(1.0f, NAN)));
  CHECK(std::isnan(minF32(NAN, 1.0f)));
  CHECK_FALSE(std::signbit(maxF32(-0.0f, 0.0f)));
  CHECK_FALSE(std::signbit(maxF32(0.0f, -0.0f)));
  CHECK(std::signbit(minF32(0.0f, -0.0f)));
  CHECK(std::signbit(minF32(-0.0f, 0.0f)));
  std::vector<float> in = {-1.0f, -0.0f, 2.0f, NAN, INFINITY};
  std::vector<float> out(in.size());
  reluF32(in, out);
  CHECK(out[0] == 0.0f);
  CHECK_FALSE(std::signbit(out[1]));
  CHECK(out[2] == 2.0f);
  CHECK(std::isnan(out[3]));
  CHECK(out[4] == INFINITY);
  clipF32(in, -0.5f, 1.0f, out);
  CHECK(out[0] == -0.5f);
  CHECK(out[2] == 1.0f);
  CHECK(std::isnan(out[3]));
  CHECK(out[4] == 1.0f);
  std::vector<float> b = {0.0f, 0.0f, 3.0f, 0.0f, 0.0f};
  maxF32(in, b, out);
  CHECK(out[0] == 0.0f);
  CHECK(out[2] == 3.0f);
  CHECK(std::isnan(out[3]));
  minF32(in, b, out);
  CHECK(out[0] == -1.0f);
  CHECK(std::signbit(out[1]));
}

TEST_CASE("arithmetic span ops are single IEEE operations", "[vector]") {
  std::vector<float> a = {1.0f, 0.1f, -3.0f, 1e38f},
                     b = {3.0f, 0.2f, 0.0f, 10.0f};
  std::vector<float> out(4);
  addF32(a, b, out);
  CHECK(out[1] == 0.1f + 0.2f);
  subF32(a, b, out);
  CHECK(out[0] == -2.0f);
  mulF32(a, b, out);
  CHECK(out[3] == INFINITY);
  divF32(a, b, out);
  CHECK(out[0] == 1.0f / 3.0f);
  CHECK(out[2] == -INFINITY);
  negF32(a, out);
  CHECK(out[2] == 3.0f);
  absF32(a, out);
  CHECK(out[2] == 3.0f);
  // In-place (aliasing) use.
  std::vector<float> c = {4.0f, 0.25f, -1.0f, 0.0f};
  sqrtF32(c, c);
  CHECK(c[0] == 2.0f);
  CHECK(c[1] == 0.5f);
  CHECK(std::isnan(c[2]));
  std::vector<float> d = {4.0f, 0.0f, 2.0f};
  out.resize(3);
  rsqrtF32(d, out);
  CHECK(out[0] == 0.5f);
  CHECK(out[1] == INFINITY);
  CHECK(out[2] == 1.0f / std::sqrt(2.0f));
  reciprocalF32(d, out);
  CHECK(out[0] == 0.25f);
  CHECK(out[1] == INFINITY);
  std::vector<float> e = {0.0f, 1.0f}, eo(2);
  expF32(e, eo);
  CHECK(eo[0] == 1.0f);
  tanhF32(e, eo);
  CHECK(eo[1] == tanhF32(1.0f));
  sigmoidF32(e, eo);
  CHECK(eo[0] == 0.5f);
  erfF32(e, eo);
  CHECK(eo[1] == erfF32(1.0f));
}

TEST_CASE("reductions", "[vector]") {
  std::vector<float> v(100);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 0.1f * static_cast<float>(i) - 3.0f;
  std::vector<float> ones(100, 1.0f);
  // Same 16-lane order as the dot product with a vector of ones.
  CHECK(reduceSumF32(v) == dotF32(v, ones));
  CHECK(reduceSumF32(v) == Approx(195.0).epsilon(1e-5));
  CHECK(reduceMeanF32(v) == reduceSumF32(v) / 100.0f);
  CHECK(reduceMaxF32(v) == v[99]);
  CHECK(reduceMinF32(v) == -3.0f);
  CHECK(reduceMaxF32(Span<const float>()) == -INFINITY);
  CHECK(reduceSumF32(Span<const float>()) == 0.0f);
  CHECK(std::isnan(reduceMeanF32(Span<const float>())));
  v[50] = NAN;
  CHECK(std::isnan(reduceMaxF32(v)));
  CHECK(std::isnan(reduceMinF32(v)));
}

TEST_CASE("softmax and layer norm references", "[vector]") {
  std::vector<float> x = {1.0f, 2.0f, 3.0f, 1000.0f, -1000.0f};
  std::vector<float> y(x.size());
  softmaxRowF32(x, y);
  CHECK(y[3] == Approx(1.0f));
  CHECK(y[4] == 0.0f);
  std::vector<float> x2 = {1.0f, 2.0f, 3.0f};
  std::vector<float> y2(3);
  softmaxRowF32(x2, y2);
  double denom = std::exp(-2.0) + std::exp(-1.0) + 1.0;
  CHECK(y2[0] == Approx(std::exp(-2.0) / denom).epsilon(1e-6));
  CHECK(y2[2] == Approx(1.0 / denom).epsilon(1e-6));

  std::vector<float> ln(8);
  std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8};
  layerNormRowF32(in, Span<const float>(), Span<const float>(), 1e-5f, ln);
  CHECK(reduceMeanF32(ln) == Approx(0.0).margin(1e-6));
  double var = 0;
  for (float v : ln)
    var += static_cast<double>(v) * v;
  CHECK(var / 8 == Approx(1.0).epsilon(1e-4));
  std::vector<float> gamma(8, 2.0f), beta(8, 1.0f), ln2(8);
  layerNormRowF32(in, gamma, beta, 1e-5f, ln2);
  for (size_t i = 0; i < 8; ++i)
    CHECK(ln2[i] == ln[i] * 2.0f + 1.0f);
}
