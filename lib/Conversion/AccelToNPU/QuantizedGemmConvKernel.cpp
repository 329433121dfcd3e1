//===- QuantizedGemmConvKernel.cpp - int8 dense k x k convolutions --------===//
//
// The int8 convolution for everything the 1x1 and depthwise int8 kernels do
// not take: groups 1, any kernel size, stride, dilation and padding, 1-D or
// 2-D (ResNet's 3x3 convs, strided 1x1 shortcuts, dilated convs).
// ConvKernels.cpp picks it for a quantized accel.conv, GemmConvKernel.cpp's
// entry points (canEmitGemm, emitGemm) dispatch to it.
//
// An implicit GEMM over the channels of each tap: Y[pixels x F] = sum over
// taps (dy, dx) of X_(dy,dx)[pixels x C] . W_(dy,dx)[F x C]^T, where
// X_(dy,dx) is the input shifted by the tap. The f32 kernel
// (GemmConvKernel.cpp) gathers an im2col patch matrix on the MFUs, one
// strided copy per kernel row, which costs about as much as the f32 mm
// itself; for int8 the mm is 4x cheaper and those gathers would dominate.
// Here the input is laid out so that the matrix unit reads the shifted
// windows directly, as the strided stem does (StridedStemConvKernel.cpp):
//
// * Bands: runs of output pixels (whole rows or parts of them) whose
//   results start at aligned DRAM addresses, about a quarter of a core's.
// * Input: per band, the input rows it reads are DMAed
//   transposed into a staging slot, [pixels x C] (one element per DMA row:
//   rows = channels, planes = pixels; a pixel's channels are a row of
//   cp = C rounded up to 4 bytes). The DMA starts at the aligned pixel at or
//   before the band's first one; those extra pixels land in `guard` pixels
//   in front of the slot. For output row i and tap (dy, dx), the A operand
//   of the mm is the staged row i*sh - ph + dy*dh from pixel
//   jlo*sw - pw + dx*dw on, A rows sw pixels apart (apitch = sw * cp), k =
//   a tile of at most N channels: no copy at all. Only the band's output
//   columns [jlo, jhi) whose tap lies inside the image are multiplied; taps
//   in the
//   padding are left out, which is exact: a padded value is the zero point
//   and contributes (zp - zp) * w = 0 (so asymmetric u8 inputs need no
//   padding by their zero point either). mm azp subtracts the zero point.
// * Weights: the matrix unit wants one tile per (tap, channel tile), F rows
//   of the tap's channel weights, but the weight is F x C x kh x kw (taps
//   innermost) and a DMA cannot start at the unaligned address of a tap.
//   So they are reordered once per run of the op: DMAed in plain order into
//   ACC, then stored to SHARED by a scattering DMA (one element per row:
//   element (f, c, t) goes to tap t's [F x C] block), and the tiles are
//   loaded from there into the MRF, where they stay for the whole op. When
//   the weights do not all fit the MRF, the filters are processed in groups
//   of N-filter tiles (the input is staged again for every group).
// * Sums: per band, D[pixels x Fg] in i32 in ACC, the first product of an
//   output row (a tap that covers all the band's columns in it, else a
//   zero fill) writes it, the rest accumulate, exactly.
// * Epilogue: emitConvEpilogue (QuantizedConvSupport.cpp) on the whole band
//   (per-column scales = per filter: v.dqnt/v.rqnt perch), then one
//   transposing store per band into the NCHW planes.
// * Several cores (one op as a unit, getQuantizedGemmCores) share the
//   output pixels, each with all the filters and its own copy of the
//   reordered weights: the matrix unit costs as much for fewer than N
//   filters as for N, so cutting the filters (accel-split-ops) gains
//   nothing below N per core. Their stores interleave in every plane and
//   go in blocks the race detector can check row by row.
//
// Products (u8/i8 x i8) and sums are exact in i32 and the epilogue is the
// host's, so the result is bit-identical to the host kernel
// (HostQuantizedLinalg.cpp). Two staging slots and two sum/result slots
// alternate, so the next band's input loads while this band multiplies and
// the last band's result is stored.
//
// mm costs m * ceil(k / L) * ceil(n / N): with C and F multiples of 16 and
// 64 the matrix unit runs at its full rate (L x N MACs a cycle), fewer
// filters leave dot-product engines idle.
//
//===----------------------------------------------------------------------===//

#include "ConvKernelSupport.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::npu_lowering;
using namespace mlir::nnaccel::npu_lowering::conv;

namespace mlir::nnaccel::npu_lowering::conv {
namespace {

/// Bands per image the kernel aims for, so that loads, products and stores
/// overlap.
constexpr int64_t kTargetBands = 4;

struct QuantizedGemmLayout {
  int64_t tile = 0;   // N
  int64_t cp = 0;     // bytes per staged pixel (channels rounded up to 4)
  int64_t taps = 0;   // kh * kw
  int64_t cTiles = 0; // K tiles of the channels
  // Filters per group (whose weights are resident in the MRF at a time; a
  // multiple of N unless it is all of them) and output pixels per band (a
  // multiple of pixelAlign, or all of a core's).
  int64_t groupFilters = 0, bandPixels = 0;
  int64_t corePixels = 0; // output pixels per core (the last core's fewer)
  int64_t guard = 0;      // pixels in front of a staged band (DMA alignment)
  // Weight reordering: pairs (filter, channel) per chunk, tap stride of the
  // reordered weights in SHARED.
  int64_t chunkPairs = 0;
  uint64_t tapStride = 0, sharedBytes = 0;
  // vrf
  uint64_t bias = 0, scales = 0;
  // input staging slots (vrf or acc)
  Space stageSpace = Space::Acc;
  uint64_t stage[2] = {0, 0};
  // acc: sums and results, and (before them) the weights in plain order
  uint64_t sum[2] = {0, 0}, out[2] = {0, 0}, bounce[2] = {0, 0};
  // mrf: per (tap, channel tile) a block of the group's filters x kc
  uint64_t mrfTapBytes = 0;
  std::vector<uint64_t> mrfBlock; // offset of channel tile ct in a tap

  int64_t channelTile(const GemmSpec &spec, int64_t ct) const {
    return std::min(tile, spec.cg - ct * tile);
  }
  uint64_t block(int64_t t, int64_t ct) const {
    return uint64_t(t) * mrfTapBytes + mrfBlock[size_t(ct)];
  }
  /// Input rows [first, end) that output pixels [p0, p1) read, clipped to
  /// the image.
  static std::pair<int64_t, int64_t> inputRows(const GemmSpec &spec, int64_t p0,
                                               int64_t p1) {
    int64_t first = p0 / spec.ow * spec.sh - spec.ph;
    int64_t last =
        (p1 - 1) / spec.ow * spec.sh - spec.ph + (spec.kh - 1) * spec.dh;
    return {std::max<int64_t>(first, 0), std::min(last + 1, spec.h)};
  }
};

/// Output pixels that start a result at an aligned DRAM address.
int64_t pixelAlign(const TargetDesc &target, const GemmSpec &spec) {
  return alignedCount(spec.quantized->output.elementBytes(),
                      static_cast<int64_t>(target.memory(Space::Dram).align));
}

/// Output pixels per core when spec.cores share them: whole multiples of
/// `align` (aligned result addresses), the last core's fewer.
int64_t pixelsPerCore(const GemmSpec &spec, int64_t align) {
  const int64_t plane = spec.oh * spec.ow;
  int64_t pixels = ceilDiv(plane, std::max<int64_t>(spec.cores, 1));
  return std::min(plane, ceilDiv(pixels, align) * align);
}

/// The output columns [jlo, jhi) whose tap at offset `offset` (dx * dw -
/// pw) reads an input column inside the image.
std::pair<int64_t, int64_t> validColumns(const GemmSpec &spec, int64_t offset) {
  // j * sw + offset in [0, w).
  int64_t lo = offset >= 0 ? 0 : ceilDiv(-offset, spec.sw);
  int64_t last = spec.w - 1 - offset;
  int64_t hi = last < 0 ? 0 : last / spec.sw + 1;
  return {std::min(lo, spec.ow), std::min(hi, spec.ow)};
}

std::optional<QuantizedGemmLayout> quantizedGemmLayout(const TargetDesc &target,
                                                       const GemmSpec &spec,
                                                       std::string &reason) {
  const ConvQuantization &quant = *spec.quantized;
  QuantizedGemmLayout l;
  const int64_t n = target.nativeDim, c = spec.cg, f = spec.filters();
  const int64_t eo = quant.output.elementBytes();
  const int64_t eb = quant.bias.elementBytes();
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  const int64_t sharedAlign =
      static_cast<int64_t>(target.memory(Space::Shared).align);
  const uint64_t mrfAlign = target.memory(Space::Mrf).align;
  const int64_t vrfBytes =
      int64_t(target.vrfRegisters) * int64_t(target.vrfRegisterBytes);
  const int64_t accBytes =
      static_cast<int64_t>(target.memory(Space::Acc).bytes);
  const uint64_t mrfBytes = target.memory(Space::Mrf).bytes;
  l.tile = n;
  l.cp = int64_t(alignUp(uint64_t(c), 4));
  l.taps = spec.kh * spec.kw;
  l.cTiles = ceilDiv(c, n);
  // A staged band starts up to an alignment step of 1-byte pixels early.
  l.guard = alignedCount(1, dramAlign) - 1;

  // Weight reordering in chunks of (filter, channel) pairs: chunk starts
  // keep the plain weights' DRAM address and the SHARED destination
  // aligned; one chunk is one load (x <= kMaxCount bytes) and one store
  // (z <= kMaxDmaYZ pairs).
  const int64_t pairAlign =
      std::lcm(alignedCount(l.taps, dramAlign), sharedAlign);
  l.chunkPairs =
      std::min(kMaxCount / l.taps, kMaxDmaYZ) / pairAlign * pairAlign;
  if (l.chunkPairs < 1) {
    reason = "a kernel of " + std::to_string(l.taps) +
             " taps exceeds the DMA counts of the weight reordering";
    return std::nullopt;
  }
  const uint64_t bounceBytes = alignUp(uint64_t(l.chunkPairs * l.taps), 64);

  // Filter groups: all filters, else multiples of N whose tiles fit the MRF.
  auto mrfTap = [&](int64_t fg) {
    uint64_t bytes = 0;
    for (int64_t ct = 0; ct < l.cTiles; ++ct)
      bytes += alignUp(uint64_t(fg * l.channelTile(spec, ct)), mrfAlign);
    return bytes;
  };
  std::vector<int64_t> groupCandidates;
  for (int64_t fg = f; fg >= 1; fg = (fg - 1) / n * n) {
    if (fg == f || fg % n == 0)
      if (uint64_t(l.taps) * mrfTap(fg) <= mrfBytes)
        groupCandidates.push_back(fg);
    if (fg <= n)
      break;
  }
  if (groupCandidates.empty()) {
    reason = "the int8 weights of " + std::to_string(std::min(f, n)) +
             " filters (" + std::to_string(c) + " channels, " +
             std::to_string(l.taps) +
             " taps) do not fit the matrix register file";
    return std::nullopt;
  }

  // Bands are runs of output pixels (rows, or parts of rows) whose starts
  // keep the result's DRAM address aligned; each core's pixels are a whole
  // number of bands.
  const int64_t align = pixelAlign(target, spec);
  l.corePixels = pixelsPerCore(spec, align);
  int64_t targetPixels = ceilDiv(l.corePixels, kTargetBands);
  targetPixels = std::min(ceilDiv(targetPixels, align) * align, l.corePixels);
  std::vector<int64_t> bandCandidates;
  if (targetPixels == l.corePixels)
    bandCandidates.push_back(l.corePixels);
  for (int64_t p = std::min(targetPixels, l.corePixels - 1) / align * align;
       p >= align; p -= align)
    bandCandidates.push_back(p);

  uint64_t vrfFixed = 0;
  l.bias = vrfFixed;
  if (spec.biasAddr)
    vrfFixed += alignUp(uint64_t(f * eb), 64);
  l.scales = vrfFixed;
  vrfFixed += alignUp(uint64_t(convScaleBytes(quant)), 64);
  if (int64_t(vrfFixed) > vrfBytes / 2) {
    reason = "the bias and scales of " + std::to_string(f) +
             " filters do not fit the vector register file";
    return std::nullopt;
  }
  for (int64_t fg : groupCandidates) {
    for (int64_t pixels : bandCandidates) {
      if (pixels > kMaxDmaYZ)
        continue;
      // A band touches at most this many output rows.
      const int64_t rows = std::min(spec.oh, ceilDiv(pixels - 1, spec.ow) + 1);
      const int64_t stagedRows =
          std::min(spec.h, (rows - 1) * spec.sh + (spec.kh - 1) * spec.dh + 1);
      const uint64_t stageBytes =
          alignUp(uint64_t((l.guard + stagedRows * spec.w) * l.cp), 64);
      const uint64_t sumBytes = alignUp(uint64_t(pixels * fg * kF32), 64);
      const uint64_t outBytes = alignUp(uint64_t(pixels * fg * eo), 64);
      const bool stageInVrf = int64_t(vrfFixed + 2 * stageBytes) <= vrfBytes;
      uint64_t acc = 2 * sumBytes + 2 * outBytes;
      if (!stageInVrf)
        acc += 2 * stageBytes;
      if (int64_t(acc) > accBytes || int64_t(2 * bounceBytes) > accBytes)
        continue;
      l.groupFilters = fg;
      l.bandPixels = pixels;
      l.sum[0] = 0;
      l.sum[1] = sumBytes;
      l.out[0] = 2 * sumBytes;
      l.out[1] = 2 * sumBytes + outBytes;
      l.stageSpace = stageInVrf ? Space::Vrf : Space::Acc;
      l.stage[0] = stageInVrf ? vrfFixed : 2 * sumBytes + 2 * outBytes;
      l.stage[1] = l.stage[0] + stageBytes;
      // The plain weights pass through ACC before the first band: behind
      // the other buffers when there is room (the first band's input then
      // loads while they are reordered), else where the sums go.
      uint64_t bounce = acc + 2 * bounceBytes <= uint64_t(accBytes) ? acc : 0;
      l.bounce[0] = bounce;
      l.bounce[1] = bounce + bounceBytes;
      l.mrfTapBytes = mrfTap(fg);
      l.mrfBlock.clear();
      uint64_t offset = 0;
      for (int64_t ct = 0; ct < l.cTiles; ++ct) {
        l.mrfBlock.push_back(offset);
        offset += alignUp(uint64_t(fg * l.channelTile(spec, ct)), mrfAlign);
      }
      // All the weights, reordered once per core.
      l.tapStride = alignUp(uint64_t(f * c), uint64_t(sharedAlign));
      l.sharedBytes = uint64_t(l.taps) * l.tapStride;
      if (l.sharedBytes * uint64_t(std::max<int64_t>(spec.cores, 1)) >
          target.memory(Space::Shared).bytes / 2) {
        reason = "the reordered int8 weights (" +
                 std::to_string(l.sharedBytes) + " bytes per core) exceed " +
                 "half the SHARED memory";
        return std::nullopt;
      }
      return l;
    }
  }
  reason = "a band of " + std::to_string(align) + " output pixels (" +
           std::to_string(groupCandidates.back()) +
           " filters) with its input rows does not fit the on-chip memories";
  return std::nullopt;
}

/// What a staging slot holds: image and input rows [first, end).
struct Staged {
  int64_t image = -1, first = 0, end = 0;
  bool operator==(const Staged &other) const {
    return image == other.image && first == other.first && end == other.end;
  }
};

/// One band (output pixels [p0, p1) of a plane) of one filter group of one
/// image.
struct Job {
  int64_t group = 0, image = 0, p0 = 0, p1 = 0;
};

} // namespace

bool canEmitQuantizedGemm(const TargetDesc &target, const GemmSpec &spec,
                          std::string &reason) {
  const ConvQuantization &quant = *spec.quantized;
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  if (!target.macsPerCycle.count(DType::I8) || target.mfuCount < 2) {
    reason = "the target's matrix unit has no i8 mode (or fewer than two "
             "MFUs)";
    return false;
  }
  if (spec.groups != 1 || spec.d != 1 || spec.kd != 1) {
    reason = "the int8 implicit GEMM takes 1-D and 2-D convolutions with "
             "groups = 1 only";
    return false;
  }
  const int64_t eo = quant.output.elementBytes();
  if (spec.cg > kMaxDmaYZ || spec.filters() > kMaxDmaYZ) {
    reason = "more than 4095 channels or filters exceed the DMA counts";
    return false;
  }
  if (spec.sw * int64_t(alignUp(uint64_t(spec.cg), 4)) > kMaxPitch ||
      spec.ow > kMaxCount) {
    reason = "a stride of " + std::to_string(spec.sw) + " pixels of " +
             std::to_string(spec.cg) +
             " channels exceeds the matrix unit's 64 KiB row pitch";
    return false;
  }
  if (spec.batch > 1 &&
      (spec.filters() * spec.outPlane() * eo) % dramAlign != 0) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  return quantizedGemmLayout(target, spec, reason).has_value();
}

namespace {

/// Output pixels [begin, end) of each plane of `spec` on one core, its
/// reordered weights at SHARED `shared`.
void emitQuantizedGemmPixels(ProgramEmitter &emitter, const TargetDesc &target,
                             const GemmSpec &spec, const QuantizedGemmLayout &l,
                             int64_t begin, int64_t end, uint64_t shared) {
  const ConvQuantization &quant = *spec.quantized;
  const ElementFormat in = quant.input, out = quant.output;
  const int64_t eo = out.elementBytes();
  const int64_t n = l.tile, c = spec.cg, f = spec.filters(), taps = l.taps;
  const int64_t hw = spec.h * spec.w, outPlane = spec.outPlane();
  const int64_t fg = l.groupFilters;
  const int64_t dramAlign = int64_t(target.memory(Space::Dram).align);
  // 1-byte input pixels per aligned DRAM step; result pixels likewise.
  const int64_t inputAlign = alignedCount(1, dramAlign);
  const int64_t resultAlign = pixelAlign(target, spec);

  // On several cores, the cores' transposing stores interleave in every
  // filter plane: the emulator's race detector tells them apart row by row
  // (of one element here) only up to kMaxCheckedStoreRows per store
  // (docs/emulator.md §7), so a band's result is stored in blocks of q
  // filters x pixelStep pixels that keep their DRAM bases aligned.
  auto storeBlocks = [&](int64_t count,
                         int64_t pixels) -> std::pair<int64_t, int64_t> {
    if (spec.cores <= 1 || count * pixels <= kMaxCheckedStoreRows)
      return {count, pixels};
    const int64_t planeAlign = alignedCount(outPlane * eo, dramAlign);
    int64_t q = count;
    if (q * resultAlign > kMaxCheckedStoreRows)
      q = std::max(planeAlign, kMaxCheckedStoreRows / resultAlign / planeAlign *
                                   planeAlign);
    q = std::min(q, count);
    return {q, std::max(resultAlign,
                        kMaxCheckedStoreRows / q / resultAlign * resultAlign)};
  };

  // The jobs: filter groups outermost (their weights are loaded once),
  // then images and bands.
  std::vector<Job> jobs;
  for (int64_t g0 = 0; g0 < f; g0 += fg)
    for (int64_t image = 0; image < spec.batch; ++image)
      for (int64_t p0 = begin; p0 < end; p0 += l.bandPixels)
        jobs.push_back({g0, image, p0, std::min(p0 + l.bandPixels, end)});

  // Stages the input rows of `job` into a slot other than `busy` (the one
  // the band before it reads), unless a slot holds them already, and
  // returns the slot.
  Staged slots[2];
  auto stage = [&](const Job &job, int busy) -> int {
    auto [first, end] = QuantizedGemmLayout::inputRows(spec, job.p0, job.p1);
    const Staged want{job.image, first, std::max(first, end)};
    for (int slot : {0, 1})
      if (slots[slot] == want)
        return slot;
    const int slot = 1 - busy;
    if (want.end <= want.first)
      return slot; // every tap lies in the padding
    slots[slot] = want;
    // Channel 0 of pixel (first, 0), and the aligned pixel at or before it.
    const int64_t flat = job.image * c * hw + want.first * spec.w;
    const int64_t delta = flat % inputAlign;
    const int64_t total = delta + (want.end - want.first) * spec.w;
    const int64_t step = kMaxDmaYZ / inputAlign * inputAlign;
    for (int64_t off = 0; off < total; off += step)
      loadPixelsTransposed(
          emitter,
          {l.stageSpace,
           l.stage[slot] + uint64_t((l.guard - delta + off) * l.cp)},
          spec.input + uint64_t(flat - delta + off), in, c,
          std::min(step, total - off), hw, l.cp);
    return slot;
  };

  // Reorders the weights into SHARED: tap t's [F x C] block at
  // t * tapStride.
  auto reorderWeights = [&]() {
    const int64_t pairs = f * c;
    for (int64_t p0 = 0, k = 0; p0 < pairs; p0 += l.chunkPairs, ++k) {
      const int64_t np = std::min(l.chunkPairs, pairs - p0);
      const uint64_t bounce = l.bounce[k % 2];
      DmaLoad load;
      load.dst = {Space::Acc, bounce};
      load.src = {Space::Dram, spec.weight + uint64_t(p0 * taps)};
      load.format = kI8Format;
      load.x = np * taps;
      emitLoad(emitter, load);
      // Element (pair p, tap t) of the plain order goes to p + t * stride.
      DmaStore store;
      store.dst = {Space::Shared, shared + uint64_t(p0)};
      store.src = {Space::Acc, bounce};
      store.format = kI8Format;
      store.x = 1;
      store.y = taps;
      store.z = np;
      store.spitch = 1;
      store.dy = int64_t(l.tapStride);
      store.dz = 1;
      emitStore(emitter, store);
    }
  };
  // Loads the tiles of filters [g0, g0 + count) into the MRF.
  auto loadTiles = [&](int64_t g0, int64_t count) {
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t ct = 0; ct < l.cTiles; ++ct) {
        DmaLoad load;
        load.dst = {Space::Mrf, l.block(t, ct)};
        load.src = {Space::Shared, shared + uint64_t(t) * l.tapStride +
                                       uint64_t(g0 * c + ct * n)};
        load.format = kI8Format;
        load.x = l.channelTile(spec, ct);
        load.y = count;
        load.sy = c;
        emitLoad(emitter, load);
      }
  };

  // Prologue: the first group's weights on their way, the first band's
  // input, the bias, then the fills (no inputs: they run while the loads
  // are in flight) and the tiles (behind the reordering stores).
  reorderWeights();
  std::vector<int> slotOf(jobs.size(), 0);
  slotOf[0] = stage(jobs.front(), 1);
  std::optional<Operand2D> bias;
  if (spec.biasAddr) {
    DmaLoad load;
    load.dst = {Space::Vrf, l.bias};
    load.src = {Space::Dram, *spec.biasAddr};
    load.format = quant.bias;
    load.x = f;
    emitLoad(emitter, load);
    bias = denseOperand(Space::Vrf, l.bias, f, quant.bias);
  }
  const Operand2D scales{Space::Vrf, l.scales, 0, kF32Format};
  const Operand2D outputScale =
      emitConvScaleFills(emitter, quant, Space::Vrf, l.scales);
  loadTiles(0, std::min(fg, f));

  for (size_t index = 0; index < jobs.size(); ++index) {
    const Job &job = jobs[index];
    const int slot = int(index % 2), in0 = slotOf[index];
    const int64_t g0 = job.group, count = std::min(fg, f - g0);
    if (index > 0 && job.group != jobs[index - 1].group)
      loadTiles(g0, count);
    const Staged staged = slots[in0];
    // The next band's input loads while this one multiplies.
    if (index + 1 < jobs.size())
      slotOf[index + 1] = stage(jobs[index + 1], in0);
    const Operand2D sum{Space::Acc, l.sum[slot], count * kF32, kI32Format};
    for (int64_t ft = 0; ft * n < count; ++ft) {
      const int64_t f0 = ft * n, nf = std::min(n, count - f0);
      for (int64_t i = job.p0 / spec.ow; i * spec.ow < job.p1; ++i) {
        // The band's columns [s0, s1) of output row i, from sum row `base`.
        const int64_t s0 = std::max<int64_t>(0, job.p0 - i * spec.ow),
                      s1 = std::min(spec.ow, job.p1 - i * spec.ow);
        const int64_t base = i * spec.ow + s0 - job.p0;
        // The taps that read inside the image (their columns clipped to the
        // band's), one covering every column first (it initializes the
        // sums).
        struct Tap {
          int64_t t, row, jlo, jhi, offset;
        };
        llvm::SmallVector<Tap, 16> row;
        for (int64_t dy = 0; dy < spec.kh; ++dy) {
          const int64_t y = i * spec.sh - spec.ph + dy * spec.dh;
          if (y < 0 || y >= spec.h)
            continue;
          for (int64_t dx = 0; dx < spec.kw; ++dx) {
            const int64_t offset = dx * spec.dw - spec.pw;
            auto [jlo, jhi] = validColumns(spec, offset);
            jlo = std::max(jlo, s0);
            jhi = std::min(jhi, s1);
            if (jlo < jhi)
              row.push_back({dy * spec.kw + dx, y, jlo, jhi, offset});
          }
        }
        auto full = llvm::find_if(row, [&](const Tap &tap) {
          return tap.jlo == s0 && tap.jhi == s1;
        });
        if (full != row.end())
          std::rotate(row.begin(), full, full + 1);
        else
          emitFillBits(emitter, sum.at(base, f0), s1 - s0, nf, 0);
        bool first = full != row.end();
        for (const Tap &tap : row) {
          const int64_t pixel = l.guard + (tap.row - staged.first) * spec.w +
                                tap.jlo * spec.sw + tap.offset;
          for (int64_t ct = 0; ct < l.cTiles; ++ct) {
            const int64_t kc = l.channelTile(spec, ct);
            emitMm(emitter, sum.at(base + tap.jlo - s0, f0),
                   Operand2D{l.stageSpace,
                             l.stage[in0] + uint64_t(pixel * l.cp + ct * n),
                             spec.sw * l.cp, in},
                   denseOperand(Space::Mrf,
                                l.block(tap.t, ct) + uint64_t(f0 * kc), kc,
                                kI8Format),
                   tap.jhi - tap.jlo, kc, nf, /*accumulate=*/!first,
                   quant.inputZeroPoint);
            first = false;
          }
        }
      }
    }
    // The epilogue and the transposing stores (pixel p, filter r of the
    // band -> plane g0 + r, element p0 + p), per block of `q` filters and
    // `pixelStep` pixels (see storeBlocks).
    const int64_t pixels = job.p1 - job.p0;
    auto [q, pixelStep] = storeBlocks(count, pixels);
    for (int64_t r0 = 0; r0 < count; r0 += q) {
      const int64_t qn = std::min(q, count - r0);
      const Operand2D result{
          Space::Acc, l.out[slot] + uint64_t(r0 * pixels * eo), qn * eo, out};
      std::optional<Operand2D> blockBias;
      if (bias)
        blockBias = bias->at(0, g0 + r0);
      emitConvEpilogue(emitter, quant, spec.activation, sum.at(0, r0),
                       blockBias,
                       quant.perChannel() ? scales.at(0, g0 + r0) : scales,
                       outputScale, result, pixels, qn);
      for (int64_t pc = 0; pc < pixels; pc += pixelStep) {
        DmaStore store;
        store.dst = {
            Space::Dram,
            spec.output +
                uint64_t(((job.image * f + g0 + r0) * outPlane + job.p0 + pc) *
                         eo)};
        store.src = result.at(pc).ref();
        store.format = out;
        store.x = 1;
        store.y = qn;
        store.z = std::min(pixelStep, pixels - pc);
        store.dy = outPlane * eo;
        store.dz = eo;
        store.spitch = eo;
        emitStore(emitter, store);
      }
    }
  }
}

/// `spec` on the most of its spec.cores cores that it has a layout for (a
/// placement may name more cores than the SHARED memory takes copies of
/// the weights for); canEmitQuantizedGemm checked one.
GemmSpec withUsableCores(const TargetDesc &target, const GemmSpec &spec) {
  GemmSpec usable = spec;
  std::string reason;
  for (usable.cores = std::max<int64_t>(spec.cores, 1); usable.cores > 1;
       --usable.cores)
    if (quantizedGemmLayout(target, usable, reason))
      break;
  return usable;
}

} // namespace

void emitQuantizedGemm(llvm::ArrayRef<ProgramEmitter *> emitters,
                       const TargetDesc &target, const GemmSpec &spec) {
  // Each core computes a range of output pixels with all the filters: the
  // matrix unit's cost does not shrink with fewer filters (n <= N costs
  // one pass), with fewer pixels it does (see getQuantizedGemmCores).
  GemmSpec requested = spec;
  requested.cores = int64_t(emitters.size());
  const GemmSpec shared = withUsableCores(target, requested);
  std::string unused;
  const QuantizedGemmLayout l = *quantizedGemmLayout(target, shared, unused);
  const int64_t outPlane = spec.outPlane();
  for (int64_t core = 0; core < shared.cores; ++core) {
    const int64_t begin = std::min(outPlane, core * l.corePixels),
                  end = std::min(outPlane, begin + l.corePixels);
    if (begin < end)
      emitQuantizedGemmPixels(*emitters[size_t(core)], target, shared, l, begin,
                              end,
                              spec.shared + uint64_t(core) * l.sharedBytes);
  }
}

unsigned getQuantizedGemmCores(const TargetDesc &target, const GemmSpec &spec) {
  // Cutting the filters across k cores (accel-split-ops) costs each core
  // ceil(F / (k N)) passes per pixel, cutting the pixels ceil(F / N) / k:
  // pixels where that is less, when every core gets pixels (aligned band
  // starts) and the batch is no better cut.
  const int64_t n = target.nativeDim, f = spec.filters();
  int64_t k = std::min<int64_t>(
      target.coresPerCard, ceilDiv(spec.outPlane(), pixelAlign(target, spec)));
  if (k < 2 || spec.batch >= k || ceilDiv(f, n * k) * k <= ceilDiv(f, n))
    return 1;
  GemmSpec shared = spec;
  for (; k >= 2; --k) {
    shared.cores = k;
    std::string reason;
    if (quantizedGemmLayout(target, shared, reason))
      return unsigned(k);
  }
  return 1;
}

uint64_t quantizedGemmSharedBytes(const TargetDesc &target,
                                  const GemmSpec &spec) {
  const GemmSpec usable = withUsableCores(target, spec);
  std::string reason;
  std::optional<QuantizedGemmLayout> l =
      quantizedGemmLayout(target, usable, reason);
  return l ? l->sharedBytes * uint64_t(usable.cores) : 0;
}

} // namespace mlir::nnaccel::npu_lowering::conv
