//===- CostModel.cpp - cycles of card ops on one core ---------------------===//
//
// See CostModel.h.
//
//===----------------------------------------------------------------------===//

#include "CostModel.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using ::nnaccel::isa::Space;

namespace {
double getNumElements(Type type) {
  return double(cast<RankedTensorType>(type).getNumElements());
}

/// Multiply-accumulates of an LSTM or GRU: every step multiplies the input
/// by W and the hidden state by R (batch rows at a time).
double getRecurrentMacs(Value x, Value w, Value r) {
  auto input = cast<RankedTensorType>(x.getType());
  double rows = double(input.getDimSize(0) * input.getDimSize(1));
  return rows * (getNumElements(w.getType()) + getNumElements(r.getType()));
}
} // namespace

double mlir::nnaccel::getMacs(Operation *op) {
  if (auto lstm = dyn_cast<LSTMOp>(op))
    return getRecurrentMacs(lstm.getX(), lstm.getW(), lstm.getR());
  if (auto gru = dyn_cast<GRUOp>(op))
    return getRecurrentMacs(gru.getX(), gru.getW(), gru.getR());
  if (op->getNumResults() == 0)
    return 0;
  double outputs = getNumElements(op->getResult(0).getType());
  if (auto fc = dyn_cast<FullyConnectedOp>(op)) {
    auto input = cast<RankedTensorType>(fc.getInput().getType());
    return outputs * double(input.getDimSize(fc.getTransposeInput() ? 0 : 1));
  }
  if (auto matmul = dyn_cast<MatMulOp>(op)) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    return outputs * double(lhs.getShape().back());
  }
  if (auto conv = dyn_cast<ConvOp>(op)) {
    auto weight = cast<RankedTensorType>(conv.getWeight().getType());
    return outputs * double(weight.getNumElements() / weight.getDimSize(0));
  }
  return 0;
}

CoreCostModel::CoreCostModel(const ::nnaccel::isa::TargetDesc &target)
    : target(target) {
  const auto &dram = target.memory(Space::Dram);
  bytesPerCycle = std::max(dram.bytesPerCycle, 1.0);
  latency = double(dram.latencyCycles);
  vectorRate = double(std::max<uint32_t>(target.vectorLanes, 1));
}

namespace {
/// An op as matrix-unit work: `groups` independent products of m x k by
/// k x n, and which result axes cut n (the others cut m). Depthwise
/// convolutions run on the MFUs: `taps` multiply-adds per output element.
/// The matrix unit's products are FC's and matmul's rows x columns.
struct MatrixShape {
  double m = 0, k = 0, n = 0, groups = 1;
  SmallVector<int64_t, 2> nAxes;
  double taps = 0; // depthwise: on the vector units
};

std::optional<MatrixShape> getMatrixShape(Operation *op) {
  MatrixShape shape;
  if (auto fc = dyn_cast<FullyConnectedOp>(op)) {
    auto result = cast<RankedTensorType>(fc.getType());
    auto input = cast<RankedTensorType>(fc.getInput().getType());
    shape.m = double(result.getDimSize(0));
    shape.n = double(result.getDimSize(1));
    shape.k = double(input.getDimSize(fc.getTransposeInput() ? 0 : 1));
    shape.nAxes = {1};
    return shape;
  }
  if (auto matmul = dyn_cast<MatMulOp>(op)) {
    auto result = cast<RankedTensorType>(matmul.getType());
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    int64_t rank = result.getRank();
    shape.n = double(result.getDimSize(rank - 1));
    shape.m = double(result.getNumElements()) / shape.n;
    shape.k = double(lhs.getShape().back());
    shape.nAxes = {rank - 1};
    return shape;
  }
  if (auto conv = dyn_cast<ConvOp>(op)) {
    auto result = cast<RankedTensorType>(conv.getType());
    auto weight = cast<RankedTensorType>(conv.getWeight().getType());
    auto input = cast<RankedTensorType>(conv.getInput().getType());
    double outChannels = double(result.getDimSize(1));
    double perGroupIn = double(weight.getDimSize(1));
    double groups = double(input.getDimSize(1)) / perGroupIn;
    double taps = double(weight.getNumElements() / weight.getDimSize(0));
    if (groups > 1 && perGroupIn == 1 && outChannels == groups) {
      shape.taps = taps;
      return shape;
    }
    // A 1x1 convolution is a product of pixels x channels by channels x
    // filters (the int8 kernel's pixel-rows form; its filter-rows form,
    // for a signed input, is priced in getMatrixCycles).
    if (groups == 1 && taps == perGroupIn) {
      shape.n = outChannels;
      shape.m = double(result.getNumElements()) / outChannels;
      shape.k = perGroupIn;
      shape.nAxes = {1};
      return shape;
    }
    // An int8 convolution with groups 1 runs on the int8 implicit GEMM
    // (QuantizedGemmConvKernel.cpp): per tap, a product of output pixels x
    // channels by channels x filters.
    if (groups == 1 && isa<quant::QuantizedType>(
                           getElementTypeOrSelf(input.getElementType()))) {
      shape.groups = taps / perGroupIn;
      shape.n = outChannels;
      shape.m = double(result.getNumElements()) / outChannels;
      shape.k = perGroupIn;
      shape.nAxes = {1};
      return shape;
    }
    // The f32 convolution kernels lay out their products in several ways
    // (pointwise, implicit GEMM, dense stem); the MAC-rate bound prices
    // them.
    return std::nullopt;
  }
  return std::nullopt;
}
} // namespace

std::optional<double> CoreCostModel::getMatrixCycles(Operation *op,
                                                     double fraction,
                                                     int64_t cutAxis) const {
  std::optional<MatrixShape> shape = getMatrixShape(op);
  if (!shape)
    return std::nullopt;
  if (shape->taps > 0)
    return getNumElements(op->getResult(0).getType()) * fraction * shape->taps /
           vectorRate;
  double m = shape->m, n = shape->n;
  if (cutAxis < 0 || !llvm::is_contained(shape->nAxes, cutAxis))
    m = std::ceil(m * fraction);
  else
    n = std::ceil(n * fraction);
  double lanes = target.matrixLanesFor(getMatrixDType(op));
  double dim = std::max<uint32_t>(target.nativeDim, 1);
  double passes =
      shape->groups * m * std::ceil(shape->k / lanes) * std::ceil(n / dim);
  // An int8 1x1 convolution with a signed input may run with its filters
  // as the matrix unit's rows instead (QuantizedPointwiseConvKernel.cpp).
  if (auto conv = dyn_cast<ConvOp>(op))
    if (auto input = dyn_cast<quant::QuantizedType>(
            getElementTypeOrSelf(conv.getInput().getType())))
      if (input.isSigned())
        passes =
            std::min(passes, shape->groups * n * std::ceil(shape->k / lanes) *
                                 std::ceil(m / dim));
  double bound = shape->groups * m * shape->k * n / getMacRate(op);
  return std::max(passes, bound);
}

double CoreCostModel::estimate(Operation *op, ArrayRef<double> operandFraction,
                               double fraction, int64_t cutAxis) const {
  double bytes = 0;
  for (auto [operand, part] : llvm::zip(op->getOperands(), operandFraction))
    if (isa<RankedTensorType>(operand.getType()))
      bytes += double(getDenseByteSize(operand.getType())) * part;
  // A gather reads the rows it looks up, not its whole table.
  auto countLookups = [&](Value tableValue, Value indices, int64_t axis) {
    auto table = cast<RankedTensorType>(tableValue.getType());
    double rowBytes =
        double(getDenseByteSize(table)) / double(table.getDimSize(axis));
    bytes += getNumElements(indices.getType()) * fraction * rowBytes -
             double(getDenseByteSize(table)) * operandFraction.front();
  };
  if (auto bag = dyn_cast<EmbeddingBagOp>(op))
    countLookups(bag.getTable(), bag.getIndices(), 0);
  if (auto gather = dyn_cast<GatherOp>(op)) {
    int64_t rank = gather.getData().getType().getRank();
    int64_t axis = static_cast<int64_t>(gather.getAxis());
    if (axis < 0)
      axis += rank;
    countLookups(gather.getData(), gather.getIndices(), axis);
  }
  double elements = 0;
  for (Type type : op->getResultTypes()) {
    if (!isa<RankedTensorType>(type))
      continue;
    bytes += double(getDenseByteSize(type)) * fraction;
    elements += getNumElements(type);
  }
  double macs = getMacs(op) * fraction;
  double compute;
  if (std::optional<double> matrix = getMatrixCycles(op, fraction, cutAxis))
    compute = *matrix;
  else if (macs > 0)
    compute = macs / getMacRate(op);
  else
    compute = 4 * elements * fraction / vectorRate;
  double cycles = std::max(bytes / bytesPerCycle, compute) + latency;
  // A recurrence cannot overlap its steps: each waits for the last.
  if (isa<LSTMOp, GRUOp>(op))
    cycles +=
        double(
            cast<RankedTensorType>(op->getOperand(0).getType()).getDimSize(0)) *
        overhead();
  return cycles;
}

double CoreCostModel::estimate(Operation *op) const {
  SmallVector<double> whole(op->getNumOperands(), 1.0);
  return estimate(op, whole, 1.0);
}

double CoreCostModel::estimateOnCores(Operation *op, unsigned cores) const {
  auto conv = dyn_cast<ConvOp>(op);
  if (cores < 2 || !conv ||
      (!isa<quant::QuantizedType>(
           getElementTypeOrSelf(conv.getInput().getType())) &&
       !conv.hasBlockWeight()))
    return estimate(op);
  // Each core: 1/k of the input and of the result, all the weights; the
  // output pixels are the matrix product's rows (m).
  SmallVector<double> fractions(op->getNumOperands(), 1.0);
  fractions[0] = 1.0 / double(cores);
  return estimate(op, fractions, 1.0 / double(cores)) + overhead();
}

double CoreCostModel::copy(uint64_t bytes) const {
  return 2 * double(bytes) / bytesPerCycle + 2 * latency;
}

double CoreCostModel::hostTransfer(uint64_t bytes) const {
  if (target.hostBytesPerCycle <= 0)
    return 0;
  return double(target.hostLatencyCycles) +
         std::ceil(double(bytes) / target.hostBytesPerCycle);
}

::nnaccel::DType CoreCostModel::getMatrixDType(Operation *op) const {
  // The matrix unit's rate is that of its weight type: a quantized
  // product's weight (i8) also for u8 activations, a block-float weight's
  // format for float activations.
  Type element =
      cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
  if (op->getNumOperands() > 1) {
    Type weight =
        cast<RankedTensorType>(op->getOperand(1).getType()).getElementType();
    if (isa<quant::QuantizedType>(element) || isa<BlockFloatType>(weight))
      element = weight;
  }
  std::optional<::nnaccel::DType> dtype = getElementDType(element);
  if (dtype && target.macsPerCycle.count(*dtype))
    return *dtype;
  return ::nnaccel::DType::F32;
}

double CoreCostModel::getMacRate(Operation *op) const {
  auto it = target.macsPerCycle.find(getMatrixDType(op));
  return it == target.macsPerCycle.end() ? 1.0 : double(it->second);
}
