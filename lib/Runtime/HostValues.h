//===- HostValues.h - element values as double or int64 ---------*- C++ -*-===//
//
// Private to lib/Runtime. Kernels without a device definition (the
// indexing ops, mod, the transcendental math ops, einsum, resize,
// conv_transpose) compute on whole-tensor copies: float tensors as double
// (f16/bf16/f32 widened exactly), integer tensors as int64. Results are
// rounded once to the element type (RNE) or wrapped to the integer width.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_RUNTIME_HOSTVALUES_H
#define NNACCEL_LIB_RUNTIME_HOSTVALUES_H

#include "KernelSupport.h"

namespace nnaccel {
namespace runtime {
namespace detail {

/// True for the integer element types kernels compute on (not i1).
inline bool isIntegerDType(DType dtype) {
  return visitIntDType(dtype, [](auto) {});
}

/// Every element of a float tensor as double.
std::vector<double> readReal(const Tensor &t);

/// Stores doubles into a float tensor, rounding once (RNE).
void writeValues(const std::vector<double> &values, Tensor &t);

/// Stores int64 values into an integer tensor, wrapping to its width.
void writeValues(const std::vector<int64_t> &values, Tensor &t);

} // namespace detail
} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_HOSTVALUES_H
