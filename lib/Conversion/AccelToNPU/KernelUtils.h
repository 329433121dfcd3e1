//===- KernelUtils.h - small helpers shared by NPU kernels ------*- C++ -*-===//
//
// Field helpers and constants every kernel needs when it builds ISA
// instructions: the f32 element size and type code, float immediates,
// alignment, memory operands, and fused activations applied in place. Kept
// here so the kernels share one definition of each.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELUTILS_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELUTILS_H

#include "nnaccel/ISA/Instruction.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace mlir::nnaccel::npu_lowering {

/// Bytes of an f32 element and its ISA type code.
inline constexpr int64_t kF32 = 4;
inline constexpr int64_t kDt = static_cast<int64_t>(::nnaccel::isa::DType::F32);

/// ISA field limits (docs/isa.md §8) every kernel tiles against: DMA x and
/// vector rows/cols are 16-bit element counts, DMA y and z 12-bit counts,
/// row pitches 16-bit byte counts, DMA padding fields 3 bits.
inline constexpr int64_t kMaxCount = 0xFFFF;
inline constexpr int64_t kMaxDmaYZ = 0xFFF;
inline constexpr int64_t kMaxPitch = 0xFFFF;
inline constexpr int64_t kMaxDmaPad = 7;

/// Storage of one element type the kernels handle: bytes per element and
/// the ISA dtype code. Kernels size buffers and fill `dt`/`at`/`bt` fields
/// from this instead of assuming f32, so one kernel serves f32, f16 and
/// bf16 (and later the quantised types).
struct ElementFormat {
  int64_t bytes = 4;
  int64_t dt = kDt;
  bool operator==(const ElementFormat &other) const {
    return bytes == other.bytes && dt == other.dt;
  }
};

inline constexpr ElementFormat kF32Format{
    kF32, static_cast<int64_t>(::nnaccel::isa::DType::F32)};
inline constexpr ElementFormat kF16Format{
    2, static_cast<int64_t>(::nnaccel::isa::DType::F16)};
inline constexpr ElementFormat kBF16Format{
    2, static_cast<int64_t>(::nnaccel::isa::DType::BF16)};

/// IEEE bits of `value` for F32Imm fields.
inline int64_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// `value` rounded up to a multiple of `align`.
inline uint64_t alignUp(uint64_t value, uint64_t align) {
  return (value + align - 1) / align * align;
}

/// Sets memory operand `name` (its .space and .addr fields).
inline ::nnaccel::isa::Instruction &setMem(::nnaccel::isa::Instruction &inst,
                                           const std::string &name,
                                           ::nnaccel::isa::Space space,
                                           uint64_t address) {
  return inst.with(name + ".space", static_cast<int64_t>(space))
      .with(name + ".addr", static_cast<int64_t>(address));
}

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELUTILS_H
