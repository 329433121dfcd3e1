//===- HostKernels.h - Host reference kernels for accel ops ------*- C++
//-*-===//
//
// Runs one accel op on the host CPU ("host fallback"). Every accel op except
// accel.constant (constants are values), accel.host_partition and
// accel.yield (structure, not computation) is supported. Semantics are those
// of the op descriptions in dialects/Accel/*.td (ONNX semantics); numerics
// are those of lib/Numerics, so host results match the device: dot products
// use numerics::dotF32's 16-lane order and activations the VectorOps
// polynomials. docs/host-kernels.md is the full contract (operand order,
// attributes, dtypes per op).
//
// Usage:
//   std::vector<Tensor> outs;
//   Status s = runHostOp(op, {&x, &w, nullptr /*no bias*/}, outs,
//                        {TensorDesc(DType::F32, {1, 16, 8, 8})});
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_RUNTIME_HOSTKERNELS_H
#define NNACCEL_RUNTIME_HOSTKERNELS_H

#include "nnaccel/Runtime/HostOp.h"
#include "nnaccel/Runtime/Tensor.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel {
namespace runtime {

/// Runs `op` on `inputs` (in operand order; an absent optional operand is
/// nullptr, and trailing absent operands may be left out). On success
/// `outputs` holds one tensor per entry of `outputDescs`, which must be the
/// op's result types as the compiler inferred them; a kernel checks them
/// against the shapes it computes. On failure `outputs` is empty and the
/// Status message names the op kind (and location) and the problem. Never
/// throws, never aborts.
///
/// Outputs usually own fresh storage; reshape and transfer return tensors
/// sharing the input's bytes (copy-on-write keeps that safe).
Status runHostOp(const HostOp &op, Span<const Tensor *const> inputs,
                 std::vector<Tensor> &outputs,
                 const std::vector<TensorDesc> &outputDescs);
/// Convenience overload for braced lists of inputs.
Status runHostOp(const HostOp &op, std::initializer_list<const Tensor *> inputs,
                 std::vector<Tensor> &outputs,
                 const std::vector<TensorDesc> &outputDescs);

/// True if `kind` (e.g. "accel.conv") has a host kernel.
bool isHostOpSupported(std::string_view kind);
/// All supported kinds, sorted.
std::vector<std::string> getSupportedHostOps();

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_RUNTIME_HOSTKERNELS_H
