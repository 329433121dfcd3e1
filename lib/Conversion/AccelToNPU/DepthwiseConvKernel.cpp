//===- DepthwiseConvKernel.cpp - depthwise convolutions on the MFUs -------===//
//
// See ConvKernels.cpp for how accel.conv picks this kernel and
// ConvKernelSupport.h for its spec.
//
//===----------------------------------------------------------------------===//

#include "ConvKernelSupport.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::npu_lowering;
using namespace mlir::nnaccel::npu_lowering::conv;

namespace mlir::nnaccel::npu_lowering::conv {
namespace {

/// Per-channel footprints (bytes) of the on-chip buffers.
struct DepthwiseSizes {
  int64_t in;      // padded input plane (f32)
  int64_t raw;     // f16/bf16: the padded plane as loaded, later the result
  int64_t out;     // accumulator (with garbage rows/columns)
  int64_t compact; // stride 2: output rows without the garbage row
  int64_t wexp;    // stride 2: expanded weights per tap + bias, per row
};

DepthwiseSizes depthwiseSizes(const DepthwiseSpec &spec) {
  DepthwiseSizes sizes;
  int64_t h = spec.h, w = spec.w;
  sizes.in = spec.paddedPlane() * kF32;
  // The narrow result (stride 1: h rows of pitch w + 2; stride 2: ho rows
  // of w) is smaller than the narrow padded plane, so it reuses that slot.
  sizes.raw = spec.narrow() ? spec.format.rowBytes(spec.paddedPlane()) : 0;
  if (spec.stride == 1) {
    sizes.out = h * spec.paddedRow() * kF32;
    sizes.compact = 0;
    sizes.wexp = 0;
  } else {
    sizes.out = spec.rowsPerChannel() * w * kF32;
    sizes.compact = spec.ho() * w * kF32;
    sizes.wexp = (spec.taps() + 1) * spec.rowsPerChannel() * kF32;
  }
  return sizes;
}

/// Temporaries the dot-product tree of emitTaps needs (besides `out`).
constexpr int kMaxTapTemps = 4;
int64_t tapTemps(int64_t taps) { return taps <= 9 ? 2 : kMaxTapTemps; }

struct DepthwiseLayout {
  int64_t channelsPerChunk;
  // vrf: weights [C x taps], bias [C] (f32; f16/bf16: as loaded behind
  // them), then the per-chunk buffers.
  uint64_t weightBase = 0, biasBase = 0, weightRaw = 0, biasRaw = 0;
  Space tempSpace;
  uint64_t temp[kMaxTapTemps] = {}, wexp = 0; // single-buffered
  uint64_t in[2], raw[2], out[2], compact[2]; // acc, double-buffered
};

std::optional<DepthwiseLayout> depthwiseLayout(const TargetDesc &target,
                                               const DepthwiseSpec &spec,
                                               std::string &reason) {
  DepthwiseSizes sizes = depthwiseSizes(spec);
  int64_t vrfBytes = int64_t(target.vrfRegisters) * target.vrfRegisterBytes;
  int64_t accBytes = static_cast<int64_t>(target.memory(Space::Acc).bytes);
  const int64_t e = spec.format.elementBytes();
  const int64_t taps = spec.taps();
  int64_t fixed =
      alignUp(spec.c * taps * kF32, 64) + alignUp(spec.c * kF32, 64);
  if (spec.narrow())
    fixed += alignUp(spec.c * taps * e, 64) + alignUp(spec.c * e, 64);
  if (fixed > vrfBytes) {
    reason = "the weights of " + std::to_string(spec.c) +
             " channels do not fit the vector register file";
    return std::nullopt;
  }
  // Double-buffered per chunk in ACC: input planes, accumulator, compacted
  // rows; single-buffered: two temporaries and the expanded weights, in the
  // VRF if they fit there, else in ACC too.
  int64_t accPerChannel =
      2 * (sizes.in + sizes.raw + sizes.out + sizes.compact);
  int64_t tempPerChannel = tapTemps(spec.taps()) * sizes.out + sizes.wexp;
  int64_t withVrfTemps =
      std::min(accBytes / accPerChannel, (vrfBytes - fixed) / tempPerChannel);
  int64_t withAccTemps = accBytes / (accPerChannel + tempPerChannel);
  DepthwiseLayout layout;
  // Prefer the VRF for the temporaries (ACC keeps the double buffers) unless
  // that makes the chunks smaller.
  layout.tempSpace =
      std::min(withVrfTemps, spec.c) >= std::min(withAccTemps, spec.c)
          ? Space::Vrf
          : Space::Acc;
  int64_t channels = std::min<int64_t>(
      {std::max(withVrfTemps, withAccTemps), spec.c, kMaxDmaYZ});
  if (channels < spec.c) {
    // Chunk bases in DRAM (input and output planes) must stay aligned.
    int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
    int64_t step = std::lcm(alignedCount(spec.h * spec.w * e, dramAlign),
                            alignedCount(spec.ho() * spec.wo() * e, dramAlign));
    channels = channels / step * step;
  }
  if (channels < 1) {
    reason = "a chunk of " + std::to_string(spec.h) + "x" +
             std::to_string(spec.w) +
             " channel planes that keeps DRAM bases aligned does not fit the "
             "on-chip memories (row tiling is not implemented)";
    return std::nullopt;
  }
  // Stride 2: the store reads c * Ho planes (DMA z).
  if (spec.stride == 2)
    channels = std::min(channels, std::max<int64_t>(1, kMaxDmaYZ / spec.ho()));
  layout.channelsPerChunk = channels;
  layout.weightBase = 0;
  layout.biasBase = alignUp(spec.c * taps * kF32, 64);
  layout.weightRaw = layout.biasBase + alignUp(spec.c * kF32, 64);
  layout.biasRaw = layout.weightRaw + alignUp(spec.c * taps * e, 64);
  uint64_t accTop = 0;
  for (int s = 0; s < 2; ++s) {
    layout.in[s] = accTop;
    accTop += alignUp(channels * sizes.in, 64);
    layout.raw[s] = accTop;
    accTop += alignUp(channels * sizes.raw, 64);
    layout.out[s] = accTop;
    accTop += alignUp(channels * sizes.out, 64);
    layout.compact[s] = accTop;
    accTop += alignUp(channels * sizes.compact, 64);
  }
  uint64_t tempTop = layout.tempSpace == Space::Vrf ? uint64_t(fixed) : accTop;
  for (int64_t i = 0; i < tapTemps(spec.taps()); ++i) {
    uint64_t &temp = layout.temp[i];
    temp = tempTop;
    tempTop += alignUp(channels * sizes.out, 64);
  }
  layout.wexp = tempTop;
  return layout;
}

/// Accumulates the `taps` tap products into `out` in the order of numerics
/// dotF32 (16 lanes; lane l sums products l, l + 16, ... in order; the
/// lanes are reduced by the tree 8, 4, 2, 1), so the card and the host
/// agree bit for bit. For 3x3:
///   ((p0 + p8) + p4) + (p2 + p6)  +  ((p1 + p5) + (p3 + p7)).
/// `tap(t)` gives the window and the weight column of tap t. The first
/// product of each partial sum is written to its buffer, the others are
/// forwarded through the chain into the add that accumulates them; a
/// subtree of one product is accumulated directly, others go through the
/// temporaries (one per tree level, at most tapTemps(taps)).
void emitTaps(ProgramEmitter &emitter, int64_t taps,
              const std::function<std::pair<Operand2D, Operand2D>(int)> &tap,
              const Operand2D &out, const Operand2D (&temp)[kMaxTapTemps],
              int64_t rows, int64_t cols) {
  constexpr int64_t kLanes = 16;
  auto product = [&](const Operand2D &dst, int64_t t) {
    auto [window, weight] = tap(t);
    emitBinary(emitter, Opcode::VMul, dst, window, weight, Bcast::Col, rows,
               cols);
  };
  // dst = p_t + dst.
  auto accumulate = [&](const Operand2D &dst, int64_t t) {
    auto [window, weight] = tap(t);
    emitBinary(emitter, Opcode::VMul, chainOperand(cols), window, weight,
               Bcast::Col, rows, cols);
    emitBinary(emitter, Opcode::VAdd, dst, chainOperand(cols), dst, Bcast::None,
               rows, cols);
  };
  // Products in the subtree of lane l at level w (lanes l, l + w, ...).
  auto count = [&](int64_t l, int64_t w) {
    int64_t n = 0;
    for (int64_t lane = l; lane < kLanes; lane += w)
      n += lane < taps ? (taps - lane + kLanes - 1) / kLanes : 0;
    return n;
  };
  auto buffer = [&](int depth) { return depth == 0 ? out : temp[depth - 1]; };
  // Writes the value of lane l after the reduction step of width w (w =
  // 16: the lane's own sum) to buffer(depth).
  std::function<void(int64_t, int64_t, int)> node = [&](int64_t l, int64_t w,
                                                        int depth) {
    const Operand2D dst = buffer(depth);
    if (w == kLanes) {
      product(dst, l);
      for (int64_t t = l + kLanes; t < taps; t += kLanes)
        accumulate(dst, t);
      return;
    }
    node(l, 2 * w, depth);
    int64_t right = count(l + w, 2 * w);
    if (right == 0)
      return;
    if (right == 1) {
      accumulate(dst, l + w);
      return;
    }
    node(l + w, 2 * w, depth + 1);
    emitBinary(emitter, Opcode::VAdd, dst, dst, buffer(depth + 1), Bcast::None,
               rows, cols);
  };
  node(0, 1, 0);
}

} // namespace

bool canEmitDepthwise(const TargetDesc &target, const DepthwiseSpec &spec,
                      std::string &reason) {
  if (spec.quantized)
    return canEmitQuantizedDepthwise(target, spec, reason);
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  if (spec.h > kMaxDmaYZ || spec.paddedRow() > kMaxDmaYZ) {
    reason = "planes larger than 4095 rows or columns exceed the DMA counts";
    return false;
  }
  if (spec.stride == 1 && spec.paddedPlane() * kF32 > kMaxPitch) {
    reason = "a padded " + std::to_string(spec.h) + "x" +
             std::to_string(spec.w) +
             " plane exceeds the 64 KiB vector operand pitch (row tiling is "
             "not implemented)";
    return false;
  }
  if (spec.stride == 2 && (spec.h % 2 != 0 || spec.w % 2 != 0)) {
    reason = "stride-2 depthwise convolution is lowered for even plane sizes "
             "only";
    return false;
  }
  const int64_t e = spec.format.elementBytes();
  if (spec.narrow() && spec.paddedPlane() * kF32 > kMaxPitch) {
    reason = "a padded " + std::to_string(spec.h) + "x" +
             std::to_string(spec.w) +
             " f16/bf16 plane exceeds the 64 KiB pitch of its conversion";
    return false;
  }
  if (spec.batch > 1 &&
      ((spec.c * spec.h * spec.w * e) % dramAlign != 0 ||
       (spec.c * spec.ho() * spec.wo() * e) % dramAlign != 0)) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  return depthwiseLayout(target, spec, reason).has_value();
}

void emitDepthwise(ProgramEmitter &emitter, const TargetDesc &target,
                   const DepthwiseSpec &spec) {
  if (spec.quantized)
    return emitQuantizedDepthwise({&emitter}, target, spec);
  std::string unused;
  DepthwiseLayout layout = *depthwiseLayout(target, spec, unused);
  const int64_t c = spec.c, h = spec.h, w = spec.w, ho = spec.ho(),
                wo = spec.wo();
  const int64_t wp = spec.paddedRow(), pad = spec.pad(), k = spec.k,
                taps = spec.taps();
  const ElementFormat format = spec.format;
  const int64_t e = format.elementBytes();
  DepthwiseSizes sizes = depthwiseSizes(spec);

  // `count` parameters to `base` in f32 (narrow ones via `raw`).
  auto loadParams = [&](uint64_t base, uint64_t raw, uint64_t src,
                        int64_t count) {
    DmaLoad load;
    load.dst = {Space::Vrf, spec.narrow() ? raw : base};
    load.src = {Space::Dram, src};
    load.format = format;
    load.x = count;
    emitLoad(emitter, load);
    if (spec.narrow())
      emitCopy(emitter, denseOperand(Space::Vrf, base, count),
               denseOperand(Space::Vrf, raw, count, format), 1, count);
  };
  loadParams(layout.weightBase, layout.weightRaw, spec.weight, c * taps);
  if (spec.bias)
    loadParams(layout.biasBase, layout.biasRaw, *spec.bias, c);

  int64_t chunkIndex = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * h * w * e);
    uint64_t y = spec.output + uint64_t(image * c * ho * wo * e);
    for (int64_t c0 = 0; c0 < c; c0 += layout.channelsPerChunk, ++chunkIndex) {
      int64_t cc = std::min(layout.channelsPerChunk, c - c0);
      int slot = chunkIndex % 2;
      uint64_t in = layout.in[slot], raw = layout.raw[slot];
      // The chunk's planes with a zero border: cc x (h+2) x (w+2); narrow
      // ones are converted to f32 on chip (tap windows start at any
      // element, which only 4-byte elements keep aligned).
      DmaLoad load;
      load.dst = {Space::Acc, spec.narrow() ? raw : in};
      load.src = {Space::Dram, x + uint64_t(c0 * h * w * e)};
      load.format = format;
      load.x = w;
      load.y = h;
      load.z = cc;
      load.sz = h * w * e;
      load.pt = load.pb = load.pl = load.pr = pad;
      emitLoad(emitter, load);
      if (spec.narrow()) {
        const int64_t plane = spec.paddedPlane();
        if (plane * kF32 <= kMaxPitch)
          emitCopy(emitter, Operand2D{Space::Acc, in, sizes.in},
                   Operand2D{Space::Acc, raw, plane * e, format}, cc, plane);
        else
          for (int64_t p = 0; p < cc; ++p)
            emitCopy(
                emitter,
                Operand2D{Space::Acc, in + uint64_t(p * sizes.in), wp * kF32},
                Operand2D{Space::Acc, raw + uint64_t(p * plane * e), wp * e,
                          format},
                h + 2 * pad, wp);
      }
      // The f32 result `from` (rows x cols) in the output format: narrow
      // results are converted into the raw slot (row pitch `pitch`
      // elements), which the store then reads.
      auto result = [&](const Operand2D &from, int64_t rows, int64_t cols,
                        int64_t pitch) {
        if (!spec.narrow())
          return from;
        Operand2D to{Space::Acc, raw, pitch * e, format};
        emitCopy(emitter, to, from, rows, cols);
        return to;
      };

      if (spec.stride == 1) {
        // One vector row per channel; output element (i, j) at i*wp + j.
        int64_t cols = h * wp - 2 * pad;
        Operand2D out{Space::Acc, layout.out[slot], sizes.out};
        Operand2D temp[kMaxTapTemps];
        for (int i = 0; i < kMaxTapTemps; ++i)
          temp[i] = {layout.tempSpace, layout.temp[i], sizes.out};
        auto tap = [&](int t) {
          int64_t di = t / k, dj = t % k;
          Operand2D window{Space::Acc, in + uint64_t((di * wp + dj) * kF32),
                           sizes.in};
          Operand2D weight{Space::Vrf,
                           layout.weightBase + uint64_t((c0 * taps + t) * kF32),
                           taps * kF32};
          return std::make_pair(window, weight);
        };
        emitTaps(emitter, taps, tap, out, temp, cc, cols);
        if (spec.bias)
          emitBinary(emitter, Opcode::VAdd, out, out,
                     Operand2D{Space::Vrf,
                               layout.biasBase + uint64_t(c0 * kF32), kF32},
                     Bcast::Col, cc, cols);
        emitActivation(emitter, spec.activation, out, cc, cols);
        Operand2D stored = result(out, cc, cols, h * wp);
        DmaStore store;
        store.dst = {Space::Dram, y + uint64_t(c0 * h * w * e)};
        store.src = stored.ref();
        store.format = format;
        store.x = w;
        store.y = h;
        store.z = cc;
        store.dz = h * w * e;
        store.spitch = wp * e;
        emitStore(emitter, store);
        continue;
      }

      // Stride 2: vector row q = p * (ho + pad) + i (channel p, output row
      // i; i >= ho is garbage), full-width columns; the last garbage rows
      // are dropped so no window reads past the chunk.
      int64_t rowsPerChannel = spec.rowsPerChannel();
      int64_t rows = cc * rowsPerChannel - pad;
      Operand2D out{Space::Acc, layout.out[slot], w * kF32};
      Operand2D temp[kMaxTapTemps];
      for (int i = 0; i < kMaxTapTemps; ++i)
        temp[i] = {layout.tempSpace, layout.temp[i], w * kF32};
      // Expanded weights: block t (t < taps: tap, taps: bias) holds, for each
      // vector row, its channel's value.
      Operand2D wexp{layout.tempSpace, layout.wexp, rowsPerChannel * kF32};
      int64_t planes = spec.bias ? taps + 1 : taps;
      emitFill(emitter, wexp, planes * cc, rowsPerChannel);
      auto expanded = [&](int t) {
        return Operand2D{wexp.space,
                         wexp.addr + uint64_t(t * cc * rowsPerChannel * kF32),
                         rowsPerChannel * kF32};
      };
      for (int t = 0; t < planes; ++t) {
        Operand2D source =
            t < taps ? Operand2D{Space::Vrf,
                                 layout.weightBase +
                                     uint64_t((c0 * taps + t) * kF32),
                                 taps * kF32}
                     : Operand2D{Space::Vrf,
                                 layout.biasBase + uint64_t(c0 * kF32), kF32};
        Operand2D dst = expanded(t);
        emitBinary(emitter, Opcode::VAdd, dst, dst, source, Bcast::Col, cc,
                   rowsPerChannel);
      }
      auto tap = [&](int t) {
        int64_t di = t / k, dj = t % k;
        Operand2D window{Space::Acc, in + uint64_t((di * wp + dj) * kF32),
                         2 * wp * kF32};
        Operand2D weight = expanded(t);
        weight.pitch = kF32; // one value per vector row
        return std::make_pair(window, weight);
      };
      emitTaps(emitter, taps, tap, out, temp, rows, w);
      if (spec.bias) {
        Operand2D bias = expanded(taps);
        bias.pitch = kF32;
        emitBinary(emitter, Opcode::VAdd, out, out, bias, Bcast::Col, rows, w);
      }
      // Compact each channel's ho rows, applying the activation on the way
      // where one instruction can (clip: max on the way, min afterwards).
      Operand2D compact{Space::Acc, layout.compact[slot], w * kF32};
      const ActivationSpec &act = spec.activation;
      Opcode moveOp = Opcode::VMov;
      std::optional<float> moveImm;
      switch (act.kind) {
      case ActivationSpec::None:
        break;
      case ActivationSpec::Relu:
        moveOp = Opcode::VRelu;
        break;
      case ActivationSpec::Sigmoid:
        moveOp = Opcode::VSigm;
        break;
      case ActivationSpec::Tanh:
        moveOp = Opcode::VTanh;
        break;
      case ActivationSpec::Gelu:
        moveOp = Opcode::VGelu;
        break;
      case ActivationSpec::Clip:
        if (act.min) {
          moveOp = Opcode::VsMax;
          moveImm = *act.min;
        }
        break;
      }
      for (int64_t p = 0; p < cc; ++p) {
        Operand2D from{Space::Acc,
                       out.addr + uint64_t(p * rowsPerChannel * w * kF32),
                       w * kF32};
        Operand2D to{Space::Acc, compact.addr + uint64_t(p * ho * w * kF32),
                     w * kF32};
        if (moveImm)
          emitScalar(emitter, moveOp, to, from, *moveImm, ho, w);
        else
          emitUnary(emitter, moveOp, to, from, ho, w);
      }
      if (act.kind == ActivationSpec::Clip && act.max) {
        ActivationSpec upper;
        upper.kind = ActivationSpec::Clip;
        upper.max = act.max;
        emitActivation(emitter, upper, compact, cc * ho, w);
      }
      // Every other column: one element per DMA row, source pitch 2
      // elements; the plane of output row (p, i) is contiguous in DRAM.
      Operand2D stored = result(compact, cc * ho, w, w);
      DmaStore store;
      store.dst = {Space::Dram, y + uint64_t(c0 * ho * wo * e)};
      store.src = stored.ref();
      store.format = format;
      store.x = 1;
      store.y = wo;
      store.z = cc * ho;
      store.dz = wo * e;
      store.spitch = 2 * e;
      emitStore(emitter, store);
    }
  }
}

} // namespace mlir::nnaccel::npu_lowering::conv
