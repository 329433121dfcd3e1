//===- Evaluator.h - Running accel IR in process ----------------*- C++ -*-===//
//
// Evaluates a `func.func` of accel ops (the module as the ONNX importer
// leaves it) on concrete inputs with the runtime's host kernels, op by op,
// so that calibration can look at every intermediate value. Ops are
// converted once, by the same code that writes them into packages
// (Target/HostOpDescription.h, runtime::makeHostOp), so a value computed
// here is the value a host partition of the compiled package would
// compute. Constants are views of their attribute's or resource blob's
// bytes; weights are never copied.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CALIBRATION_EVALUATOR_H
#define NNACCEL_CALIBRATION_EVALUATOR_H

#include "nnaccel/Runtime/HostOp.h"
#include "nnaccel/Runtime/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <deque>
#include <memory>
#include <vector>

namespace mlir::nnaccel::calibration {

class FuncEvaluator {
public:
  using Tensor = ::nnaccel::runtime::Tensor;
  using TensorDesc = ::nnaccel::runtime::TensorDesc;
  /// Sees a value the moment it is known: each argument, then each op's
  /// results. Constants are not shown.
  using Observer = llvm::function_ref<void(Value, const Tensor &)>;

  /// Prepares `func`: every op must be an accel op with a host kernel (or
  /// a constant) on statically shaped tensors. Errors are reported at the
  /// op that cannot be evaluated.
  static FailureOr<std::unique_ptr<FuncEvaluator>> create(func::FuncOp func);

  /// The types the arguments must have, in order.
  ArrayRef<TensorDesc> getInputDescs() const { return inputDescs; }

  /// Evaluates the function on `inputs` (one per argument, of
  /// getInputDescs()' types), calling `observe` on every argument and op
  /// result; the returned values go to `outputs` when given. Intermediate
  /// values are released after their last use. Kernel errors are reported
  /// at the op.
  LogicalResult run(ArrayRef<Tensor> inputs, Observer observe,
                    std::vector<Tensor> *outputs = nullptr);

private:
  /// One op, converted: operand slots (-1: absent optional operand), result
  /// slots and types, and the slots whose last use it is.
  struct Step {
    Operation *op;
    ::nnaccel::runtime::HostOp hostOp;
    std::vector<int> operands;
    std::vector<int> results;
    std::vector<TensorDesc> resultDescs;
    std::vector<int> release;
  };

  explicit FuncEvaluator(func::FuncOp func) : func(func) {}
  LogicalResult prepare();
  int getSlot(Value value);

  func::FuncOp func;
  llvm::DenseMap<Value, int> slots;
  /// Per slot: the constant's view, or a null tensor for computed values.
  std::vector<Tensor> constants;
  std::vector<Value> slotValues;
  std::vector<TensorDesc> inputDescs;
  std::vector<Step> steps;
  std::vector<int> returned;
  /// Constant bytes that had to be materialised (splats, i1).
  std::deque<std::vector<char>> scratch;
};

} // namespace mlir::nnaccel::calibration

#endif // NNACCEL_CALIBRATION_EVALUATOR_H
