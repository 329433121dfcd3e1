//===- ConvKernels.cpp - convolutions on the matrix unit and MFUs ---------===//
//
// accel.conv kernels (NCHW, any batch). Three 2-D special cases that make
// up MobileNet-style networks, and a general implicit-GEMM kernel for
// everything else. bench/conv-layers.py measures them per layer
// (docs/benchmarks-conv.md).
//
// * Pointwise (1x1, f32, no padding, groups 1): per image
//   Y[F, HW] = Wc[F, C] . X[C, HW]. The matrix unit streams rows of the
//   filter matrix (A = Wc chunk, resident in the VRF) through a weight tile
//   that is the transpose of an X tile (n = N pixels x k = N channels),
//   which the DMA engine transposes on the fly (x = 1: every "row" is one
//   element, planes step one pixel). The result D[F chunk, pixel tile] is
//   already NCHW rows, so it is stored with a row pitch of HW. The bias is
//   per output channel, i.e. per row of D (bcast = col). Strided 1x1 convs
//   (ResNet shortcuts) first subsample the input with one DMA (one element
//   per row) into SHARED memory and read the tiles from there. When an
//   image's X^T tiles do not all fit the MRF, two slots alternate.
//
// * Depthwise k x k (groups = C = F; k = 3, 5 or 7, padding k / 2 on every
//   side), stride 1 or 2, f32/f16/bf16 (narrow planes are DMAed as they
//   are, converted to f32 on chip, and the result is converted back once:
//   f32 arithmetic, like the host's reference). The DMA engine loads a
//   chunk of channel planes with a k / 2 element zero border (DMA padding)
//   into ACC. Each tap is then one vector multiply of a shifted window by a
//   per-channel weight (bcast = col) over the whole chunk, and the k * k
//   products are summed in exactly the order of the device dot product
//   (numerics dotF32: 16 lanes, tree reduction), so the card and the host
//   fallback agree bit for bit.
//     stride 1: one vector row per channel (the padded plane flattened);
//       the output keeps the padded row pitch W+2p (2p garbage columns per
//       row that the store skips).
//     stride 2: one vector row per (channel, output row); a row pitch of two
//       padded input rows does the vertical subsampling, the per-channel
//       weights are first expanded to one value per vector row, each
//       channel gets p garbage rows (the planes have H+2p rows), a per
//       channel move compacts the rows (fusing the activation where it can),
//       and the store picks every other column (x = 1, source pitch 2
//       elements).
//
// * Dense 3x3 (f32, groups 1), pads 1, stride 1 or 2, with few channels x
//   filters (a network's stem: 3 -> 16): all padded input planes of an
//   image in ACC, then per filter one output plane accumulated from a
//   multiply by a scalar weight (bcast = scalar) per (channel, tap), chained
//   into the add; stride 2 as above (row pitch of two padded rows, store of
//   every other column). Sequential sums: equal to the host to rounding.
//
// * General (implicit GEMM): 1-D/2-D/3-D, any kernel size, stride,
//   dilation, padding and grouping,
//   f32/f16/bf16. Per (image, output depth slice, group, band of output
//   rows, tile of N filters): the band's input planes (a virtual channel
//   per (channel, depth tap)) are staged in ACC in f32 with their zero
//   border; for each K tile of the filters' weight rows (im2col order), one
//   strided v.mov per tap (or per run of adjacent taps within the stride)
//   gathers the patch matrix A[q, t] into the VRF, where GEMM row q is
//   output pixel (i, j) at q = i * wv + j (columns j >= Wo are computed and
//   dropped; the row pitch wv makes a vertical stride a whole number of
//   horizontal steps), and mm accumulates D[q, f] += A . W^T with the
//   weight tile DMAed straight from the weight rows. A copy cannot read
//   overlapping rows, so with stride 1 it would cover a single tap; the
//   output columns are therefore split into P column phases (j mod P, each
//   its own block of GEMM rows with a row step of P * sw elements), which
//   lets one copy per phase gather a whole kernel row. Then bias (a row),
//   the fused activation, a compaction to the valid pixels in the output
//   type (re-interleaving the phases), and a transposing store (one element
//   per DMA row). f16/bf16 are staged (through two alternating raw slots)
//   and gathered in f32 (element offsets) and multiplied in the input type
//   (products exact, f32 accumulation).
//
// DRAM operand bases must be 64-byte aligned, which rules out DMA gathers
// that start at an odd element (im2col, tap-shifted windows, stride-2
// column phases); everything that needs an element offset is therefore done
// on chip (VRF/ACC operands only need 4-byte alignment), and chunk sizes are
// rounded so every chunk's DRAM base stays aligned. The general kernel
// starts its input DMAs at the closest aligned row (the extra rows land in
// guard rows) and its weight tiles at the closest aligned element (matched
// by zero columns of A); its stores need aligned output planes, and convs
// whose stored filter planes would start at unaligned addresses are
// refused with a reason and run on the host.
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
constexpr int64_t kMaxDmaPad = 7;     // 3-bit DMA padding fields

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

/// The byte range a rows x cols block of `bytes`-sized elements touches.
MemRegion footprint(const Block &block, int64_t rows, int64_t cols,
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

void emitLoad(ProgramEmitter &emitter, const DmaLoad &load,
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

void emitStore(ProgramEmitter &emitter, const DmaStore &store,
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
void emitZero(ProgramEmitter &emitter, const Block &dst, ElementFormat format,
              int64_t rows, int64_t cols) {
  for (int64_t r0 = 0; r0 < rows; r0 += 0xFFFF) {
    int64_t count = std::min<int64_t>(0xFFFF, rows - r0);
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
void emitCopy(ProgramEmitter &emitter, const Block &dst,
              ElementFormat dstFormat, const Block &a, ElementFormat aFormat,
              int64_t rows, int64_t cols) {
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
// Pointwise convolution
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

bool canEmitPointwise(const TargetDesc &target, const PointwiseSpec &spec,
                      std::string &reason) {
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
    uint64_t x = spec.input + uint64_t(image * c * spec.h * spec.w * kF32);
    uint64_t y = spec.output + uint64_t(image * f * hw * kF32);
    Space xSpace = Space::Dram;
    MemRegion xDram = region(Space::Dram, x, c * spec.h * spec.w * kF32);
    const MemRegion yDram = region(Space::Dram, y, f * hw * kF32);
    if (spec.strided()) {
      // Every sw-th element of every sh-th row, one element per DMA row,
      // densely into SHARED (the X^T tile loads below need a DMA source;
      // gathering the odd elements straight from DRAM would start at
      // unaligned addresses). The ld queue runs in order, so the next
      // image's subsampling waits for this image's tile loads by itself.
      const int64_t chunk = subsampleChannels(target, spec);
      for (int64_t c0 = 0; c0 < c; c0 += chunk) {
        int64_t cc = std::min(chunk, c - c0);
        DmaLoad load{Space::Shared,
                     uint64_t(c0 * hw * kF32),
                     x + uint64_t(c0 * spec.h * spec.w * kF32),
                     /*x=*/1,
                     /*y=*/spec.wo,
                     /*z=*/cc * spec.ho,
                     /*sy=*/spec.sw * kF32,
                     /*sz=*/spec.sh * spec.w * kF32,
                     /*dpitch=*/kF32};
        emitLoad(emitter, load, xDram);
      }
      x = 0;
      xSpace = Space::Shared;
      xDram = region(Space::Shared, 0, c * hw * kF32);
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
          int64_t slot = tileId % slots;
          uint64_t w = uint64_t(slot) * layout.mrfTileBytes;
          MemRegion wTile = region(Space::Mrf, w, nt * kt * kF32);
          if (resident[slot] != tileId) {
            // X^T tile: plane = pixel (sz = 4), rows = channels (sy = HW),
            // one element per row: nt rows of kt channels.
            DmaLoad load{
                Space::Mrf,       w, x + uint64_t((c0 * hw + p0) * kF32),
                /*x=*/1,
                /*y=*/kt,
                /*z=*/nt,
                /*sy=*/hw * kF32,
                /*sz=*/kF32,
                /*dpitch=*/kF32};
            load.srcSpace = xSpace;
            emitLoad(emitter, load, xDram);
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
// Depthwise k x k convolution
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
  sizes.raw = spec.narrow() ? spec.paddedPlane() * spec.format.bytes : 0;
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
  const int64_t e = spec.format.bytes;
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

bool canEmitDepthwise(const TargetDesc &target, const DepthwiseSpec &spec,
                      std::string &reason) {
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
  const int64_t e = spec.format.bytes;
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
              const std::function<std::pair<Block, Block>(int)> &tap,
              const Block &out, const Block (&temp)[kMaxTapTemps], int64_t rows,
              int64_t cols) {
  constexpr int64_t kLanes = 16;
  auto product = [&](const Block &dst, int64_t t) {
    auto [window, weight] = tap(t);
    emitBinary(emitter, Opcode::VMul, dst, window, weight, Bcast::Col, rows,
               cols);
  };
  // dst = p_t + dst.
  auto accumulate = [&](const Block &dst, int64_t t) {
    auto [window, weight] = tap(t);
    emitBinary(emitter, Opcode::VMul, std::nullopt, window, weight, Bcast::Col,
               rows, cols);
    emitBinary(emitter, Opcode::VAdd, dst, std::nullopt, dst, Bcast::None, rows,
               cols, operandReads(window, weight, Bcast::Col, rows, cols));
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
    const Block dst = buffer(depth);
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

void emitDepthwise(ProgramEmitter &emitter, const TargetDesc &target,
                   const DepthwiseSpec &spec) {
  std::string unused;
  DepthwiseLayout layout = *depthwiseLayout(target, spec, unused);
  const int64_t c = spec.c, h = spec.h, w = spec.w, ho = spec.ho(),
                wo = spec.wo();
  const int64_t wp = spec.paddedRow(), pad = spec.pad(), k = spec.k,
                taps = spec.taps();
  const ElementFormat format = spec.format;
  const int64_t e = format.bytes;
  DepthwiseSizes sizes = depthwiseSizes(spec);

  // `count` parameters to `base` in f32 (narrow ones via `raw`).
  auto loadParams = [&](uint64_t base, uint64_t raw, uint64_t src,
                        int64_t count) {
    DmaLoad load{Space::Vrf, spec.narrow() ? raw : base, src, count};
    load.format = format;
    emitLoad(emitter, load, region(Space::Dram, src, count * e));
    if (spec.narrow())
      emitCopy(emitter, {Space::Vrf, base, count * kF32}, kF32Format,
               {Space::Vrf, raw, count * e}, format, 1, count);
  };
  loadParams(layout.weightBase, layout.weightRaw, spec.weight, c * taps);
  if (spec.bias)
    loadParams(layout.biasBase, layout.biasRaw, *spec.bias, c);

  int64_t chunkIndex = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * h * w * e);
    uint64_t y = spec.output + uint64_t(image * c * ho * wo * e);
    const MemRegion xDram = region(Space::Dram, x, c * h * w * e);
    const MemRegion yDram = region(Space::Dram, y, c * ho * wo * e);
    for (int64_t c0 = 0; c0 < c; c0 += layout.channelsPerChunk, ++chunkIndex) {
      int64_t cc = std::min(layout.channelsPerChunk, c - c0);
      int slot = chunkIndex % 2;
      uint64_t in = layout.in[slot], raw = layout.raw[slot];
      // The chunk's planes with a zero border: cc x (h+2) x (w+2); narrow
      // ones are converted to f32 on chip (tap windows start at any
      // element, which only 4-byte elements keep aligned).
      DmaLoad load{Space::Acc,
                   spec.narrow() ? raw : in,
                   x + uint64_t(c0 * h * w * e),
                   /*x=*/w,
                   /*y=*/h,
                   /*z=*/cc,
                   /*sy=*/w * e,
                   /*sz=*/h * w * e,
                   /*dpitch=*/wp * e,
                   /*pt=*/pad,
                   /*pb=*/pad,
                   /*pl=*/pad,
                   /*pr=*/pad};
      load.format = format;
      emitLoad(emitter, load, xDram);
      if (spec.narrow()) {
        const int64_t plane = spec.paddedPlane();
        if (plane * kF32 <= kMaxPitch)
          emitCopy(emitter, {Space::Acc, in, sizes.in}, kF32Format,
                   {Space::Acc, raw, plane * e}, format, cc, plane);
        else
          for (int64_t p = 0; p < cc; ++p)
            emitCopy(
                emitter, {Space::Acc, in + uint64_t(p * sizes.in), wp * kF32},
                kF32Format, {Space::Acc, raw + uint64_t(p * plane * e), wp * e},
                format, h + 2 * pad, wp);
      }
      // The f32 result `from` (rows x cols) in the output format: narrow
      // results are converted into the raw slot (row pitch `pitch`
      // elements), which the store then reads.
      auto result = [&](const Block &from, int64_t rows, int64_t cols,
                        int64_t pitch) {
        if (!spec.narrow())
          return from;
        Block to{Space::Acc, raw, pitch * e};
        emitCopy(emitter, to, format, from, kF32Format, rows, cols);
        return to;
      };

      if (spec.stride == 1) {
        // One vector row per channel; output element (i, j) at i*wp + j.
        int64_t cols = h * wp - 2 * pad;
        Block out{Space::Acc, layout.out[slot], sizes.out};
        Block temp[kMaxTapTemps];
        for (int i = 0; i < kMaxTapTemps; ++i)
          temp[i] = {layout.tempSpace, layout.temp[i], sizes.out};
        auto tap = [&](int t) {
          int64_t di = t / k, dj = t % k;
          Block window{Space::Acc, in + uint64_t((di * wp + dj) * kF32),
                       sizes.in};
          Block weight{Space::Vrf,
                       layout.weightBase + uint64_t((c0 * taps + t) * kF32),
                       taps * kF32};
          return std::make_pair(window, weight);
        };
        emitTaps(emitter, taps, tap, out, temp, cc, cols);
        if (spec.bias)
          emitBinary(
              emitter, Opcode::VAdd, out, out,
              Block{Space::Vrf, layout.biasBase + uint64_t(c0 * kF32), kF32},
              Bcast::Col, cc, cols);
        emitActivation(emitter, spec.activation, out, cc, cols);
        Block stored = result(out, cc, cols, h * wp);
        DmaStore store{y + uint64_t(c0 * h * w * e),
                       Space::Acc,
                       stored.addr,
                       /*x=*/w,
                       /*y=*/h,
                       /*z=*/cc,
                       /*dy=*/w * e,
                       /*dz=*/h * w * e,
                       /*spitch=*/wp * e};
        store.format = format;
        emitStore(emitter, store, yDram);
        continue;
      }

      // Stride 2: vector row q = p * (ho + pad) + i (channel p, output row
      // i; i >= ho is garbage), full-width columns; the last garbage rows
      // are dropped so no window reads past the chunk.
      int64_t rowsPerChannel = spec.rowsPerChannel();
      int64_t rows = cc * rowsPerChannel - pad;
      Block out{Space::Acc, layout.out[slot], w * kF32};
      Block temp[kMaxTapTemps];
      for (int i = 0; i < kMaxTapTemps; ++i)
        temp[i] = {layout.tempSpace, layout.temp[i], w * kF32};
      // Expanded weights: block t (t < taps: tap, taps: bias) holds, for each
      // vector row, its channel's value.
      Block wexp{layout.tempSpace, layout.wexp, rowsPerChannel * kF32};
      int64_t planes = spec.bias ? taps + 1 : taps;
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
            t < taps
                ? Block{Space::Vrf,
                        layout.weightBase + uint64_t((c0 * taps + t) * kF32),
                        taps * kF32}
                : Block{Space::Vrf, layout.biasBase + uint64_t(c0 * kF32),
                        kF32};
        Block dst = expanded(t);
        emitBinary(emitter, Opcode::VAdd, dst, dst, source, Bcast::Col, cc,
                   rowsPerChannel);
      }
      auto tap = [&](int t) {
        int64_t di = t / k, dj = t % k;
        Block window{Space::Acc, in + uint64_t((di * wp + dj) * kF32),
                     2 * wp * kF32};
        Block weight = expanded(t);
        weight.pitch = kF32; // one value per vector row
        return std::make_pair(window, weight);
      };
      emitTaps(emitter, taps, tap, out, temp, rows, w);
      if (spec.bias) {
        Block bias = expanded(taps);
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
      Block stored = result(compact, cc * ho, w, w);
      DmaStore store{y + uint64_t(c0 * ho * wo * e),
                     Space::Acc,
                     stored.addr,
                     /*x=*/1,
                     /*y=*/wo,
                     /*z=*/cc * ho,
                     /*dy=*/e,
                     /*dz=*/wo * e,
                     /*spitch=*/2 * e};
      store.format = format;
      emitStore(emitter, store, yDram);
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
// General convolution: implicit GEMM
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

/// On-chip buffers of the implicit GEMM for one band of `rows` output rows.
/// The input planes of a band are staged in f32 with their zero border
/// (row pitch `wpitch`), each behind `guard` spare rows so the DMA can start
/// at an aligned DRAM row; output pixel (i, j) of the band is GEMM row
/// q = i * wv + j (columns j >= ow are computed and dropped), which reads its
/// tap at q * sw elements past the tap's origin: a vertical step of sh padded
/// rows is wv * sw = sh * wpitch elements.
///
/// Column phases: a gather copy reads one element per GEMM row, and its
/// rows may not overlap (pitch >= row), so one copy covers only the taps
/// of a kernel row that fit in the row step. With `phases` = P > 1 the
/// output columns are split by j mod P: phase p is its own block of GEMM
/// rows (q = i * wv + j', pixel j = j' * P + p, row step P * sw elements),
/// so one copy per phase gathers a whole kernel row of taps. The gathers
/// then cost one copy row per (kernel row, pixel) instead of per (tap,
/// pixel); the compaction re-interleaves the phases.
/// f16/bf16 planes are DMAed into one of two raw slots in turn and converted
/// into their f32 slot: each DMA then waits for the conversion just before
/// the previous one (per-plane raw slots would make every restage wait for
/// conversions long past: more outstanding tokens than the FIFO holds).
constexpr int64_t kRawSlots = 2;

struct GemmLayout {
  int64_t phases = 1;     // P
  int64_t tile = 0;       // N
  int64_t kTile = 0;      // taps per K tile (N, less to leave room for skew)
  int64_t wSkewAlign = 1; // weight elements per aligned DRAM step
  int64_t rows = 0;       // output rows per band
  int64_t nF = 0;         // filters per tile
  // Groups whose filters share the accumulator and one store (groups of at
  // most N filters), and the accumulator's columns.
  int64_t runGroups = 1, dCols = 0;
  int64_t wpitch = 0, wv = 0, guard = 0, slotRows = 0;
  int64_t vCap = 0; // virtual channels staged at a time
  uint64_t slotBytes = 0, rawSlotBytes = 0;
  uint64_t d = 0, xpad = 0, raw = 0; // acc: accumulator, f32 and raw planes
  Space aSpace = Space::Vrf;
  uint64_t a32 = 0, a16 = 0;        // patch matrix (f32, input format)
  uint64_t biasRaw = 0, bias32 = 0; // vrf
  uint64_t mrfTileBytes = 0;
  int64_t mrfSlots = 0;

  int64_t bandRows(const GemmSpec &spec, int64_t r) const {
    return (r - 1) * spec.sh + (spec.kh - 1) * spec.dh + 1;
  }
  /// Valid columns of phase p; GEMM rows per phase block.
  int64_t phaseCols(const GemmSpec &spec, int64_t p) const {
    return (spec.ow - p + phases - 1) / phases;
  }
  int64_t phaseRows(const GemmSpec &spec, int64_t r) const {
    return (r - 1) * wv + phaseCols(spec, 0);
  }
  int64_t gemmRows(const GemmSpec &spec, int64_t r) const {
    return phases * phaseRows(spec, r);
  }
};

std::optional<GemmLayout> gemmLayout(const TargetDesc &target,
                                     const GemmSpec &spec,
                                     std::string &reason) {
  GemmLayout l;
  const int64_t n = target.nativeDim, e = spec.in.bytes;
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  const int64_t vrfBytes =
      int64_t(target.vrfRegisters) * int64_t(target.vrfRegisterBytes);
  const int64_t accBytes =
      static_cast<int64_t>(target.memory(Space::Acc).bytes);
  l.tile = n;
  // Weight tiles start at filter row g * fg + f0, tap t0. When some of
  // those are not at aligned DRAM addresses, the tile's DMA starts up to
  // wSkewAlign - 1 elements early (the patch matrix gets as many zero
  // columns), so K tiles leave room for that skew.
  l.wSkewAlign = alignedCount(e, dramAlign);
  l.kTile = n;
  for (int64_t g = 0; g < spec.groups; ++g)
    for (int64_t f0 = 0; f0 < spec.fg; f0 += std::min(n, spec.fg))
      if (((g * spec.fg + f0) * spec.rowTaps() * e) % dramAlign != 0 ||
          (n * e) % dramAlign != 0)
        l.kTile = n - (l.wSkewAlign - 1);
  if (l.kTile < 1) {
    reason = "the native dimension is too small for unaligned weight rows";
    return std::nullopt;
  }
  l.guard = alignedCount(spec.w * e, dramAlign) - 1;
  l.nF = std::min(n, spec.fg);
  // A skewed tile of weight rows shorter than N would read overlapping rows
  // (the DMA row stride must cover a row): load such weights one filter at
  // a time.
  if (l.kTile < n && spec.rowTaps() < n)
    l.nF = 1;
  // Groups of at most N filters are stored in runs (consecutive groups'
  // filters are consecutive planes): only run starts need aligned output
  // planes, so runs are multiples of `step` groups, as long as fit N
  // columns.
  l.runGroups = 1;
  l.dCols = l.nF;
  if (spec.fg <= n) {
    int64_t step =
        alignedCount(spec.fg * spec.outPlane() * spec.out.bytes, dramAlign);
    l.runGroups = spec.groups * spec.fg <= n
                      ? spec.groups
                      : std::max<int64_t>(1, n / spec.fg / step * step);
    l.dCols = l.runGroups * spec.fg;
  }
  // Enough phases for a whole kernel row per copy (contiguous taps only).
  // The compaction writes each phase's pixels at element offsets of whole
  // pixels (cols filters each): 2-byte outputs need an even count of
  // filters in every stored block to keep those 4-byte aligned.
  const bool alignedPixels =
      spec.out.bytes % 4 == 0 || (spec.fg % 2 == 0 && l.nF % 2 == 0);
  if (spec.dw == 1 && spec.kw > spec.sw && alignedPixels)
    l.phases = std::min((spec.kw + spec.sw - 1) / spec.sw, spec.ow);
  // The row pitch must make sh rows a whole number of P * sw steps, and
  // keep 2-byte rows 4-byte aligned (the ACC alignment).
  for (;; l.phases = 1) {
    const int64_t step = l.phases * spec.sw;
    l.wpitch = spec.pw + spec.w + spec.pwEnd;
    while ((spec.sh * l.wpitch) % step != 0 || (l.wpitch * e) % 4 != 0)
      ++l.wpitch;
    if (l.phases == 1 || l.wpitch * kF32 <= kMaxPitch)
      break;
  }
  l.wv = spec.sh * l.wpitch / (l.phases * spec.sw);
  l.mrfTileBytes =
      alignUp(uint64_t(n * l.nF * e), target.memory(Space::Mrf).align);
  l.mrfSlots =
      static_cast<int64_t>(target.memory(Space::Mrf).bytes / l.mrfTileBytes);
  if (l.mrfSlots < 2) {
    reason = "the matrix register file holds fewer than two weight tiles";
    return std::nullopt;
  }
  int64_t biasBytes = 0;
  if (spec.biasAddr) {
    biasBytes = alignUp(spec.filters() * spec.bias.bytes, 64);
    l.bias32 = l.biasRaw;
    if (!(spec.bias == kF32Format)) {
      l.bias32 = biasBytes;
      biasBytes += alignUp(spec.filters() * kF32, 64);
    }
  }
  // Stores of a band start at output row i0: aligned when i0 * ow elements
  // are, so bands other than the whole plane are multiples of this.
  const int64_t outAlignRows =
      alignedCount(spec.ow * spec.out.bytes, dramAlign);
  // A K tile touches at most this many virtual channels.
  const int64_t vMin =
      std::min(spec.virtualChannels(), (l.kTile - 1) / spec.planeTaps() + 2);
  for (int64_t r = spec.oh; r >= 1; --r) {
    if (r < spec.oh && r % outAlignRows != 0)
      continue;
    int64_t m = l.gemmRows(spec, r);
    if (r * spec.ow > kMaxDmaYZ || m > 0xFFFF)
      continue;
    // Phases: the dropped rows of the last phases read up to P * sw
    // elements past the band's last row; a spare (zero) row covers them.
    int64_t slotRows = l.guard + l.bandRows(spec, r) + (l.phases > 1);
    if (slotRows > kMaxDmaYZ)
      continue;
    int64_t slot = alignUp(slotRows * l.wpitch * kF32, 64);
    int64_t rawSlot = e == kF32 ? 0 : alignUp(slotRows * l.wpitch * e, 64);
    int64_t dBytes = alignUp(m * l.dCols * kF32, 64);
    int64_t a32Bytes = alignUp(m * n * kF32, 64);
    int64_t aBytes = a32Bytes + (e == kF32 ? 0 : alignUp(m * n * e, 64));
    // The patch matrix goes to the VRF when it fits there, else to ACC.
    for (Space aSpace : {Space::Vrf, Space::Acc}) {
      if (aSpace == Space::Vrf && biasBytes + aBytes > vrfBytes)
        continue;
      int64_t accUsed = dBytes + (aSpace == Space::Acc ? aBytes : 0);
      if (accUsed >= accBytes)
        continue;
      int64_t vCap =
          std::min(spec.virtualChannels(),
                   (accBytes - accUsed - kRawSlots * rawSlot) / slot);
      if (vCap < vMin)
        continue;
      l.rows = r;
      l.slotRows = slotRows;
      l.slotBytes = slot;
      l.rawSlotBytes = rawSlot;
      l.vCap = vCap;
      l.d = 0;
      l.xpad = dBytes;
      l.raw = l.xpad + vCap * slot;
      l.aSpace = aSpace;
      l.a32 = aSpace == Space::Vrf ? biasBytes : l.raw + kRawSlots * rawSlot;
      l.a16 = l.a32 + a32Bytes;
      return l;
    }
  }
  reason = "one output row of this convolution (" + std::to_string(spec.ow) +
           " pixels x " + std::to_string(l.nF) +
           " filters) with its input rows does not fit the on-chip memories";
  return std::nullopt;
}

bool canEmitGemm(const TargetDesc &target, const GemmSpec &spec,
                 std::string &reason) {
  const int64_t eo = spec.out.bytes, n = target.nativeDim;
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  DType dtype = static_cast<DType>(spec.in.dt);
  if (!target.macsPerCycle.count(dtype)) {
    reason = "the target's matrix unit has no " +
             std::string(::nnaccel::isa::dtypeName(dtype)) + " mode";
    return false;
  }
  if (spec.w > 0xFFFF ||
      (spec.pw + spec.w + spec.pwEnd + spec.sw) * kF32 > kMaxPitch ||
      spec.sw * kF32 > kMaxPitch || spec.ow * n > 0xFFFF) {
    reason = "rows of " + std::to_string(spec.w) +
             " elements exceed the DMA counts or the 64 KiB operand pitch";
    return false;
  }
  std::optional<GemmLayout> layout = gemmLayout(target, spec, reason);
  if (!layout)
    return false;
  // Every store base must be aligned: stores start at the filter plane of
  // a run of groups or of a filter tile (+ image and depth slice offsets);
  // band starts are aligned by the layout. (Weight tiles are skewed
  // instead, see gemmLayout.)
  for (int64_t g = 0; g < spec.groups; g += layout->runGroups)
    for (int64_t f0 = 0; f0 < spec.fg;
         f0 += layout->runGroups > 1 ? spec.fg : layout->nF) {
      int64_t f = g * spec.fg + f0;
      if ((f * spec.outPlane() * eo) % dramAlign != 0) {
        reason = "the output plane of filter " + std::to_string(f) +
                 " starts at an unaligned DRAM address";
        return false;
      }
    }
  if ((spec.batch > 1 &&
       (spec.filters() * spec.outPlane() * eo) % dramAlign != 0) ||
      (spec.od > 1 && (spec.oh * spec.ow * eo) % dramAlign != 0)) {
    reason = "the outputs of the images or depth slices would start at "
             "unaligned DRAM addresses";
    return false;
  }
  return true;
}

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
              const GemmSpec &spec) {
  std::string unused;
  const GemmLayout l = *gemmLayout(target, spec, unused);
  const ElementFormat in = spec.in, out = spec.out;
  const int64_t e = in.bytes, eo = out.bytes, n = l.tile;
  const bool narrow = !(in == kF32Format);
  const int64_t f = spec.filters(), c = spec.channels(), k = spec.rowTaps();
  const int64_t taps = spec.planeTaps(), vc = spec.virtualChannels();
  const int64_t rowAlign = l.guard + 1;
  const MemRegion xDram =
      region(Space::Dram, spec.input,
             uint64_t(spec.batch * c * spec.d * spec.h * spec.w * e));
  const MemRegion wDram = region(Space::Dram, spec.weight, uint64_t(f * k * e));
  const MemRegion yDram =
      region(Space::Dram, spec.output,
             uint64_t(spec.batch * f * spec.outPlane() * eo));

  if (spec.biasAddr) {
    DmaLoad load{Space::Vrf, l.biasRaw, *spec.biasAddr, f};
    load.format = spec.bias;
    emitLoad(
        emitter, load,
        region(Space::Dram, *spec.biasAddr, uint64_t(f * spec.bias.bytes)));
    if (l.bias32 != l.biasRaw)
      emitCopy(emitter, {Space::Vrf, l.bias32, f * kF32}, kF32Format,
               {Space::Vrf, l.biasRaw, f * spec.bias.bytes}, spec.bias, 1, f);
  }
  // Columns past the padded width, the guard rows and the spare row are
  // never loaded; zero them once so every staged value is defined. The
  // slots are 64-byte aligned, so each slot is one row of the fill (or, for
  // slots beyond the 64 KiB pitch, a fill of its own).
  auto zeroSlots = [&](uint64_t base, uint64_t slotBytes, ElementFormat format,
                       int64_t count) {
    const int64_t cols = l.slotRows * l.wpitch;
    if (int64_t(slotBytes) <= kMaxPitch && cols <= 0xFFFF) {
      emitZero(emitter, {Space::Acc, base, int64_t(slotBytes)}, format, count,
               cols);
      return;
    }
    for (int64_t slot = 0; slot < count; ++slot)
      emitZero(emitter,
               {Space::Acc, base + uint64_t(slot) * slotBytes,
                l.wpitch * format.bytes},
               format, l.slotRows, l.wpitch);
  };
  zeroSlots(l.xpad, l.slotBytes, kF32Format, l.vCap);
  if (narrow)
    zeroSlots(l.raw, l.rawSlotBytes, in, kRawSlots);
  // mm reads the patch matrix as one range, including the columns past K
  // that no gather writes: define them once.
  const int64_t mMax = l.gemmRows(spec, l.rows);
  emitZero(emitter, {l.aSpace, l.a32, n * kF32}, kF32Format, mMax, n);
  if (narrow)
    emitZero(emitter, {l.aSpace, l.a16, n * e}, in, mMax, n);

  const int64_t kTiles = (k + l.kTile - 1) / l.kTile,
                fTiles = (spec.fg + l.nF - 1) / l.nF;
  // Weight tiles stay resident (loaded once) when all of them fit the MRF;
  // otherwise two slots alternate, so every reload waits for a recent mm
  // (reusing a slot many tiles later would leave ex -> ld tokens
  // outstanding for consumers not yet dispatched).
  const int64_t totalTiles = spec.groups * fTiles * kTiles;
  const int64_t wSlots = totalTiles <= l.mrfSlots ? l.mrfSlots : 2;
  std::vector<int64_t> resident(wSlots, -1);
  for (int64_t image = 0; image < spec.batch; ++image)
    for (int64_t o = 0; o < spec.od; ++o)
      for (int64_t g0 = 0; g0 < spec.groups; g0 += l.runGroups)
        for (int64_t i0 = 0; i0 < spec.oh; i0 += l.rows) {
          const int64_t r = std::min(l.rows, spec.oh - i0);
          const int64_t band = l.bandRows(spec, r), m = l.gemmRows(spec, r),
                        mPhase = l.phaseRows(spec, r);
          const int64_t p0 = i0 * spec.sh; // padded input row of band row 0
          const int64_t gEnd = std::min(spec.groups, g0 + l.runGroups);
          int64_t g = g0;
          int64_t vBase = -1, vCount = 0;
          // Stages virtual channels [v0, v0 + vCount) of the band. The
          // slots are refilled from the last one down: the last slot was
          // read by the latest gather, so the first DMA's wait implies all
          // the others (one ex -> ld token, not one per slot; tokens for
          // far-away consumers could fill the FIFO and deadlock).
          auto stage = [&](int64_t v0) {
            vBase = v0;
            vCount = std::min(l.vCap, vc - v0);
            for (int64_t v = v0 + vCount - 1; v >= v0; --v) {
              int64_t channel = g * spec.cg + v / spec.kd;
              int64_t z = o * spec.sd - spec.pd + (v % spec.kd) * spec.dd;
              uint64_t slot32 = l.xpad + uint64_t((v - v0) * l.slotBytes);
              Block target =
                  narrow
                      ? Block{Space::Acc,
                              l.raw +
                                  uint64_t(((v0 + vCount - 1 - v) % kRawSlots) *
                                           l.rawSlotBytes),
                              l.wpitch * e}
                      : Block{Space::Acc, slot32, l.wpitch * kF32};
              const uint64_t origin =
                  target.addr + uint64_t(l.guard * target.pitch);
              auto zeroRows = [&](int64_t from, int64_t to) {
                if (from < to)
                  emitZero(emitter,
                           {Space::Acc, origin + uint64_t(from * target.pitch),
                            target.pitch},
                           in, to - from, l.wpitch);
              };
              int64_t r0 = std::max<int64_t>(0, p0 - spec.ph);
              int64_t r1 = std::min(spec.h, p0 + band - spec.ph);
              if (z < 0 || z >= spec.d || r1 <= r0) {
                zeroRows(0, band); // the band lies in the padding
              } else {
                int64_t top = r0 + spec.ph - p0;
                // Start the DMA at the closest aligned DRAM row at or before
                // r0 (flat row index over all planes); the rows before r0
                // land in the guard rows and are overwritten or unused.
                int64_t flat =
                    ((image * c + channel) * spec.d + z) * spec.h + r0;
                int64_t delta = flat % rowAlign;
                // The zero border columns come from the DMA's pl/pr when
                // they fit its 3-bit fields; wider borders are never
                // written, so they keep the zeros of the initial fill (the
                // DMA only keeps 2-byte rows 4-byte aligned with pl).
                const int64_t pl =
                    spec.pw <= kMaxDmaPad ? spec.pw : spec.pw % (4 / e);
                const int64_t pr = spec.pwEnd <= kMaxDmaPad ? spec.pwEnd : 0;
                DmaLoad load{Space::Acc,
                             origin + uint64_t((top - delta) * target.pitch +
                                               (spec.pw - pl) * e),
                             spec.input + uint64_t((flat - delta) * spec.w * e),
                             /*x=*/spec.w,
                             /*y=*/r1 - r0 + delta,
                             /*z=*/1,
                             /*sy=*/spec.w * e,
                             /*sz=*/0,
                             /*dpitch=*/target.pitch};
                load.pl = pl;
                load.pr = pr;
                load.format = in;
                emitLoad(emitter, load, xDram);
                zeroRows(0, top);
                zeroRows(r1 + spec.ph - p0, band);
              }
              if (narrow)
                emitCopy(emitter,
                         {Space::Acc,
                          slot32 + uint64_t(l.guard * l.wpitch * kF32),
                          l.wpitch * kF32},
                         kF32Format, {Space::Acc, origin, target.pitch}, in,
                         band, l.wpitch);
            }
          };

          // D[:, col .. col + nf) (row pitch: dCols floats) = the patches of
          // group g times filter tile ft, accumulated over the K tiles.
          auto accumulate = [&](int64_t ft, int64_t col, int64_t dCols) {
            const int64_t f0 = ft * l.nF, nf = std::min(l.nF, spec.fg - f0);
            const Block acc{Space::Acc, l.d + uint64_t(col * kF32),
                            dCols * kF32};
            for (int64_t kt = 0; kt < kTiles; ++kt) {
              const int64_t t0 = kt * l.kTile, kn = std::min(l.kTile, k - t0);
              int64_t vFirst = t0 / taps, vLast = (t0 + kn - 1) / taps;
              if (vBase < 0 || vFirst < vBase || vLast >= vBase + vCount)
                stage(vFirst);
              // The weight tile: nf rows of kn taps, straight from DRAM,
              // starting `skew` taps early at an aligned address; the patch
              // matrix has `skew` zero columns to match, so the extra
              // weights (finite: the previous taps) add nothing.
              const int64_t wFlat = (g * spec.fg + f0) * k + t0;
              const int64_t skew = wFlat % l.wSkewAlign, kSkewed = kn + skew;
              int64_t tileId = (g * fTiles + ft) * kTiles + kt;
              int64_t slot = tileId % wSlots;
              uint64_t wAddr = uint64_t(slot) * l.mrfTileBytes;
              if (resident[slot] != tileId) {
                DmaLoad load{Space::Mrf,
                             wAddr,
                             spec.weight + uint64_t((wFlat - skew) * e),
                             /*x=*/kSkewed,
                             /*y=*/nf,
                             /*z=*/1,
                             /*sy=*/k * e,
                             /*sz=*/0,
                             /*dpitch=*/kSkewed * e};
                load.format = in;
                emitLoad(emitter, load, wDram);
                resident[slot] = tileId;
              }
              // Patch matrix: column skew + t - t0 is tap t's window.
              if (skew > 0)
                emitZero(emitter, {l.aSpace, l.a32, n * kF32}, kF32Format, m,
                         skew);
              for (int64_t t = t0; t < t0 + kn;) {
                int64_t v = t / taps, rem = t % taps;
                int64_t th = rem / spec.kw, tw = rem % spec.kw;
                // Adjacent column taps are one copy when they fit in the
                // source row step (P * sw elements); one copy per phase.
                const int64_t rowStep = l.phases * spec.sw;
                int64_t len =
                    spec.dw == 1
                        ? std::min({spec.kw - tw, t0 + kn - t, rowStep})
                        : 1;
                for (int64_t p = 0; p < l.phases; ++p) {
                  Block window{
                      Space::Acc,
                      l.xpad + uint64_t((v - vBase) * l.slotBytes +
                                        ((l.guard + th * spec.dh) * l.wpitch +
                                         tw * spec.dw + p * spec.sw) *
                                            kF32),
                      rowStep * kF32};
                  emitCopy(emitter,
                           {l.aSpace,
                            l.a32 + uint64_t((p * mPhase * n + skew + t - t0) *
                                             kF32),
                            n * kF32},
                           kF32Format, window, kF32Format, mPhase, len);
                }
                t += len;
              }
              Block a{l.aSpace, l.a32, n * kF32};
              if (narrow) {
                Block a16{l.aSpace, l.a16, n * e};
                emitCopy(emitter, a16, in, a, kF32Format, m, kSkewed);
                a = a16;
              }
              Instruction mm(Opcode::Mm);
              setMem(mm, "dst", acc.space, acc.addr);
              setMem(mm, "a", a.space, a.addr);
              setMem(mm, "w", Space::Mrf, wAddr);
              mm.with("dt", kDt)
                  .with("at", in.dt)
                  .with("wt", in.dt)
                  .with("m", m)
                  .with("k", kSkewed)
                  .with("n", nf)
                  .with("dpitch", acc.pitch)
                  .with("apitch", a.pitch)
                  .with("acc", kt > 0 ? 1 : 0);
              emitter.emit(
                  mm,
                  {footprint(a, m, kSkewed, e),
                   region(Space::Mrf, wAddr, uint64_t(nf * kSkewed * e))},
                  {footprint(acc, m, nf)});
            }
          };
          // Bias, activation, compaction and the store of D's `cols`
          // columns, the planes of filters [first, first + cols).
          auto finish = [&](int64_t first, int64_t cols) {
            const Block acc{Space::Acc, l.d, cols * kF32};
            if (spec.biasAddr)
              emitBinary(emitter, Opcode::VAdd, acc, acc,
                         Block{Space::Vrf, l.bias32 + uint64_t(first * kF32),
                               cols * kF32},
                         Bcast::Row, m, cols);
            emitActivation(emitter, spec.activation, acc, m, cols);
            // Valid pixels only, dense [r * ow, cols], in the output type
            // (in the patch buffer, free until the next tile's gathers).
            const Block compact{l.aSpace, l.a32, spec.ow * cols * eo};
            const Block rowsOfD{Space::Acc, l.d, l.wv * cols * kF32};
            if (l.phases > 1) {
              // Re-interleave: pixel j' of phase p, output row i, is
              // column j' * P + p.
              for (int64_t p = 0; p < l.phases; ++p)
                for (int64_t i = 0; i < r; ++i)
                  emitCopy(
                      emitter,
                      {compact.space,
                       compact.addr + uint64_t((i * spec.ow + p) * cols * eo),
                       l.phases * cols * eo},
                      out,
                      {Space::Acc,
                       l.d + uint64_t((p * mPhase + i * l.wv) * cols * kF32),
                       cols * kF32},
                      kF32Format, l.phaseCols(spec, p), cols);
            } else if (rowsOfD.pitch <= kMaxPitch &&
                       compact.pitch <= kMaxPitch) {
              emitCopy(emitter, compact, out, rowsOfD, kF32Format, r,
                       spec.ow * cols);
            } else {
              for (int64_t i = 0; i < r; ++i)
                emitCopy(
                    emitter,
                    {compact.space, compact.addr + uint64_t(i * compact.pitch),
                     compact.pitch},
                    out,
                    {rowsOfD.space, rowsOfD.addr + uint64_t(i * rowsOfD.pitch),
                     rowsOfD.pitch},
                    kF32Format, 1, spec.ow * cols);
            }
            // Transposing store: source row p * cols + filter is one
            // element; pixel p goes to dz = one element, filters to dy = a
            // plane.
            DmaStore store{spec.output +
                               uint64_t(((image * f + first) * spec.outPlane() +
                                         o * spec.oh * spec.ow + i0 * spec.ow) *
                                        eo),
                           compact.space,
                           compact.addr,
                           /*x=*/1,
                           /*y=*/cols,
                           /*z=*/r * spec.ow,
                           /*dy=*/spec.outPlane() * eo,
                           /*dz=*/eo,
                           /*spitch=*/eo};
            store.format = out;
            emitStore(emitter, store, yDram);
          };

          if (spec.fg <= l.dCols) {
            // A run of groups with all their filters in D.
            const int64_t cols = (gEnd - g0) * spec.fg;
            for (g = g0; g < gEnd; ++g) {
              vBase = -1;
              for (int64_t ft = 0; ft < fTiles; ++ft)
                accumulate(ft, (g - g0) * spec.fg + ft * l.nF, cols);
            }
            finish(g0 * spec.fg, cols);
          } else {
            // One group of more than N filters, one filter tile at a time.
            for (int64_t ft = 0; ft < fTiles; ++ft) {
              int64_t nf = std::min(l.nF, spec.fg - ft * l.nF);
              accumulate(ft, 0, nf);
              finish(g0 * spec.fg + ft * l.nF, nf);
            }
          }
        }
}

//===----------------------------------------------------------------------===//
// accel.conv adapter
//===----------------------------------------------------------------------===//

enum class ConvKind { Pointwise, Depthwise, Dense, Gemm };

/// The kernel chosen for one accel.conv and its spec (addresses left 0).
struct ConvPlan {
  ConvKind kind = ConvKind::Gemm;
  PointwiseSpec pointwise;
  DepthwiseSpec depthwise;
  DenseSpec dense;
  GemmSpec gemm;
};

/// Chooses the kernel of `op` on `target`: one of the f32 2-D special
/// kernels where it applies (they are faster or bit-exact), else the general
/// implicit GEMM; or the reason none can run it.
std::optional<ConvPlan> planConv(ConvOp op, const TargetDesc &target,
                                 std::string &reason) {
  SmallVector<Type> types(op->getOperandTypes());
  types.push_back(op.getType());
  if (!allCardFloat(types, "conv", reason))
    return std::nullopt;
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto weightType = cast<RankedTensorType>(op.getWeight().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!inputType.hasStaticShape() || !weightType.hasStaticShape() ||
      !resultType.hasStaticShape()) {
    reason = "only convolutions with static shapes are lowered to the card";
    return std::nullopt;
  }
  const int64_t rank = inputType.getRank(), spatial = rank - 2;
  if (spatial < 1 || spatial > 3) {
    reason = "only 1-D, 2-D and 3-D convolutions are lowered to the card";
    return std::nullopt;
  }
  ElementFormat in = *getElementFormat(inputType);
  if (!(*getElementFormat(weightType) == in)) {
    reason = "conv runs on the card with input and weight of one element "
             "type only (the matrix unit multiplies equal types)";
    return std::nullopt;
  }
  ElementFormat out = *getElementFormat(resultType);
  std::optional<ElementFormat> bias;
  if (Value b = op.getBias())
    bias = getElementFormat(b.getType());

  ArrayRef<int64_t> is = inputType.getShape(), ws = weightType.getShape(),
                    rs = resultType.getShape();
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                    dilations = op.getDilations();
  const int64_t batch = is[0], c = is[1], f = ws[0], groups = op.getGroups();
  ActivationSpec act = getFusedActivation(op);
  ConvPlan plan;

  // The special kernels: 2-D, no dilation, one element type; f32 only,
  // except depthwise, which computes in f32 on the MFUs for any input type.
  bool oneFormat = out == in && (!bias || *bias == in);
  bool allF32 =
      oneFormat && in == kF32Format && target.macsPerCycle.count(DType::F32);
  if (oneFormat && spatial == 2 &&
      llvm::all_of(dilations, [](int64_t d) { return d == 1; })) {
    const int64_t h = is[2], w = is[3];
    bool equalStrides12 =
        strides[0] == strides[1] && (strides[0] == 1 || strides[0] == 2);
    bool pads0 = llvm::all_of(pads, [](int64_t p) { return p == 0; });
    bool pads1 = llvm::all_of(pads, [](int64_t p) { return p == 1; });
    bool is3x3 = ws[2] == 3 && ws[3] == 3;
    std::string unused;
    if (allF32 && groups == 1 && ws[2] == 1 && ws[3] == 1 && pads0) {
      PointwiseSpec &spec = plan.pointwise;
      spec.batch = batch;
      spec.c = c;
      spec.f = f;
      spec.h = h;
      spec.w = w;
      spec.sh = strides[0];
      spec.sw = strides[1];
      spec.ho = rs[2];
      spec.wo = rs[3];
      spec.hw = spec.ho * spec.wo;
      spec.activation = act;
      if (bias)
        spec.bias = 0;
      if (canEmitPointwise(target, spec, unused)) {
        plan.kind = ConvKind::Pointwise;
        return plan;
      }
    }
    // Depthwise k x k, k odd up to 7 (DMA padding fields), "same" padding.
    const int64_t k = ws[2];
    bool squareOdd = ws[3] == k && k % 2 == 1 && k >= 3 && k <= 7;
    bool padsSame = llvm::all_of(pads, [&](int64_t p) { return p == k / 2; });
    if (groups == c && f == c && ws[1] == 1 && squareOdd && padsSame &&
        equalStrides12) {
      DepthwiseSpec &spec = plan.depthwise;
      spec.format = in;
      spec.batch = batch;
      spec.c = c;
      spec.h = h;
      spec.w = w;
      spec.stride = strides[0];
      spec.k = k;
      spec.activation = act;
      if (bias)
        spec.bias = 0;
      if (canEmitDepthwise(target, spec, unused)) {
        plan.kind = ConvKind::Depthwise;
        return plan;
      }
    }
    if (allF32 && groups == 1 && is3x3 && pads1 && equalStrides12) {
      DenseSpec &spec = plan.dense;
      spec.batch = batch;
      spec.c = c;
      spec.f = f;
      spec.h = h;
      spec.w = w;
      spec.stride = strides[0];
      spec.activation = act;
      if (bias)
        spec.bias = 0;
      if (canEmitDense(target, spec, unused)) {
        plan.kind = ConvKind::Dense;
        return plan;
      }
    }
  }

  // The general kernel sees every convolution as 3-D: 1-D and 2-D ones have
  // unit (kernel) depth and height and no padding there.
  GemmSpec &spec = plan.gemm;
  spec.in = in;
  spec.out = out;
  spec.bias = bias.value_or(kF32Format);
  if (bias)
    spec.biasAddr = 0;
  spec.activation = act;
  spec.batch = batch;
  spec.groups = groups;
  spec.cg = ws[1];
  spec.fg = f / groups;
  int64_t *inDims[3] = {&spec.d, &spec.h, &spec.w};
  int64_t *kDims[3] = {&spec.kd, &spec.kh, &spec.kw};
  int64_t *sDims[3] = {&spec.sd, &spec.sh, &spec.sw};
  int64_t *dDims[3] = {&spec.dd, &spec.dh, &spec.dw};
  int64_t *pDims[3] = {&spec.pd, &spec.ph, &spec.pw};
  int64_t *oDims[3] = {&spec.od, &spec.oh, &spec.ow};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t axis = 3 - spatial + i; // innermost axes are height, width
    *inDims[axis] = is[2 + i];
    *kDims[axis] = ws[2 + i];
    *sDims[axis] = strides[i];
    *dDims[axis] = dilations[i];
    *pDims[axis] = pads[i];
    *oDims[axis] = rs[2 + i];
  }
  spec.pwEnd = pads[2 * spatial - 1];
  if (!canEmitGemm(target, spec, reason))
    return std::nullopt;
  plan.kind = ConvKind::Gemm;
  return plan;
}

LogicalResult checkConv(Operation *operation, const TargetDesc &target,
                        std::string &reason) {
  return success(planConv(cast<ConvOp>(operation), target, reason).has_value());
}

LogicalResult emitConv(Operation *operation, KernelContext &context) {
  auto op = cast<ConvOp>(operation);
  std::string reason;
  std::optional<ConvPlan> plan = planConv(op, context.target, reason);
  if (!plan)
    return op.emitOpError() << "cannot run on the card: " << reason;
  uint64_t input = context.addressOf(op.getInput());
  uint64_t weight = context.addressOf(op.getWeight());
  uint64_t output = context.addressOf(op.getResult());
  std::optional<uint64_t> bias;
  if (Value b = op.getBias())
    bias = context.addressOf(b);
  auto bind = [&](auto &spec) {
    spec.input = input;
    spec.weight = weight;
    spec.output = output;
  };
  switch (plan->kind) {
  case ConvKind::Pointwise:
    bind(plan->pointwise);
    plan->pointwise.bias = bias;
    emitPointwise(context.emitter, context.target, plan->pointwise);
    break;
  case ConvKind::Depthwise:
    bind(plan->depthwise);
    plan->depthwise.bias = bias;
    emitDepthwise(context.emitter, context.target, plan->depthwise);
    break;
  case ConvKind::Dense:
    bind(plan->dense);
    plan->dense.bias = bias;
    emitDense(context.emitter, context.target, plan->dense);
    break;
  case ConvKind::Gemm:
    bind(plan->gemm);
    plan->gemm.biasAddr = bias;
    emitGemm(context.emitter, context.target, plan->gemm);
    break;
  }
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::registerConvKernels(KernelTable &table) {
  table[ConvOp::getOperationName()] = {checkConv, emitConv};
}
