//===- Compare.cpp - Checking outputs against reference tensors -----------===//
//
// Everything is widened to double (exact for every supported type but i64
// beyond 2^53, which the integer path compares as int64 instead), and the
// sums behind the accuracy figures are accumulated in double too.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/TensorIO/Compare.h"

#include "nnaccel/Numerics/Float16.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace nnaccel {
namespace tensorio {

using runtime::DType;
using runtime::Tensor;

namespace {
template <typename T> T load(const Tensor &t, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t *>(t.data()) + i * sizeof(T),
              sizeof(T));
  return v;
}

/// Integer elements exactly: i64 directly, narrower types through their
/// exact double.
int64_t elementAsInt(const Tensor &t, int64_t i) {
  if (t.getDType() == DType::I64)
    return load<int64_t>(t, i);
  return static_cast<int64_t>(elementAsDouble(t, i));
}
} // namespace

double elementAsDouble(const Tensor &t, int64_t i) {
  switch (t.getDType()) {
  case DType::F32:
    return load<float>(t, i);
  case DType::F64:
    return load<double>(t, i);
  case DType::F16:
    return numerics::fp16ToFp32(load<uint16_t>(t, i));
  case DType::BF16:
    return numerics::bf16ToFp32(load<uint16_t>(t, i));
  case DType::I1:
  case DType::U8:
    return load<uint8_t>(t, i);
  case DType::I8:
    return load<int8_t>(t, i);
  case DType::I16:
    return load<int16_t>(t, i);
  case DType::U16:
    return load<uint16_t>(t, i);
  case DType::U32:
    return load<uint32_t>(t, i);
  case DType::I32:
    return load<int32_t>(t, i);
  case DType::I64:
    return static_cast<double>(load<int64_t>(t, i));
  default:
    // Packed and narrow formats are rejected by compareTensors first.
    return std::nan("");
  }
}

namespace {

//===----------------------------------------------------------------------===//
// Top-k agreement
//===----------------------------------------------------------------------===//

/// Whether value `a` at class `i` ranks above `b` at class `j` in the
/// descending order NumPy's argmax and argsort use: NaN above everything,
/// ties to the lower index. Users check our figures with NumPy, so an
/// output row with a NaN agrees exactly when NumPy says it does.
bool ranksAbove(double a, int64_t i, double b, int64_t j) {
  bool nanA = std::isnan(a), nanB = std::isnan(b);
  if (nanA != nanB)
    return nanA;
  if (!nanA && a != b)
    return a > b;
  return i < j;
}

int64_t argmax(const double *row, int64_t classes) {
  int64_t best = 0;
  for (int64_t j = 1; j < classes; ++j)
    if (ranksAbove(row[j], j, row[best], best))
      best = j;
  return best;
}

/// Position of class `c` in `row` sorted in that order (0 = the argmax).
int64_t rankOf(const double *row, int64_t classes, int64_t c) {
  int64_t rank = 0;
  for (int64_t j = 0; j < classes; ++j)
    if (j != c && ranksAbove(row[j], j, row[c], c))
      ++rank;
  return rank;
}

void computeTopK(const std::vector<double> &out, const std::vector<double> &ref,
                 const std::vector<int64_t> &shape, Comparison &c) {
  // Only [batch, classes]: the last axis of higher-rank outputs is usually
  // spatial (NCHW), where an argmax means nothing.
  if (shape.size() != 2 || shape[0] < 1 || shape[1] < 2)
    return;
  int64_t rows = shape[0], classes = shape[1];
  TopKAgreement top1, top5;
  top1.rows = top5.rows = rows;
  for (int64_t r = 0; r < rows; ++r) {
    const double *o = out.data() + r * classes;
    int64_t label = argmax(ref.data() + r * classes, classes);
    int64_t rank = rankOf(o, classes, label);
    top1.agree += rank == 0;
    top5.agree += rank < 5;
  }
  c.top1 = top1;
  if (classes >= 5)
    c.top5 = top5;
}

//===----------------------------------------------------------------------===//
// Normalised-entropy delta
//===----------------------------------------------------------------------===//

/// x ln y with 0 ln y = 0, the convention of the entropy sums.
double xlog(double x, double y) { return x == 0 ? 0.0 : x * std::log(y); }

double sigmoid(double x) {
  if (x >= 0)
    return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

/// A saturated output probability (exactly 0 or 1, or past it after
/// quantisation) would make the cross-entropy infinite where the reference
/// is not; clamping keeps the cost large but finite, as log-loss
/// implementations do.
constexpr double ProbabilityClamp = 1e-12;

std::optional<CtrFigures> computeCtr(const std::vector<double> &out,
                                     const std::vector<double> &ref,
                                     CtrMode mode) {
  if (ref.empty())
    return std::nullopt;
  auto inUnit = [](double v) { return v >= 0 && v <= 1; };
  CtrFigures f;
  if (mode == CtrMode::Auto) {
    if (!std::all_of(ref.begin(), ref.end(), inUnit))
      return std::nullopt;
  } else {
    // Output and reference come from the same model, so they are either
    // both probabilities or both logits.
    auto outside = [&](double v) { return std::isfinite(v) && !inUnit(v); };
    f.logits = std::any_of(ref.begin(), ref.end(), outside) ||
               std::any_of(out.begin(), out.end(), outside);
  }
  // Sum KL(p || q) directly rather than H(p,q) - H(p,p): the two entropies
  // are nearly equal for a good output, and their difference would lose
  // the digits the delta is made of.
  double sumEntropy = 0, sumKl = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(out[i]) || !std::isfinite(ref[i]))
      continue;
    double p = f.logits ? sigmoid(ref[i]) : ref[i];
    double q = f.logits ? sigmoid(out[i]) : out[i];
    sumEntropy -= xlog(p, p) + xlog(1 - p, 1 - p);
    // An exact element costs nothing, also at 0 or 1 where the clamp
    // would otherwise charge it ~1e-12.
    q = std::clamp(q, 0.0, 1.0);
    if (q != p) {
      q = std::clamp(q, ProbabilityClamp, 1 - ProbabilityClamp);
      // KL >= 0; only rounding in the two cancelling terms could make a
      // near-exact element negative.
      sumKl += std::max(0.0, xlog(p, p / q) + xlog(1 - p, (1 - p) / (1 - q)));
    }
    ++f.elements;
  }
  if (f.elements == 0)
    return std::nullopt;
  double n = static_cast<double>(f.elements);
  f.refEntropy = sumEntropy / n;
  f.crossEntropy = (sumEntropy + sumKl) / n;
  if (sumEntropy > 0)
    f.neDeltaPercent = 100.0 * sumKl / sumEntropy;
  else
    f.neDeltaPercent =
        sumKl > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  return f;
}

} // namespace

Comparison compareTensors(const Tensor &out, const Tensor &ref,
                          const Tolerance &tol, CtrMode ctr) {
  Comparison c;
  if (out.isNull() || ref.isNull()) {
    c.error = "missing tensor";
    return c;
  }
  if (out.getShape() != ref.getShape()) {
    c.error = "shape " + out.getDesc().toString() + " vs reference " +
              ref.getDesc().toString();
    return c;
  }
  for (DType t : {out.getDType(), ref.getDType()})
    if (!runtime::isFloatDType(t) && !runtime::isIntegerDType(t)) {
      c.error = std::string("cannot compare ") + runtime::getDTypeName(t) +
                " tensors element by element";
      return c;
    }
  bool outFloat = runtime::isFloatDType(out.getDType());
  bool refFloat = runtime::isFloatDType(ref.getDType());
  if (outFloat != refFloat) {
    c.error = std::string("dtype ") + runtime::getDTypeName(out.getDType()) +
              " vs reference " + runtime::getDTypeName(ref.getDType());
    return c;
  }
  c.elements = out.getNumElements();
  c.exact = !outFloat;
  std::vector<double> outValues, refValues;
  if (!c.exact) {
    outValues.resize(static_cast<size_t>(c.elements));
    refValues.resize(static_cast<size_t>(c.elements));
  }
  double dot = 0, normOut = 0, normRef = 0, sumAbs = 0, sumSqErr = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < c.elements; ++i) {
    bool bad;
    double a, b;
    if (c.exact) {
      int64_t x = elementAsInt(out, i), y = elementAsInt(ref, i);
      bad = x != y;
      a = static_cast<double>(x);
      b = static_cast<double>(y);
    } else {
      a = elementAsDouble(out, i);
      b = elementAsDouble(ref, i);
      outValues[static_cast<size_t>(i)] = a;
      refValues[static_cast<size_t>(i)] = b;
      if (std::isnan(a) || std::isnan(b))
        bad = std::isnan(a) != std::isnan(b);
      else if (std::isinf(a) || std::isinf(b))
        bad = a != b;
      else
        bad = !(std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b));
    }
    if (std::isfinite(a) && std::isfinite(b)) {
      double err = std::fabs(a - b);
      c.maxAbsError = std::max(c.maxAbsError, err);
      if (b != 0)
        c.maxRelError = std::max(c.maxRelError, err / std::fabs(b));
      sumAbs += err;
      sumSqErr += err * err;
      dot += a * b;
      normOut += a * a;
      normRef += b * b;
      ++finite;
    } else if (bad) {
      ++c.nonFiniteMismatches;
    }
    if (bad) {
      if (c.mismatches == 0)
        c.firstMismatch = i;
      ++c.mismatches;
    }
  }
  if (finite) {
    c.meanAbsError = sumAbs / static_cast<double>(finite);
    c.rmse = std::sqrt(sumSqErr / static_cast<double>(finite));
  }
  // An exact output has infinite SNR whatever the reference; a zero
  // reference with any error has none (10 log10 0 = -inf).
  c.snrDb = sumSqErr == 0 ? std::numeric_limits<double>::infinity()
                          : 10 * std::log10(normRef / sumSqErr);
  if (normOut > 0 && normRef > 0)
    c.cosine = dot / (std::sqrt(normOut) * std::sqrt(normRef));
  else
    c.cosine = normOut == normRef ? 1.0 : 0.0;
  c.pass = c.mismatches == 0;
  if (!c.exact) {
    computeTopK(outValues, refValues, out.getShape(), c);
    c.ctr = computeCtr(outValues, refValues, ctr);
  }
  return c;
}

Verdict judge(const Comparison &c, const Criteria &criteria) {
  Verdict v;
  if (!c.error.empty()) {
    v.failures.push_back(c.error);
    return v;
  }
  bool cosine = !c.exact && criteria.minCosine;
  bool top1 = !c.exact && criteria.minTop1Percent && c.top1;
  bool ne = !c.exact && criteria.maxNeDeltaPercent && c.ctr;
  bool figures = cosine || top1 || ne;

  if (c.exact || !figures || criteria.alsoTolerance) {
    v.checks.push_back(c.exact
                           ? std::string("exact")
                           : fmt::format("atol {:g} rtol {:g}",
                                         criteria.tol.atol, criteria.tol.rtol));
    if (!c.pass)
      v.failures.push_back(fmt::format(
          "{} of {} elements outside tolerance, first at flat index {}",
          c.mismatches, c.elements, c.firstMismatch));
  }
  if (cosine) {
    double min = *criteria.minCosine;
    v.checks.push_back(fmt::format("cosine >= {:g}", min));
    if (!(c.cosine >= min))
      v.failures.push_back(fmt::format("cosine {:.6f} < {:g}, short by {:.3g}",
                                       c.cosine, min, min - c.cosine));
  }
  if (top1) {
    double min = *criteria.minTop1Percent, got = c.top1->percent();
    v.checks.push_back(fmt::format("top-1 >= {:g}%", min));
    if (!(got >= min))
      v.failures.push_back(
          fmt::format("top-1 agreement {:.4g}% < {:g}%, short by {:.3g} "
                      "points",
                      got, min, min - got));
  }
  if (ne) {
    double max = *criteria.maxNeDeltaPercent, got = c.ctr->neDeltaPercent;
    v.checks.push_back(fmt::format("NE delta <= {:g}%", max));
    if (!(got <= max))
      v.failures.push_back(
          fmt::format("NE delta {:+.3g}% > {:g}%, over by {:.3g} points", got,
                      max, got - max));
  }
  // The figures skip NaN and infinite elements, so a criterion on them
  // alone would pass an output that is partly NaN.
  if (figures && c.nonFiniteMismatches)
    v.failures.push_back(
        fmt::format("{} NaN or infinite element(s) where the reference differs",
                    c.nonFiniteMismatches));
  v.pass = v.failures.empty();
  return v;
}

} // namespace tensorio
} // namespace nnaccel
