//===- ConvKernelSupport.h - shared pieces of the conv kernels --*- C++ -*-===//
//
// What the accel.conv kernels share: field limits, the instruction helpers
// they emit through (vector ops, DMA boxes, zero fills, copies, in f32 on
// chip), and each kernel's spec and entry points, which ConvKernels.cpp
// dispatches to. One kernel per file: PointwiseConvKernel.cpp,
// DepthwiseConvKernel.cpp, DenseStemConvKernel.cpp, GemmConvKernel.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_CONVKERNELSUPPORT_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_CONVKERNELSUPPORT_H

#include "KernelUtils.h"
#include "Kernels.h"
#include "ProgramEmitter.h"

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
using ::nnaccel::isa::Instruction;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

//===----------------------------------------------------------------------===//
// Instruction helpers
//===----------------------------------------------------------------------===//

/// Smallest count c such that c * bytes is a multiple of `align`.
inline int64_t alignedCount(int64_t bytes, int64_t align) {
  return align / std::gcd(align, bytes);
}

inline MemRegion region(Space space, uint64_t begin, uint64_t bytes) {
  return {space, begin, begin + bytes};
}

/// A 2-D block operand of a vector instruction: base and row pitch.
struct Block {
  Space space;
  uint64_t addr;
  int64_t pitch;
};

/// The byte range a rows x cols block of `bytes`-sized elements touches.
inline MemRegion footprint(const Block &block, int64_t rows, int64_t cols,
                           int64_t bytes = kF32) {
  return region(block.space, block.addr,
                uint64_t((rows - 1) * block.pitch + cols * bytes));
}

/// Emits a binary vector op dst = a op b on rows x cols f32 elements; `b`
/// is a full block, a column (one element per row: bcast = col) or a row.
/// `a` may be the chain (then `aRegion` is ignored); `chainOut` forwards the
/// result instead of writing it.
///
/// A chain runs as one unit and only its last member may push tokens, so the
/// consumer of a chain also declares its producer's reads (`chainedReads`):
/// a later writer of those buffers then waits for the chain's last member.
inline void emitBinary(ProgramEmitter &emitter, Opcode opcode,
                       std::optional<Block> dst, std::optional<Block> a,
                       const Block &b, Bcast bcast, int64_t rows, int64_t cols,
                       std::vector<MemRegion> chainedReads = {}) {
  Instruction inst(opcode);
  std::vector<MemRegion> reads = std::move(chainedReads), writes;
  if (dst) {
    setMem(inst, "dst", dst->space, dst->addr).with("dpitch", dst->pitch);
    writes.push_back(footprint(*dst, rows, cols));
  } else {
    setMem(inst, "dst", Space::Chain, 0).with("dpitch", cols * kF32);
    inst.flags |= ::nnaccel::isa::FlagChain;
  }
  if (a) {
    setMem(inst, "a", a->space, a->addr).with("apitch", a->pitch);
    reads.push_back(footprint(*a, rows, cols));
  } else {
    setMem(inst, "a", Space::Chain, 0).with("apitch", cols * kF32);
  }
  setMem(inst, "b", b.space, b.addr).with("bpitch", b.pitch);
  int64_t bRows = bcast == Bcast::Row || bcast == Bcast::Scalar ? 1 : rows;
  int64_t bCols = bcast == Bcast::Col || bcast == Bcast::Scalar ? 1 : cols;
  reads.push_back(footprint(b, bRows, bCols));
  inst.with("dt", kDt)
      .with("at", kDt)
      .with("bt", kDt)
      .with("rows", rows)
      .with("cols", cols)
      .with("bcast", static_cast<int64_t>(bcast));
  emitter.emit(inst, std::move(reads), std::move(writes));
}

/// What a binary op reading `a` and `b` (with `bcast`) touches.
inline std::vector<MemRegion> operandReads(const Block &a, const Block &b,
                                           Bcast bcast, int64_t rows,
                                           int64_t cols) {
  int64_t bRows = bcast == Bcast::Row || bcast == Bcast::Scalar ? 1 : rows;
  int64_t bCols = bcast == Bcast::Col || bcast == Bcast::Scalar ? 1 : cols;
  return {footprint(a, rows, cols), footprint(b, bRows, bCols)};
}

/// Applies `act` to a rows x cols block in place.
inline void emitActivation(ProgramEmitter &emitter, const ActivationSpec &act,
                           const Block &block, int64_t rows, int64_t cols) {
  emitActivationInPlace(emitter, act, block.space, block.addr, block.pitch,
                        rows, cols);
}

/// A DMA load of a z x y x x box (of `format` elements) with optional zero
/// padding.
struct DmaLoad {
  Space dstSpace;
  uint64_t dst;
  uint64_t src; // dram (or srcSpace)
  int64_t x, y = 1, z = 1, sy = 0, sz = 0, dpitch = 0;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  ElementFormat format = kF32Format;
  Space srcSpace = Space::Dram;
};

inline void emitLoad(ProgramEmitter &emitter, const DmaLoad &load,
                     const MemRegion &srcTensor) {
  Instruction inst(Opcode::DmaLd);
  setMem(inst, "dst", load.dstSpace, load.dst);
  setMem(inst, "src", load.srcSpace, load.src);
  const int64_t e = load.format.bytes;
  int64_t dpitch = load.dpitch ? load.dpitch : load.x * e;
  inst.with("dt", load.format.dt)
      .with("x", load.x)
      .with("y", load.y)
      .with("z", load.z)
      .with("sy", load.sy ? load.sy : load.x * e)
      .with("sz", load.sz)
      .with("dpitch", dpitch)
      .with("pt", load.pt)
      .with("pb", load.pb)
      .with("pl", load.pl)
      .with("pr", load.pr);
  int64_t rowsOut = load.z * (load.pt + load.y + load.pb);
  int64_t colsOut = load.pl + load.x + load.pr;
  MemRegion written = region(load.dstSpace, load.dst,
                             uint64_t((rowsOut - 1) * dpitch + colsOut * e));
  emitter.emit(inst, {srcTensor}, {written});
}

/// A DMA store of z x y rows of x elements (rows dense at spitch).
struct DmaStore {
  uint64_t dst; // dram
  Space srcSpace;
  uint64_t src;
  int64_t x, y = 1, z = 1, dy = 0, dz = 0, spitch = 0;
  ElementFormat format = kF32Format;
};

inline void emitStore(ProgramEmitter &emitter, const DmaStore &store,
                      const MemRegion &dstTensor) {
  Instruction inst(Opcode::DmaSt);
  setMem(inst, "dst", Space::Dram, store.dst);
  setMem(inst, "src", store.srcSpace, store.src);
  const int64_t e = store.format.bytes;
  int64_t spitch = store.spitch ? store.spitch : store.x * e;
  inst.with("dt", store.format.dt)
      .with("x", store.x)
      .with("y", store.y)
      .with("z", store.z)
      .with("dy", store.dy ? store.dy : store.x * e)
      .with("dz", store.dz)
      .with("spitch", spitch);
  MemRegion read =
      region(store.srcSpace, store.src,
             uint64_t((store.z * store.y - 1) * spitch + store.x * e));
  emitter.emit(inst, {read}, {dstTensor});
}

/// v.fill of a rows x cols block of `format` elements with zero, in pieces
/// of at most 65535 rows.
inline void emitZero(ProgramEmitter &emitter, const Block &dst,
                     ElementFormat format, int64_t rows, int64_t cols) {
  for (int64_t r0 = 0; r0 < rows; r0 += kMaxCount) {
    int64_t count = std::min<int64_t>(kMaxCount, rows - r0);
    Block piece{dst.space, dst.addr + uint64_t(r0 * dst.pitch), dst.pitch};
    Instruction fill(Opcode::VFill);
    setMem(fill, "dst", piece.space, piece.addr);
    fill.with("dt", format.dt)
        .with("rows", count)
        .with("cols", cols)
        .with("dpitch", piece.pitch)
        .with("imm", 0);
    emitter.emit(fill, {}, {footprint(piece, count, cols, format.bytes)});
  }
}

/// dst = a on rows x cols: a bit copy (v.mov) when the formats agree, else
/// a conversion (v.cvt).
inline void emitCopy(ProgramEmitter &emitter, const Block &dst,
                     ElementFormat dstFormat, const Block &a,
                     ElementFormat aFormat, int64_t rows, int64_t cols) {
  Instruction inst(dstFormat == aFormat ? Opcode::VMov : Opcode::VCvt);
  setMem(inst, "dst", dst.space, dst.addr);
  setMem(inst, "a", a.space, a.addr);
  inst.with("dt", dstFormat.dt)
      .with("at", aFormat.dt)
      .with("rows", rows)
      .with("cols", cols)
      .with("dpitch", dst.pitch)
      .with("apitch", a.pitch);
  emitter.emit(inst, {footprint(a, rows, cols, aFormat.bytes)},
               {footprint(dst, rows, cols, dstFormat.bytes)});
}

//===----------------------------------------------------------------------===//
// Pointwise 1x1 convolution (PointwiseConvKernel.cpp)
//===----------------------------------------------------------------------===//

struct PointwiseSpec {
  int64_t batch = 1, c = 0, f = 0, hw = 0; // hw: output pixels
  // Strided 1x1 (no padding): the input planes (h x w) are first subsampled
  // by the DMA engine into SHARED memory, then read from there like an
  // unstrided input of hw = ho * wo pixels.
  int64_t sh = 1, sw = 1, h = 0, w = 0, ho = 0, wo = 0;
  uint64_t input = 0, weight = 0, output = 0;
  std::optional<uint64_t> bias;
  ActivationSpec activation;

  bool strided() const { return sh > 1 || sw > 1; }
};

bool canEmitPointwise(const TargetDesc &target, const PointwiseSpec &spec,
                      std::string &reason);

void emitPointwise(ProgramEmitter &emitter, const TargetDesc &target,
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

} // namespace mlir::nnaccel::npu_lowering::conv

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_CONVKERNELSUPPORT_H
