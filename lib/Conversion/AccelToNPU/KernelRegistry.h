//===- KernelRegistry.h - accel op -> NPU kernel table ----------*- C++ -*-===//
//
// One entry per accel op the NPU backend lowers: a check (can this op, with
// these types and shapes, run on the target? if not, why) and an emitter
// (append its instructions, given the DRAM address of every value). The
// placement pass asks the check, the lowering calls the emitter, so the two
// can never disagree. Each op family registers its kernels from its own
// file; adding a kernel touches no shared code beyond one line in
// KernelRegistry.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELREGISTRY_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELREGISTRY_H

#include "KernelUtils.h"
#include "ProgramEmitter.h"

#include "nnaccel/ISA/Target.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::nnaccel::npu_lowering {

/// What an emitter gets: where to append, the target, and the DRAM address
/// of every operand and result of the op (row-major, densely packed).
struct KernelContext {
  ProgramEmitter &emitter;
  const ::nnaccel::isa::TargetDesc &target;
  const llvm::DenseMap<Value, uint64_t> &addresses;
  /// Where the memory plan put the op's SHARED scratch, for kernels that
  /// ask for one (CardKernelOpInterface::getSharedScratchBytes).
  std::optional<uint64_t> sharedScratch = std::nullopt;

  uint64_t addressOf(Value value) const { return addresses.lookup(value); }
};

struct KernelEntry {
  /// Success when the kernel covers `op` on `target`; else the reason.
  LogicalResult (*check)(Operation *op,
                         const ::nnaccel::isa::TargetDesc &target,
                         std::string &reason) = nullptr;
  /// Appends the instructions of `op` (which passed `check`).
  LogicalResult (*emit)(Operation *op, KernelContext &context) = nullptr;
  /// SHARED scratch bytes the kernel needs for `op` (null: none).
  uint64_t (*sharedScratch)(Operation *op,
                            const ::nnaccel::isa::TargetDesc &target) = nullptr;
};

using KernelTable = llvm::StringMap<KernelEntry>;

/// The storage format of a float element type the card computes in (f32,
/// f16, bf16), or nullopt. Takes a tensor type or an element type.
std::optional<ElementFormat> getElementFormat(Type type);

/// True when every type in `types` has a card float format; else sets
/// `reason` ("<what> runs on the card in f32, f16 or bf16 only").
bool allCardFloat(TypeRange types, llvm::StringRef what, std::string &reason);

/// The kernel of `op`'s name, or null.
const KernelEntry *lookupKernel(Operation *op);
const KernelEntry *lookupKernelByName(llvm::StringRef name);

// Registration, one function per op family.
void registerLinearKernels(KernelTable &table);
void registerElementwiseKernels(KernelTable &table);
void registerDataMovementKernels(KernelTable &table);
void registerConvKernels(KernelTable &table);
void registerPoolKernels(KernelTable &table);
void registerEmbeddingKernels(KernelTable &table);
void registerRecurrentKernels(KernelTable &table);
void registerMatMulKernels(KernelTable &table);
void registerNormKernels(KernelTable &table);
void registerConvertKernels(KernelTable &table);

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELREGISTRY_H
