//===- Evaluator.cpp - Running accel IR in process ------------------------===//
//
// Values live in slots numbered in program order; a run starts from the
// constants' views and drops every other slot after its last reader, so
// the memory a run holds is the live set of the graph, as in the runtime.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Evaluator.h"

#include "nnaccel/Runtime/HostKernels.h"
#include "nnaccel/Target/HostOpDescription.h"

#include "Accel/AccelOps.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::calibration;
namespace runtime = ::nnaccel::runtime;

/// The runtime's descriptor of a statically shaped tensor type.
static FailureOr<runtime::TensorDesc> getTensorDesc(Type type, Location loc) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (tensor && !tensor.hasStaticShape())
    return emitError(loc) << "cannot evaluate the dynamically shaped " << type;
  FailureOr<::nnaccel::package::TensorType> converted =
      convertTensorType(type, loc);
  if (failed(converted))
    return failure();
  return runtime::TensorDesc(converted->storageType(), converted->shape);
}

int FuncEvaluator::getSlot(Value value) {
  auto [it, inserted] = slots.try_emplace(value, int(slotValues.size()));
  if (inserted) {
    slotValues.push_back(value);
    constants.emplace_back();
  }
  return it->second;
}

FailureOr<std::unique_ptr<FuncEvaluator>>
FuncEvaluator::create(func::FuncOp func) {
  std::unique_ptr<FuncEvaluator> evaluator(new FuncEvaluator(func));
  if (failed(evaluator->prepare()))
    return failure();
  return evaluator;
}

LogicalResult FuncEvaluator::prepare() {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("cannot be evaluated: it has no single block");
  for (BlockArgument arg : func.getArguments()) {
    FailureOr<TensorDesc> desc = getTensorDesc(arg.getType(), func.getLoc());
    if (failed(desc))
      return failure();
    getSlot(arg);
    inputDescs.push_back(std::move(*desc));
  }
  for (Operation &op : func.getBody().front()) {
    if (auto constant = dyn_cast<accel::ConstantOp>(op)) {
      FailureOr<TensorDesc> desc =
          getTensorDesc(constant.getType(), constant.getLoc());
      if (failed(desc))
        return failure();
      FailureOr<ArrayRef<char>> bytes = getConstantBytes(constant, scratch);
      if (failed(bytes))
        return failure();
      if (bytes->size() != desc->getByteSize())
        return constant.emitOpError()
               << "holds " << bytes->size() << " bytes, its type needs "
               << desc->getByteSize();
      // The bytes belong to the context (attribute or blob) or to
      // `scratch`, both of which outlive every run.
      constants[getSlot(constant.getResult())] =
          Tensor::view(std::move(*desc), bytes->data(), nullptr);
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value value : ret.getOperands())
        returned.push_back(getSlot(value));
      continue;
    }
    if (!isa<accel::AccelDialect>(op.getDialect()) || op.getNumRegions())
      return op.emitOpError("cannot be evaluated: only accel ops outside "
                            "partitions run on host kernels");
    std::string kind = op.getName().getStringRef().str();
    if (!runtime::isHostOpSupported(kind))
      return op.emitOpError("cannot be evaluated: it has no host kernel");
    FailureOr<::nnaccel::package::HostOpDesc> desc = describeHostOp(&op);
    if (failed(desc))
      return failure();
    Step step{&op, runtime::makeHostOp(*desc), {}, {}, {}, {}};
    for (Value operand : getHostOpOperands(&op))
      step.operands.push_back(operand ? getSlot(operand) : -1);
    for (Value result : op.getResults()) {
      FailureOr<TensorDesc> resultDesc =
          getTensorDesc(result.getType(), op.getLoc());
      if (failed(resultDesc))
        return failure();
      step.results.push_back(getSlot(result));
      step.resultDescs.push_back(std::move(*resultDesc));
    }
    steps.push_back(std::move(step));
  }

  // Each computed value (argument or result) is released by the last step
  // that reads it, or the one that makes it when nothing does.
  std::vector<int> lastStep(slotValues.size(), -1);
  for (auto [index, step] : llvm::enumerate(steps)) {
    for (int slot : step.operands)
      if (slot >= 0)
        lastStep[slot] = int(index);
    for (int slot : step.results)
      lastStep[slot] = std::max(lastStep[slot], int(index));
  }
  for (int slot : returned)
    lastStep[slot] = -1;
  for (auto [slot, step] : llvm::enumerate(lastStep))
    if (step >= 0 && constants[slot].isNull())
      steps[step].release.push_back(int(slot));
  return success();
}

LogicalResult FuncEvaluator::run(ArrayRef<Tensor> inputs, Observer observe,
                                 std::vector<Tensor> *outputs) {
  if (inputs.size() != inputDescs.size())
    return func.emitOpError() << "takes " << inputDescs.size()
                              << " inputs, given " << inputs.size();
  std::vector<Tensor> values = constants;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    if (input.getDesc() != inputDescs[index])
      return func.emitOpError()
             << "takes " << inputDescs[index].toString() << " as input "
             << index << ", given " << input.getDesc().toString();
    BlockArgument arg = func.getArgument(index);
    values[slots.lookup(arg)] = input;
    observe(arg, input);
  }
  std::vector<const Tensor *> operands;
  std::vector<Tensor> results;
  for (Step &step : steps) {
    operands.clear();
    for (int slot : step.operands)
      operands.push_back(slot < 0 ? nullptr : &values[slot]);
    results.clear();
    runtime::Status status = runtime::runHostOp(
        step.hostOp, runtime::Span<const Tensor *const>(operands), results,
        step.resultDescs);
    if (!status.ok())
      return emitError(step.op->getLoc()) << status.message();
    for (auto [slot, result] : llvm::zip(step.results, results)) {
      values[slot] = std::move(result);
      observe(slotValues[slot], values[slot]);
    }
    for (int slot : step.release)
      values[slot] = Tensor();
  }
  if (outputs)
    for (int slot : returned)
      outputs->push_back(values[slot]);
  return success();
}
