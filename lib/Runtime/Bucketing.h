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
/// elements of `src` whose indices fit in both shapes; the rest are zero.
/// Pads when `shape` is larger, slices when it is smaller. Returns a null
/// tensor if the ranks differ or `shape` is invalid.
Tensor resizeBox(const Tensor &src, const std::vector<int64_t> &shape);

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_BUCKETING_H
