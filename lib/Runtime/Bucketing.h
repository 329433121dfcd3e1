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
#include <functional>
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

/// Splits a row-major tensor of `shape` (elements of `elementSize` bytes)
/// into the byte ranges that hold the elements inside the box `valid` and
/// the ranges between them: `onValid(offset, bytes)` and `onPad(offset,
/// bytes)` are called in increasing offset order and cover the tensor once.
/// Adjacent valid rows are merged into one range. This is how a padded
/// input reaches the card in parts: its valid rows over the host link, the
/// padding filled on the card.
void forEachPaddedRange(const std::vector<int64_t> &shape,
                        const std::vector<int64_t> &valid, size_t elementSize,
                        const std::function<void(size_t, size_t)> &onValid,
                        const std::function<void(size_t, size_t)> &onPad);

/// A new tensor of `desc` with every element `value`, converted to the
/// dtype (integers truncate toward zero, i1 is value != 0). Zero works for
/// every dtype; other values need a float (f32, f64) or plain integer
/// dtype, else the result is null.
Tensor makeFilled(const TensorDesc &desc, double value);

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_BUCKETING_H
