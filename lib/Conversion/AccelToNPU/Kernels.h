//===- Kernels.h - NPU code generators for accel ops ------------*- C++ -*-===//
//
// Each kernel turns one accel op, whose operands and results live at known
// card DRAM addresses, into ISA instructions for one core: tiling to the
// target's native dimension, on-chip buffer placement (double-buffered so
// DMA overlaps compute), the instructions in program order; the
// ProgramEmitter turns their memory effects into dependency tokens. Kernels are
// independent of MLIR so they can be unit-tested on the emulator directly.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELS_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELS_H

#include "KernelOperands.h"
#include "KernelUtils.h"
#include "ProgramEmitter.h"

#include "nnaccel/ISA/Target.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::nnaccel::npu_lowering {

/// Y[m x n] = act(X[m x k] . W^T + bias), W stored as n rows of k, for each
/// of `batches` GEMMs whose operands step by the given byte strides.
struct FullyConnectedSpec {
  int64_t m = 0, k = 0, n = 0;
  uint64_t input = 0, weight = 0, output = 0; // DRAM addresses
  std::optional<uint64_t> bias;               // DRAM address of n elements
  ActivationSpec activation;
  /// W is stored as k rows of n instead (a matmul right operand, Y = X . W):
  /// each weight tile is transposed by its DMA on the way into the MRF.
  bool weightKxN = false;
  /// Storage of X and W (one format: mm takes at = wt), of the bias and of
  /// Y. The matrix unit accumulates in f32 whatever the formats; the bias
  /// and the activation are applied in f32 and Y is converted on chip.
  ElementFormat inFormat = kF32Format, biasFormat = kF32Format,
                outFormat = kF32Format;
  /// Batched GEMMs: batch b reads X at input + b * inputStride, W at
  /// weight + b * weightStride and writes Y at output + b * outputStride
  /// (bytes; a stride of 0 shares the operand). X and Y may start at any
  /// element address; W's batch elements must stay DRAM-aligned.
  int64_t batches = 1;
  int64_t inputStride = 0, weightStride = 0, outputStride = 0;
  /// Quantized (int8) products. X is i8/u8 (inFormat) with zero point
  /// `inputZeroPoint`, W is signed (weightFormat: i8, or i4 packed two per
  /// byte, rows of ceil(k / 2) bytes, k even), the matrix unit
  /// accumulates exactly in i32, an i32 bias (biasFormat i32) is added
  /// there, and the accumulator is dequantized to f32 with `scales` (one,
  /// or one per output column: input scale x weight scale) before the
  /// activation. A quantized Y (outFormat i8/u8) is then requantized with
  /// 1 / `outputScale` and `outputZeroPoint`.
  struct Quantized {
    ElementFormat weightFormat{::nnaccel::DType::I8};
    int32_t inputZeroPoint = 0;
    std::vector<float> scales;
    float outputScale = 1;
    int32_t outputZeroPoint = 0;
  };
  std::optional<Quantized> quantized;
  /// DRAM address of the quantized scales and 1 / y_scale as f32
  /// (getFullyConnectedKernelConstants), loaded instead of filled.
  std::optional<uint64_t> scalesAddress;
  /// Bytes from one row of Y to the next (0: dense, n elements). A larger,
  /// DRAM-aligned pitch writes Y into its columns of a wider tensor (a part
  /// of an in-place concat); batch elements then step by m rows of it.
  int64_t outputPitch = 0;
  /// Pinned weight (accel-pin-weights): every N x N tile of W already sits
  /// in the MRF from this address on, tile (j, t) -- output tile j, k tile
  /// t -- at getPinnedTileOffset, loaded by the partition's setup program;
  /// the kernel multiplies from there and loads no weights.
  std::optional<uint64_t> pinnedWeight;

  /// The bytes between consecutive rows of Y.
  int64_t getOutputPitch() const {
    return outputPitch ? outputPitch : outFormat.rowBytes(n);
  }
  /// W's storage: X's, unless the product is quantized.
  /// A block floating-point weight (msfp8, msfp9, mxint8: N x K, blocks
  /// along K) multiplying a float input; accumulation stays f32.
  std::optional<ElementFormat> blockWeightFormat;
  ElementFormat getWeightFormat() const {
    return quantized           ? quantized->weightFormat
           : blockWeightFormat ? *blockWeightFormat
                               : inFormat;
  }
  /// The matrix unit's accumulator: exact i32 for quantized products.
  ElementFormat getAccumulatorFormat() const {
    return quantized ? kI32Format : kF32Format;
  }
  /// True when Y holds quantized integers, requantized on chip.
  bool hasQuantizedOutput() const {
    return quantized && ::nnaccel::isInteger(outFormat.dtype);
  }
  /// The f32 values the quantized kernel keeps in the VRF: the scales, then
  /// 1 / y_scale for a requantized result (filled, or loaded from
  /// `scalesAddress`).
  std::vector<float> scaleValues() const {
    std::vector<float> values = quantized->scales;
    if (hasQuantizedOutput())
      values.push_back(1.0f / quantized->outputScale);
    return values;
  }
};

/// Checks that the kernel can run `spec`'s shapes, formats and strides on
/// `target` (operand bases are taken to be DRAM-aligned, as every tensor
/// is); the reason otherwise. Addresses are not looked at.
bool canEmitFullyConnected(const ::nnaccel::isa::TargetDesc &target,
                           const FullyConnectedSpec &spec, std::string &reason);

/// The MRF bytes all weight tiles of `spec` take when pinned (one slot per
/// tile), or nullopt when its weight cannot be pinned (batch elements with
/// weights of their own).
std::optional<uint64_t>
getPinnedWeightBytes(const ::nnaccel::isa::TargetDesc &target,
                     const FullyConnectedSpec &spec);

/// Appends the instructions of `spec` (which passed the check) to `emitter`.
/// A pinned weight's tile loads go to `setup`, the core's setup program
/// (required then).
void emitFullyConnected(ProgramEmitter &emitter,
                        const ::nnaccel::isa::TargetDesc &target,
                        const FullyConnectedSpec &spec,
                        ProgramEmitter *setup = nullptr);

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_KERNELS_H
