//===- PlacementFile.h - placement hints as JSON ----------------*- C++ -*-===//
//
// The placement file (`nnaccel-compile --placement=FILE`,
// `--save-placement=FILE`, pass accel-load-placement) holds per-op hints:
//
//   {"version": 1,
//    "placement": [
//      {"node": "fc[0-9]+", "op": "accel.fully_connected",
//       "card": 0, "cores": [0, 1], "chunks": 2, "parallel": "model",
//       "memory": "DRAM", "precision": "f16", "order": 3}]}
//
// `node` and `op` are regular expressions matched against the whole node
// name (the op's location name) and the accel op name (with or without
// the `accel.` prefix); an entry needs at least one of them, and the first
// entry that matches an op gives its hint. The other fields are those of
// #accel.hint (docs/passes.md); `memory` is SRAM, SHARED or DRAM.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TRANSFORMS_PLACEMENTFILE_H
#define NNACCEL_TRANSFORMS_PLACEMENTFILE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::nnaccel {

/// Reads the placement file at `path` and sets `accel.hint` on every op of
/// `module` an entry matches (fields the entry sets replace the op's
/// existing hint fields). A malformed file is an error naming the entry;
/// an entry that matches nothing is a warning.
LogicalResult applyPlacementFile(ModuleOp module, StringRef path);

/// Writes the placement the compiler chose for `module` (after
/// accel-split-ops and accel-place) as a placement file: one entry per
/// named op with its card, its cores and the number of pieces it was split
/// into, so that loading it reproduces the choice.
void writePlacementFile(ModuleOp module, llvm::raw_ostream &os);

} // namespace mlir::nnaccel

#endif // NNACCEL_TRANSFORMS_PLACEMENTFILE_H
