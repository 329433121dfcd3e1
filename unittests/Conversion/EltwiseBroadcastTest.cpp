//===- EltwiseBroadcastTest.cpp - broadcasts as repeated row problems -----===//
//
// getBroadcastPattern (lib/Conversion/AccelToNPU/EltwiseBroadcast.h) turns a
// numpy broadcast of one operand into loops around a row-vector or per-row
// problem; the elementwise kernels lower exactly what it returns, so these
// cases pin the grouping of dimensions, the loops' b strides and the cases
// it leaves to the callers (same shape, one element, not a broadcast).
//
//===----------------------------------------------------------------------===//

#include "../../lib/Conversion/AccelToNPU/EltwiseBroadcast.h"

#include <catch2/catch.hpp>

using mlir::nnaccel::npu_lowering::BroadcastPattern;
using mlir::nnaccel::npu_lowering::getBroadcastPattern;

namespace {

BroadcastPattern pattern(llvm::ArrayRef<int64_t> operand,
                         llvm::ArrayRef<int64_t> out) {
  std::optional<BroadcastPattern> result = getBroadcastPattern(operand, out);
  REQUIRE(result.has_value());
  return *result;
}

} // namespace

TEST_CASE("trailing broadcasts are one row vector", "[broadcast]") {
  // Position embeddings: [B, S, D] + [S, D] and + [1, S, D].
  for (auto operand : {std::vector<int64_t>{16, 64}, {1, 16, 64}}) {
    BroadcastPattern p = pattern(operand, {2, 16, 64});
    CHECK(p.innerRow);
    CHECK(p.rows == 2);
    CHECK(p.cols == 1024);
    CHECK(p.loops.empty());
  }
}

TEST_CASE("leading runs become per-row values", "[broadcast]") {
  // [M, N] * [M, 1] and [B, S, D] * [B, S, 1].
  BroadcastPattern p = pattern({4, 1}, {4, 8});
  CHECK(!p.innerRow);
  CHECK(p.rows == 4);
  CHECK(p.cols == 8);
  p = pattern({2, 3, 1}, {2, 3, 5});
  CHECK(!p.innerRow);
  CHECK(p.rows == 6);
  CHECK(p.cols == 5);
  CHECK(p.loops.empty());
}

TEST_CASE("inner broadcasts repeat in loops", "[broadcast]") {
  // [B, S, D] + [B, 1, D]: a loop over B, b advancing D.
  BroadcastPattern p = pattern({2, 1, 64}, {2, 6, 64});
  CHECK(p.innerRow);
  CHECK(p.rows == 6);
  CHECK(p.cols == 64);
  REQUIRE(p.loops.size() == 1);
  CHECK(p.loops[0].count == 2);
  CHECK(p.loops[0].aStride == 6 * 64);
  CHECK(p.loops[0].bStride == 64);

  // Per-channel scale [C, 1, 1] of [N, C, H, W]: a loop over N (b
  // unchanged) around C rows of H*W with one value each.
  p = pattern({3, 1, 1}, {2, 3, 4, 16});
  CHECK(!p.innerRow);
  CHECK(p.rows == 3);
  CHECK(p.cols == 64);
  REQUIRE(p.loops.size() == 1);
  CHECK(p.loops[0].count == 2);
  CHECK(p.loops[0].bStride == 0);

  // [3, 4, 5, 64] * [4, 1, 64]: loops over 3 (stride 0) and 4 (stride 64).
  p = pattern({4, 1, 64}, {3, 4, 5, 64});
  CHECK(p.innerRow);
  CHECK(p.rows == 5);
  CHECK(p.cols == 64);
  REQUIRE(p.loops.size() == 2);
  CHECK(p.loops[0].count == 3);
  CHECK(p.loops[0].bStride == 0);
  CHECK(p.loops[1].count == 4);
  CHECK(p.loops[1].bStride == 64);
}

TEST_CASE("both operands broadcast", "[broadcast]") {
  // [B, 1, D] + [1, S, D]: b is the first operand's row, the second is the
  // full operand of a loop over B in which it stays where it is.
  std::optional<BroadcastPattern> p =
      getBroadcastPattern({2, 1, 64}, {1, 6, 64}, {2, 6, 64});
  REQUIRE(p.has_value());
  CHECK(p->innerRow);
  CHECK(p->bIsLhs);
  CHECK(p->rows == 6);
  CHECK(p->cols == 64);
  REQUIRE(p->loops.size() == 1);
  CHECK(p->loops[0].count == 2);
  CHECK(p->loops[0].aStride == 0);
  CHECK(p->loops[0].bStride == 64);

  // [N, C, 1] * [1, 1, W] broadcasts one operand in each of the two
  // innermost runs (an outer product): the first gives one value per row,
  // the second one row that every row repeats.
  p = getBroadcastPattern({4, 3, 1}, {1, 1, 8}, {4, 3, 8});
  REQUIRE(p.has_value());
  CHECK(!p->innerRow);
  CHECK(p->aIsRow);
  CHECK(p->bIsLhs);
  CHECK(p->rows == 12);
  CHECK(p->cols == 8);
  CHECK(p->loops.empty());

  // [B, S, 1] + [B, 1, D]: an outer product per batch element, both
  // operands advancing.
  p = getBroadcastPattern({2, 6, 1}, {2, 1, 64}, {2, 6, 64});
  REQUIRE(p.has_value());
  CHECK(p->aIsRow);
  CHECK(p->bIsLhs);
  REQUIRE(p->loops.size() == 1);
  CHECK(p->loops[0].count == 2);
  CHECK(p->loops[0].aStride == 64);
  CHECK(p->loops[0].bStride == 6);
}

TEST_CASE("unit output dimensions belong to no run", "[broadcast]") {
  BroadcastPattern p = pattern({1, 1, 64}, {2, 1, 64});
  CHECK(p.innerRow);
  CHECK(p.rows == 2);
  CHECK(p.cols == 64);
  CHECK(p.loops.empty());
}

TEST_CASE("same shape, one element and non-broadcasts are left to the caller",
          "[broadcast]") {
  CHECK(!getBroadcastPattern({2, 3}, {2, 3}));
  CHECK(!getBroadcastPattern({1, 1}, {2, 3}));
  CHECK(!getBroadcastPattern({}, {2, 3}));
  CHECK(!getBroadcastPattern({2}, {2, 3}));       // 2 against 3
  CHECK(!getBroadcastPattern({1, 2, 3}, {2, 3})); // higher rank
  CHECK(!getBroadcastPattern({2, 3}, {2, 3}, {2, 3}));
}
