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
#include "KernelOperands.h"
#include "ProgramEmitter.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUOps.h"
#include "NPU/NPUTarget.h"
#include "NPU/NPUToISA.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>
#include <optional>
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

/// The bytes of one row (innermost dimension) of `value` and the end of its
/// last row, when it starts at `begin` and its rows are `pitch` bytes apart.
std::pair<uint64_t, uint64_t> getPitchedExtent(Value value, uint64_t begin,
                                               uint64_t pitch) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t inner = type.getShape().back();
  uint64_t rowBytes =
      getDenseByteSize(RankedTensorType::get({inner}, type.getElementType()));
  int64_t rows = inner ? type.getNumElements() / inner : 0;
  return {rowBytes,
          rows ? begin + uint64_t(rows - 1) * pitch + rowBytes : begin};
}

/// Cross-core ordering at op granularity: the DRAM and SHARED bytes each op
/// reads and writes since the last barrier, and on which core.
class CoreSync {
public:
  /// [begin, end), or, for a value written at a row pitch (a part of an
  /// in-place concat along its innermost axis), the first `rowBytes` of
  /// every `pitch` bytes in it.
  struct Access {
    Space space;
    uint64_t begin, end;
    bool write;
    uint64_t pitch = 0, rowBytes = 0;

    bool overlaps(const Access &other) const {
      if (space != other.space || begin >= other.end || other.begin >= end)
        return false;
      // The columns of one concat that different cores write side by side
      // must not look like a conflict (it would cost a barrier per part):
      // with the same pitch, the rows overlap only when their columns do.
      // Otherwise the bounding ranges decide (a reader of the whole concat
      // does conflict).
      if (!pitch || pitch != other.pitch)
        return true;
      uint64_t shift = (begin + pitch - other.begin % pitch) % pitch;
      return shift < other.rowBytes || shift + rowBytes > pitch;
    }
  };

  /// True when an op on `cores` with `accesses` conflicts with an access
  /// of another core since the last barrier. An op on several cores makes
  /// each of them access everything, so any earlier core conflicts with
  /// one of them.
  bool needsBarrier(ArrayRef<uint32_t> cores, ArrayRef<Access> accesses) const {
    for (const auto &[other, theirs] : since) {
      if (cores.size() == 1 && other == cores.front())
        continue;
      for (const Access &mine : accesses)
        for (const Access &access : theirs)
          if ((mine.write || access.write) && mine.overlaps(access))
            return true;
    }
    return false;
  }
  void record(ArrayRef<uint32_t> cores, ArrayRef<Access> accesses) {
    for (uint32_t core : cores)
      llvm::append_range(since[core], accesses);
  }
  void barrier() { since.clear(); }

private:
  /// Per core, so that an op on one core skips its own core's accesses
  /// without scanning them (a long single-core chain never needs a barrier
  /// and would otherwise scan every earlier access: quadratic).
  std::map<uint32_t, std::vector<Access>> since;
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
  /// The target as the partition's kernels see it: with pinned weights,
  /// only the MRF below them (accel.mrf_work_bytes).
  const ::nnaccel::isa::TargetDesc &target;
  llvm::DenseMap<Value, uint64_t> addresses;
  /// Values written at a row pitch (accel.result_pitch), and the pitch.
  llvm::DenseMap<Value, uint64_t> rowPitches;
  CoreSync sync;
  uint32_t barrierMask = 0;
  unsigned barriers = 0;
  /// Operands another card sends (through an accel.transfer): `recv`s core 0
  /// issues right before the first op that depends on any of them, so that the
  /// partition's other work overlaps the wait; with several cores a
  /// barrier then makes the others wait for the data too.
  std::vector<::nnaccel::isa::Instruction> receives;
  llvm::DenseSet<Operation *> needsReceived;
  /// Set together with `receives` (a default Location would be null).
  std::optional<Location> receiveLoc;
  /// Values passed card to card in pieces, which their kernels transfer.
  npu_lowering::CardStreams streams;

  /// A barrier of all the partition's cores (id 0), attributed to `loc`.
  void barrierAllCores(Location loc) {
    uint32_t id = getBarrierId(barrierMask);
    for (auto &[index, program] : cores) {
      program.emitter.emit(
          ::nnaccel::isa::build::Barrier().id(id).mask(barrierMask));
      program.locations.push_back(loc);
    }
    sync.barrier();
    ++barriers;
  }

  /// Emits the pending receives if `op` depends on a received operand.
  void receiveBefore(Operation *op) {
    if (!receives.empty() && needsReceived.contains(op))
      emitReceives();
  }

  /// Emits the pending receives: core 0 receives, then (with several
  /// cores) a barrier makes the others wait for the data too.
  void emitReceives() {
    CoreProgram &first = cores.begin()->second;
    for (const ::nnaccel::isa::Instruction &recv : receives) {
      first.emitter.emit(recv);
      first.locations.push_back(*receiveLoc);
    }
    receives.clear();
    if (cores.size() > 1)
      barrierAllCores(*receiveLoc);
  }
  /// Barrier id of each mask: 0 for all the partition's cores, then one per
  /// subset a multi-core kernel synchronises.
  std::map<uint32_t, uint32_t> barrierIds;
  /// The setup program of each core that pins weights, created by its
  /// first pinned op, and the MRF ranges it loads ([begin, end) pairs).
  std::map<uint32_t, CoreProgram> setupCores;
  std::map<uint32_t, SmallVector<int64_t>> pinnedRanges;
  std::vector<npu_lowering::MemRegion> dramTensors;
  /// The DRAM alias of SHARED address 0 (npu_lowering::getSharedWindow).
  uint64_t sharedWindow = 0;
  /// The constants kept in SHARED across runs: DRAM address -> the DRAM
  /// alias of their SHARED copy (for kernels that find a constant by its
  /// address, accel.kernel_constants).
  std::map<uint64_t, uint64_t> sharedConstants;

  CoreProgram &getSetupProgram(uint32_t core) {
    auto it = setupCores.find(core);
    if (it == setupCores.end())
      it = setupCores
               .emplace(core, CoreProgram{ProgramEmitter(dramTensors,
                                                         target.tokenFifoDepth,
                                                         sharedWindow),
                                          {}})
               .first;
    return it->second;
  }

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
      uint64_t pitch = rowPitches.lookup(value);
      if (!pitch) {
        accesses.push_back({Space::Dram, begin,
                            begin + getDenseByteSize(value.getType()), write});
        return;
      }
      auto [rowBytes, end] = getPitchedExtent(value, begin, pitch);
      accesses.push_back({Space::Dram, begin, end, write, pitch, rowBytes});
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

  /// The kernel op that runs after `op` (skipping constants and in-place
  /// ops), if any.
  static CardKernelOpInterface getNextKernel(Operation *op) {
    for (Operation *next = op->getNextNode(); next;
         next = next->getNextNode()) {
      if (next->hasAttr(AccelDialect::getInPlaceAttrName()))
        continue;
      if (auto kernel = dyn_cast<CardKernelOpInterface>(next))
        return kernel;
    }
    return {};
  }

  /// True when `next` is another piece of the op `op` was split from
  /// (accel-split-ops gives the pieces the op's name and location).
  static bool isSiblingPiece(Operation *op, Operation *next) {
    return next->getName() == op->getName() && next->getLoc() == op->getLoc();
  }

  /// Orders `op` on `opCores` after every conflicting access of other
  /// cores. A barrier that the next piece of the same split op needs anyway
  /// (for accesses from before `op`, not because of `op`) goes in front of
  /// `op` instead: `op`'s core then reaches it without running `op` first,
  /// and the pieces on the other cores run alongside `op` instead of after
  /// it. (Hoisting in front of other ops was measured: it delays weight
  /// loads an op could start early, mobilenet_v2_050 on 4 cores 244.6k ->
  /// 256.4k cycles.)
  void synchronize(CardKernelOpInterface op, ArrayRef<uint32_t> opCores) {
    SmallVector<CoreSync::Access> accesses = getAccesses(op);
    bool needed = sync.needsBarrier(opCores, accesses);
    CardKernelOpInterface next = getNextKernel(op);
    if (!needed && next && isSiblingPiece(op, next)) {
      SmallVector<uint32_t, 4> nextCores =
          npu_lowering::getKernelCores(next, target);
      SmallVector<CoreSync::Access> nextAccesses = getAccesses(next);
      CoreSync mine;
      mine.record(opCores, accesses);
      needed = sync.needsBarrier(nextCores, nextAccesses) &&
               !mine.needsBarrier(nextCores, nextAccesses);
    }
    if (needed) {
      barrierAllCores(op->getLoc());
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
      lowering.receiveBefore(op);
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
      context.rowPitches = &lowering.rowPitches;
      context.streams = &lowering.streams;
      if (auto shared = op->getAttrOfType<IntegerAttr>(
              AccelDialect::getSharedAddressAttrName()))
        context.sharedScratch = uint64_t(shared.getInt());
      // With a pinned weight, each core's setup program and its size
      // before the op's loads.
      SmallVector<std::pair<CoreProgram *, size_t>, 4> setups;
      if (auto pinned = op->getAttrOfType<IntegerAttr>(
              AccelDialect::getMrfAddressAttrName())) {
        std::optional<SmallVector<uint64_t, 4>> bytes =
            npu_lowering::getPinnableWeightBytes(op, lowering.target);
        if (!bytes)
          return op->emitOpError()
                 << "pins its weight ('"
                 << AccelDialect::getMrfAddressAttrName() << "') but its "
                 << "kernel cannot multiply from pinned tiles on its "
                 << opCores.size() << " core(s)";
        assert(bytes->size() == opCores.size() &&
               "pinned bytes for every core of the op");
        context.pinnedWeight = uint64_t(pinned.getInt());
        for (auto [core, coreBytes] : llvm::zip(opCores, *bytes)) {
          CoreProgram &setup = lowering.getSetupProgram(core);
          setups.push_back({&setup, setup.emitter.size()});
          context.setups.push_back(&setup.emitter);
          lowering.pinnedRanges[core].append(
              {pinned.getInt(), pinned.getInt() + int64_t(coreBytes)});
        }
      }
      if (auto constants = op->getAttrOfType<IntegerAttr>(
              AccelDialect::getKernelConstantsAttrName())) {
        const uint64_t address = uint64_t(constants.getInt());
        auto staged = lowering.sharedConstants.find(address);
        context.kernelConstants =
            staged != lowering.sharedConstants.end() ? staged->second : address;
      }
      if (failed(kernel.emitCardKernel(context)))
        return failure();
      for (auto [setup, size] : setups)
        setup->locations.append(setup->emitter.size() - size, op->getLoc());
      for (auto [core, size] : llvm::zip(opCores, before)) {
        CoreProgram &program = lowering.cores.at(core);
        program.locations.append(program.emitter.size() - size, op->getLoc());
      }
    }

    SmallVector<Value> results;
    for (Value result : op->getResults()) {
      uint64_t address = lowering.addresses.lookup(result);
      if (address >= lowering.sharedWindow)
        results.push_back(rewriter.create<npu::SharedTensorOp>(
            op->getLoc(), result.getType(),
            rewriter.getI64IntegerAttr(
                int64_t(address - lowering.sharedWindow))));
      else
        results.push_back(rewriter.create<npu::DramTensorOp>(
            op->getLoc(), result.getType(),
            rewriter.getI64IntegerAttr(int64_t(address))));
    }
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

  /// An op with a pinned weight (accel.mrf_address) needs a kernel that
  /// multiplies from pinned tiles on every core it runs on, and its tiles
  /// between the MRF the kernels use and the end of each core's MRF.
  static LogicalResult
  checkPinnedWeight(Operation *op, const ::nnaccel::isa::TargetDesc &desc,
                    const ::nnaccel::isa::TargetDesc &full) {
    auto pinned =
        op->getAttrOfType<IntegerAttr>(AccelDialect::getMrfAddressAttrName());
    if (!pinned)
      return success();
    SmallVector<uint32_t, 4> cores = npu_lowering::getKernelCores(op, desc);
    std::optional<SmallVector<uint64_t, 4>> bytes =
        npu_lowering::getPinnableWeightBytes(op, desc);
    if (!bytes || bytes->size() != cores.size())
      return op->emitOpError()
             << "pins its weight ('" << AccelDialect::getMrfAddressAttrName()
             << "') but its kernel cannot multiply from pinned tiles on its "
             << cores.size() << " core(s)";
    const uint64_t address = uint64_t(pinned.getInt());
    const uint64_t work = desc.memory(Space::Mrf).bytes;
    const uint64_t mrf = full.memory(Space::Mrf).bytes;
    if (address < work)
      return op->emitOpError()
             << "pins its weight at MRF address " << address << ", inside the "
             << work << " bytes of MRF the partition's kernels use ('"
             << AccelDialect::getMrfWorkBytesAttrName() << "')";
    for (auto [core, coreBytes] : llvm::zip(cores, *bytes))
      if (address > mrf || coreBytes > mrf - address)
        return op->emitOpError()
               << "pins " << coreBytes << " bytes of its weight at MRF address "
               << address << " on core " << core << ", beyond its " << mrf
               << "-byte MRF";
    return success();
  }

  /// Every op of the body must have a kernel that accepts it, or be
  /// address arithmetic under the plan; the error names the op and why.
  /// `desc` is the target as the kernels see it (accel.mrf_work_bytes),
  /// `full` the whole target, whose MRF pinned weights end in.
  static LogicalResult
  checkKernels(Block &body, const ::nnaccel::isa::TargetDesc &desc,
               const ::nnaccel::isa::TargetDesc &full,
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
      if (failed(checkPinnedWeight(&op, desc, full)))
        return failure();
      // A result written at a row pitch is a column of an in-place concat
      // (which verifyInPlaceOp checks against the pitch); its kernel must
      // support it.
      if (op.hasAttr(AccelDialect::getResultPitchAttrName())) {
        auto concat = op.getResult(0).hasOneUse()
                          ? dyn_cast<ConcatOp>(*op.getUsers().begin())
                          : ConcatOp();
        int64_t axis =
            cast<RankedTensorType>(op.getResult(0).getType()).getRank() - 1;
        if (!kernel.supportsResultPitch(axis))
          return op.emitOpError()
                 << "has '" << AccelDialect::getResultPitchAttrName()
                 << "' but its kernel writes its result densely";
        if (!concat || !concat->hasAttr(AccelDialect::getInPlaceAttrName()))
          return op.emitOpError()
                 << "has '" << AccelDialect::getResultPitchAttrName()
                 << "' but its result is not only a part of an in-place "
                    "accel.concat";
      }
      if (kernel.getSharedScratchBytes(desc) &&
          !op.hasAttr(AccelDialect::getSharedAddressAttrName()))
        return op.emitOpError()
               << "needs SHARED scratch but the memory plan "
                  "gives it none ('"
               << AccelDialect::getSharedAddressAttrName() << "')";
    }
    return success();
  }

  /// The first core's setup program copies the constants the card keeps
  /// in SHARED (accel.pinned_shared_address, accel-pin-weights) there from
  /// DRAM. They lie side by side in SHARED, so the copy gathers a batch of
  /// them into ACC at the same relative offsets (one load each, their DRAM
  /// latencies overlapping) and stores the batch with a few large DMAs;
  /// one larger than a batch goes through ACC chunk by chunk.
  static void emitSharedConstantCopies(Block &body,
                                       PartitionLowering &lowering) {
    constexpr uint64_t kChunk = 16 * 1024; // bytes per DMA
    const uint64_t batchBytes = std::max<uint64_t>(
        kChunk, lowering.target.memory(Space::Acc).bytes / kChunk * kChunk);
    const npu_lowering::ElementFormat bytesFormat{::nnaccel::isa::DType::U8};
    struct Copy {
      uint64_t shared, dram, bytes;
      Location loc;
    };
    SmallVector<Copy> copies;
    for (auto constant : body.getOps<ConstantOp>()) {
      auto shared = constant->getAttrOfType<IntegerAttr>(
          AccelDialect::getPinnedSharedAddressAttrName());
      auto dram = constant->getAttrOfType<IntegerAttr>(
          AccelDialect::getDramAddressAttrName());
      if (!shared || !dram)
        continue;
      lowering.sharedConstants[uint64_t(dram.getInt())] =
          lowering.sharedWindow + uint64_t(shared.getInt());
      copies.push_back({uint64_t(shared.getInt()), uint64_t(dram.getInt()),
                        getDenseByteSize(constant.getType()),
                        constant.getLoc()});
    }
    if (copies.empty())
      return;
    llvm::sort(copies, [](const Copy &a, const Copy &b) {
      return a.shared < b.shared;
    });
    CoreProgram &setup =
        lowering.getSetupProgram(lowering.cores.begin()->first);
    // dst[0, bytes) = src[0, bytes) in DMAs of at most kChunk bytes,
    // attributed to `loc`.
    auto move = [&](bool load, uint64_t dst, uint64_t src, uint64_t bytes,
                    Location loc) {
      const size_t before = setup.emitter.size();
      for (uint64_t offset = 0; offset < bytes; offset += kChunk) {
        const int64_t n = int64_t(std::min(kChunk, bytes - offset));
        const ::nnaccel::isa::MemRef acc{Space::Acc,
                                         (load ? dst : src) + offset, 0};
        if (load)
          npu_lowering::emitLoad(
              setup.emitter,
              {acc, {Space::Dram, src + offset, 0}, bytesFormat, n});
        else
          npu_lowering::emitStore(
              setup.emitter,
              {{Space::Dram, lowering.sharedWindow + dst + offset, 0},
               acc,
               bytesFormat,
               n});
      }
      setup.locations.append(setup.emitter.size() - before, loc);
    };
    for (size_t i = 0; i < copies.size();) {
      const uint64_t begin = copies[i].shared;
      size_t end = i;
      while (end < copies.size() &&
             copies[end].shared + copies[end].bytes - begin <= batchBytes)
        ++end;
      if (end == i) { // larger than a batch
        for (uint64_t offset = 0; offset < copies[i].bytes; offset += kChunk) {
          const uint64_t n = std::min(kChunk, copies[i].bytes - offset);
          move(true, 0, copies[i].dram + offset, n, copies[i].loc);
          move(false, copies[i].shared + offset, 0, n, copies[i].loc);
        }
        ++i;
        continue;
      }
      for (size_t k = i; k < end; ++k)
        move(true, copies[k].shared - begin, copies[k].dram, copies[k].bytes,
             copies[k].loc);
      const Copy &last = copies[end - 1];
      move(false, begin, 0, last.shared + last.bytes - begin, copies[i].loc);
      i = end;
    }
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
        npu_lowering::readCardMemoryPlan(partition, desc);
    // Kernels of a partition with pinned weights use the MRF below them.
    ::nnaccel::isa::TargetDesc working = desc;
    if (auto workBytes = partition->getAttrOfType<IntegerAttr>(
            AccelDialect::getMrfWorkBytesAttrName())) {
      uint64_t &mrf = working.memories[static_cast<size_t>(Space::Mrf)].bytes;
      mrf = std::min<uint64_t>(mrf, uint64_t(workBytes.getInt()));
    }
    if (failed(plan) || failed(checkKernels(body, working, desc, *plan)))
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
    llvm::DenseMap<Value, uint64_t> rowPitches =
        npu_lowering::getRowPitches(body);
    // Each planned tensor's memory, for the emitters' dependency tracking:
    // in SHARED for the values the plan put there (at their DRAM alias).
    const uint64_t sharedWindow = npu_lowering::getSharedWindow(desc);
    std::vector<npu_lowering::MemRegion> dramTensors;
    for (auto [value, address] : *plan) {
      uint64_t end = address + getDenseByteSize(value.getType());
      if (uint64_t pitch = rowPitches.lookup(value))
        end = getPitchedExtent(value, address, pitch).second;
      if (address >= sharedWindow)
        dramTensors.push_back({::nnaccel::isa::Space::Shared,
                               address - sharedWindow, end - sharedWindow});
      else
        dramTensors.push_back({::nnaccel::isa::Space::Dram, address, end});
    }
    // Constants kept in SHARED are read there; their DRAM copies are what
    // the setup copies from.
    for (auto constant : body.getOps<ConstantOp>())
      if (constant->hasAttr(AccelDialect::getPinnedSharedAddressAttrName()))
        if (auto at = constant->getAttrOfType<IntegerAttr>(
                AccelDialect::getDramAddressAttrName()))
          dramTensors.push_back(
              {::nnaccel::isa::Space::Dram, uint64_t(at.getInt()),
               uint64_t(at.getInt()) + getDenseByteSize(constant.getType())});
    PartitionLowering lowering{
        {}, working, std::move(*plan), std::move(rowPitches)};
    lowering.dramTensors = dramTensors;
    lowering.sharedWindow = sharedWindow;
    for (uint32_t core : used) {
      lowering.cores.emplace(
          core, CoreProgram{ProgramEmitter(dramTensors, desc.tokenFifoDepth,
                                           sharedWindow),
                            {}});
      lowering.barrierMask |= 1u << core;
    }
    lowering.getBarrierId(lowering.barrierMask); // id 0
    emitSharedConstantCopies(body, lowering);
    // Operands another card sends (accel-plan-card-transfers): received
    // into their DRAM by core 0 before the first op that depends on them
    // (PartitionLowering::receiveBefore).
    // An operand received in pieces goes to the kernel that reads it
    // (past reshapes, which keep its bytes), which receives each piece when
    // it needs it.
    ArrayRef<int64_t> inputAddresses = *partition.getInputAddresses();
    llvm::DenseSet<Value> received;
    for (const accel::CardTransfer &transfer :
         accel::getCardReceives(partition)) {
      Value operand = partition.getInputs()[transfer.index];
      const uint64_t bytes = getDenseByteSize(operand.getType());
      const uint64_t address = uint64_t(inputAddresses[transfer.index]);
      if (transfer.pieces > 1) {
        Value read = body.getArgument(unsigned(transfer.index));
        while (read.hasOneUse() && isa<ReshapeOp>(*read.getUsers().begin()))
          read = read.getUsers().begin()->getResult(0);
        lowering.streams.receives[read] = {
            uint32_t(transfer.peer), uint32_t(transfer.channel),
            transfer.pieces, bytes / uint64_t(transfer.pieces), address};
        continue;
      }
      received.insert(body.getArgument(unsigned(transfer.index)));
      lowering.receives.push_back(
          ::nnaccel::isa::build::Recv()
              .dst(::nnaccel::isa::MemRef{Space::Dram, address})
              .bytes(bytes)
              .peer(transfer.peer)
              .chan(transfer.channel));
    }
    if (!received.empty()) {
      lowering.receiveLoc = partition.getLoc();
      // Ops that read a received value, directly or through others.
      for (Operation &op : body)
        if (llvm::any_of(op.getOperands(), [&](Value operand) {
              Operation *def = operand.getDefiningOp();
              return received.contains(operand) ||
                     (def && lowering.needsReceived.contains(def));
            }))
          lowering.needsReceived.insert(&op);
    }
    // A result sent in pieces: its making kernel sends them.
    ArrayRef<int64_t> outputAddresses = *partition.getOutputAddresses();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<std::pair<accel::CardTransfer, Value>> sendsAtEnd;
    for (const accel::CardTransfer &transfer : accel::getCardSends(partition)) {
      Value result = partition->getResult(unsigned(transfer.index));
      Value made = yield.getOperand(unsigned(transfer.index));
      if (transfer.pieces > 1) {
        while (auto reshape = made.getDefiningOp<ReshapeOp>())
          made = reshape.getInput();
        lowering.streams.sends[made] = {
            uint32_t(transfer.peer), uint32_t(transfer.channel),
            transfer.pieces,
            getDenseByteSize(result.getType()) / uint64_t(transfer.pieces),
            uint64_t(outputAddresses[transfer.index])};
      }
      sendsAtEnd.push_back({transfer, made});
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

    // Received values nothing read (a result passed through): receive them
    // at the end all the same, so that every send is matched.
    if (!lowering.receives.empty())
      lowering.emitReceives();
    for (auto &[read, stream] : lowering.streams.receives)
      if (stream.done != stream.pieces)
        return partition.emitOpError()
               << "received " << stream.done << " of the " << stream.pieces
               << " pieces of an operand on channel " << stream.channel
               << ": its reader's kernel does not receive them";
    // Results this partition sends to another card of its launch (what a
    // kernel has not sent in pieces): after every core has written them (a
    // barrier), core 0 sends them.
    auto unsent = [&](const std::pair<accel::CardTransfer, Value> &entry) {
      if (entry.first.pieces == 1)
        return true;
      const npu_lowering::StreamedTransfer &stream =
          lowering.streams.sends.find(entry.second)->second;
      return stream.done < stream.pieces;
    };
    if (llvm::any_of(sendsAtEnd, unsent)) {
      if (lowering.cores.size() > 1)
        lowering.barrierAllCores(partition.getLoc());
      CoreProgram &first = lowering.cores.begin()->second;
      for (const auto &entry : sendsAtEnd) {
        const accel::CardTransfer &transfer = entry.first;
        const uint64_t address = uint64_t(outputAddresses[transfer.index]);
        size_t before = first.emitter.size();
        if (transfer.pieces == 1) {
          first.emitter.emit(
              ::nnaccel::isa::build::Send()
                  .src(::nnaccel::isa::MemRef{Space::Dram, address})
                  .bytes(getDenseByteSize(
                      partition->getResult(unsigned(transfer.index)).getType()))
                  .peer(transfer.peer)
                  .chan(transfer.channel));
        } else {
          npu_lowering::StreamedTransfer &stream =
              lowering.streams.sends.find(entry.second)->second;
          while (stream.done < stream.pieces)
            stream.sendNext(
                first.emitter,
                {Space::Dram,
                 stream.address + uint64_t(stream.done) * stream.pieceBytes});
        }
        first.locations.append(first.emitter.size() - before,
                               partition.getLoc());
      }
    }

    OpBuilder builder(context);
    builder.setInsertionPointToEnd(getOperation().getBody());
    // Each core's program (and setup program) as an npu.program at module
    // level; null on failure.
    auto addProgram = [&](uint32_t core, CoreProgram &coreProgram,
                          StringRef name) -> npu::ProgramOp {
      ::nnaccel::isa::Program program = coreProgram.emitter.finish(
          static_cast<uint32_t>(partition.getCard()), core);
      coreProgram.locations.append(program.instructions.size() -
                                       coreProgram.locations.size(),
                                   partition.getLoc());
      numInstructions += program.instructions.size();
      return npu::fromISAProgram(builder, partition.getLoc(), program,
                                 coreProgram.locations, name,
                                 npu::getTargetSpecFor(getOperation()));
    };
    SmallVector<Attribute> programs, setupPrograms;
    for (auto &[core, coreProgram] : lowering.cores) {
      std::string name = getProgramName(partition, core);
      npu::ProgramOp programOp = addProgram(core, coreProgram, name);
      if (!programOp)
        return failure();
      auto pinned = lowering.pinnedRanges.find(core);
      if (pinned != lowering.pinnedRanges.end())
        programOp.setPinnedMrf(pinned->second);
      programs.push_back(FlatSymbolRefAttr::get(context, name));
    }
    for (auto &[core, coreProgram] : lowering.setupCores) {
      std::string name = getProgramName(partition, core) + "_setup";
      if (!addProgram(core, coreProgram, name))
        return failure();
      setupPrograms.push_back(FlatSymbolRefAttr::get(context, name));
    }
    partition.setProgramsAttr(builder.getArrayAttr(programs));
    if (!setupPrograms.empty())
      partition.setSetupProgramsAttr(builder.getArrayAttr(setupPrograms));
    numBarriers += lowering.barriers;
    if (auto bytes = partition->getAttrOfType<IntegerAttr>(
            AccelDialect::getDramBytesAttrName()))
      dramBytes += bytes.getInt();
    return success();
  }
};
} // namespace
