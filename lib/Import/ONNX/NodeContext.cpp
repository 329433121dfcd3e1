//===- NodeContext.cpp - per-node access for ONNX op converters -----------===//
//
// See ImporterContext.h.
//
//===----------------------------------------------------------------------===//

#include "ImporterContext.h"

#include "mlir/IR/Matchers.h"

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

FailureOr<SmallVector<int64_t>> NodeContext::getConstantInts(int64_t index,
                                                             StringRef what) {
  Value value = getInput(index);
  DenseIntElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr))) {
    emitError() << what << " (input " << index
                << ") must be a compile-time constant; the importer needs "
                   "static shapes (fix symbolic inputs with --input-shape)";
    return failure();
  }
  SmallVector<int64_t> result;
  for (const APInt &v : attr.getValues<APInt>())
    result.push_back(v.getSExtValue());
  return result;
}

FailureOr<float> NodeContext::getConstantFloat(int64_t index, StringRef what) {
  DenseFPElementsAttr attr;
  if (!matchPattern(getInput(index), m_Constant(&attr)) ||
      attr.getNumElements() != 1) {
    emitError() << what << " (input " << index << ") must be a constant scalar";
    return failure();
  }
  return (*attr.getValues<APFloat>().begin()).convertToFloat();
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
