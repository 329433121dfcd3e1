//===- StridedStemConvKernel.cpp - strided stems on the matrix unit -------===//
//
// See ConvKernels.cpp for how accel.conv picks this kernel and
// ConvKernelSupport.h for its spec (StemSpec, emitStem).
//
// A network's stem (3 channels, 16 filters, 3x3, stride 2) has too few
// channels for the matrix unit in the usual layouts: an im2col patch of
// 27 values needs gathers that start at unaligned DRAM addresses, and the
// MFU kernel (DenseStemConvKernel.cpp) spends one vector pass per
// (filter, channel, tap) product over every output plane. Here the DMA
// engine loads the image transposed, [H*W pixels x C channels] (one element
// per DMA row: rows = channels, planes = pixels), so the C values of a
// pixel and the pixels of an image row are contiguous: for output pixel j
// the taps dx = d0 .. d0 + s - 1 of kernel row dy are s * C consecutive
// values, and consecutive output pixels are s pixels apart -- exactly the
// row pitch of the mm's A operand (rows may not overlap, so a run holds at
// most s taps). Per output row: one mm per (kernel row, run of taps) over
// the pixels whose taps all lie inside the image, and single-tap mms for
// the few border pixels; the padding is never read. The products accumulate
// (f32, device order per mm) into the band's [pixels x F] block in ACC.
//
// The weights (F x C x k x k) are reordered once into one tile per (kernel
// row, run) and per (kernel row, tap) -- F rows of (tap, channel) values --
// with one-column copies in ACC, then stored to SHARED and loaded into the
// MRF (the DMA writes the MRF only from DRAM or SHARED).
//
// Epilogue on whole output rows (W_o x F values a vector row; the bias is
// repeated per pixel): bias, activation, and, when an int8 consumer's
// quantize was fused in, v.rqnt; chained two MFU operations at a time. One
// transposing store per band writes the NCHW planes.
//
// The sums of a pixel run in a different order than the host's dot product
// (per mm: the device's 16-lane order; across mms: in mm order), so the
// result equals the host's to rounding, as the MFU stem's does.
//
//===----------------------------------------------------------------------===//

#include "ConvKernelSupport.h"

#include <map>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::npu_lowering;
using namespace mlir::nnaccel::npu_lowering::conv;

namespace mlir::nnaccel::npu_lowering::conv {
namespace {

/// Output bands per image the kernel aims for, so that loads, products and
/// stores overlap.
constexpr int64_t kTargetBands = 4;

/// A weight tile: F rows of the taps [d0, d1) of kernel row dy, C channels
/// each, (tap, channel) order.
struct StemTile {
  int64_t dy, d0, d1;
  uint64_t offset; // in the MRF (and the ACC staging area, same layout)
};

struct StemLayout {
  std::vector<StemTile> tiles;
  std::map<std::tuple<int64_t, int64_t, int64_t>, size_t> tileIndex;
  uint64_t tileBytes = 0; // all tiles
  int64_t bandRows = 0, loadRows = 0;
  // acc
  uint64_t in = 0, raw = 0, staging = 0, sum[2] = {0, 0}, out[2] = {0, 0};
  // vrf
  uint64_t biasRaw = 0, bias = 0, scale = 0;

  const StemTile &tile(int64_t dy, int64_t d0, int64_t d1) const {
    return tiles[tileIndex.at({dy, d0, d1})];
  }
};

std::vector<StemTile> stemTiles(const StemSpec &spec, uint64_t &bytes) {
  std::vector<StemTile> tiles;
  bytes = 0;
  auto add = [&](int64_t dy, int64_t d0, int64_t d1) {
    for (const StemTile &tile : tiles)
      if (tile.dy == dy && tile.d0 == d0 && tile.d1 == d1)
        return;
    tiles.push_back({dy, d0, d1, bytes});
    bytes += alignUp(uint64_t(spec.f * (d1 - d0) * spec.c * kF32), 64);
  };
  for (int64_t dy = 0; dy < spec.k; ++dy) {
    for (int64_t d0 = 0; d0 < spec.k; d0 += spec.stride)
      add(dy, d0, std::min(d0 + spec.stride, spec.k));
    for (int64_t dx = 0; dx < spec.k; ++dx)
      add(dy, dx, dx + 1);
  }
  return tiles;
}

std::optional<StemLayout> stemLayout(const TargetDesc &target,
                                     const StemSpec &spec) {
  StemLayout l;
  l.tiles = stemTiles(spec, l.tileBytes);
  for (size_t i = 0; i < l.tiles.size(); ++i)
    l.tileIndex[{l.tiles[i].dy, l.tiles[i].d0, l.tiles[i].d1}] = i;
  const int64_t eo = spec.outFormat.elementBytes();
  const int64_t ho = spec.ho(), wo = spec.wo();
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  const uint64_t accBytes = target.memory(Space::Acc).bytes;
  const uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  if (l.tileBytes > target.memory(Space::Mrf).bytes)
    return std::nullopt;
  uint64_t acc = 0;
  l.in = acc;
  acc += alignUp(uint64_t(spec.h * spec.w * spec.c * kF32), 64);
  l.raw = acc;
  acc += alignUp(uint64_t(spec.f * spec.c * spec.k * spec.k * kF32), 64);
  l.staging = acc;
  acc += l.tileBytes;
  // Bands: kTargetBands of them, starting at aligned output addresses.
  const int64_t bandAlign = alignedCount(wo * eo, dramAlign);
  const int64_t perRow = 2 * wo * spec.f * (kF32 + eo) + 128;
  if (acc >= accBytes)
    return std::nullopt;
  int64_t fit =
      std::min<int64_t>(int64_t(accBytes - acc) / perRow, kMaxDmaYZ / wo);
  // On several cores, the cores' transposing stores interleave: the
  // emulator's race detector tells them apart row by row only up to 4096
  // rows (of one element here) per store.
  if (spec.cores > 1)
    fit = std::min<int64_t>(fit, std::max<int64_t>(1, 4096 / (wo * spec.f)));
  int64_t rows = (ho + kTargetBands - 1) / kTargetBands;
  rows = (rows + bandAlign - 1) / bandAlign * bandAlign;
  if (rows >= ho)
    rows = ho;
  if (rows > fit)
    rows = fit >= ho ? ho : fit / bandAlign * bandAlign;
  if (rows < 1)
    return std::nullopt;
  l.bandRows = rows;
  const int64_t band = rows * wo * spec.f;
  for (int i = 0; i < 2; ++i) {
    l.sum[i] = acc;
    acc += alignUp(uint64_t(band * kF32), 64);
  }
  for (int i = 0; i < 2; ++i) {
    l.out[i] = acc;
    acc += alignUp(uint64_t(band * eo), 64);
  }
  // Input rows per load: one output band's worth, DRAM-aligned.
  const int64_t rowAlign = alignedCount(spec.w * kF32, dramAlign);
  int64_t loadRows = std::min(spec.h, rows * spec.stride);
  loadRows = std::min(loadRows, kMaxDmaYZ / spec.w);
  if (loadRows < spec.h)
    loadRows = loadRows / rowAlign * rowAlign;
  if (loadRows < 1)
    return std::nullopt;
  l.loadRows = loadRows;
  uint64_t vrf = 0;
  l.biasRaw = vrf;
  vrf += alignUp(uint64_t(spec.f * kF32), 64);
  l.bias = vrf;
  vrf += alignUp(uint64_t(wo * spec.f * kF32), 64);
  l.scale = vrf;
  vrf += 64;
  if (vrf > vrfBytes)
    return std::nullopt;
  return l;
}

} // namespace

uint64_t StemSpec::sharedBytes() const {
  uint64_t bytes;
  stemTiles(*this, bytes);
  return bytes;
}

bool canEmitStem(const TargetDesc &target, const StemSpec &spec,
                 std::string &reason) {
  const int64_t n = target.nativeDim;
  const int64_t eo = spec.outFormat.elementBytes();
  const int64_t dramAlign =
      static_cast<int64_t>(target.memory(Space::Dram).align);
  if (spec.stride < 2 || spec.k % 2 != 1 || spec.k > 7 ||
      spec.stride * spec.c > n || spec.f > n ||
      !target.macsPerCycle.count(DType::F32)) {
    reason = "the matrix-unit stem takes strided odd k x k kernels with "
             "stride x channels and filters up to the native dimension";
    return false;
  }
  if (spec.w > kMaxDmaYZ || spec.c > kMaxDmaYZ || spec.f > kMaxDmaYZ ||
      spec.wo() * spec.f * kF32 > kMaxPitch) {
    reason = "the rows of this convolution exceed the DMA counts or the "
             "operand pitch";
    return false;
  }
  if (spec.batch > 1 &&
      ((spec.c * spec.h * spec.w * kF32) % dramAlign != 0 ||
       (spec.f * spec.ho() * spec.wo() * eo) % dramAlign != 0)) {
    reason = "the images of the batch would start at unaligned DRAM "
             "addresses";
    return false;
  }
  if (!stemLayout(target, spec)) {
    reason = "the input planes of this convolution do not fit the "
             "accumulator memory";
    return false;
  }
  return true;
}

namespace {
/// Output rows [rowBegin, rowEnd) of every image on one core, with the
/// weight tiles staged through SHARED at `shared`.
void emitStemRows(ProgramEmitter &emitter, const TargetDesc &target,
                  const StemSpec &spec, int64_t rowBegin, int64_t rowEnd,
                  uint64_t shared) {
  const StemLayout l = *stemLayout(target, spec);
  const int64_t c = spec.c, f = spec.f, h = spec.h, w = spec.w, k = spec.k,
                s = spec.stride, p = spec.pad(), ho = spec.ho(), wo = spec.wo();
  const int64_t eo = spec.outFormat.elementBytes();
  const int64_t taps = k * k;

  // The weights, then the first input rows and the bias.
  {
    DmaLoad load;
    load.dst = {Space::Acc, l.raw};
    load.src = {Space::Dram, spec.weight};
    load.x = c * taps;
    load.y = f;
    emitLoad(emitter, load);
  }
  // Input rows [r0, r0 + rows) of an image, transposed behind each other.
  auto loadRows = [&](int64_t image, int64_t r0, int64_t rows) {
    DmaLoad load;
    load.dst = {Space::Acc, l.in + uint64_t(r0 * w * c * kF32)};
    load.src = {Space::Dram,
                spec.input + uint64_t((image * c * h + r0) * w * kF32)};
    load.x = 1;
    load.y = c;
    load.z = rows * w;
    load.sy = h * w * kF32;
    load.sz = kF32;
    load.dpitch = kF32;
    emitLoad(emitter, load);
  };

  // Input rows loaded so far: from the first one the rows read, at an
  // aligned DRAM address. The first band's go ahead of the tile staging
  // below (whose MRF load waits for the copies and the SHARED store).
  const int64_t rowAlign = alignedCount(
      w * kF32, static_cast<int64_t>(target.memory(Space::Dram).align));
  const int64_t firstRow =
      std::max<int64_t>(0, rowBegin * s - p) / rowAlign * rowAlign;
  int64_t loaded = firstRow;
  auto loadUpTo = [&](int64_t image, int64_t needed) {
    while (loaded < needed) {
      int64_t count = std::min(l.loadRows, h - loaded);
      loadRows(image, loaded, count);
      loaded += count;
    }
  };
  auto neededBy = [&](int64_t i0, int64_t rows) {
    return std::min(h, (i0 + rows - 1) * s + k - p);
  };
  loadUpTo(0, neededBy(rowBegin, std::min(l.bandRows, rowEnd - rowBegin)));
  // The bias behind them: the epilogue reads it last.
  if (spec.bias) {
    DmaLoad load;
    load.dst = {Space::Vrf, l.biasRaw};
    load.src = {Space::Dram, *spec.bias};
    load.x = f;
    emitLoad(emitter, load);
  }

  // Tiles: column (tap - d0) * C + channel of tile (dy, d0, d1) is the
  // weight of (channel, dy, tap); the staging area is defined everywhere,
  // as the store to SHARED reads it whole (alignment gaps included).
  emitFill(emitter, Operand2D{Space::Acc, l.staging, 0}, 1,
           int64_t(l.tileBytes / kF32));
  for (const StemTile &tile : l.tiles) {
    const int64_t cols = (tile.d1 - tile.d0) * c;
    for (int64_t dx = tile.d0; dx < tile.d1; ++dx)
      for (int64_t channel = 0; channel < c; ++channel)
        emitCopy(
            emitter,
            Operand2D{Space::Acc,
                      l.staging + tile.offset +
                          uint64_t(((dx - tile.d0) * c + channel) * kF32),
                      cols * kF32},
            Operand2D{Space::Acc,
                      l.raw +
                          uint64_t((channel * taps + tile.dy * k + dx) * kF32),
                      c * taps * kF32},
            f, 1);
  }
  {
    DmaStore store;
    store.dst = {Space::Shared, shared};
    store.src = {Space::Acc, l.staging};
    store.x = int64_t(l.tileBytes / kF32);
    emitStore(emitter, store);
    DmaLoad load;
    load.dst = {Space::Mrf, 0};
    load.src = {Space::Shared, shared};
    load.x = int64_t(l.tileBytes / kF32);
    emitLoad(emitter, load);
  }
  // The bias repeated once per output pixel of a row, and 1 / y_scale.
  const Operand2D bias{Space::Vrf, l.bias, 0};
  if (spec.bias) {
    const Operand2D rows{Space::Vrf, l.bias, f * kF32};
    emitFill(emitter, rows, wo, f);
    emitBinary(emitter, Opcode::VAdd, rows, rows,
               Operand2D{Space::Vrf, l.biasRaw, 0}, Bcast::Row, wo, f);
  }
  const Operand2D scale{Space::Vrf, l.scale, 0};
  if (!(spec.outFormat == kF32Format))
    emitFill(emitter, scale, 1, 1, spec.outputInverse);

  // Valid output pixels of tap dx: 0 <= j * s + dx - p < w.
  auto jmin = [&](int64_t dx) {
    return std::max<int64_t>(0, (p - dx + s - 1) / s);
  };
  auto jmax = [&](int64_t dx) { // exclusive
    return std::min<int64_t>(wo, (w - 1 + p - dx) / s + 1);
  };
  const int64_t cols = wo * f;
  int64_t bandIndex = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    if (image > 0)
      loaded = firstRow;
    for (int64_t i0 = rowBegin; i0 < rowEnd; i0 += l.bandRows, ++bandIndex) {
      const int64_t rows = std::min(l.bandRows, rowEnd - i0);
      // The input rows this band reads, in aligned pieces.
      loadUpTo(image, neededBy(i0, rows));
      const int slot = bandIndex % 2;
      const Operand2D sum{Space::Acc, l.sum[slot], cols * kF32};
      emitFill(emitter, sum, rows, cols);
      auto mm = [&](int64_t i, int64_t r, int64_t j0, int64_t j1, int64_t d0,
                    int64_t d1) {
        const StemTile &tile = l.tile((r - i * s) + p, d0, d1);
        const int64_t kk = (d1 - d0) * c;
        emitMm(
            emitter,
            Operand2D{Space::Acc,
                      l.sum[slot] + uint64_t(((i - i0) * wo + j0) * f * kF32),
                      f * kF32},
            Operand2D{Space::Acc,
                      l.in + uint64_t(((r * w + j0 * s + d0 - p) * c) * kF32),
                      s * c * kF32},
            denseOperand(Space::Mrf, tile.offset, kk), j1 - j0, kk, f,
            /*accumulate=*/true);
      };
      for (int64_t i = i0; i < i0 + rows; ++i)
        for (int64_t dy = 0; dy < k; ++dy) {
          const int64_t r = i * s + dy - p;
          if (r < 0 || r >= h)
            continue;
          for (int64_t d0 = 0; d0 < k; d0 += s) {
            const int64_t d1 = std::min(d0 + s, k);
            int64_t lo = 0, hi = wo;
            for (int64_t dx = d0; dx < d1; ++dx) {
              lo = std::max(lo, jmin(dx));
              hi = std::min(hi, jmax(dx));
            }
            if (lo < hi)
              mm(i, r, lo, hi, d0, d1);
            // Border pixels: the run's taps that lie inside the image.
            for (int64_t j = 0; j < wo; ++j) {
              if (lo < hi && j >= lo && j < hi)
                continue;
              for (int64_t dx = d0; dx < d1; ++dx)
                if (j >= jmin(dx) && j < jmax(dx))
                  mm(i, r, j, j + 1, dx, dx + 1);
            }
          }
        }

      // Epilogue on rows of W_o x F values: bias, activation, rqnt, two
      // MFU operations per chain (the intermediate results in place).
      std::vector<std::function<void(const Operand2D &, const Operand2D &)>>
          steps;
      if (spec.bias)
        steps.push_back([&](const Operand2D &dst, const Operand2D &src) {
          emitBinary(emitter, Opcode::VAdd, dst, src, bias, Bcast::Row, rows,
                     cols);
        });
      const ActivationSpec &act = spec.activation;
      auto unary = [&](Opcode opcode) {
        steps.push_back(
            [&, opcode](const Operand2D &dst, const Operand2D &src) {
              emitUnary(emitter, opcode, dst, src, rows, cols);
            });
      };
      auto scalar = [&](Opcode opcode, float imm) {
        steps.push_back(
            [&, opcode, imm](const Operand2D &dst, const Operand2D &src) {
              emitScalar(emitter, opcode, dst, src, imm, rows, cols);
            });
      };
      switch (act.kind) {
      case ActivationSpec::None:
        break;
      case ActivationSpec::Relu:
        unary(Opcode::VRelu);
        break;
      case ActivationSpec::Sigmoid:
        unary(Opcode::VSigm);
        break;
      case ActivationSpec::Tanh:
        unary(Opcode::VTanh);
        break;
      case ActivationSpec::Gelu:
        unary(Opcode::VGelu);
        break;
      case ActivationSpec::Clip:
        if (act.min)
          scalar(Opcode::VsMax, *act.min);
        if (act.max)
          scalar(Opcode::VsMin, *act.max);
        break;
      }
      const Operand2D result{Space::Acc, l.out[slot], cols * eo,
                             spec.outFormat};
      if (!(spec.outFormat == kF32Format))
        steps.push_back([&](const Operand2D &dst, const Operand2D &src) {
          emitQuantConvert(emitter, Opcode::VRqnt, dst, src, scale,
                           /*perColumn=*/false, spec.outputZeroPoint, rows,
                           cols);
        });
      Operand2D stored = sum;
      if (!steps.empty()) {
        const int64_t budget = std::max<int64_t>(target.mfuCount, 1);
        Operand2D source = sum;
        int64_t inChain = 0;
        for (size_t index = 0; index < steps.size(); ++index) {
          const bool last = index + 1 == steps.size();
          const bool forward = !last && inChain + 2 <= budget;
          const Operand2D dst = last      ? result
                                : forward ? chainOperand(cols)
                                          : sum;
          steps[index](dst, source);
          source = forward ? chainOperand(cols) : sum;
          inChain = forward ? inChain + 1 : 0;
        }
        stored = result;
      }
      // Pixel q, filter r of the band -> plane r, element q.
      DmaStore store;
      store.dst = {Space::Dram,
                   spec.output +
                       uint64_t((image * f * ho * wo + i0 * wo) * eo)};
      store.src = stored.ref();
      store.format = stored.format;
      store.x = 1;
      store.y = f;
      store.z = rows * wo;
      store.dy = ho * wo * eo;
      store.dz = eo;
      store.spitch = eo;
      emitStore(emitter, store);
    }
  }
}
} // namespace

void emitStem(llvm::ArrayRef<ProgramEmitter *> emitters,
              const TargetDesc &target, const StemSpec &spec) {
  // Each core computes a range of output rows: the matrix unit's cost does
  // not shrink with fewer filters (n <= N costs one pass), with fewer rows
  // it does. Ranges start at aligned output addresses.
  StemSpec shared = spec;
  shared.cores = int64_t(emitters.size());
  const StemLayout l = *stemLayout(target, shared);
  const int64_t ho = spec.ho();
  const int64_t bandAlign =
      alignedCount(spec.wo() * spec.outFormat.elementBytes(),
                   static_cast<int64_t>(target.memory(Space::Dram).align));
  const int64_t cores = int64_t(emitters.size());
  int64_t perCore = (ho + cores - 1) / cores;
  perCore = (perCore + bandAlign - 1) / bandAlign * bandAlign;
  for (int64_t core = 0; core < cores; ++core) {
    const int64_t begin = std::min(ho, core * perCore),
                  end = std::min(ho, begin + perCore);
    if (begin < end)
      emitStemRows(*emitters[size_t(core)], target, shared, begin, end,
                   spec.shared + uint64_t(core) * l.tileBytes);
  }
}

unsigned getStemCores(const TargetDesc &target, const StemSpec &spec) {
  // At least 8 output rows (and an aligned start) per core.
  const int64_t bandAlign =
      alignedCount(spec.wo() * spec.outFormat.elementBytes(),
                   static_cast<int64_t>(target.memory(Space::Dram).align));
  const int64_t rows = std::max<int64_t>(8, bandAlign);
  return unsigned(
      std::clamp<int64_t>(spec.ho() / rows, 1, int64_t(target.coresPerCard)));
}

} // namespace mlir::nnaccel::npu_lowering::conv
