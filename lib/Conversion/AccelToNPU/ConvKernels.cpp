//===- ConvKernels.cpp - 2-D convolutions on the matrix unit and MFUs -----===//
//
// accel.conv kernels for the two convolution shapes that make up
// MobileNet-style networks (f32, NCHW, any batch):
//
// * Pointwise (1x1, stride 1, no padding, groups 1): per image
//   Y[F, HW] = Wc[F, C] . X[C, HW]. The matrix unit streams rows of the
//   filter matrix (A = Wc chunk, resident in the VRF) through a weight tile
//   that is the transpose of an X tile (n = N pixels x k = N channels),
//   which the DMA engine transposes on the fly (x = 1: every "row" is one
//   element, planes step one pixel). The result D[F chunk, pixel tile] is
//   already NCHW rows, so it is stored with a row pitch of HW. The bias is
//   per output channel, i.e. per row of D (bcast = col).
//
// * Depthwise 3x3 (groups = C = F), pads 1, stride 1 or 2. The DMA engine
//   loads a chunk of channel planes with a one-element zero border (DMA
//   padding) into ACC. Each tap is then one vector multiply of a shifted
//   window by a per-channel weight (bcast = col) over the whole chunk, and
//   the 9 products are summed in exactly the order of the device dot
//   product (numerics dotF32: 16 lanes, tree reduction), so the card and the
//   host fallback agree bit for bit.
//     stride 1: one vector row per channel (the padded plane flattened);
//       the output keeps the padded row pitch W+2 (two garbage columns per
//       row that the store skips).
//     stride 2: one vector row per (channel, output row); a row pitch of two
//       padded input rows does the vertical subsampling, the per-channel
//       weights are first expanded to one value per vector row, each
//       channel gets one garbage row (the planes have H+2 rows), a per
//       channel move compacts the rows (fusing the activation where it can),
//       and the store picks every other column (x = 1, source pitch 2
//       elements).
//
// * Dense 3x3 (groups 1), pads 1, stride 1 or 2, with few channels x
//   filters (a network's stem: 3 -> 16): all padded input planes of an
//   image in ACC, then per filter one output plane accumulated from a
//   multiply by a scalar weight (bcast = scalar) per (channel, tap), chained
//   into the add; stride 2 as above (row pitch of two padded rows, store of
//   every other column). Sequential sums: equal to the host to rounding.
//
// DRAM operand bases must be 64-byte aligned, which rules out DMA gathers
// that start at an odd element (im2col, tap-shifted windows, stride-2
// column phases); everything that needs an element offset is therefore done
// on chip (VRF/ACC operands only need 4-byte alignment), and chunk sizes are
// rounded so every chunk's DRAM base stays aligned. Everything else (other
// kernel sizes, dense 3x3 with many channels, other groupings, dilations,
// 1-D/3-D, non-f32) is refused with a reason and runs on the host.
//
//===----------------------------------------------------------------------===//

#include "FusedActivation.h"
#include "KernelRegistry.h"
#include "KernelUtils.h"
#include "Kernels.h"

#include "Accel/AccelOps.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::DType;
using ::nnaccel::isa::Instruction;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {
constexpr int64_t kMaxPitch = 0xFFFF; // 16-bit byte pitches of mm/vector ops
constexpr int64_t kMaxDmaYZ = 4095;   // 12-bit DMA y/z counts

//===----------------------------------------------------------------------===//
// Instruction helpers
//===----------------------------------------------------------------------===//

/// Smallest count c such that c * bytes is a multiple of `align`.
int64_t alignedCount(int64_t bytes, int64_t align) {
  return align / std::gcd(align, bytes);
}

MemRegion region(Space space, uint64_t begin, uint64_t bytes) {
  return {space, begin, begin + bytes};
}

/// A 2-D block operand of a vector instruction: base and row pitch.
struct Block {
  Space space;
  uint64_t addr;
  int64_t pitch;
};

/// The byte range a rows x cols f32 block touches.
MemRegion footprint(const Block &block, int64_t rows, int64_t cols) {
  return region(block.space, block.addr,
                uint64_t((rows - 1) * block.pitch + cols * kF32));
}

/// Emits a binary vector op dst = a op b on rows x cols f32 elements; `b`
/// is a full block, a column (one element per row: bcast = col) or a row.
/// `a` may be the chain (then `aRegion` is ignored); `chainOut` forwards the
/// result instead of writing it.
///
/// A chain runs as one unit and only its last member may push tokens, so the
/// consumer of a chain also declares its producer's reads (`chainedReads`):
/// a later writer of those buffers then waits for the chain's last member.
void emitBinary(ProgramEmitter &emitter, Opcode opcode,
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
std::vector<MemRegion> operandReads(const Block &a, const Block &b, Bcast bcast,
                                    int64_t rows, int64_t cols) {
  int64_t bRows = bcast == Bcast::Row || bcast == Bcast::Scalar ? 1 : rows;
  int64_t bCols = bcast == Bcast::Col || bcast == Bcast::Scalar ? 1 : cols;
  return {footprint(a, rows, cols), footprint(b, bRows, bCols)};
}

/// Applies `act` to a rows x cols block in place.
void emitActivation(ProgramEmitter &emitter, const ActivationSpec &act,
                    const Block &block, int64_t rows, int64_t cols) {
  emitActivationInPlace(emitter, act, block.space, block.addr, block.pitch,
                        rows, cols);
}

/// A DMA load of a z x y x x box (f32) with optional zero padding.
struct DmaLoad {
  Space dstSpace;
  uint64_t dst;
  uint64_t src; // dram
  int64_t x, y = 1, z = 1, sy = 0, sz = 0, dpitch = 0;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
};

void emitLoad(ProgramEmitter &emitter, const DmaLoad &load,
              const MemRegion &srcTensor) {
  Instruction inst(Opcode::DmaLd);
  setMem(inst, "dst", load.dstSpace, load.dst);
  setMem(inst, "src", Space::Dram, load.src);
  int64_t dpitch = load.dpitch ? load.dpitch : load.x * kF32;
  inst.with("dt", kDt)
      .with("x", load.x)
      .with("y", load.y)
      .with("z", load.z)
      .with("sy", load.sy ? load.sy : load.x * kF32)
      .with("sz", load.sz)
      .with("dpitch", dpitch)
      .with("pt", load.pt)
      .with("pb", load.pb)
      .with("pl", load.pl)
      .with("pr", load.pr);
  int64_t rowsOut = load.z * (load.pt + load.y + load.pb);
  int64_t colsOut = load.pl + load.x + load.pr;
  MemRegion written = region(load.dstSpace, load.dst,
                             uint64_t((rowsOut - 1) * dpitch + colsOut * kF32));
  emitter.emit(inst, {srcTensor}, {written});
}

/// A DMA store of z x y rows of x f32 elements (rows dense at spitch).
struct DmaStore {
  uint64_t dst; // dram
  Space srcSpace;
  uint64_t src;
  int64_t x, y = 1, z = 1, dy = 0, dz = 0, spitch = 0;
};

void emitStore(ProgramEmitter &emitter, const DmaStore &store,
               const MemRegion &dstTensor) {
  Instruction inst(Opcode::DmaSt);
  setMem(inst, "dst", Space::Dram, store.dst);
  setMem(inst, "src", store.srcSpace, store.src);
  int64_t spitch = store.spitch ? store.spitch : store.x * kF32;
  inst.with("dt", kDt)
      .with("x", store.x)
      .with("y", store.y)
      .with("z", store.z)
      .with("dy", store.dy ? store.dy : store.x * kF32)
      .with("dz", store.dz)
      .with("spitch", spitch);
  MemRegion read =
      region(store.srcSpace, store.src,
             uint64_t((store.z * store.y - 1) * spitch + store.x * kF32));
  emitter.emit(inst, {read}, {dstTensor});
}

//===----------------------------------------------------------------------===//
// Pointwise convolution
//===----------------------------------------------------------------------===//

struct PointwiseSpec {
  int64_t batch = 1, c = 0, f = 0, hw = 0;
  uint64_t input = 0, weight = 0, output = 0;
  std::optional<uint64_t> bias;
  ActivationSpec activation;
};

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

bool canEmitPointwise(const TargetDesc &target, const PointwiseSpec &spec,
                      std::string &reason) {
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  if (spec.c * kF32 > kMaxPitch || spec.hw * kF32 > 0xFFFFFFFFll) {
    reason = "rows of " + std::to_string(spec.c) +
             " input channels exceed the 64 KiB operand pitch";
    return false;
  }
  if (spec.batch > 1 && ((spec.c * spec.hw * kF32) % dramAlign != 0 ||
                         (spec.f * spec.hw * kF32) % dramAlign != 0)) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  return pointwiseLayout(target, spec.c, spec.f, spec.hw, spec.bias.has_value(),
                         reason)
      .has_value();
}

void emitPointwise(ProgramEmitter &emitter, const TargetDesc &target,
                   const PointwiseSpec &spec) {
  std::string unused;
  PointwiseLayout layout = *pointwiseLayout(target, spec.c, spec.f, spec.hw,
                                            spec.bias.has_value(), unused);
  const int64_t tile = layout.tile, hw = spec.hw, c = spec.c, f = spec.f;
  const int64_t kTiles = (c + tile - 1) / tile;
  const int64_t pTiles = (hw + tile - 1) / tile;
  const MemRegion wDram = region(Space::Dram, spec.weight, f * c * kF32);

  if (spec.bias)
    emitLoad(emitter, {Space::Vrf, layout.biasBase, *spec.bias, /*x=*/f},
             region(Space::Dram, *spec.bias, f * kF32));

  int64_t outputTile = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * hw * kF32);
    uint64_t y = spec.output + uint64_t(image * f * hw * kF32);
    const MemRegion xDram = region(Space::Dram, x, c * hw * kF32);
    const MemRegion yDram = region(Space::Dram, y, f * hw * kF32);
    // MRF slot -> the X^T tile (pixel tile * kTiles + k tile) it holds; a
    // tile already resident is not loaded again for the next filter chunk.
    std::vector<int64_t> resident(layout.mrfSlots, -1);
    for (int64_t f0 = 0; f0 < f; f0 += layout.rowsPerChunk) {
      int64_t fc = std::min(layout.rowsPerChunk, f - f0);
      // A = Wc[f0 : f0 + fc, :], resident for the whole chunk.
      emitLoad(emitter,
               {Space::Vrf, layout.aBase, spec.weight + uint64_t(f0 * c * kF32),
                /*x=*/c, /*y=*/fc, /*z=*/1, /*sy=*/c * kF32},
               wDram);
      for (int64_t p = 0; p < pTiles; ++p, ++outputTile) {
        int64_t p0 = p * tile, nt = std::min(tile, hw - p0);
        Block acc{Space::Acc, layout.accSlot[outputTile % 2], nt * kF32};
        for (int64_t t = 0; t < kTiles; ++t) {
          int64_t c0 = t * tile, kt = std::min(tile, c - c0);
          int64_t tileId = p * kTiles + t;
          int64_t slot = tileId % layout.mrfSlots;
          uint64_t w = uint64_t(slot) * layout.mrfTileBytes;
          MemRegion wTile = region(Space::Mrf, w, nt * kt * kF32);
          if (resident[slot] != tileId) {
            // X^T tile: plane = pixel (sz = 4), rows = channels (sy = HW),
            // one element per row: nt rows of kt channels.
            emitLoad(emitter,
                     {Space::Mrf, w, x + uint64_t((c0 * hw + p0) * kF32),
                      /*x=*/1, /*y=*/kt, /*z=*/nt, /*sy=*/hw * kF32,
                      /*sz=*/kF32, /*dpitch=*/kF32},
                     xDram);
            resident[slot] = tileId;
          }
          Instruction mm(Opcode::Mm);
          setMem(mm, "dst", Space::Acc, acc.addr);
          setMem(mm, "a", Space::Vrf, layout.aBase + uint64_t(c0 * kF32));
          setMem(mm, "w", Space::Mrf, w);
          mm.with("dt", kDt)
              .with("at", kDt)
              .with("wt", kDt)
              .with("m", fc)
              .with("k", kt)
              .with("n", nt)
              .with("dpitch", acc.pitch)
              .with("apitch", c * kF32)
              .with("acc", t > 0 ? 1 : 0);
          emitter.emit(
              mm,
              {region(Space::Vrf, layout.aBase, uint64_t(fc * c * kF32)),
               wTile},
              {footprint(acc, fc, nt)});
        }
        if (spec.bias)
          emitBinary(
              emitter, Opcode::VAdd, acc, acc,
              Block{Space::Vrf, layout.biasBase + uint64_t(f0 * kF32), kF32},
              Bcast::Col, fc, nt);
        emitActivation(emitter, spec.activation, acc, fc, nt);
        emitStore(emitter,
                  {y + uint64_t((f0 * hw + p0) * kF32), Space::Acc, acc.addr,
                   /*x=*/nt, /*y=*/fc, /*z=*/1, /*dy=*/hw * kF32, /*dz=*/0,
                   /*spitch=*/acc.pitch},
                  yDram);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Depthwise 3x3 convolution
//===----------------------------------------------------------------------===//

struct DepthwiseSpec {
  int64_t batch = 1, c = 0, h = 0, w = 0, stride = 1;
  uint64_t input = 0, weight = 0, output = 0;
  std::optional<uint64_t> bias;
  ActivationSpec activation;

  int64_t ho() const { return stride == 1 ? h : h / 2; }
  int64_t wo() const { return stride == 1 ? w : w / 2; }
};

/// Per-channel footprints (bytes) of the on-chip buffers.
struct DepthwiseSizes {
  int64_t in;      // padded input plane
  int64_t out;     // accumulator (with garbage rows/columns)
  int64_t compact; // stride 2: output rows without the garbage row
  int64_t wexp;    // stride 2: 9 expanded weights + bias, per vector row
};

DepthwiseSizes depthwiseSizes(const DepthwiseSpec &spec) {
  DepthwiseSizes sizes;
  int64_t h = spec.h, w = spec.w;
  sizes.in = (h + 2) * (w + 2) * kF32;
  if (spec.stride == 1) {
    sizes.out = h * (w + 2) * kF32;
    sizes.compact = 0;
    sizes.wexp = 0;
  } else {
    sizes.out = (spec.ho() + 1) * w * kF32;
    sizes.compact = spec.ho() * w * kF32;
    sizes.wexp = 10 * (spec.ho() + 1) * kF32;
  }
  return sizes;
}

struct DepthwiseLayout {
  int64_t channelsPerChunk;
  // vrf: weights [C x 9], bias [C], then the per-chunk buffers.
  uint64_t weightBase = 0, biasBase = 0;
  Space tempSpace;
  uint64_t temp[2] = {0, 0}, wexp = 0; // single-buffered
  uint64_t in[2], out[2], compact[2];  // acc, double-buffered
};

std::optional<DepthwiseLayout> depthwiseLayout(const TargetDesc &target,
                                               const DepthwiseSpec &spec,
                                               std::string &reason) {
  DepthwiseSizes sizes = depthwiseSizes(spec);
  int64_t vrfBytes = int64_t(target.vrfRegisters) * target.vrfRegisterBytes;
  int64_t accBytes = static_cast<int64_t>(target.memory(Space::Acc).bytes);
  int64_t fixed = alignUp(spec.c * 9 * kF32, 64) + alignUp(spec.c * kF32, 64);
  if (fixed > vrfBytes) {
    reason = "the weights of " + std::to_string(spec.c) +
             " channels do not fit the vector register file";
    return std::nullopt;
  }
  // Double-buffered per chunk in ACC: input planes, accumulator, compacted
  // rows; single-buffered: two temporaries and the expanded weights, in the
  // VRF if they fit there, else in ACC too.
  int64_t accPerChannel = 2 * (sizes.in + sizes.out + sizes.compact);
  int64_t tempPerChannel = 2 * sizes.out + sizes.wexp;
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
    int64_t step =
        std::lcm(alignedCount(spec.h * spec.w * kF32, dramAlign),
                 alignedCount(spec.ho() * spec.wo() * kF32, dramAlign));
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
  layout.biasBase = alignUp(spec.c * 9 * kF32, 64);
  uint64_t accTop = 0;
  for (int s = 0; s < 2; ++s) {
    layout.in[s] = accTop;
    accTop += alignUp(channels * sizes.in, 64);
    layout.out[s] = accTop;
    accTop += alignUp(channels * sizes.out, 64);
    layout.compact[s] = accTop;
    accTop += alignUp(channels * sizes.compact, 64);
  }
  uint64_t tempTop = layout.tempSpace == Space::Vrf ? uint64_t(fixed) : accTop;
  for (uint64_t &temp : layout.temp) {
    temp = tempTop;
    tempTop += alignUp(channels * sizes.out, 64);
  }
  layout.wexp = tempTop;
  return layout;
}

bool canEmitDepthwise(const TargetDesc &target, const DepthwiseSpec &spec,
                      std::string &reason) {
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  if (spec.h > kMaxDmaYZ || spec.w + 2 > kMaxDmaYZ) {
    reason = "planes larger than 4095 rows or columns exceed the DMA counts";
    return false;
  }
  if (spec.stride == 1 && (spec.h + 2) * (spec.w + 2) * kF32 > kMaxPitch) {
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
  if (spec.batch > 1 &&
      ((spec.c * spec.h * spec.w * kF32) % dramAlign != 0 ||
       (spec.c * spec.ho() * spec.wo() * kF32) % dramAlign != 0)) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  return depthwiseLayout(target, spec, reason).has_value();
}

/// Accumulates the 9 tap products into `out` in the order of numerics
/// dotF32 over a 9-element patch (lane t holds product t; the lanes are
/// reduced by the tree 8, 4, 2, 1):
///   ((p0 + p8) + p4) + (p2 + p6)  +  ((p1 + p5) + (p3 + p7)).
/// `tap(t)` gives the window and the weight column of tap t. The first
/// product of each partial sum is written to its buffer, the others are
/// forwarded through the chain into the add that accumulates them.
void emitNineTaps(ProgramEmitter &emitter,
                  const std::function<std::pair<Block, Block>(int)> &tap,
                  const Block &out, const Block (&temp)[2], int64_t rows,
                  int64_t cols) {
  auto product = [&](const Block &dst, int t) {
    auto [window, weight] = tap(t);
    emitBinary(emitter, Opcode::VMul, dst, window, weight, Bcast::Col, rows,
               cols);
  };
  // dst = p_t + dst.
  auto accumulate = [&](const Block &dst, int t) {
    auto [window, weight] = tap(t);
    emitBinary(emitter, Opcode::VMul, std::nullopt, window, weight, Bcast::Col,
               rows, cols);
    emitBinary(emitter, Opcode::VAdd, dst, std::nullopt, dst, Bcast::None, rows,
               cols, operandReads(window, weight, Bcast::Col, rows, cols));
  };
  auto add = [&](const Block &dst, const Block &other) {
    emitBinary(emitter, Opcode::VAdd, dst, dst, other, Bcast::None, rows, cols);
  };
  product(out, 0);
  accumulate(out, 8);
  accumulate(out, 4);
  product(temp[0], 2);
  accumulate(temp[0], 6);
  add(out, temp[0]);
  product(temp[1], 1);
  accumulate(temp[1], 5);
  product(temp[0], 3);
  accumulate(temp[0], 7);
  add(temp[1], temp[0]);
  add(out, temp[1]);
}

void emitDepthwise(ProgramEmitter &emitter, const TargetDesc &target,
                   const DepthwiseSpec &spec) {
  std::string unused;
  DepthwiseLayout layout = *depthwiseLayout(target, spec, unused);
  const int64_t c = spec.c, h = spec.h, w = spec.w, ho = spec.ho(),
                wo = spec.wo();
  const int64_t wp = w + 2; // padded row length
  DepthwiseSizes sizes = depthwiseSizes(spec);

  emitLoad(emitter, {Space::Vrf, layout.weightBase, spec.weight, c * 9},
           region(Space::Dram, spec.weight, c * 9 * kF32));
  if (spec.bias)
    emitLoad(emitter, {Space::Vrf, layout.biasBase, *spec.bias, c},
             region(Space::Dram, *spec.bias, c * kF32));

  int64_t chunkIndex = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * h * w * kF32);
    uint64_t y = spec.output + uint64_t(image * c * ho * wo * kF32);
    const MemRegion xDram = region(Space::Dram, x, c * h * w * kF32);
    const MemRegion yDram = region(Space::Dram, y, c * ho * wo * kF32);
    for (int64_t c0 = 0; c0 < c; c0 += layout.channelsPerChunk, ++chunkIndex) {
      int64_t cc = std::min(layout.channelsPerChunk, c - c0);
      int slot = chunkIndex % 2;
      uint64_t in = layout.in[slot];
      // The chunk's planes with a zero border: cc x (h+2) x (w+2).
      emitLoad(emitter,
               {Space::Acc, in, x + uint64_t(c0 * h * w * kF32), /*x=*/w,
                /*y=*/h, /*z=*/cc, /*sy=*/w * kF32, /*sz=*/h * w * kF32,
                /*dpitch=*/wp * kF32, /*pt=*/1, /*pb=*/1, /*pl=*/1, /*pr=*/1},
               xDram);

      if (spec.stride == 1) {
        // One vector row per channel; output element (i, j) at i*wp + j.
        int64_t cols = h * wp - 2;
        Block out{Space::Acc, layout.out[slot], sizes.out};
        Block temp[2] = {{layout.tempSpace, layout.temp[0], sizes.out},
                         {layout.tempSpace, layout.temp[1], sizes.out}};
        auto tap = [&](int t) {
          int64_t di = t / 3, dj = t % 3;
          Block window{Space::Acc, in + uint64_t((di * wp + dj) * kF32),
                       sizes.in};
          Block weight{Space::Vrf,
                       layout.weightBase + uint64_t((c0 * 9 + t) * kF32),
                       9 * kF32};
          return std::make_pair(window, weight);
        };
        emitNineTaps(emitter, tap, out, temp, cc, cols);
        if (spec.bias)
          emitBinary(
              emitter, Opcode::VAdd, out, out,
              Block{Space::Vrf, layout.biasBase + uint64_t(c0 * kF32), kF32},
              Bcast::Col, cc, cols);
        emitActivation(emitter, spec.activation, out, cc, cols);
        emitStore(emitter,
                  {y + uint64_t(c0 * h * w * kF32), Space::Acc, out.addr,
                   /*x=*/w, /*y=*/h, /*z=*/cc, /*dy=*/w * kF32,
                   /*dz=*/h * w * kF32, /*spitch=*/wp * kF32},
                  yDram);
        continue;
      }

      // Stride 2: vector row q = p * (ho + 1) + i (channel p, output row i;
      // i = ho is garbage), full-width columns; the last garbage row is
      // dropped so no window reads past the chunk.
      int64_t rowsPerChannel = ho + 1;
      int64_t rows = cc * rowsPerChannel - 1;
      Block out{Space::Acc, layout.out[slot], w * kF32};
      Block temp[2] = {{layout.tempSpace, layout.temp[0], w * kF32},
                       {layout.tempSpace, layout.temp[1], w * kF32}};
      // Expanded weights: block t (t < 9: tap, 9: bias) holds, for each
      // vector row, its channel's value.
      Block wexp{layout.tempSpace, layout.wexp, rowsPerChannel * kF32};
      int64_t planes = spec.bias ? 10 : 9;
      {
        Instruction fill(Opcode::VFill);
        setMem(fill, "dst", wexp.space, wexp.addr);
        fill.with("dt", kDt)
            .with("rows", planes * cc)
            .with("cols", rowsPerChannel)
            .with("dpitch", wexp.pitch)
            .with("imm", 0);
        emitter.emit(fill, {}, {footprint(wexp, planes * cc, rowsPerChannel)});
      }
      auto expanded = [&](int t) {
        return Block{wexp.space,
                     wexp.addr + uint64_t(t * cc * rowsPerChannel * kF32),
                     rowsPerChannel * kF32};
      };
      for (int t = 0; t < planes; ++t) {
        Block source =
            t < 9 ? Block{Space::Vrf,
                          layout.weightBase + uint64_t((c0 * 9 + t) * kF32),
                          9 * kF32}
                  : Block{Space::Vrf, layout.biasBase + uint64_t(c0 * kF32),
                          kF32};
        Block dst = expanded(t);
        emitBinary(emitter, Opcode::VAdd, dst, dst, source, Bcast::Col, cc,
                   rowsPerChannel);
      }
      auto tap = [&](int t) {
        int64_t di = t / 3, dj = t % 3;
        Block window{Space::Acc, in + uint64_t((di * wp + dj) * kF32),
                     2 * wp * kF32};
        Block weight = expanded(t);
        weight.pitch = kF32; // one value per vector row
        return std::make_pair(window, weight);
      };
      emitNineTaps(emitter, tap, out, temp, rows, w);
      if (spec.bias) {
        Block bias = expanded(9);
        bias.pitch = kF32;
        emitBinary(emitter, Opcode::VAdd, out, out, bias, Bcast::Col, rows, w);
      }
      // Compact each channel's ho rows, applying the activation on the way
      // where one instruction can (clip: max on the way, min afterwards).
      Block compact{Space::Acc, layout.compact[slot], w * kF32};
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
        Block from{Space::Acc,
                   out.addr + uint64_t(p * rowsPerChannel * w * kF32),
                   w * kF32};
        Block to{Space::Acc, compact.addr + uint64_t(p * ho * w * kF32),
                 w * kF32};
        Instruction move(moveOp);
        setMem(move, "dst", to.space, to.addr);
        setMem(move, "a", from.space, from.addr);
        move.with("dt", kDt)
            .with("at", kDt)
            .with("rows", ho)
            .with("cols", w)
            .with("dpitch", to.pitch)
            .with("apitch", from.pitch);
        if (moveImm)
          move.with("imm", floatBits(*moveImm));
        emitter.emit(move, {footprint(from, ho, w)}, {footprint(to, ho, w)});
      }
      if (act.kind == ActivationSpec::Clip && act.max) {
        ActivationSpec upper;
        upper.kind = ActivationSpec::Clip;
        upper.max = act.max;
        emitActivation(emitter, upper, compact, cc * ho, w);
      }
      // Every other column: one element per DMA row, source pitch 2
      // elements; the plane of output row (p, i) is contiguous in DRAM.
      emitStore(emitter,
                {y + uint64_t(c0 * ho * wo * kF32), Space::Acc, compact.addr,
                 /*x=*/1, /*y=*/wo, /*z=*/cc * ho, /*dy=*/kF32,
                 /*dz=*/wo * kF32, /*spitch=*/2 * kF32},
                yDram);
    }
  }
}

//===----------------------------------------------------------------------===//
// Dense 3x3 convolution with few channels (a network's stem)
//===----------------------------------------------------------------------===//

/// At most this many (filter, channel, tap) products per image: each costs a
/// chained multiply-add of a whole output plane on the MFUs.
constexpr int64_t kMaxDenseProducts = 4096;

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

struct DenseLayout {
  uint64_t in = 0; // acc: all padded input planes of one image
  uint64_t out[2]; // acc: one output plane, double-buffered
  uint64_t weightBase = 0, biasBase = 0; // vrf
};

std::optional<DenseLayout> denseLayout(const TargetDesc &target,
                                       const DenseSpec &spec) {
  int64_t vrfBytes = int64_t(target.vrfRegisters) * target.vrfRegisterBytes;
  int64_t accBytes = static_cast<int64_t>(target.memory(Space::Acc).bytes);
  DenseLayout layout;
  layout.biasBase = alignUp(spec.f * spec.c * 9 * kF32, 64);
  int64_t vrfTop = layout.biasBase + alignUp(spec.f * kF32, 64);
  layout.in = 0;
  layout.out[0] = alignUp(spec.inBytes(), 64);
  layout.out[1] = layout.out[0] + alignUp(spec.outBytes(), 64);
  int64_t accTop = layout.out[1] + alignUp(spec.outBytes(), 64);
  if (vrfTop > vrfBytes || accTop > accBytes)
    return std::nullopt;
  return layout;
}

bool canEmitDense(const TargetDesc &target, const DenseSpec &spec,
                  std::string &reason) {
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  std::string shape = "dense 3x3 convolutions";
  if (spec.f * spec.c * 9 > kMaxDenseProducts) {
    reason = shape + " are lowered for few channels only (" +
             std::to_string(spec.c) + " channels x " + std::to_string(spec.f) +
             " filters need more than " + std::to_string(kMaxDenseProducts) +
             " plane products; no im2col: its gathers would start at "
             "unaligned DRAM addresses)";
    return false;
  }
  if (spec.stride == 2 && (spec.h % 2 != 0 || spec.w % 2 != 0)) {
    reason = "stride-2 " + shape + " are lowered for even plane sizes only";
    return false;
  }
  if (spec.h > kMaxDmaYZ || spec.ho() > kMaxDmaYZ || spec.c > kMaxDmaYZ ||
      2 * (spec.w + 2) * kF32 > kMaxPitch) {
    reason = "the planes of this convolution exceed the DMA counts or the "
             "operand pitch";
    return false;
  }
  if ((spec.ho() * spec.wo() * kF32) % dramAlign != 0 ||
      (spec.batch > 1 && (spec.c * spec.h * spec.w * kF32) % dramAlign != 0)) {
    reason = "the output planes of this convolution would start at "
             "unaligned DRAM addresses";
    return false;
  }
  if (!denseLayout(target, spec)) {
    reason = "the padded input planes of this convolution do not fit the "
             "accumulator memory (row tiling is not implemented)";
    return false;
  }
  return true;
}

/// out[f] = sum over channels c and taps t of W[f, c, t] * window(c, t):
/// one chained multiply-add per product, a scalar weight each (bcast =
/// scalar), on whole output planes. Summation is sequential, so the result
/// matches the host's 16-lane dot product to rounding, not bit for bit.
void emitDense(ProgramEmitter &emitter, const TargetDesc &target,
               const DenseSpec &spec) {
  DenseLayout layout = *denseLayout(target, spec);
  const int64_t c = spec.c, f = spec.f, h = spec.h, w = spec.w, ho = spec.ho(),
                wo = spec.wo(), wp = w + 2;
  const int64_t planeIn = (h + 2) * wp * kF32;
  emitLoad(emitter, {Space::Vrf, layout.weightBase, spec.weight, f * c * 9},
           region(Space::Dram, spec.weight, f * c * 9 * kF32));
  if (spec.bias)
    emitLoad(emitter, {Space::Vrf, layout.biasBase, *spec.bias, f},
             region(Space::Dram, *spec.bias, f * kF32));
  int64_t plane = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * h * w * kF32);
    uint64_t y = spec.output + uint64_t(image * f * ho * wo * kF32);
    const MemRegion yDram = region(Space::Dram, y, f * ho * wo * kF32);
    emitLoad(emitter,
             {Space::Acc, layout.in, x, /*x=*/w, /*y=*/h, /*z=*/c,
              /*sy=*/w * kF32, /*sz=*/h * w * kF32, /*dpitch=*/wp * kF32,
              /*pt=*/1, /*pb=*/1, /*pl=*/1, /*pr=*/1},
             region(Space::Dram, x, c * h * w * kF32));
    for (int64_t filter = 0; filter < f; ++filter, ++plane) {
      Block out{Space::Acc, layout.out[plane % 2], w * kF32};
      for (int64_t channel = 0; channel < c; ++channel)
        for (int t = 0; t < 9; ++t) {
          int64_t di = t / 3, dj = t % 3;
          Block window{Space::Acc,
                       layout.in +
                           uint64_t(channel * planeIn + (di * wp + dj) * kF32),
                       spec.stride * wp * kF32};
          Block weight{Space::Vrf,
                       layout.weightBase +
                           uint64_t(((filter * c + channel) * 9 + t) * kF32),
                       kF32};
          if (channel == 0 && t == 0) {
            emitBinary(emitter, Opcode::VMul, out, window, weight,
                       Bcast::Scalar, ho, w);
            continue;
          }
          emitBinary(emitter, Opcode::VMul, std::nullopt, window, weight,
                     Bcast::Scalar, ho, w);
          emitBinary(emitter, Opcode::VAdd, out, std::nullopt, out, Bcast::None,
                     ho, w, operandReads(window, weight, Bcast::Scalar, ho, w));
        }
      if (spec.bias)
        emitBinary(
            emitter, Opcode::VAdd, out, out,
            Block{Space::Vrf, layout.biasBase + uint64_t(filter * kF32), kF32},
            Bcast::Scalar, ho, w);
      emitActivation(emitter, spec.activation, out, ho, w);
      uint64_t dst = y + uint64_t(filter * ho * wo * kF32);
      if (spec.stride == 1)
        emitStore(emitter,
                  {dst, Space::Acc, out.addr, /*x=*/w, /*y=*/h, /*z=*/1,
                   /*dy=*/w * kF32, /*dz=*/0, /*spitch=*/w * kF32},
                  yDram);
      else
        // Every other column: one element per DMA row, source pitch 2.
        emitStore(emitter,
                  {dst, Space::Acc, out.addr, /*x=*/1, /*y=*/wo, /*z=*/ho,
                   /*dy=*/kF32, /*dz=*/wo * kF32, /*spitch=*/2 * kF32},
                  yDram);
    }
  }
}

//===----------------------------------------------------------------------===//
// accel.conv adapter
//===----------------------------------------------------------------------===//

bool isF32(Type type) {
  return cast<RankedTensorType>(type).getElementType().isF32();
}

enum class ConvKind { Pointwise, Depthwise, Dense };

/// Classifies `op`; fills the spec of its kind (addresses left 0) or the
/// reason it is not lowered.
std::optional<ConvKind> classify(ConvOp op, PointwiseSpec &pointwise,
                                 DepthwiseSpec &depthwise, DenseSpec &dense,
                                 std::string &reason) {
  if (!isF32(op.getInput().getType()) || !isF32(op.getWeight().getType()) ||
      !isF32(op.getType()) ||
      (op.getBias() && !isF32(op.getBias().getType()))) {
    reason = "conv runs on the card in f32 only so far";
    return std::nullopt;
  }
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  if (inputType.getRank() != 4 || !inputType.hasStaticShape() ||
      !weightType.hasStaticShape() || !op.getType().hasStaticShape()) {
    reason = "only static 2-D convolutions (NCHW) are lowered to the card";
    return std::nullopt;
  }
  if (llvm::any_of(op.getDilations(), [](int64_t d) { return d != 1; })) {
    reason = "dilated convolutions are not lowered to the card";
    return std::nullopt;
  }
  ArrayRef<int64_t> in = inputType.getShape(), ws = weightType.getShape();
  int64_t n = in[0], c = in[1], h = in[2], w = in[3], f = ws[0];
  int64_t groups = op.getGroups();
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads();
  ActivationSpec act = getFusedActivation(op);
  if (groups == 1 && ws[2] == 1 && ws[3] == 1) {
    if (llvm::any_of(strides, [](int64_t s) { return s != 1; }) ||
        llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
      reason = "1x1 convolutions are lowered with stride 1 and no padding "
               "only";
      return std::nullopt;
    }
    pointwise.batch = n;
    pointwise.c = c;
    pointwise.f = f;
    pointwise.hw = h * w;
    pointwise.activation = act;
    if (op.getBias())
      pointwise.bias = 0;
    return ConvKind::Pointwise;
  }
  if (groups == c && f == c && ws[1] == 1) {
    if (ws[2] != 3 || ws[3] != 3 ||
        llvm::any_of(pads, [](int64_t p) { return p != 1; })) {
      reason = "depthwise convolutions are lowered for 3x3 kernels with "
               "padding 1 only";
      return std::nullopt;
    }
    if (strides[0] != strides[1] || (strides[0] != 1 && strides[0] != 2)) {
      reason = "depthwise convolutions are lowered with stride 1 or 2 only";
      return std::nullopt;
    }
    depthwise.batch = n;
    depthwise.c = c;
    depthwise.h = h;
    depthwise.w = w;
    depthwise.stride = strides[0];
    depthwise.activation = act;
    if (op.getBias())
      depthwise.bias = 0;
    return ConvKind::Depthwise;
  }
  if (groups == 1 && ws[2] == 3 && ws[3] == 3 &&
      llvm::all_of(pads, [](int64_t p) { return p == 1; }) &&
      strides[0] == strides[1] && (strides[0] == 1 || strides[0] == 2)) {
    dense.batch = n;
    dense.c = c;
    dense.f = f;
    dense.h = h;
    dense.w = w;
    dense.stride = strides[0];
    dense.activation = act;
    if (op.getBias())
      dense.bias = 0;
    return ConvKind::Dense;
  }
  if (groups == 1)
    reason = "dense convolutions are lowered for 3x3 kernels with padding 1 "
             "and stride 1 or 2 only (this one: " +
             std::to_string(ws[2]) + "x" + std::to_string(ws[3]) + ")";
  else
    reason = "grouped convolutions other than depthwise (groups = " +
             std::to_string(groups) + ") are not lowered to the card";
  return std::nullopt;
}

LogicalResult checkConv(Operation *operation, const TargetDesc &target,
                        std::string &reason) {
  auto op = cast<ConvOp>(operation);
  if (!target.macsPerCycle.count(DType::F32)) {
    reason = "the target's matrix unit has no f32 mode";
    return failure();
  }
  PointwiseSpec pointwise;
  DepthwiseSpec depthwise;
  DenseSpec dense;
  std::optional<ConvKind> kind =
      classify(op, pointwise, depthwise, dense, reason);
  if (!kind)
    return failure();
  switch (*kind) {
  case ConvKind::Pointwise:
    return success(canEmitPointwise(target, pointwise, reason));
  case ConvKind::Depthwise:
    return success(canEmitDepthwise(target, depthwise, reason));
  case ConvKind::Dense:
    return success(canEmitDense(target, dense, reason));
  }
  return failure();
}

LogicalResult emitConv(Operation *operation, KernelContext &context) {
  auto op = cast<ConvOp>(operation);
  PointwiseSpec pointwise;
  DepthwiseSpec depthwise;
  DenseSpec dense;
  std::string reason;
  std::optional<ConvKind> kind =
      classify(op, pointwise, depthwise, dense, reason);
  if (!kind)
    return op.emitOpError() << "cannot run on the card: " << reason;
  uint64_t input = context.addressOf(op.getInput());
  uint64_t weight = context.addressOf(op.getWeight());
  uint64_t output = context.addressOf(op.getResult());
  std::optional<uint64_t> bias;
  if (Value b = op.getBias())
    bias = context.addressOf(b);
  switch (*kind) {
  case ConvKind::Pointwise:
    pointwise.input = input;
    pointwise.weight = weight;
    pointwise.output = output;
    pointwise.bias = bias;
    emitPointwise(context.emitter, context.target, pointwise);
    break;
  case ConvKind::Depthwise:
    depthwise.input = input;
    depthwise.weight = weight;
    depthwise.output = output;
    depthwise.bias = bias;
    emitDepthwise(context.emitter, context.target, depthwise);
    break;
  case ConvKind::Dense:
    dense.input = input;
    dense.weight = weight;
    dense.output = output;
    dense.bias = bias;
    emitDense(context.emitter, context.target, dense);
    break;
  }
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::registerConvKernels(KernelTable &table) {
  table[ConvOp::getOperationName()] = {checkConv, emitConv};
}
