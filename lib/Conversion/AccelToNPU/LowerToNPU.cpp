//===- LowerToNPU.cpp - accel-lower-to-npu pass ---------------------------===//
//
// Turns each accel.card_partition into one npu.program per core it uses
// with a dialect conversion: one pattern, for every op with a card kernel
// (CardKernelOpInterface), appends the op's instructions to the program of
// the core its placement names (`cores`, core 0 by default) through that
// core's ProgramEmitter (which derives the dependency tokens between its
// queues) and replaces the op by `npu.dram_tensor`s naming where its
// results are left in DRAM. The conversion visits the ops in program order,
// which is the order their kernels run in on each core. Addresses come
// from the partition's memory plan (accel-plan-card-memory; a partition
// without one is planned here first).
//
// Cores share the card's DRAM and SHARED memory. Before an op runs on core
// c, every earlier access by another core to bytes the op touches -- a
// write to what it reads, any access to what it writes -- must be complete:
// CoreSync finds such conflicts and puts a barrier across all the
// partition's cores in front of the op.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Conversion/Passes.h"

#include "CardKernels.h"
#include "CardMemoryPlan.h"
#include "ProgramEmitter.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUOps.h"
#include "NPU/NPUTarget.h"
#include "NPU/NPUToISA.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>
#include <set>

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
using ::nnaccel::isa::Space;

/// Cross-core ordering at op granularity: the DRAM and SHARED bytes each op
/// reads and writes since the last barrier, and on which core.
class CoreSync {
public:
  struct Access {
    Space space;
    uint64_t begin, end;
    bool write;
  };

  /// True when an op on `core` with `accesses` conflicts with an access of
  /// another core since the last barrier.
  bool needsBarrier(uint32_t core, ArrayRef<Access> accesses) const {
    for (const Access &mine : accesses)
      for (const auto &[other, theirs] : since)
        if (other != core && mine.space == theirs.space &&
            (mine.write || theirs.write) && mine.begin < theirs.end &&
            theirs.begin < mine.end)
          return true;
    return false;
  }
  void record(uint32_t core, ArrayRef<Access> accesses) {
    for (const Access &access : accesses)
      since.push_back({core, access});
  }
  void barrier() { since.clear(); }

private:
  std::vector<std::pair<uint32_t, Access>> since;
};

/// The program of one core: its emitter and the source location of every
/// instruction.
struct CoreProgram {
  ProgramEmitter emitter;
  SmallVector<Location> locations;
};

/// What the patterns of one partition share: the programs being built, the
/// memory plan and the cross-core ordering.
struct PartitionLowering {
  std::map<uint32_t, CoreProgram> cores;
  const ::nnaccel::isa::TargetDesc &target;
  llvm::DenseMap<Value, uint64_t> addresses;
  CoreSync sync;
  uint32_t barrierMask = 0;
  unsigned barriers = 0;

  /// The DRAM and SHARED bytes `op` reads and writes.
  SmallVector<CoreSync::Access> getAccesses(CardKernelOpInterface op) const {
    SmallVector<CoreSync::Access> accesses;
    auto add = [&](Value value, bool write) {
      uint64_t begin = addresses.lookup(value);
      accesses.push_back({Space::Dram, begin,
                          begin + getDenseByteSize(value.getType()), write});
    };
    for (Value operand : op->getOperands())
      add(operand, false);
    for (Value result : op->getResults())
      add(result, true);
    if (auto shared = op->getAttrOfType<IntegerAttr>(
            AccelDialect::getSharedAddressAttrName())) {
      uint64_t begin = uint64_t(shared.getInt());
      accesses.push_back({Space::Shared, begin,
                          begin + op.getSharedScratchBytes(target), true});
    }
    return accesses;
  }

  /// Orders `op` on `core` after every conflicting access of other cores.
  void synchronize(CardKernelOpInterface op, uint32_t core) {
    SmallVector<CoreSync::Access> accesses = getAccesses(op);
    if (sync.needsBarrier(core, accesses)) {
      for (auto &[index, program] : cores) {
        program.emitter.emit(
            ::nnaccel::isa::build::Barrier().id(0).mask(barrierMask));
        program.locations.push_back(op->getLoc());
      }
      sync.barrier();
      ++barriers;
    }
    sync.record(core, accesses);
  }
};

/// Lowers every op with a card kernel through its kernel.
class KernelPattern
    : public OpInterfaceConversionPattern<CardKernelOpInterface> {
public:
  KernelPattern(PartitionLowering &lowering, MLIRContext *context)
      : OpInterfaceConversionPattern(context), lowering(lowering) {}

  LogicalResult
  matchAndRewrite(CardKernelOpInterface kernel, ArrayRef<Value> /*operands*/,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *op = kernel;
    // An in-place op's result already is where the plan put it. The pass
    // checked every op of the partition against its kernel before
    // converting (checkKernels).
    if (!op->hasAttr(AccelDialect::getInPlaceAttrName())) {
      uint32_t core = getPlacedCore(op);
      lowering.synchronize(kernel, core);
      CoreProgram &program = lowering.cores.at(core);
      size_t before = program.emitter.size();
      npu_lowering::KernelContext context{program.emitter, lowering.target,
                                          lowering.addresses};
      if (auto shared = op->getAttrOfType<IntegerAttr>(
              AccelDialect::getSharedAddressAttrName()))
        context.sharedScratch = uint64_t(shared.getInt());
      if (failed(kernel.emitCardKernel(context)))
        return failure();
      program.locations.append(program.emitter.size() - before, op->getLoc());
    }

    SmallVector<Value> results;
    for (Value result : op->getResults())
      results.push_back(rewriter.create<npu::DramTensorOp>(
          op->getLoc(), result.getType(),
          rewriter.getI64IntegerAttr(lowering.addresses.lookup(result))));
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  PartitionLowering &lowering;
};

struct AccelLowerToNPUPass
    : mlir::nnaccel::impl::AccelLowerToNPUBase<AccelLowerToNPUPass> {
  using Base::Base;

  void runOnOperation() override {
    const ::nnaccel::isa::TargetDesc *targetDesc =
        npu::lookupTarget(getOperation());
    if (!targetDesc)
      return signalPassFailure();
    SmallVector<CardPartitionOp> partitions;
    getOperation().walk(
        [&](CardPartitionOp partition) { partitions.push_back(partition); });
    for (CardPartitionOp partition : partitions) {
      if (failed(lowerPartition(partition, *targetDesc)))
        return signalPassFailure();
    }
  }

  /// Program symbol: <function>_p<partition index>_card<c>_core<k>, the
  /// index counting card partitions within the function.
  static std::string getProgramName(CardPartitionOp partition, uint32_t core) {
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

  /// Every op of the body must have a kernel that accepts it, or be
  /// address arithmetic under the plan; the error names the op and why.
  static LogicalResult
  checkKernels(Block &body, const ::nnaccel::isa::TargetDesc &desc,
               const llvm::DenseMap<Value, uint64_t> &addresses) {
    for (Operation &op : body) {
      if (isa<ConstantOp, YieldOp>(op))
        continue;
      if (op.hasAttr(AccelDialect::getInPlaceAttrName())) {
        if (failed(npu_lowering::verifyInPlaceOp(&op, addresses)))
          return failure();
        continue;
      }
      auto kernel = dyn_cast<CardKernelOpInterface>(op);
      if (!kernel)
        return op.emitOpError("has no card kernel (it should have been "
                              "placed on the host)");
      std::string reason;
      if (failed(kernel.checkCardKernel(desc, reason)))
        return op.emitOpError() << "cannot run on the card: " << reason;
      if (kernel.getSharedScratchBytes(desc) &&
          !op.hasAttr(AccelDialect::getSharedAddressAttrName()))
        return op.emitOpError()
               << "needs SHARED scratch but the memory plan "
                  "gives it none ('"
               << AccelDialect::getSharedAddressAttrName() << "')";
    }
    return success();
  }

  LogicalResult lowerPartition(CardPartitionOp partition,
                               const ::nnaccel::isa::TargetDesc &desc) {
    if (partition.getPrograms())
      return success(); // already lowered
    Block &body = partition.getBody().front();
    if (!npu_lowering::hasCardMemoryPlan(partition) &&
        failed(npu_lowering::planCardMemory({partition}, desc)))
      return failure();
    FailureOr<llvm::DenseMap<Value, uint64_t>> plan =
        npu_lowering::readCardMemoryPlan(partition);
    if (failed(plan) || failed(checkKernels(body, desc, *plan)))
      return failure();

    // The cores the partition's ops run on; core 0 always has a program.
    std::set<uint32_t> used = {0};
    for (Operation &op : body) {
      if (isa<ConstantOp, YieldOp>(op))
        continue;
      uint32_t core = getPlacedCore(&op);
      if (core >= desc.coresPerCard)
        return op.emitOpError()
               << "is placed on core " << core << " but the card has "
               << desc.coresPerCard << " cores";
      used.insert(core);
    }

    MLIRContext *context = partition.getContext();
    std::vector<npu_lowering::MemRegion> dramTensors;
    for (auto [value, address] : *plan)
      dramTensors.push_back({::nnaccel::isa::Space::Dram, address,
                             address + getDenseByteSize(value.getType())});
    PartitionLowering lowering{{}, desc, std::move(*plan), {}};
    for (uint32_t core : used) {
      lowering.cores.emplace(
          core,
          CoreProgram{ProgramEmitter(dramTensors, desc.tokenFifoDepth), {}});
      lowering.barrierMask |= 1u << core;
    }
    RewritePatternSet patterns(context);
    patterns.add<KernelPattern>(lowering, context);
    ConversionTarget legality(*context);
    legality.addLegalDialect<npu::NPUDialect>();
    legality.addIllegalDialect<AccelDialect>();
    legality.addLegalOp<CardPartitionOp, ConstantOp, YieldOp>();
    if (failed(applyPartialConversion(partition.getOperation(), legality,
                                      std::move(patterns))))
      return failure();

    OpBuilder builder(context);
    builder.setInsertionPointToEnd(getOperation().getBody());
    SmallVector<Attribute> programs;
    for (auto &[core, coreProgram] : lowering.cores) {
      ::nnaccel::isa::Program program = coreProgram.emitter.finish(
          static_cast<uint32_t>(partition.getCard()), core);
      coreProgram.locations.append(program.instructions.size() -
                                       coreProgram.locations.size(),
                                   partition.getLoc());
      std::string name = getProgramName(partition, core);
      npu::ProgramOp programOp = npu::fromISAProgram(
          builder, partition.getLoc(), program, coreProgram.locations, name,
          npu::getTargetSpecFor(getOperation()));
      if (!programOp)
        return failure();
      programs.push_back(FlatSymbolRefAttr::get(context, name));
      numInstructions += program.instructions.size();
    }
    partition.setProgramsAttr(builder.getArrayAttr(programs));
    numBarriers += lowering.barriers;
    if (auto bytes = partition->getAttrOfType<IntegerAttr>(
            AccelDialect::getDramBytesAttrName()))
      dramBytes += bytes.getInt();
    return success();
  }
};
} // namespace
