//===- MultiCoreRecurrentKernel.cpp - LSTM / GRU on several cores ---------===//
//
// accel.lstm and accel.gru on k cores of a card as one kernel,
// Brainwave-style: the gate columns are split. Core i owns the hidden
// columns [i*Hc, i*Hc + hc_i) of every gate (Hc columns per core, the last
// core possibly fewer): it keeps its rows of R resident in its own MRF,
// streams its rows of W, and computes its columns of the gates, of the cell
// state and of h_t. A step needs all of h_{t-1}, so the cores exchange
// their slices through SHARED memory every step:
//
//   per direction, per chunk of time steps:
//     XW phase (no exchange): G_i[chunk] = X[chunk] . W_i^T
//     per step t:
//       G_i[t] += h_{t-1} . R_i^T; biases; gates; cell -> h_t[:, slice i]
//       st   h_t slice -> SHARED exchange slot i (B x Hc, op format)
//       barrier among the kernel's cores
//       ld   all k slots -> h_t (B x k*Hc, one DMA), the next step's operand
//
// The exchange buffer alternates between two copies: exchange n writes
// copy n % 2 after barrier n-1 and is read before barrier n+1, so the
// writes of exchange n+2 (after barrier n+1) never meet a read of it.
// gru with linear_before_reset = 0 needs all of r * h_{t-1} before its h
// gate's recurrent product: a second exchange per step.
//
// Every core thus sees every h_t: core i keeps the rows of Y it stores (a
// contiguous range of the S*D steps, starting DRAM-aligned) in ACC and
// stores them with one DMA at the end; the last core also stores Y_h.
// lstm's cell state stays in slices: each core puts its final c slice in
// SHARED before the last exchange of a direction and one core gathers and
// stores Y_c.
//
// Alignment: a core's rows of W and R start at row g*H + i*Hc of a gate
// block; Hc is rounded up so that every tile the core loads starts on a
// DRAM-aligned address (no lead rows as the single-core gru needs). Shapes
// where no block size keeps them aligned, or where a core's R slice does
// not stay resident in its MRF, or Y does not fit its ACC, run on fewer
// cores (getRnnMaxCores), down to one.
//
// Numerics: per column, the same instructions in the same order as the
// single-core kernel (x.W^T, then h.R^T k tile by k tile, biases, f32 gate
// math, h rounded to the op's format for the recurrent product), so the
// results are bit-identical to it in every format; test/e2e/
// recurrent-multicore.test checks that.
//
// Pinned (accel-pin-weights, `accel.mrf_address`): each core's slices of
// W and R, every direction's, stay in its MRF across runs from the pinned
// address on (the same address on every core; a core with fewer columns
// holds fewer tiles). Each core's setup program loads them once per
// session, and the run multiplies from them: no W streaming, no R reload.
// The products, their operands and their order are the same as unpinned,
// only the MRF addresses of the tiles differ, so the results are
// bit-identical (test/e2e/recurrent-pinned.test).
//
// Pipelined across cards: when the input sequence comes from another
// card's recurrent layer step by step (accel-plan-card-transfers' pieces),
// the chunks shrink to kStreamedChunkSteps steps, the first core receives
// each chunk's steps right before its XW phase (then a barrier), and W
// stays resident next to R when the MRF holds both, so that a chunk costs
// no W reload. When the next card reads Y step by step, the first core
// sends each h_t from the exchanged copy as soon as it has it.
//
// Cost: the bulk of a batch-1 step, the h . R^T matrix-vector product,
// divides by k; each step adds one SHARED store, a barrier (which drains
// every queue) and one SHARED load. getRnnPreferredCores weighs the two
// with a roofline of the target and returns the core count that is
// fastest.
//
//===----------------------------------------------------------------------===//

#include "RecurrentKernels.h"

#include "CardKernels.h"
#include "KernelOperands.h"
#include "KernelUtils.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::MemRef;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// Steps per chunk when the input sequence arrives from another card a step
/// at a time, or Y leaves for one: a chunk's XW phase waits for its last
/// step, and a layer sends its first step only after its first chunk's XW
/// phase, so shorter chunks start each layer earlier behind the one before
/// it. With W resident and the next chunk received and loaded while the
/// current one runs, a chunk costs little more than its mm's. Measured on a
/// 4-layer H = 256 f32 encoder on 4 cards of dram-3m-6x
/// (bench/multicard_scaling.py): 1 step 26.6k, 2 steps 29.2k, 3 steps
/// 31.7k, 4 steps 34.3k device cycles.
constexpr int64_t kStreamedChunkSteps = 1;

/// One tile of a core's rows of W or R: `rows` rows of gate `gate` from
/// the core's column `row` on, times the columns [col, col + cols) of the
/// k dimension. `dstCol` is the first gate column it produces in the
/// core's local gate layout (gate g's columns at g * hc).
struct Tile {
  int64_t gate, row, rows, col, cols;
  int64_t dstCol;
};

/// The part of the op one core computes.
struct CoreShare {
  int64_t c0 = 0; // first hidden column it owns
  int64_t hc = 0; // how many
  SmallVector<Tile> rTiles, wTiles;
  int64_t yRow0 = 0, yRow1 = 0; // rows (t * D + d) of Y it stores
};

/// The division of an op among `cores` cores and the on-chip layout every
/// core uses (the same addresses on each; sized for Hc columns).
struct McLayout {
  int64_t cores = 0;
  int64_t block = 0;  // Hc
  int64_t padded = 0; // Hp = cores * Hc: the row of an exchanged h
  SmallVector<CoreShare> shares;
  int64_t tile = 0, stepsPerChunk = 0;
  uint64_t tileBytes = 0;
  uint64_t slot[2] = {0, 0}; // MRF: streamed W tiles (R tiles from 0)
  // ACC: gates (Tc*B x G*hc f32), the full bias rows (op format,
  // biasPitch apart) and the core's columns of them, the full and local
  // peephole rows, the exchanged h (and gru r*h) B x Hp, the state slices
  // (B x Hc), staging for initial states (B x H), the core's rows of Y and
  // the final states (D x B x H).
  uint64_t gates = 0, biasFull = 0, biasPitch = 0, biasLocal = 0,
           localPitch = 0, peepFull = 0, peepLocal = 0, hFull = 0, rhFull = 0,
           cState = 0, hq = 0, hWide = 0, tmp[2] = {0, 0}, aux = 0, staging = 0,
           yBuf = 0, yhBuf = 0, ycBuf = 0, end = 0;
  // SHARED (offsets from the op's scratch): two exchange buffers of
  // `cores` slots and lstm's final c slices (D x cores slots).
  uint64_t slotBytes = 0, exchange[2] = {0, 0}, cArea = 0, sharedBytes = 0;
  // SHARED: two chunks of kStreamedChunkSteps input steps, for an input
  // sequence another card sends step by step.
  uint64_t xStage[2] = {0, 0};
  int64_t exchangesPerStep = 1;
  /// Who stores Y_h and Y_c.
  int64_t finalCore = 0;
};

/// The tiles of gate rows [c0, c0 + hc) of every gate in `gates`, times
/// the k dimension `kDim`, N x N at most.
SmallVector<Tile> makeTiles(const RnnShape &s, int64_t tile, int64_t hc,
                            int64_t kDim, ArrayRef<int64_t> gates) {
  SmallVector<Tile> tiles;
  for (int64_t g : gates)
    for (int64_t row = 0; row < hc; row += tile)
      for (int64_t col = 0; col < kDim; col += tile)
        tiles.push_back({g, row, std::min(tile, hc - row), col,
                         std::min(tile, kDim - col), g * hc + row});
  return tiles;
}

/// Gates of R whose recurrent product one block covers: all for lstm; z, r
/// and then h for gru (whose h product needs r first).
SmallVector<SmallVector<int64_t, 4>, 2> gateBlocks(const RnnShape &s) {
  if (s.gates == 4)
    return {{0, 1, 2, 3}};
  return {{0, 1}, {2}};
}

/// `pinned`: W and R are pinned above the MRF the kernel sees (so that MRF
/// does not bound the cores; accel-pin-weights checked that every core's
/// slices fit its whole MRF).
std::optional<McLayout> computeLayout(const TargetDesc &target, const RnnOp &op,
                                      const RnnShape &s, int64_t cores,
                                      bool pinned) {
  if (cores < 2)
    return std::nullopt;
  const ElementFormat f = s.format;
  const int64_t H = s.hidden, G = s.gates, B = s.batch;
  const uint64_t dramAlign =
      std::max<uint64_t>(target.memory(Space::Dram).align, 1);
  const uint64_t accAlign =
      std::max<uint64_t>(target.memory(Space::Acc).align, 1);
  const uint64_t sharedAlign =
      std::max<uint64_t>(target.memory(Space::Shared).align, 1);
  auto aligned = [&](int64_t bytes) { return bytes % int64_t(dramAlign) == 0; };
  McLayout l;
  l.cores = cores;
  l.tile = target.nativeDim;
  // Hc: a multiple of the columns after which a row of W and of R starts
  // aligned, and of those that keep a column offset into an ACC row of
  // the op's format aligned (f16, bf16: 2). Every core's columns then
  // start aligned; so does the last core's count if H does.
  auto columnsPer = [](int64_t bytes, int64_t align) {
    return align / std::gcd(bytes, align);
  };
  const int64_t accUnit = columnsPer(f.rowBytes(1), int64_t(accAlign));
  if (H % accUnit != 0)
    return std::nullopt;
  int64_t unit =
      std::lcm(std::lcm(columnsPer(f.rowBytes(H), int64_t(dramAlign)),
                        columnsPer(f.rowBytes(s.input), int64_t(dramAlign))),
               accUnit);
  l.block = alignUp(uint64_t((H + cores - 1) / cores), uint64_t(unit));
  if ((cores - 1) * l.block >= H)
    return std::nullopt; // a core would own no column
  l.padded = cores * l.block;
  l.exchangesPerStep = s.gates == 3 && !op.linearBeforeReset ? 2 : 1;

  // Rows of Y: S*D slices of B x H; each core's range starts aligned.
  const int64_t slice = B * f.rowBytes(H);
  const int64_t yRows = s.seq * s.dirs;
  const int64_t yUnit =
      int64_t(dramAlign) / std::gcd(slice, int64_t(dramAlign));
  const int64_t yUnits = (yRows + yUnit - 1) / yUnit;
  int64_t yRow = 0, largestYRange = 0;
  for (int64_t i = 0; i < cores; ++i) {
    CoreShare share;
    share.c0 = i * l.block;
    share.hc = std::min(l.block, H - share.c0);
    share.rTiles = makeTiles(s, l.tile, share.hc, H,
                             ArrayRef<int64_t>({0, 1, 2, 3}).take_front(G));
    share.wTiles = makeTiles(s, l.tile, share.hc, s.input,
                             ArrayRef<int64_t>({0, 1, 2, 3}).take_front(G));
    for (const Tile &t : share.rTiles)
      if (!aligned(f.rowBytes((t.gate * H + share.c0 + t.row) * H + t.col)))
        return std::nullopt;
    for (const Tile &t : share.wTiles)
      if (!aligned(
              f.rowBytes((t.gate * H + share.c0 + t.row) * s.input + t.col)))
        return std::nullopt;
    int64_t units = yUnits / cores + (i < yUnits % cores ? 1 : 0);
    share.yRow0 = std::min(yRow, yRows);
    yRow += units * yUnit;
    share.yRow1 = std::min(yRow, yRows);
    largestYRange = std::max(largestYRange, share.yRow1 - share.yRow0);
    l.shares.push_back(std::move(share));
  }
  if (largestYRange > kMaxDmaYZ || s.dirs * B > kMaxDmaYZ)
    return std::nullopt;
  l.finalCore = cores - 1;

  // MRF: the core's R tiles (the first core has the most), two W slots.
  l.tileBytes = alignUp(uint64_t(l.tile * f.rowBytes(l.tile)),
                        target.memory(Space::Mrf).align);
  const uint64_t rBytes =
      uint64_t(l.shares.front().rTiles.size()) * l.tileBytes;
  l.slot[0] = rBytes;
  l.slot[1] = rBytes + l.tileBytes;
  if (!pinned && rBytes + 2 * l.tileBytes > target.memory(Space::Mrf).bytes)
    return std::nullopt;

  // ACC: everything but the gate chunk, then as many steps as fit.
  const int64_t Hc = l.block;
  uint64_t cursor = 0;
  auto take = [&](uint64_t bytes) {
    uint64_t at = cursor;
    cursor += alignUp(bytes, 64);
    return at;
  };
  l.biasPitch = alignUp(uint64_t(f.rowBytes(s.gateCols())), accAlign);
  l.localPitch = alignUp(uint64_t(f.rowBytes(G * Hc)), accAlign);
  const uint64_t state = uint64_t(B * Hc * kF32);
  const uint64_t full = uint64_t(B * f.rowBytes(l.padded));
  l.biasFull = take(2 * l.biasPitch);
  l.biasLocal = take(2 * l.localPitch);
  if (s.peepholes) {
    l.peepFull = take(uint64_t(f.rowBytes(3 * H)));
    l.peepLocal = take(uint64_t(f.rowBytes(3 * Hc)));
  }
  l.hFull = take(full);
  if (l.exchangesPerStep == 2)
    l.rhFull = take(full);
  l.cState = take(state);
  l.hq = take(state);
  const bool wide = f == kF32Format;
  l.hWide = s.gates == 3 && !wide ? take(state) : l.hq;
  l.tmp[0] = take(state);
  l.tmp[1] = take(state);
  l.aux = take(state);
  l.staging = take(uint64_t(s.dirs * B * f.rowBytes(H)));
  l.yBuf = take(uint64_t(largestYRange * slice));
  l.yhBuf = take(uint64_t(s.dirs * slice));
  l.ycBuf = take(uint64_t(s.dirs * slice));
  const uint64_t stepGates = uint64_t(B * G * Hc * kF32);
  const uint64_t accBytes = target.memory(Space::Acc).bytes;
  const uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  if (cursor >= accBytes)
    return std::nullopt;
  const uint64_t stepX = uint64_t(B * f.rowBytes(s.input));
  l.stepsPerChunk = std::min<int64_t>(
      {s.seq, int64_t((accBytes - cursor) / stepGates),
       int64_t(vrfBytes / stepX), kMaxDmaYZ / B, kMaxCount / B});
  if (l.stepsPerChunk < 1)
    return std::nullopt;
  // X chunks start aligned.
  if (l.stepsPerChunk < s.seq && !aligned(B * f.rowBytes(s.input)))
    return std::nullopt;
  l.gates = cursor;
  l.end = cursor + uint64_t(l.stepsPerChunk) * stepGates;

  // SHARED.
  l.slotBytes = alignUp(uint64_t(B * f.rowBytes(Hc)), sharedAlign);
  const uint64_t buffer = uint64_t(cores) * l.slotBytes;
  l.exchange[0] = 0;
  l.exchange[1] = buffer;
  l.cArea = 2 * buffer;
  l.sharedBytes = l.cArea + (s.gates == 4 ? uint64_t(s.dirs) * buffer : 0);
  const uint64_t stage = alignUp(
      uint64_t(kStreamedChunkSteps * B * f.rowBytes(s.input)), sharedAlign);
  l.xStage[0] = l.sharedBytes;
  l.xStage[1] = l.sharedBytes + stage;
  l.sharedBytes += 2 * stage;
  if (l.sharedBytes > target.memory(Space::Shared).bytes)
    return std::nullopt;
  return l;
}

/// Modelled cycles of the op on `cores` cores (1: the single-core kernel's
/// schedule, roughly): per step the recurrent product of the first core's
/// tiles (the most), its vector work and, on several cores, the exchange;
/// per direction its share of the XW phase and of the final Y store.
double estimateCycles(const TargetDesc &target, const RnnShape &s, int64_t hc,
                      ArrayRef<Tile> rTiles, ArrayRef<Tile> wTiles,
                      int64_t cores, int64_t exchangesPerStep,
                      uint64_t exchangeBytes) {
  const ElementFormat f = s.format;
  const double macs = double(target.macsPerCycle.at(f.dtype));
  auto ceilDiv = [](double a, double b) { return std::ceil(a / b); };
  auto mm = [&](int64_t m, int64_t k, int64_t n) {
    return std::max(double(m) *
                        ceilDiv(double(k), target.matrixLanesFor(f.dtype)) *
                        ceilDiv(double(n), target.nativeDim),
                    ceilDiv(double(m * k * n), macs));
  };
  auto vec = [&](int64_t cols) {
    return double(s.batch) * ceilDiv(double(cols), target.vectorLanes);
  };
  const auto &dram = target.memory(Space::Dram);
  const auto &shared = target.memory(Space::Shared);
  double step = 0;
  for (const Tile &t : rTiles)
    step += mm(s.batch, t.cols, t.rows) + 1;
  // Biases, activations and the cell update: about a dozen vector ops.
  step += 2 * vec(s.gates * hc) + 12 * vec(hc);
  if (cores > 1)
    step += double(exchangesPerStep) *
            (2 * double(shared.latencyCycles) +
             ceilDiv(double(exchangeBytes), double(shared.bytesPerCycle)) +
             ceilDiv(double(exchangeBytes) / double(cores),
                     double(shared.bytesPerCycle)) +
             8);
  // XW: W tiles streamed from DRAM while the matrix unit multiplies.
  double load = 0, multiply = 0;
  const double tileBytes =
      double(target.nativeDim) * double(f.rowBytes(target.nativeDim));
  for (const Tile &t : wTiles) {
    load += double(dram.latencyCycles) +
            ceilDiv(tileBytes, double(dram.bytesPerCycle));
    multiply += mm(s.seq * s.batch, t.cols, t.rows);
  }
  double xw = std::max(load, multiply);
  double yStore =
      double(dram.latencyCycles) +
      ceilDiv(double(s.seq * s.dirs * s.batch * f.rowBytes(s.hidden)) /
                  double(cores),
              double(dram.bytesPerCycle));
  return double(s.dirs) * (double(s.seq) * step + xw) + yStore;
}

class MultiCoreRnnEmitter {
public:
  MultiCoreRnnEmitter(Operation *operation, KernelContext &context)
      : op(getRnnOp(operation)), context(context), s(getShape(op)),
        l(*computeLayout(context.target, op, s, int64_t(context.cores.size()),
                         context.pinnedWeight.has_value())),
        streamed(l.cores, 0), pinned(context.pinnedWeight) {
    in = context.getStreamedReceive(op.x);
    out = context.getStreamedSend(op.y);
    // h_t leaves from the exchanged copy, whose rows are Hp apart: one
    // message per step needs them dense (or one row) and the steps in
    // order; otherwise the lowering sends Y at the end.
    if (out && !(s.dirs == 1 && !s.reverseOnly && out->pieces == s.seq &&
                 out->pieceBytes == sliceBytes() &&
                 (s.batch == 1 || l.padded == s.hidden)))
      out = nullptr;
    if (in && in->pieces != s.seq)
      in = nullptr; // received whole before the first chunk
    const auto &dramAlign = context.target.memory(Space::Dram).align;
    // Short chunks also let a layer that sends its steps start sending
    // them after one short XW phase instead of the whole sequence's.
    if ((in || out) && l.stepsPerChunk > 1 &&
        uint64_t(s.batch * bytes(s.input)) % std::max<uint64_t>(dramAlign, 1) ==
            0) {
      streamChunk = std::min(kStreamedChunkSteps, l.stepsPerChunk);
      // Two chunks' gates fit the accumulator: the next chunk's steps can
      // be received and multiplied while this one's last step runs.
      staged = in && s.dirs == 1 && !s.reverseOnly &&
               l.stepsPerChunk >= 2 * kStreamedChunkSteps;
      // Input already in DRAM: the next chunk's steps load while this
      // chunk's run, into the other half of a VRF double buffer.
      const uint64_t vrfBytes = uint64_t(context.target.vrfRegisters) *
                                uint64_t(context.target.vrfRegisterBytes);
      early = !in && l.stepsPerChunk >= 2 * kStreamedChunkSteps &&
              2 * inputBytes(streamChunk) <= vrfBytes;
    }
    // Several chunks reload W each; keep it resident when it fits (pinned
    // W is resident anyway).
    const uint64_t wBytes = uint64_t(share(0).wTiles.size()) * l.tileBytes;
    residentW = !pinned && (streamChunk || l.stepsPerChunk < s.seq) &&
                l.slot[0] + wBytes <= context.target.memory(Space::Mrf).bytes;
  }

  void emit() {
    if (pinned) {
      // Each core's setup program loads its slices of every direction's W
      // and R once per session (see pinnedW).
      assert(context.setups.size() == context.cores.size() &&
             "pinned weights need every core's setup program");
      for (int64_t i = 0; i < l.cores; ++i)
        for (int64_t d = 0; d < s.dirs; ++d) {
          ProgramEmitter &setup = *context.setups[size_t(i)];
          loadResident(setup, i, wBase(d), s.input, share(i).wTiles,
                       pinnedW(i, d));
          loadResident(setup, i, rBase(d), s.hidden, share(i).rTiles,
                       pinnedR(i, d));
        }
    }
    for (int64_t d = 0; d < s.dirs; ++d)
      emitDirection(d);
    // Y_c: every core's final c slices are in SHARED (stored before the
    // last exchange of each direction, which ordered them).
    if (op.yC) {
      const int64_t i = l.finalCore;
      ProgramEmitter &e = context.cores[size_t(i)];
      for (int64_t d = 0; d < s.dirs; ++d) {
        gather(i, shared(l.cArea + uint64_t(d) * bufferBytes()), l.hFull);
        emitCopy(e, narrow(l.ycBuf + uint64_t(d) * sliceBytes(), s.hidden),
                 full(l.hFull), s.batch, s.hidden);
      }
      storeRows(i, op.yC, 0, l.ycBuf, s.dirs);
    }
    for (int64_t i = 0; i < l.cores; ++i) {
      const CoreShare &share = l.shares[size_t(i)];
      if (share.yRow1 > share.yRow0)
        storeRows(i, op.y, share.yRow0, l.yBuf, share.yRow1 - share.yRow0);
    }
    storeRows(l.finalCore, op.yH, 0, l.yhBuf, s.dirs);
  }

private:
  RnnOp op;
  KernelContext &context;
  RnnShape s;
  McLayout l;
  SmallVector<int64_t> streamed; // per core: MRF slot alternation
  int64_t exchanges = 0;         // exchange buffer alternation
  /// W and R pinned in every core's MRF from this address on.
  std::optional<uint64_t> pinned;
  /// The direction being emitted.
  int64_t direction = 0;
  /// The input sequence received step by step, Y sent step by step.
  StreamedTransfer *in = nullptr, *out = nullptr;
  /// W's tiles stay in the MRF from l.slot[0] on (several chunks).
  bool residentW = false;
  /// When the steps stream, the steps of a chunk (0: the accumulator's
  /// l.stepsPerChunk). A direction's first chunk is a single step, so that
  /// its first h leaves (or its first step starts) as early as possible,
  /// the ones after it streamChunk steps (a layer that only sends too: one
  /// long XW phase would hold its second h back from the next card), and
  /// the last ones single steps again, so that the last step the card
  /// before sends is the only one left when it arrives.
  int64_t streamChunk = 0;
  /// Streamed input steps land in SHARED (l.xStage, alternating per chunk),
  /// and a chunk's steps are received before the previous chunk's last
  /// exchange, whose barrier then orders them for every core; the gates of
  /// two chunks alternate in ACC.
  bool staged = false;
  /// The next chunk's steps are loaded before this chunk's steps run (the
  /// input is in DRAM from the start), alternating between two VRF halves;
  /// the gates of two chunks alternate in ACC.
  bool early = false;

  /// Bytes of `steps` input steps in the VRF, aligned for the next buffer.
  uint64_t inputBytes(int64_t steps) const {
    return alignUp(uint64_t(steps * s.batch * bytes(s.input)),
                   std::max<uint64_t>(context.target.vrfRegisterBytes, 1));
  }

  int64_t chunkSteps(int64_t first) const {
    const int64_t left = s.seq - first;
    if (!streamChunk)
      return std::min(l.stepsPerChunk, left);
    if (first == 0 || left <= streamChunk)
      return 1;
    return std::min(streamChunk, left);
  }

  bool isF32() const { return s.format == kF32Format; }
  int64_t bytes(int64_t n) const { return s.format.rowBytes(n); }
  uint64_t sliceBytes() const { return uint64_t(s.batch * bytes(s.hidden)); }
  uint64_t bufferBytes() const { return uint64_t(l.cores) * l.slotBytes; }
  uint64_t shared(uint64_t offset) const {
    return *context.sharedScratch + offset;
  }
  int64_t timeIndex(int64_t d, int64_t step) const {
    bool backwards = s.reverseOnly || d == 1;
    return backwards ? s.seq - 1 - step : step;
  }
  ProgramEmitter &emitter(int64_t i) { return context.cores[size_t(i)]; }
  const CoreShare &share(int64_t i) const { return l.shares[size_t(i)]; }

  // ACC operands of core i: gate columns of a step at `g` (f32, local
  // layout), B x n blocks in f32 or in the op's format, the exchanged
  // B x Hp h, local bias and peephole rows.
  Operand2D gate(int64_t i, uint64_t g, int64_t col) const {
    return Operand2D{Space::Acc, g, s.gates * share(i).hc * kF32, kF32Format}
        .at(0, col);
  }
  Operand2D wide(uint64_t at, int64_t cols) const {
    return denseOperand(Space::Acc, at, cols);
  }
  Operand2D narrow(uint64_t at, int64_t cols) const {
    return denseOperand(Space::Acc, at, cols, s.format);
  }
  Operand2D full(uint64_t at) const { return narrow(at, l.padded); }
  Operand2D biasRow(int which, int64_t col) const {
    return Operand2D{Space::Acc, l.biasLocal, int64_t(l.localPitch), s.format}
        .at(which, col);
  }
  Operand2D peepholeRow(int64_t col) const {
    return narrow(l.peepLocal, 3 * l.block).at(0, col);
  }

  /// Loads rows [row, row + rows) x columns [col, col + cols) of a
  /// [G*H x kDim] matrix (direction slice at `base`) into MRF at `dst`.
  void loadTile(int64_t i, uint64_t base, int64_t kDim, const Tile &t,
                uint64_t dst) {
    const int64_t row = t.gate * s.hidden + share(i).c0 + t.row;
    DmaLoad load;
    load.dst = {Space::Mrf, dst};
    load.src = {Space::Dram, base + uint64_t(bytes(row * kDim + t.col))};
    load.format = s.format;
    load.x = t.cols;
    load.y = t.rows;
    load.sy = bytes(kDim);
    emitLoad(emitter(i), load);
  }

  uint64_t rTileAddress(size_t index) const { return index * l.tileBytes; }

  /// Direction d's slices of W and R in DRAM.
  uint64_t wBase(int64_t d) const {
    return context.addressOf(op.w) +
           uint64_t(d * s.gateCols() * bytes(s.input));
  }
  uint64_t rBase(int64_t d) const {
    return context.addressOf(op.r) +
           uint64_t(d * s.gateCols() * bytes(s.hidden));
  }

  /// Pinned: core i's MRF holds, per direction, its W tiles and then its R
  /// tiles (tile by tile in share(i)'s order, as loadResident puts them).
  uint64_t pinnedDirectionBytes(int64_t i) const {
    return uint64_t(share(i).wTiles.size() + share(i).rTiles.size()) *
           l.tileBytes;
  }
  uint64_t pinnedW(int64_t i, int64_t d) const {
    return *pinned + uint64_t(d) * pinnedDirectionBytes(i);
  }
  uint64_t pinnedR(int64_t i, int64_t d) const {
    return pinnedW(i, d) + uint64_t(share(i).wTiles.size()) * l.tileBytes;
  }
  /// Where core i's R tiles of the current direction start in its MRF.
  uint64_t rMrf(int64_t i) const { return pinned ? pinnedR(i, direction) : 0; }

  void mm(int64_t i, const Operand2D &dst, const Operand2D &a, uint64_t w,
          int64_t rows, int64_t k, int64_t n, bool accumulate) {
    emitMm(emitter(i), dst, a, denseOperand(Space::Mrf, w, k, s.format), rows,
           k, n, accumulate);
  }

  /// dst (+)= a . R_i^T over the gates of `block` (gateBlocks); `dst`'s
  /// column 0 is the block's first gate column, `a` a B x H operand in the
  /// op's format. The first k tile overwrites unless `accumulate`.
  void recurrentProduct(int64_t i, int block, const Operand2D &dst,
                        const Operand2D &a, bool accumulate) {
    const SmallVector<int64_t, 4> gates = gateBlocks(s)[size_t(block)];
    const int64_t firstCol = gates.front() * share(i).hc;
    for (auto [index, t] : llvm::enumerate(share(i).rTiles)) {
      if (!llvm::is_contained(gates, t.gate))
        continue;
      mm(i, dst.at(0, t.dstCol - firstCol), a.at(0, t.col),
         rMrf(i) + rTileAddress(index), s.batch, t.cols, t.rows,
         accumulate || t.col > 0);
    }
  }

  void clip(int64_t i, const Operand2D &block, int64_t cols) {
    if (!op.clip)
      return;
    emitScalar(emitter(i), Opcode::VsMax, block, block, -*op.clip, s.batch,
               cols);
    emitScalar(emitter(i), Opcode::VsMin, block, block, *op.clip, s.batch,
               cols);
  }

  /// Core i's B x hc slice (op format, dense at `src` in ACC) to its slot
  /// of the SHARED area at `area`.
  void storeSlice(int64_t i, uint64_t src, uint64_t area) {
    DmaStore store;
    store.dst = {Space::Shared, area + uint64_t(i) * l.slotBytes};
    store.src = {Space::Acc, src};
    store.format = s.format;
    store.x = share(i).hc;
    store.y = s.batch;
    store.dy = bytes(l.block);
    emitStore(emitter(i), store);
  }

  /// All slots of the SHARED area at `area` into B x Hp at `dst` on core
  /// i: plane b takes row b of every slot, which lands at b * Hp + j * Hc.
  void gather(int64_t i, uint64_t area, uint64_t dst) {
    DmaLoad load;
    load.dst = {Space::Acc, dst};
    load.src = {Space::Shared, area};
    load.format = s.format;
    load.x = l.block;
    load.y = l.cores;
    load.sy = int64_t(l.slotBytes);
    load.z = s.batch;
    load.sz = bytes(l.block);
    load.dpitch = bytes(l.block);
    emitLoad(emitter(i), load);
  }

  /// Each core's slice at `src` to SHARED, a barrier, then all of it at
  /// `dst` on every core.
  void exchange(uint64_t src, uint64_t dst) {
    const uint64_t area = shared(l.exchange[exchanges++ % 2]);
    for (int64_t i = 0; i < l.cores; ++i)
      storeSlice(i, src, area);
    context.cores.barrier();
    for (int64_t i = 0; i < l.cores; ++i)
      gather(i, area, dst);
  }

  /// Stores `slices` B x H slices, dense in ACC at `src` on core i, to
  /// `value` from slice `first` on.
  void storeRows(int64_t i, Value value, int64_t first, uint64_t src,
                 int64_t slices) {
    DmaStore store;
    store.dst = {Space::Dram,
                 context.addressOf(value) + uint64_t(first) * sliceBytes()};
    store.src = {Space::Acc, src};
    store.format = s.format;
    store.x = s.hidden;
    store.y = s.batch;
    store.z = slices;
    store.dz = int64_t(sliceBytes());
    emitStore(emitter(i), store);
  }

  /// All of the D x B x H state `value` into the staging buffer.
  void loadAllDirections(int64_t i, Value value) {
    DmaLoad load;
    load.dst = {Space::Acc, l.staging};
    load.src = {Space::Dram, context.addressOf(value)};
    load.format = s.format;
    load.x = s.hidden;
    load.y = s.dirs * s.batch;
    emitLoad(emitter(i), load);
  }

  /// Direction d's B x H slice of the state `value` (or zeros) to `dst` on
  /// core i, rows `pitch` bytes apart. All directions are loaded into the
  /// staging buffer and the slice copied: a direction's slice need not
  /// start DRAM-aligned.
  void loadState(int64_t i, Value value, int64_t d, const Operand2D &dst) {
    if (!value) {
      emitFill(emitter(i), dst, s.batch, s.hidden);
      return;
    }
    loadAllDirections(i, value);
    emitCopy(emitter(i), dst, narrow(l.staging, s.hidden).at(d * s.batch, 0),
             s.batch, s.hidden);
  }

  /// Per direction: biases and peepholes (the core's columns gathered into
  /// local rows), initial states, the resident R tiles (unless pinned).
  void setUp(int64_t i, int64_t d, uint64_t rBase, uint64_t wBase) {
    ProgramEmitter &e = emitter(i);
    const int64_t G = s.gates, H = s.hidden, hc = share(i).hc, c0 = share(i).c0;
    if (op.b) {
      DmaLoad load;
      load.dst = {Space::Acc, l.biasFull};
      load.src = {Space::Dram,
                  context.addressOf(op.b) + uint64_t(d * bytes(2 * G * H))};
      load.format = s.format;
      load.x = G * H;
      load.y = 2;
      load.dpitch = int64_t(l.biasPitch);
      emitLoad(e, load);
      const Operand2D from{Space::Acc, l.biasFull, int64_t(l.biasPitch),
                           s.format};
      for (int64_t g = 0; g < G; ++g)
        emitCopy(e, biasRow(0, g * hc), from.at(0, g * H + c0), 2, hc);
    }
    if (op.peepholes) {
      DmaLoad load;
      load.dst = {Space::Acc, l.peepFull};
      load.src = {Space::Dram,
                  context.addressOf(op.peepholes) + uint64_t(d * bytes(3 * H))};
      load.format = s.format;
      load.x = 3 * H;
      emitLoad(e, load);
      for (int64_t g = 0; g < 3; ++g)
        emitCopy(e, peepholeRow(g * hc),
                 narrow(l.peepFull, 3 * H).at(0, g * H + c0), 1, hc);
    }
    loadState(i, op.initialH, d, full(l.hFull));
    if (s.gates == 3)
      emitCopy(e, wide(l.hWide, hc), full(l.hFull).at(0, c0), s.batch, hc);
    if (s.gates == 4) {
      if (op.initialC) {
        loadAllDirections(i, op.initialC);
        emitCopy(e, wide(l.cState, hc),
                 narrow(l.staging, H).at(d * s.batch, c0), s.batch, hc);
      } else {
        emitFill(e, wide(l.cState, hc), s.batch, hc);
      }
    }
    if (pinned)
      return;
    loadResident(e, i, rBase, s.hidden, share(i).rTiles, 0);
    if (residentW)
      loadResident(e, i, wBase, s.input, share(i).wTiles, l.slot[0]);
  }

  /// Loads `tiles` of core i's rows of a [G*H x kDim] matrix (direction
  /// slice at `base`) into the MRF one after the other from `mrf` on, by
  /// DMAs appended to `e` (core i's program or its setup program). The
  /// full N x N k tiles of one row block sit side by side in the matrix and
  /// one after the other in the MRF: one DMA (a plane per tile) loads them,
  /// paying the DRAM latency once.
  void loadResident(ProgramEmitter &e, int64_t i, uint64_t base, int64_t kDim,
                    ArrayRef<Tile> tiles, uint64_t mrf) {
    const int64_t n = l.tile;
    auto full = [&](const Tile &t) { return t.rows == n && t.cols == n; };
    const bool planesAreTiles = l.tileBytes == uint64_t(n * bytes(n));
    for (size_t first = 0; first < tiles.size();) {
      size_t end = first + 1;
      if (planesAreTiles && full(tiles[first]))
        while (end < tiles.size() && full(tiles[end]) &&
               tiles[end].gate == tiles[first].gate &&
               tiles[end].row == tiles[first].row &&
               end - first < size_t(kMaxDmaYZ))
          ++end;
      const Tile &t = tiles[first];
      const int64_t row = t.gate * s.hidden + share(i).c0 + t.row;
      DmaLoad load;
      load.dst = {Space::Mrf, mrf + rTileAddress(first)};
      load.src = {Space::Dram, base + uint64_t(bytes(row * kDim + t.col))};
      load.format = s.format;
      load.x = t.cols;
      load.y = t.rows;
      load.sy = bytes(kDim);
      load.z = int64_t(end - first);
      load.sz = bytes(n);
      emitLoad(e, load);
      first = end;
    }
  }

  /// A chunk's `steps` input steps at `x` into the VRF at `vrf` on core i.
  void loadInput(int64_t i, MemRef x, int64_t steps, uint64_t vrf) {
    DmaLoad loadX;
    loadX.dst = {Space::Vrf, vrf};
    loadX.src = x;
    loadX.format = s.format;
    loadX.x = s.input;
    loadX.y = steps * s.batch;
    emitLoad(emitter(i), loadX);
  }

  /// G_i[rows x G*hc] at `gates` = X[chunk] . W_i^T on core i, the chunk's
  /// steps in the VRF at `vrf`.
  void inputProduct(int64_t i, uint64_t wBase, uint64_t vrf, int64_t steps,
                    uint64_t gates) {
    const int64_t rows = steps * s.batch;
    const Operand2D xv = denseOperand(Space::Vrf, vrf, s.input, s.format);
    for (auto [index, t] : llvm::enumerate(share(i).wTiles)) {
      uint64_t w =
          (pinned ? pinnedW(i, direction) : l.slot[0]) + rTileAddress(index);
      if (!residentW && !pinned) {
        w = l.slot[streamed[size_t(i)]++ % 2];
        loadTile(i, wBase, s.input, t, w);
      }
      mm(i, gate(i, gates, t.dstCol), xv.at(0, t.col), w, rows, t.cols, t.rows,
         t.col > 0);
    }
  }

  /// lstm: G_t += h_{t-1} . R_i^T, biases, the cell -> h_t slice at hq.
  void lstmStep(int64_t i, uint64_t g, bool last, int64_t d) {
    ProgramEmitter &e = emitter(i);
    const int64_t B = s.batch, hc = share(i).hc;
    recurrentProduct(i, 0, gate(i, g, 0), full(l.hFull), /*accumulate=*/true);
    if (op.b) {
      emitBinary(e, Opcode::VAdd, gate(i, g, 0), gate(i, g, 0), biasRow(0, 0),
                 Bcast::Row, B, 4 * hc);
      emitBinary(e, Opcode::VAdd, gate(i, g, 0), gate(i, g, 0), biasRow(1, 0),
                 Bcast::Row, B, 4 * hc);
    }
    const Operand2D gi = gate(i, g, 0), go = gate(i, g, hc),
                    gf = gate(i, g, 2 * hc), gc = gate(i, g, 3 * hc),
                    c = wide(l.cState, hc), t0 = wide(l.tmp[0], hc),
                    t1 = wide(l.tmp[1], hc);
    auto addPeephole = [&](const Operand2D &gateBlock, int64_t pCol) {
      emitBinary(e, Opcode::VMul, t0, c, peepholeRow(pCol), Bcast::Row, B, hc);
      emitBinary(e, Opcode::VAdd, gateBlock, gateBlock, t0, Bcast::None, B, hc);
    };
    if (op.peepholes) {
      addPeephole(gi, 0);
      addPeephole(gf, 2 * hc);
      clip(i, gi, hc);
      clip(i, gf, 2 * hc); // f and c~
      emitUnary(e, Opcode::VSigm, gi, gi, B, hc);
      emitUnary(e, Opcode::VSigm, gf, gf, B, hc);
    } else {
      clip(i, gi, 4 * hc);
      emitUnary(e, Opcode::VSigm, gi, gi, B, 3 * hc); // i, o, f
    }
    emitUnary(e, Opcode::VTanh, gc, gc, B, hc);
    emitBinary(e, Opcode::VMul, t0, gf, c, Bcast::None, B, hc);
    emitBinary(e, Opcode::VMul, t1, gi, gc, Bcast::None, B, hc);
    emitBinary(e, Opcode::VAdd, c, t0, t1, Bcast::None, B, hc);
    if (op.peepholes) {
      addPeephole(go, hc);
      clip(i, go, hc);
      emitUnary(e, Opcode::VSigm, go, go, B, hc);
    }
    emitUnary(e, Opcode::VTanh, t0, c, B, hc);
    emitBinary(e, Opcode::VMul, narrow(l.hq, hc), go, t0, Bcast::None, B, hc);
    if (last && op.yC) {
      // The final c slice, in the op's format, for Y_c.
      uint64_t src = l.cState;
      if (!isF32()) {
        emitCopy(e, narrow(l.aux, hc), c, B, hc);
        src = l.aux;
      }
      storeSlice(i, src, shared(l.cArea + uint64_t(d) * bufferBytes()));
    }
  }

  /// gru up to the gates z and r; for linear_before_reset = 0 also r * h
  /// (narrow, at aux) for the exchange.
  void gruGates(int64_t i, uint64_t g) {
    ProgramEmitter &e = emitter(i);
    const int64_t B = s.batch, hc = share(i).hc;
    const Operand2D gz = gate(i, g, 0), gr = gate(i, g, hc),
                    gh = gate(i, g, 2 * hc);
    recurrentProduct(i, 0, gz, full(l.hFull), /*accumulate=*/true);
    if (op.linearBeforeReset)
      recurrentProduct(i, 1, wide(l.aux, hc), full(l.hFull),
                       /*accumulate=*/false);
    if (op.b) {
      emitBinary(e, Opcode::VAdd, gz, gz, biasRow(0, 0), Bcast::Row, B, 2 * hc);
      emitBinary(e, Opcode::VAdd, gz, gz, biasRow(1, 0), Bcast::Row, B, 2 * hc);
    }
    clip(i, gz, 2 * hc);
    emitUnary(e, Opcode::VSigm, gz, gz, B, 2 * hc);
    if (op.linearBeforeReset) {
      const Operand2D lin = wide(l.aux, hc);
      if (op.b)
        emitBinary(e, Opcode::VAdd, lin, lin, biasRow(1, 2 * hc), Bcast::Row, B,
                   hc);
      emitBinary(e, Opcode::VMul, lin, gr, lin, Bcast::None, B, hc);
      emitBinary(e, Opcode::VAdd, gh, gh, lin, Bcast::None, B, hc);
    } else {
      emitBinary(e, Opcode::VMul, narrow(l.aux, hc), gr, wide(l.hWide, hc),
                 Bcast::None, B, hc);
    }
  }

  /// gru from the h gate on (after the r * h exchange when
  /// linear_before_reset = 0): h_t slice -> hWide (f32) and hq.
  void gruUpdate(int64_t i, uint64_t g) {
    ProgramEmitter &e = emitter(i);
    const int64_t B = s.batch, hc = share(i).hc;
    const Operand2D gz = gate(i, g, 0), gh = gate(i, g, 2 * hc);
    if (!op.linearBeforeReset) {
      recurrentProduct(i, 1, gh, full(l.rhFull), /*accumulate=*/true);
      if (op.b)
        emitBinary(e, Opcode::VAdd, gh, gh, biasRow(1, 2 * hc), Bcast::Row, B,
                   hc);
    }
    if (op.b)
      emitBinary(e, Opcode::VAdd, gh, gh, biasRow(0, 2 * hc), Bcast::Row, B,
                 hc);
    clip(i, gh, hc);
    emitUnary(e, Opcode::VTanh, gh, gh, B, hc);
    const Operand2D t0 = wide(l.tmp[0], hc), t1 = wide(l.tmp[1], hc),
                    h = wide(l.hWide, hc);
    emitUnary(e, Opcode::VNeg, t0, gz, B, hc);
    emitScalar(e, Opcode::VsAdd, t0, t0, 1.0f, B, hc);
    emitBinary(e, Opcode::VMul, t0, t0, gh, Bcast::None, B, hc);
    emitBinary(e, Opcode::VMul, t1, gz, h, Bcast::None, B, hc);
    emitBinary(e, Opcode::VAdd, h, t0, t1, Bcast::None, B, hc);
    if (!isF32())
      emitCopy(e, narrow(l.hq, hc), h, B, hc);
  }

  /// After an exchange of h_t: the cores that store Y row (t, d) or Y_h
  /// keep a copy of it.
  void keepRow(int64_t time, int64_t d, bool last) {
    const int64_t row = time * s.dirs + d;
    for (int64_t i = 0; i < l.cores; ++i) {
      const CoreShare &sh = share(i);
      if (row >= sh.yRow0 && row < sh.yRow1)
        emitCopy(
            emitter(i),
            narrow(l.yBuf + uint64_t(row - sh.yRow0) * sliceBytes(), s.hidden),
            full(l.hFull), s.batch, s.hidden);
      if (last && i == l.finalCore)
        emitCopy(emitter(i),
                 narrow(l.yhBuf + uint64_t(d) * sliceBytes(), s.hidden),
                 full(l.hFull), s.batch, s.hidden);
    }
  }

  void emitDirection(int64_t d) {
    direction = d;
    const uint64_t wBase = this->wBase(d), rBase = this->rBase(d);
    for (int64_t i = 0; i < l.cores; ++i)
      setUp(i, d, rBase, wBase);

    struct Chunk {
      int64_t first, steps, tLo;
    };
    SmallVector<Chunk> chunks;
    for (int64_t first = 0, steps = 0; first < s.seq; first += steps) {
      steps = chunkSteps(first);
      chunks.push_back(
          {first, steps,
           std::min(timeIndex(d, first), timeIndex(d, first + steps - 1))});
    }
    // Chunk c's gates in ACC and its steps (from the card before: in SHARED
    // when staged).
    const uint64_t chunkGates =
        uint64_t(streamChunk * s.batch * s.gates * l.block * kF32);
    auto gatesOf = [&](size_t c) {
      return l.gates + (staged || early ? uint64_t(c % 2) * chunkGates : 0);
    };
    auto vrfOf = [&](size_t c) {
      return early ? uint64_t(c % 2) * inputBytes(streamChunk) : 0;
    };
    auto inputOf = [&](size_t c) -> MemRef {
      if (staged)
        return {Space::Shared, shared(l.xStage[c % 2])};
      return {Space::Dram,
              context.addressOf(op.x) +
                  uint64_t(chunks[c].tLo * s.batch * bytes(s.input))};
    };
    // Receives chunk c's steps from the card before (none left: false).
    auto receive = [&](size_t c) {
      if (!in)
        return false;
      std::optional<MemRef> at;
      if (staged)
        at = inputOf(c);
      return in->receiveThrough(emitter(0), chunks[c].tLo + chunks[c].steps,
                                at);
    };
    auto loadInputs = [&](size_t c) {
      for (int64_t i = 0; i < l.cores; ++i)
        loadInput(i, inputOf(c), chunks[c].steps, vrfOf(c));
    };
    auto inputProducts = [&](size_t c) {
      SmallVector<std::unique_ptr<ProgramEmitter::Group>> residentWGroup;
      if (residentW)
        for (int64_t i = 0; i < l.cores; ++i)
          residentWGroup.push_back(std::make_unique<ProgramEmitter::Group>(
              emitter(i),
              MemRegion{Space::Mrf, l.slot[0],
                        l.slot[0] + rTileAddress(share(i).wTiles.size() - 1) +
                            l.tileBytes}));
      for (int64_t i = 0; i < l.cores; ++i)
        inputProduct(i, wBase, vrfOf(c), chunks[c].steps, gatesOf(c));
    };

    // The chunk's steps from the card before, then every core may load
    // them.
    if (receive(0))
      context.cores.barrier();
    loadInputs(0);
    inputProducts(0);
    if (early && chunks.size() > 1)
      loadInputs(1);
    for (size_t c = 0; c < chunks.size(); ++c) {
      const auto [first, steps, tLo] = chunks[c];
      const bool hasNext = c + 1 < chunks.size();
      bool nextReceived = false;
      {
        // The resident R tiles are one buffer during the recurrence (see
        // the single-core kernel); pinned ones are not written by the run.
        SmallVector<std::unique_ptr<ProgramEmitter::Group>> residentR;
        for (int64_t i = 0; i < l.cores && !pinned; ++i)
          residentR.push_back(std::make_unique<ProgramEmitter::Group>(
              emitter(i), MemRegion{Space::Mrf, 0,
                                    rTileAddress(share(i).rTiles.size() - 1) +
                                        l.tileBytes}));

        for (int64_t step = first; step < first + steps; ++step) {
          const int64_t time = timeIndex(d, step);
          const bool last = step == s.seq - 1;
          auto stepGates = [&](int64_t i) {
            return gatesOf(c) + uint64_t((time - tLo) * s.batch * s.gates *
                                         share(i).hc * kF32);
          };
          if (s.gates == 4) {
            for (int64_t i = 0; i < l.cores; ++i)
              lstmStep(i, stepGates(i), last, d);
          } else {
            for (int64_t i = 0; i < l.cores; ++i)
              gruGates(i, stepGates(i));
            if (!op.linearBeforeReset)
              exchange(l.aux, l.rhFull);
            for (int64_t i = 0; i < l.cores; ++i)
              gruUpdate(i, stepGates(i));
          }
          // Staged: the next chunk's steps before the chunk's last
          // exchange, whose barrier orders them before every core's load.
          if (staged && hasNext && step == first + steps - 1)
            nextReceived = receive(c + 1);
          exchange(l.hq, l.hFull);
          keepRow(time, d, last);
          if (out)
            out->sendNext(emitter(0), {Space::Acc, l.hFull});
        }
      }
      if (hasNext) {
        if (!early) {
          if (!nextReceived && receive(c + 1))
            context.cores.barrier();
          loadInputs(c + 1);
        }
        inputProducts(c + 1);
        if (early && c + 2 < chunks.size())
          loadInputs(c + 2);
      }
    }
  }
};

} // namespace

unsigned mlir::nnaccel::npu_lowering::getRnnMaxCores(Operation *operation,
                                                     const TargetDesc &target) {
  const RnnOp op = getRnnOp(operation);
  const RnnShape s = getShape(op);
  // Block-float W and R (accel-quantize-block-float): the column split
  // loads W and R tile by tile from N-column offsets, which are not
  // DRAM-aligned in a block format (9 or 33 bytes a block); such an op runs
  // on one core (RecurrentKernels.cpp loads whole row groups).
  if (s.blockWeights())
    return 1;
  if (!target.macsPerCycle.count(s.format.dtype) || s.hidden < 1 ||
      s.batch < 1 || s.input < 1)
    return 1;
  // Every count up to the result must work: a placement may name fewer.
  unsigned cores = 1;
  while (
      cores < target.coresPerCard &&
      computeLayout(target, op, s, int64_t(cores) + 1, isRnnPinned(operation)))
    ++cores;
  return cores;
}

unsigned
mlir::nnaccel::npu_lowering::getRnnPreferredCores(Operation *operation,
                                                  const TargetDesc &target) {
  const unsigned most = getRnnMaxCores(operation, target);
  if (most < 2)
    return 1;
  const RnnOp op = getRnnOp(operation);
  const RnnShape s = getShape(op);
  // A named array: an ArrayRef of a braced list dangles after the statement.
  static constexpr int64_t allGates[] = {0, 1, 2, 3};
  ArrayRef<int64_t> gates = ArrayRef<int64_t>(allGates).take_front(s.gates);
  double best = estimateCycles(
      target, s, s.hidden,
      makeTiles(s, target.nativeDim, s.hidden, s.hidden, gates),
      makeTiles(s, target.nativeDim, s.hidden, s.input, gates), 1, 0, 0);
  unsigned bestCores = 1;
  for (unsigned cores = 2; cores <= most; ++cores) {
    McLayout l = *computeLayout(target, op, s, cores, isRnnPinned(operation));
    const CoreShare &first = l.shares.front();
    double cycles =
        estimateCycles(target, s, first.hc, first.rTiles, first.wTiles, cores,
                       l.exchangesPerStep, uint64_t(l.cores) * l.slotBytes);
    // Another core must save 3 %.
    if (cycles < 0.97 * best) {
      best = cycles;
      bestCores = cores;
    }
  }
  return bestCores;
}

uint64_t mlir::nnaccel::npu_lowering::getRnnSharedBytes(
    Operation *operation, const TargetDesc &target, unsigned cores) {
  const RnnOp op = getRnnOp(operation);
  std::optional<McLayout> l = computeLayout(
      target, op, getShape(op), int64_t(cores), isRnnPinned(operation));
  return l ? l->sharedBytes : 0;
}

std::optional<SmallVector<uint64_t, 4>>
mlir::nnaccel::npu_lowering::getMultiCoreRnnPinBytes(Operation *operation,
                                                     const TargetDesc &target,
                                                     unsigned cores) {
  // The MRF the kernel sees does not matter: pinned tiles live above it.
  const RnnOp op = getRnnOp(operation);
  const RnnShape s = getShape(op);
  std::optional<McLayout> l = computeLayout(target, op, s, int64_t(cores),
                                            /*pinned=*/true);
  if (!l)
    return std::nullopt;
  SmallVector<uint64_t, 4> bytes;
  for (const CoreShare &share : l->shares)
    bytes.push_back(uint64_t(s.dirs) *
                    uint64_t(share.wTiles.size() + share.rTiles.size()) *
                    l->tileBytes);
  return bytes;
}

LogicalResult
mlir::nnaccel::npu_lowering::emitMultiCoreRnn(Operation *operation,
                                              KernelContext &context) {
  const RnnOp op = getRnnOp(operation);
  if (!computeLayout(context.target, op, getShape(op),
                     int64_t(context.cores.size()),
                     context.pinnedWeight.has_value()))
    return operation->emitOpError()
           << "cannot be shared among " << context.cores.size()
           << " cores (its kernel supports at most "
           << getRnnMaxCores(operation, context.target) << ")";
  if (!context.sharedScratch)
    return operation->emitOpError("needs SHARED scratch for its h exchange");
  MultiCoreRnnEmitter(operation, context).emit();
  return success();
}
