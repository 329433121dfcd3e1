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

/// Whether a strided conv's input can be subsampled into SHARED
/// (subsampleIntoShared): it fits, and the DMAs keep their counts and
/// aligned starts.
bool canSubsample(const TargetDesc &target, const PointwiseSpec &spec,
                  std::string &reason) {
  if (uint64_t(spec.c * spec.hw * kF32) > target.memory(Space::Shared).bytes) {
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
  return true;
}

/// A strided conv's input `x` subsampled into SHARED at spec.shared: every
/// sw-th element of every sh-th row, one element per DMA row, densely (the
/// X^T tile loads need a DMA source; gathering the odd elements straight
/// from DRAM would start at unaligned addresses). The ld queue runs in
/// order, so the next image's subsampling waits for this image's tile
/// loads by itself.
void subsampleIntoShared(ProgramEmitter &emitter, const TargetDesc &target,
                         const PointwiseSpec &spec, uint64_t x) {
  const int64_t chunk = subsampleChannels(target, spec);
  for (int64_t c0 = 0; c0 < spec.c; c0 += chunk) {
    int64_t cc = std::min(chunk, spec.c - c0);
    DmaLoad load;
    load.dst = {Space::Shared, spec.shared + uint64_t(c0 * spec.hw * kF32)};
    load.src = {Space::Dram, x + uint64_t(c0 * spec.h * spec.w * kF32)};
    load.x = 1;
    load.y = spec.wo;
    load.z = cc * spec.ho;
    load.sy = spec.sw * kF32;
    load.sz = spec.sh * spec.w * kF32;
    emitLoad(emitter, load);
  }
}

//===----------------------------------------------------------------------===//
// Block-float weights
//===----------------------------------------------------------------------===//
//
// `mm` takes a block weight only as its `w` (MRF) operand, n rows of k
// elements with blocks along k, and converts the f32 `a` rows to the
// weight's blocks. So pixels are the rows here (the f32 kernel above has
// filters as rows): A = X^T [pixels x C] in ACC (the DMA transposes a
// block of pixels on the fly: one element per row, a plane per pixel),
// W = the F x C weight rows in groups of N filters, and D[pixels, filters]
// += A[:, tile] . W[group, tile]^T over the k tiles (`kTile` channels, the
// op's k_tile, a divisor of C). Bias per column (bcast = row), activation,
// and a transposing store (one element per DMA row) into the NCHW planes.
//
// The weight: one DMA per group of N filter rows loads all its k tiles, a
// plane per tile (source rows of C at the group's base, planes
// rowBytes(kTile) apart). A group's rows start at aligned DRAM addresses
// (N rows of whole blocks are whole 64-byte granules), a single k tile
// would not (rowBytes(64) = 36 in msfp8). Planes of N rows are MRF-aligned;
// a last group of fewer rows whose planes would not be (20 msfp8 rows of
// 36 bytes) goes through SHARED instead: one DMA lays its tiles out there
// with rows padded to an aligned pitch, then one DMA per tile moves it
// dense to an aligned MRF slot. All groups stay resident when the MRF holds
// them (loaded once per conv); otherwise groups run one after the other
// through two alternating slots and the pixels are reloaded per group.

struct BlockPointwiseLayout {
  int64_t tile = 0;                          // N: filters per group
  int64_t kTiles = 0;                        // C / kTile
  int64_t rowBytes = 0;                      // bytes of a weight row's k tile
  int64_t pixels = 0;                        // pixels per block (the mm's m)
  int64_t aSlots = 1;                        // pixel blocks buffered in ACC
  uint64_t aBytes = 0;                       // one pixel block: pixels x C f32
  uint64_t aBase = 0, dBase = 0, dBytes = 0; // acc
  uint64_t biasBase = 0;                     // vrf
  std::vector<uint64_t> tileStride;          // per group: MRF tile stride
  std::vector<bool> staged;                  // per group: through SHARED
  int64_t stagePitch = 0;                    // SHARED row pitch of a stage
  uint64_t stageBytes = 0;                   // SHARED bytes of a stage
  uint64_t slotBytes = 0;                    // largest group
  bool resident = false;                     // every group fits the MRF
  int64_t corePixels = 0;                    // pixels per core (spec.cores)

  int64_t groups(int64_t f) const { return (f + tile - 1) / tile; }
  int64_t groupRows(int64_t f, int64_t g) const {
    return std::min(tile, f - g * tile);
  }
  uint64_t groupBytes(int64_t g) const {
    return uint64_t(kTiles) * tileStride[size_t(g)];
  }
  /// MRF byte offset of group g's slot.
  uint64_t groupBase(int64_t g) const {
    if (resident) {
      uint64_t base = 0;
      for (int64_t i = 0; i < g; ++i)
        base += groupBytes(i);
      return base;
    }
    return uint64_t(g % 2) * slotBytes;
  }
};

std::optional<BlockPointwiseLayout>
blockPointwiseLayout(const TargetDesc &target, const PointwiseSpec &spec,
                     std::string &reason) {
  BlockPointwiseLayout l;
  const ElementFormat wf = *spec.blockWeight;
  const int64_t block = int64_t(::nnaccel::blockElements(wf.dtype));
  const int64_t n = target.nativeDim, c = spec.c, f = spec.f;
  const uint64_t mrfAlign = target.memory(Space::Mrf).align;
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  const int64_t sharedAlign =
      static_cast<int64_t>(target.memory(Space::Shared).align);
  l.tile = n;
  if (!target.macsPerCycle.count(wf.dtype)) {
    reason = "the target's matrix unit has no " +
             std::string(::nnaccel::isa::dtypeName(wf.dtype)) + " mode";
    return std::nullopt;
  }
  if (spec.kTile < block || spec.kTile > n || spec.kTile % block ||
      c % spec.kTile) {
    reason = "k_tile = " + std::to_string(spec.kTile) +
             " must be a multiple of the block size " + std::to_string(block) +
             ", at most native_dim " + std::to_string(n) + " and divide the " +
             std::to_string(c) + " channels";
    return std::nullopt;
  }
  l.kTiles = c / spec.kTile;
  l.rowBytes = wf.rowBytes(spec.kTile);
  l.stagePitch = int64_t(alignUp(uint64_t(l.rowBytes), sharedAlign));
  const int64_t weightRow = wf.rowBytes(c);
  if (weightRow > 0xFFFFFFFFll || c > kMaxDmaYZ || c * kF32 > kMaxPitch ||
      l.kTiles > kMaxDmaYZ) {
    reason = "rows of " + std::to_string(c) +
             " input channels exceed the DMA counts or the 64 KiB operand "
             "pitch";
    return std::nullopt;
  }
  for (int64_t g = 0; g < l.groups(f); ++g) {
    const int64_t rows = l.groupRows(f, g);
    if ((g * n * weightRow) % dramAlign != 0) {
      reason = "the weight rows of filter " + std::to_string(g * n) +
               " start at an unaligned DRAM address";
      return std::nullopt;
    }
    const uint64_t tileBytes = uint64_t(rows * l.rowBytes);
    const bool staged = l.kTiles > 1 && tileBytes % mrfAlign != 0;
    l.staged.push_back(staged);
    l.tileStride.push_back(alignUp(tileBytes, mrfAlign));
    if (staged)
      l.stageBytes =
          std::max(l.stageBytes, uint64_t(l.kTiles * rows * l.stagePitch));
    l.slotBytes = std::max(l.slotBytes, l.groupBytes(g));
  }
  const uint64_t subsampled = spec.strided() ? uint64_t(c * spec.hw * kF32) : 0;
  if (subsampled + l.stageBytes > target.memory(Space::Shared).bytes) {
    reason = "the staged weight tiles do not fit the shared memory";
    return std::nullopt;
  }
  const uint64_t mrfBytes = target.memory(Space::Mrf).bytes;
  uint64_t total = 0;
  for (int64_t g = 0; g < l.groups(f); ++g)
    total += l.groupBytes(g);
  l.resident = total <= mrfBytes;
  if (!l.resident && 2 * l.slotBytes > mrfBytes) {
    reason = "two groups of " + std::to_string(n) +
             " block-float filter rows do not fit the matrix register file";
    return std::nullopt;
  }
  // VRF: the bias. ACC: pixel blocks (A) and two result blocks (D).
  const uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  if (spec.bias && uint64_t(f * kF32) > vrfBytes) {
    reason = "the bias of " + std::to_string(f) +
             " filters does not fit the vector register file";
    return std::nullopt;
  }
  const uint64_t accBytes = target.memory(Space::Acc).bytes;
  const uint64_t accAlign = target.memory(Space::Acc).align;
  // Pixel blocks other than the last start at aligned DRAM addresses, and
  // so do the cores' pixel ranges.
  const int64_t step = alignedCount(kF32, dramAlign);
  const int64_t nf = std::min(n, f);
  l.corePixels =
      spec.cores > 1
          ? std::min(spec.hw,
                     ceilDiv(ceilDiv(spec.hw, spec.cores), step) * step)
          : spec.hw;
  // Cores sharing the pixels store interleaved into every plane: in blocks
  // the race detector checks row by row (one row per element here).
  const int64_t storeCap =
      spec.cores > 1 ? std::max(step, kMaxCheckedStoreRows / nf / step * step)
                     : kMaxCount;
  for (int64_t aSlots : {2, 1}) {
    int64_t pixels =
        std::min<int64_t>({l.corePixels, kMaxDmaYZ, kMaxCount, storeCap});
    while (pixels >= 1) {
      if (pixels < spec.hw)
        pixels = pixels / step * step;
      if (pixels < 1)
        break;
      uint64_t aBytes = alignUp(uint64_t(pixels * c * kF32), accAlign);
      uint64_t dBytes = alignUp(uint64_t(pixels * nf * kF32), accAlign);
      if (aSlots * aBytes + 2 * dBytes <= accBytes) {
        l.pixels = pixels;
        l.aSlots = aSlots;
        l.aBytes = aBytes;
        l.dBytes = dBytes;
        l.dBase = 0;
        l.aBase = 2 * dBytes;
        return l;
      }
      pixels = pixels < spec.hw ? pixels - step : pixels - 1;
    }
  }
  reason = "a block of pixels of " + std::to_string(c) +
           " channels does not fit the accumulator memory";
  return std::nullopt;
}

bool canEmitBlockPointwise(const TargetDesc &target, const PointwiseSpec &spec,
                           std::string &reason) {
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  if (spec.batch > 1 && ((spec.c * spec.h * spec.w * kF32) % dramAlign != 0 ||
                         (spec.f * spec.hw * kF32) % dramAlign != 0)) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  if (spec.hw * kF32 > kMaxPitch || spec.f > kMaxDmaYZ) {
    reason = "output planes of " + std::to_string(spec.hw) +
             " pixels exceed the 64 KiB store pitch";
    return false;
  }
  if (spec.strided() && !canSubsample(target, spec, reason))
    return false;
  return blockPointwiseLayout(target, spec, reason).has_value();
}

/// Pixels [begin, end) of every image of `spec` on `emitter`, with all the
/// filters; `core` picks the core's SHARED staging region.
void emitBlockPointwiseCore(ProgramEmitter &emitter, const TargetDesc &target,
                            const PointwiseSpec &spec,
                            const BlockPointwiseLayout &l, int64_t core,
                            int64_t begin, int64_t end) {
  const ElementFormat wf = *spec.blockWeight;
  const int64_t c = spec.c, f = spec.f, hw = spec.hw, kTile = spec.kTile;
  const int64_t weightRow = wf.rowBytes(c), groups = l.groups(f);

  if (spec.bias) {
    DmaLoad bias;
    bias.dst = {Space::Vrf, l.biasBase};
    bias.src = {Space::Dram, *spec.bias};
    bias.x = f;
    emitLoad(emitter, bias);
  }
  // Group g's weight tiles, unless its slot holds them already.
  std::vector<int64_t> resident(size_t(l.resident ? groups : 2), -1);
  auto loadGroup = [&](int64_t g) {
    int64_t &slot = resident[size_t(l.resident ? g : g % 2)];
    if (slot == g)
      return;
    slot = g;
    const int64_t rows = l.groupRows(f, g);
    const uint64_t src = spec.weight + uint64_t(g * l.tile * weightRow);
    if (!l.staged[size_t(g)]) {
      DmaLoad load;
      load.dst = {Space::Mrf, l.groupBase(g)};
      load.src = {Space::Dram, src};
      load.format = wf;
      load.x = kTile;
      load.y = rows;
      load.z = l.kTiles;
      load.sy = weightRow;
      load.sz = l.kTiles > 1 ? l.rowBytes : 0;
      emitLoad(emitter, load);
      return;
    }
    // Through SHARED: the tiles as planes of rows at an aligned pitch, then
    // each tile dense into its MRF slot.
    const uint64_t stage = spec.shared +
                           (spec.strided() ? uint64_t(c * hw * kF32) : 0) +
                           uint64_t(core) * l.stageBytes;
    DmaLoad load;
    load.dst = {Space::Shared, stage};
    load.src = {Space::Dram, src};
    load.format = wf;
    load.x = kTile;
    load.y = rows;
    load.z = l.kTiles;
    load.sy = weightRow;
    load.sz = l.rowBytes;
    load.dpitch = l.stagePitch;
    emitLoad(emitter, load);
    for (int64_t t = 0; t < l.kTiles; ++t) {
      DmaLoad tileLoad;
      tileLoad.dst = {Space::Mrf,
                      l.groupBase(g) + uint64_t(t) * l.tileStride[size_t(g)]};
      tileLoad.src = {Space::Shared, stage + uint64_t(t * rows * l.stagePitch)};
      tileLoad.format = wf;
      tileLoad.x = kTile;
      tileLoad.y = rows;
      tileLoad.sy = l.stagePitch;
      emitLoad(emitter, tileLoad);
    }
  };
  // A pixel block transposed into ACC: plane = pixel, rows = channels, one
  // element per row, i.e. one dense row of C channels per pixel.
  auto loadPixels = [&](Space space, uint64_t x, int64_t p0, int64_t count,
                        uint64_t dst) {
    DmaLoad load;
    load.dst = {Space::Acc, dst};
    load.src = {space, x + uint64_t(p0 * kF32)};
    load.x = 1;
    load.y = c;
    load.z = count;
    load.sy = hw * kF32;
    load.sz = kF32;
    emitLoad(emitter, load);
  };
  int64_t blockCount = 0, resultCount = 0;
  // D[pixels, group g's filters] for the pixel block at `a`, then bias,
  // activation and the store into the planes of filters g * N on.
  auto computeGroup = [&](uint64_t y, int64_t p0, int64_t count, uint64_t a,
                          int64_t g) {
    loadGroup(g);
    const int64_t rows = l.groupRows(f, g), f0 = g * l.tile;
    const Operand2D d{Space::Acc,
                      l.dBase + uint64_t(resultCount++ % 2) * l.dBytes,
                      rows * kF32};
    for (int64_t t = 0; t < l.kTiles; ++t)
      emitMm(
          emitter, d,
          Operand2D{Space::Acc, a + uint64_t(t * kTile * kF32), c * kF32},
          denseOperand(Space::Mrf,
                       l.groupBase(g) + uint64_t(t) * l.tileStride[size_t(g)],
                       kTile, wf),
          count, kTile, rows, t > 0);
    if (spec.bias)
      emitBinary(
          emitter, Opcode::VAdd, d, d,
          Operand2D{Space::Vrf, l.biasBase + uint64_t(f0 * kF32), rows * kF32},
          Bcast::Row, count, rows);
    emitActivation(emitter, spec.activation, d, count, rows);
    // Transposing store: source row p * rows + filter is one element;
    // filters go to dy = a plane, pixels to dz = one element.
    DmaStore store;
    store.dst = {Space::Dram, y + uint64_t((f0 * hw + p0) * kF32)};
    store.src = d.ref();
    store.x = 1;
    store.y = rows;
    store.z = count;
    store.dy = hw * kF32;
    store.dz = kF32;
    store.spitch = kF32;
    emitStore(emitter, store);
  };
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * spec.h * spec.w * kF32);
    uint64_t y = spec.output + uint64_t(image * f * hw * kF32);
    Space xSpace = Space::Dram;
    if (spec.strided()) {
      subsampleIntoShared(emitter, target, spec, x);
      x = spec.shared;
      xSpace = Space::Shared;
    }
    auto nextBlock = [&]() {
      return l.aBase + uint64_t(blockCount++ % l.aSlots) * l.aBytes;
    };
    if (l.resident) {
      // Every group resident: each pixel block is loaded once and meets
      // all the filters.
      for (int64_t p0 = begin; p0 < end; p0 += l.pixels) {
        const int64_t count = std::min(l.pixels, end - p0);
        const uint64_t a = nextBlock();
        loadPixels(xSpace, x, p0, count, a);
        for (int64_t g = 0; g < groups; ++g)
          computeGroup(y, p0, count, a, g);
      }
      continue;
    }
    // Groups through two slots: each group's weights are loaded once per
    // image and meet every pixel block.
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t p0 = begin; p0 < end; p0 += l.pixels) {
        const int64_t count = std::min(l.pixels, end - p0);
        const uint64_t a = nextBlock();
        loadPixels(xSpace, x, p0, count, a);
        computeGroup(y, p0, count, a, g);
      }
  }
}

/// `spec` with the cores that get pixels (whole alignment steps each).
PointwiseSpec withBlockCores(const TargetDesc &target,
                             const PointwiseSpec &spec) {
  PointwiseSpec usable = spec;
  const int64_t step =
      alignedCount(kF32, int64_t(target.memory(Space::Dram).align));
  usable.cores = std::max<int64_t>(
      1, std::min<int64_t>(spec.cores, ceilDiv(spec.hw, step)));
  return usable;
}

} // namespace

void emitBlockPointwise(llvm::ArrayRef<ProgramEmitter *> emitters,
                        const TargetDesc &target, const PointwiseSpec &spec) {
  PointwiseSpec requested = spec;
  requested.cores = getBlockPointwiseMaxCores(target, spec) > 1
                        ? int64_t(emitters.size())
                        : 1;
  PointwiseSpec shared = withBlockCores(target, requested);
  std::string unused;
  std::optional<BlockPointwiseLayout> l =
      blockPointwiseLayout(target, shared, unused);
  if (!l) {
    // A placement naming more cores than the layout takes: the first one
    // runs it all (canEmitPointwise checked the one-core layout).
    shared.cores = 1;
    l = blockPointwiseLayout(target, shared, unused);
  }
  for (int64_t core = 0; core < shared.cores; ++core) {
    const int64_t begin = std::min(spec.hw, core * l->corePixels),
                  end = std::min(spec.hw, begin + l->corePixels);
    if (begin < end)
      emitBlockPointwiseCore(*emitters[size_t(core)], target, shared, *l, core,
                             begin, end);
  }
}

unsigned getBlockPointwiseMaxCores(const TargetDesc &target,
                                   const PointwiseSpec &spec) {
  // Every core would subsample the input of a strided conv into the same
  // SHARED buffer: those run on one core (accel-split-ops may cut their
  // filters).
  const int64_t step =
      alignedCount(kF32, int64_t(target.memory(Space::Dram).align));
  if (spec.strided() || ceilDiv(spec.hw, step) < 2)
    return 1;
  return unsigned(std::max<uint32_t>(target.coresPerCard, 1));
}

unsigned getBlockPointwiseCores(const TargetDesc &target,
                                const PointwiseSpec &spec) {
  // Sharing the pixels divides the pixel loads, the products and the
  // stores, but every core loads all the weights; cutting the filters
  // (accel-split-ops) makes every core load every pixel. So the pixels are
  // shared when they outweigh the weights, with at least
  // kMinPixelsPerCore per core (a block smaller than that leaves the
  // matrix unit's row stream short next to its fixed costs).
  constexpr int64_t kMinPixelsPerCore = 64;
  if (getBlockPointwiseMaxCores(target, spec) < 2)
    return 1;
  const uint64_t pixelBytes = uint64_t(spec.batch * spec.c * spec.hw * kF32);
  const uint64_t weightBytes =
      uint64_t(spec.f * spec.blockWeight->rowBytes(spec.c));
  if (pixelBytes <= weightBytes)
    return 1;
  const int64_t cores =
      std::min<int64_t>(target.coresPerCard, spec.hw / kMinPixelsPerCore);
  if (cores < 2)
    return 1;
  PointwiseSpec shared = spec;
  shared.cores = cores;
  std::string unused;
  if (!blockPointwiseLayout(target, withBlockCores(target, shared), unused))
    return 1;
  return unsigned(cores);
}

uint64_t getBlockPointwiseStageBytes(const TargetDesc &target,
                                     const PointwiseSpec &spec) {
  std::string unused;
  std::optional<BlockPointwiseLayout> layout =
      blockPointwiseLayout(target, spec, unused);
  // One staging region per core that may share the pixels.
  return layout ? layout->stageBytes *
                      uint64_t(std::max<uint32_t>(target.coresPerCard, 1))
                : 0;
}

bool canEmitPointwise(const TargetDesc &target, const PointwiseSpec &spec,
                      std::string &reason) {
  if (spec.quantized)
    return canEmitQuantizedPointwise(target, spec, reason);
  if (spec.blockWeight)
    return canEmitBlockPointwise(target, spec, reason);
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
  if (spec.strided() && !canSubsample(target, spec, reason))
    return false;
  return pointwiseLayout(target, spec.c, spec.f, spec.hw, spec.bias.has_value(),
                         reason)
      .has_value();
}

void emitPointwise(ProgramEmitter &emitter, const TargetDesc &target,
                   const PointwiseSpec &spec) {
  if (spec.quantized)
    return emitQuantizedPointwise({&emitter}, target, spec);
  if (spec.blockWeight)
    return emitBlockPointwise({&emitter}, target, spec);
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
      subsampleIntoShared(emitter, target, spec, x);
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
