//===- Compare.h - Checking outputs against reference tensors ---*- C++ -*-===//
//
// How nnaccel-run decides PASS/FAIL for one output. By default floating
// outputs pass when every element satisfies |out - ref| <= atol + rtol *
// |ref| (NaN matches only NaN, an infinity only the same infinity); integer
// and bool outputs must be equal. The report also carries accuracy figures
// -- max/mean absolute error, max relative error, RMSE, SNR, cosine
// similarity, top-1/top-5 agreement for classifier outputs and the
// normalised-entropy delta for CTR-style probability outputs -- because a
// quantised model never meets an fp32 tolerance and is judged by those
// figures instead (Criteria, judge()). docs/runtime.md defines each figure.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TENSORIO_COMPARE_H
#define NNACCEL_TENSORIO_COMPARE_H

#include "nnaccel/Runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel {
namespace tensorio {

struct Tolerance {
  double atol = 1e-4;
  double rtol = 1e-3;
};

/// How many rows of a [rows, classes] output pick the same class as the
/// reference: the output's top-k classes contain the reference's argmax.
struct TopKAgreement {
  int64_t rows = 0;
  int64_t agree = 0;
  double percent() const {
    return rows ? 100.0 * static_cast<double>(agree) / static_cast<double>(rows)
                : 100.0;
  }
};

/// Figures of a CTR-style output, the reference probabilities p taken as
/// soft labels for the output probabilities q (docs/runtime.md).
struct CtrFigures {
  bool logits = false;       ///< sigmoid applied to both (values outside [0,1])
  int64_t elements = 0;      ///< element pairs that were both finite
  double crossEntropy = 0;   ///< H(p, q), mean over the elements, nats
  double refEntropy = 0;     ///< H(p, p), mean over the elements, nats
  double neDeltaPercent = 0; ///< 100 * (H(p,q) - H(p,p)) / H(p,p)
};

struct Comparison {
  /// Every element within the tolerance (or equal, for integers).
  bool pass = false;
  /// Why the comparison could not be made (dtype class or shape mismatch);
  /// empty when the elements were compared.
  std::string error;
  int64_t elements = 0;
  int64_t mismatches = 0;     ///< elements outside the tolerance
  int64_t firstMismatch = -1; ///< flat index of the first one
  bool exact = false;         ///< integer/bool comparison

  // The error figures below are over the element pairs that are both
  // finite; a NaN or infinity that the other side does not have counts in
  // nonFiniteMismatches instead (it would make every sum meaningless).
  int64_t nonFiniteMismatches = 0;
  double maxAbsError = 0;
  double maxRelError = 0; ///< |out - ref| / |ref| over ref != 0
  double meanAbsError = 0;
  double rmse = 0;
  double snrDb = 0;  ///< 10 log10(sum ref^2 / sum (out-ref)^2); +inf if
                     ///< the output is exact
  double cosine = 1; ///< cosine similarity (1 for two zero vectors)

  /// Rank-2 floating outputs with at least 2 classes (top-5: at least 5).
  std::optional<TopKAgreement> top1, top5;
  /// Outputs whose reference lies in [0, 1], or named as CTR outputs.
  std::optional<CtrFigures> ctr;
};

/// Whether an output is a CTR-style probability output.
enum class CtrMode {
  /// When every reference value is a finite number in [0, 1].
  Auto,
  /// Always (nnaccel-run --ctr-output); if any value of the output or the
  /// reference is outside [0, 1], both are logits and go through a sigmoid.
  Forced,
};

/// Compares `out` with `ref`. The shapes must be equal; the dtypes must
/// both be floating (any widths: f16/bf16/f32/f64 are widened to double) or
/// both integer/bool. The accuracy figures beyond the error and cosine are
/// only computed for floating outputs.
Comparison compareTensors(const runtime::Tensor &out,
                          const runtime::Tensor &ref, const Tolerance &tol,
                          CtrMode ctr = CtrMode::Auto);

/// What an output must meet to pass. With none of the optional criteria
/// set, the elementwise tolerance decides (the default). Otherwise an
/// output must meet every criterion that applies to it (cosine: floating
/// outputs; top-1: those with top-1 figures; NE delta: CTR outputs), plus
/// the tolerance if `alsoTolerance`; an output none of them applies to
/// falls back to the tolerance, so nothing passes unchecked. Integer
/// outputs are always compared exactly.
struct Criteria {
  Tolerance tol;
  bool alsoTolerance = false;
  std::optional<double> minCosine;
  std::optional<double> minTop1Percent;
  std::optional<double> maxNeDeltaPercent;
};

struct Verdict {
  bool pass = false;
  /// The checks applied, e.g. "atol 0.0001 rtol 0.001", "cosine >= 0.999".
  std::vector<std::string> checks;
  /// One message per failed check, saying by how much it missed.
  std::vector<std::string> failures;
};

Verdict judge(const Comparison &c, const Criteria &criteria);

/// Element `i` of a tensor widened to double (any dtype).
double elementAsDouble(const runtime::Tensor &t, int64_t i);

} // namespace tensorio
} // namespace nnaccel

#endif // NNACCEL_TENSORIO_COMPARE_H
