//===- PointwiseConvKernel.cpp - 1x1 convolutions on the matrix unit ------===//
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

struct PointwiseLayout {
  int64_t tile;                     // N
  int64_t rowsPerChunk;             // filters per chunk (m of mm)
  uint64_t biasBase = 0, aBase = 0; // vrf
  uint64_t accSlot[2];
  int64_t mrfSlots;
  uint64_t mrfTileBytes;
};

std::optional<PointwiseLayout> pointwiseLayout(const TargetDesc &target,
                                               int64_t c, int64_t f, int64_t hw,
                                               bool hasBias,
                                               std::string &reason) {
  PointwiseLayout layout;
  layout.tile = target.nativeDim;
  uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  uint64_t vrfAlign = target.memory(Space::Vrf).align;
  uint64_t accAlign = target.memory(Space::Acc).align;
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  uint64_t biasBytes = hasBias ? alignUp(f * kF32, vrfAlign) : 0;
  layout.aBase = biasBytes;
  if (vrfBytes <= biasBytes) {
    reason = "the bias of " + std::to_string(f) +
             " filters does not fit the vector register file";
    return std::nullopt;
  }
  int64_t byVrf = static_cast<int64_t>((vrfBytes - biasBytes) / (c * kF32));
  int64_t byAcc = static_cast<int64_t>(target.memory(Space::Acc).bytes / 2 /
                                       alignUp(layout.tile * kF32, accAlign));
  int64_t rows = std::min<int64_t>({f, byVrf, byAcc, kMaxDmaYZ});
  if (rows < f) {
    // Every chunk's filter rows (weights) and output rows must start at an
    // aligned DRAM address.
    int64_t step = std::lcm(alignedCount(c * kF32, dramAlign),
                            alignedCount(hw * kF32, dramAlign));
    rows = rows / step * step;
  }
  if (rows < 1) {
    reason = "a chunk of filter rows of " + std::to_string(c) +
             " channels that keeps DRAM bases aligned does not fit the "
             "vector register file";
    return std::nullopt;
  }
  layout.rowsPerChunk = rows;
  uint64_t accBytes = alignUp(rows * layout.tile * kF32, accAlign);
  layout.accSlot[0] = 0;
  layout.accSlot[1] = accBytes;
  layout.mrfTileBytes = alignUp(layout.tile * layout.tile * kF32,
                                target.memory(Space::Mrf).align);
  layout.mrfSlots = static_cast<int64_t>(target.memory(Space::Mrf).bytes /
                                         layout.mrfTileBytes);
  if (layout.mrfSlots < 2) {
    reason = "the matrix register file holds fewer than two weight tiles";
    return std::nullopt;
  }
  return layout;
}

/// Channels per subsampling DMA of a strided pointwise conv (z = channels x
/// output rows): all of them when the planes' rows continue evenly from one
/// channel to the next (h = sh * ho), else one; rounded so every DMA starts
/// at an aligned DRAM address. 0 when that is impossible.
int64_t subsampleChannels(const TargetDesc &target, const PointwiseSpec &spec) {
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  int64_t step = alignedCount(spec.h * spec.w * kF32, dramAlign);
  int64_t channels =
      spec.h == spec.sh * spec.ho ? std::min(spec.c, kMaxDmaYZ / spec.ho) : 1;
  if (channels < spec.c)
    channels = channels / step * step;
  return channels;
}

//===----------------------------------------------------------------------===//
// Quantized (int8)
//===----------------------------------------------------------------------===//
//
// The matrix unit takes integer activations only as its `a` operand (with a
// zero point) and i8 weights as `w`, so an int8 pointwise conv runs the
// other way round from the f32 one: per image and chunk of mp pixels,
//   A = X^T[mp pixels x C] (u8/i8), one transposing DMA into the VRF
//       (one element per DMA row: rows = channels, planes = pixels);
//   W = the filter matrix [F x C] (i8), all of it resident in the MRF
//       (one DMA per K tile of N channels: F rows of that tile);
//   D[mp x nt] = A . W_j^T per tile j of N filters, exact i32; with one K
//       tile the mm is chained straight into the epilogue (bias, rescale),
//       else the K tiles accumulate in ACC;
// and the epilogue (emitConvEpilogue: per-column scales = per filter) writes
// the chunk's rows of [mp x F] in the result type, which one transposing
// store (one element per DMA row) puts back into the NCHW planes. DMA costs
// bytes, not rows, so the transposes are free; the bytes are a quarter of
// f32's.

struct QuantizedPointwiseLayout {
  int64_t tile = 0;         // N
  int64_t pixels = 0;       // mp: pixels per chunk
  int64_t kTiles = 0;       // K tiles of the channels
  bool chained = false;     // one K tile: mm chained into the epilogue
  uint64_t bias = 0;        // vrf: F values (i32 or f32)
  uint64_t scales = 0;      // vrf: F (or 1) scales + 1 / y_scale
  uint64_t x[2] = {0, 0};   // vrf: X^T chunks
  uint64_t sum[2] = {0, 0}; // acc: i32 sums of one filter tile
  uint64_t out[2] = {0, 0}; // acc: a chunk's [mp x F] result
  std::vector<uint64_t> w;  // mrf: F x kt block of each K tile
};

/// The chunk size: enough chunks that loading one, computing one and
/// storing one overlap, but not so many that the DMAs' latencies (one load
/// and one store per chunk) stop being hidden behind the matrix unit.
int64_t pointwiseChunkPixels(const TargetDesc &target,
                             const PointwiseSpec &spec, int64_t fit) {
  const int64_t tile = target.nativeDim, lanes = target.matrixLanes;
  int64_t kCycles = 0;
  for (int64_t c0 = 0; c0 < spec.c; c0 += tile)
    kCycles += (std::min(tile, spec.c - c0) + lanes - 1) / lanes;
  const int64_t fTiles = (spec.f + tile - 1) / tile;
  // Matrix unit and epilogue cycles per pixel.
  const int64_t perPixel = fTiles * (kCycles + 1);
  const int64_t latency =
      static_cast<int64_t>(target.memory(Space::Dram).latencyCycles);
  int64_t chunks =
      std::clamp<int64_t>(spec.hw * perPixel / (4 * latency), 1, 8);
  // Chunks start at aligned DRAM addresses in the 1-byte input planes (and
  // so in the output planes too).
  const int64_t align = int64_t(target.memory(Space::Dram).align);
  int64_t pixels = (spec.hw + chunks - 1) / chunks;
  pixels = int64_t(alignUp(uint64_t(pixels), uint64_t(align)));
  if (pixels >= spec.hw && fit >= spec.hw)
    return spec.hw;
  return std::min(pixels, fit / align * align);
}

std::optional<QuantizedPointwiseLayout>
quantizedPointwiseLayout(const TargetDesc &target, const PointwiseSpec &spec,
                         std::string &reason) {
  const ConvQuantization &quant = *spec.quantized;
  QuantizedPointwiseLayout l;
  l.tile = target.nativeDim;
  l.kTiles = (spec.c + l.tile - 1) / l.tile;
  const int64_t eo = quant.output.elementBytes();
  const int64_t vrfBytes =
      int64_t(target.vrfRegisters) * int64_t(target.vrfRegisterBytes);
  const int64_t accBytes =
      static_cast<int64_t>(target.memory(Space::Acc).bytes);
  // The sums stay in the chain when one K tile covers the channels and the
  // epilogue can read them from there (see emitConvEpilogue).
  l.chained = l.kTiles == 1 && (quant.rescale || !quant.quantizedOutput());
  l.bias = 0;
  l.scales = alignUp(uint64_t(spec.f) * kF32, 64);
  uint64_t vrfFixed = l.scales + alignUp(convScaleBytes(quant), 64);
  // The weights, resident: one F x kt block per K tile.
  uint64_t mrf = 0;
  for (int64_t t = 0; t < l.kTiles; ++t) {
    l.w.push_back(mrf);
    int64_t kt = std::min(l.tile, spec.c - t * l.tile);
    mrf += alignUp(uint64_t(spec.f * kt), target.memory(Space::Mrf).align);
  }
  if (mrf > target.memory(Space::Mrf).bytes) {
    reason = "the " + std::to_string(spec.f) + " x " + std::to_string(spec.c) +
             " int8 filter matrix does not fit the matrix register file";
    return std::nullopt;
  }
  if (int64_t(vrfFixed) >= vrfBytes) {
    reason = "the bias and scales of " + std::to_string(spec.f) +
             " filters do not fit the vector register file";
    return std::nullopt;
  }
  // Per pixel: two X^T rows (VRF); two sum rows of N and two result rows of
  // F (ACC).
  int64_t byVrf = (vrfBytes - int64_t(vrfFixed)) / (2 * spec.c);
  int64_t perPixelAcc = 2 * spec.f * eo + (l.chained ? 0 : 2 * l.tile * 4);
  int64_t byAcc = accBytes / perPixelAcc;
  int64_t fit = std::min<int64_t>({byVrf, byAcc, kMaxDmaYZ});
  l.pixels = pointwiseChunkPixels(target, spec, fit);
  if (l.pixels < 1) {
    reason = "a chunk of pixels of " + std::to_string(spec.c) +
             " channels and " + std::to_string(spec.f) +
             " filters that keeps DRAM bases aligned does not fit the "
             "on-chip memories";
    return std::nullopt;
  }
  uint64_t xBytes = alignUp(uint64_t(l.pixels * spec.c), 64);
  l.x[0] = vrfFixed;
  l.x[1] = vrfFixed + xBytes;
  uint64_t outBytes = alignUp(uint64_t(l.pixels * spec.f * eo), 64);
  uint64_t sumBytes =
      l.chained ? 0 : alignUp(uint64_t(l.pixels * l.tile * 4), 64);
  l.out[0] = 0;
  l.out[1] = outBytes;
  l.sum[0] = 2 * outBytes;
  l.sum[1] = 2 * outBytes + sumBytes;
  return l;
}

bool canEmitQuantizedPointwise(const TargetDesc &target,
                               const PointwiseSpec &spec, std::string &reason) {
  const ConvQuantization &quant = *spec.quantized;
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  if (spec.strided()) {
    reason = "an int8 1x1 convolution is lowered with stride 1 only";
    return false;
  }
  if (!target.macsPerCycle.count(DType::I8) || target.mfuCount < 2) {
    reason = "the target's matrix unit has no i8 mode (or fewer than two "
             "MFUs)";
    return false;
  }
  const int64_t eo = quant.output.elementBytes();
  if (spec.c > kMaxDmaYZ || spec.f > kMaxDmaYZ || spec.c > kMaxPitch ||
      spec.f * eo > kMaxPitch) {
    reason = "more than 4095 channels or filters exceed the DMA counts";
    return false;
  }
  if (spec.batch > 1 && ((spec.c * spec.hw) % dramAlign != 0 ||
                         (spec.f * spec.hw * eo) % dramAlign != 0)) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  return quantizedPointwiseLayout(target, spec, reason).has_value();
}

void emitQuantizedPointwise(ProgramEmitter &emitter, const TargetDesc &target,
                            const PointwiseSpec &spec) {
  std::string unused;
  const QuantizedPointwiseLayout l =
      *quantizedPointwiseLayout(target, spec, unused);
  const ConvQuantization &quant = *spec.quantized;
  const ElementFormat in = quant.input, out = quant.output;
  const int64_t eo = out.elementBytes();
  const int64_t tile = l.tile, c = spec.c, f = spec.f, hw = spec.hw;
  const ElementFormat weightFormat{DType::I8};

  // The weights (each K tile's F x kt block in one DMA) and the bias
  // first, then the scales (fills, which run while the loads are in
  // flight).
  for (int64_t t = 0; t < l.kTiles; ++t) {
    int64_t kt = std::min(tile, c - t * tile);
    DmaLoad load;
    load.dst = {Space::Mrf, l.w[t]};
    load.src = {Space::Dram, spec.weight + uint64_t(t * tile)};
    load.format = weightFormat;
    load.x = kt;
    load.y = f;
    load.sy = c;
    emitLoad(emitter, load);
  }
  std::optional<Operand2D> bias;
  if (spec.bias) {
    DmaLoad load;
    load.dst = {Space::Vrf, l.bias};
    load.src = {Space::Dram, *spec.bias};
    load.format = quant.bias;
    load.x = f;
    emitLoad(emitter, load);
    bias = denseOperand(Space::Vrf, l.bias, f, quant.bias);
  }
  auto loadChunk = [&](int64_t image, int64_t p0, int64_t slot) {
    int64_t np = std::min(l.pixels, hw - p0);
    DmaLoad load;
    load.dst = {Space::Vrf, l.x[slot]};
    load.src = {Space::Dram, spec.input + uint64_t(image * c * hw + p0)};
    load.format = in;
    load.x = 1;
    load.y = c;
    load.z = np;
    load.sy = hw;
    load.sz = 1;
    load.dpitch = 1;
    emitLoad(emitter, load);
  };
  const int64_t chunks = (hw + l.pixels - 1) / l.pixels;
  loadChunk(0, 0, 0);
  const Operand2D scales = Operand2D{Space::Vrf, l.scales, 0, kF32Format};
  const Operand2D outputScale =
      emitConvScaleFills(emitter, quant, Space::Vrf, l.scales);

  int64_t index = 0, sumIndex = 0;
  for (int64_t image = 0; image < spec.batch; ++image)
    for (int64_t chunk = 0; chunk < chunks; ++chunk, ++index) {
      const int64_t p0 = chunk * l.pixels, np = std::min(l.pixels, hw - p0);
      const int slot = index % 2;
      // The next chunk's load goes ahead of this chunk's products.
      if (chunk + 1 < chunks)
        loadChunk(image, p0 + l.pixels, (index + 1) % 2);
      else if (image + 1 < spec.batch)
        loadChunk(image + 1, 0, (index + 1) % 2);
      const Operand2D result{Space::Acc, l.out[slot], f * eo, out};
      for (int64_t j = 0; j * tile < f; ++j) {
        const int64_t f0 = j * tile, nt = std::min(tile, f - f0);
        Operand2D sum = l.chained
                            ? chainOperand(nt, kI32Format)
                            : denseOperand(Space::Acc, l.sum[sumIndex++ % 2],
                                           nt, kI32Format);
        for (int64_t t = 0; t < l.kTiles; ++t) {
          const int64_t kt = std::min(tile, c - t * tile);
          emitMm(emitter, sum,
                 Operand2D{Space::Vrf, l.x[slot] + uint64_t(t * tile), c, in},
                 denseOperand(Space::Mrf, l.w[t] + uint64_t(f0 * kt), kt,
                              weightFormat),
                 np, kt, nt, /*accumulate=*/t > 0, quant.inputZeroPoint);
        }
        std::optional<Operand2D> tileBias;
        if (bias)
          tileBias = bias->at(0, f0);
        emitConvEpilogue(emitter, quant, spec.activation, sum, tileBias,
                         quant.perChannel() ? scales.at(0, f0) : scales,
                         outputScale, result.at(0, f0), np, nt);
      }
      // Pixel p, filter r of the chunk -> plane r, element p.
      DmaStore store;
      store.dst = {Space::Dram,
                   spec.output + uint64_t((image * f * hw + p0) * eo)};
      store.src = result.ref();
      store.format = out;
      store.x = 1;
      store.y = f;
      store.z = np;
      store.dy = hw * eo;
      store.dz = eo;
      store.spitch = eo;
      emitStore(emitter, store);
    }
}

} // namespace

bool canEmitPointwise(const TargetDesc &target, const PointwiseSpec &spec,
                      std::string &reason) {
  if (spec.quantized)
    return canEmitQuantizedPointwise(target, spec, reason);
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  if (spec.c * kF32 > kMaxPitch || spec.hw * kF32 > 0xFFFFFFFFll) {
    reason = "rows of " + std::to_string(spec.c) +
             " input channels exceed the 64 KiB operand pitch";
    return false;
  }
  if (spec.batch > 1 && ((spec.c * spec.hw * kF32) % dramAlign != 0 ||
                         (spec.f * spec.hw * kF32) % dramAlign != 0 ||
                         (spec.c * spec.h * spec.w * kF32) % dramAlign != 0)) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  if (spec.strided()) {
    if (uint64_t(spec.c * spec.hw * kF32) >
        target.memory(Space::Shared).bytes) {
      reason = "the subsampled input of a strided 1x1 convolution does not "
               "fit the shared memory";
      return false;
    }
    if (spec.wo > kMaxDmaYZ || spec.ho > kMaxDmaYZ ||
        subsampleChannels(target, spec) < 1) {
      reason = "the subsampling DMAs of a strided 1x1 convolution would "
               "exceed the DMA counts or start at unaligned DRAM addresses";
      return false;
    }
  }
  return pointwiseLayout(target, spec.c, spec.f, spec.hw, spec.bias.has_value(),
                         reason)
      .has_value();
}

void emitPointwise(ProgramEmitter &emitter, const TargetDesc &target,
                   const PointwiseSpec &spec) {
  if (spec.quantized)
    return emitQuantizedPointwise(emitter, target, spec);
  std::string unused;
  PointwiseLayout layout = *pointwiseLayout(target, spec.c, spec.f, spec.hw,
                                            spec.bias.has_value(), unused);
  const int64_t tile = layout.tile, hw = spec.hw, c = spec.c, f = spec.f;
  const int64_t kTiles = (c + tile - 1) / tile;
  const int64_t pTiles = (hw + tile - 1) / tile;

  if (spec.bias) {
    DmaLoad bias;
    bias.dst = {Space::Vrf, layout.biasBase};
    bias.src = {Space::Dram, *spec.bias};
    bias.x = f;
    emitLoad(emitter, bias);
  }

  int64_t outputTile = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * spec.h * spec.w * kF32);
    uint64_t y = spec.output + uint64_t(image * f * hw * kF32);
    Space xSpace = Space::Dram;
    if (spec.strided()) {
      // Every sw-th element of every sh-th row, one element per DMA row,
      // densely into SHARED (the X^T tile loads below need a DMA source;
      // gathering the odd elements straight from DRAM would start at
      // unaligned addresses). The ld queue runs in order, so the next
      // image's subsampling waits for this image's tile loads by itself.
      const int64_t chunk = subsampleChannels(target, spec);
      for (int64_t c0 = 0; c0 < c; c0 += chunk) {
        int64_t cc = std::min(chunk, c - c0);
        DmaLoad load;
        load.dst = {Space::Shared, spec.shared + uint64_t(c0 * hw * kF32)};
        load.src = {Space::Dram, x + uint64_t(c0 * spec.h * spec.w * kF32)};
        load.x = 1;
        load.y = spec.wo;
        load.z = cc * spec.ho;
        load.sy = spec.sw * kF32;
        load.sz = spec.sh * spec.w * kF32;
        emitLoad(emitter, load);
      }
      x = spec.shared;
      xSpace = Space::Shared;
    }
    // MRF slot -> the X^T tile (pixel tile * kTiles + k tile) it holds; a
    // tile already resident is not loaded again for the next filter chunk.
    // When the image's tiles do not all fit, two slots alternate: a reload
    // then waits for a recent mm (a slot reused many tiles later would leave
    // ex -> ld tokens outstanding past the FIFO depth: deadlock).
    const int64_t slots =
        pTiles * kTiles <= layout.mrfSlots ? layout.mrfSlots : 2;
    std::vector<int64_t> resident(slots, -1);
    for (int64_t f0 = 0; f0 < f; f0 += layout.rowsPerChunk) {
      int64_t fc = std::min(layout.rowsPerChunk, f - f0);
      // A = Wc[f0 : f0 + fc, :], resident for the whole chunk.
      DmaLoad loadA;
      loadA.dst = {Space::Vrf, layout.aBase};
      loadA.src = {Space::Dram, spec.weight + uint64_t(f0 * c * kF32)};
      loadA.x = c;
      loadA.y = fc;
      emitLoad(emitter, loadA);
      for (int64_t p = 0; p < pTiles; ++p, ++outputTile) {
        int64_t p0 = p * tile, nt = std::min(tile, hw - p0);
        const Operand2D acc =
            denseOperand(Space::Acc, layout.accSlot[outputTile % 2], nt);
        for (int64_t t = 0; t < kTiles; ++t) {
          int64_t c0 = t * tile, kt = std::min(tile, c - c0);
          int64_t tileId = p * kTiles + t;
          int64_t slot = tileId % slots;
          uint64_t w = uint64_t(slot) * layout.mrfTileBytes;
          if (resident[slot] != tileId) {
            // X^T tile: plane = pixel (sz = 4), rows = channels (sy = HW),
            // one element per row: nt rows of kt channels.
            DmaLoad load;
            load.dst = {Space::Mrf, w};
            load.src = {xSpace, x + uint64_t((c0 * hw + p0) * kF32)};
            load.x = 1;
            load.y = kt;
            load.z = nt;
            load.sy = hw * kF32;
            load.sz = kF32;
            emitLoad(emitter, load);
            resident[slot] = tileId;
          }
          emitMm(emitter, acc,
                 Operand2D{Space::Vrf, layout.aBase + uint64_t(c0 * kF32),
                           c * kF32},
                 denseOperand(Space::Mrf, w, kt), fc, kt, nt, t > 0);
        }
        if (spec.bias)
          emitBinary(emitter, Opcode::VAdd, acc, acc,
                     Operand2D{Space::Vrf,
                               layout.biasBase + uint64_t(f0 * kF32), kF32},
                     Bcast::Col, fc, nt);
        emitActivation(emitter, spec.activation, acc, fc, nt);
        DmaStore store;
        store.dst = {Space::Dram, y + uint64_t((f0 * hw + p0) * kF32)};
        store.src = acc.ref();
        store.x = nt;
        store.y = fc;
        store.dy = hw * kF32;
        store.spitch = acc.pitch;
        emitStore(emitter, store);
      }
    }
  }
}

} // namespace mlir::nnaccel::npu_lowering::conv
