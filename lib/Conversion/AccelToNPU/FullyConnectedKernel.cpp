//===- FullyConnectedKernel.cpp - fully_connected on the matrix unit ------===//
//
// Brainwave-style: a chunk of activation rows stays resident in the VRF
// while N x N weight tiles stream from DRAM into two alternating MRF slots;
// the matrix unit accumulates the k tiles of each output tile in one of two
// ACC slots (always f32, whatever the input format), the MFUs add the bias
// and apply the activation in place, and the store queue writes the tile
// back (converted to the output format first when that is not f32) while
// the next one is computed.
//
// The same loop serves accel.matmul, whose right operand is stored k x n:
// its tiles are transposed by the DMA itself (one-element rows, one plane
// per weight column), so neither side needs a transposed copy in DRAM.
//
//   for each batch element:
//     for each chunk of mc rows:           (X chunk: one DMA, resident)
//       for j in output tiles (n / N):
//         for t in k tiles (k / N):         (W tile: DMA into MRF slot,
//                                            unless resident, see below)
//           mm acc[slot_j] (+)= X[:, t] . W[j, t]^T
//         v.add acc[slot_j] += bias[j]      (bias row broadcast)
//         activation on acc[slot_j]
//         dma.st Y[:, j] <- acc[slot_j]     (via v.cvt when Y is not f32)
//
// Weight residency: when a weight is read more than once (several row
// chunks, or batch elements sharing it) and all its tiles fit the MRF, each
// tile gets its own slot and only its first use loads it; later chunks
// multiply straight from the MRF. Otherwise tiles stream through two
// alternating slots, which keeps DMA one tile ahead of the matrix unit.
//
// Pinned weights (accel-pin-weights): a weight the partition keeps in the
// MRF across runs has all its tiles in their own slots above the MRF the
// partition's kernels use; the core's setup program loads them once and
// the kernel only multiplies.
//
// DRAM alignment: DMA bases must be DRAM-aligned (64 bytes), but batch
// elements and row chunks of odd shapes (attention at sequence length 37:
// 37 x 37 f32 matrices) start anywhere. X chunks are then loaded from the
// aligned address below them as one flat run and used from the offset
// where the chunk starts (the VRF only needs 4-byte alignment; a 2-byte
// format shifted by 2 gets one element of left padding so its start lands
// on 4 bytes). Y cannot be stored from an unaligned base, so each batch
// element's result is staged densely in ACC (f32) behind the `lead`
// elements of the previous element that share its first aligned DRAM
// granule, and stored in one DMA from that aligned address: the shared
// bytes are rewritten with the values they already hold. W tiles go to the
// MRF, which is 64-byte aligned, so W batch elements must stay aligned.
//
// 4-bit weights (i4, packed two per byte: quantized products with
// weight-bits=4): a k tile of a weight row is rowBytes(N) = 32 bytes at
// N = 64, so every other k tile starts half-way into a DRAM granule. Weight
// tiles are therefore loaded in *units* of kUnit k tiles (2 at N = 64) that
// start DRAM-aligned: one DMA per unit (or per group of units), one plane
// per k tile; a plane of nt rows is padded (pb) to an MRF-aligned size when
// nt is odd. A resident or pinned unit sits in its tiles' slots, its planes
// one padded plane apart. The partial last k tile must start a unit, and K
// must be even (whole-byte rows).
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Kernels.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace mlir::nnaccel::npu_lowering;
namespace build = ::nnaccel::isa::build;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::DType;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// Weight tiles one DMA loads at most: each DMA pays the DRAM latency once,
/// and a group is what the load queue runs ahead of the matrix unit.
constexpr int64_t kMaxWeightGroup = 64;
/// ... and at most this many bytes (8 f32 tiles of N = 64): narrow tiles
/// group more of them, so an i8 group pays the latency for as many bytes.
constexpr int64_t kMaxWeightGroupBytes = 8 * 64 * 64 * 4;
/// Groups are used when loading a tile takes this many times longer than
/// multiplying by it: below that the saved latency does not pay for the
/// later first multiply (measured on the bundled transformer, whose 37-row
/// layers lose 0.7 % with groups).
constexpr double kGroupLoadRatio = 1.5;

/// On-chip layout of the kernel for a target and spec.
struct Layout {
  int64_t tile;              // N: k and n tile size
  int64_t rowsPerChunk;      // mc
  uint64_t xBase = 0;        // vrf: resident X chunk, mc x k (+ shift slack)
  uint64_t biasBase;         // vrf: bias tile, 1 x N, or the whole bias
  bool residentBias = false; // the whole bias, loaded once
  uint64_t scaleBase;        // vrf: quantized: dequantization scales, then the
                             // requantization scale (f32)
  uint64_t wSlot[2];         // mrf: weight tiles, N x N (streaming)
  uint64_t wBytes;           // mrf: bytes of one weight tile slot
  int64_t wSlots;            // weight tiles the MRF holds at once
  int64_t wGroup;            // k tiles loaded by one DMA when streaming
  int64_t kUnit = 1;         // k tiles an aligned weight load starts at a
                             // multiple of (2 for i4 at N = 64)
  uint64_t accSlot[2];       // acc: f32 result tiles, mc x N
  uint64_t outSlot[2]; // acc: converted result tiles (unstaged, Y not f32)
  uint64_t stage[2];   // acc: staged f32 batch results, lead + m x n
  uint64_t packed[2];  // acc: staged results converted to Y's format
  bool shiftX = false; // X chunks may start at unaligned DRAM addresses
  bool staged = false; // Y is stored per batch element from ACC stages
};

/// Bytes of one weight tile slot in the MRF.
uint64_t getWeightTileBytes(const TargetDesc &target,
                            const FullyConnectedSpec &spec) {
  const int64_t tile = target.nativeDim;
  return alignUp(tile * spec.getWeightFormat().rowBytes(tile),
                 target.memory(Space::Mrf).align);
}

bool misaligned(int64_t bytes, uint64_t align) {
  return static_cast<uint64_t>(bytes) % align != 0;
}

/// The k tiles a weight load must start at a multiple of, so that its DRAM
/// address (row start + rowBytes(t * N)) is aligned: 1 when a tile row is a
/// whole number of DRAM granules, 2 for i4 tiles of half a granule.
int64_t getWeightTileUnit(const TargetDesc &target,
                          const FullyConnectedSpec &spec) {
  uint64_t rowBytes =
      uint64_t(spec.getWeightFormat().rowBytes(target.nativeDim));
  uint64_t align = target.memory(Space::Dram).align;
  return rowBytes ? int64_t(align / std::gcd(rowBytes, align)) : 1;
}

/// Zero rows (DMA pb) after each nt-row plane of full k tiles that a DMA
/// loading several k tiles at once writes, so that every plane starts
/// MRF-aligned; nullopt if the pad field cannot. 0 for whole-byte types.
std::optional<int64_t> getPlanePad(const TargetDesc &target,
                                   const FullyConnectedSpec &spec, int64_t nt) {
  int64_t rowBytes = spec.getWeightFormat().rowBytes(target.nativeDim);
  uint64_t align = target.memory(Space::Mrf).align;
  for (int64_t pad = 0; pad <= kMaxDmaPad; ++pad)
    if (!misaligned((nt + pad) * rowBytes, align))
      return pad;
  return std::nullopt;
}

/// Bytes from one full k tile's plane of nt rows to the next in the MRF when
/// one DMA loads several (checked to exist by canEmitFullyConnected).
uint64_t getPlaneStride(const TargetDesc &target,
                        const FullyConnectedSpec &spec, int64_t nt) {
  return uint64_t((nt + getPlanePad(target, spec, nt).value_or(0)) *
                  spec.getWeightFormat().rowBytes(target.nativeDim));
}

/// Left padding (elements) that moves X data, `delta` bytes past an aligned
/// DRAM address, to a VRF-aligned start; nullopt if the pad field cannot.
std::optional<int64_t> leftPad(int64_t delta, int64_t elementBytes,
                               uint64_t vrfAlign) {
  uint64_t align = std::max<uint64_t>(vrfAlign, elementBytes);
  for (int64_t pad = 0; pad <= kMaxDmaPad; ++pad)
    if ((pad * elementBytes + delta) % align == 0)
      return pad;
  return std::nullopt;
}

std::optional<Layout> computeLayout(const TargetDesc &target,
                                    const FullyConnectedSpec &spec,
                                    std::string &reason) {
  const int64_t m = spec.m, k = spec.k, n = spec.n;
  const ElementFormat in = spec.inFormat, out = spec.outFormat;
  const int64_t eIn = in.elementBytes(), eOut = out.elementBytes();
  const uint64_t dramAlign = target.memory(Space::Dram).align;
  const uint64_t vrfAlign = target.memory(Space::Vrf).align;
  const uint64_t accAlign = target.memory(Space::Acc).align;
  const uint64_t accBytes = target.memory(Space::Acc).bytes;
  Layout layout;
  layout.tile = target.nativeDim;
  const int64_t tile = layout.tile;
  uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  uint64_t biasBytes = alignUp(tile * kF32, vrfAlign);
  // A bias up to an eighth of the VRF is loaded once, not a tile per output
  // tile: each DMA pays the DRAM latency (on an int8 layer, whose weight
  // tiles load 4x faster, the per-tile bias loads cost 15 %).
  if (spec.bias && uint64_t(spec.biasFormat.rowBytes(n)) <= vrfBytes / 8) {
    layout.residentBias = true;
    biasBytes =
        std::max(biasBytes, alignUp(spec.biasFormat.rowBytes(n), vrfAlign));
  }
  // Quantized products keep all their dequantization scales resident (one
  // per column, or one) and the requantization scale behind them.
  uint64_t scaleBytes =
      spec.quantized
          ? alignUp((spec.quantized->scales.size() + 1) * kF32, vrfAlign)
          : 0;
  if (vrfBytes <= biasBytes + scaleBytes) {
    reason = "the vector register file cannot hold a bias tile and the "
             "quantization scales";
    return std::nullopt;
  }
  // Staging and shifting depend on the chunking and enlarge the buffers,
  // which can shrink the chunks: iterate until the (only ever switched on)
  // flags are stable.
  const bool convertTiles = eOut != kF32;
  uint64_t stageBytes = 0, packedBytes = 0, xSlack = 0;
  int64_t rows = 0;
  for (;;) {
    uint64_t xBudget = vrfBytes - biasBytes - scaleBytes;
    xBudget = xBudget > xSlack ? xBudget - xSlack : 0;
    int64_t byVrf = static_cast<int64_t>(xBudget / (k * eIn));
    uint64_t accFixed = 2 * (stageBytes + packedBytes);
    int64_t perRow =
        2 * tile * (kF32 + (convertTiles && !layout.staged ? eOut : 0));
    int64_t byAcc = accFixed < accBytes
                        ? static_cast<int64_t>((accBytes - accFixed) / perRow)
                        : 0;
    rows = std::min<int64_t>({m, byVrf, byAcc, kMaxDmaYZ});
    if (layout.shiftX)
      rows = std::min<int64_t>(
          rows, (kMaxCount - kMaxDmaPad - int64_t(dramAlign) / eIn) / k);
    if (rows < 1)
      break;
    bool staged =
        (spec.batches > 1 && misaligned(spec.outputStride, dramAlign)) ||
        (rows < m && misaligned(rows * spec.getOutputPitch(), dramAlign));
    bool shiftX =
        (spec.batches > 1 && misaligned(spec.inputStride, dramAlign)) ||
        (rows < m && misaligned(rows * k * eIn, dramAlign));
    if (staged == layout.staged && shiftX == layout.shiftX)
      break;
    layout.staged |= staged;
    layout.shiftX |= shiftX;
    if (layout.staged) {
      // One batch element's result plus the lead of the previous one.
      int64_t streamElems = m * n + int64_t(dramAlign) / eOut;
      if (streamElems > kMaxCount || n * kF32 > kMaxPitch) {
        reason = "the " + std::to_string(m) + " x " + std::to_string(n) +
                 " result of one batch element is too large to be staged "
                 "for its unaligned DRAM address";
        return std::nullopt;
      }
      stageBytes = alignUp(streamElems * kF32, accAlign);
      packedBytes = convertTiles ? alignUp(streamElems * eOut, accAlign) : 0;
    }
    if (layout.shiftX) {
      bool padded = true;
      for (int64_t delta = eIn; delta < int64_t(dramAlign); delta += eIn)
        padded &= leftPad(delta, eIn, vrfAlign).has_value();
      if (!padded) {
        reason = "inputs at unaligned DRAM addresses cannot be realigned in "
                 "the vector register file";
        return std::nullopt;
      }
      xSlack = dramAlign + kMaxDmaPad * eIn;
    }
  }
  if (rows < 1) {
    reason = "a row of " + std::to_string(k) +
             " inputs does not fit the vector register file, or a batch "
             "element's staged result does not fit the accumulator memory";
    return std::nullopt;
  }
  layout.rowsPerChunk = rows;
  layout.biasBase = alignUp(rows * k * eIn + xSlack, vrfAlign);
  layout.scaleBase = layout.biasBase + biasBytes;
  const ElementFormat weightFormat = spec.getWeightFormat();
  uint64_t wBytes = getWeightTileBytes(target, spec);
  layout.kUnit = spec.k > tile ? getWeightTileUnit(target, spec) : 1;
  if (2 * uint64_t(layout.kUnit) * wBytes > target.memory(Space::Mrf).bytes &&
      !spec.pinnedWeight) {
    reason = layout.kUnit > 1
                 ? "two loads of " + std::to_string(layout.kUnit) +
                       " weight tiles (one DRAM-aligned unit) do not fit "
                       "the matrix register file"
                 : "two weight tiles do not fit the matrix register file";
    return std::nullopt;
  }
  layout.wBytes = wBytes;
  layout.wSlots = int64_t(target.memory(Space::Mrf).bytes / wBytes);
  // Streaming: two alternating groups of up to kMaxWeightGroup tiles. A
  // group pays the DRAM latency once for all its tiles, which matters when
  // loading a tile takes longer than multiplying by it (few rows); with
  // enough rows the matrix unit hides the latency of single tiles, and
  // groups would only delay the first multiply.
  const auto &dramDesc = target.memory(Space::Dram);
  auto macs = target.macsPerCycle.find(weightFormat.dtype);
  double loadCycles =
      dramDesc.latencyCycles + double(tile * weightFormat.rowBytes(tile)) /
                                   std::max(dramDesc.bytesPerCycle, 1e-9);
  double multiplyCycles =
      macs == target.macsPerCycle.end() || macs->second == 0
          ? 0
          : double(rows) * tile * tile / double(macs->second);
  // (The K x N weight of a matmul is transposed tile by tile by its DMA,
  // which already uses the z dimension: no groups there.)
  layout.wGroup =
      spec.weightKxN || kGroupLoadRatio * multiplyCycles >= loadCycles
          ? 1
          : std::clamp<int64_t>(
                std::min<int64_t>(layout.wSlots / 2,
                                  kMaxWeightGroupBytes / int64_t(wBytes)),
                1, kMaxWeightGroup);
  // Groups are whole units, so each starts DRAM-aligned.
  layout.wGroup =
      std::max(layout.kUnit, layout.wGroup / layout.kUnit * layout.kUnit);
  layout.wSlot[0] = 0;
  layout.wSlot[1] = uint64_t(layout.wGroup) * wBytes;
  uint64_t accTile = alignUp(rows * tile * kF32, accAlign);
  uint64_t outTile = convertTiles && !layout.staged
                         ? alignUp(rows * tile * eOut, accAlign)
                         : 0;
  uint64_t next = 0;
  for (int i = 0; i < 2; ++i) {
    layout.accSlot[i] = next;
    next += accTile;
  }
  for (int i = 0; i < 2; ++i) {
    layout.outSlot[i] = next;
    next += outTile;
  }
  for (int i = 0; i < 2; ++i) {
    layout.stage[i] = next;
    next += stageBytes;
  }
  for (int i = 0; i < 2; ++i) {
    layout.packed[i] = next;
    next += packedBytes;
  }
  return layout;
}

/// Loads `count` consecutive k tiles (from tile t) of output tile j of the
/// weight at `weight` into the MRF at `base`, one plane of nt rows of kt
/// elements per tile (N = `tile`), each followed by `planePad` zero rows
/// when there are several.
void emitWeightLoad(ProgramEmitter &emitter, const FullyConnectedSpec &spec,
                    uint64_t weight, int64_t tile, int64_t j, int64_t t,
                    int64_t count, int64_t nt, int64_t kt, uint64_t base,
                    int64_t planePad = 0) {
  const ElementFormat in = spec.getWeightFormat();
  DmaLoad load;
  load.dst = {Space::Mrf, base};
  load.format = in;
  if (spec.weightKxN) {
    // The kt x nt block at row t*N, column j*N of a k x n weight,
    // transposed: one-element rows (x = 1) walk down a column (sy = one
    // weight row) and each column becomes one plane (sz = one element),
    // i.e. one contiguous MRF row of kt elements.
    load.src = {Space::Dram,
                weight + uint64_t(in.rowBytes(t * tile * spec.n + j * tile))};
    load.x = 1;
    load.y = kt;
    load.z = nt;
    load.sy = in.rowBytes(spec.n);
    load.sz = in.rowBytes(1);
  } else {
    // nt weight rows of kt elements, from row j*N, column t*N; further
    // tiles of the group are planes N elements to the right. (Rows start on
    // whole bytes: 4-bit rows are ceil(k / 2) bytes.)
    load.src = {Space::Dram, weight + uint64_t(j * tile * in.rowBytes(spec.k) +
                                               in.rowBytes(t * tile))};
    load.x = kt;
    load.y = nt;
    load.z = count;
    load.sy = in.rowBytes(spec.k);
    load.sz = count > 1 ? in.rowBytes(tile) : 0;
    load.pb = count > 1 ? planePad : 0;
  }
  emitLoad(emitter, load);
}

} // namespace

std::optional<uint64_t> mlir::nnaccel::npu_lowering::getPinnedWeightBytes(
    const TargetDesc &target, const FullyConnectedSpec &spec) {
  if (spec.batches > 1 && spec.weightStride != 0)
    return std::nullopt;
  const int64_t tile = target.nativeDim;
  const int64_t tiles =
      ((spec.k + tile - 1) / tile) * ((spec.n + tile - 1) / tile);
  return uint64_t(tiles) * getWeightTileBytes(target, spec);
}

bool mlir::nnaccel::npu_lowering::canEmitFullyConnected(
    const TargetDesc &target, const FullyConnectedSpec &spec,
    std::string &reason) {
  DType weightType = spec.getWeightFormat().dtype;
  const uint64_t dramAlign = target.memory(Space::Dram).align;
  if (!target.macsPerCycle.count(weightType)) {
    reason = "the target's matrix unit has no " +
             std::string(::nnaccel::isa::dtypeName(weightType)) + " mode";
    return false;
  }
  // The matrix unit multiplies integers only as i8/u8 activations by i8 or
  // i4 weights into exact i32 sums (docs/isa.md, mm).
  DType inType = spec.inFormat.dtype;
  bool integerIn = ::nnaccel::isInteger(inType);
  if (integerIn != bool(spec.quantized) ||
      (spec.quantized &&
       ((inType != DType::I8 && inType != DType::U8) ||
        (weightType != DType::I8 && weightType != DType::I4)))) {
    reason = "the matrix unit multiplies " +
             std::string(::nnaccel::isa::dtypeName(inType)) + " by " +
             std::string(::nnaccel::isa::dtypeName(weightType)) +
             " only as a quantized i8/u8 x i8 or i4 product";
    return false;
  }
  if (spec.quantized && spec.quantized->scales.size() != 1 &&
      int64_t(spec.quantized->scales.size()) != spec.n) {
    reason = "a quantized product needs one scale or one per column";
    return false;
  }
  // Block floating-point weights multiply f32/f16/bf16 activations, which
  // the matrix unit converts to the weight's blocks along k (docs/isa.md,
  // mm): k tiles and the DMA's x must be whole blocks.
  const bool blockWeight = ::nnaccel::isBlock(weightType);
  if (blockWeight) {
    const int64_t block = int64_t(::nnaccel::blockElements(weightType));
    if (inType != DType::F32 && inType != DType::F16 && inType != DType::BF16) {
      reason = "the matrix unit multiplies " +
               std::string(::nnaccel::isa::dtypeName(weightType)) +
               " weights by f32, f16 or bf16 activations only, not " +
               std::string(::nnaccel::isa::dtypeName(inType));
      return false;
    }
    if (spec.weightKxN) {
      reason = "a K x N block-float weight cannot be transposed by the DMA "
               "(blocks run along K)";
      return false;
    }
    if (spec.k % block || target.nativeDim % block) {
      reason = "K = " + std::to_string(spec.k) + " and the native dimension " +
               std::to_string(target.nativeDim) + " must be multiples of the " +
               std::string(::nnaccel::isa::dtypeName(weightType)) +
               " block size " + std::to_string(block);
      return false;
    }
  } else if (spec.blockWeightFormat) {
    reason = "a block weight format must be a block type";
    return false;
  }
  // Whole-byte types, and i4 and block weights (rows of packed nibbles or
  // blocks).
  const ElementFormat weightFormat = spec.getWeightFormat();
  const bool packedWeight = ::nnaccel::isSubByte(weightType) || blockWeight;
  for (ElementFormat format :
       {spec.inFormat, weightFormat, spec.biasFormat, spec.outFormat})
    if (format.elementBytes() == 0 &&
        !(packedWeight && format == weightFormat)) {
      reason = "this kernel handles whole-byte element types only, not " +
               std::string(::nnaccel::isa::dtypeName(format.dtype));
      return false;
    }
  if (packedWeight && !blockWeight && spec.k % 2) {
    reason = "4-bit weight rows of an odd K (" + std::to_string(spec.k) +
             ") do not split into whole-byte k tiles";
    return false;
  }
  if (packedWeight && spec.weightKxN) {
    reason = "a K x N 4-bit weight cannot be transposed by the DMA (its "
             "one-element rows would split bytes)";
    return false;
  }
  // A pitched result is stored tile by tile at its rows' addresses, which
  // must all be DRAM-aligned: it cannot be staged.
  if (spec.outputPitch && misaligned(spec.outputPitch, dramAlign)) {
    reason = "a result row pitch of " + std::to_string(spec.outputPitch) +
             " bytes is not DRAM-aligned";
    return false;
  }
  std::optional<Layout> layout = computeLayout(target, spec, reason);
  if (!layout)
    return false;
  if (spec.outputPitch && layout->staged) {
    reason = "a result with a row pitch cannot be staged for unaligned "
             "batch elements";
    return false;
  }
  // Row pitches are 16-bit byte counts in mm.
  if (spec.inFormat.rowBytes(spec.k) > kMaxPitch) {
    reason =
        "rows of " + std::to_string(spec.k) + " inputs exceed the 64 KiB pitch";
    return false;
  }
  // Every weight tile, bias tile and unstaged output tile column starts at
  // a multiple of N elements from its row; W batch elements go to the
  // 64-byte aligned MRF straight from DRAM, so they must be aligned.
  int64_t tile = target.nativeDim;
  if ((spec.n > tile || spec.k > tile) &&
      (misaligned(spec.inFormat.rowBytes(tile), dramAlign) ||
       misaligned(spec.outFormat.rowBytes(tile), dramAlign) ||
       misaligned(spec.biasFormat.rowBytes(tile), dramAlign))) {
    reason = "the target's tiles would start at unaligned DRAM addresses";
    return false;
  }
  // Weight tiles: output tile j starts N rows on, k tiles are loaded in
  // DRAM-aligned units of kUnit tiles (1 unless a tile row is a fraction of
  // a DRAM granule, as 4-bit ones are), and a partial last k tile must
  // start a unit.
  if (spec.n > tile &&
      misaligned(tile * weightFormat.rowBytes(spec.k), dramAlign)) {
    reason = "the weight's output tiles (" + std::to_string(tile) +
             " rows of " + std::to_string(weightFormat.rowBytes(spec.k)) +
             " bytes) would start at unaligned DRAM addresses";
    return false;
  }
  if (spec.k > tile) {
    const int64_t unit = getWeightTileUnit(target, spec);
    const int64_t fullK = spec.k / tile;
    if (unit > kMaxWeightGroup) {
      reason = "the target's weight tiles would start at unaligned DRAM "
               "addresses";
      return false;
    }
    if (spec.k % tile && fullK % unit) {
      reason = "the partial last k tile of the " +
               std::string(::nnaccel::isa::dtypeName(weightType)) +
               " weight would start at an unaligned DRAM address (byte " +
               std::to_string(weightFormat.rowBytes(fullK * tile)) +
               " of its rows: it must start at a multiple of " +
               std::to_string(unit * tile) + " columns)";
      return false;
    }
    // Several k tiles in one DMA: planes of full tiles, MRF-aligned, each
    // within a tile slot.
    const uint64_t slot = getWeightTileBytes(target, spec);
    for (int64_t nt : {tile, spec.n % tile}) {
      if (nt == 0)
        continue;
      if (!getPlanePad(target, spec, nt) ||
          getPlaneStride(target, spec, nt) > slot) {
        reason = "planes of " + std::to_string(nt) + " weight rows of " +
                 std::to_string(weightFormat.rowBytes(tile)) +
                 " bytes cannot be laid out MRF-aligned";
        return false;
      }
    }
  }
  if (spec.batches > 1 && misaligned(spec.weightStride, dramAlign)) {
    reason = "batch elements of the weight (right) operand would start at "
             "unaligned DRAM addresses (weight tiles are loaded into the "
             "64-byte aligned matrix register file straight from DRAM)";
    return false;
  }
  // The transposing DMA takes one plane per weight column and one row per
  // weight row of a tile (12-bit counts).
  if (spec.weightKxN && tile > kMaxDmaYZ) {
    reason = "weight tiles exceed the DMA's 4095 rows";
    return false;
  }
  return true;
}

void mlir::nnaccel::npu_lowering::emitFullyConnected(
    ProgramEmitter &emitter, const TargetDesc &target,
    const FullyConnectedSpec &spec, ProgramEmitter *setup) {
  std::string reason;
  const Layout layout = *computeLayout(target, spec, reason);
  const int64_t tile = layout.tile;
  const int64_t kTiles = (spec.k + tile - 1) / tile;
  const int64_t nTiles = (spec.n + tile - 1) / tile;
  const ElementFormat in = spec.inFormat, out = spec.outFormat;
  const int64_t eIn = in.elementBytes(), eOut = out.elementBytes();
  const uint64_t dramAlign = target.memory(Space::Dram).align;
  const uint64_t vrfAlign = target.memory(Space::Vrf).align;
  const int64_t yPitch = spec.getOutputPitch();
  int64_t weightTile = 0, outputTile = 0, prevLead = 0;
  // Weights read more than once (several row chunks, or batch elements
  // sharing one weight) stay resident in the MRF when all their tiles fit:
  // tile (j, t) gets its own slot and is loaded by its first use only.
  // Otherwise tiles stream through two alternating slots.
  const int64_t rowChunks =
      (spec.m + layout.rowsPerChunk - 1) / layout.rowsPerChunk;
  const bool sharedWeight = spec.batches == 1 || spec.weightStride == 0;
  const bool resident = nTiles * kTiles <= layout.wSlots &&
                        (rowChunks > 1 || (spec.batches > 1 && sharedWeight));
  const ElementFormat weightFormat = spec.getWeightFormat();
  const ElementFormat accFormat = spec.getAccumulatorFormat();
  // Where tile (j, t) sits when every tile has a slot of its own (resident
  // or pinned): slot j * kTiles + t, except that the tiles of one aligned
  // load unit (kUnit > 1: 4-bit weights) are planes one padded plane apart
  // from the unit's first slot on.
  const uint64_t tileBytes = getWeightTileBytes(target, spec);
  const int64_t unit = layout.kUnit;
  const int64_t fullK = spec.k / tile;
  auto slotOffset = [&](int64_t j, int64_t t) {
    int64_t nt = std::min(tile, spec.n - j * tile);
    int64_t first = t - t % unit;
    return uint64_t(j * kTiles + first) * tileBytes +
           uint64_t(t - first) * getPlaneStride(target, spec, nt);
  };
  // A pinned weight: the setup program loads every tile into its own slot
  // above the partition's working MRF, once per session (a unit per DMA).
  auto pinnedTile = [&](int64_t j, int64_t t) {
    return *spec.pinnedWeight + slotOffset(j, t);
  };
  if (spec.pinnedWeight) {
    assert(setup && "a pinned weight needs the core's setup program");
    for (int64_t j = 0; j < nTiles; ++j) {
      int64_t nt = std::min(tile, spec.n - j * tile);
      for (int64_t t = 0; t < kTiles;) {
        int64_t count = t < fullK ? std::min(unit, fullK - t) : 1;
        emitWeightLoad(*setup, spec, spec.weight, tile, j, t, count, nt,
                       std::min(tile, spec.k - t * tile), pinnedTile(j, t),
                       getPlanePad(target, spec, nt).value_or(0));
        t += count;
      }
    }
  }

  // Quantized: the scales go to the VRF once, the requantization scale
  // 1 / output scale behind them: one DMA from their DRAM constant, or a
  // fill per run of equal values (one for a per-tensor weight scale).
  const Operand2D scales{Space::Vrf, layout.scaleBase, 0, kF32Format};
  Operand2D outputScale = scales;
  if (spec.quantized) {
    const std::vector<float> &values = spec.quantized->scales;
    outputScale = scales.at(0, int64_t(values.size()));
    if (spec.scalesAddress) {
      DmaLoad load;
      load.dst = scales.ref();
      load.src = {Space::Dram, *spec.scalesAddress};
      load.format = kF32Format;
      load.x = int64_t(spec.scaleValues().size());
      emitLoad(emitter, load);
    } else {
      emitFillValues(emitter, scales, values);
      if (spec.hasQuantizedOutput())
        emitFill(emitter, outputScale, 1, 1,
                 1.0f / spec.quantized->outputScale);
    }
  }
  // A resident bias is loaded by its first use, behind the first weights.
  bool biasLoaded = false;
  // Y's format from the f32 result: a conversion, or a requantization.
  auto convertResult = [&](const Operand2D &dst, const Operand2D &src,
                           int64_t rows, int64_t cols) {
    if (spec.hasQuantizedOutput())
      emitQuantConvert(emitter, ::nnaccel::isa::Opcode::VRqnt, dst, src,
                       outputScale, /*perColumn=*/false,
                       spec.quantized->outputZeroPoint, rows, cols);
    else
      emitCopy(emitter, dst, src, rows, cols);
  };

  for (int64_t b = 0; b < spec.batches; ++b) {
    const uint64_t input = spec.input + uint64_t(b * spec.inputStride);
    const uint64_t weight = spec.weight + uint64_t(b * spec.weightStride);
    const uint64_t output = spec.output + uint64_t(b * spec.outputStride);
    // Staged: elements between the aligned DRAM address below this batch
    // element's result and its start (tensor bases are aligned).
    const int64_t lead =
        layout.staged
            ? int64_t(uint64_t(b * spec.outputStride) % dramAlign) / eOut
            : 0;
    const uint64_t stage = layout.stage[b % 2];

    for (int64_t row = 0; row < spec.m; row += layout.rowsPerChunk) {
      int64_t mc = std::min(layout.rowsPerChunk, spec.m - row);
      // The whole X chunk in one DMA: mc rows of k elements.
      uint64_t src = input + uint64_t(in.rowBytes(row * spec.k));
      int64_t delta = int64_t(src % dramAlign);
      uint64_t xData = layout.xBase;
      DmaLoad loadX;
      loadX.dst = {Space::Vrf, layout.xBase};
      loadX.format = in;
      if (delta == 0) {
        loadX.src = {Space::Dram, src};
        loadX.x = spec.k;
        loadX.y = mc;
      } else {
        // From the aligned address below, as one flat run whose dense rows
        // are the chunk's rows; left padding realigns 2-byte formats.
        int64_t pad = *leftPad(delta, eIn, vrfAlign);
        int64_t loaded = mc * spec.k + delta / eIn + pad;
        xData += uint64_t(delta + pad * eIn);
        loadX.src = {Space::Dram, src - delta};
        loadX.x = loaded - pad;
        loadX.pl = pad;
      }
      emitLoad(emitter, loadX);

      for (int64_t j = 0; j < nTiles; ++j, ++outputTile) {
        int64_t nt = std::min(tile, spec.n - j * tile);
        const Operand2D acc = denseOperand(
            Space::Acc, layout.accSlot[outputTile % 2], nt, accFormat);
        // Full k tiles of this output tile are loaded a group at a time,
        // one DMA each (z = tiles, one plane per tile); a partial last
        // tile and the on-the-fly transposed K x N weight one by one, and
        // partial n tiles of resident weights (whose slots are a whole tile
        // apart) one aligned unit at a time.
        const uint64_t planeStride = getPlaneStride(target, spec, nt);
        const int64_t planePad = getPlanePad(target, spec, nt).value_or(0);
        const int64_t maxGroup = spec.weightKxN ? 1
                                 : !resident || planeStride == layout.wBytes
                                     ? layout.wGroup
                                     : unit;
        int64_t groupStart = 0, groupSize = 0;
        uint64_t groupBase = 0;
        for (int64_t t = 0; t < kTiles; ++t) {
          int64_t kt = std::min(tile, spec.k - t * tile);
          bool loaded = spec.pinnedWeight ||
                        (resident && (row > 0 || (b > 0 && sharedWeight)));
          if (t == groupStart + groupSize) {
            groupStart = t;
            groupSize = t < fullK ? std::min(maxGroup, fullK - t) : 1;
            groupBase =
                resident ? slotOffset(j, t) : layout.wSlot[weightTile++ % 2];
            if (!loaded)
              emitWeightLoad(emitter, spec, weight, tile, j, t, groupSize, nt,
                             kt, groupBase, planePad);
          }
          uint64_t w = spec.pinnedWeight
                           ? pinnedTile(j, t)
                           : groupBase + uint64_t(t - groupStart) * planeStride;
          emitMm(emitter, acc,
                 Operand2D{Space::Vrf, xData + uint64_t(in.rowBytes(t * tile)),
                           in.rowBytes(spec.k), in},
                 denseOperand(Space::Mrf, w, kt, weightFormat), mc, kt, nt,
                 t > 0, spec.quantized ? spec.quantized->inputZeroPoint : 0);
        }

        // A quantized product: an i32 bias joins the exact sum, then the
        // sum becomes real (in place: i32 and f32 are both 4 bytes).
        const Operand2D real = denseOperand(
            Space::Acc, layout.accSlot[outputTile % 2], nt, kF32Format);
        auto addBias = [&](const Operand2D &block) {
          const ElementFormat biasFormat = spec.biasFormat;
          Operand2D bias =
              denseOperand(Space::Vrf, layout.biasBase, nt, biasFormat);
          if (layout.residentBias) {
            if (!biasLoaded) {
              DmaLoad loadB;
              loadB.dst = bias.ref();
              loadB.src = {Space::Dram, *spec.bias};
              loadB.format = biasFormat;
              loadB.x = spec.n;
              emitLoad(emitter, loadB);
              biasLoaded = true;
            }
            bias = bias.at(0, j * tile);
          } else {
            DmaLoad loadB;
            loadB.dst = bias.ref();
            loadB.src = {Space::Dram,
                         *spec.bias + uint64_t(biasFormat.rowBytes(j * tile))};
            loadB.format = biasFormat;
            loadB.x = nt;
            emitLoad(emitter, loadB);
          }
          emitBinary(emitter, ::nnaccel::isa::Opcode::VAdd, block, block, bias,
                     Bcast::Row, mc, nt);
        };
        const bool integerBias =
            spec.bias && ::nnaccel::isInteger(spec.biasFormat.dtype);
        if (integerBias)
          addBias(acc);
        if (spec.quantized) {
          bool perColumn = spec.quantized->scales.size() > 1;
          emitQuantConvert(emitter, ::nnaccel::isa::Opcode::VDqnt, real, acc,
                           perColumn ? scales.at(0, j * tile) : scales,
                           perColumn, /*zeroPoint=*/0, mc, nt);
        }
        if (spec.bias && !integerBias)
          addBias(real);

        emitActivation(emitter, spec.activation, real, mc, nt);

        if (layout.staged) {
          // Into the batch element's dense f32 stage, behind the lead.
          Operand2D staged{
              Space::Acc,
              stage + uint64_t((lead + row * spec.n + j * tile) * kF32),
              spec.n * kF32, kF32Format};
          emitCopy(emitter, staged, real, mc, nt);
          continue;
        }
        Operand2D result = real;
        if (out != kF32Format) {
          result =
              denseOperand(Space::Acc, layout.outSlot[outputTile % 2], nt, out);
          convertResult(result, real, mc, nt);
        }
        // Rows of Y are a pitch apart: dense, or the rows of the wider
        // tensor whose columns Y is.
        DmaStore store;
        store.dst = {Space::Dram,
                     output + uint64_t(row * yPitch + out.rowBytes(j * tile))};
        store.src = result.ref();
        store.format = out;
        store.x = nt;
        store.y = mc;
        store.dy = yPitch;
        emitStore(emitter, store);
      }
    }

    if (!layout.staged)
      continue;
    // The lead: the previous element's last values, which share this
    // element's first aligned DRAM granule and are rewritten unchanged.
    const int64_t streamElems = lead + spec.m * spec.n;
    const Operand2D stageBlock{Space::Acc, stage, 0, kF32Format};
    if (lead > 0) {
      Operand2D prev{Space::Acc,
                     layout.stage[(b + 1) % 2] +
                         uint64_t((prevLead + spec.m * spec.n - lead) * kF32),
                     0, kF32Format};
      emitCopy(emitter, stageBlock, prev, 1, lead);
    }
    Operand2D result = stageBlock;
    if (out != kF32Format) {
      result = Operand2D{Space::Acc, layout.packed[b % 2], 0, out};
      convertResult(result, stageBlock, 1, streamElems);
    }
    DmaStore store;
    store.dst = {Space::Dram, output - uint64_t(lead * eOut)};
    store.src = result.ref();
    store.format = out;
    store.x = streamElems;
    emitStore(emitter, store);
    prevLead = lead;
  }
}
