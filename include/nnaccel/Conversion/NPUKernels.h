//===- NPUKernels.h - the NPU backend's card kernels ------------*- C++ -*-===//
//
// The NPU backend implements accel's CardKernelOpInterface as external
// models, one per op family next to its kernel. Tools that place or lower
// accel IR register them; without them every op runs on the host.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CONVERSION_NPUKERNELS_H
#define NNACCEL_CONVERSION_NPUKERNELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::nnaccel {

/// Attaches the NPU card kernels to the accel ops they cover when the accel
/// dialect is loaded.
void registerNPUKernelModels(DialectRegistry &registry);

} // namespace mlir::nnaccel

#endif // NNACCEL_CONVERSION_NPUKERNELS_H
