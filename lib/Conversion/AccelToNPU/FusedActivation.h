//===- FusedActivation.h - accel fused activation to kernel spec -*- C++
//-*-===//
//
// fully_connected and conv carry the same fused-activation attributes; this
// turns them into the MLIR-free ActivationSpec the kernels apply.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_FUSEDACTIVATION_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_FUSEDACTIVATION_H

#include "Kernels.h"

#include "Accel/AccelOps.h"

namespace mlir::nnaccel::npu_lowering {

/// The activation of an op with `activation`, `activation_min` and
/// `activation_max` attributes (fully_connected, conv).
template <typename OpTy> ActivationSpec getFusedActivation(OpTy op) {
  ActivationSpec spec;
  switch (op.getActivation()) {
  case accel::Activation::none:
    spec.kind = ActivationSpec::None;
    break;
  case accel::Activation::relu:
    spec.kind = ActivationSpec::Relu;
    break;
  case accel::Activation::sigmoid:
    spec.kind = ActivationSpec::Sigmoid;
    break;
  case accel::Activation::tanh:
    spec.kind = ActivationSpec::Tanh;
    break;
  case accel::Activation::gelu:
    spec.kind = ActivationSpec::Gelu;
    break;
  case accel::Activation::clip:
    spec.kind = ActivationSpec::Clip;
    if (auto min = op.getActivationMin())
      spec.min = min->convertToFloat();
    if (auto max = op.getActivationMax())
      spec.max = max->convertToFloat();
    break;
  }
  return spec;
}

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_FUSEDACTIVATION_H
