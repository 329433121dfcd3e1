//===- PackageWriter.cpp - compiled module to a model package -------------===//
//
// Walks the compiled function in order and records:
// - every tensor as a package value (weights point at their bytes: resource
//   blobs and dense attributes are handed to the builder without a copy);
// - each accel.host_partition as a host partition whose ops carry their
//   attributes in the runtime's encoding (HostOpDescription.h; absent
//   optional operands as -1);
// - each accel.card_partition as a card partition: its npu programs encoded
//   with lib/ISA and the DRAM bindings of inputs, weights and results.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Target/PackageWriter.h"
#include "nnaccel/Target/HostOpDescription.h"

#include "Accel/AccelOps.h"
#include "NPU/NPUOps.h"
#include "NPU/NPUToISA.h"

#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/Package/Package.h"

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

  /// Adds `func` as one variant; the first one defines the signature.
  LogicalResult addVariant(func::FuncOp func, StringRef name, int64_t bucket);
  LogicalResult write(Location loc, StringRef path);

private:
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

FailureOr<int32_t> Writer::addValue(Value value, StringRef name) {
  FailureOr<pkg::TensorType> type =
      convertTensorType(value.getType(), value.getLoc());
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
  FailureOr<ArrayRef<char>> bytes = getConstantBytes(op, scratch);
  if (failed(bytes))
    return failure();
  auto weight = builder.addWeightNoCopy(bytes->data(), bytes->size());
  if (!weight.ok())
    return op.emitOpError() << "cannot add weight: " << weight.message();
  variant.values[*id].weight = *weight;
  return id;
}

LogicalResult Writer::addHostOp(Operation *op,
                                pkg::HostPartitionDesc &partition) {
  if (auto constant = dyn_cast<ConstantOp>(op))
    return addConstant(constant);
  FailureOr<pkg::HostOpDesc> desc = describeHostOp(op);
  if (failed(desc))
    return failure();
  for (Value operand : getHostOpOperands(op))
    desc->inputs.push_back(operand ? idOf(operand) : -1);
  for (Value result : op->getResults()) {
    FailureOr<int32_t> id = addValue(result);
    if (failed(id))
      return failure();
    desc->outputs.push_back(*id);
  }
  partition.ops.push_back(std::move(*desc));
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
  // Operands another card sends (through an accel.transfer) and results
  // only such transfers read do not cross the host.
  llvm::SmallDenseSet<int64_t, 4> received = getReceivedOperands(op);
  for (auto [index, arg, input, address] :
       llvm::enumerate(body.getArguments(), op.getInputs(), inputAddresses)) {
    ids[arg] = idOf(input);
    if (received.contains(int64_t(index)))
      continue;
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
    if (isPassedOnlyCardToCard(cast<OpResult>(result)))
      continue;
    partition.bindings.push_back(
        {*id, uint64_t(address), pkg::BindingRole::Output});
  }
  // Body and setup programs (pinned weights) are encoded alike; each names
  // its core in its own header.
  auto encodePrograms =
      [&](ArrayAttr symbols,
          std::vector<pkg::CoreProgramDesc> &out) -> LogicalResult {
    for (Attribute symbol : symbols) {
      auto program = SymbolTable::lookupNearestSymbolFrom<npu::ProgramOp>(
          op, cast<FlatSymbolRefAttr>(symbol));
      if (!program)
        return op.emitOpError() << "refers to unknown program " << symbol;
      FailureOr<::nnaccel::isa::Program> isaProgram =
          npu::toISAProgram(program);
      if (failed(isaProgram))
        return failure();
      auto code = ::nnaccel::isa::encodeProgram(*isaProgram);
      if (!code.ok())
        return program.emitOpError() << "cannot encode: " << code.message();
      out.push_back(
          {static_cast<uint32_t>(isaProgram->core), std::move(*code)});
    }
    return success();
  };
  if (failed(encodePrograms(programs, partition.programs)))
    return failure();
  if (ArrayAttr setupPrograms = op.getSetupProgramsAttr())
    if (failed(encodePrograms(setupPrograms, partition.setupPrograms)))
      return failure();
  variant.partitions.push_back(std::move(partition));
  return success();
}

/// The signature port of a variant's value: bucketed dimensions (`axes`)
/// become -1 with bucket index 0.
static pkg::Port makePort(std::string name, const pkg::TensorType &type,
                          ArrayRef<int64_t> axes) {
  pkg::Port port{std::move(name), type, {}};
  if (axes.empty())
    return port;
  port.bucketIndex.assign(type.shape.size(), -1);
  for (int64_t axis : axes) {
    port.type.shape[axis] = -1;
    port.bucketIndex[axis] = 0;
  }
  return port;
}

LogicalResult Writer::addVariant(func::FuncOp func, StringRef name,
                                 int64_t bucket) {
  pkg::ModelDesc &model = builder.model();
  bool first = model.variants.empty();
  variant = pkg::VariantDesc();
  ids.clear();
  variant.name = name.str();
  if (bucket >= 0)
    variant.bucket = {bucket};
  // Later variants must have the first one's signature; the package
  // validation compares the shapes.
  auto addPort = [&](std::vector<pkg::Port> &ports, size_t index,
                     pkg::Port port) -> LogicalResult {
    if (first) {
      ports.push_back(std::move(port));
      return success();
    }
    if (index >= ports.size() || ports[index].name != port.name ||
        ports[index].bucketIndex != port.bucketIndex ||
        ports[index].lengthOf != port.lengthOf)
      return func.emitError() << "variant '" << name << "': port '" << port.name
                              << "' differs from the first variant's";
    // A dimension that changes with the bucket but holds no padded
    // positions (e.g. a strided convolution's output) cannot be cropped.
    const std::vector<int64_t> &want = ports[index].type.shape;
    for (size_t d = 0; d < want.size() && d < port.type.shape.size(); ++d)
      if (want[d] >= 0 && want[d] != port.type.shape[d])
        return func.emitError()
               << "variant '" << name << "': dimension " << d << " of '"
               << port.name << "' is " << port.type.shape[d] << ", not "
               << want[d]
               << " as in the first variant: it changes with the bucket but "
                  "is not a padded axis the runtime can crop";
    return success();
  };

  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    auto name = func.getArgAttrOfType<StringAttr>(index, "onnx.name");
    std::string portName = name ? name.str() : "input_" + std::to_string(index);
    FailureOr<int32_t> id = addValue(arg, portName);
    if (failed(id))
      return failure();
    SmallVector<int64_t> axes;
    if (auto axis = func.getArgAttrOfType<IntegerAttr>(
            index, AccelDialect::getPaddedAxisAttrName()))
      axes.push_back(axis.getInt());
    pkg::Port port = makePort(portName, variant.values[*id].type, axes);
    if (func.getArgAttr(index, AccelDialect::getValidLengthAttrName()))
      port.lengthOf = 0;
    if (failed(addPort(model.inputs, index, std::move(port))))
      return failure();
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
    } else if (auto transfer = dyn_cast<TransferOp>(op);
               transfer && transfer.getChannel()) {
      // Card to card: the value the reading partition binds to nothing.
      ids[transfer.getResult()] = idOf(transfer.getInput());
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      flushLoose();
      for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
        auto name = func.getResultAttrOfType<StringAttr>(index, "onnx.name");
        std::string portName =
            name ? name.str() : "output_" + std::to_string(index);
        int32_t id = idOf(value);
        ArrayRef<int64_t> axes;
        if (auto padded = func.getResultAttrOfType<DenseI64ArrayAttr>(
                index, AccelDialect::getPaddedAxesAttrName()))
          axes = padded.asArrayRef();
        if (failed(addPort(model.outputs, index,
                           makePort(portName, variant.values[id].type, axes))))
          return failure();
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
  return success();
}

LogicalResult Writer::write(Location loc, StringRef path) {
  pkg::ModelDesc &model = builder.model();
  model.name = options.modelName;
  model.producer = "nnaccel-compile";
  model.producerVersion = "0.1.0";
  model.target = options.targetJson;
  model.ir = options.irText;
  if (!options.bucketName.empty()) {
    model.bucketNames = {options.bucketName};
    model.padValue = options.padValue;
    model.exactPadding = options.exactPadding;
  }
  pkg::Status status = builder.write(path.str());
  if (!status.ok())
    return emitError(loc) << "cannot write package: " << status.message();
  return success();
}

LogicalResult mlir::nnaccel::writePackage(ModuleOp module, func::FuncOp func,
                                          const PackageWriterOptions &options,
                                          StringRef path) {
  return writePackage(PackageVariant{module, func, "default", -1}, options,
                      path);
}

LogicalResult mlir::nnaccel::writePackage(ArrayRef<PackageVariant> variants,
                                          const PackageWriterOptions &options,
                                          StringRef path) {
  if (variants.empty())
    return failure();
  Writer writer(variants.front().module, options);
  for (const PackageVariant &v : variants)
    if (failed(writer.addVariant(v.func, v.name, v.bucket)))
      return failure();
  func::FuncOp first = variants.front().func;
  return writer.write(first.getLoc(), path);
}
