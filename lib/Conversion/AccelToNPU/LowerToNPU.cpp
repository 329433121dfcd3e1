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
// A multi-core kernel (CardKernelOpInterface::getMaxKernelCores > 1) is one
// unit on all of its cores: it gets every core's emitter and a barrier
// among exactly those cores (each distinct barrier mask has its own id),
// is ordered after conflicting accesses of any other core, and counts as
// accessing all its operands and results on each of its cores.
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

  /// True when an op on `cores` with `accesses` conflicts with an access
  /// of another core since the last barrier. An op on several cores makes
  /// each of them access everything, so any earlier core conflicts with
  /// one of them.
  bool needsBarrier(ArrayRef<uint32_t> cores, ArrayRef<Access> accesses) const {
    for (const Access &mine : accesses)
      for (const auto &[other, theirs] : since)
        if ((cores.size() > 1 || other != cores.front()) &&
            mine.space == theirs.space && (mine.write || theirs.write) &&
            mine.begin < theirs.end && theirs.begin < mine.end)
          return true;
    return false;
  }
  void record(ArrayRef<uint32_t> cores, ArrayRef<Access> accesses) {
    for (uint32_t core : cores)
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
  /// Barrier id of each mask: 0 for all the partition's cores, then one per
  /// subset a multi-core kernel synchronises.
  std::map<uint32_t, uint32_t> barrierIds;

  uint32_t getBarrierId(uint32_t mask) {
    auto [it, inserted] =
        barrierIds.try_emplace(mask, uint32_t(barrierIds.size()));
    assert(it->second <= 0xFF && "more barrier masks than barrier ids");
    return it->second;
  }

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

  /// Orders `op` on `opCores` after every conflicting access of other
  /// cores.
  void synchronize(CardKernelOpInterface op, ArrayRef<uint32_t> opCores) {
    SmallVector<CoreSync::Access> accesses = getAccesses(op);
    if (sync.needsBarrier(opCores, accesses)) {
      uint32_t id = getBarrierId(barrierMask);
      for (auto &[index, program] : cores) {
        program.emitter.emit(
            ::nnaccel::isa::build::Barrier().id(id).mask(barrierMask));
        program.locations.push_back(op->getLoc());
      }
      sync.barrier();
      ++barriers;
    }
    sync.record(opCores, accesses);
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
      SmallVector<uint32_t, 4> opCores =
          npu_lowering::getKernelCores(op, lowering.target);
      lowering.synchronize(kernel, opCores);
      npu_lowering::KernelCores kernelCores;
      SmallVector<size_t, 4> before;
      for (uint32_t core : opCores) {
        ProgramEmitter &emitter = lowering.cores.at(core).emitter;
        kernelCores.emitters.push_back(&emitter);
        kernelCores.mask |= 1u << core;
        before.push_back(emitter.size());
      }
      if (opCores.size() > 1)
        kernelCores.barrierId = lowering.getBarrierId(kernelCores.mask);
      npu_lowering::KernelContext context{*kernelCores.emitters.front(),
                                          lowering.target, lowering.addresses};
      context.cores = std::move(kernelCores);
      if (auto shared = op->getAttrOfType<IntegerAttr>(
              AccelDialect::getSharedAddressAttrName()))
        context.sharedScratch = uint64_t(shared.getInt());
      if (failed(kernel.emitCardKernel(context)))
        return failure();
      for (auto [core, size] : llvm::zip(opCores, before)) {
        CoreProgram &program = lowering.cores.at(core);
        program.locations.append(program.emitter.size() - size, op->getLoc());
      }
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
      for (uint32_t core : npu_lowering::getKernelCores(&op, desc)) {
        if (core >= desc.coresPerCard)
          return op.emitOpError()
                 << "is placed on core " << core << " but the card has "
                 << desc.coresPerCard << " cores";
        used.insert(core);
      }
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
    lowering.getBarrierId(lowering.barrierMask); // id 0
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
