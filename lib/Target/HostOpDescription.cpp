//===- HostOpDescription.cpp - accel ops as the runtime runs them ---------===//
//
// Attributes follow the contract of include/nnaccel/Runtime/HostOp.h
// (integers, floats, arrays, enum keywords); quantised types add their
// parameters as attributes, since host kernels see storage types only.
// docs/host-kernels.md lists every op's attributes.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Target/HostOpDescription.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
namespace pkg = ::nnaccel::package;

FailureOr<pkg::TensorType> mlir::nnaccel::convertTensorType(Type type,
                                                            Location loc) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError(loc) << "cannot store non-tensor type " << type;
  pkg::TensorType result;
  result.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  Type element = tensor.getElementType();
  if (auto quant = dyn_cast<quant::QuantizedType>(element)) {
    std::optional<pkg::DType> expressed =
        accel::getElementDType(quant.getExpressedType());
    std::optional<pkg::DType> storage = accel::getElementDType(quant);
    if (!expressed || !storage)
      return emitError(loc) << "cannot store quantized type " << quant;
    pkg::QuantParams params;
    params.storage = *storage;
    params.storageMin = quant.getStorageTypeMin();
    params.storageMax = quant.getStorageTypeMax();
    if (auto uniform = dyn_cast<quant::UniformQuantizedType>(quant)) {
      params.scales = {uniform.getScale()};
      params.zeroPoints = {uniform.getZeroPoint()};
    } else if (auto perAxis =
                   dyn_cast<quant::UniformQuantizedPerAxisType>(quant)) {
      params.scales.assign(perAxis.getScales().begin(),
                           perAxis.getScales().end());
      params.zeroPoints.assign(perAxis.getZeroPoints().begin(),
                               perAxis.getZeroPoints().end());
      params.axis = perAxis.getQuantizedDimension();
    } else {
      return emitError(loc) << "cannot store quantized type " << quant;
    }
    result.dtype = *expressed;
    result.quant = params;
    return result;
  }
  std::optional<pkg::DType> dtype = accel::getElementDType(element);
  if (!dtype)
    return emitError(loc) << "cannot store element type " << element;
  result.dtype = *dtype;
  return result;
}

FailureOr<ArrayRef<char>>
mlir::nnaccel::getConstantBytes(ConstantOp op,
                                std::deque<std::vector<char>> &scratch) {
  ElementsAttr value = op.getValue();
  auto type = cast<RankedTensorType>(op.getType());
  std::optional<::nnaccel::DType> dtype = accel::getElementDType(type);
  // Packages (like card memory) hold sub-byte elements two per byte, block
  // types as whole blocks and rowwise tables as fused rows
  // (accel::getDenseByteSize).
  const bool packed =
      dtype && (::nnaccel::isSubByte(*dtype) || ::nnaccel::isBlock(*dtype) ||
                ::nnaccel::isRowwise(*dtype));
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op.emitOpError("refers to a resource blob that has no data");
    ArrayRef<char> bytes = blob->getData();
    // Blobs of packed types already hold the packed layout.
    if (packed && bytes.size() != accel::getDenseByteSize(type))
      return op.emitOpError()
             << "holds " << bytes.size() << " bytes of " << type << ", whose "
             << "packed layout takes " << accel::getDenseByteSize(type);
    return bytes;
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return op.emitOpError("has a constant kind the package cannot store");
  size_t count = type.getNumElements();
  if (packed) {
    // One byte per element in the attribute: two per byte, row by row.
    int64_t cols = type.getRank() ? type.getShape().back() : 1;
    std::vector<char> &data =
        scratch.emplace_back(accel::getDenseByteSize(type), 0);
    size_t rowBytes = (cols + 1) / 2, i = 0;
    for (const APInt &element : dense.getValues<APInt>()) {
      size_t row = i / std::max<int64_t>(cols, 1),
             col = i % std::max<int64_t>(cols, 1);
      uint8_t nibble = uint8_t(element.getZExtValue() & 0xF);
      data[row * rowBytes + col / 2] |= char(col % 2 ? nibble << 4 : nibble);
      ++i;
    }
    return ArrayRef<char>(data);
  }
  if (dense.getElementType().isInteger(1)) {
    // Packed bits in the attribute; one byte per element in packages.
    std::vector<char> &data = scratch.emplace_back();
    for (bool bit : dense.getValues<bool>())
      data.push_back(bit ? 1 : 0);
    return ArrayRef<char>(data);
  }
  if (dense.isSplat()) {
    ArrayRef<char> element = dense.getRawData();
    std::vector<char> &data = scratch.emplace_back();
    data.reserve(element.size() * count);
    for (size_t i = 0; i < count; ++i)
      data.insert(data.end(), element.begin(), element.end());
    return ArrayRef<char>(data);
  }
  return dense.getRawData();
}

/// The runtime's encoding of one inherent attribute, or nullopt if the
/// attribute has none.
static std::optional<pkg::AttrValue> convertAttribute(Attribute attr) {
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return pkg::AttrValue(int64_t(boolean.getValue()));
  if (isa<UnitAttr>(attr)) // present: set
    return pkg::AttrValue(int64_t(1));
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return pkg::AttrValue(integer.getValue().getSExtValue());
  if (auto real = dyn_cast<FloatAttr>(attr))
    return pkg::AttrValue(real.getValueAsDouble());
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
    return pkg::AttrValue(std::vector<int64_t>(array.asArrayRef().begin(),
                                               array.asArrayRef().end()));
  if (auto array = dyn_cast<DenseF64ArrayAttr>(attr))
    return pkg::AttrValue(std::vector<double>(array.asArrayRef().begin(),
                                              array.asArrayRef().end()));
  if (auto string = dyn_cast<StringAttr>(attr))
    return pkg::AttrValue(string.str());
  if (auto e = dyn_cast<ActivationAttr>(attr))
    return pkg::AttrValue(stringifyActivation(e.getValue()).str());
  if (auto e = dyn_cast<GeluApproximationAttr>(attr))
    return pkg::AttrValue(stringifyGeluApproximation(e.getValue()).str());
  if (auto e = dyn_cast<PadModeAttr>(attr))
    return pkg::AttrValue(stringifyPadMode(e.getValue()).str());
  if (auto e = dyn_cast<BagModeAttr>(attr))
    return pkg::AttrValue(stringifyBagMode(e.getValue()).str());
  if (auto e = dyn_cast<RNNDirectionAttr>(attr))
    return pkg::AttrValue(stringifyRNNDirection(e.getValue()).str());
  if (auto e = dyn_cast<CompareKindAttr>(attr))
    return pkg::AttrValue(stringifyCompareKind(e.getValue()).str());
  return std::nullopt;
}

/// Quantisation parameters of quantize/dequantize/requantize, which the
/// host kernels read as attributes (see docs/host-kernels.md).
static void addQuantAttributes(StringRef prefix, Type type,
                               pkg::HostOpDesc &desc) {
  auto quant = dyn_cast<quant::QuantizedType>(
      cast<RankedTensorType>(type).getElementType());
  if (!quant)
    return;
  std::string p = prefix.str();
  desc.attrs.emplace_back(p + "storage_min", quant.getStorageTypeMin());
  desc.attrs.emplace_back(p + "storage_max", quant.getStorageTypeMax());
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(quant)) {
    desc.attrs.emplace_back(p + "scale", uniform.getScale());
    desc.attrs.emplace_back(p + "zero_point", uniform.getZeroPoint());
  } else if (auto axis = dyn_cast<quant::UniformQuantizedPerAxisType>(quant)) {
    desc.attrs.emplace_back(
        p + "scales",
        std::vector<double>(axis.getScales().begin(), axis.getScales().end()));
    desc.attrs.emplace_back(p + "zero_points",
                            std::vector<int64_t>(axis.getZeroPoints().begin(),
                                                 axis.getZeroPoints().end()));
    desc.attrs.emplace_back(p + "axis", int64_t(axis.getQuantizedDimension()));
  }
}

/// The segment sizes of an op with optional or variadic operands, if any.
static DenseI32ArrayAttr getOperandSegments(Operation *op) {
  auto properties =
      dyn_cast_if_present<DictionaryAttr>(op->getPropertiesAsAttribute());
  if (!properties)
    return {};
  return dyn_cast_if_present<DenseI32ArrayAttr>(
      properties.get("operandSegmentSizes"));
}

SmallVector<Value> mlir::nnaccel::getHostOpOperands(Operation *op) {
  DenseI32ArrayAttr segments = getOperandSegments(op);
  if (!segments)
    return SmallVector<Value>(op->getOperands());
  SmallVector<Value> operands;
  unsigned next = 0;
  for (int32_t size : segments.asArrayRef()) {
    if (size == 0)
      operands.push_back(Value());
    for (int32_t i = 0; i < size; ++i)
      operands.push_back(op->getOperand(next++));
  }
  return operands;
}

FailureOr<pkg::HostOpDesc> mlir::nnaccel::describeHostOp(Operation *op) {
  pkg::HostOpDesc desc;
  desc.kind = op->getName().getStringRef().str();
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    desc.location = loc.getName().str();
  if (auto properties =
          dyn_cast_if_present<DictionaryAttr>(op->getPropertiesAsAttribute())) {
    for (NamedAttribute attr : properties) {
      if (attr.getName() == "operandSegmentSizes")
        continue;
      std::optional<pkg::AttrValue> value = convertAttribute(attr.getValue());
      if (!value)
        return op->emitOpError() << "attribute '" << attr.getName().getValue()
                                 << "' cannot be stored in a package";
      desc.attrs.emplace_back(attr.getName().str(), std::move(*value));
    }
  }
  // accel-quantize-block-float's k tile (a discardable attribute of
  // fully_connected, lstm and gru): the host's block kernels sum the k
  // tiles' partial products in the card's order only when they know it.
  if (auto kTile = op->getAttrOfType<IntegerAttr>("k_tile"))
    if (std::optional<pkg::AttrValue> value = convertAttribute(kTile))
      desc.attrs.emplace_back("k_tile", std::move(*value));
  if (isa<QuantizeOp>(op))
    addQuantAttributes("", op->getResult(0).getType(), desc);
  else if (isa<DequantizeOp>(op))
    addQuantAttributes("", op->getOperand(0).getType(), desc);
  else if (isa<RequantizeOp>(op)) {
    addQuantAttributes("input_", op->getOperand(0).getType(), desc);
    addQuantAttributes("output_", op->getResult(0).getType(), desc);
  } else if (auto fc = dyn_cast<FullyConnectedOp>(op)) {
    // A quantized product (HostQuantizedLinalg.cpp).
    addQuantAttributes("input_", fc.getInput().getType(), desc);
    addQuantAttributes("weight_", fc.getWeight().getType(), desc);
    addQuantAttributes("output_", fc.getType(), desc);
  } else if (isa<AddOp>(op) &&
             isa<quant::QuantizedType>(
                 cast<RankedTensorType>(op->getResult(0).getType())
                     .getElementType())) {
    // A quantized add (HostQuantizedElementwise.cpp).
    addQuantAttributes("lhs_", op->getOperand(0).getType(), desc);
    addQuantAttributes("rhs_", op->getOperand(1).getType(), desc);
    addQuantAttributes("output_", op->getResult(0).getType(), desc);
  } else if (auto conv = dyn_cast<ConvOp>(op)) {
    // A quantized convolution (HostQuantizedLinalg.cpp).
    addQuantAttributes("input_", conv.getInput().getType(), desc);
    addQuantAttributes("weight_", conv.getWeight().getType(), desc);
    addQuantAttributes("output_", conv.getType(), desc);
  }
  return desc;
}
