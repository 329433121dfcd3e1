//===- CardMemoryPlan.h - DRAM plan of a card partition ---------*- C++ -*-===//
//
// Where every tensor of an accel.card_partition lives in the card's DRAM.
// The plan is an IR decision: accel-plan-card-memory records it as
// attributes (the partition's input_addresses / output_addresses and
// accel.dram_bytes, `accel.dram_address` on every constant and every
// value-producing op), and accel-lower-to-npu reads it back from there.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDMEMORYPLAN_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDMEMORYPLAN_H

#include "Accel/AccelOps.h"
#include "nnaccel/ISA/Target.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::nnaccel::npu_lowering {

/// Bytes a densely packed tensor of `type` takes in DRAM.
uint64_t getDramByteSize(Type type);

/// True when accel-plan-card-memory can lay `weight` (a K x N
/// fully_connected weight) out as N x K: a constant of a card float type.
bool canTransposeWeightAtCompileTime(Value weight);

/// Prepares the partition's weights for the matrix unit (constant K x N
/// fully_connected weights are transposed to N x K at compile time) and
/// plans its DRAM with first-fit allocation: inputs, weights and results
/// stay for the whole program, intermediates are freed after their last
/// user so later values reuse their space. Records the plan as attributes.
LogicalResult planCardMemory(accel::CardPartitionOp partition,
                             const ::nnaccel::isa::TargetDesc &target);

/// True when the partition carries a complete plan.
bool hasCardMemoryPlan(accel::CardPartitionOp partition);

/// The recorded plan: the DRAM address of every block argument, constant
/// and op result of the partition. Fails (with a diagnostic) when a value
/// has no address.
FailureOr<llvm::DenseMap<Value, uint64_t>>
readCardMemoryPlan(accel::CardPartitionOp partition);

/// Checks that an op marked accel.in_place really is address arithmetic
/// under `addresses` (its result is its operand's memory, or its operands
/// are the parts of its result); an error at the op otherwise, since the
/// lowering emits nothing for it.
LogicalResult verifyInPlaceOp(Operation *op,
                              const llvm::DenseMap<Value, uint64_t> &addresses);

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDMEMORYPLAN_H
