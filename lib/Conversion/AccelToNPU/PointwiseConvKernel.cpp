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
    return emitQuantizedPointwise({&emitter}, target, spec);
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
