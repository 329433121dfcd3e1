//===- Bucketing.h - Padding inputs to and slicing outputs from buckets -*- C++
//-*-===//
//
// A bucketed package has variants for padded sizes of some dimensions (a
// sequence length of 128, 256, ...). The session zero-pads each input to its
// variant's shape and slices each output back to the actual sizes; both are
// the same row-major box copy between two shapes of equal rank. Private to
// lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_RUNTIME_BUCKETING_H
#define NNACCEL_LIB_RUNTIME_BUCKETING_H

#include "nnaccel/Runtime/Tensor.h"

#include <cstdint>
#include <vector>

namespace nnaccel {
namespace runtime {

/// A new tensor of `shape` (same dtype and rank as `src`) holding the
/// elements of `src` whose indices fit in both shapes; the rest are
/// `padValue` (the package's pad value). Pads when `shape` is larger, slices
/// when it is smaller. Returns a null tensor if the ranks differ, `shape` is
/// invalid, or a non-zero `padValue` does not exist in the dtype (see
/// makeFilled).
Tensor resizeBox(const Tensor &src, const std::vector<int64_t> &shape,
                 double padValue = 0.0);

/// A new tensor of `desc` with every element `value`, converted to the
/// dtype (integers truncate toward zero, i1 is value != 0). Zero works for
/// every dtype; other values need a float (f32, f64) or plain integer
/// dtype, else the result is null.
Tensor makeFilled(const TensorDesc &desc, double value);

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_BUCKETING_H
