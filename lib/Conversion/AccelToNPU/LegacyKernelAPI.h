//===- LegacyKernelAPI.h - TRANSITION: the string-keyed kernel API -*- C++ -*-===//
//
// The helpers of the string-keyed instruction API, kept only while kernels
// move to the typed builders (ISA/Builders.h) and KernelOperands.h. Deleted
// when the last kernel has moved.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_LEGACYKERNELAPI_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_LEGACYKERNELAPI_H

#include "nnaccel/ISA/Instruction.h"

#include <cstring>
#include <string>

namespace mlir::nnaccel::npu_lowering {

inline constexpr int64_t kDt = static_cast<int64_t>(::nnaccel::isa::DType::F32);

inline int64_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline ::nnaccel::isa::Instruction &setMem(::nnaccel::isa::Instruction &inst,
                                           const std::string &name,
                                           ::nnaccel::isa::Space space,
                                           uint64_t address) {
  return inst.with(name + ".space", static_cast<int64_t>(space))
      .with(name + ".addr", static_cast<int64_t>(address));
}

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_LEGACYKERNELAPI_H
