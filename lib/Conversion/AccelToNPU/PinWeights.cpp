//===- PinWeights.cpp - accel-pin-weights pass ----------------------------===//
//
// Decides which constant weights a card partition keeps in its cores'
// matrix register files across runs (Passes.td has the contract). The MRF
// the partition's other kernels need is measured by emitting each kernel
// into a scratch program (ProgramEmitter::getHighWater): kernels size their
// on-chip layouts from the target in ways no formula here could mirror
// (double-buffered weight groups, resident recurrent matrices, conv weight
// blocks), and the emitter sees every byte they touch.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Conversion/Passes.h"

#include "CardKernels.h"
#include "CardMemoryPlan.h"
#include "ProgramEmitter.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUTarget.h"

#include "mlir/IR/Diagnostics.h"

#include <map>

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELPINWEIGHTS
#include "nnaccel/Conversion/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using mlir::nnaccel::npu_lowering::ProgramEmitter;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// A weight that may be pinned: its op, the cores it runs on and the MRF
/// bytes its slice takes on each (one core but for the multi-core
/// recurrent kernel), and the MRF its kernel needs when it streams the
/// weight instead.
struct Candidate {
  Operation *op;
  SmallVector<uint32_t, 4> cores;
  SmallVector<uint64_t, 4> bytes; // parallel to `cores`
  uint64_t streamingMrf;
  bool pinned = false;
  uint64_t address = 0; // MRF address of its tiles on every core, once pinned
};

/// The pinnable weight bytes of `op` on each of its cores when its weight
/// is a constant of the partition; nullopt otherwise.
std::optional<SmallVector<uint64_t, 4>> getPinBytes(Operation *op,
                                                    const TargetDesc &target) {
  std::optional<SmallVector<uint64_t, 4>> bytes =
      npu_lowering::getPinnableWeightBytes(op, target);
  // Operand 1 is the weight of fully_connected, matmul and conv, and W of
  // lstm / gru (whose R the kernel's pin size checks).
  if (!bytes || bytes->empty() || llvm::is_contained(*bytes, uint64_t(0)) ||
      !op->getOperand(1).getDefiningOp<ConstantOp>())
    return std::nullopt;
  return bytes;
}

struct AccelPinWeightsPass
    : mlir::nnaccel::impl::AccelPinWeightsBase<AccelPinWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!enabled)
      return;
    const TargetDesc *target = npu::lookupTarget(getOperation());
    if (!target)
      return signalPassFailure();
    // Only a card's sole card partition in its function keeps the MRFs
    // to itself between runs.
    getOperation().walk([&](func::FuncOp func) {
      std::map<int64_t, SmallVector<CardPartitionOp>> byCard;
      func.walk([&](CardPartitionOp partition) {
        byCard[partition.getCard()].push_back(partition);
      });
      for (auto &[card, partitions] : byCard)
        if (partitions.size() == 1 && !partitions.front().getPrograms() &&
            npu_lowering::hasCardMemoryPlan(partitions.front())) {
          pinPartition(partitions.front(), *target);
          pinSharedConstants(partitions.front(), *target);
        }
    });
  }

  /// Keeps the partition's small constants in SHARED, above what its
  /// kernels use there (accel.shared_bytes), smallest first while there is
  /// room: a kernel that loads its bias, scales or depthwise taps from DRAM
  /// waits the DRAM latency for a few bytes at the start of every run of
  /// the op, from SHARED only SHARED's. "Small" is a transfer the DRAM
  /// latency dominates (latency x bandwidth bytes, or `shared-constant-bytes`);
  /// larger weights are bandwidth-bound, and SHARED is better left to the
  /// intermediates. Every reader must be a card kernel that reaches its
  /// operands by DMA immediates and stages nothing in SHARED scratch (no
  /// SHARED-to-SHARED DMA), and none multiplies the constant from pinned
  /// MRF tiles (the setup loads those from DRAM).
  void pinSharedConstants(CardPartitionOp partition, const TargetDesc &target) {
    const auto &shared = target.memory(Space::Shared);
    const auto &dram = target.memory(Space::Dram);
    const uint64_t maxBytes =
        sharedConstantBytes >= 0
            ? uint64_t(sharedConstantBytes)
            : uint64_t(double(dram.latencyCycles) * dram.bytesPerCycle);
    if (!shared.bytes || !maxBytes)
      return;
    Block &body = partition.getBody().front();
    auto readsAnywhere = [&](Operation *user) {
      auto kernel = dyn_cast<CardKernelOpInterface>(user);
      return kernel && user->getBlock() == &body &&
             !user->hasAttr(AccelDialect::getInPlaceAttrName()) &&
             npu_lowering::readsOperandsFromShared(kernel, target);
    };
    auto pinnedInMrf = [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (!user->hasAttr(AccelDialect::getMrfAddressAttrName()))
        return false;
      unsigned index = use.getOperandNumber();
      return index == 1 || (index == 2 && isa<LSTMOp, GRUOp>(user));
    };
    // The ops whose kernel constants (accel.kernel_constants) are where.
    std::map<int64_t, SmallVector<Operation *>> kernelConstantReaders;
    for (Operation &op : body)
      if (auto at = op.getAttrOfType<IntegerAttr>(
              AccelDialect::getKernelConstantsAttrName()))
        kernelConstantReaders[at.getInt()].push_back(&op);

    struct Staged {
      ConstantOp constant;
      uint64_t bytes;
    };
    SmallVector<Staged> candidates;
    for (auto constant : body.getOps<ConstantOp>()) {
      uint64_t bytes = getDenseByteSize(constant.getType());
      auto dramAt = constant->getAttrOfType<IntegerAttr>(
          AccelDialect::getDramAddressAttrName());
      if (!bytes || bytes > maxBytes || !dramAt ||
          constant->hasAttr(AccelDialect::getPinnedSharedAddressAttrName()))
        continue;
      auto readers = kernelConstantReaders.find(dramAt.getInt());
      bool anyReader =
          readers != kernelConstantReaders.end() || !constant->use_empty();
      bool allFromShared =
          llvm::all_of(constant->getUses(),
                       [&](OpOperand &use) {
                         return readsAnywhere(use.getOwner()) &&
                                !pinnedInMrf(use);
                       }) &&
          (readers == kernelConstantReaders.end() ||
           llvm::all_of(readers->second, readsAnywhere));
      if (anyReader && allFromShared)
        candidates.push_back({constant, bytes});
    }
    llvm::stable_sort(candidates, [](const Staged &a, const Staged &b) {
      return a.bytes < b.bytes;
    });

    const uint64_t align =
        std::max<uint64_t>({shared.align, dram.align, uint64_t(1)});
    uint64_t next = 0;
    if (auto used = partition->getAttrOfType<IntegerAttr>(
            AccelDialect::getSharedBytesAttrName()))
      next = uint64_t(used.getInt());
    next = npu_lowering::alignUp(next, align);
    Builder builder(partition.getContext());
    bool any = false;
    for (const Staged &candidate : candidates) {
      if (next + candidate.bytes > shared.bytes)
        break;
      candidate.constant->setAttr(
          AccelDialect::getPinnedSharedAddressAttrName(),
          builder.getI64IntegerAttr(int64_t(next)));
      next = npu_lowering::alignUp(next + candidate.bytes, align);
      ++numSharedConstants;
      sharedConstantBytesTotal += candidate.bytes;
      any = true;
    }
    if (any)
      partition->setAttr(AccelDialect::getSharedBytesAttrName(),
                         builder.getI64IntegerAttr(int64_t(next)));
  }

  /// The highest MRF byte `op`'s kernel touches on any of its cores (0 when
  /// it cannot be emitted; the lowering reports that).
  static uint64_t measureMrf(Operation *op, const TargetDesc &target,
                             const llvm::DenseMap<Value, uint64_t> &addresses,
                             const llvm::DenseMap<Value, uint64_t> &pitches) {
    auto kernel = dyn_cast<CardKernelOpInterface>(op);
    if (!kernel)
      return 0;
    SmallVector<uint32_t, 4> cores = npu_lowering::getKernelCores(op, target);
    std::vector<ProgramEmitter> scratch(cores.size());
    npu_lowering::KernelCores kernelCores;
    for (auto [emitter, core] : llvm::zip(scratch, cores)) {
      kernelCores.emitters.push_back(&emitter);
      kernelCores.mask |= 1u << core;
    }
    kernelCores.barrierId = cores.size() > 1 ? 1 : 0;
    npu_lowering::KernelContext context{scratch.front(), target, addresses};
    context.cores = std::move(kernelCores);
    context.rowPitches = &pitches;
    if (auto shared = op->getAttrOfType<IntegerAttr>(
            AccelDialect::getSharedAddressAttrName()))
      context.sharedScratch = uint64_t(shared.getInt());
    // A kernel that fails here fails the lowering too, which reports it.
    ScopedDiagnosticHandler silence(op->getContext(),
                                    [](Diagnostic &) { return success(); });
    if (failed(kernel.emitCardKernel(context)))
      return 0;
    uint64_t mrf = 0;
    for (const ProgramEmitter &emitter : scratch)
      mrf = std::max(mrf, emitter.getHighWater(Space::Mrf));
    return mrf;
  }

  void pinPartition(CardPartitionOp partition, const TargetDesc &target) {
    Block &body = partition.getBody().front();
    FailureOr<llvm::DenseMap<Value, uint64_t>> addresses =
        npu_lowering::readCardMemoryPlan(partition, target);
    if (failed(addresses))
      return;
    llvm::DenseMap<Value, uint64_t> pitches = npu_lowering::getRowPitches(body);
    const uint64_t mrfBytes = target.memory(Space::Mrf).bytes;
    const uint64_t mrfAlign = target.memory(Space::Mrf).align;

    // What every kernel needs of the MRF; the weights that may be pinned.
    SmallVector<Candidate> candidates;
    SmallVector<Operation *> kernels;
    uint64_t otherMrf = 0;
    for (Operation &op : body) {
      if (!isa<CardKernelOpInterface>(op) ||
          op.hasAttr(AccelDialect::getInPlaceAttrName()))
        continue;
      kernels.push_back(&op);
      uint64_t mrf = measureMrf(&op, target, *addresses, pitches);
      if (std::optional<SmallVector<uint64_t, 4>> bytes =
              getPinBytes(&op, target))
        candidates.push_back(
            {&op, npu_lowering::getKernelCores(&op, target), *bytes, mrf});
      else
        otherMrf = std::max(otherMrf, mrf);
    }
    if (candidates.empty())
      return;

    // The MRF the kernels that stream (every other kernel and the
    // candidates not pinned) need.
    auto workingMrf = [&]() {
      uint64_t mrf = otherMrf;
      for (const Candidate &candidate : candidates)
        if (!candidate.pinned)
          mrf = std::max(mrf, candidate.streamingMrf);
      return npu_lowering::alignUp(mrf, mrfAlign);
    };
    // Addresses from the top of each core's MRF down, in program order:
    // a candidate's tiles start at one address on all of its cores (the
    // kernels take one `accel.mrf_address`), the highest at which its slice
    // on each core ends below the tiles pinned there before it; a core
    // with a smaller slice, or more room, leaves the rest unused. False
    // when some range would reach below `working`.
    auto assignAddresses = [&](uint64_t working) {
      std::map<uint32_t, uint64_t> top;
      for (Candidate &candidate : candidates) {
        if (!candidate.pinned)
          continue;
        uint64_t address = mrfBytes;
        for (auto [core, bytes] : llvm::zip(candidate.cores, candidate.bytes)) {
          auto it = top.find(core);
          const uint64_t end = it != top.end() ? it->second : mrfBytes;
          if (bytes > end)
            return false;
          address = std::min(address, end - bytes);
        }
        address = address / mrfAlign * mrfAlign;
        if (address < working)
          return false;
        candidate.address = address;
        for (uint32_t core : candidate.cores)
          top[core] = address;
      }
      return true;
    };
    // First fit in program order above the working MRF, which shrinks as
    // streaming candidates get pinned: repeat until nothing changes. A
    // candidate is weighed against the working MRF without its own
    // streaming need, which pinning it removes.
    for (bool changed = true; changed;) {
      changed = false;
      for (Candidate &candidate : candidates) {
        if (candidate.pinned)
          continue;
        candidate.pinned = true;
        if (assignAddresses(workingMrf()))
          changed = true;
        else
          candidate.pinned = false;
      }
    }
    // The working MRF only shrank since each pin was decided.
    if (!assignAddresses(workingMrf()))
      return;

    // The kernels get the MRF below the lowest pinned tile of any core.
    uint64_t workBytes = mrfBytes;
    bool any = false;
    for (const Candidate &candidate : candidates)
      if (candidate.pinned) {
        workBytes = std::min(workBytes, candidate.address);
        any = true;
      }
    if (!any)
      return;
    workBytes = workBytes / mrfAlign * mrfAlign;
    // Every kernel must still fit the smaller MRF it will see.
    TargetDesc working = target;
    working.memories[static_cast<size_t>(Space::Mrf)].bytes = workBytes;
    for (Operation *op : kernels) {
      std::string reason;
      if (failed(
              cast<CardKernelOpInterface>(op).checkCardKernel(working, reason)))
        return;
    }

    Builder builder(partition.getContext());
    for (Candidate &candidate : candidates) {
      if (!candidate.pinned)
        continue;
      candidate.op->setAttr(
          AccelDialect::getMrfAddressAttrName(),
          builder.getI64IntegerAttr(int64_t(candidate.address)));
    }
    // A pinned op must run on the same cores, with the same slices, in the
    // smaller MRF (the multi-core recurrent kernel, for one, asks whether
    // it is pinned); else nothing is pinned.
    bool consistent = llvm::all_of(candidates, [&](const Candidate &candidate) {
      return !candidate.pinned ||
             (npu_lowering::getKernelCores(candidate.op, working) ==
                  candidate.cores &&
              npu_lowering::getPinnableWeightBytes(candidate.op, working) ==
                  std::optional<SmallVector<uint64_t, 4>>(candidate.bytes));
    });
    if (!consistent) {
      for (Candidate &candidate : candidates)
        candidate.op->removeAttr(AccelDialect::getMrfAddressAttrName());
      return;
    }
    for (const Candidate &candidate : candidates) {
      if (!candidate.pinned)
        continue;
      ++numPinned;
      for (uint64_t bytes : candidate.bytes)
        pinnedBytes += bytes;
    }
    partition->setAttr(AccelDialect::getMrfWorkBytesAttrName(),
                       builder.getI64IntegerAttr(int64_t(workBytes)));
  }
};

} // namespace
