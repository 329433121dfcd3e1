//===- KernelUtils.h - small helpers shared by NPU kernels ------*- C++ -*-===//
//
// What every kernel needs when it sizes buffers and fills instruction
// fields: the element formats (by ISA element type, sized with the ISA's
// row-size rules), the ISA field limits the kernels tile against, and
// alignment arithmetic. Kept here so the kernels share one definition of
// each.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELUTILS_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELUTILS_H

#include "nnaccel/ISA/Builders.h"
#include "nnaccel/ISA/Instruction.h"
#include "nnaccel/ISA/Types.h"

#include <cstdint>

namespace mlir::nnaccel::npu_lowering {

/// ISA field limits (docs/isa.md §8) every kernel tiles against: DMA x and
/// vector rows/cols are 16-bit element counts, DMA y and z 12-bit counts,
/// row pitches 16-bit byte counts, DMA padding fields 3 bits.
inline constexpr int64_t kMaxCount = 0xFFFF;
inline constexpr int64_t kMaxDmaYZ = 0xFFF;
inline constexpr int64_t kMaxPitch = 0xFFFF;
inline constexpr int64_t kMaxDmaPad = 7;

/// Storage of one element type a kernel handles. Kernels size buffers and
/// rows with rowBytes (the ISA's row-size rules: i4/u4 two per byte, block
/// formats whole blocks) and fill the `dt`/`at`/`bt`/`wt` fields with
/// `dtype`, so one kernel serves f32, f16 and bf16 and the narrow types can
/// flow through the same code.
struct ElementFormat {
  ::nnaccel::DType dtype = ::nnaccel::DType::F32;

  constexpr ElementFormat() = default;
  constexpr explicit ElementFormat(::nnaccel::DType dtype) : dtype(dtype) {}

  /// Bytes of a dense row of `n` elements.
  int64_t rowBytes(int64_t n) const {
    return static_cast<int64_t>(
        ::nnaccel::rowBytes(dtype, static_cast<uint64_t>(n)));
  }
  /// Bytes of one element of a whole-byte type (f32: 4, bf16: 2, i8: 1);
  /// 0 for sub-byte and block types, which only whole rows size.
  int64_t elementBytes() const { return ::nnaccel::elementBytes(dtype); }
  /// The alignment an element address needs.
  int64_t align() const { return ::nnaccel::elementAlign(dtype); }

  bool operator==(const ElementFormat &other) const {
    return dtype == other.dtype;
  }
  bool operator!=(const ElementFormat &other) const {
    return !(*this == other);
  }
};

inline constexpr ElementFormat kF32Format{::nnaccel::DType::F32};
inline constexpr ElementFormat kF16Format{::nnaccel::DType::F16};
inline constexpr ElementFormat kBF16Format{::nnaccel::DType::BF16};
inline constexpr ElementFormat kI32Format{::nnaccel::DType::I32};

/// Bytes of an f32 element: the kernels' working precision on chip.
inline constexpr int64_t kF32 = 4;

/// `value` rounded up to a multiple of `align`.
inline uint64_t alignUp(uint64_t value, uint64_t align) {
  return (value + align - 1) / align * align;
}

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELUTILS_H
