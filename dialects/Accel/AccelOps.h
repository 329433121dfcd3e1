//===- AccelOps.h - accel operations ----------------------------*- C++ -*-===//
//
// Declares the accel operations and the shape helpers their generated code
// calls.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_ACCELOPS_H
#define NNACCEL_DIALECT_ACCEL_ACCELOPS_H

#include "Accel/AccelDialect.h"
#include "Accel/SplitRule.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <string>

namespace nnaccel::isa {
struct TargetDesc;
} // namespace nnaccel::isa

namespace mlir::nnaccel::npu_lowering {
struct KernelContext;
} // namespace mlir::nnaccel::npu_lowering

namespace mlir::OpTrait::accel {
/// Marks ops whose cost dominates a model (Accel_HeavyOp).
template <typename ConcreteType>
class HeavyOp : public TraitBase<ConcreteType, HeavyOp> {};
} // namespace mlir::OpTrait::accel

#include "Accel/AccelInterfaces.h.inc"

namespace mlir::nnaccel::accel {

/// True when two element types may stand for each other in an op's result:
/// equal, or both quantized (a quantized op chooses its own output scale).
bool areCompatibleElementTypes(Type lhs, Type rhs);

/// Result-type compatibility used by every type-inferring accel op: same
/// count, same shapes, compatible element types.
bool areCompatibleResultTypes(TypeRange inferred, TypeRange actual);

/// Infers the numpy broadcast of `operandTypes` (ranked tensors). Operands
/// from `firstValue` on must have compatible element types (earlier ones are
/// conditions, e.g. of `where`). The result element type is
/// `resultElementType` when given (comparisons), else the operands' one.
LogicalResult inferBroadcastResult(std::optional<Location> location,
                                   ArrayRef<Type> operandTypes,
                                   Type resultElementType,
                                   SmallVectorImpl<Type> &inferred,
                                   size_t firstValue = 0);

/// The core an op of a card partition runs on: the first of the cores its
/// placement names (accel-split-ops), 0 when it names none.
uint32_t getPlacedCore(Operation *op);

/// `op`'s placement moved onto `cores` of `card`, keeping the precision and
/// memory level it names (when it has a placement).
PlacementAttr getPlacementOnCores(Operation *op, int64_t card,
                                  ArrayRef<int64_t> cores);

/// The memory level a user names for an op's weights: SRAM (local),
/// SHARED or DRAM, in any case; nullopt for anything else.
std::optional<MemoryKind> parseMemoryHint(StringRef name);

/// The ONNX node an op came from: the name of its location (the first
/// named part of a fused location, e.g. a Gemm and the Relu fused into it).
std::optional<StringRef> getNodeName(Location loc);

/// "node 'name'" for diagnostics about an op from a named node, else the
/// op's name.
std::string describeNode(Operation *op);

/// Removes the precision from `op`'s #accel.hint once a pass has honoured
/// or warned about it, so later passes do not warn again (the whole hint
/// goes when nothing else is left in it).
void dropHintPrecision(Operation *op);

/// Checks a rowwise-quantized table operand `table` of `op` (embedding_bag's
/// table, gather's data): defined by an accel.constant (whose verifier
/// checks the rank and size), since only compile-time tables have that
/// layout. Success for other types.
LogicalResult verifyRowwiseTableOperand(Operation *op, Value table);

} // namespace mlir::nnaccel::accel

#define GET_OP_CLASSES
#include "Accel/AccelOps.h.inc"

namespace mlir::nnaccel::accel {

/// One value a card partition passes to or takes from another card's
/// partition through a planned accel.transfer: the result or operand
/// index, the other card, the channel and the number of messages the value
/// is cut into along its leading dimension.
struct CardTransfer {
  int64_t index, peer, channel, pieces;
};

/// The operands of `partition` another card sends it (through an
/// accel.transfer with a channel), in operand order.
SmallVector<CardTransfer> getCardReceives(CardPartitionOp partition);
/// The results `partition` sends to other cards, one entry per transfer,
/// in result order.
SmallVector<CardTransfer> getCardSends(CardPartitionOp partition);
/// The indices of getCardReceives: operands that do not cross the host.
llvm::SmallDenseSet<int64_t, 4> getReceivedOperands(CardPartitionOp partition);

/// True when every reader of `result` (a card partition's) is an
/// accel.transfer to another card's partition: the host never needs it.
bool isPassedOnlyCardToCard(OpResult result);

} // namespace mlir::nnaccel::accel

#endif // NNACCEL_DIALECT_ACCEL_ACCELOPS_H
