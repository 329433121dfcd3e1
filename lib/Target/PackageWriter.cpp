//===- PackageWriter.cpp - compiled module to a model package -------------===//
//
// Walks the compiled function in order and records:
// - every tensor as a package value (weights point at their bytes: resource
//   blobs and dense attributes are handed to the builder without a copy);
// - each accel.host_partition as a host partition whose ops carry their
//   attributes in the runtime's encoding (integers, floats, arrays, enum
//   keywords; absent optional operands as -1);
// - each accel.card_partition as a card partition: its npu programs encoded
//   with lib/ISA and the DRAM bindings of inputs, weights and results.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Target/PackageWriter.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUOps.h"
#include "NPU/NPUToISA.h"

#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/Package/Package.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

#include <deque>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
namespace pkg = ::nnaccel::package;

namespace {
class Writer {
public:
  Writer(ModuleOp module, const PackageWriterOptions &options)
      : module(module), options(options) {}

  LogicalResult run(func::FuncOp func, StringRef path);

private:
  FailureOr<pkg::TensorType> convertType(Type type, Location loc);
  FailureOr<int32_t> addValue(Value value, StringRef name = {});
  FailureOr<int32_t> addConstant(ConstantOp op);
  LogicalResult addHostOp(Operation *op, pkg::HostPartitionDesc &partition);
  LogicalResult addHostPartition(HostPartitionOp op);
  LogicalResult addCardPartition(CardPartitionOp op);
  /// The id of `value`, which must have been recorded.
  int32_t idOf(Value value) { return ids.lookup(value); }

  ModuleOp module;
  const PackageWriterOptions &options;
  pkg::PackageBuilder builder;
  pkg::VariantDesc variant;
  llvm::DenseMap<Value, int32_t> ids;
  /// Weight bytes that had to be materialised (splats, i1), kept alive
  /// until the package is written.
  std::deque<std::vector<char>> scratch;
};
} // namespace

FailureOr<pkg::TensorType> Writer::convertType(Type type, Location loc) {
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

FailureOr<int32_t> Writer::addValue(Value value, StringRef name) {
  FailureOr<pkg::TensorType> type =
      convertType(value.getType(), value.getLoc());
  if (failed(type))
    return failure();
  int32_t id = variant.addValue({name.str(), *type, -1});
  ids[value] = id;
  return id;
}

FailureOr<int32_t> Writer::addConstant(ConstantOp op) {
  FailureOr<int32_t> id = addValue(op.getResult());
  if (failed(id))
    return failure();
  ElementsAttr value = op.getValue();
  auto type = cast<RankedTensorType>(op.getType());
  std::optional<::nnaccel::DType> dtype = accel::getElementDType(type);
  // Packages (like card memory) hold sub-byte elements two per byte and
  // block types as whole blocks (accel::getDenseByteSize).
  const bool packed =
      dtype && (::nnaccel::isSubByte(*dtype) || ::nnaccel::isBlock(*dtype));
  ArrayRef<char> bytes;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op.emitOpError("refers to a resource blob that has no data");
    bytes = blob->getData();
    // Blobs of packed types already hold the packed layout.
    if (packed && bytes.size() != accel::getDenseByteSize(type))
      return op.emitOpError()
             << "holds " << bytes.size() << " bytes of " << type << ", whose "
             << "packed layout takes " << accel::getDenseByteSize(type);
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
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
      bytes = data;
    } else if (dense.getElementType().isInteger(1)) {
      // Packed bits in the attribute; one byte per element in packages.
      std::vector<char> &data = scratch.emplace_back();
      for (bool bit : dense.getValues<bool>())
        data.push_back(bit ? 1 : 0);
      bytes = data;
    } else if (dense.isSplat()) {
      ArrayRef<char> element = dense.getRawData();
      std::vector<char> &data = scratch.emplace_back();
      data.reserve(element.size() * count);
      for (size_t i = 0; i < count; ++i)
        data.insert(data.end(), element.begin(), element.end());
      bytes = data;
    } else {
      bytes = dense.getRawData();
    }
  } else {
    return op.emitOpError("has a constant kind the package cannot store");
  }
  auto weight = builder.addWeightNoCopy(bytes.data(), bytes.size());
  if (!weight.ok())
    return op.emitOpError() << "cannot add weight: " << weight.message();
  variant.values[*id].weight = *weight;
  return id;
}

/// The runtime's encoding of one inherent attribute, or nullopt if the
/// attribute has none.
static std::optional<pkg::AttrValue> convertAttribute(Attribute attr) {
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return pkg::AttrValue(int64_t(boolean.getValue()));
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return pkg::AttrValue(integer.getValue().getSExtValue());
  if (auto real = dyn_cast<FloatAttr>(attr))
    return pkg::AttrValue(real.getValueAsDouble());
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
    return pkg::AttrValue(std::vector<int64_t>(array.asArrayRef().begin(),
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

LogicalResult Writer::addHostOp(Operation *op,
                                pkg::HostPartitionDesc &partition) {
  if (auto constant = dyn_cast<ConstantOp>(op))
    return addConstant(constant);
  pkg::HostOpDesc desc;
  desc.kind = op->getName().getStringRef().str();
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    desc.location = loc.getName().str();

  // Operands, with -1 for absent optional operands of segmented ops.
  DenseI32ArrayAttr segments;
  auto properties =
      dyn_cast_if_present<DictionaryAttr>(op->getPropertiesAsAttribute());
  if (properties)
    segments = dyn_cast_if_present<DenseI32ArrayAttr>(
        properties.get("operandSegmentSizes"));
  if (segments) {
    unsigned next = 0;
    for (int32_t size : segments.asArrayRef()) {
      if (size == 0)
        desc.inputs.push_back(-1);
      for (int32_t i = 0; i < size; ++i)
        desc.inputs.push_back(idOf(op->getOperand(next++)));
    }
  } else {
    for (Value operand : op->getOperands())
      desc.inputs.push_back(idOf(operand));
  }
  if (properties) {
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
  }
  for (Value result : op->getResults()) {
    FailureOr<int32_t> id = addValue(result);
    if (failed(id))
      return failure();
    desc.outputs.push_back(*id);
  }
  partition.ops.push_back(std::move(desc));
  return success();
}

LogicalResult Writer::addHostPartition(HostPartitionOp op) {
  pkg::HostPartitionDesc partition;
  partition.reason = op.getReason().value_or("").str();
  Block &body = op.getBody().front();
  for (auto [arg, input] : llvm::zip(body.getArguments(), op.getInputs()))
    ids[arg] = idOf(input);
  for (Operation &inner : body.without_terminator())
    if (failed(addHostOp(&inner, partition)))
      return failure();
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [result, yielded] : llvm::zip(op.getResults(), yield.getValues()))
    ids[result] = idOf(yielded);
  variant.partitions.push_back(std::move(partition));
  return success();
}

LogicalResult Writer::addCardPartition(CardPartitionOp op) {
  if (!op.getPrograms() || !op.getInputAddresses() || !op.getOutputAddresses())
    return op.emitOpError("has not been lowered to npu programs "
                          "(run accel-lower-to-npu)");
  pkg::CardPartitionDesc partition;
  partition.card = static_cast<uint32_t>(op.getCard());
  // The memory plan puts the card's weights below the work memory the
  // launch writes; the runtime keeps weights outside it resident.
  auto workBegin =
      op->getAttrOfType<IntegerAttr>(AccelDialect::getDramWorkBeginAttrName());
  auto dramBytes =
      op->getAttrOfType<IntegerAttr>(AccelDialect::getDramBytesAttrName());
  if (workBegin && dramBytes && workBegin.getInt() < dramBytes.getInt()) {
    partition.workBegin = uint64_t(workBegin.getInt());
    partition.workEnd = uint64_t(dramBytes.getInt());
  }
  Block &body = op.getBody().front();
  // Hoisted: the getters return temporaries a range-for would outlive.
  ArrayRef<int64_t> inputAddresses = *op.getInputAddresses();
  ArrayRef<int64_t> outputAddresses = *op.getOutputAddresses();
  ArrayAttr programs = *op.getPrograms();
  for (auto [arg, input, address] :
       llvm::zip(body.getArguments(), op.getInputs(), inputAddresses)) {
    ids[arg] = idOf(input);
    partition.bindings.push_back(
        {idOf(input), uint64_t(address), pkg::BindingRole::Input});
  }
  for (auto constant : body.getOps<ConstantOp>()) {
    auto address = constant->getAttrOfType<IntegerAttr>(
        AccelDialect::getDramAddressAttrName());
    if (!address)
      return constant.emitOpError("has no DRAM address");
    FailureOr<int32_t> id = addConstant(constant);
    if (failed(id))
      return failure();
    partition.bindings.push_back(
        {*id, uint64_t(address.getInt()), pkg::BindingRole::Input});
  }
  for (auto [result, address] : llvm::zip(op.getResults(), outputAddresses)) {
    FailureOr<int32_t> id = addValue(result);
    if (failed(id))
      return failure();
    partition.bindings.push_back(
        {*id, uint64_t(address), pkg::BindingRole::Output});
  }
  for (Attribute symbol : programs) {
    auto program = SymbolTable::lookupNearestSymbolFrom<npu::ProgramOp>(
        op, cast<FlatSymbolRefAttr>(symbol));
    if (!program)
      return op.emitOpError() << "refers to unknown program " << symbol;
    FailureOr<::nnaccel::isa::Program> isaProgram = npu::toISAProgram(program);
    if (failed(isaProgram))
      return failure();
    auto code = ::nnaccel::isa::encodeProgram(*isaProgram);
    if (!code.ok())
      return program.emitOpError() << "cannot encode: " << code.message();
    partition.programs.push_back(
        {static_cast<uint32_t>(isaProgram->core), std::move(*code)});
  }
  variant.partitions.push_back(std::move(partition));
  return success();
}

LogicalResult Writer::run(func::FuncOp func, StringRef path) {
  pkg::ModelDesc &model = builder.model();
  model.name = options.modelName;
  model.producer = "nnaccel-compile";
  model.producerVersion = "0.1.0";
  model.target = options.targetJson;
  model.ir = options.irText;
  variant.name = "default";

  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    auto name = func.getArgAttrOfType<StringAttr>(index, "onnx.name");
    std::string portName = name ? name.str() : "input_" + std::to_string(index);
    FailureOr<int32_t> id = addValue(arg, portName);
    if (failed(id))
      return failure();
    model.inputs.push_back({portName, variant.values[*id].type, {}});
    variant.inputs.push_back(*id);
  }

  // Top-level compute ops that were not partitioned run on the host, each
  // run of them as one partition.
  std::optional<pkg::HostPartitionDesc> loose;
  auto flushLoose = [&]() {
    if (loose)
      variant.partitions.push_back(std::move(*loose));
    loose.reset();
  };
  for (Operation &op : func.getBody().front()) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      if (failed(addConstant(constant)))
        return failure();
    } else if (auto host = dyn_cast<HostPartitionOp>(op)) {
      flushLoose();
      if (failed(addHostPartition(host)))
        return failure();
    } else if (auto card = dyn_cast<CardPartitionOp>(op)) {
      flushLoose();
      if (failed(addCardPartition(card)))
        return failure();
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      flushLoose();
      for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
        auto name = func.getResultAttrOfType<StringAttr>(index, "onnx.name");
        std::string portName =
            name ? name.str() : "output_" + std::to_string(index);
        int32_t id = idOf(value);
        model.outputs.push_back({portName, variant.values[id].type, {}});
        variant.outputs.push_back(id);
      }
    } else if (isa<AccelDialect>(op.getDialect())) {
      if (!loose)
        loose.emplace().reason = "not partitioned";
      if (failed(addHostOp(&op, *loose)))
        return failure();
    } else {
      return op.emitOpError("cannot be stored in a package");
    }
  }
  model.variants.push_back(std::move(variant));
  pkg::Status status = builder.write(path.str());
  if (!status.ok())
    return func.emitError() << "cannot write package: " << status.message();
  return success();
}

LogicalResult mlir::nnaccel::writePackage(ModuleOp module, func::FuncOp func,
                                          const PackageWriterOptions &options,
                                          StringRef path) {
  Writer writer(module, options);
  return writer.run(func, path);
}
