//===- NodeContext.cpp - per-node access for ONNX op converters -----------===//
//
// See ImporterContext.h.
//
//===----------------------------------------------------------------------===//

#include "ImporterContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::onnx_import;

InFlightDiagnostic NodeContext::emitError() {
  return mlir::emitError(loc)
         << "node '" << name << "' (" << node.op_type() << "): ";
}

Value NodeContext::getInput(int64_t index) const {
  if (!hasInput(index))
    return {};
  return values.lookup(node.input(index));
}

RankedTensorType NodeContext::getInputType(int64_t index) const {
  Value value = getInput(index);
  return value ? cast<RankedTensorType>(value.getType()) : RankedTensorType();
}

/// The ONNX name of `value` when it is a graph input (a function argument).
static std::optional<std::string> getGraphInputName(Value value) {
  auto arg = dyn_cast_if_present<BlockArgument>(value);
  if (!arg)
    return std::nullopt;
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func)
    return std::nullopt;
  auto name =
      func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "onnx.name");
  if (!name)
    return std::nullopt;
  return name.str();
}

/// The graph inputs `value` is computed from (a backward slice; the ops
/// on the way are all evaluated by the folders once those are constant).
static void collectGraphInputs(Value value, SmallVectorImpl<Value> &inputs,
                               llvm::SmallPtrSetImpl<Operation *> &seen) {
  if (isa<BlockArgument>(value)) {
    if (!llvm::is_contained(inputs, value))
      inputs.push_back(value);
    return;
  }
  Operation *op = value.getDefiningOp();
  if (!op || !seen.insert(op).second)
    return;
  for (Value operand : op->getOperands())
    collectGraphInputs(operand, inputs, seen);
}

/// Names the graph input a non-constant operand comes from, and how to
/// bind it (conformance tests feed shape operands as graph inputs).
static void noteGraphInput(InFlightDiagnostic &diag, Value value) {
  if (!value)
    return;
  if (std::optional<std::string> name = getGraphInputName(value)) {
    diag << "; it is graph input '" << *name << "' (bind it to a value with "
         << "--bind-input " << *name << "=FILE.pb)";
    return;
  }
  SmallVector<Value> inputs;
  llvm::SmallPtrSet<Operation *, 16> seen;
  collectGraphInputs(value, inputs, seen);
  if (inputs.size() != 1)
    return;
  if (std::optional<std::string> name = getGraphInputName(inputs.front()))
    diag << "; it is computed from graph input '" << *name
         << "' (bind it to a value with --bind-input " << *name << "=FILE.pb)";
}

FailureOr<SmallVector<int64_t>> NodeContext::getConstantInts(int64_t index,
                                                             StringRef what) {
  Value value = getInput(index);
  DenseIntElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr))) {
    InFlightDiagnostic diag = emitError();
    diag << what << " (input " << index
         << ") must be a compile-time constant; the importer needs "
            "static shapes (fix symbolic inputs with --input-shape)";
    noteGraphInput(diag, value);
    return failure();
  }
  SmallVector<int64_t> result;
  for (const APInt &v : attr.getValues<APInt>())
    result.push_back(v.getSExtValue());
  return result;
}

FailureOr<SmallVector<double>> NodeContext::getConstantValues(int64_t index,
                                                              StringRef what) {
  Value value = getInput(index);
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr))) {
    InFlightDiagnostic diag = emitError();
    diag << what << " (input " << index << ") must be a compile-time constant";
    noteGraphInput(diag, value);
    return failure();
  }
  SmallVector<double> result;
  if (isa<FloatType>(attr.getElementType())) {
    for (const APFloat &v : attr.getValues<APFloat>())
      result.push_back(v.convertToDouble());
  } else {
    bool isUnsigned = attr.getElementType().isUnsignedInteger();
    for (const APInt &v : attr.getValues<APInt>())
      result.push_back(isUnsigned ? double(v.getZExtValue())
                                  : double(v.getSExtValue()));
  }
  return result;
}

FailureOr<float> NodeContext::getConstantFloat(int64_t index, StringRef what) {
  // Integer bounds (Clip on integer tensors) are read as their values.
  Value value = getInput(index);
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      attr.getNumElements() != 1) {
    InFlightDiagnostic diag = emitError();
    diag << what << " (input " << index << ") must be a constant scalar";
    noteGraphInput(diag, value);
    return failure();
  }
  FailureOr<SmallVector<double>> values = getConstantValues(index, what);
  if (failed(values))
    return failure();
  return float(values->front());
}

const onnx::AttributeProto *NodeContext::getAttr(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t NodeContext::getIntAttr(StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr ? attr->i() : defaultValue;
}

float NodeContext::getFloatAttr(StringRef name, float defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr ? attr->f() : defaultValue;
}

std::string NodeContext::getStringAttr(StringRef name,
                                       StringRef defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr ? attr->s() : defaultValue.str();
}

std::optional<SmallVector<int64_t>>
NodeContext::getIntsAttr(StringRef name) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr)
    return std::nullopt;
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

std::optional<SmallVector<float>>
NodeContext::getFloatsAttr(StringRef name) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr)
    return std::nullopt;
  return SmallVector<float>(attr->floats().begin(), attr->floats().end());
}

std::optional<SmallVector<std::string>>
NodeContext::getStringsAttr(StringRef name) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr)
    return std::nullopt;
  return SmallVector<std::string>(attr->strings().begin(),
                                  attr->strings().end());
}

void NodeContext::setOutput(int64_t index, Value value) {
  if (hasOutput(index))
    values[node.output(index)] = value;
}

FailureOr<SmallVector<Value>>
NodeContext::createInferredImpl(StringRef opName, ValueRange operands,
                                ArrayRef<NamedAttribute> attrs,
                                unsigned numResults, InferFn infer) {
  // Build with placeholder result types, then let the op infer the real
  // ones from its (property-backed) attributes; a failed inference removes
  // the op again.
  OperationState state(loc, opName);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(SmallVector<Type>(numResults, builder.getNoneType()));
  Operation *op = builder.create(state);
  SmallVector<Type> types;
  if (failed(infer(getContext(), loc, op->getOperands(),
                   op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                   op->getRegions(), types)) ||
      types.size() != numResults) {
    op->erase();
    return failure();
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  SmallVector<Value> results;
  if (succeeded(builder.tryFold(op, results)) && !results.empty()) {
    op->erase();
    return results;
  }
  return SmallVector<Value>(op->getResults());
}

Value NodeContext::createI64Constant(ArrayRef<int64_t> data,
                                     std::optional<ArrayRef<int64_t>> shape) {
  SmallVector<int64_t> dims =
      shape ? SmallVector<int64_t>(*shape)
            : SmallVector<int64_t>{static_cast<int64_t>(data.size())};
  auto type = RankedTensorType::get(dims, builder.getI64Type());
  return builder.create<accel::ConstantOp>(loc,
                                           DenseElementsAttr::get(type, data));
}

Value NodeContext::createF32Constant(ArrayRef<float> data,
                                     ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, builder.getF32Type());
  return builder.create<accel::ConstantOp>(loc,
                                           DenseElementsAttr::get(type, data));
}

Value NodeContext::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return create<accel::ReshapeOp>(type.clone(shape), value);
}

FailureOr<int64_t> mlir::nnaccel::onnx_import::normalizeAxis(NodeContext &ctx,
                                                             int64_t axis,
                                                             int64_t rank,
                                                             StringRef what) {
  if (axis < -rank || axis >= rank) {
    ctx.emitError() << what << " " << axis << " is out of range for rank "
                    << rank;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}
