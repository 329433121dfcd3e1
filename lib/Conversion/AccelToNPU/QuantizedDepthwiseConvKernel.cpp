//===- QuantizedDepthwiseConvKernel.cpp - int8 depthwise on the MFUs ------===//
//
// The int8 depthwise k x k convolution (stride 1 or 2, same padding, input
// zero point 0), on the MFUs in exact i32 arithmetic; ConvKernels.cpp picks
// it for a quantized depthwise accel.conv, DepthwiseConvKernel.cpp's entry
// points dispatch to it.
//
// The f32 kernel keeps channels as vector rows, which wastes lanes on small
// planes (a 3x3 plane is a 13-element row) and computes both column phases
// of a stride-2 conv. Here the channels run along the vector columns
// instead: the DMA engine loads a chunk of cc channels transposed (one
// element per DMA row: rows = channels, planes = pixels) into ACC as
// [H*W pixels x cc], which costs the same bytes as a plain load. Then:
//
// * stride 1: one vector row per image row, W*cc columns. Tap (dy, dx) of
//   output rows [i0, i1) is one multiply of the window that starts
//   (dy - p) rows and (dx - p) pixels away by a weight row of W*cc values
//   (the tap's weight of each channel, repeated per pixel), chained into the
//   add that accumulates it: k*k instructions per band of rows, every lane
//   busy. The window of a pixel near the left or right border wraps into
//   the neighbouring image row; its weights there are 0 instead of the data
//   being padded (a padded layout would need one DMA per image row), and
//   zero guard rows above and below the planes stand for the vertical
//   padding.
//   Small planes of many channels (where repeating the weights per pixel
//   costs more than it saves) go per output pixel like stride 2:
// * stride 2: one vector row per output pixel, cc columns; output row i,
//   tap (dy, dx) is one multiply of input row 2i + dy - p from pixel
//   2j + dx - p on (row pitch two pixels) by the tap's weight row, over the
//   pixels j whose window lies inside the image: the padding is never read.
//
// Products (u8/i8 x i8) and sums are exact in i32, so any order gives the
// host's result. Per band, the epilogue (emitConvEpilogue: per-column scales
// are per channel, repeated per pixel for stride 1) writes the result type
// and one transposing store (one element per DMA row) puts the band back
// into the NCHW planes. The input of the next chunk of channels loads while
// this one computes (two slots), and loads, bands and stores overlap within
// a chunk: each band waits only for the input rows it reads.
//
//===----------------------------------------------------------------------===//

#include "ConvKernelSupport.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::npu_lowering;
using namespace mlir::nnaccel::npu_lowering::conv;

namespace mlir::nnaccel::npu_lowering::conv {
namespace {

/// Output bands per chunk the kernel aims for, so that the loads, the
/// vector work and the stores of a chunk overlap.
constexpr int64_t kTargetBands = 4;

struct QuantizedDepthwiseLayout {
  int64_t ho = 0, wo = 0, pad = 0, taps = 0;
  int64_t channels = 0; // cc: channels per chunk, a multiple of 4
  int64_t bandRows = 0; // output rows per band
  int64_t rowAlign = 1; // input rows whose planes' loads start aligned
  int64_t loadRows = 0; // input rows per load DMA (a multiple of rowAlign)
  int64_t guard = 0;    // zero pixels before and after the planes (row view)
  /// Stride 1 with whole image rows as vector rows (else one vector row
  /// per output pixel, per output row instructions).
  bool rowView = false;
  int inSlots = 1;
  // vrf: weights [taps x C] (i8), bias [C], scales [C + 1]; the row view
  // also the repeated weights [taps x W x cc] (i8), bias and scales
  // [W x cc].
  uint64_t weights = 0, bias = 0, scales = 0, wrep = 0, brep = 0, srep = 0;
  // acc: input chunks, band sums (i32) and results.
  uint64_t in[2] = {0, 0}, sum[2] = {0, 0}, out[2] = {0, 0};
  uint64_t inBytes = 0;

  int64_t bandPixels(const DepthwiseSpec &spec, int64_t rows) const {
    return rows * (rowView ? spec.w : wo);
  }
};

std::optional<QuantizedDepthwiseLayout>
quantizedDepthwiseLayout(const TargetDesc &target, const DepthwiseSpec &spec,
                         std::string &reason) {
  const ConvQuantization &quant = *spec.quantized;
  QuantizedDepthwiseLayout l;
  const int64_t c = spec.c, h = spec.h, w = spec.w, s = spec.stride;
  l.pad = spec.k / 2;
  l.taps = spec.k * spec.k;
  l.ho = (h + 2 * l.pad - spec.k) / s + 1;
  l.wo = (w + 2 * l.pad - spec.k) / s + 1;
  // The row view (stride 1) pays for repeating the weights, bias and scales
  // per pixel; per-pixel rows pay an instruction per (output row, tap) and
  // lanes when the channels are not a multiple of the lanes. Small planes
  // of many channels (a 3x3 image of 480 channels) go per pixel.
  {
    const int64_t lanes = target.vectorLanes;
    auto passes = [&](int64_t n) { return (n + lanes - 1) / lanes; };
    const int64_t rowCycles =
        l.taps * (l.ho * passes(w * c) + 2) + l.taps * w * passes(c) +
        l.taps * (w * passes(c) + 2) + 4 * w * passes(c) + l.ho * passes(w * c);
    const int64_t pixelCycles =
        l.ho * l.taps * (l.wo * passes(c) + 2) + l.ho * l.wo * passes(c);
    l.rowView = s == 1 && rowCycles <= pixelCycles;
  }
  l.guard = l.rowView ? l.pad * w + l.pad : 0;
  const int64_t eo = quant.output.elementBytes();
  const int64_t eb = quant.bias.elementBytes();
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  const int64_t vrfBytes =
      int64_t(target.vrfRegisters) * int64_t(target.vrfRegisterBytes);
  const int64_t accBytes =
      static_cast<int64_t>(target.memory(Space::Acc).bytes);
  const int64_t outPlane = l.ho * l.wo;

  uint64_t vrf = 0;
  l.weights = vrf;
  vrf += alignUp(uint64_t(l.taps * c), 64);
  l.bias = vrf;
  vrf += spec.bias ? alignUp(uint64_t(c * eb), 64) : 0;
  l.scales = vrf;
  vrf += alignUp(uint64_t(convScaleBytes(quant)), 64);
  const uint64_t vrfFixed = vrf;

  // Chunks of channels keep the input and output planes of every chunk at
  // aligned DRAM addresses, and are whole 4-byte groups of 1-byte channels
  // (on-chip operands start at 4-byte aligned addresses).
  const int64_t step =
      std::lcm(std::lcm<int64_t>(4, alignedCount(h * w, dramAlign)),
               alignedCount(outPlane * eo, dramAlign));
  // Output bands start at aligned addresses in their planes.
  const int64_t bandAlign = alignedCount(l.wo * eo, dramAlign);
  const int64_t rowAlign = alignedCount(w, dramAlign);
  for (int64_t cc = c; cc >= 4; cc = (cc - 1) / step * step) {
    if (cc < c && cc % step != 0)
      continue;
    const int inSlots = cc < c ? 2 : 1;
    const uint64_t inBytes = alignUp(uint64_t((2 * l.guard + h * w) * cc), 64);
    uint64_t vrfChunk = 0;
    if (l.rowView) {
      vrfChunk += alignUp(uint64_t(l.taps * w * cc), 64);
      vrfChunk += spec.bias ? alignUp(uint64_t(w * cc * eb), 64) : 0;
      vrfChunk += quant.perChannel() ? alignUp(uint64_t(w * cc * kF32), 64) : 0;
      // Row-view operands: W*cc columns of i32 within the 64 KiB pitch.
      if (w * cc * kF32 > kMaxPitch)
        continue;
    }
    if (int64_t(vrfFixed + vrfChunk) > vrfBytes)
      continue;
    const int64_t accFree = accBytes - int64_t(inSlots * inBytes);
    if (accFree <= 0)
      continue;
    // Per band row: the i32 sums and the results, two of each.
    const int64_t perRow = 2 * l.bandPixels(spec, 1) * cc * (kF32 + eo) + 128;
    int64_t fit = std::min(accFree / perRow, l.ho);
    fit =
        std::min(fit, kMaxDmaYZ / std::max<int64_t>(l.bandPixels(spec, 1), 1));
    // Cores sharing the op take whole bands: aim for kTargetBands each.
    const int64_t targetBands = kTargetBands * std::max<int64_t>(spec.cores, 1);
    int64_t rows = (l.ho + targetBands - 1) / targetBands;
    rows = (rows + bandAlign - 1) / bandAlign * bandAlign;
    if (rows >= l.ho)
      rows = l.ho;
    if (rows > fit)
      rows = fit >= l.ho ? l.ho : fit / bandAlign * bandAlign;
    if (rows < 1)
      continue;
    // Input rows per load: about one band's, so that loads overlap the
    // bands before them.
    int64_t loadRows = std::min<int64_t>(
        {kMaxDmaYZ / w, h, (rows * s + rowAlign - 1) / rowAlign * rowAlign});
    if (loadRows < h)
      loadRows = std::max<int64_t>(rowAlign, loadRows / rowAlign * rowAlign);
    if (loadRows * w > kMaxDmaYZ)
      loadRows = 0;
    if (loadRows < 1)
      continue;
    l.channels = cc;
    l.bandRows = rows;
    l.rowAlign = rowAlign;
    l.loadRows = loadRows;
    l.inSlots = inSlots;
    l.inBytes = inBytes;
    if (l.rowView) {
      l.wrep = vrf;
      l.brep = l.wrep + alignUp(uint64_t(l.taps * w * cc), 64);
      l.srep = l.brep + (spec.bias ? alignUp(uint64_t(w * cc * eb), 64) : 0);
    }
    uint64_t acc = 0;
    for (int i = 0; i < inSlots; ++i) {
      l.in[i] = acc;
      acc += inBytes;
    }
    const int64_t band = l.bandPixels(spec, rows) * cc;
    for (int i = 0; i < 2; ++i) {
      l.sum[i] = acc;
      acc += alignUp(uint64_t(band * kF32), 64);
    }
    for (int i = 0; i < 2; ++i) {
      l.out[i] = acc;
      acc += alignUp(uint64_t(band * eo), 64);
    }
    return l;
  }
  reason = "a chunk of " + std::to_string(h) + "x" + std::to_string(w) +
           " int8 channel planes that keeps DRAM bases aligned does not fit "
           "the on-chip memories";
  return std::nullopt;
}

} // namespace

bool canEmitQuantizedDepthwise(const TargetDesc &target,
                               const DepthwiseSpec &spec, std::string &reason) {
  const ConvQuantization &quant = *spec.quantized;
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  if (quant.inputZeroPoint != 0) {
    reason = "an int8 depthwise convolution needs input zero point 0 (its "
             "padding is the stored 0)";
    return false;
  }
  if (spec.c % 4 != 0) {
    reason = "an int8 depthwise convolution needs a multiple of 4 channels";
    return false;
  }
  if (target.mfuCount < 2) {
    reason = "an int8 depthwise convolution needs two MFUs";
    return false;
  }
  if (spec.c > kMaxDmaYZ || spec.w > kMaxDmaYZ) {
    reason = "more than 4095 channels or columns exceed the DMA counts";
    return false;
  }
  std::optional<QuantizedDepthwiseLayout> layout =
      quantizedDepthwiseLayout(target, spec, reason);
  if (!layout)
    return false;
  const int64_t eo = quant.output.elementBytes();
  if (spec.batch > 1 &&
      ((spec.c * spec.h * spec.w) % dramAlign != 0 ||
       (spec.c * layout->ho * layout->wo * eo) % dramAlign != 0)) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  return true;
}

namespace {

/// Emits the bands [bandBegin, bandEnd) of every unit (image, chunk of
/// channels) of `spec` laid out as `l`, on one core.
void emitBands(ProgramEmitter &emitter, const DepthwiseSpec &spec,
               const QuantizedDepthwiseLayout &l, int64_t bandBegin,
               int64_t bandEnd) {
  const ConvQuantization &quant = *spec.quantized;
  const ElementFormat in = quant.input, out = quant.output;
  const ElementFormat i8{DType::I8};
  const int64_t c = spec.c, h = spec.h, w = spec.w, s = spec.stride;
  const int64_t k = spec.k, p = l.pad, taps = l.taps, ho = l.ho, wo = l.wo;
  const int64_t eo = out.elementBytes();
  const int64_t inPlane = h * w, outPlane = ho * wo;
  const int64_t chunks = (c + l.channels - 1) / l.channels;
  const int64_t units = spec.batch * chunks;
  const int64_t rowBegin = bandBegin * l.bandRows,
                rowEnd = std::min(ho, bandEnd * l.bandRows);
  // The first input row the bands read, down to a row whose load starts
  // aligned: a core with later bands loads no rows above it.
  const int64_t firstInputRow =
      std::max<int64_t>(0, rowBegin * s - p) / l.rowAlign * l.rowAlign;

  // The input of unit u (image, chunk of channels), transposed to [pixels x
  // cc] behind the guard, in pieces of loadRows rows, each loaded when the
  // band before the first band that reads it is emitted (so the in-order
  // load queue stays one band ahead).
  std::vector<int64_t> loaded(size_t(units), firstInputRow);
  auto loadUpTo = [&](int64_t u, int64_t needed) {
    const int64_t image = u / chunks, c0 = (u % chunks) * l.channels;
    const int64_t cc = std::min(l.channels, c - c0);
    const uint64_t base = l.in[u % l.inSlots] + uint64_t(l.guard * cc);
    for (int64_t &r0 = loaded[size_t(u)]; r0 < needed;) {
      const int64_t rows = std::min(l.loadRows, h - r0);
      DmaLoad load;
      load.dst = {Space::Acc, base + uint64_t(r0 * w * cc)};
      load.src = {Space::Dram,
                  spec.input + uint64_t((image * c + c0) * inPlane + r0 * w)};
      load.format = in;
      load.x = 1;
      load.y = cc;
      load.z = rows * w;
      load.sy = inPlane;
      load.sz = 1;
      load.dpitch = 1;
      emitLoad(emitter, load);
      r0 += rows;
    }
  };
  // Input rows the band of output rows [i0, i0 + rows) reads.
  auto neededBy = [&](int64_t i0, int64_t rows) {
    return std::min(h, (i0 + rows - 1) * s + k - p);
  };
  // The end of the rows a unit's loads up to `needed` write (whole loads).
  auto prefetchEnd = [&](int64_t needed) {
    return std::min(h, firstInputRow +
                           ceilDiv(needed - firstInputRow, l.loadRows) *
                               l.loadRows);
  };
  // The weights of all channels, transposed to [taps x C] (tap t's row is
  // the per-channel weights it multiplies by), and the bias, then the first
  // input rows: the input waits for the op before to store it, the
  // constants only for it to be done with the VRF, which comes sooner
  // (measured: mobilenet_v2_050 int8 189.2k -> 183.2k cycles on one core
  // against loading the input first).
  {
    DmaLoad load;
    load.dst = {Space::Vrf, l.weights};
    load.src = {Space::Dram, spec.weight};
    load.format = i8;
    load.x = 1;
    load.y = c;
    load.z = taps;
    load.sy = taps;
    load.sz = 1;
    load.dpitch = 1;
    emitLoad(emitter, load);
  }
  if (spec.bias) {
    DmaLoad load;
    load.dst = {Space::Vrf, l.bias};
    load.src = {Space::Dram, *spec.bias};
    load.format = quant.bias;
    load.x = c;
    emitLoad(emitter, load);
  }
  loadUpTo(0, neededBy(rowBegin, std::min(l.bandRows, rowEnd - rowBegin)));
  const Operand2D scales{Space::Vrf, l.scales, 0, kF32Format};
  const Operand2D outputScale =
      emitConvScaleFills(emitter, quant, Space::Vrf, l.scales);

  // Tap t = dy * k + dx; the centre tap covers every output pixel, so it
  // starts each sum and the others accumulate.
  const int64_t centre = p * k + p;
  auto tapOrder = [&](int64_t index) {
    return index == 0 ? centre : index <= centre ? index - 1 : index;
  };
  auto accumulate = [&](const Operand2D &dst, const Operand2D &window,
                        const Operand2D &weight, bool first, int64_t rows,
                        int64_t cols) {
    if (first) {
      emitBinary(emitter, Opcode::VMul, dst, window, weight, Bcast::Row, rows,
                 cols);
      return;
    }
    emitBinary(emitter, Opcode::VMul, chainOperand(cols, kI32Format), window,
               weight, Bcast::Row, rows, cols);
    emitBinary(emitter, Opcode::VAdd, dst, chainOperand(cols, kI32Format), dst,
               Bcast::None, rows, cols);
  };

  int64_t bandIndex = 0;
  for (int64_t u = 0; u < units; ++u) {
    const int64_t image = u / chunks, c0 = (u % chunks) * l.channels;
    const int64_t cc = std::min(l.channels, c - c0);
    const uint64_t data = l.in[u % l.inSlots] + uint64_t(l.guard * cc);
    // The per-band operands of the weights, bias and scales: stride 1
    // repeats each channel's value once per pixel of an image row.
    Operand2D bias{Space::Vrf,
                   l.bias + uint64_t(c0 * quant.bias.elementBytes()), 0,
                   quant.bias};
    Operand2D channelScales = quant.perChannel() ? scales.at(0, c0) : scales;
    const int64_t cols = l.rowView ? w * cc : cc;
    if (l.rowView) {
      // The guards above and below the planes read as zeros.
      const int64_t guardBytes = l.guard * cc;
      const Operand2D slot{Space::Acc, l.in[u % l.inSlots], guardBytes, in};
      emitFill(emitter, slot, 1, guardBytes);
      emitFill(emitter, slot.at(0, guardBytes + inPlane * cc), 1, guardBytes);
      // Rows of one value per channel repeated per pixel, by doubling
      // copies (a row broadcast costs a vector pass per pixel, however few
      // the channels); cc, a multiple of 4, keeps their starts aligned.
      auto repeat = [&](uint64_t at, const Operand2D &row) {
        emitRepeatRow(emitter, Operand2D{Space::Vrf, at, 0, row.format}, row,
                      cc, w);
        return Operand2D{Space::Vrf, at, 0, row.format};
      };
      const Operand2D wrep{Space::Vrf, l.wrep, cc, i8};
      for (int64_t t = 0; t < taps; ++t) {
        const Operand2D rows = wrep.at(t * w);
        repeat(rows.addr,
               Operand2D{Space::Vrf, l.weights + uint64_t(t * c + c0), 0, i8});
        // Pixels whose tap lies outside the image row multiply by 0.
        const int64_t dx = t % k - p;
        const int64_t first = dx < 0 ? 0 : std::max<int64_t>(0, w - dx);
        const int64_t count = std::min(w, dx < 0 ? -dx : dx);
        if (count > 0)
          emitFill(emitter, rows.at(first), count, cc);
      }
      if (spec.bias)
        bias = repeat(l.brep, bias);
      if (quant.perChannel())
        channelScales = repeat(l.srep, channelScales);
    }

    for (int64_t i0 = rowBegin; i0 < rowEnd; i0 += l.bandRows, ++bandIndex) {
      const int64_t rows = std::min(l.bandRows, rowEnd - i0);
      const int64_t pixels = l.bandPixels(spec, rows);
      // This band's input rows, then the next band's (or the next unit's
      // first) ahead of this band's vector work.
      loadUpTo(u, neededBy(i0, rows));
      if (i0 + rows < rowEnd)
        loadUpTo(u,
                 neededBy(i0 + rows, std::min(l.bandRows, rowEnd - i0 - rows)));
      else if (u + 1 < units &&
               (l.inSlots > 1 ||
                prefetchEnd(neededBy(
                    rowBegin, std::min(l.bandRows, rowEnd - rowBegin))) <=
                    std::max<int64_t>(0, i0 * s - p)))
        // The next unit's first rows, unless they go to the slot this band
        // still reads (one slot, and a core's bands near the top: its last
        // band reads rows the next unit's first loads would overwrite).
        loadUpTo(u + 1,
                 neededBy(rowBegin, std::min(l.bandRows, rowEnd - rowBegin)));
      const int slot = bandIndex % 2;
      const Operand2D sum =
          l.rowView
              ? Operand2D{Space::Acc, l.sum[slot], cols * kF32, kI32Format}
              : Operand2D{Space::Acc, l.sum[slot], cc * kF32, kI32Format};
      if (l.rowView) {
        for (int64_t index = 0; index < taps; ++index) {
          const int64_t t = tapOrder(index);
          const int64_t dy = t / k - p, dx = t % k - p;
          const Operand2D window{
              Space::Acc, data + uint64_t(((i0 + dy) * w + dx) * cc), cols, in};
          accumulate(
              sum, window,
              Operand2D{Space::Vrf, l.wrep + uint64_t(t * w * cc), 0, i8},
              index == 0, rows, cols);
        }
      } else {
        for (int64_t i = i0; i < i0 + rows; ++i)
          for (int64_t index = 0; index < taps; ++index) {
            const int64_t t = tapOrder(index);
            const int64_t dy = t / k - p, dx = t % k - p;
            const int64_t r = i * s + dy;
            if (r < 0 || r >= h)
              continue;
            // Pixels j with 0 <= j * s + dx < w.
            const int64_t jlo = dx < 0 ? (-dx + s - 1) / s : 0;
            const int64_t jhi = std::min(wo, (w - 1 - dx) / s + 1);
            if (jlo >= jhi)
              continue;
            const Operand2D window{Space::Acc,
                                   data + uint64_t((r * w + jlo * s + dx) * cc),
                                   s * cc, in};
            accumulate(
                sum.at((i - i0) * wo + jlo), window,
                Operand2D{Space::Vrf, l.weights + uint64_t(t * c + c0), 0, i8},
                index == 0, jhi - jlo, cc);
          }
      }
      const int64_t epilogueRows = l.rowView ? rows : pixels;
      const Operand2D result{Space::Acc, l.out[slot], cols * eo, out};
      std::optional<Operand2D> bandBias;
      if (spec.bias)
        bandBias = bias;
      emitConvEpilogue(emitter, quant, spec.activation, sum, bandBias,
                       channelScales, outputScale, result, epilogueRows, cols);
      // Pixel q, channel r of the band -> plane r, element q.
      DmaStore store;
      store.dst = {Space::Dram,
                   spec.output +
                       uint64_t(((image * c + c0) * outPlane + i0 * wo) * eo)};
      store.src = result.ref();
      store.format = out;
      store.x = 1;
      store.y = cc;
      store.z = pixels;
      store.dy = outPlane * eo;
      store.dz = eo;
      store.spitch = eo;
      emitStore(emitter, store);
    }
  }
}

/// Bands of output rows in `l`.
int64_t bandCount(const QuantizedDepthwiseLayout &l) {
  return (l.ho + l.bandRows - 1) / l.bandRows;
}

/// The bands of core `core` of `cores`: contiguous, as even as they go.
std::pair<int64_t, int64_t> coreBands(int64_t bands, int64_t cores,
                                      int64_t core) {
  return {bands * core / cores, bands * (core + 1) / cores};
}

/// Modelled vector cycles of one core computing `rows` output rows of
/// every channel of `spec` laid out as `l` (the MFU work the kernel issues:
/// one pass per `lanes` columns of a vector row, two cycles an instruction
/// to issue, the epilogue once per result row).
double coreCycles(const TargetDesc &target, const DepthwiseSpec &spec,
                  const QuantizedDepthwiseLayout &l, int64_t rows) {
  const int64_t lanes = std::max<int64_t>(target.vectorLanes, 1);
  auto passes = [&](int64_t n) { return (n + lanes - 1) / lanes; };
  double cycles = 0;
  for (int64_t c0 = 0; c0 < spec.c; c0 += l.channels) {
    const int64_t cc = std::min(l.channels, spec.c - c0);
    if (l.rowView)
      cycles += double(rows) *
                double((l.taps + 1) * passes(spec.w * cc) + 2 * l.taps);
    else
      cycles +=
          double(rows) * double((l.taps + 1) * l.wo * passes(cc) + 2 * l.taps);
  }
  return cycles * double(spec.batch);
}

} // namespace

void emitQuantizedDepthwise(llvm::ArrayRef<ProgramEmitter *> emitters,
                            const TargetDesc &target,
                            const DepthwiseSpec &spec) {
  DepthwiseSpec shared = spec;
  shared.cores = std::max<int64_t>(int64_t(emitters.size()), 1);
  std::string unused;
  const QuantizedDepthwiseLayout l =
      *quantizedDepthwiseLayout(target, shared, unused);
  const int64_t bands = bandCount(l);
  const int64_t cores = std::min(shared.cores, bands);
  for (int64_t core = 0; core < cores; ++core) {
    auto [begin, end] = coreBands(bands, cores, core);
    if (begin < end)
      emitBands(*emitters[size_t(core)], shared, l, begin, end);
  }
}

unsigned getQuantizedDepthwiseMaxCores(const TargetDesc &target,
                                       const DepthwiseSpec &spec) {
  // As many cores as get a band of output rows (whole DMA alignment steps
  // of the output planes); one when a single band covers the plane
  // (accel-split-ops may cut the channels instead).
  DepthwiseSpec all = spec;
  all.cores = std::max<int64_t>(target.coresPerCard, 1);
  std::string reason;
  std::optional<QuantizedDepthwiseLayout> l =
      quantizedDepthwiseLayout(target, all, reason);
  if (!l)
    return 1;
  const int64_t most = std::min(all.cores, bandCount(*l));
  return most < 2 ? 1 : unsigned(most);
}

unsigned getQuantizedDepthwiseCores(const TargetDesc &target,
                                    const DepthwiseSpec &spec) {
  // Bands of output rows shared by k cores keep every channel of a pixel in
  // one vector row; cutting the channels k ways (what accel-split-ops would
  // do) leaves lanes idle once a core's channels are fewer than the lanes
  // (a stride-2 depthwise of 48 channels on 4 cores: 12 of 64 lanes). The
  // bands win where they beat both that and one core, by 5 % (the margin of
  // a cut), each with a DRAM latency for the barrier in front of the op.
  const int64_t most = int64_t(getQuantizedDepthwiseMaxCores(target, spec));
  if (most < 2)
    return 1;
  std::string reason;
  std::optional<QuantizedDepthwiseLayout> whole =
      quantizedDepthwiseLayout(target, spec, reason);
  if (!whole)
    return 1;
  const double overhead = double(target.memory(Space::Dram).latencyCycles);
  const double one = coreCycles(target, spec, *whole, whole->ho);
  // The channel cut over all the card's cores: ceil(C / cores) channels,
  // whole groups of 4, a core.
  const int64_t cardCores = std::max<int64_t>(target.coresPerCard, 1);
  DepthwiseSpec piece = spec;
  piece.c = std::min(spec.c, (ceilDiv(spec.c, cardCores) + 3) / 4 * 4);
  std::optional<QuantizedDepthwiseLayout> cut =
      quantizedDepthwiseLayout(target, piece, reason);
  const double channels =
      cut ? coreCycles(target, piece, *cut, cut->ho) + overhead : one;
  unsigned best = 1;
  double bestCycles = one;
  for (int64_t k = 2; k <= most; ++k) {
    DepthwiseSpec shared = spec;
    shared.cores = k;
    std::optional<QuantizedDepthwiseLayout> l =
        quantizedDepthwiseLayout(target, shared, reason);
    if (!l)
      continue;
    const int64_t bands = bandCount(*l);
    if (bands < k)
      continue;
    // The busiest core's bands.
    const double rows =
        coreCycles(target, shared, *l,
                   std::min(l->ho, ceilDiv(bands, k) * l->bandRows)) +
        overhead;
    if (rows <= channels && rows < 0.95 * one && rows < bestCycles) {
      best = unsigned(k);
      bestCycles = rows;
    }
  }
  return best;
}

} // namespace mlir::nnaccel::npu_lowering::conv
