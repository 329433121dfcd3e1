//===- PoolKernels.cpp - pooling kernels on the MFUs ----------------------===//
//
// Both kernels take f32, f16 or bf16 (ElementFormat): the DMA copies the
// input in its own type, arithmetic is in f32, and the final instruction
// writes the output type.
//
// accel.global_avg_pool (N x C x spatial -> N x C x 1..1): the input
// is a [N*C, S] matrix (S = product of the spatial sizes), one channel per
// row. Chunks of rows are loaded into two alternating ACC slots; v.rsum
// reduces each row (axis = cols, reading the input type) into f32 in the
// device's 16-lane order, which is
// the order of the host's numerics::reduceMeanF32 sum, and vs.mul scales by
// 1/S into the output type. The card has no divide, so the card's mean is sum *
// f32(1/S) while the host computes sum / S: the two can differ in the last bit
// (exact when S is a power of two).
//
// accel.max_pool / accel.avg_pool (2-D, equal strides, no dilation, no
// ceil_mode): the chunk's channel planes are loaded with their zero border
// (DMA padding) into ACC (f16/bf16: then widened to f32 with one v.cvt, as
// window offsets of odd elements need 4-byte operands); for max_pool a mask
// row (0 inside, -inf on
// the border) is added so padded positions never win. One vector row per
// (channel, output row): a row pitch of `stride` padded rows subsamples
// vertically, and each window position is one v.max / v.add over the whole
// chunk, in row-major window order (the host's summation order, so average
// sums are bit-identical). A per-channel move compacts the valid rows and
// divides (avg: times 1/count, a per-position plane computed once by the
// same window sums over a ones plane, or 1/(kh*kw) with count_include_pad),
// (writing the output type), and the store picks every stride-th column.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "KernelOperands.h"
#include "KernelUtils.h"

#include "Accel/AccelOps.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Axis;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// Bytes of a chunk's means kept apart from its f32 sums: f32 means are
/// scaled in place, f16/bf16 ones get their own buffer.
int64_t separateMeanBytes(ElementFormat format) {
  return format == kF32Format ? 0 : format.elementBytes();
}

/// Rows (channels) per chunk: two input slots fit ACC, the f32 sums (and
/// the narrow means) of one chunk fit the VRF twice, and chunk bases stay
/// aligned in DRAM. 0 if none.
int64_t rowsPerChunk(const TargetDesc &target, int64_t rows, int64_t plane,
                     ElementFormat format) {
  int64_t accBytes = static_cast<int64_t>(target.memory(Space::Acc).bytes);
  int64_t vrfBytes = int64_t(target.vrfRegisters) * target.vrfRegisterBytes;
  int64_t meanBytes = separateMeanBytes(format);
  int64_t chunk = std::min<int64_t>(
      {rows, accBytes / 2 / format.rowBytes(plane),
       (vrfBytes / 2 - 64 - (meanBytes ? 64 : 0)) / (kF32 + meanBytes),
       kMaxDmaYZ});
  if (chunk < rows) {
    // Chunk r0 reads from r0 * plane * e and writes r0 * e: both aligned
    // when r0 is a multiple of align / e (e > 0: poolFormat admits the
    // card float types only).
    int64_t step = static_cast<int64_t>(target.memory(Space::Dram).align) /
                   format.elementBytes();
    chunk = chunk / step * step;
  }
  return std::max<int64_t>(chunk, 0);
}

/// The common element format of `op`'s input and result, or nullopt with
/// the reason.
std::optional<ElementFormat> poolFormat(Operation *op, llvm::StringRef name,
                                        std::string &reason) {
  if (!allCardFloat(op->getOperandTypes(), name, reason) ||
      !allCardFloat(op->getResultTypes(), name, reason))
    return std::nullopt;
  ElementFormat format = *getElementFormat(op->getOperand(0).getType());
  if (!(*getElementFormat(op->getResult(0).getType()) == format)) {
    reason = (name + " runs on the card with equal input and result element "
                     "types only")
                 .str();
    return std::nullopt;
  }
  return format;
}

LogicalResult checkGlobalAvgPool(Operation *operation, const TargetDesc &target,
                                 std::string &reason) {
  auto op = cast<GlobalAvgPoolOp>(operation);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  std::optional<ElementFormat> format =
      poolFormat(operation, "global_avg_pool", reason);
  if (!format)
    return failure();
  if (!type.hasStaticShape() || type.getRank() < 3) {
    reason = "global_avg_pool needs a static N x C x spatial input";
    return failure();
  }
  int64_t plane =
      type.getNumElements() / (type.getDimSize(0) * type.getDimSize(1));
  if (plane < 1 || format->rowBytes(plane) > kMaxPitch) {
    reason = "channel planes of " + std::to_string(plane) +
             " elements exceed the 64 KiB vector operand pitch";
    return failure();
  }
  if (rowsPerChunk(target, type.getDimSize(0) * type.getDimSize(1), plane,
                   *format) < 1) {
    reason = "a chunk of channel planes that keeps DRAM bases aligned does "
             "not fit the accumulator memory";
    return failure();
  }
  return success();
}

LogicalResult emitGlobalAvgPool(Operation *operation, KernelContext &context) {
  auto op = cast<GlobalAvgPoolOp>(operation);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  const int64_t rows = type.getDimSize(0) * type.getDimSize(1);
  const int64_t plane = type.getNumElements() / rows;
  std::string unused;
  const ElementFormat format = *poolFormat(operation, "", unused);
  const int64_t chunk = rowsPerChunk(context.target, rows, plane, format);
  const uint64_t input = context.addressOf(op.getInput());
  const uint64_t output = context.addressOf(op.getResult());
  const uint64_t accAlign = context.target.memory(Space::Acc).align;
  const uint64_t slotBytes = alignUp(chunk * format.rowBytes(plane), accAlign);
  // VRF per slot: the f32 sums, then (f16/bf16) the means.
  const uint64_t sumBytes = alignUp(chunk * kF32, 64);
  const uint64_t meanBytes = separateMeanBytes(format);
  const uint64_t vrfSlotBytes =
      sumBytes + (meanBytes ? alignUp(chunk * meanBytes, 64) : 0);
  const float scale = 1.0f / static_cast<float>(plane);
  ProgramEmitter &emitter = context.emitter;

  for (int64_t r0 = 0, index = 0; r0 < rows; r0 += chunk, ++index) {
    int64_t rc = std::min(chunk, rows - r0);
    const Operand2D slot = denseOperand(
        Space::Acc, uint64_t(index % 2) * slotBytes, plane, format);
    const uint64_t sums = uint64_t(index % 2) * vrfSlotBytes;
    const Operand2D mean = denseOperand(
        Space::Vrf, meanBytes ? sums + sumBytes : sums, rc, format);

    DmaLoad load;
    load.dst = slot.ref();
    load.src = {Space::Dram, input + uint64_t(r0 * format.rowBytes(plane))};
    load.format = format;
    load.x = plane;
    load.y = rc;
    emitLoad(emitter, load);

    // Not chained into the scale: the next load into this slot waits for
    // the reduction, and only a chain's last member may push that token.
    // One f32 sum per row, written as a column.
    emitReduce(emitter, Opcode::VRsum, Operand2D{Space::Vrf, sums, kF32}, slot,
               Axis::Cols, rc, plane);

    // The sums are contiguous: scale them as one row, into the output type.
    emitScalar(emitter, Opcode::VsMul, mean, denseOperand(Space::Vrf, sums, rc),
               scale, 1, rc);

    DmaStore store;
    store.dst = {Space::Dram, output + uint64_t(format.rowBytes(r0))};
    store.src = mean.ref();
    store.format = format;
    store.x = rc;
    emitStore(emitter, store);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// max_pool / avg_pool
//===----------------------------------------------------------------------===//

struct WindowPoolSpec {
  ElementFormat format; // input and output
  bool isMax = true, includePad = false;
  int64_t planes = 0, h = 0, w = 0, kh = 1, kw = 1, stride = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0; // pb includes the rounding rows
  int64_t ho = 0, wo = 0;

  int64_t hp() const { return h + pt + pb; } // multiple of stride
  int64_t wp() const { return w + pl + pr; }
  int64_t rowsPerPlane() const { return hp() / stride; }
  int64_t cols() const { return stride * (wo - 1) + 1; }
  /// Accumulator row pitch: stride * wo elements, so the store's source
  /// pitch of `stride` elements walks the rows without a gap.
  int64_t pitch() const { return stride * wo * kF32; }
  /// The same for the compacted rows, in the output type; at stride 1 the
  /// store reads whole rows, so 2-byte rows are padded to keep every plane
  /// 4-byte aligned (the ACC alignment).
  int64_t compactPitch() const {
    return stride == 1 ? int64_t(alignUp(format.rowBytes(wo), 4))
                       : format.rowBytes(stride * wo);
  }
  bool padded() const { return pt || pl || pb || pr; }
  bool narrow() const { return !(format == kF32Format); }
  int64_t inBytes() const { return hp() * wp() * kF32; }
  /// The padded plane as loaded, in the input type (f16/bf16 only).
  int64_t rawBytes() const {
    return narrow() ? hp() * format.rowBytes(wp()) : 0;
  }
  int64_t outBytes() const { return rowsPerPlane() * pitch(); }
  int64_t compactBytes() const { return ho * compactPitch(); }
  /// VRF: the border mask (max) or the ones plane (avg), and 1/count (avg).
  int64_t vrfBytes() const {
    return alignUp(inBytes(), 64) +
           (!isMax && !includePad ? int64_t(alignUp(compactBytes(), 64)) : 0);
  }
};

/// Parses `op` into a spec, or says why the kernel does not cover it.
template <typename PoolOp>
std::optional<WindowPoolSpec> getWindowPool(PoolOp op, bool isMax,
                                            std::string &reason) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  std::string name = isMax ? "max_pool" : "avg_pool";
  std::optional<ElementFormat> format = poolFormat(op, name, reason);
  if (!format)
    return std::nullopt;
  if (type.getRank() != 4 || !type.hasStaticShape() ||
      !resultType.hasStaticShape()) {
    reason = name + " is lowered for static 2-D (NCHW) inputs only";
    return std::nullopt;
  }
  if (op.getCeilMode()) {
    reason = name + " with ceil_mode is not lowered to the card";
    return std::nullopt;
  }
  ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                    pads = op.getPads();
  if (strides[0] != strides[1] || strides[0] < 1 || strides[0] > 7) {
    reason = name + " is lowered with equal strides of at most 7 only";
    return std::nullopt;
  }
  WindowPoolSpec spec;
  spec.format = *format;
  spec.isMax = isMax;
  spec.planes = type.getDimSize(0) * type.getDimSize(1);
  spec.h = type.getDimSize(2);
  spec.w = type.getDimSize(3);
  spec.kh = kernel[0];
  spec.kw = kernel[1];
  spec.stride = strides[0];
  spec.pt = pads[0];
  spec.pl = pads[1];
  spec.pb = pads[2];
  spec.pr = pads[3];
  spec.ho = resultType.getDimSize(2);
  spec.wo = resultType.getDimSize(3);
  // Bottom rows that round the padded height up to a multiple of the stride
  // (never read by a valid output).
  spec.pb +=
      (spec.stride - (spec.h + spec.pt + spec.pb) % spec.stride) % spec.stride;
  if (spec.pt > 7 || spec.pl > 7 || spec.pb > 7 || spec.pr > 7) {
    reason = name + " padding exceeds the DMA's 7 padding elements";
    return std::nullopt;
  }
  if (spec.ho < 1 || spec.wo < 1 ||
      spec.stride * (spec.ho - 1) + spec.kh > spec.hp() ||
      spec.stride * (spec.wo - 1) + spec.kw > spec.wp() ||
      spec.kh * spec.kw > 4096) {
    reason = name + " has windows the kernel does not cover";
    return std::nullopt;
  }
  if (spec.inBytes() > kMaxPitch || spec.h > kMaxDmaYZ || spec.ho > kMaxDmaYZ) {
    reason = "a padded " + std::to_string(spec.h) + "x" +
             std::to_string(spec.w) +
             " plane exceeds the 64 KiB vector operand pitch";
    return std::nullopt;
  }
  return spec;
}

/// Channels per chunk (double-buffered planes, accumulators and compacted
/// rows in ACC; DRAM chunk bases aligned), or 0.
int64_t windowChunk(const TargetDesc &target, const WindowPoolSpec &spec) {
  int64_t accBytes = static_cast<int64_t>(target.memory(Space::Acc).bytes);
  int64_t vrfBytes = int64_t(target.vrfRegisters) * target.vrfRegisterBytes;
  if (spec.vrfBytes() > vrfBytes)
    return 0;
  int64_t perChannel = 2 * (spec.inBytes() + spec.rawBytes() + spec.outBytes() +
                            spec.compactBytes());
  int64_t chunk =
      std::min<int64_t>({spec.planes, accBytes / perChannel,
                         kMaxDmaYZ / std::max<int64_t>(spec.ho, 1)});
  if (chunk < spec.planes) {
    int64_t align = static_cast<int64_t>(target.memory(Space::Dram).align);
    auto count = [&](int64_t bytes) { return align / std::gcd(align, bytes); };
    const ElementFormat &f = spec.format;
    int64_t step = std::lcm(count(spec.h * f.rowBytes(spec.w)),
                            count(spec.ho * f.rowBytes(spec.wo)));
    chunk = chunk / step * step;
  }
  return std::max<int64_t>(chunk, 0);
}

template <typename PoolOp, bool IsMax>
LogicalResult checkWindowPool(Operation *operation, const TargetDesc &target,
                              std::string &reason) {
  auto op = cast<PoolOp>(operation);
  if constexpr (IsMax) {
    if (llvm::any_of(op.getDilations(), [](int64_t d) { return d != 1; })) {
      reason = "dilated max_pool is not lowered to the card";
      return failure();
    }
  }
  std::optional<WindowPoolSpec> spec = getWindowPool(op, IsMax, reason);
  if (!spec)
    return failure();
  if constexpr (!IsMax)
    spec->includePad = op.getCountIncludePad();
  if (spec->compactBytes() % 4 != 0) {
    reason = "the strided " + std::to_string(spec->ho) + "x" +
             std::to_string(spec->wo) +
             " output planes of this 2-byte pool would start at unaligned "
             "accumulator addresses";
    return failure();
  }
  if (windowChunk(target, *spec) < 1) {
    reason = "a chunk of channel planes that keeps DRAM bases aligned does "
             "not fit the on-chip memories";
    return failure();
  }
  return success();
}

/// Accumulates every window position of `in` (a block of `rows` vector
/// rows, f32) into `out` with `opcode` (v.max / v.add), in row-major order.
void emitWindows(ProgramEmitter &emitter, Opcode opcode,
                 const WindowPoolSpec &spec, const Operand2D &in,
                 const Operand2D &out, int64_t rows) {
  auto window = [&](int64_t t) {
    int64_t di = t / spec.kw, dj = t % spec.kw;
    return in.at(0, di * spec.wp() + dj);
  };
  int64_t taps = spec.kh * spec.kw, cols = spec.cols();
  if (taps == 1) {
    emitUnary(emitter, Opcode::VMov, out, window(0), rows, cols);
    return;
  }
  emitBinary(emitter, opcode, out, window(0), window(1), Bcast::None, rows,
             cols);
  for (int64_t t = 2; t < taps; ++t)
    emitBinary(emitter, opcode, out, out, window(t), Bcast::None, rows, cols);
}

template <typename PoolOp, bool IsMax>
LogicalResult emitWindowPool(Operation *operation, KernelContext &context) {
  auto op = cast<PoolOp>(operation);
  std::string reason;
  std::optional<WindowPoolSpec> found = getWindowPool(op, IsMax, reason);
  if (!found)
    return op.emitOpError() << "cannot run on the card: " << reason;
  WindowPoolSpec spec = *found;
  if constexpr (!IsMax)
    spec.includePad = op.getCountIncludePad();
  ProgramEmitter &emitter = context.emitter;
  const int64_t chunk = windowChunk(context.target, spec);
  const int64_t rowsPerPlane = spec.rowsPerPlane(), cols = spec.cols();
  const int64_t s = spec.stride, h = spec.h, w = spec.w, ho = spec.ho,
                wo = spec.wo, wp = spec.wp();
  const uint64_t input = context.addressOf(op.getInput());
  const uint64_t output = context.addressOf(op.getResult());
  const ElementFormat format = spec.format;
  const Opcode reduce = IsMax ? Opcode::VMax : Opcode::VAdd;

  // VRF: one padded plane of 0 / -inf (max: the border mask) or 0 / 1 (avg
  // without count_include_pad: the ones plane), then 1 / count per output.
  const Operand2D plane = denseOperand(Space::Vrf, 0, wp);
  const Operand2D inverse{Space::Vrf, alignUp(spec.inBytes(), 64), spec.pitch(),
                          kF32Format};
  bool mask = IsMax && spec.padded();
  bool counts = !IsMax && !spec.includePad;
  if (mask || counts) {
    emitFill(emitter, plane, spec.hp(), wp,
             mask ? -std::numeric_limits<float>::infinity() : 0.0f);
    emitFill(emitter, plane.at(spec.pt, spec.pl), h, w, mask ? 0.0f : 1.0f);
  }
  if (counts) {
    // Real positions per window: the same window sums over the ones plane.
    emitWindows(emitter, Opcode::VAdd, spec, plane.withPitch(s * wp * kF32),
                inverse, ho);
    emitUnary(emitter, Opcode::VRecip, inverse, inverse, ho, cols);
  }

  const uint64_t slotIn = alignUp(chunk * spec.inBytes(), 64);
  const uint64_t slotOut = alignUp(chunk * spec.outBytes(), 64);
  const uint64_t slotCompact = alignUp(chunk * spec.compactBytes(), 64);
  const uint64_t slotRaw = alignUp(chunk * spec.rawBytes(), 64);
  const uint64_t slotBytes = slotIn + slotOut + slotCompact + slotRaw;
  for (int64_t p0 = 0, index = 0; p0 < spec.planes; p0 += chunk, ++index) {
    int64_t cc = std::min(chunk, spec.planes - p0);
    uint64_t base = uint64_t(index % 2) * slotBytes;
    // The chunk's padded planes in f32, one vector row per `s` padded rows
    // (`in`) or per channel plane (`planes`).
    const Operand2D in{Space::Acc, base, s * wp * kF32, kF32Format};
    const Operand2D planes = in.withPitch(spec.inBytes());
    const Operand2D out{Space::Acc, base + slotIn, spec.pitch(), kF32Format};
    const Operand2D compact{Space::Acc, base + slotIn + slotOut,
                            spec.compactPitch(), format};
    // f16/bf16 planes are loaded as they are, then widened into `in`.
    const Operand2D loaded =
        spec.narrow()
            ? Operand2D{Space::Acc, base + slotIn + slotOut + slotCompact,
                        spec.hp() * format.rowBytes(wp), format}
            : planes;

    DmaLoad load;
    load.dst = loaded.ref();
    load.src = {Space::Dram, input + uint64_t(p0 * h * format.rowBytes(w))};
    load.format = format;
    load.x = w;
    load.y = h;
    load.z = cc;
    load.sz = h * format.rowBytes(w);
    load.pt = spec.pt;
    load.pb = spec.pb;
    load.pl = spec.pl;
    load.pr = spec.pr;
    emitLoad(emitter, load);
    if (spec.narrow())
      emitUnary(emitter, Opcode::VCvt, planes, loaded, cc, spec.hp() * wp);
    if (mask)
      // The mask is broadcast to every channel plane.
      emitBinary(emitter, Opcode::VAdd, planes, planes,
                 plane.withPitch(spec.inBytes()), Bcast::Row, cc,
                 spec.hp() * wp);

    // Vector row q = channel * rowsPerPlane + output row; the last channel
    // stops at its last valid row so no window reads past the chunk.
    int64_t rows = (cc - 1) * rowsPerPlane + ho;
    emitWindows(emitter, reduce, spec, in, out, rows);
    for (int64_t p = 0; p < cc; ++p) {
      const Operand2D from = out.at(p * rowsPerPlane), to = compact.at(p * ho);
      if (IsMax)
        emitCopy(emitter, to, from, ho, cols);
      else if (spec.includePad)
        emitScalar(emitter, Opcode::VsMul, to, from,
                   1.0f / float(spec.kh * spec.kw), ho, cols);
      else
        emitBinary(emitter, Opcode::VMul, to, from, inverse, Bcast::None, ho,
                   cols);
    }
    // Every stride-th column; output rows are contiguous in DRAM.
    DmaStore store;
    store.dst = {Space::Dram, output + uint64_t(p0 * ho * format.rowBytes(wo))};
    store.src = compact.ref();
    store.format = format;
    if (s == 1) {
      store.x = wo;
      store.y = ho;
      store.z = cc;
      store.dz = ho * format.rowBytes(wo);
      store.spitch = spec.compactPitch();
    } else {
      store.x = 1;
      store.y = wo;
      store.z = cc * ho;
      store.dz = format.rowBytes(wo);
      store.spitch = format.rowBytes(s);
    }
    emitStore(emitter, store);
  }
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::attachPoolKernels(MLIRContext *context) {
  attachCardKernel<CardKernelModel<checkGlobalAvgPool, emitGlobalAvgPool>,
                   GlobalAvgPoolOp>(context);
  attachCardKernel<CardKernelModel<checkWindowPool<MaxPoolOp, true>,
                                   emitWindowPool<MaxPoolOp, true>>,
                   MaxPoolOp>(context);
  attachCardKernel<CardKernelModel<checkWindowPool<AvgPoolOp, false>,
                                   emitWindowPool<AvgPoolOp, false>>,
                   AvgPoolOp>(context);
}
