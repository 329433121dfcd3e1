//===- CostModel.h - cycles of card ops on one core -------------*- C++ -*-===//
//
// A roofline model of one accelerator core, from the same target parameters
// the emulator's cycle model uses: DMA traffic at the DRAM bandwidth plus
// its latency, overlapped with the matrix unit's multiply-accumulates (at
// the target's MAC rate for the op's element type) and the vector units'
// elements. accel-split-ops prices split rules with it, accel-place
// schedules ops on cores with it.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_TRANSFORMS_COSTMODEL_H
#define NNACCEL_LIB_TRANSFORMS_COSTMODEL_H

#include "nnaccel/ISA/Target.h"

#include "mlir/IR/Operation.h"

namespace mlir::nnaccel {

/// Multiply-accumulates of the heavy ops (FC, matmul, conv; 0 for others).
double getMacs(Operation *op);

class CoreCostModel {
public:
  explicit CoreCostModel(const ::nnaccel::isa::TargetDesc &target);

  /// Cycles of `op` on one core when it reads `operandFraction[i]` of
  /// operand i and computes `fraction` of its results, cut along result
  /// axis `cutAxis` (-1: spread evenly; the matrix unit's tile padding
  /// depends on which dimension shrinks).
  double estimate(Operation *op, ArrayRef<double> operandFraction,
                  double fraction, int64_t cutAxis = -1) const;
  /// Cycles of the whole of `op` on one core.
  double estimate(Operation *op) const;
  /// Cycles of `op` run as one unit by a multi-core kernel on `cores`
  /// cores (CardKernelOpInterface::getMaxKernelCores > 1): an int8 or a
  /// block-float conv shares its output pixels (each core reads its share
  /// of the input and all the weights, computes its rows of the matrix
  /// product), plus the barriers around it; other such ops (recurrences)
  /// as on one core.
  double estimateOnCores(Operation *op, unsigned cores) const;

  /// Cycles to stream `bytes` between DRAM and a core once.
  double stream(uint64_t bytes) const {
    return double(bytes) / bytesPerCycle + latency;
  }

  /// Cycles to copy `bytes` through a core (a non-contiguous slice or
  /// re-join).
  double copy(uint64_t bytes) const;

  /// What every extra piece and every wait for other cores costs: the DMA
  /// latency the pieces no longer overlap, queues draining at a barrier.
  double overhead() const { return 2 * latency; }

  /// Cycles a value moving over the host link costs (in or out of a card).
  double hostTransfer(uint64_t bytes) const;

  const ::nnaccel::isa::TargetDesc &getTarget() const { return target; }

private:
  /// The matrix unit's weight type for `op` (f32 when it has none the
  /// target rates).
  ::nnaccel::DType getMatrixDType(Operation *op) const;
  double getMacRate(Operation *op) const;
  /// Cycles of the matrix unit (or, for depthwise convolutions, the MFUs)
  /// for `fraction` of the op's result cut along `cutAxis`, as the
  /// emulator counts them: m rows times k / L lanes times n / N tiles,
  /// at least the MAC rate's bound; nullopt for ops without a matrix shape.
  std::optional<double> getMatrixCycles(Operation *op, double fraction,
                                        int64_t cutAxis) const;

  const ::nnaccel::isa::TargetDesc &target;
  double bytesPerCycle, latency, vectorRate;
};

} // namespace mlir::nnaccel

#endif // NNACCEL_LIB_TRANSFORMS_COSTMODEL_H
