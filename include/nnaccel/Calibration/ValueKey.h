//===- ValueKey.h - Stable names of profiled values -------------*- C++ -*-===//
//
// Calibration statistics outlive the IR they were measured on: a profile is
// saved and loaded by a later compile, and samples at other input shapes
// run on re-imports of the model. Values are therefore named by what
// survives a re-import rather than by SSA position: a graph input by its
// ONNX name, an op result by the ONNX node the op came from (its NameLoc),
// the op kind, the result number and, for ops that share node and kind
// (a node imported as several ops of one kind, ops without a name), how many
// such ops come before it in the function.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CALIBRATION_VALUEKEY_H
#define NNACCEL_CALIBRATION_VALUEKEY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace mlir::nnaccel::calibration {

struct ValueKey {
  /// The ONNX node name of the op (empty if it has none), or the name of
  /// the graph input.
  std::string name;
  /// The op kind, e.g. "accel.conv"; empty for a graph input.
  std::string op;
  unsigned result = 0;
  /// The number of earlier ops of the function with the same name and kind.
  unsigned occurrence = 0;

  bool isArgument() const { return op.empty(); }
  /// For diagnostics: "input 'x'", "node '/0/Gemm' (accel.fully_connected)",
  /// with the result and occurrence when they are not 0.
  std::string describe() const;

  bool operator<(const ValueKey &other) const {
    return std::tie(name, op, result, occurrence) <
           std::tie(other.name, other.op, other.result, other.occurrence);
  }
  bool operator==(const ValueKey &other) const {
    return std::tie(name, op, result, occurrence) ==
           std::tie(other.name, other.op, other.result, other.occurrence);
  }
};

/// The name of `func`'s argument `index`: its `onnx.name` attribute, else
/// "input_<index>" (as packages name their ports).
std::string getArgumentName(func::FuncOp func, unsigned index);

/// The values calibration profiles in `func`, in order, with their keys:
/// float-typed arguments, then every float-typed result of every op except
/// constants (their values are in the IR; weight ranges are the
/// quantiser's to choose, often per channel).
std::vector<std::pair<Value, ValueKey>> getProfiledValues(func::FuncOp func);

} // namespace mlir::nnaccel::calibration

#endif // NNACCEL_CALIBRATION_VALUEKEY_H
