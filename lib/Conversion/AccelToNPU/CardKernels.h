//===- CardKernels.h - the NPU backend's card kernels -----------*- C++ -*-===//
//
// Every accel op the NPU backend lowers has a card kernel: a check (can
// this op, with these types and shapes, run on the target? if not, why)
// and an emitter (append its instructions, given the DRAM address of every
// value). They reach the ops as external models of accel's
// CardKernelOpInterface, which placement and lowering query, so the two can
// never disagree. Each op family attaches its kernels from its own file
// (attach...Kernels below); registerNPUKernelModels (NPUKernels.h) attaches
// them all when the accel dialect loads.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDKERNELS_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDKERNELS_H

#include "KernelUtils.h"
#include "ProgramEmitter.h"

#include "nnaccel/ISA/Target.h"

#include "Accel/AccelOps.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace mlir::nnaccel::npu_lowering {

/// The cores a multi-core kernel runs on (getMaxKernelCores > 1): the
/// program of each, in the order its placement names them, and a barrier
/// among exactly these cores.
struct KernelCores {
  llvm::SmallVector<ProgramEmitter *, 4> emitters;
  /// Barrier `mask` (bit c = core c) and the id reserved for this mask in
  /// the partition (every distinct mask has its own id, so the k-th
  /// barrier of an id pairs the same cores on each of them).
  uint32_t mask = 0;
  uint32_t barrierId = 0;

  size_t size() const { return emitters.size(); }
  ProgramEmitter &operator[](size_t index) const { return *emitters[index]; }
  /// Appends `barrier id, mask` to every core's program: everything each
  /// of them did before it happens before anything any of them does after.
  void barrier() const;
};

/// A value passed to or from another card of the launch in `pieces` equal
/// messages along its leading dimension (an accel.transfer's pieces,
/// accel-plan-card-transfers): the kernel that makes it sends each piece as
/// soon as it has it, the kernel that reads it receives each piece right
/// before it needs it, so that both cards work at the same time. The
/// lowering sends at the partition's end whatever the making kernel did
/// not.
struct StreamedTransfer {
  uint32_t peer = 0;
  uint32_t channel = 0;
  int64_t pieces = 1;
  uint64_t pieceBytes = 0;
  /// The value's DRAM address on this card.
  uint64_t address = 0;
  /// Pieces sent or received so far.
  int64_t done = 0;

  /// Sends the next piece, `pieceBytes` at `src`.
  void sendNext(ProgramEmitter &emitter, ::nnaccel::isa::MemRef src);
  /// Receives pieces [done, end) into the value's DRAM, or one after the
  /// other from `at` on; false when there were none left to receive.
  bool receiveThrough(ProgramEmitter &emitter, int64_t end,
                      std::optional<::nnaccel::isa::MemRef> at = std::nullopt);
};

/// The partition's values that cross cards in pieces, by the value the
/// kernels see: the making op's result (sends) or the reading op's operand
/// (receives), past layout-preserving reshapes.
struct CardStreams {
  // Not an aggregate: PartitionLowering's aggregate initialisation leaves
  // it out, which would copy-list-initialise the maps' explicit
  // constructors.
  CardStreams() {}
  llvm::DenseMap<Value, StreamedTransfer> sends, receives;
};

/// What an emitter gets: where to append, the target, and the DRAM address
/// of every operand and result of the op (row-major, densely packed unless
/// the value has a row pitch, below).
struct KernelContext {
  /// The program of the op's (first) core.
  ProgramEmitter &emitter;
  const ::nnaccel::isa::TargetDesc &target;
  const llvm::DenseMap<Value, uint64_t> &addresses;
  /// Where the memory plan put the op's SHARED scratch, for kernels that
  /// ask for one (CardKernelOpInterface::getSharedScratchBytes).
  std::optional<uint64_t> sharedScratch = std::nullopt;
  /// Every core the op runs on; `emitter` is the first. One core unless
  /// the kernel supports several (getMaxKernelCores) and the placement
  /// names several.
  KernelCores cores = {};
  /// Row pitches (bytes) of the values that are not densely packed: the
  /// parts of an in-place concat along their innermost axis, whose rows
  /// (innermost dimension) lie one concat row apart. Only results of ops
  /// whose kernel supportsResultPitch are in it.
  const llvm::DenseMap<Value, uint64_t> *rowPitches = nullptr;
  /// The op's weight is pinned in the MRF of its cores from this address on
  /// (accel-pin-weights, `accel.mrf_address`; the same address on every
  /// core, each core holding its own slice); its loads go to `setups`, the
  /// setup program of each core, parallel to `cores.emitters`.
  std::optional<uint64_t> pinnedWeight = std::nullopt;
  llvm::SmallVector<ProgramEmitter *, 4> setups = {};
  /// DRAM address of the op's kernel constants (`accel.kernel_constants`,
  /// getKernelConstantValues); kernels without it fill them in.
  std::optional<uint64_t> kernelConstants = std::nullopt;
  /// Values of the partition passed card to card in pieces.
  CardStreams *streams = nullptr;

  /// The setup program of the op's (first) core, for single-core kernels
  /// with a pinned weight; null when nothing is pinned.
  ProgramEmitter *setup() const {
    return setups.empty() ? nullptr : setups.front();
  }
  uint64_t addressOf(Value value) const { return addresses.lookup(value); }
  /// The row pitch of `value` in bytes, or 0 when it is densely packed.
  uint64_t rowPitchOf(Value value) const {
    return rowPitches ? rowPitches->lookup(value) : 0;
  }
  /// The transfer that sends (receives) `value` in pieces, if any.
  StreamedTransfer *getStreamedSend(Value value) const {
    return find(streams ? &streams->sends : nullptr, value);
  }
  StreamedTransfer *getStreamedReceive(Value value) const {
    return find(streams ? &streams->receives : nullptr, value);
  }

private:
  static StreamedTransfer *
  find(llvm::DenseMap<Value, StreamedTransfer> *transfers, Value value) {
    if (!transfers || !value)
      return nullptr;
    auto it = transfers->find(value);
    return it == transfers->end() ? nullptr : &it->second;
  }
};

using CheckFn = LogicalResult (*)(Operation *op,
                                  const ::nnaccel::isa::TargetDesc &target,
                                  std::string &reason);
using EmitFn = LogicalResult (*)(Operation *op, KernelContext &context);
using SharedScratchFn = uint64_t (*)(Operation *op,
                                     const ::nnaccel::isa::TargetDesc &target);
using CoresFn = unsigned (*)(Operation *op,
                             const ::nnaccel::isa::TargetDesc &target);
using ResultPitchFn = bool (*)(Operation *op, int64_t axis);

/// The card kernel of an op family as an external model of
/// CardKernelOpInterface: `Check` says whether an op fits a target, `Emit`
/// appends its instructions, `SharedScratch` (optional) sizes the SHARED
/// memory it stages through, `MaxCores` and `PreferredCores` (optional;
/// else 1) say how many cores it can share the op among and how many are
/// worth it, `ResultPitch` (optional; else never) whether it can write its
/// result rows at a larger pitch when cut along an axis, `DirectAddresses`
/// whether it addresses its tensors by DMA address immediates only
/// (addressesOperandsDirectly).
template <CheckFn Check, EmitFn Emit, SharedScratchFn SharedScratch = nullptr,
          CoresFn MaxCores = nullptr, CoresFn PreferredCores = nullptr,
          ResultPitchFn ResultPitch = nullptr, bool DirectAddresses = true>
struct CardKernelModel
    : accel::CardKernelOpInterface::FallbackModel<
          CardKernelModel<Check, Emit, SharedScratch, MaxCores, PreferredCores,
                          ResultPitch, DirectAddresses>> {
  bool addressesOperandsDirectly(Operation *op) const {
    return DirectAddresses;
  }
  LogicalResult checkCardKernel(Operation *op,
                                const ::nnaccel::isa::TargetDesc &target,
                                std::string &reason) const {
    return Check(op, target, reason);
  }
  uint64_t
  getSharedScratchBytes(Operation *op,
                        const ::nnaccel::isa::TargetDesc &target) const {
    if constexpr (SharedScratch == nullptr)
      return 0;
    else
      return SharedScratch(op, target);
  }
  unsigned getMaxKernelCores(Operation *op,
                             const ::nnaccel::isa::TargetDesc &target) const {
    if constexpr (MaxCores == nullptr)
      return 1;
    else
      return MaxCores(op, target);
  }
  unsigned
  getPreferredKernelCores(Operation *op,
                          const ::nnaccel::isa::TargetDesc &target) const {
    if constexpr (PreferredCores == nullptr)
      return 1;
    else
      return PreferredCores(op, target);
  }
  bool supportsResultPitch(Operation *op, int64_t axis) const {
    if constexpr (ResultPitch == nullptr)
      return false;
    else
      return ResultPitch(op, axis);
  }
  LogicalResult emitCardKernel(Operation *op, KernelContext &context) const {
    return Emit(op, context);
  }
};

/// Attaches `Model` to each of `Ops`.
template <typename Model, typename... Ops>
void attachCardKernel(MLIRContext *context) {
  (Ops::template attachInterface<Model>(*context), ...);
}

/// The cores `op` runs on: the first getMaxKernelCores of the cores its
/// placement names (core 0 when it names none). Placement, memory plan and
/// lowering all ask this.
llvm::SmallVector<uint32_t, 4>
getKernelCores(Operation *op, const ::nnaccel::isa::TargetDesc &target);

/// The MRF bytes pinning the weight (right operand) of a fully_connected
/// or matmul would take on its core (getPinnedWeightBytes of its kernel
/// spec), or nullopt when its kernel cannot multiply from pinned tiles.
/// Whether the weight is a constant is the caller's business.
std::optional<uint64_t>
getFullyConnectedPinBytes(accel::FullyConnectedOp op,
                          const ::nnaccel::isa::TargetDesc &target);
std::optional<uint64_t>
getMatMulPinBytes(accel::MatMulOp op, const ::nnaccel::isa::TargetDesc &target);
/// Likewise the filter matrix of an int8 1x1 conv on one core (pixels as
/// the matrix unit's rows, QuantizedPointwiseConvKernel.cpp).
std::optional<uint64_t>
getConvPinBytes(accel::ConvOp op, const ::nnaccel::isa::TargetDesc &target);
/// The f32 values the kernel of `op` would otherwise write with one v.fill
/// each (the per-channel requantisation scales of an int8 conv or
/// fully_connected, and 1 / y_scale behind them), to be loaded from a DRAM
/// constant instead (accel-plan-card-memory adds it); nullopt when the op
/// has none or few (a per-tensor scale is one fill).
std::optional<std::vector<float>>
getKernelConstantValues(Operation *op,
                        const ::nnaccel::isa::TargetDesc &target);
std::optional<std::vector<float>>
getFullyConnectedKernelConstants(accel::FullyConnectedOp op);
std::optional<std::vector<float>>
getConvKernelConstants(accel::ConvOp op,
                       const ::nnaccel::isa::TargetDesc &target);
/// The MRF bytes pinning `op`'s weight takes on each core it runs on
/// (getKernelCores order), or nullopt when its kernel cannot multiply from
/// pinned tiles there: one of the three above on one core, or an lstm /
/// gru on one core (all of W and R) or on several (each core its slices of
/// W and R, MultiCoreRecurrentKernel.cpp); nullopt for any other op.
/// Whether the weight is a constant is the caller's business.
std::optional<llvm::SmallVector<uint64_t, 4>>
getPinnableWeightBytes(Operation *op, const ::nnaccel::isa::TargetDesc &target);

/// The storage format of a float element type the card computes in (f32,
/// f16, bf16), or nullopt. Takes a tensor type or an element type.
std::optional<ElementFormat> getElementFormat(Type type);

/// True when every type in `types` has a card float format; else sets
/// `reason` ("<what> runs on the card in f32, f16 or bf16 only").
bool allCardFloat(TypeRange types, llvm::StringRef what, std::string &reason);

/// The per-tensor quantization of `type`'s elements (a tensor or element
/// type) when it stores i8 or u8 over the full 8-bit range, the range the
/// vector units saturate to; else null.
quant::UniformQuantizedType getQuantization8(Type type);

/// The add of quantized tensors (QuantizedAddKernel.cpp), which the
/// elementwise kernels use for an accel.add with a quantized result.
bool isQuantizedAdd(Operation *op);
LogicalResult checkQuantizedAdd(Operation *op,
                                const ::nnaccel::isa::TargetDesc &target,
                                std::string &reason);
LogicalResult emitQuantizedAdd(Operation *op, KernelContext &context);

// The card kernels of each op family, attached from its own file.
void attachLinearKernels(MLIRContext *context);
void attachElementwiseKernels(MLIRContext *context);
void attachDataMovementKernels(MLIRContext *context);
void attachConvKernels(MLIRContext *context);
void attachPoolKernels(MLIRContext *context);
void attachEmbeddingKernels(MLIRContext *context);
void attachRecurrentKernels(MLIRContext *context);
void attachMatMulKernels(MLIRContext *context);
void attachNormKernels(MLIRContext *context);
void attachConvertKernels(MLIRContext *context);
void attachSelectKernels(MLIRContext *context);

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_CARDKERNELS_H
