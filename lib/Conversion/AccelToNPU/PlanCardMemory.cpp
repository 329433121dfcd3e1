//===- PlanCardMemory.cpp - accel-plan-card-memory pass -------------------===//
//
// See CardMemoryPlan.h. The plan is first-fit over the ops in program
// order, the order the lowering emits their kernels in, so a freed block
// is only reused by values produced after its last reader ran.
//
//===----------------------------------------------------------------------===//

#include "CardMemoryPlan.h"

#include "nnaccel/Conversion/Passes.h"

#include "Accel/ConstantUtils.h"
#include "KernelRegistry.h"
#include "NPU/NPUTarget.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseSet.h"

#include <map>

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELPLANCARDMEMORY
#include "nnaccel/Conversion/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {
/// First-fit allocator of card DRAM. Freed blocks are reused by later
/// values, which is what keeps intermediates of long models small.
class DramAllocator {
public:
  DramAllocator(uint64_t capacity, uint64_t align)
      : capacity(capacity), align(align) {}

  std::optional<uint64_t> allocate(uint64_t bytes) {
    bytes = roundUp(std::max<uint64_t>(bytes, 1));
    for (auto it = freeBlocks.begin(); it != freeBlocks.end(); ++it) {
      if (it->second < bytes)
        continue;
      uint64_t address = it->first;
      uint64_t remaining = it->second - bytes;
      freeBlocks.erase(it);
      if (remaining)
        freeBlocks.emplace(address + bytes, remaining);
      return address;
    }
    if (top + bytes > capacity)
      return std::nullopt;
    uint64_t address = top;
    top += bytes;
    peak = std::max(peak, top);
    return address;
  }

  void release(uint64_t address, uint64_t bytes) {
    freeBlocks.emplace(address, roundUp(std::max<uint64_t>(bytes, 1)));
  }

  uint64_t getPeak() const { return peak; }

private:
  uint64_t roundUp(uint64_t bytes) const {
    return (bytes + align - 1) / align * align;
  }
  uint64_t capacity, align, top = 0, peak = 0;
  std::map<uint64_t, uint64_t> freeBlocks; // address -> size
};

/// The constant data of `value` when it is a constant of a card float type:
/// its attribute and raw row-major bytes (one element for a splat).
struct RawConstant {
  ElementsAttr attr;
  ArrayRef<char> bytes;
  bool splat = false;
};

std::optional<RawConstant> getRawConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant || !npu_lowering::getElementFormat(value.getType()))
    return std::nullopt;
  ElementsAttr attr = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return RawConstant{attr, dense.getRawData(), dense.isSplat()};
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> bytes = blob->getData();
    if (bytes.size() != npu_lowering::getDramByteSize(resource.getType()))
      return std::nullopt;
    return RawConstant{attr, bytes, false};
  }
  return std::nullopt;
}

/// Replaces a constant [K x N] weight of a fully_connected by its transpose
/// so the matrix unit can stream weight rows. Byte-wise, so it serves every
/// card float type.
LogicalResult transposeWeight(FullyConnectedOp op) {
  if (op.getTransposeWeight())
    return success();
  std::optional<RawConstant> weight = getRawConstant(op.getWeight());
  if (!weight)
    return op.emitOpError("needs a constant weight to transpose for the NPU");
  auto type = cast<RankedTensorType>(op.getWeight().getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  auto newType = RankedTensorType::get({n, k}, type.getElementType());
  ElementsAttr transposed;
  if (weight->splat) {
    transposed = cast<DenseElementsAttr>(weight->attr).reshape(newType);
  } else {
    size_t size = npu_lowering::getElementFormat(type)->bytes;
    std::vector<char> bytes(weight->bytes.size());
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(&bytes[(j * k + i) * size],
                    &weight->bytes[(i * n + j) * size], size);
    if (type.getNumElements() <= kMaxInlineElements)
      transposed = DenseElementsAttr::getFromRawBuffer(newType, bytes);
    else
      transposed = DenseResourceElementsAttr::get(
          newType, "weight_t",
          HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes,
                                                        alignof(uint64_t)));
  }
  OpBuilder builder(op);
  Value constant =
      builder.create<ConstantOp>(op.getWeight().getLoc(), transposed);
  Operation *original = op.getWeight().getDefiningOp();
  op.getWeightMutable().assign(constant);
  op.setTransposeWeight(true);
  // The K x N original would otherwise take DRAM and package space too.
  if (original->use_empty())
    original->erase();
  return success();
}

/// Records `addresses` (one per result) on `op`.
void setResultAddresses(Operation *op, ArrayRef<int64_t> addresses) {
  Builder builder(op->getContext());
  if (addresses.size() == 1)
    op->setAttr(AccelDialect::getDramAddressAttrName(),
                builder.getI64IntegerAttr(addresses.front()));
  else
    op->setAttr(AccelDialect::getDramAddressAttrName(),
                builder.getDenseI64ArrayAttr(addresses));
}

struct AccelPlanCardMemoryPass
    : mlir::nnaccel::impl::AccelPlanCardMemoryBase<AccelPlanCardMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    const ::nnaccel::isa::TargetDesc *desc = npu::loadTarget(target, error);
    if (!desc) {
      getOperation().emitError()
          << "cannot load target '" << target << "': " << error;
      return signalPassFailure();
    }
    WalkResult result = getOperation().walk([&](CardPartitionOp partition) {
      if (failed(npu_lowering::planCardMemory(partition, *desc)))
        return WalkResult::interrupt();
      if (auto bytes = partition->getAttrOfType<IntegerAttr>(
              AccelDialect::getDramBytesAttrName()))
        dramBytes += bytes.getInt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

bool mlir::nnaccel::npu_lowering::canTransposeWeightAtCompileTime(
    Value weight) {
  return getRawConstant(weight).has_value();
}

uint64_t mlir::nnaccel::npu_lowering::getDramByteSize(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return uint64_t(tensor.getNumElements()) *
         ((tensor.getElementTypeBitWidth() + 7) / 8);
}

LogicalResult mlir::nnaccel::npu_lowering::planCardMemory(
    CardPartitionOp partition, const ::nnaccel::isa::TargetDesc &target) {
  Block &body = partition.getBody().front();
  for (auto fc : llvm::make_early_inc_range(body.getOps<FullyConnectedOp>()))
    if (failed(transposeWeight(fc)))
      return failure();

  // Program position of every op, to find each value's last reader.
  llvm::DenseMap<Operation *, size_t> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[&op] = index;
  auto yield = cast<YieldOp>(body.getTerminator());
  // Values that live for the whole program: inputs, weights, results.
  llvm::DenseSet<Value> pinned(yield.getValues().begin(),
                               yield.getValues().end());

  const auto &dram = target.memory(::nnaccel::isa::Space::Dram);
  DramAllocator allocator(dram.bytes, dram.align);
  llvm::DenseMap<Value, uint64_t> address;
  auto place = [&](Value value, Operation *user) -> LogicalResult {
    std::optional<uint64_t> at =
        allocator.allocate(getDramByteSize(value.getType()));
    if (!at)
      return user->emitOpError()
             << "does not fit the card's " << dram.bytes << " bytes of DRAM";
    address[value] = *at;
    return success();
  };

  SmallVector<int64_t> inputAddresses;
  for (BlockArgument arg : body.getArguments()) {
    if (failed(place(arg, partition)))
      return failure();
    inputAddresses.push_back(address[arg]);
    pinned.insert(arg);
  }
  for (auto constant : body.getOps<ConstantOp>()) {
    if (failed(place(constant, constant)))
      return failure();
    pinned.insert(constant);
    setResultAddresses(constant, {int64_t(address[constant])});
  }
  for (Operation &op : body) {
    if (isa<ConstantOp, YieldOp>(op) || op.getNumResults() == 0)
      continue;
    SmallVector<int64_t> results;
    for (Value result : op.getResults()) {
      if (failed(place(result, &op)))
        return failure();
      results.push_back(address[result]);
    }
    setResultAddresses(&op, results);
    // Intermediates die at their last reader.
    for (Value operand : op.getOperands()) {
      if (pinned.contains(operand))
        continue;
      bool lastUse = llvm::all_of(operand.getUsers(), [&](Operation *user) {
        return position[user] <= position[&op];
      });
      if (lastUse)
        allocator.release(address[operand], getDramByteSize(operand.getType()));
    }
  }
  SmallVector<int64_t> outputAddresses;
  for (Value value : yield.getValues())
    outputAddresses.push_back(address[value]);

  Builder builder(partition.getContext());
  partition.setInputAddresses(inputAddresses);
  partition.setOutputAddresses(outputAddresses);
  partition->setAttr(AccelDialect::getDramBytesAttrName(),
                     builder.getI64IntegerAttr(allocator.getPeak()));
  return success();
}

bool mlir::nnaccel::npu_lowering::hasCardMemoryPlan(CardPartitionOp partition) {
  if (!partition.getInputAddresses() || !partition.getOutputAddresses())
    return false;
  return llvm::all_of(partition.getBody().front(), [](Operation &op) {
    return op.getNumResults() == 0 ||
           op.hasAttr(AccelDialect::getDramAddressAttrName());
  });
}

FailureOr<llvm::DenseMap<Value, uint64_t>>
mlir::nnaccel::npu_lowering::readCardMemoryPlan(CardPartitionOp partition) {
  llvm::DenseMap<Value, uint64_t> addresses;
  Block &body = partition.getBody().front();
  ArrayRef<int64_t> inputs = *partition.getInputAddresses();
  for (auto [arg, address] : llvm::zip(body.getArguments(), inputs))
    addresses[arg] = address;
  for (Operation &op : body) {
    if (op.getNumResults() == 0)
      continue;
    Attribute attr = op.getAttr(AccelDialect::getDramAddressAttrName());
    if (auto single = dyn_cast_or_null<IntegerAttr>(attr)) {
      addresses[op.getResult(0)] = single.getInt();
    } else if (auto each = dyn_cast_or_null<DenseI64ArrayAttr>(attr)) {
      for (auto [result, address] :
           llvm::zip(op.getResults(), each.asArrayRef()))
        addresses[result] = address;
    } else {
      return op.emitOpError()
             << "has no '" << AccelDialect::getDramAddressAttrName()
             << "' (run accel-plan-card-memory first)";
    }
  }
  return addresses;
}
