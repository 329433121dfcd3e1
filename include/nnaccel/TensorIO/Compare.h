//===- Compare.h - Checking outputs against reference tensors ---*- C++ -*-===//
//
// How nnaccel-run decides PASS/FAIL for one output: floating outputs pass
// when every element satisfies |out - ref| <= atol + rtol * |ref| (NaN
// matches only NaN, an infinity only the same infinity); integer and bool
// outputs must be equal. The report also carries the usual accuracy
// figures (max absolute and relative error, cosine similarity) so a
// near-miss is visible at a glance.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TENSORIO_COMPARE_H
#define NNACCEL_TENSORIO_COMPARE_H

#include "nnaccel/Runtime/Tensor.h"

#include <cstdint>
#include <string>

namespace nnaccel {
namespace tensorio {

struct Tolerance {
  double atol = 1e-4;
  double rtol = 1e-3;
};

struct Comparison {
  bool pass = false;
  /// Why the comparison could not be made (dtype class or shape mismatch);
  /// empty when the elements were compared.
  std::string error;
  int64_t elements = 0;
  int64_t mismatches = 0;     ///< elements outside the tolerance
  int64_t firstMismatch = -1; ///< flat index of the first one
  double maxAbsError = 0;
  double maxRelError = 0; ///< |out - ref| / |ref| over ref != 0
  double cosine = 1;      ///< cosine similarity (1 for two zero vectors)
  bool exact = false;     ///< integer/bool comparison
};

/// Compares `out` with `ref`. The shapes must be equal; the dtypes must
/// both be floating (any widths: f16/bf16/f32/f64 are widened to double) or
/// both integer/bool.
Comparison compareTensors(const runtime::Tensor &out,
                          const runtime::Tensor &ref, const Tolerance &tol);

/// Element `i` of a tensor widened to double (any dtype).
double elementAsDouble(const runtime::Tensor &t, int64_t i);

} // namespace tensorio
} // namespace nnaccel

#endif // NNACCEL_TENSORIO_COMPARE_H
