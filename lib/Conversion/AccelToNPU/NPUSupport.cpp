//===- NPUSupport.cpp - which accel ops the NPU backend lowers ------------===//
//
// The lowering to the NPU ISA grows op by op; this file lists what it
// covers. Everything else runs on the host with the reason given here.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Conversion/NPUSupport.h"

#include "Accel/AccelOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

LogicalResult mlir::nnaccel::canLowerToNPU(Operation *op,
                                           std::string &reason) {
  reason = ("no NPU lowering for " + op->getName().getStringRef() + " yet")
               .str();
  return failure();
}

bool mlir::nnaccel::isHeavyOp(Operation *op) {
  return isa<MatMulOp, FullyConnectedOp, ConvOp, EmbeddingBagOp, LSTMOp,
             GRUOp>(op);
}
