//===- AccelOps.cpp - generated accel op definitions ----------------------===//
//
// Instantiates the TableGen-generated op classes. The hand-written parts of
// each op family (verifiers, shape inference, folders, patterns) live in
// their own files so this heavy translation unit rarely recompiles.
//
//===----------------------------------------------------------------------===//

#include "Accel/AccelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nnaccel::accel;

#define GET_OP_CLASSES
#include "Accel/AccelOps.cpp.inc"
