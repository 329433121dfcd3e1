//===- BucketingTest.cpp - Padding and partial transfers of bucketed inputs
//===//
//
// The box copy that pads inputs and crops outputs (with a pad value), the
// filled tensors of length inputs, and the split of a padded tensor into
// the byte ranges its valid box and its padding occupy, which is what a
// partial transfer sends and what the card fills.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include "../../lib/Runtime/Bucketing.h"

#include <utility>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

namespace {
/// The ranges forEachPaddedRange reports, tagged 'v' (valid) or 'p' (pad).
std::vector<std::tuple<char, size_t, size_t>> ranges(std::vector<int64_t> shape,
                                                     std::vector<int64_t> valid,
                                                     size_t elementSize = 1) {
  std::vector<std::tuple<char, size_t, size_t>> out;
  forEachPaddedRange(
      shape, valid, elementSize,
      [&](size_t offset, size_t bytes) {
        out.emplace_back('v', offset, bytes);
      },
      [&](size_t offset, size_t bytes) {
        out.emplace_back('p', offset, bytes);
      });
  return out;
}
using R = std::vector<std::tuple<char, size_t, size_t>>;
} // namespace

TEST_CASE("padded ranges: valid rows merge, gaps are padding",
          "[runtime][bucketing]") {
  // A sequence padded along the outer axis: one valid prefix.
  CHECK(ranges({1, 8, 4}, {1, 5, 4}, 4) == R{{'v', 0, 80}, {'p', 80, 48}});
  // Along the innermost axis: one valid run per row.
  CHECK(ranges({2, 8}, {2, 5}, 4) ==
        R{{'v', 0, 20}, {'p', 20, 12}, {'v', 32, 20}, {'p', 52, 12}});
  // Along two axes of a rank-3 tensor (strides 12, 4, 1).
  CHECK(ranges({2, 3, 4}, {2, 2, 3}) == R{{'v', 0, 3},
                                          {'p', 3, 1},
                                          {'v', 4, 3},
                                          {'p', 7, 5},
                                          {'v', 12, 3},
                                          {'p', 15, 1},
                                          {'v', 16, 3},
                                          {'p', 19, 5}});
  // Nothing padded: one valid range; nothing valid: one pad range.
  CHECK(ranges({4, 4}, {4, 4}) == R{{'v', 0, 16}});
  CHECK(ranges({4, 4}, {0, 4}) == R{{'p', 0, 16}});
  CHECK(ranges({6}, {2}, 8) == R{{'v', 0, 16}, {'p', 16, 32}});
}

TEST_CASE("padding uses the pad value; filled tensors convert it",
          "[runtime][bucketing]") {
  Tensor padded = resizeBox(f32({2}, {1.0f, 2.0f}), {4}, -3.0);
  CHECK(values<float>(padded) == std::vector<float>{1.0f, 2.0f, -3.0f, -3.0f});
  Tensor cropped = resizeBox(padded, {1}, 7.0);
  CHECK(values<float>(cropped) == std::vector<float>{1.0f});
  Tensor ids = makeFilled(TensorDesc(DType::I64, {3}), 2.0);
  REQUIRE(!ids.isNull());
  CHECK(static_cast<const int64_t *>(ids.data())[2] == 2);
  // A pad value a packed type cannot hold fails; zero always works.
  CHECK(makeFilled(TensorDesc(DType::I4, {4}), 1.0).isNull());
  CHECK(!makeFilled(TensorDesc(DType::I4, {4}), 0.0).isNull());
}
