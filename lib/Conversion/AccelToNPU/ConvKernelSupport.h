//===- ConvKernelSupport.h - shared pieces of the conv kernels --*- C++ -*-===//
//
// What the accel.conv kernels share: each kernel's spec and entry points,
// which ConvKernels.cpp dispatches to (they build their instructions with
// KernelOperands.h, in f32 on chip). One kernel per file:
// PointwiseConvKernel.cpp, DepthwiseConvKernel.cpp, DenseStemConvKernel.cpp,
// StridedStemConvKernel.cpp, GemmConvKernel.cpp, and the int8 kernels
// QuantizedPointwiseConvKernel.cpp, QuantizedDepthwiseConvKernel.cpp and
// QuantizedGemmConvKernel.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_CONVKERNELSUPPORT_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_CONVKERNELSUPPORT_H

#include "KernelOperands.h"
#include "KernelUtils.h"
#include "Kernels.h"
#include "ProgramEmitter.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace mlir::nnaccel::npu_lowering::conv {

using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::DType;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

/// Smallest count c such that c * bytes is a multiple of `align`.
inline int64_t alignedCount(int64_t bytes, int64_t align) {
  return align / std::gcd(align, bytes);
}

/// `a` / `b` rounded up (positive operands).
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

inline constexpr ElementFormat kI8Format{DType::I8};

/// The rows of a DMA store with gaps that the emulator's race detector
/// checks one by one (larger stores count as their bounding range): the
/// int8 conv kernels sharing one op's pixels among cores store in blocks of
/// at most this many rows, so interleaved stores of different cores stay
/// apart.
inline constexpr int64_t kMaxCheckedStoreRows = 4096;

//===----------------------------------------------------------------------===//
// Quantized (int8) convolutions (QuantizedConvSupport.cpp)
//===----------------------------------------------------------------------===//

/// The integer arithmetic of a quantized accel.conv, the same on every
/// kernel and on the host (HostQuantizedLinalg.cpp): the products of the
/// i8/u8 input (minus its zero point) and the i8 weight accumulate exactly
/// in i32, an i32 bias joins the sum, and then
///   rescale:  q = v.rqnt(sum, scales[f], y_zp)            (one rounding)
///   else:     y = v.dqnt(sum, scales[f]) (+ real bias), activation, and
///             for a quantized result q = v.rqnt(y, outputInverse, y_zp).
struct ConvQuantization {
  ElementFormat input{::nnaccel::DType::U8}; // i8 or u8
  int32_t inputZeroPoint = 0;
  ElementFormat output = kF32Format; // f32, or i8/u8 (requantized)
  /// i32 (in the accumulator's scale) or f32 (real); unused without bias.
  ElementFormat bias = kI32Format;
  /// One per filter, or one: x_scale * w_scale[f], divided by y_scale when
  /// `rescale`.
  std::vector<float> scales;
  /// A quantized result without activation or real bias: the sums go to the
  /// stored integers in one v.rqnt.
  bool rescale = false;
  float outputInverse = 1; // 1 / y_scale (quantized result, not rescale)
  int32_t outputZeroPoint = 0;
  /// DRAM address of `scaleValues()` as f32 (getConvKernelConstants),
  /// loaded instead of filled.
  std::optional<uint64_t> scalesAddress;

  bool quantizedOutput() const { return ::nnaccel::isInteger(output.dtype); }
  bool realBias() const { return bias == kF32Format; }
  bool perChannel() const { return scales.size() > 1; }
  /// The values emitConvScaleFills writes: the scales, then 1 / y_scale
  /// for a quantized result that is not rescaled.
  std::vector<float> scaleValues() const {
    std::vector<float> values = scales;
    if (quantizedOutput() && !rescale)
      values.push_back(outputInverse);
    return values;
  }
};

/// Fills `scales` (one, or one per filter) into `base` of `space`, one
/// v.fill per run of equal values, and 1 / y_scale behind them (or loads
/// them with one DMA from `quant.scalesAddress`); the fills
/// have no inputs, so kernels emit them after their first loads (they then
/// run while the loads are in flight). Returns the operand of the output
/// scale.
Operand2D emitConvScaleFills(ProgramEmitter &emitter,
                             const ConvQuantization &quant, Space space,
                             uint64_t base);

/// Loads `pixels` consecutive pixels of `channels` channels of an 8-bit
/// NCHW plane (`planeStride` elements apart, from DRAM `src`) transposed
/// into `dst`: one row of the channels per pixel, `pixelPitch` (>= channels,
/// at most kMaxDmaPad more) bytes apart; the bytes past the channels are
/// zeroed (one-element DMA rows, a plane per pixel). The int8 kernels read
/// their input this way.
void loadPixelsTransposed(ProgramEmitter &emitter, ::nnaccel::isa::MemRef dst,
                          uint64_t src, ElementFormat format, int64_t channels,
                          int64_t pixels, int64_t planeStride,
                          int64_t pixelPitch = 0);

/// Bytes emitConvScaleFills writes.
inline int64_t convScaleBytes(const ConvQuantization &quant) {
  return int64_t(quant.scales.size() + 1) * kF32;
}

/// The epilogue of a block of `rows` x `cols` i32 sums of a quantized conv
/// whose columns are output channels: `sum` (ACC, or the chain of the mm
/// that computed it) to `out` (rows x cols in quant.output). `bias` (a row
/// of cols values in quant.bias, or nullopt) and `scales` (a row of cols
/// f32 scales, or the single one) are on-chip operands of the block's first
/// column; `outputScale` is 1 / y_scale. Up to two MFU operations are
/// chained at a time (the target's mfu_count is at least 2 where int8 convs
/// are lowered). A chained `sum` needs quant.rescale or a real result; the
/// other path dequantizes in place in `sum`.
void emitConvEpilogue(ProgramEmitter &emitter, const ConvQuantization &quant,
                      const ActivationSpec &activation, const Operand2D &sum,
                      const std::optional<Operand2D> &bias,
                      const Operand2D &scales, const Operand2D &outputScale,
                      const Operand2D &out, int64_t rows, int64_t cols);

//===----------------------------------------------------------------------===//
// Pointwise 1x1 convolution (PointwiseConvKernel.cpp)
//===----------------------------------------------------------------------===//

struct PointwiseSpec {
  int64_t batch = 1, c = 0, f = 0, hw = 0; // hw: output pixels
  // Strided 1x1 (no padding): the input planes (h x w) are first subsampled
  // by the DMA engine into SHARED memory (at `shared`, where the memory plan
  // puts the op's SHARED scratch), then read from there like an unstrided
  // input of hw = ho * wo pixels.
  int64_t sh = 1, sw = 1, h = 0, w = 0, ho = 0, wo = 0;
  uint64_t input = 0, weight = 0, output = 0, shared = 0;
  std::optional<uint64_t> bias;
  ActivationSpec activation;
  /// Quantized (int8): see QuantizedPointwiseConvKernel.cpp; unstrided
  /// only.
  std::optional<ConvQuantization> quantized;
  /// A block-float weight (msfp8, msfp9, mxint8, mxfp8e4m3: F x C rows,
  /// blocks along C) multiplied by f32 activations with pixels as the
  /// matrix unit's rows, in k tiles of `kTile` channels (the op's
  /// `k_tile`, a divisor of C): see PointwiseConvKernel.cpp.
  std::optional<ElementFormat> blockWeight;
  int64_t kTile = 0;
  /// Block-float: SHARED bytes after the subsampled input where weight
  /// tiles that cannot be loaded MRF-aligned from DRAM are laid out first
  /// (getBlockPointwiseStageBytes).
  uint64_t weightStageBytes = 0;
  /// Quantized or block-float: the cores that share the output pixels
  /// (each a contiguous, DRAM-aligned range of every filter's plane).
  int64_t cores = 1;
  /// Quantized, on one core, pixels as rows: the filter matrix is pinned
  /// in the MRF from this address on (accel-pin-weights), loaded once by
  /// the core's `setup` program.
  std::optional<uint64_t> pinnedWeight;
  ProgramEmitter *setup = nullptr;

  bool strided() const { return sh > 1 || sw > 1; }
  /// SHARED bytes the subsampled input (0 unless strided) and the staged
  /// block-float weight tiles take.
  uint64_t sharedBytes() const {
    return (strided() ? uint64_t(c * hw * kF32) : 0) + weightStageBytes;
  }
};

/// The SHARED bytes a block-float `spec` stages weight tiles through, a
/// region per core of the card (0 when every group of filter rows loads
/// MRF-aligned from DRAM).
uint64_t getBlockPointwiseStageBytes(const TargetDesc &target,
                                     const PointwiseSpec &spec);
/// Block-float: the cores worth sharing the output pixels of `spec` among
/// (1: none), and the most the kernel can run on (each core a contiguous,
/// DRAM-aligned range of every filter's plane, all the filters).
unsigned getBlockPointwiseCores(const TargetDesc &target,
                                const PointwiseSpec &spec);
unsigned getBlockPointwiseMaxCores(const TargetDesc &target,
                                   const PointwiseSpec &spec);
/// Emits a block-float `spec` on the cores of `emitters` (one: the whole op
/// on it), each a range of the output pixels with all the filters.
void emitBlockPointwise(llvm::ArrayRef<ProgramEmitter *> emitters,
                        const TargetDesc &target, const PointwiseSpec &spec);

bool canEmitPointwise(const TargetDesc &target, const PointwiseSpec &spec,
                      std::string &reason);

void emitPointwise(ProgramEmitter &emitter, const TargetDesc &target,
                   const PointwiseSpec &spec);

/// The int8 pointwise kernel (QuantizedPointwiseConvKernel.cpp), which
/// canEmitPointwise and emitPointwise use for a quantized spec.
bool canEmitQuantizedPointwise(const TargetDesc &target,
                               const PointwiseSpec &spec, std::string &reason);
/// Emits `spec` on the cores of `emitters` (one: the whole op on it),
/// each a range of the output pixels with all the filters.
void emitQuantizedPointwise(llvm::ArrayRef<ProgramEmitter *> emitters,
                            const TargetDesc &target,
                            const PointwiseSpec &spec);
/// The cores worth sharing the output pixels of `spec` among (1: none),
/// from the kernel's own cycle estimates; and the most it can run on (the
/// card's cores when at least two get pixels, else 1).
unsigned getQuantizedPointwiseCores(const TargetDesc &target,
                                    const PointwiseSpec &spec);
unsigned getQuantizedPointwiseMaxCores(const TargetDesc &target,
                                       const PointwiseSpec &spec);
/// The MRF bytes of `spec`'s filter matrix when its kernel can multiply it
/// pinned (one core, pixels as rows), else nullopt.
std::optional<uint64_t> quantizedPointwisePinBytes(const TargetDesc &target,
                                                   const PointwiseSpec &spec);

//===----------------------------------------------------------------------===//
// Depthwise k x k convolution (DepthwiseConvKernel.cpp)
//===----------------------------------------------------------------------===//

struct DepthwiseSpec {
  /// Input, weight, bias and output share one format. f16/bf16 are DMAed in
  /// their type and converted on chip: all the arithmetic is f32 (exactly
  /// the host's f32 computation), the result is converted once at the end.
  ElementFormat format = kF32Format;
  int64_t batch = 1, c = 0, h = 0, w = 0, stride = 1;
  int64_t k = 3; // square kernel, odd, padded by k / 2 on every side
  uint64_t input = 0, weight = 0, output = 0;
  std::optional<uint64_t> bias;
  ActivationSpec activation;
  /// Quantized (int8): see QuantizedDepthwiseConvKernel.cpp; input zero
  /// point 0.
  std::optional<ConvQuantization> quantized;
  /// Quantized: the cores that share the bands of output rows (one op as a
  /// unit, getQuantizedDepthwiseCores).
  int64_t cores = 1;

  int64_t ho() const { return stride == 1 ? h : h / 2; }
  int64_t wo() const { return stride == 1 ? w : w / 2; }
  bool narrow() const { return !(format == kF32Format); }
  int64_t pad() const { return k / 2; }
  int64_t taps() const { return k * k; }
  int64_t paddedRow() const { return w + 2 * pad(); }
  int64_t paddedPlane() const { return (h + 2 * pad()) * paddedRow(); }
  /// Stride 2: vector rows per channel (two padded rows each; the last
  /// pad() of them are garbage).
  int64_t rowsPerChannel() const { return ho() + pad(); }
};

bool canEmitDepthwise(const TargetDesc &target, const DepthwiseSpec &spec,
                      std::string &reason);

void emitDepthwise(ProgramEmitter &emitter, const TargetDesc &target,
                   const DepthwiseSpec &spec);

/// The int8 depthwise kernel (QuantizedDepthwiseConvKernel.cpp), which
/// canEmitDepthwise and emitDepthwise use for a quantized spec.
bool canEmitQuantizedDepthwise(const TargetDesc &target,
                               const DepthwiseSpec &spec, std::string &reason);
void emitQuantizedDepthwise(llvm::ArrayRef<ProgramEmitter *> emitters,
                            const TargetDesc &target,
                            const DepthwiseSpec &spec);
/// Cores worth sharing the output rows of a quantized depthwise spec (1:
/// one core, or accel-split-ops cuts the channels), and the most that get
/// a band.
unsigned getQuantizedDepthwiseCores(const TargetDesc &target,
                                    const DepthwiseSpec &spec);
unsigned getQuantizedDepthwiseMaxCores(const TargetDesc &target,
                                       const DepthwiseSpec &spec);

//===----------------------------------------------------------------------===//
// Dense 3x3 stem convolution (DenseStemConvKernel.cpp)
//===----------------------------------------------------------------------===//

struct DenseSpec {
  int64_t batch = 1, c = 0, f = 0, h = 0, w = 0, stride = 1;
  uint64_t input = 0, weight = 0, output = 0;
  std::optional<uint64_t> bias;
  ActivationSpec activation;

  int64_t ho() const { return stride == 1 ? h : h / 2; }
  int64_t wo() const { return stride == 1 ? w : w / 2; }
  /// Accumulator rows: output rows (stride 2: computed at full width, the
  /// store picks every other column).
  int64_t outBytes() const { return ho() * w * kF32; }
  int64_t inBytes() const { return c * (h + 2) * (w + 2) * kF32; }
};

bool canEmitDense(const TargetDesc &target, const DenseSpec &spec,
                  std::string &reason);

/// out[f] = sum over channels c and taps t of W[f, c, t] * window(c, t):
/// one chained multiply-add per product, a scalar weight each (bcast =
/// scalar), on whole output planes. Summation is sequential, so the result
/// matches the host's 16-lane dot product to rounding, not bit for bit.
void emitDense(ProgramEmitter &emitter, const TargetDesc &target,
               const DenseSpec &spec);

//===----------------------------------------------------------------------===//
// Strided stem convolution on the matrix unit (StridedStemConvKernel.cpp)
//===----------------------------------------------------------------------===//

/// A dense f32 k x k convolution with few channels and filters (a network's
/// stem), stride s > 1, "same" padding k / 2: products of s adjacent taps
/// of every channel, from the input laid out with channels innermost.
struct StemSpec {
  int64_t batch = 1, c = 0, f = 0, h = 0, w = 0, k = 3, stride = 2;
  int64_t cores = 1; // that share the output rows
  uint64_t input = 0, weight = 0, output = 0, shared = 0;
  std::optional<uint64_t> bias;
  ActivationSpec activation;
  /// f32, or i8/u8 for a result requantized in the epilogue (the quantize
  /// of an int8 consumer fused into this f32 conv): q = sat(RNE(y *
  /// outputInverse) + outputZeroPoint).
  ElementFormat outFormat = kF32Format;
  float outputInverse = 1;
  int32_t outputZeroPoint = 0;

  int64_t pad() const { return k / 2; }
  int64_t ho() const { return (h + 2 * pad() - k) / stride + 1; }
  int64_t wo() const { return (w + 2 * pad() - k) / stride + 1; }
  /// The tap runs of a kernel row: s adjacent taps each (the last shorter).
  int64_t runs() const { return (k + stride - 1) / stride; }
  /// SHARED bytes the weight tiles of one core stage through on their way
  /// to the MRF (the DMA writes the MRF only from DRAM or SHARED).
  uint64_t sharedBytes() const;
};

bool canEmitStem(const TargetDesc &target, const StemSpec &spec,
                 std::string &reason);

/// Per image: the input transposed to [H*W pixels x C] in ACC; per band of
/// output rows, for each output row i and kernel row dy, one mm per run of
/// s taps over the pixels whose taps all lie in the image (A rows s pixels
/// apart: k = run x C contiguous values), single-tap mms for the pixels at
/// the borders; then bias, activation (and requantization) on whole output
/// rows of W_o x F values and a transposing store. The weights are
/// reordered on chip into one tile per run and per tap (F rows of (tap,
/// channel) values) and staged through SHARED into the MRF.
void emitStem(llvm::ArrayRef<ProgramEmitter *> emitters,
              const TargetDesc &target, const StemSpec &spec);

/// The cores the stem kernel is worth running on: each computes a range of
/// output rows (the SHARED scratch holds one set of tiles per core).
unsigned getStemCores(const TargetDesc &target, const StemSpec &spec);

//===----------------------------------------------------------------------===//
// General convolution, implicit GEMM (GemmConvKernel.cpp)
//===----------------------------------------------------------------------===//

/// A convolution in its general form: 3-D (1-D and 2-D have unit depth and
/// height), any groups, strides, dilations and paddings, f32/f16/bf16.
struct GemmSpec {
  ElementFormat in;                              // input and weight
  ElementFormat out;                             // result
  ElementFormat bias;                            // bias (when there is one)
  int64_t batch = 1, groups = 1, cg = 0, fg = 0; // channels/filters per group
  int64_t d = 1, h = 1, w = 1, kd = 1, kh = 1, kw = 1;
  int64_t sd = 1, sh = 1, sw = 1, dd = 1, dh = 1, dw = 1;
  int64_t pd = 0, ph = 0, pw = 0, pwEnd = 0; // begin pads (+ width end)
  int64_t od = 1, oh = 1, ow = 1;
  uint64_t input = 0, weight = 0, output = 0;
  std::optional<uint64_t> biasAddr;
  ActivationSpec activation;
  /// Quantized (int8): see QuantizedGemmConvKernel.cpp; 1-D and 2-D,
  /// groups 1. The element formats above are then unused.
  std::optional<ConvQuantization> quantized;
  /// Where the memory plan put the op's SHARED scratch (the int8 kernel
  /// reorders its weights through it; quantizedGemmSharedBytes).
  uint64_t shared = 0;
  /// int8: the cores that share the output rows.
  int64_t cores = 1;
  /// A block-float weight (groups 1; F x K rows, blocks along K) multiplied
  /// by the f32 patch matrix, in k tiles of `kTile` taps (the op's
  /// `k_tile`, a divisor of K). Every filter tile's k tiles are loaded once
  /// and stay resident in the MRF; `weightStageBytes` of SHARED scratch
  /// (at `shared`) lay out tiles that cannot be loaded MRF-aligned from
  /// DRAM (getBlockGemmStageBytes).
  std::optional<ElementFormat> blockWeight;
  int64_t kTile = 0;
  uint64_t weightStageBytes = 0;

  int64_t channels() const { return groups * cg; }
  int64_t filters() const { return groups * fg; }
  /// Input "virtual channels" of one output depth slice: (channel, depth
  /// tap) pairs, each one 2-D plane.
  int64_t virtualChannels() const { return cg * kd; }
  int64_t planeTaps() const { return kh * kw; }
  /// Length of one filter's weight row, the K of the GEMM.
  int64_t rowTaps() const { return cg * kd * kh * kw; }
  int64_t outPlane() const { return od * oh * ow; }
};

bool canEmitGemm(const TargetDesc &target, const GemmSpec &spec,
                 std::string &reason);

/// The SHARED bytes a block-float `spec` stages weight tiles through (0
/// when every filter tile loads MRF-aligned from DRAM).
uint64_t getBlockGemmStageBytes(const TargetDesc &target, const GemmSpec &spec);

/// Per (image, output depth slice, group, band of output rows, filter tile):
/// for each K tile of the filters' weight rows (im2col order: channel, depth
/// tap, row tap, column tap), gather the patch matrix A[q, t] (GEMM row q,
/// tap t) from the staged input planes with one strided v.mov per tap (or
/// per run of adjacent column taps that fits the stride), and accumulate
/// D[q, f] += A . Wtile^T on the matrix unit (the weight tile is a plain
/// DMA of the weight rows: the weights need no re-layout). Then bias (per
/// column), the fused activation, a compaction that drops the padding
/// columns of D and converts to the output type, and a transposing store
/// (one element per DMA row) to the NCHW output planes.
void emitGemm(ProgramEmitter &emitter, const TargetDesc &target,
              const GemmSpec &spec);

/// The int8 kernel (QuantizedGemmConvKernel.cpp), which canEmitGemm and
/// emitGemm (on one core) use for a quantized spec.
bool canEmitQuantizedGemm(const TargetDesc &target, const GemmSpec &spec,
                          std::string &reason);
/// Per core a range of output rows with all the filters (each core reorders
/// the weights into its own part of the SHARED scratch).
void emitQuantizedGemm(llvm::ArrayRef<ProgramEmitter *> emitters,
                       const TargetDesc &target, const GemmSpec &spec);
/// The cores worth sharing the output rows among: more than one where
/// cutting the filters across cores would leave the matrix unit's
/// dot-product engines idle (fewer than N filters per core).
unsigned getQuantizedGemmCores(const TargetDesc &target, const GemmSpec &spec);
/// SHARED bytes the kernel reorders its weights through on spec.cores
/// cores.
uint64_t quantizedGemmSharedBytes(const TargetDesc &target,
                                  const GemmSpec &spec);

} // namespace mlir::nnaccel::npu_lowering::conv

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_CONVKERNELSUPPORT_H
