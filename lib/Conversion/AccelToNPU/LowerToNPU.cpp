//===- LowerToNPU.cpp - accel-lower-to-npu pass ---------------------------===//
//
// Turns each accel.card_partition into an npu.program for core 0 of its
// card: a DRAM plan for every value of the partition, then one kernel per
// op through the ProgramEmitter, which derives the dependency tokens.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Conversion/NPUSupport.h"
#include "nnaccel/Conversion/Passes.h"

#include "KernelRegistry.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "NPU/NPUOps.h"
#include "NPU/NPUTarget.h"
#include "NPU/NPUToISA.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#define DEBUG_TYPE "accel-lower-to-npu"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELLOWERTONPU
#include "nnaccel/Conversion/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using mlir::nnaccel::npu_lowering::ProgramEmitter;

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

uint64_t getByteSize(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return uint64_t(tensor.getNumElements()) *
         ((tensor.getElementTypeBitWidth() + 7) / 8);
}

/// Replaces a constant [K x N] weight of a fully_connected by its transpose
/// so the matrix unit can stream weight rows.
LogicalResult transposeWeight(FullyConnectedOp op) {
  if (op.getTransposeWeight())
    return success();
  std::optional<F32ConstantView> weight = getF32Constant(op.getWeight());
  if (!weight)
    return op.emitOpError("needs a constant weight to transpose for the NPU");
  auto type = cast<RankedTensorType>(op.getWeight().getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  SmallVector<float> transposed(k * n);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      transposed[j * k + i] = (*weight)[i * n + j];
  OpBuilder builder(op);
  auto newType = RankedTensorType::get({n, k}, type.getElementType());
  Value constant = builder.create<ConstantOp>(
      op.getWeight().getLoc(),
      createF32Constant(newType, transposed, "weight_t"));
  op.getWeightMutable().assign(constant);
  op.setTransposeWeight(true);
  return success();
}

struct AccelLowerToNPUPass
    : mlir::nnaccel::impl::AccelLowerToNPUBase<AccelLowerToNPUPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    const ::nnaccel::isa::TargetDesc *targetDesc =
        npu::loadTarget(target, error);
    if (!targetDesc) {
      getOperation().emitError()
          << "cannot load target '" << target << "': " << error;
      return signalPassFailure();
    }
    SmallVector<CardPartitionOp> partitions;
    getOperation().walk(
        [&](CardPartitionOp partition) { partitions.push_back(partition); });
    for (CardPartitionOp partition : partitions) {
      if (failed(lowerPartition(partition, *targetDesc)))
        return signalPassFailure();
    }
  }

  /// Program symbol: <function>_p<partition index>_card<c>_core<k>.
  std::string getProgramName(CardPartitionOp partition, uint32_t core) {
    auto func = partition->getParentOfType<func::FuncOp>();
    unsigned index = 0;
    func.walk([&](CardPartitionOp other) {
      if (other == partition)
        return WalkResult::interrupt();
      ++index;
      return WalkResult::advance();
    });
    return (func.getSymName() + "_p" + Twine(index) + "_card" +
            Twine(partition.getCard()) + "_core" + Twine(core))
        .str();
  }

  LogicalResult lowerPartition(CardPartitionOp partition,
                               const ::nnaccel::isa::TargetDesc &desc) {
    Block &body = partition.getBody().front();
    for (auto fc : llvm::make_early_inc_range(body.getOps<FullyConnectedOp>()))
      if (failed(transposeWeight(fc)))
        return failure();

    // Last user of every value, by op position, for DRAM reuse.
    llvm::DenseMap<Operation *, size_t> position;
    for (auto [index, op] : llvm::enumerate(body))
      position[&op] = index;
    auto yield = cast<YieldOp>(body.getTerminator());
    llvm::DenseSet<Value> pinned(yield.getValues().begin(),
                                 yield.getValues().end());

    const auto &dram = desc.memory(::nnaccel::isa::Space::Dram);
    DramAllocator allocator(dram.bytes, dram.align);
    llvm::DenseMap<Value, uint64_t> address;
    auto place = [&](Value value, Operation *user) -> LogicalResult {
      std::optional<uint64_t> at =
          allocator.allocate(getByteSize(value.getType()));
      if (!at)
        return user->emitOpError()
               << "does not fit the card's " << dram.bytes << " bytes of DRAM";
      address[value] = *at;
      return success();
    };
    OpBuilder builder(partition.getContext());
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
      constant->setAttr(AccelDialect::getDramAddressAttrName(),
                        builder.getI64IntegerAttr(address[constant]));
    }

    ProgramEmitter emitter;
    SmallVector<Location> locations;
    for (Operation &op : body) {
      if (isa<ConstantOp, YieldOp>(op))
        continue;
      for (Value result : op.getResults())
        if (failed(place(result, &op)))
          return failure();
      size_t before = emitter.size();
      const npu_lowering::KernelEntry *kernel = npu_lowering::lookupKernel(&op);
      if (!kernel)
        return op.emitOpError("has no NPU lowering (it should have been "
                              "placed on the host)");
      std::string reason;
      if (failed(kernel->check(&op, desc, reason)))
        return op.emitOpError() << "cannot run on the card: " << reason;
      npu_lowering::KernelContext context{emitter, desc, address};
      if (failed(kernel->emit(&op, context)))
        return failure();
      locations.append(emitter.size() - before, op.getLoc());
      // Intermediates die at their last user.
      for (Value operand : op.getOperands()) {
        if (pinned.contains(operand))
          continue;
        bool lastUse = llvm::all_of(operand.getUsers(), [&](Operation *user) {
          return position[user] <= position[&op];
        });
        if (lastUse)
          allocator.release(address[operand], getByteSize(operand.getType()));
      }
    }
    SmallVector<int64_t> outputAddresses;
    for (Value value : yield.getValues())
      outputAddresses.push_back(address[value]);

    ::nnaccel::isa::Program program =
        emitter.finish(static_cast<uint32_t>(partition.getCard()), 0);
    locations.append(program.instructions.size() - locations.size(),
                     partition.getLoc());
    builder.setInsertionPointToEnd(getOperation().getBody());
    std::string name = getProgramName(partition, 0);
    npu::ProgramOp programOp = npu::fromISAProgram(
        builder, partition.getLoc(), program, locations, name, target);
    if (!programOp)
      return failure();
    partition.setProgramsAttr(builder.getArrayAttr(
        {FlatSymbolRefAttr::get(builder.getContext(), name)}));
    partition->setAttr(AccelDialect::getDramBytesAttrName(),
                       builder.getI64IntegerAttr(allocator.getPeak()));
    partition.setInputAddresses(inputAddresses);
    partition.setOutputAddresses(outputAddresses);
    numInstructions += program.instructions.size();
    dramBytes += allocator.getPeak();
    return success();
  }
};
} // namespace
