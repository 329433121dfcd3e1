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
// with operand offsets stepping through the batch. Batch elements of the
// left operand and of the result may start at unaligned DRAM addresses
// (odd shapes such as 37 x 37 attention scores): the kernel realigns them
// on chip (see FullyConnectedKernel.cpp); the right operand's go straight
// to the 64-byte aligned MRF and must be aligned.
//
// f16 and bf16 operands multiply with f32 accumulation; the result is
// written in the result's type. Rank-1 operands are the
// numpy row / column vectors and need no data movement: [K] is a 1 x K left
// operand, and [K] on the right is a K x 1 matrix with the same bytes, whose
// result [..., M] has the bytes of [..., M, 1].
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
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

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result *= dim;
  return result;
}

/// Splits `op` into equally shaped GEMMs (the kernel spec without
/// addresses), or says why it cannot.
FailureOr<FullyConnectedSpec> planMatMul(MatMulOp op, std::string &reason) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!allCardFloat(op->getOperandTypes(), "matmul", reason) ||
      !allCardFloat(op->getResultTypes(), "matmul", reason))
    return failure();
  if (lhsType.getElementType() != rhsType.getElementType()) {
    reason = "matmul with different operand types is not lowered to the "
             "card (the matrix unit takes one input type)";
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
  FullyConnectedSpec plan;
  plan.inFormat = *getElementFormat(lhsType);
  plan.outFormat = *getElementFormat(resultType);
  plan.weightKxN = true;
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
    // Batch elements are dense m x k, k x n and m x n matrices.
    plan.inputStride =
        lhsCount == 1 ? 0 : plan.m * plan.inFormat.rowBytes(plan.k);
    plan.weightStride = plan.k * plan.inFormat.rowBytes(plan.n);
    plan.outputStride = plan.m * plan.outFormat.rowBytes(plan.n);
  }
  return plan;
}

LogicalResult checkMatMul(Operation *operation, const TargetDesc &target,
                          std::string &reason) {
  FailureOr<FullyConnectedSpec> plan =
      planMatMul(cast<MatMulOp>(operation), reason);
  return success(succeeded(plan) &&
                 canEmitFullyConnected(target, *plan, reason));
}

LogicalResult emitMatMul(Operation *operation, KernelContext &context) {
  auto op = cast<MatMulOp>(operation);
  std::string reason;
  FailureOr<FullyConnectedSpec> plan = planMatMul(op, reason);
  if (failed(plan))
    return op.emitOpError() << "cannot run on the card: " << reason;
  plan->input = context.addressOf(op.getLhs());
  plan->weight = context.addressOf(op.getRhs());
  plan->output = context.addressOf(op.getResult());
  if (int64_t pitch = int64_t(context.rowPitchOf(op.getResult()))) {
    // Every result row, across batch elements too, is a pitch apart.
    plan->outputPitch = pitch;
    if (plan->batches > 1)
      plan->outputStride = plan->m * pitch;
    if (!canEmitFullyConnected(context.target, *plan, reason))
      return op.emitOpError() << "cannot write its result rows " << pitch
                              << " bytes apart: " << reason;
  }
  plan->pinnedWeight = context.pinnedWeight;
  emitFullyConnected(context.emitter, context.target, *plan, context.setup());
  return success();
}

/// Rows of the result are its innermost dimension (n) when the right
/// operand is a matrix; a vector right operand makes the result's last
/// dimension m, whose elements the kernel writes as rows of one.
bool matMulResultPitch(Operation *operation, int64_t axis) {
  auto op = cast<MatMulOp>(operation);
  int64_t rank = cast<RankedTensorType>(op.getType()).getRank();
  return cast<RankedTensorType>(op.getRhs().getType()).getRank() >= 2 &&
         axis == rank - 1;
}
} // namespace

std::optional<uint64_t>
mlir::nnaccel::npu_lowering::getMatMulPinBytes(MatMulOp op,
                                               const TargetDesc &target) {
  std::string reason;
  FailureOr<FullyConnectedSpec> plan = planMatMul(op, reason);
  if (failed(plan) || !canEmitFullyConnected(target, *plan, reason))
    return std::nullopt;
  return getPinnedWeightBytes(target, *plan);
}

void mlir::nnaccel::npu_lowering::attachMatMulKernels(MLIRContext *context) {
  attachCardKernel<
      CardKernelModel<checkMatMul, emitMatMul,
                      /*SharedScratch=*/nullptr,
                      /*MaxCores=*/nullptr,
                      /*PreferredCores=*/nullptr, matMulResultPitch>,
      MatMulOp>(context);
}
