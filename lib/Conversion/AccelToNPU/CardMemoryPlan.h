//===- CardMemoryPlan.h - DRAM plan of a card partition ---------*- C++ -*-===//
//
// Where every tensor of an accel.card_partition lives in the card's DRAM,
// and where kernels stage data in the card-wide SHARED memory. The plan is
// an IR decision: accel-plan-card-memory records it as attributes (the
// partition's input_addresses / output_addresses, accel.dram_bytes and
// accel.shared_bytes, `accel.dram_address` on every constant and every
// value-producing op, `accel.shared_address` on ops whose kernel stages
// through SHARED), and accel-lower-to-npu reads it back from there.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDMEMORYPLAN_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDMEMORYPLAN_H

#include "Accel/AccelOps.h"
#include "nnaccel/ISA/Target.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::nnaccel::npu_lowering {

/// True when accel-plan-card-memory can lay `weight` (a K x N
/// fully_connected weight) out as N x K: a constant of a card float type.
bool canTransposeWeightAtCompileTime(Value weight);

/// Plans the DRAM of `partitions`, which run on one card in this order.
/// Prepares their weights for the matrix unit (constant K x N
/// fully_connected weights are transposed to N x K at compile time). When
/// several partitions share the card, the weights of all of them go side by
/// side at the bottom of DRAM, so they can stay resident while the
/// partitions take turns. Above them, each partition's work memory is
/// planned first-fit: inputs (then, for a card's only partition, its
/// weights) and results stay for the whole program, intermediates are freed
/// after their last user so later values reuse their space (partitions
/// reuse each other's work memory). Records the plan as attributes,
/// including `accel.dram_work_begin`, where the work memory starts.
/// With `sharedIntermediates`, intermediates that only card kernels read go
/// to the card's SHARED memory while it has room
/// (`accel.result_shared_address`).
LogicalResult planCardMemory(ArrayRef<accel::CardPartitionOp> partitions,
                             const ::nnaccel::isa::TargetDesc &target,
                             bool sharedIntermediates = true);

/// True when `kernel` reaches its operands by DMA immediates and stages
/// nothing in SHARED scratch, so an operand may live in SHARED (there is
/// no SHARED-to-SHARED DMA, and scalar-register addressing such as
/// emb.gather's reads DRAM).
bool readsOperandsFromShared(accel::CardKernelOpInterface kernel,
                             const ::nnaccel::isa::TargetDesc &target);

/// Where SHARED memory appears in the address space kernels see: a value
/// the plan put at SHARED address `a` has the address getSharedWindow() + a
/// in the plan, past the end of DRAM; the program emitter turns such
/// DRAM operands into SHARED ones (ProgramEmitter).
uint64_t getSharedWindow(const ::nnaccel::isa::TargetDesc &target);

/// True when the partition carries a complete plan.
bool hasCardMemoryPlan(accel::CardPartitionOp partition);

/// The recorded plan: the DRAM address of every block argument, constant
/// and op result of the partition (a SHARED result's, and a constant's that
/// is kept in SHARED across runs, at its DRAM alias, getSharedWindow).
/// Fails (with a diagnostic) when a value has no address.
FailureOr<llvm::DenseMap<Value, uint64_t>>
readCardMemoryPlan(accel::CardPartitionOp partition,
                   const ::nnaccel::isa::TargetDesc &target);

/// The values of a planned partition written at a row pitch (the result of
/// every op with accel.result_pitch), and the pitch.
llvm::DenseMap<Value, uint64_t> getRowPitches(Block &body);

/// Checks that an op marked accel.in_place really is address arithmetic
/// under `addresses` (its result is its operand's memory, or its operands
/// are the parts of its result); an error at the op otherwise, since the
/// lowering emits nothing for it.
LogicalResult verifyInPlaceOp(Operation *op,
                              const llvm::DenseMap<Value, uint64_t> &addresses);

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDMEMORYPLAN_H
