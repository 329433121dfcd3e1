//===- MatMulKernels.cpp - accel.matmul on the matrix unit ----------------===//
//
// Lowers numpy-style batched matmul ([B..., M, K] x [B..., K, N]) to the
// matrix-unit tile loop of FullyConnectedKernel.cpp. The right operand is
// stored K x N in DRAM and is usually not a constant (attention: Q.K^T and
// P.V), so its N x N tiles are transposed by the DMA on the way into the MRF
// (one-element rows, one plane per column) instead of being transposed in
// DRAM. In the emulator's cycle model such a DMA costs the same as a dense
// one (bytes / bandwidth), so constant right operands take the same path.
//
// Batching: a right operand without batch elements (rank 2, or batch dims
// all 1) is shared by every left row, so the left operand's batch and row
// dims flatten into one M and a single GEMM runs; otherwise the batch dims
// must be equal (or one side's all 1) and one GEMM per batch element runs,
// with operand offsets stepping through the batch. Rank-1 operands are the
// numpy row / column vectors and need no data movement: [K] is a 1 x K left
// operand, and [K] on the right is a K x 1 matrix with the same bytes, whose
// result [..., M] has the bytes of [..., M, 1].
//
//===----------------------------------------------------------------------===//

#include "KernelRegistry.h"
#include "KernelUtils.h"
#include "Kernels.h"

#include "Accel/AccelOps.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// A matmul as a sequence of equally shaped GEMMs.
struct MatMulPlan {
  int64_t batches = 1; // GEMMs
  int64_t m = 0, k = 0, n = 0;
  // Byte offsets between consecutive GEMMs' operands (0: shared operand).
  int64_t lhsStride = 0, rhsStride = 0, outStride = 0;
};

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result *= dim;
  return result;
}

/// Splits `op` into GEMMs, or says why it cannot.
FailureOr<MatMulPlan> planMatMul(MatMulOp op, std::string &reason) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!lhsType.getElementType().isF32() || !rhsType.getElementType().isF32() ||
      !resultType.getElementType().isF32()) {
    reason = "matmul runs on the card in f32 only so far";
    return failure();
  }
  if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape() ||
      !resultType.hasStaticShape()) {
    reason = "matmul needs static shapes for the card";
    return failure();
  }
  // Rank-1 operands as 1 x K / K x 1 matrices (same bytes).
  SmallVector<int64_t> lhs(lhsType.getShape()), rhs(rhsType.getShape());
  if (lhs.empty() || rhs.empty()) {
    reason = "matmul of a scalar is not lowered to the card";
    return failure();
  }
  if (lhs.size() == 1)
    lhs.insert(lhs.begin(), 1);
  if (rhs.size() == 1)
    rhs.push_back(1);
  MatMulPlan plan;
  plan.m = lhs[lhs.size() - 2];
  plan.k = lhs.back();
  plan.n = rhs.back();
  if (rhs[rhs.size() - 2] != plan.k) {
    reason = "matmul inner dimensions differ";
    return failure();
  }
  if (resultType.getNumElements() == 0 || plan.k == 0) {
    reason = "empty matmuls are not lowered to the card";
    return failure();
  }
  ArrayRef<int64_t> lhsBatch = ArrayRef(lhs).drop_back(2);
  ArrayRef<int64_t> rhsBatch = ArrayRef(rhs).drop_back(2);
  int64_t lhsCount = product(lhsBatch), rhsCount = product(rhsBatch);
  if (rhsCount == 1) {
    // One shared right operand: every left row is an independent GEMM row.
    plan.m *= lhsCount;
  } else {
    // Both batched: equal batch dims after dropping leading 1s (numpy
    // broadcasting of size-1 dims inside the batch would need strided
    // operand walks; refuse those).
    auto strip = [](ArrayRef<int64_t> dims) {
      while (!dims.empty() && dims.front() == 1)
        dims = dims.drop_front();
      return dims;
    };
    if (lhsCount != 1 && strip(lhsBatch) != strip(rhsBatch)) {
      reason = "matmul batch dimensions that broadcast against each other "
               "are not lowered to the card (only equal batch dimensions or "
               "a shared operand)";
      return failure();
    }
    plan.batches = rhsCount;
    plan.lhsStride = lhsCount == 1 ? 0 : plan.m * plan.k * kF32;
    plan.rhsStride = plan.k * plan.n * kF32;
    plan.outStride = plan.m * plan.n * kF32;
  }
  return plan;
}

LogicalResult checkMatMul(Operation *operation, const TargetDesc &target,
                          std::string &reason) {
  auto op = cast<MatMulOp>(operation);
  FailureOr<MatMulPlan> plan = planMatMul(op, reason);
  if (failed(plan))
    return failure();
  if (!canEmitFullyConnected(target, plan->m, plan->k, plan->n, reason))
    return failure();
  // DMA operand bases must be aligned in DRAM: every batch element and
  // every tile column / row offset the tile loop addresses.
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  int64_t tileBytes = target.nativeDim * kF32;
  if (plan->batches > 1 &&
      (plan->lhsStride % dramAlign || plan->rhsStride % dramAlign ||
       plan->outStride % dramAlign)) {
    reason = "matmul batch elements would start at unaligned DRAM addresses";
    return failure();
  }
  if ((plan->n > target.nativeDim || plan->k > target.nativeDim) &&
      tileBytes % dramAlign) {
    reason = "the target's tiles would start at unaligned DRAM addresses";
    return failure();
  }
  // The transposing DMA takes one plane per weight column and one row per
  // weight row of a tile (12-bit counts).
  if (target.nativeDim > 4095) {
    reason = "weight tiles exceed the DMA's 4095 rows";
    return failure();
  }
  return success();
}

LogicalResult emitMatMul(Operation *operation, KernelContext &context) {
  auto op = cast<MatMulOp>(operation);
  std::string reason;
  FailureOr<MatMulPlan> plan = planMatMul(op, reason);
  if (failed(plan))
    return op.emitOpError() << "cannot run on the card: " << reason;
  uint64_t lhs = context.addressOf(op.getLhs());
  uint64_t rhs = context.addressOf(op.getRhs());
  uint64_t out = context.addressOf(op.getResult());
  for (int64_t b = 0; b < plan->batches; ++b) {
    FullyConnectedSpec spec;
    spec.m = plan->m;
    spec.k = plan->k;
    spec.n = plan->n;
    spec.input = lhs + uint64_t(b * plan->lhsStride);
    spec.weight = rhs + uint64_t(b * plan->rhsStride);
    spec.output = out + uint64_t(b * plan->outStride);
    spec.weightKxN = true;
    emitFullyConnected(context.emitter, context.target, spec);
  }
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::registerMatMulKernels(KernelTable &table) {
  table[MatMulOp::getOperationName()] = {checkMatMul, emitMatMul};
}
