//===- GemmConvKernel.cpp - general convolutions as implicit GEMM ---------===//
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
  // A block-float weight, resident: per filter tile, the MRF base of its k
  // tiles, their stride, and whether they go through SHARED (planes that
  // would not start MRF-aligned), laid out there at `stagePitch` bytes a
  // row.
  int64_t blockRowBytes = 0, stagePitch = 0;
  std::vector<uint64_t> blockBase, blockStride;
  std::vector<bool> blockStaged;
  uint64_t stageBytes = 0;

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
  const int64_t n = target.nativeDim, e = spec.in.elementBytes();
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  const int64_t vrfBytes =
      int64_t(target.vrfRegisters) * int64_t(target.vrfRegisterBytes);
  const int64_t accBytes =
      static_cast<int64_t>(target.memory(Space::Acc).bytes);
  l.tile = n;
  if (spec.blockWeight) {
    // Block-float: k tiles of the op's k_tile start at whole blocks, so no
    // skew; each filter tile's k tiles are loaded by one DMA, a plane per
    // tile, from its rows' aligned base (a single tile would start at an
    // unaligned byte), and stay resident.
    const ElementFormat wf = *spec.blockWeight;
    const int64_t block = int64_t(::nnaccel::blockElements(wf.dtype));
    const int64_t k = spec.rowTaps();
    if (spec.groups != 1 || spec.kTile < block || spec.kTile > n ||
        spec.kTile % block || k % spec.kTile) {
      reason = "a block-float convolution needs groups 1 and a k_tile (" +
               std::to_string(spec.kTile) + ") that is a multiple of the " +
               "block size " + std::to_string(block) + ", at most native_dim " +
               std::to_string(n) + " and divides K = " + std::to_string(k);
      return std::nullopt;
    }
    l.kTile = spec.kTile;
    l.wSkewAlign = 1;
    l.nF = std::min(n, spec.fg);
    l.blockRowBytes = wf.rowBytes(l.kTile);
    l.stagePitch = int64_t(
        alignUp(uint64_t(l.blockRowBytes), target.memory(Space::Shared).align));
    const int64_t kTiles = k / l.kTile, weightRow = wf.rowBytes(k);
    const uint64_t mrfAlign = target.memory(Space::Mrf).align;
    uint64_t base = 0;
    for (int64_t f0 = 0; f0 < spec.fg; f0 += l.nF) {
      const int64_t nf = std::min(l.nF, spec.fg - f0);
      if ((f0 * weightRow) % dramAlign != 0) {
        reason = "the weight rows of filter " + std::to_string(f0) +
                 " start at an unaligned DRAM address";
        return std::nullopt;
      }
      const uint64_t tileBytes = uint64_t(nf * l.blockRowBytes);
      const bool staged = kTiles > 1 && tileBytes % mrfAlign != 0;
      l.blockBase.push_back(base);
      l.blockStride.push_back(alignUp(tileBytes, mrfAlign));
      l.blockStaged.push_back(staged);
      base += uint64_t(kTiles) * l.blockStride.back();
      if (staged)
        l.stageBytes =
            std::max(l.stageBytes, uint64_t(kTiles * nf * l.stagePitch));
    }
    if (base > target.memory(Space::Mrf).bytes) {
      reason = "the block-float weight (" + std::to_string(base) +
               " bytes in k tiles) does not fit the matrix register file";
      return std::nullopt;
    }
    if (weightRow > 0xFFFFFFFFll || kTiles > kMaxDmaYZ ||
        l.stageBytes > target.memory(Space::Shared).bytes) {
      reason = "the block-float weight rows exceed the DMA counts or the "
               "shared memory";
      return std::nullopt;
    }
  } else {
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
    l.nF = std::min(n, spec.fg);
    // A skewed tile of weight rows shorter than N would read overlapping
    // rows (the DMA row stride must cover a row): load such weights one
    // filter at a time.
    if (l.kTile < n && spec.rowTaps() < n)
      l.nF = 1;
  }
  l.guard = alignedCount(spec.w * e, dramAlign) - 1;
  // Groups of at most N filters are stored in runs (consecutive groups'
  // filters are consecutive planes): only run starts need aligned output
  // planes, so runs are multiples of `step` groups, as long as fit N
  // columns.
  l.runGroups = 1;
  l.dCols = l.nF;
  if (spec.fg <= n) {
    int64_t step =
        alignedCount(spec.out.rowBytes(spec.fg * spec.outPlane()), dramAlign);
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
      spec.out.elementBytes() % 4 == 0 || (spec.fg % 2 == 0 && l.nF % 2 == 0);
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
  if (!spec.blockWeight) {
    l.mrfTileBytes =
        alignUp(uint64_t(n * l.nF * e), target.memory(Space::Mrf).align);
    l.mrfSlots =
        static_cast<int64_t>(target.memory(Space::Mrf).bytes / l.mrfTileBytes);
    if (l.mrfSlots < 2) {
      reason = "the matrix register file holds fewer than two weight tiles";
      return std::nullopt;
    }
  }
  int64_t biasBytes = 0;
  if (spec.biasAddr) {
    biasBytes = alignUp(spec.bias.rowBytes(spec.filters()), 64);
    l.bias32 = l.biasRaw;
    if (!(spec.bias == kF32Format)) {
      l.bias32 = biasBytes;
      biasBytes += alignUp(spec.filters() * kF32, 64);
    }
  }
  // Stores of a band start at output row i0: aligned when i0 * ow elements
  // are, so bands other than the whole plane are multiples of this.
  const int64_t outAlignRows =
      alignedCount(spec.out.rowBytes(spec.ow), dramAlign);
  // A K tile touches at most this many virtual channels.
  const int64_t vMin =
      std::min(spec.virtualChannels(), (l.kTile - 1) / spec.planeTaps() + 2);
  for (int64_t r = spec.oh; r >= 1; --r) {
    if (r < spec.oh && r % outAlignRows != 0)
      continue;
    int64_t m = l.gemmRows(spec, r);
    if (r * spec.ow > kMaxDmaYZ || m > kMaxCount)
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

} // namespace

bool canEmitGemm(const TargetDesc &target, const GemmSpec &spec,
                 std::string &reason) {
  if (spec.quantized)
    return canEmitQuantizedGemm(target, spec, reason);
  const int64_t eo = spec.out.elementBytes(), n = target.nativeDim;
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  DType dtype = spec.blockWeight ? spec.blockWeight->dtype : spec.in.dtype;
  if (spec.blockWeight && !(spec.in == kF32Format)) {
    reason = "a block-float convolution runs on the card with f32 "
             "activations only";
    return false;
  }
  if (!target.macsPerCycle.count(dtype)) {
    reason = "the target's matrix unit has no " +
             std::string(::nnaccel::isa::dtypeName(dtype)) + " mode";
    return false;
  }
  if (spec.w > kMaxCount ||
      (spec.pw + spec.w + spec.pwEnd + spec.sw) * kF32 > kMaxPitch ||
      spec.sw * kF32 > kMaxPitch || spec.ow * n > kMaxCount) {
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

uint64_t getBlockGemmStageBytes(const TargetDesc &target,
                                const GemmSpec &spec) {
  std::string unused;
  std::optional<GemmLayout> layout = gemmLayout(target, spec, unused);
  return layout && spec.blockWeight ? layout->stageBytes : 0;
}

void emitGemm(ProgramEmitter &emitter, const TargetDesc &target,
              const GemmSpec &spec) {
  if (spec.quantized)
    return emitQuantizedGemm({&emitter}, target, spec);
  std::string unused;
  const GemmLayout l = *gemmLayout(target, spec, unused);
  const ElementFormat in = spec.in, out = spec.out;
  const int64_t e = in.elementBytes(), eo = out.elementBytes(), n = l.tile;
  const bool narrow = !(in == kF32Format);
  const int64_t f = spec.filters(), c = spec.channels(), k = spec.rowTaps();
  const int64_t taps = spec.planeTaps(), vc = spec.virtualChannels();
  const int64_t rowAlign = l.guard + 1;

  if (spec.biasAddr) {
    DmaLoad load;
    load.dst = {Space::Vrf, l.biasRaw};
    load.src = {Space::Dram, *spec.biasAddr};
    load.format = spec.bias;
    load.x = f;
    emitLoad(emitter, load);
    if (l.bias32 != l.biasRaw)
      emitCopy(emitter, denseOperand(Space::Vrf, l.bias32, f),
               denseOperand(Space::Vrf, l.biasRaw, f, spec.bias), 1, f);
  }
  // Columns past the padded width, the guard rows and the spare row are
  // never loaded; zero them once so every staged value is defined. The
  // slots are 64-byte aligned, so each slot is one row of the fill (or, for
  // slots beyond the 64 KiB pitch, a fill of its own).
  auto zeroSlots = [&](uint64_t base, uint64_t slotBytes, ElementFormat format,
                       int64_t count) {
    const int64_t cols = l.slotRows * l.wpitch;
    if (int64_t(slotBytes) <= kMaxPitch && cols <= kMaxCount) {
      emitFill(emitter, Operand2D{Space::Acc, base, int64_t(slotBytes), format},
               count, cols);
      return;
    }
    for (int64_t slot = 0; slot < count; ++slot)
      emitFill(emitter,
               Operand2D{Space::Acc, base + uint64_t(slot) * slotBytes,
                         format.rowBytes(l.wpitch), format},
               l.slotRows, l.wpitch);
  };
  zeroSlots(l.xpad, l.slotBytes, kF32Format, l.vCap);
  if (narrow)
    zeroSlots(l.raw, l.rawSlotBytes, in, kRawSlots);
  // mm reads the patch matrix as one range, including the columns past K
  // that no gather writes: define them once.
  const int64_t mMax = l.gemmRows(spec, l.rows);
  emitFill(emitter, Operand2D{l.aSpace, l.a32, n * kF32}, mMax, n);
  if (narrow)
    emitFill(emitter, Operand2D{l.aSpace, l.a16, n * e, in}, mMax, n);

  const int64_t kTiles = (k + l.kTile - 1) / l.kTile,
                fTiles = (spec.fg + l.nF - 1) / l.nF;
  // Weight tiles stay resident (loaded once) when all of them fit the MRF;
  // otherwise two slots alternate, so every reload waits for a recent mm
  // (reusing a slot many tiles later would leave ex -> ld tokens
  // outstanding for consumers not yet dispatched).
  const int64_t totalTiles = spec.groups * fTiles * kTiles;
  const int64_t wSlots =
      spec.blockWeight || totalTiles <= l.mrfSlots ? l.mrfSlots : 2;
  std::vector<int64_t> resident(size_t(std::max<int64_t>(wSlots, 0)), -1);
  // A block-float weight: all k tiles of filter tile ft, loaded by its
  // first use and resident from then on (see gemmLayout).
  std::vector<bool> blockLoaded(size_t(fTiles), false);
  auto loadBlockTiles = [&](int64_t ft) {
    const ElementFormat wf = *spec.blockWeight;
    const int64_t f0 = ft * l.nF, nf = std::min(l.nF, spec.fg - f0);
    const int64_t weightRow = wf.rowBytes(k);
    const uint64_t src = spec.weight + uint64_t(f0 * weightRow);
    DmaLoad load;
    load.src = {Space::Dram, src};
    load.format = wf;
    load.x = l.kTile;
    load.y = nf;
    load.z = kTiles;
    load.sy = weightRow;
    load.sz = kTiles > 1 ? l.blockRowBytes : 0;
    if (!l.blockStaged[size_t(ft)]) {
      load.dst = {Space::Mrf, l.blockBase[size_t(ft)]};
      emitLoad(emitter, load);
      return;
    }
    // Through SHARED: the tiles as planes of rows at an aligned pitch,
    // then each tile dense into its aligned MRF slot.
    load.dst = {Space::Shared, spec.shared};
    load.dpitch = l.stagePitch;
    emitLoad(emitter, load);
    for (int64_t t = 0; t < kTiles; ++t) {
      DmaLoad tileLoad;
      tileLoad.dst = {Space::Mrf, l.blockBase[size_t(ft)] +
                                      uint64_t(t) * l.blockStride[size_t(ft)]};
      tileLoad.src = {Space::Shared,
                      spec.shared + uint64_t(t * nf * l.stagePitch)};
      tileLoad.format = wf;
      tileLoad.x = l.kTile;
      tileLoad.y = nf;
      tileLoad.sy = l.stagePitch;
      emitLoad(emitter, tileLoad);
    }
  };
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
              Operand2D target =
                  narrow ? Operand2D{Space::Acc,
                                     l.raw + uint64_t(((v0 + vCount - 1 - v) %
                                                       kRawSlots) *
                                                      l.rawSlotBytes),
                                     l.wpitch * e, in}
                         : Operand2D{Space::Acc, slot32, l.wpitch * kF32};
              const uint64_t origin =
                  target.addr + uint64_t(l.guard * target.pitch);
              auto zeroRows = [&](int64_t from, int64_t to) {
                if (from < to)
                  emitFill(emitter,
                           Operand2D{Space::Acc,
                                     origin + uint64_t(from * target.pitch),
                                     target.pitch, in},
                           to - from, l.wpitch);
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
                DmaLoad load;
                load.dst = {Space::Acc,
                            origin + uint64_t((top - delta) * target.pitch +
                                              (spec.pw - pl) * e)};
                load.src = {Space::Dram,
                            spec.input + uint64_t((flat - delta) * spec.w * e)};
                load.format = in;
                load.x = spec.w;
                load.y = r1 - r0 + delta;
                load.dpitch = target.pitch;
                load.pl = pl;
                load.pr = pr;
                emitLoad(emitter, load);
                zeroRows(0, top);
                zeroRows(r1 + spec.ph - p0, band);
              }
              if (narrow)
                emitCopy(emitter,
                         Operand2D{Space::Acc,
                                   slot32 + uint64_t(l.guard * l.wpitch * kF32),
                                   l.wpitch * kF32},
                         Operand2D{Space::Acc, origin, target.pitch, in}, band,
                         l.wpitch);
            }
          };

          // D[:, col .. col + nf) (row pitch: dCols floats) = the patches of
          // group g times filter tile ft, accumulated over the K tiles.
          auto accumulate = [&](int64_t ft, int64_t col, int64_t dCols) {
            const int64_t f0 = ft * l.nF, nf = std::min(l.nF, spec.fg - f0);
            const Operand2D acc{Space::Acc, l.d + uint64_t(col * kF32),
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
              uint64_t wAddr = 0;
              if (spec.blockWeight) {
                if (!blockLoaded[size_t(ft)])
                  loadBlockTiles(ft);
                blockLoaded[size_t(ft)] = true;
                wAddr = l.blockBase[size_t(ft)] +
                        uint64_t(kt) * l.blockStride[size_t(ft)];
              } else {
                int64_t slot = tileId % wSlots;
                wAddr = uint64_t(slot) * l.mrfTileBytes;
                if (resident[slot] != tileId) {
                  DmaLoad load;
                  load.dst = {Space::Mrf, wAddr};
                  load.src = {Space::Dram,
                              spec.weight + uint64_t((wFlat - skew) * e)};
                  load.format = in;
                  load.x = kSkewed;
                  load.y = nf;
                  load.sy = k * e;
                  emitLoad(emitter, load);
                  resident[slot] = tileId;
                }
              }
              // Patch matrix: column skew + t - t0 is tap t's window.
              if (skew > 0)
                emitFill(emitter, Operand2D{l.aSpace, l.a32, n * kF32}, m,
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
                  Operand2D window{
                      Space::Acc,
                      l.xpad + uint64_t((v - vBase) * l.slotBytes +
                                        ((l.guard + th * spec.dh) * l.wpitch +
                                         tw * spec.dw + p * spec.sw) *
                                            kF32),
                      rowStep * kF32};
                  emitCopy(emitter,
                           Operand2D{l.aSpace,
                                     l.a32 + uint64_t((p * mPhase * n + skew +
                                                       t - t0) *
                                                      kF32),
                                     n * kF32},
                           window, mPhase, len);
                }
                t += len;
              }
              Operand2D a{l.aSpace, l.a32, n * kF32};
              if (narrow) {
                Operand2D a16{l.aSpace, l.a16, n * e, in};
                emitCopy(emitter, a16, a, m, kSkewed);
                a = a16;
              }
              emitMm(emitter, acc, a,
                     denseOperand(Space::Mrf, wAddr, kSkewed,
                                  spec.blockWeight ? *spec.blockWeight : in),
                     m, kSkewed, nf, kt > 0);
            }
          };
          // Bias, activation, compaction and the store of D's `cols`
          // columns, the planes of filters [first, first + cols).
          auto finish = [&](int64_t first, int64_t cols) {
            const Operand2D acc{Space::Acc, l.d, cols * kF32};
            if (spec.biasAddr)
              emitBinary(emitter, Opcode::VAdd, acc, acc,
                         Operand2D{Space::Vrf,
                                   l.bias32 + uint64_t(first * kF32),
                                   cols * kF32},
                         Bcast::Row, m, cols);
            emitActivation(emitter, spec.activation, acc, m, cols);
            // Valid pixels only, dense [r * ow, cols], in the output type
            // (in the patch buffer, free until the next tile's gathers).
            const Operand2D compact{l.aSpace, l.a32, spec.ow * cols * eo, out};
            const Operand2D rowsOfD{Space::Acc, l.d, l.wv * cols * kF32};
            if (l.phases > 1) {
              // Re-interleave: pixel j' of phase p, output row i, is
              // column j' * P + p.
              for (int64_t p = 0; p < l.phases; ++p)
                for (int64_t i = 0; i < r; ++i)
                  emitCopy(emitter,
                           Operand2D{compact.space,
                                     compact.addr + uint64_t((i * spec.ow + p) *
                                                             cols * eo),
                                     l.phases * cols * eo, out},
                           Operand2D{Space::Acc,
                                     l.d + uint64_t((p * mPhase + i * l.wv) *
                                                    cols * kF32),
                                     cols * kF32},
                           l.phaseCols(spec, p), cols);
            } else if (rowsOfD.pitch <= kMaxPitch &&
                       compact.pitch <= kMaxPitch) {
              emitCopy(emitter, compact, rowsOfD, r, spec.ow * cols);
            } else {
              for (int64_t i = 0; i < r; ++i)
                emitCopy(emitter, compact.at(i), rowsOfD.at(i), 1,
                         spec.ow * cols);
            }
            // Transposing store: source row p * cols + filter is one
            // element; pixel p goes to dz = one element, filters to dy = a
            // plane.
            DmaStore store;
            store.dst = {Space::Dram,
                         spec.output +
                             uint64_t(((image * f + first) * spec.outPlane() +
                                       o * spec.oh * spec.ow + i0 * spec.ow) *
                                      eo)};
            store.src = compact.ref();
            store.format = out;
            store.x = 1;
            store.y = cols;
            store.z = r * spec.ow;
            store.dy = spec.outPlane() * eo;
            store.dz = eo;
            store.spitch = eo;
            emitStore(emitter, store);
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

} // namespace mlir::nnaccel::npu_lowering::conv
