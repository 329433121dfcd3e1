//===- QuantizedPointwiseConvKernel.cpp - int8 1x1 convolutions -----------===//
//
// The int8 pointwise (1x1, stride 1) convolution on the matrix unit;
// ConvKernels.cpp picks it for a quantized accel.conv, PointwiseConvKernel's
// entry points dispatch to it. Per image, Y[F, HW] = W[F, C] . X[C, HW] in
// exact i32, then the epilogue of ConvQuantization.
//
// mm multiplies integer activations only as its `a` operand (with a zero
// point) and i8 weights as `w`, and costs m * ceil(k / L) * ceil(n / N)
// cycles: whichever of pixels and filters is the `m` side, the other should
// fill the N columns. Two orientations, the cheaper one is used:
//
// * pixels as rows (any i8/u8 input): A = X^T chunks [mp pixels x C], one
//   transposing DMA each (one element per DMA row: rows = channels, planes
//   = pixels) into the VRF; the filter matrix resident in the MRF (one DMA
//   for its full K tiles, F x N planes); D[mp x nt] = A . W_j^T per tile of
//   N filters, chained straight into the epilogue when one K tile covers
//   the channels. Per-column scales are per filter (v.rqnt/v.dqnt perch).
//   Suits expansions (few channels, many filters).
// * filters as rows (an i8 input with zero point 0, which the weight
//   operand needs): A = the filter matrix [F x C] resident in ACC, the
//   pixels' X^T tiles [N pixels x kt] in the MRF (one transposing DMA per K
//   tile of a group of pixel tiles), D[F x pixels] already in NCHW order.
//   The scales are per row, so the sums are converted (v.cvt), multiplied
//   by their filter's scale (bcast col) and requantized with scale 1 — the
//   same two roundings as v.rqnt per channel. Suits projections (many
//   channels, few filters: with pixels as rows a 16-filter tile would leave
//   48 of the 64 dot-product engines idle).
//
// DMA costs bytes, not rows, so the transposing loads and stores cost what
// plain ones do; the bytes are a quarter of f32's.
//
// Several cores (one op as a unit, getQuantizedPointwiseCores) share the
// output pixels: each a contiguous range of whole DMA alignment steps of
// every filter's plane, with all the filters (each loads the whole weight
// matrix, which is small next to the activations) and the same per-pixel
// arithmetic, so the result is bit-identical to one core's. Cutting the
// filters instead (accel-split-ops) makes every core read the whole input
// and, below N filters per core, leaves dot-product engines idle. The
// cores' stores interleave in every plane; with pixels as rows, the
// results are stored in blocks the emulator's race detector checks row by
// row (at most kMaxCheckedStoreRows rows, docs/emulator.md §7).
//
//===----------------------------------------------------------------------===//

#include "ConvKernelSupport.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::npu_lowering;
using namespace mlir::nnaccel::npu_lowering::conv;

namespace mlir::nnaccel::npu_lowering::conv {
namespace {

/// Chunks (pixels as rows) or pixel groups (filters as rows) the kernel
/// aims for, so that loads, products and stores overlap.
constexpr int64_t kTargetChunks = 4;

/// Output pixels that keep DRAM addresses aligned in the 1-byte input
/// planes and in the output planes.
int64_t pixelAlign(const TargetDesc &target) {
  return int64_t(target.memory(Space::Dram).align);
}

/// Output pixels per core when spec.cores share them: whole alignment
/// steps, the last core's fewer.
int64_t pixelsPerCore(const TargetDesc &target, const PointwiseSpec &spec) {
  const int64_t align = pixelAlign(target);
  int64_t pixels = ceilDiv(spec.hw, std::max<int64_t>(spec.cores, 1));
  return std::min(spec.hw, ceilDiv(pixels, align) * align);
}

/// Matrix-unit cycles of one row of mm over all K tiles of `c` channels of
/// i8 weights.
int64_t kCycles(const TargetDesc &target, int64_t c) {
  const int64_t tile = target.nativeDim,
                lanes = target.matrixLanesFor(DType::I8);
  int64_t cycles = 0;
  for (int64_t c0 = 0; c0 < c; c0 += tile)
    cycles += (std::min(tile, c - c0) + lanes - 1) / lanes;
  return cycles;
}

struct QuantizedPointwiseLayout {
  bool filterRows = false;
  int64_t tile = 0;     // N
  int64_t kTiles = 0;   // K tiles of the channels
  int64_t pixels = 0;   // pixels per chunk (pixel rows) or group (filter rows)
  bool chained = false; // pixel rows, one K tile: mm chained into epilogue
  // vrf: bias [F], scales [F] + 1 / y_scale, the constant 1.0 (filter rows)
  uint64_t bias = 0, scales = 0, one = 0;
  uint64_t x[2] = {0, 0}; // pixel rows: X^T chunks (vrf); filter rows:
                          // the X^T tiles of a group (mrf)
  uint64_t xSlot = 0;     // filter rows: bytes of one K tile of a group
  uint64_t sum[2] = {0, 0}, out[2] = {0, 0}; // acc
  uint64_t a = 0;                            // filter rows: W in ACC
  uint64_t w = 0;                            // pixel rows: W in the MRF
  int64_t corePixels = 0; // output pixels per core (the last core's fewer)
  // Pixel rows: filters per result block (all of them, or N when several
  // cores store more than kMaxCheckedStoreRows rows per chunk; a block is
  // [pixels x blockFilters] at pitch blockFilters), and pixels per store.
  int64_t blockFilters = 0, storePixels = 0;
};

/// Pixels per chunk or group of a core's `corePixels`: kTargetChunks of
/// them, aligned for the DMA (in the 1-byte input planes, and so in the
/// output planes), at most `fit`.
int64_t chunkPixels(const TargetDesc &target, int64_t corePixels, int64_t fit) {
  const int64_t align = pixelAlign(target);
  int64_t pixels = (corePixels + kTargetChunks - 1) / kTargetChunks;
  pixels = int64_t(alignUp(uint64_t(pixels), uint64_t(align)));
  if (pixels >= corePixels && fit >= corePixels)
    return corePixels;
  return std::min(pixels, fit / align * align);
}

std::optional<QuantizedPointwiseLayout>
pixelRowsLayout(const TargetDesc &target, const PointwiseSpec &spec,
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
  // The weights, resident: one F x N block per K tile (the last one F x kt).
  uint64_t mrf =
      alignUp(uint64_t(spec.f * spec.c), target.memory(Space::Mrf).align);
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
  int64_t fit = std::min<int64_t>({byVrf, accBytes / perPixelAcc, kMaxDmaYZ});
  l.corePixels = pixelsPerCore(target, spec);
  l.pixels = chunkPixels(target, l.corePixels, fit);
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
  // Stores of [pixels x filters] from ACC read their rows in order: a
  // chunk too large for the race detector is stored in blocks of N
  // filters (each epilogue tile writes one) and pixel steps.
  l.blockFilters = spec.f;
  l.storePixels = l.pixels;
  if (spec.cores > 1 && spec.f * l.pixels > kMaxCheckedStoreRows) {
    const int64_t align = pixelAlign(target);
    l.blockFilters = std::min(spec.f, l.tile);
    l.storePixels =
        std::max(align, kMaxCheckedStoreRows / l.blockFilters / align * align);
  }
  return l;
}

std::optional<QuantizedPointwiseLayout>
filterRowsLayout(const TargetDesc &target, const PointwiseSpec &spec,
                 std::string &reason) {
  const ConvQuantization &quant = *spec.quantized;
  QuantizedPointwiseLayout l;
  l.filterRows = true;
  l.tile = target.nativeDim;
  l.kTiles = (spec.c + l.tile - 1) / l.tile;
  const int64_t eo = quant.output.elementBytes();
  const int64_t vrfBytes =
      int64_t(target.vrfRegisters) * int64_t(target.vrfRegisterBytes);
  const int64_t accBytes =
      static_cast<int64_t>(target.memory(Space::Acc).bytes);
  const uint64_t mrfBytes = target.memory(Space::Mrf).bytes;
  l.bias = 0;
  l.scales = alignUp(uint64_t(spec.f) * kF32, 64);
  l.one = l.scales + alignUp(convScaleBytes(quant), 64);
  if (int64_t(l.one + 64) > vrfBytes) {
    reason = "the bias and scales of " + std::to_string(spec.f) +
             " filters do not fit the vector register file";
    return std::nullopt;
  }
  l.a = 0;
  const int64_t aBytes = int64_t(alignUp(uint64_t(spec.f * spec.c), 64));
  // Per pixel of a group: two sum and two result columns of F (ACC), and
  // two X^T rows of C (MRF).
  int64_t perPixelAcc = 2 * spec.f * (4 + eo);
  int64_t fit = std::min<int64_t>(
      {(accBytes - aBytes) / perPixelAcc,
       int64_t(mrfBytes / uint64_t(2 * l.kTiles * l.tile)) / l.tile * l.tile,
       kMaxDmaYZ, kMaxCount});
  if (aBytes >= accBytes / 2 || fit < l.tile) {
    reason = "the filter matrix and a group of pixels do not fit the "
             "accumulator memory";
    return std::nullopt;
  }
  l.corePixels = pixelsPerCore(target, spec);
  l.pixels = chunkPixels(target, l.corePixels, fit);
  l.xSlot = alignUp(uint64_t(l.pixels * l.tile), 64);
  l.x[0] = 0;
  l.x[1] = l.xSlot * uint64_t(l.kTiles);
  const uint64_t sumBytes = alignUp(uint64_t(spec.f * l.pixels * 4), 64);
  const uint64_t outBytes = alignUp(uint64_t(spec.f * l.pixels * eo), 64);
  l.sum[0] = uint64_t(aBytes);
  l.sum[1] = l.sum[0] + sumBytes;
  l.out[0] = l.sum[1] + sumBytes;
  l.out[1] = l.out[0] + outBytes;
  return l;
}

/// The layout of the cheaper orientation (modelled matrix-unit and vector
/// cycles), or the reason none fits.
std::optional<QuantizedPointwiseLayout>
quantizedPointwiseLayout(const TargetDesc &target, const PointwiseSpec &spec,
                         std::string &reason) {
  const ConvQuantization &quant = *spec.quantized;
  std::optional<QuantizedPointwiseLayout> pixelRows =
      pixelRowsLayout(target, spec, reason);
  std::string filterReason;
  std::optional<QuantizedPointwiseLayout> filterRows;
  if (quant.input.dtype == DType::I8 && quant.inputZeroPoint == 0)
    filterRows = filterRowsLayout(target, spec, filterReason);
  if (!pixelRows || !filterRows)
    return pixelRows ? pixelRows : filterRows;
  const int64_t tile = target.nativeDim, lanes = target.vectorLanes;
  const int64_t fTiles = (spec.f + tile - 1) / tile;
  const int64_t pTiles = (spec.hw + tile - 1) / tile;
  // Pixels as rows: mm per pixel and filter tile, one epilogue pass.
  int64_t pixelCycles = spec.hw * fTiles * (kCycles(target, spec.c) + 1);
  // Filters as rows: mm per filter and pixel tile, three epilogue passes.
  int64_t filterCycles = pTiles * spec.f * kCycles(target, spec.c) +
                         3 * spec.f * ((spec.hw + lanes - 1) / lanes);
  return filterCycles < pixelCycles ? filterRows : pixelRows;
}

/// Loads the bias, if any. The kernels load it behind the weights and
/// their first input: it is read only by the first epilogue, and its VRF
/// bytes may still be in use by the op before, which would hold up the
/// (in-order) loads queued behind it.
std::optional<Operand2D> loadBias(ProgramEmitter &emitter,
                                  const PointwiseSpec &spec,
                                  const QuantizedPointwiseLayout &l) {
  if (!spec.bias)
    return std::nullopt;
  const ElementFormat format = spec.quantized->bias;
  DmaLoad load;
  load.dst = {Space::Vrf, l.bias};
  load.src = {Space::Dram, *spec.bias};
  load.format = format;
  load.x = spec.f;
  emitLoad(emitter, load);
  return denseOperand(Space::Vrf, l.bias, spec.f, format);
}

/// Output pixels [begin, end) of every plane of `spec` on one core.
void emitPixelRows(ProgramEmitter &emitter, const PointwiseSpec &spec,
                   const QuantizedPointwiseLayout &l, int64_t begin,
                   int64_t end) {
  const ConvQuantization &quant = *spec.quantized;
  const ElementFormat in = quant.input, out = quant.output;
  const int64_t eo = out.elementBytes();
  const int64_t tile = l.tile, c = spec.c, f = spec.f, hw = spec.hw;
  // The weights: each K tile is an F x kt block, the full ones loaded as
  // the planes of one DMA.
  // Pinned: the core's setup program loads them, once for every run.
  const int64_t fullTiles = c / tile;
  const uint64_t w = spec.pinnedWeight ? *spec.pinnedWeight : l.w;
  ProgramEmitter &weightEmitter =
      spec.pinnedWeight && spec.setup ? *spec.setup : emitter;
  auto block = [&](int64_t t) { return w + uint64_t(t * f * tile); };
  if (fullTiles > 0) {
    DmaLoad load;
    load.dst = {Space::Mrf, block(0)};
    load.src = {Space::Dram, spec.weight};
    load.format = kI8Format;
    load.x = tile;
    load.y = f;
    load.z = fullTiles;
    load.sy = c;
    load.sz = tile;
    emitLoad(weightEmitter, load);
  }
  if (fullTiles < l.kTiles) {
    DmaLoad load;
    load.dst = {Space::Mrf, block(fullTiles)};
    load.src = {Space::Dram, spec.weight + uint64_t(fullTiles * tile)};
    load.format = kI8Format;
    load.x = c - fullTiles * tile;
    load.y = f;
    load.sy = c;
    emitLoad(weightEmitter, load);
  }
  auto loadChunk = [&](int64_t image, int64_t p0, int64_t slot) {
    int64_t np = std::min(l.pixels, end - p0);
    loadPixelsTransposed(emitter, {Space::Vrf, l.x[slot]},
                         spec.input + uint64_t(image * c * hw + p0), in, c, np,
                         hw);
  };
  const int64_t chunks = ceilDiv(end - begin, l.pixels);
  loadChunk(0, begin, 0);
  const std::optional<Operand2D> bias = loadBias(emitter, spec, l);
  // The fills have no inputs: behind the first loads they run while those
  // are in flight.
  const Operand2D scales{Space::Vrf, l.scales, 0, kF32Format};
  const Operand2D outputScale =
      emitConvScaleFills(emitter, quant, Space::Vrf, l.scales);

  int64_t index = 0, sumIndex = 0;
  for (int64_t image = 0; image < spec.batch; ++image)
    for (int64_t chunk = 0; chunk < chunks; ++chunk, ++index) {
      const int64_t p0 = begin + chunk * l.pixels,
                    np = std::min(l.pixels, end - p0);
      const int slot = index % 2;
      // The next chunk's load goes ahead of this chunk's products.
      if (chunk + 1 < chunks)
        loadChunk(image, p0 + l.pixels, (index + 1) % 2);
      else if (image + 1 < spec.batch)
        loadChunk(image + 1, begin, (index + 1) % 2);
      // The result block of filters [r0, r0 + qn): np x qn at pitch qn.
      const int64_t q = l.blockFilters;
      auto resultBlock = [&](int64_t r0) {
        const int64_t qn = std::min(q, f - r0);
        return Operand2D{Space::Acc, l.out[slot] + uint64_t(r0 * np * eo),
                         qn * eo, out};
      };
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
                 denseOperand(Space::Mrf, block(t) + uint64_t(f0 * kt), kt,
                              kI8Format),
                 np, kt, nt, /*accumulate=*/t > 0, quant.inputZeroPoint);
        }
        std::optional<Operand2D> tileBias;
        if (bias)
          tileBias = bias->at(0, f0);
        emitConvEpilogue(emitter, quant, spec.activation, sum, tileBias,
                         quant.perChannel() ? scales.at(0, f0) : scales,
                         outputScale, resultBlock(f0 / q * q).at(0, f0 % q), np,
                         nt);
      }
      // Pixel p, filter r of the chunk -> plane r, element p, per block of
      // filters and step of pixels.
      for (int64_t r0 = 0; r0 < f; r0 += q) {
        const Operand2D result = resultBlock(r0);
        const int64_t qn = std::min(q, f - r0);
        for (int64_t pc = 0; pc < np; pc += l.storePixels) {
          DmaStore store;
          store.dst = {Space::Dram,
                       spec.output +
                           uint64_t(((image * f + r0) * hw + p0 + pc) * eo)};
          store.src = result.at(pc).ref();
          store.format = out;
          store.x = 1;
          store.y = qn;
          store.z = std::min(l.storePixels, np - pc);
          store.dy = hw * eo;
          store.dz = eo;
          store.spitch = eo;
          emitStore(emitter, store);
        }
      }
    }
}

/// The epilogue of filters as rows: `sum` (f x cols i32 in ACC) to `result`
/// with per-row parameters (bcast col), the arithmetic of emitConvEpilogue.
void emitRowsEpilogue(ProgramEmitter &emitter, const ConvQuantization &quant,
                      const ActivationSpec &activation, const Operand2D &sum,
                      const std::optional<Operand2D> &bias,
                      const Operand2D &scales, const Operand2D &outputScale,
                      const Operand2D &one, const Operand2D &result,
                      int64_t rows, int64_t cols) {
  const Bcast perRow = quant.perChannel() ? Bcast::Col : Bcast::Scalar;
  const bool integerBias = bias && !quant.realBias();
  // f32(sum + i32 bias), in place.
  const Operand2D real{sum.space, sum.addr, sum.pitch, kF32Format};
  Operand2D source = sum;
  if (integerBias) {
    emitBinary(emitter, Opcode::VAdd, chainOperand(cols, kI32Format), sum,
               *bias, Bcast::Col, rows, cols);
    source = chainOperand(cols, kI32Format);
  }
  emitUnary(emitter, Opcode::VCvt, real, source, rows, cols);
  if (quant.rescale) {
    // round(f32(sum) * scale) + zp: v.rqnt of the scaled value by 1.
    emitBinary(emitter, Opcode::VMul, chainOperand(cols), real, scales, perRow,
               rows, cols);
    emitQuantConvert(emitter, Opcode::VRqnt, result, chainOperand(cols), one,
                     /*perColumn=*/false, quant.outputZeroPoint, rows, cols);
    return;
  }
  const Operand2D dequantized = quant.quantizedOutput() ? real : result;
  if (bias && !integerBias) {
    emitBinary(emitter, Opcode::VMul, chainOperand(cols), real, scales, perRow,
               rows, cols);
    emitBinary(emitter, Opcode::VAdd, dequantized, chainOperand(cols), *bias,
               Bcast::Col, rows, cols);
  } else {
    emitBinary(emitter, Opcode::VMul, dequantized, real, scales, perRow, rows,
               cols);
  }
  emitActivation(emitter, activation, dequantized, rows, cols);
  if (quant.quantizedOutput())
    emitQuantConvert(emitter, Opcode::VRqnt, result, dequantized, outputScale,
                     /*perColumn=*/false, quant.outputZeroPoint, rows, cols);
}

/// Output pixels [begin, end) of every plane of `spec` on one core.
void emitFilterRows(ProgramEmitter &emitter, const PointwiseSpec &spec,
                    const QuantizedPointwiseLayout &l, int64_t begin,
                    int64_t end) {
  const ConvQuantization &quant = *spec.quantized;
  const ElementFormat in = quant.input, out = quant.output;
  const int64_t eo = out.elementBytes();
  const int64_t tile = l.tile, c = spec.c, f = spec.f, hw = spec.hw;
  {
    DmaLoad load;
    load.dst = {Space::Acc, l.a};
    load.src = {Space::Dram, spec.weight};
    load.format = kI8Format;
    load.x = c;
    load.y = f;
    emitLoad(emitter, load);
  }
  // K tile t of a group: its pixels' rows of kt channels, one transposing
  // DMA; pixel tile q of it starts q * N rows in.
  auto loadGroup = [&](int64_t image, int64_t p0, int slot) {
    const int64_t np = std::min(l.pixels, end - p0);
    for (int64_t t = 0; t < l.kTiles; ++t) {
      const int64_t kt = std::min(tile, c - t * tile);
      loadPixelsTransposed(
          emitter, {Space::Mrf, l.x[slot] + uint64_t(t) * l.xSlot},
          spec.input + uint64_t((image * c + t * tile) * hw + p0), in, kt, np,
          hw);
    }
  };
  const int64_t groups = ceilDiv(end - begin, l.pixels);
  loadGroup(0, begin, 0);
  const std::optional<Operand2D> bias = loadBias(emitter, spec, l);
  const Operand2D scales{Space::Vrf, l.scales, 0, kF32Format};
  const Operand2D outputScale =
      emitConvScaleFills(emitter, quant, Space::Vrf, l.scales);
  emitFill(emitter, Operand2D{Space::Vrf, l.one, 0, kF32Format}, 1, 1, 1.0f);
  const Operand2D one{Space::Vrf, l.one, 0, kF32Format};
  std::optional<Operand2D> columnBias;
  if (bias)
    columnBias = Operand2D{bias->space, bias->addr, quant.bias.elementBytes(),
                           quant.bias};
  const Operand2D rowScales =
      quant.perChannel() ? Operand2D{Space::Vrf, scales.addr, kF32, kF32Format}
                         : scales;

  int64_t index = 0;
  for (int64_t image = 0; image < spec.batch; ++image)
    for (int64_t group = 0; group < groups; ++group, ++index) {
      const int64_t p0 = begin + group * l.pixels,
                    np = std::min(l.pixels, end - p0);
      const int slot = index % 2;
      if (group + 1 < groups)
        loadGroup(image, p0 + l.pixels, (index + 1) % 2);
      else if (image + 1 < spec.batch)
        loadGroup(image + 1, begin, (index + 1) % 2);
      const Operand2D sum{Space::Acc, l.sum[slot], np * 4, kI32Format};
      for (int64_t q = 0; q * tile < np; ++q) {
        const int64_t nt = std::min(tile, np - q * tile);
        for (int64_t t = 0; t < l.kTiles; ++t) {
          const int64_t kt = std::min(tile, c - t * tile);
          emitMm(emitter, sum.at(0, q * tile),
                 Operand2D{Space::Acc, l.a + uint64_t(t * tile), c, kI8Format},
                 denseOperand(Space::Mrf,
                              l.x[slot] + uint64_t(t) * l.xSlot +
                                  uint64_t(q * tile * kt),
                              kt, in),
                 f, kt, nt, /*accumulate=*/t > 0);
        }
      }
      const Operand2D result{Space::Acc, l.out[slot], np * eo, out};
      emitRowsEpilogue(emitter, quant, spec.activation, sum, columnBias,
                       rowScales, outputScale, one, result, f, np);
      DmaStore store;
      store.dst = {Space::Dram,
                   spec.output + uint64_t((image * f * hw + p0) * eo)};
      store.src = result.ref();
      store.format = out;
      store.x = np;
      store.y = f;
      store.dy = hw * eo;
      store.spitch = np * eo;
      emitStore(emitter, store);
    }
}

} // namespace

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

namespace {

/// Modelled cycles of one core computing `pixels` output pixels of `f`
/// filters in the orientation of `l`: the matrix unit's and the MFUs'
/// passes as quantizedPointwiseLayout counts them against the DMA bytes
/// (its pixels' input and output, all the filters' weights) at the DRAM
/// bandwidth, plus one DRAM latency.
double coreCycles(const TargetDesc &target, const PointwiseSpec &spec,
                  const QuantizedPointwiseLayout &l, int64_t pixels,
                  int64_t f) {
  const ConvQuantization &quant = *spec.quantized;
  const int64_t tile = target.nativeDim, lanes = target.vectorLanes;
  const int64_t images = spec.batch;
  double compute;
  if (l.filterRows)
    compute = double(ceilDiv(pixels, tile) * f * kCycles(target, spec.c) +
                     3 * f * ceilDiv(pixels, lanes));
  else
    compute = double(pixels * ceilDiv(f, tile) * (kCycles(target, spec.c) + 1));
  const auto &dram = target.memory(Space::Dram);
  const double bytes =
      double(images * pixels *
             (spec.c * quant.input.elementBytes() +
              f * quant.output.elementBytes())) +
      double(f * spec.c) +
      (spec.bias ? double(f * quant.bias.elementBytes()) : 0.0);
  return std::max(double(images) * compute,
                  bytes / std::max(dram.bytesPerCycle, 1.0)) +
         double(dram.latencyCycles);
}

/// `spec` on the most of its spec.cores cores that get pixels.
PointwiseSpec withUsableCores(const TargetDesc &target,
                              const PointwiseSpec &spec) {
  PointwiseSpec usable = spec;
  usable.cores = std::max<int64_t>(
      1, std::min<int64_t>(spec.cores, ceilDiv(spec.hw, pixelAlign(target))));
  return usable;
}

} // namespace

void emitQuantizedPointwise(llvm::ArrayRef<ProgramEmitter *> emitters,
                            const TargetDesc &target,
                            const PointwiseSpec &spec) {
  PointwiseSpec requested = spec;
  requested.cores = int64_t(emitters.size());
  const PointwiseSpec shared = withUsableCores(target, requested);
  std::string unused;
  const QuantizedPointwiseLayout l =
      *quantizedPointwiseLayout(target, shared, unused);
  for (int64_t core = 0; core < shared.cores; ++core) {
    const int64_t begin = std::min(spec.hw, core * l.corePixels),
                  end = std::min(spec.hw, begin + l.corePixels);
    if (begin >= end)
      continue;
    ProgramEmitter &emitter = *emitters[size_t(core)];
    if (l.filterRows)
      emitFilterRows(emitter, shared, l, begin, end);
    else
      emitPixelRows(emitter, shared, l, begin, end);
  }
}

unsigned getQuantizedPointwiseMaxCores(const TargetDesc &target,
                                       const PointwiseSpec &spec) {
  // All the card's cores when at least two get pixels (as the implicit
  // GEMM: a placement naming more cores than get pixels leaves the rest
  // idle), else one (accel-split-ops may cut the filters instead).
  if (ceilDiv(spec.hw, pixelAlign(target)) < 2)
    return 1;
  return unsigned(std::max<uint32_t>(target.coresPerCard, 1));
}

std::optional<uint64_t> quantizedPointwisePinBytes(const TargetDesc &target,
                                                   const PointwiseSpec &spec) {
  if (spec.cores > 1)
    return std::nullopt;
  std::string reason;
  std::optional<QuantizedPointwiseLayout> l =
      quantizedPointwiseLayout(target, spec, reason);
  if (!l || l->filterRows)
    return std::nullopt;
  return alignUp(uint64_t(spec.f * spec.c), target.memory(Space::Mrf).align);
}

unsigned getQuantizedPointwiseCores(const TargetDesc &target,
                                    const PointwiseSpec &spec) {
  // The kernel's cycles on one core, with its pixels shared by k cores
  // (each loads all the weights) and with its filters cut k ways (what
  // accel-split-ops would do: each core reads every pixel). Shared pixels
  // where they beat both, with one DRAM latency for the barrier in front
  // of the op (the queues drain; its neighbours mostly run on several
  // cores and need one anyway: charging two kept MobileNet's 12 x 12
  // expansions on one core, 0.5 % slower), and by 5 % (accel-split-ops'
  // margin for a cut).
  PointwiseSpec all = spec;
  all.cores = std::max<int64_t>(target.coresPerCard, 1);
  const int64_t most = withUsableCores(target, all).cores;
  if (most < 2)
    return 1;
  std::string reason;
  std::optional<QuantizedPointwiseLayout> whole =
      quantizedPointwiseLayout(target, spec, reason);
  if (!whole)
    return 1;
  const double overhead = double(target.memory(Space::Dram).latencyCycles);
  const double one = coreCycles(target, spec, *whole, spec.hw, spec.f);
  unsigned best = 1;
  double bestCycles = one;
  for (int64_t k = 2; k <= most; ++k) {
    PointwiseSpec shared = spec;
    shared.cores = k;
    std::optional<QuantizedPointwiseLayout> l =
        quantizedPointwiseLayout(target, shared, reason);
    if (!l)
      continue;
    const double pixels =
        coreCycles(target, shared, *l, l->corePixels, spec.f) + overhead;
    const double filters =
        coreCycles(target, spec, *whole, spec.hw, ceilDiv(spec.f, k)) +
        overhead;
    if (pixels <= filters && pixels < 0.95 * one && pixels < bestCycles) {
      best = unsigned(k);
      bestCycles = pixels;
    }
  }
  return best;
}

} // namespace mlir::nnaccel::npu_lowering::conv
