//===- EltwiseBroadcast.cpp - numpy broadcasts as repeated row blocks -----===//
//
// See EltwiseBroadcast.h. Example: a position table P [S, D] added to
// X [B, S, D] is one run where P is broadcast (B) and one where it is not
// (S x D): a Row problem of B rows of S*D columns. X [B, S, D] + P [B, 1, D]
// is a loop over B (P advancing D each time) around a Row problem of S rows
// of D; X [B, C, H, W] * s [1, C, 1, 1] a loop over B (stride 0) around a
// Col problem of C rows of H*W.
//
//===----------------------------------------------------------------------===//

#include "EltwiseBroadcast.h"

using namespace mlir::nnaccel::npu_lowering;

std::optional<BroadcastPattern>
mlir::nnaccel::npu_lowering::getBroadcastPattern(
    llvm::ArrayRef<int64_t> operand, llvm::ArrayRef<int64_t> out) {
  if (operand.size() > out.size())
    return std::nullopt;
  // Runs of dimensions (outermost first) where b is broadcast or not; unit
  // output dimensions belong to neither.
  struct Run {
    bool broadcast;
    int64_t size;
  };
  std::vector<Run> runs;
  size_t lead = out.size() - operand.size();
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t b = d < lead ? 1 : operand[d - lead];
    if (out[d] == 1) {
      if (b != 1)
        return std::nullopt;
      continue;
    }
    bool broadcast = b == 1;
    if (!broadcast && b != out[d])
      return std::nullopt;
    if (!runs.empty() && runs.back().broadcast == broadcast)
      runs.back().size *= out[d];
    else
      runs.push_back({broadcast, out[d]});
  }
  // A single run is the same shape or a scalar.
  if (runs.size() < 2)
    return std::nullopt;
  BroadcastPattern pattern;
  const Run &inner = runs.back(), &next = runs[runs.size() - 2];
  pattern.innerRow = !inner.broadcast;
  pattern.rows = next.size;
  pattern.cols = inner.size;
  // b's elements inside the outer runs so far (inner problem first).
  int64_t bInside = pattern.innerRow ? pattern.cols : pattern.rows;
  for (size_t i = runs.size() - 2; i-- > 0;) {
    pattern.loops.insert(pattern.loops.begin(),
                         {runs[i].size, runs[i].broadcast ? 0 : bInside});
    if (!runs[i].broadcast)
      bInside *= runs[i].size;
  }
  return pattern;
}
