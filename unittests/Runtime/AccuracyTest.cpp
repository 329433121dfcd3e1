//===- AccuracyTest.cpp - nnaccel-run's accuracy figures and criteria -----===//
//
// Every figure of tensorio::compareTensors beyond the elementwise tolerance
// (mean absolute error, RMSE, SNR, top-1/top-5 agreement, the CTR
// normalised-entropy delta) on cases small enough to work out by hand, the
// expected values in the comments, and tensorio::judge's choice of checks.
// Degenerate inputs get their own cases: zero vectors, one class, NaN in
// the output, a reference with zero entropy, saturated probabilities.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include "nnaccel/TensorIO/Compare.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace nnaccel;
using namespace nnaccel::tensorio;
using runtime::test::f32;
using runtime::test::i64;

namespace {

const float NaN = std::numeric_limits<float>::quiet_NaN();
const double Inf = std::numeric_limits<double>::infinity();

Comparison compare(std::vector<int64_t> shape, const std::vector<float> &out,
                   const std::vector<float> &ref, CtrMode ctr = CtrMode::Auto) {
  Comparison c =
      compareTensors(f32(shape, out), f32(shape, ref), Tolerance(), ctr);
  REQUIRE(c.error.empty());
  return c;
}

} // namespace

//===----------------------------------------------------------------------===//
// Error figures
//===----------------------------------------------------------------------===//

TEST_CASE("error figures", "[accuracy]") {
  // err = (0, 0, 0, 1); sum ref^2 = 1 + 4 + 9 + 25 = 39.
  Comparison c = compare({4}, {1, 2, 3, 4}, {1, 2, 3, 5});
  REQUIRE(c.maxAbsError == 1);
  REQUIRE(c.maxRelError == Approx(0.2));
  REQUIRE(c.meanAbsError == Approx(0.25));
  REQUIRE(c.rmse == Approx(0.5));
  REQUIRE(c.snrDb == Approx(10 * std::log10(39.0)));
  // dot 34, |out|^2 30.
  REQUIRE(c.cosine == Approx(34 / std::sqrt(30.0 * 39.0)));
  REQUIRE(c.nonFiniteMismatches == 0);
  REQUIRE(!c.top1);
  REQUIRE(!c.ctr); // 2..5 is not a probability
}

TEST_CASE("error figures of zero vectors", "[accuracy]") {
  // Identical: no error at all, infinite SNR, cosine 1 by convention.
  Comparison same = compare({3}, {0, 0, 0}, {0, 0, 0});
  REQUIRE(same.meanAbsError == 0);
  REQUIRE(same.rmse == 0);
  REQUIRE(same.snrDb == Inf);
  REQUIRE(same.cosine == 1);

  // Zero output against (3, 4, 0): the error is the whole signal, 0 dB.
  Comparison zeroOut = compare({3}, {0, 0, 0}, {3, 4, 0});
  REQUIRE(zeroOut.snrDb == Approx(0.0).margin(1e-12));
  REQUIRE(zeroOut.cosine == 0);
  REQUIRE(zeroOut.rmse == Approx(std::sqrt(25.0 / 3)));

  // Any error against a zero reference: no signal, -inf dB.
  Comparison zeroRef = compare({3}, {0, 1, 0}, {0, 0, 0});
  REQUIRE(zeroRef.snrDb == -Inf);
  REQUIRE(zeroRef.cosine == 0);
  REQUIRE(zeroRef.meanAbsError == Approx(1.0 / 3));

  // An empty tensor has nothing to disagree with.
  Comparison empty = compare({0}, {}, {});
  REQUIRE(empty.meanAbsError == 0);
  REQUIRE(empty.snrDb == Inf);
  REQUIRE(!empty.ctr);
}

TEST_CASE("NaN in the output", "[accuracy]") {
  // The NaN is counted, not summed: the figures cover elements 0 and 2,
  // which are exact.
  Comparison c = compare({3}, {1, NaN, 3}, {1, 2, 3});
  REQUIRE(c.nonFiniteMismatches == 1);
  REQUIRE(c.mismatches == 1);
  REQUIRE(c.firstMismatch == 1);
  REQUIRE(c.maxAbsError == 0);
  REQUIRE(c.meanAbsError == 0);
  REQUIRE(c.cosine == Approx(1.0));
  REQUIRE(c.snrDb == Inf);

  // A NaN the reference has too is a match, as in the tolerance check.
  Comparison both = compare({2}, {NaN, 1}, {NaN, 1});
  REQUIRE(both.nonFiniteMismatches == 0);
  REQUIRE(both.pass);
  // So is the same infinity; a different one is not.
  float inf = std::numeric_limits<float>::infinity();
  REQUIRE(compare({2}, {inf, 1}, {inf, 1}).nonFiniteMismatches == 0);
  REQUIRE(compare({2}, {-inf, 1}, {inf, 1}).nonFiniteMismatches == 1);
}

//===----------------------------------------------------------------------===//
// Top-1 / top-5 agreement
//===----------------------------------------------------------------------===//

TEST_CASE("top-1 agreement", "[accuracy]") {
  // Reference argmax per row: 0, 2, 3. Output argmax: 0, 1, 3.
  Comparison c = compare({3, 4}, {9, 1, 2, 3, /**/ 0, 5, 4, 1, /**/ 0, 0, 1, 2},
                         {8, 1, 2, 3, /**/ 0, 4, 5, 1, /**/ 1, 0, 1, 2});
  REQUIRE(c.top1);
  REQUIRE(c.top1->rows == 3);
  REQUIRE(c.top1->agree == 2);
  REQUIRE(c.top1->percent() == Approx(200.0 / 3));
  REQUIRE(!c.top5); // 4 classes

  // Ties go to the lower index on both sides (NumPy's argmax): (1, 1)
  // picks class 0 in the reference, (0, 0) class 0 in the output.
  REQUIRE(compare({1, 2}, {0, 0}, {1, 1}).top1->agree == 1);
  // (2, 2) vs reference (1, 2): the output's tie picks 0, the reference 1.
  REQUIRE(compare({1, 2}, {2, 2}, {1, 2}).top1->agree == 0);
}

TEST_CASE("top-1 agreement with NaN", "[accuracy]") {
  // NumPy ranks NaN above every number, so an output row with a NaN
  // agrees only where the reference's argmax is that NaN's class.
  Comparison c =
      compare({2, 3}, {0, NaN, 5, /**/ NaN, 1, 2}, {0, 9, 1, /**/ 0, 1, 2});
  REQUIRE(c.top1->agree == 1);
  REQUIRE(c.nonFiniteMismatches == 2);
}

TEST_CASE("top-1 agreement only for [batch, classes]", "[accuracy]") {
  // One class: nothing to choose between.
  REQUIRE(!compare({4, 1}, {1, 2, 3, 4}, {1, 2, 3, 4}).top1);
  // Rank 1 and rank 3+: not a [batch, classes] output.
  REQUIRE(!compare({4}, {1, 2, 3, 4}, {1, 2, 3, 4}).top1);
  REQUIRE(!compare({1, 2, 2}, {1, 2, 3, 4}, {1, 2, 3, 4}).top1);
  // Two classes are enough.
  REQUIRE(compare({2, 2}, {1, 2, 3, 4}, {1, 2, 3, 4}).top1->agree == 2);
  // Integer outputs compare exactly and get no figures.
  Comparison ints = compareTensors(i64({2, 2}, {1, 0, 0, 1}),
                                   i64({2, 2}, {1, 0, 0, 1}), Tolerance());
  REQUIRE(ints.exact);
  REQUIRE(!ints.top1);
  REQUIRE(!ints.ctr);
}

TEST_CASE("top-5 agreement", "[accuracy]") {
  // Six classes, reference argmax class 0 in both rows. Row 0 of the
  // output puts class 0 fifth (four larger values), row 1 sixth (last).
  Comparison c = compare({2, 6}, {1, 5, 4, 3, 2, 0, /**/ 0, 5, 4, 3, 2, 1},
                         {9, 0, 0, 0, 0, 0, /**/ 9, 0, 0, 0, 0, 0});
  REQUIRE(c.top1->agree == 0);
  REQUIRE(c.top5);
  REQUIRE(c.top5->rows == 2);
  REQUIRE(c.top5->agree == 1);
  REQUIRE(c.top5->percent() == Approx(50.0));

  // A tie with the fifth value goes to the lower index: class 5 tied with
  // class 4 for fifth place ranks sixth.
  Comparison tie = compare({1, 6}, {4, 4, 4, 4, 4, 4}, {0, 0, 0, 0, 0, 9});
  REQUIRE(tie.top5->agree == 0);
  REQUIRE(compare({1, 6}, {4, 4, 4, 4, 4, 4}, {0, 0, 0, 0, 9, 0}).top5->agree ==
          1);
}

//===----------------------------------------------------------------------===//
// Normalised-entropy delta
//===----------------------------------------------------------------------===//

TEST_CASE("NE delta of probabilities", "[accuracy]") {
  // p = 0.5 everywhere: H(p) = ln 2 per element. One q = 0.6:
  // KL(0.5 || 0.6) = 0.5 ln(0.5/0.6) + 0.5 ln(0.5/0.4) = 0.5 ln(25/24).
  // NE delta = KL / (4 ln 2) = 0.7362 %.
  Comparison c =
      compare({4, 1}, {0.5f, 0.5f, 0.5f, 0.6f}, {0.5f, 0.5f, 0.5f, 0.5f});
  REQUIRE(c.ctr);
  REQUIRE(!c.ctr->logits);
  REQUIRE(c.ctr->elements == 4);
  double kl = 0.5 * std::log(25.0 / 24);
  REQUIRE(c.ctr->refEntropy == Approx(std::log(2.0)));
  REQUIRE(c.ctr->crossEntropy == Approx(std::log(2.0) + kl / 4).epsilon(1e-6));
  REQUIRE(c.ctr->neDeltaPercent ==
          Approx(100 * kl / (4 * std::log(2.0))).epsilon(1e-5));
  REQUIRE(c.ctr->neDeltaPercent == Approx(0.736170).epsilon(1e-5));

  // The output itself: no delta.
  Comparison same = compare({2}, {0.25f, 0.75f}, {0.25f, 0.75f});
  REQUIRE(same.ctr->neDeltaPercent == 0);
  // H(0.25) = -(0.25 ln 0.25 + 0.75 ln 0.75).
  REQUIRE(same.ctr->refEntropy ==
          Approx(-(0.25 * std::log(0.25) + 0.75 * std::log(0.75))));

  // A reference outside [0, 1] is no probability.
  REQUIRE(!compare({2}, {0.5f, 0.5f}, {0.5f, 1.5f}).ctr);
  REQUIRE(!compare({2}, {0.5f, 0.5f}, {0.5f, -0.01f}).ctr);
  REQUIRE(!compare({2}, {0.5f, 0.5f}, {0.5f, NaN}).ctr);
}

TEST_CASE("NE delta of a saturated output", "[accuracy]") {
  // q = 0 where p = 0.5 would be infinitely wrong; q is clamped to 1e-12:
  // KL = 0.5 ln(0.5 / 1e-12) + 0.5 ln(0.5 / 1).
  Comparison c = compare({1}, {0.0f}, {0.5f});
  double kl = 0.5 * std::log(0.5 / 1e-12) + 0.5 * std::log(0.5);
  REQUIRE(std::isfinite(c.ctr->neDeltaPercent));
  REQUIRE(c.ctr->neDeltaPercent == Approx(100 * kl / std::log(2.0)));
  // An output slightly past 1 (quantisation) is clamped the same way.
  REQUIRE(std::isfinite(compare({1}, {1.01f}, {0.5f}).ctr->neDeltaPercent));
}

TEST_CASE("NE delta of a zero-entropy reference", "[accuracy]") {
  // p in {0, 1}: H(p, p) = 0 with 0 ln 0 = 0. The same output: 0 %;
  // anything else: an infinitely larger entropy.
  REQUIRE(compare({2}, {0, 1}, {0, 1}).ctr->neDeltaPercent == 0);
  Comparison c = compare({2}, {0.1f, 1}, {0, 1});
  REQUIRE(c.ctr->refEntropy == 0);
  REQUIRE(c.ctr->crossEntropy == Approx(-std::log(0.9) / 2).epsilon(1e-6));
  REQUIRE(c.ctr->neDeltaPercent == Inf);
  // An all-zero reference lies in [0, 1] too (e.g. a ReLU output that
  // stayed 0): a CTR output by the rule, with the same zero entropy.
  REQUIRE(compare({3}, {0, 0, 0}, {0, 0, 0}).ctr->neDeltaPercent == 0);
}

TEST_CASE("NE delta of logits", "[accuracy]") {
  // Named CTR output with a value outside [0, 1]: both sides are logits.
  // sigmoid(0) = 0.5, sigmoid(ln 3) = 0.75:
  // KL(0.5 || 0.75) = 0.5 ln(0.5/0.75) + 0.5 ln(0.5/0.25) = 0.5 ln(4/3);
  // NE delta = KL / (2 ln 2) = 10.376 %.
  float ln3 = static_cast<float>(std::log(3.0));
  Comparison c = compare({2}, {0, ln3}, {0, 0}, CtrMode::Forced);
  REQUIRE(c.ctr->logits);
  REQUIRE(c.ctr->neDeltaPercent ==
          Approx(100 * 0.5 * std::log(4.0 / 3) / (2 * std::log(2.0)))
              .epsilon(1e-5));
  // Without the name the same tensors are probabilities (the reference is
  // in [0, 1]), and the output's 1.0986 is clamped below 1.
  Comparison automatic = compare({2}, {0, ln3}, {0, 0});
  REQUIRE(!automatic.ctr->logits);

  // Named, all values in [0, 1]: probabilities as they are.
  Comparison probs = compare({2}, {0.5f, 0.6f}, {0.5f, 0.5f}, CtrMode::Forced);
  REQUIRE(!probs.ctr->logits);
  REQUIRE(probs.ctr->neDeltaPercent ==
          Approx(100 * 0.5 * std::log(25.0 / 24) / (2 * std::log(2.0)))
              .epsilon(1e-5));

  // Named outputs outside [0, 1] on the reference side only.
  REQUIRE(
      compare({2}, {0.5f, 0.5f}, {0.5f, 1.5f}, CtrMode::Forced).ctr->logits);
}

//===----------------------------------------------------------------------===//
// judge()
//===----------------------------------------------------------------------===//

TEST_CASE("judge: the tolerance by default", "[accuracy]") {
  Criteria k;
  Comparison c = compare({4}, {1, 2, 3, 4}, {1, 2, 3, 5});
  Verdict v = judge(c, k);
  REQUIRE(!v.pass);
  REQUIRE(v.checks == std::vector<std::string>{"atol 0.0001 rtol 0.001"});
  REQUIRE(v.failures == std::vector<std::string>{
                            "1 of 4 elements outside tolerance, first at "
                            "flat index 3"});
  REQUIRE(judge(compare({2}, {1, 2}, {1, 2}), k).pass);

  Comparison shape =
      compareTensors(f32({2}, {1, 2}), f32({1, 2}, {1, 2}), Tolerance());
  Verdict bad = judge(shape, k);
  REQUIRE(!bad.pass);
  REQUIRE(bad.checks.empty());
  REQUIRE(bad.failures ==
          std::vector<std::string>{"shape f32[2] vs reference f32[1x2]"});
}

TEST_CASE("judge: criteria replace the tolerance", "[accuracy]") {
  // cosine 34 / sqrt(1170) = 0.9939990.
  Comparison c = compare({4}, {1, 2, 3, 4}, {1, 2, 3, 5});
  Criteria k;
  k.minCosine = 0.99;
  Verdict v = judge(c, k);
  REQUIRE(v.pass);
  REQUIRE(v.checks == std::vector<std::string>{"cosine >= 0.99"});

  k.minCosine = 0.995;
  v = judge(c, k);
  REQUIRE(!v.pass);
  REQUIRE(v.failures ==
          std::vector<std::string>{"cosine 0.993999 < 0.995, short by 0.001"});

  // --atol/--rtol given as well: both apply, tolerance first.
  k.minCosine = 0.99;
  k.alsoTolerance = true;
  v = judge(c, k);
  REQUIRE(!v.pass);
  REQUIRE(v.checks ==
          std::vector<std::string>{"atol 0.0001 rtol 0.001", "cosine >= 0.99"});
  REQUIRE(v.failures.size() == 1);
}

TEST_CASE("judge: top-1 and NE delta where they apply", "[accuracy]") {
  Criteria k;
  k.minTop1Percent = 70;
  // 2 of 3 rows agree: 66.67 % < 70 %.
  Comparison cls =
      compare({3, 4}, {9, 1, 2, 3, /**/ 0, 5, 4, 1, /**/ 0, 0, 1, 2},
              {8, 1, 2, 3, /**/ 0, 4, 5, 1, /**/ 1, 0, 1, 2});
  Verdict v = judge(cls, k);
  REQUIRE(v.checks == std::vector<std::string>{"top-1 >= 70%"});
  REQUIRE(v.failures == std::vector<std::string>{
                            "top-1 agreement 66.67% < 70%, short by 3.33 "
                            "points"});
  k.minTop1Percent = 66;
  REQUIRE(judge(cls, k).pass);

  // No top-1 figure on a rank-1 output: the tolerance decides rather than
  // nothing.
  Comparison flat = compare({4}, {1, 2, 3, 4}, {1, 2, 3, 5});
  v = judge(flat, k);
  REQUIRE(v.checks == std::vector<std::string>{"atol 0.0001 rtol 0.001"});
  REQUIRE(!v.pass);

  Criteria ne;
  ne.maxNeDeltaPercent = 0.5;
  Comparison ctr =
      compare({4}, {0.5f, 0.5f, 0.5f, 0.6f}, {0.5f, 0.5f, 0.5f, 0.5f});
  v = judge(ctr, ne);
  REQUIRE(v.checks == std::vector<std::string>{"NE delta <= 0.5%"});
  REQUIRE(v.failures == std::vector<std::string>{
                            "NE delta +0.736% > 0.5%, over by 0.236 points"});
  ne.maxNeDeltaPercent = 1;
  REQUIRE(judge(ctr, ne).pass);
}

TEST_CASE("judge: NaN fails the figure criteria", "[accuracy]") {
  // The figures skip the NaN and show a perfect output; the verdict must
  // not.
  Comparison c = compare({3}, {1, NaN, 3}, {1, 2, 3});
  Criteria k;
  k.minCosine = 0.9;
  Verdict v = judge(c, k);
  REQUIRE(!v.pass);
  REQUIRE(v.failures ==
          std::vector<std::string>{
              "1 NaN or infinite element(s) where the reference differs"});
}

TEST_CASE("judge: integers stay exact", "[accuracy]") {
  Criteria k;
  k.minCosine = 0.5;
  Comparison c =
      compareTensors(i64({3}, {1, 2, 3}), i64({3}, {1, 2, 4}), Tolerance());
  Verdict v = judge(c, k);
  REQUIRE(v.checks == std::vector<std::string>{"exact"});
  REQUIRE(!v.pass);
}
