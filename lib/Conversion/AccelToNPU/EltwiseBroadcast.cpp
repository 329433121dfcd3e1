//===- EltwiseBroadcast.cpp - Broadcasts as repeated row blocks -----------===//
//
// See EltwiseBroadcast.h. Examples: a position table P [S, D] added to
// X [B, S, D] is one run where P is broadcast (B) and one where nothing is
// (S x D): a Row problem of B rows of S*D columns. X [B, S, D] + P [B, 1, D]
// is a loop over B (X advancing S*D, P advancing D) around a Row problem of
// S rows of D; X [B, C, H, W] * s [1, C, 1, 1] a loop over B (s staying)
// around a Col problem of C rows of H*W. With both operands broadcast,
// U [B, 1, D] + V [1, S, D] is a loop over B (U advancing D, V staying)
// around a Row problem with V as the full operand and U's row as b, and
// the outer product C [S, 1] * R [1, D] a Col problem of S rows whose a is
// R's row repeated and whose b is C's value per row.
//
//===----------------------------------------------------------------------===//

#include "EltwiseBroadcast.h"

using namespace mlir::nnaccel::npu_lowering;

std::optional<BroadcastPattern>
mlir::nnaccel::npu_lowering::getBroadcastPattern(llvm::ArrayRef<int64_t> lhs,
                                                 llvm::ArrayRef<int64_t> rhs,
                                                 llvm::ArrayRef<int64_t> out) {
  if (lhs.size() > out.size() || rhs.size() > out.size())
    return std::nullopt;
  // Runs of output dimensions (outermost first) where the same operands are
  // broadcast; unit output dimensions belong to none.
  struct Run {
    bool lhsBroadcast, rhsBroadcast;
    int64_t size;
  };
  std::vector<Run> runs;
  auto dimOf = [&](llvm::ArrayRef<int64_t> shape, size_t d) -> int64_t {
    size_t lead = out.size() - shape.size();
    return d < lead ? 1 : shape[d - lead];
  };
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t l = dimOf(lhs, d), r = dimOf(rhs, d);
    if (out[d] == 1) {
      if (l != 1 || r != 1)
        return std::nullopt;
      continue;
    }
    if ((l != 1 && l != out[d]) || (r != 1 && r != out[d]) ||
        (l == 1 && r == 1))
      return std::nullopt;
    Run run{l == 1, r == 1, out[d]};
    if (!runs.empty() && runs.back().lhsBroadcast == run.lhsBroadcast &&
        runs.back().rhsBroadcast == run.rhsBroadcast)
      runs.back().size *= out[d];
    else
      runs.push_back(run);
  }
  // A single run is the same shape (a scalar operand is the callers').
  if (runs.size() < 2)
    return std::nullopt;
  const Run &inner = runs.back(), &next = runs[runs.size() - 2];
  auto broadcastsNothing = [](const Run &run) {
    return !run.lhsBroadcast && !run.rhsBroadcast;
  };
  BroadcastPattern pattern;
  if (broadcastsNothing(inner)) {
    pattern.innerRow = true;
    pattern.bIsLhs = next.lhsBroadcast;
  } else {
    // b is the operand broadcast along the columns (one value per row);
    // when the rows broadcast the other one too, that one is a single row
    // (runs alternate, so each inner run broadcasts a different operand).
    pattern.innerRow = false;
    pattern.bIsLhs = inner.lhsBroadcast;
    pattern.aIsRow = !broadcastsNothing(next);
  }
  pattern.rows = next.size;
  pattern.cols = inner.size;
  // Elements of a and b inside the runs so far.
  int64_t aInside = pattern.aIsRow ? pattern.cols : pattern.rows * pattern.cols;
  int64_t bInside = pattern.innerRow ? pattern.cols : pattern.rows;
  for (size_t i = runs.size() - 2; i-- > 0;) {
    bool aBroadcast =
        pattern.bIsLhs ? runs[i].rhsBroadcast : runs[i].lhsBroadcast;
    bool bBroadcast =
        pattern.bIsLhs ? runs[i].lhsBroadcast : runs[i].rhsBroadcast;
    pattern.loops.insert(
        pattern.loops.begin(),
        {runs[i].size, aBroadcast ? 0 : aInside, bBroadcast ? 0 : bInside});
    if (!aBroadcast)
      aInside *= runs[i].size;
    if (!bBroadcast)
      bInside *= runs[i].size;
  }
  return pattern;
}
