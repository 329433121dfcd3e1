//===- ValueKey.cpp - Stable names of the values calibration profiles -----===//
//
// Ops are visited in pre-order; right after import the function is one
// block of accel ops, but nothing here depends on that.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/ValueKey.h"

#include "Accel/AccelOps.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::calibration;

std::string ValueKey::describe() const {
  if (isArgument())
    return "input '" + name + "'";
  std::string text =
      name.empty() ? "unnamed " + op : "node '" + name + "' (" + op + ")";
  if (result)
    text += " result " + std::to_string(result);
  if (occurrence)
    text += " #" + std::to_string(occurrence);
  return text;
}

std::string mlir::nnaccel::calibration::getArgumentName(func::FuncOp func,
                                                        unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, "onnx.name"))
    return name.str();
  return "input_" + std::to_string(index);
}

static bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

std::vector<std::pair<Value, ValueKey>>
mlir::nnaccel::calibration::getProfiledValues(func::FuncOp func) {
  std::vector<std::pair<Value, ValueKey>> values;
  for (BlockArgument arg : func.getArguments())
    if (isFloatTensor(arg.getType()))
      values.push_back(
          {arg, ValueKey{getArgumentName(func, arg.getArgNumber()), "", 0, 0}});
  llvm::StringMap<unsigned> seen;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == func || isa<accel::ConstantOp>(op) || op->getNumResults() == 0)
      return;
    std::string name = accel::getNodeName(op->getLoc()).value_or("").str();
    std::string kind = op->getName().getStringRef().str();
    unsigned occurrence = seen[name + '\0' + kind]++;
    for (OpResult result : op->getResults())
      if (isFloatTensor(result.getType()))
        values.push_back({result, ValueKey{name, kind, result.getResultNumber(),
                                           occurrence}});
  });
  return values;
}
