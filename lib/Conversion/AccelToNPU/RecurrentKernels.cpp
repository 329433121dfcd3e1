//===- RecurrentKernels.cpp - LSTM and GRU on the matrix unit and MFUs ----===//
//
// accel.lstm (gate order i, o, f, c) and accel.gru (gate order z, r, h;
// linear_before_reset either way) with ONNX semantics, in f32, f16 or bf16,
// Brainwave-style, on one core (an op placed on several cores goes to
// MultiCoreRecurrentKernel.cpp, which splits the gate columns). Both cells
// share everything but the cell update. Per direction, the time steps are
// processed in chunks whose gate pre-activations (G gates x H columns per
// batch row) fit the accumulator:
//
//   for each chunk of Tc time steps:
//     XW phase: X[chunk] (Tc*B rows, resident in the VRF) times every N x N
//       tile of W (streamed through two MRF slots) -> G[Tc*B x G*H] in ACC;
//       with W and R pinned in the MRF (accel-pin-weights; the core's setup
//       program loads them once per session) it runs in pieces of steps,
//       each piece's products computed during the piece before it
//     load R into the MRF (once per direction when it fits next to the W
//       slots; after every XW phase when it only fits alone; when it does
//       not fit at all, its tiles are streamed through the slots each step)
//     for each step t of the chunk (backwards for the reverse direction):
//       recurrent mm's of h_{t-1} with R (acc=1 onto G_t), biases
//       (v.add bcast=row; block-float W and R: their f32 sum), clip (vs.max /
//       vs.min), gates (v.sigm / v.tanh) and the cell update (below), in
//       chains of two MFU operations for block-float W and R; h_t goes to
//       the next of two ACC slots (four for block-float W and R) and
//       Y[t, d] <- h_t (dma.st) overlaps the next steps; with W pinned,
//       the next piece's XW products go between the step's MFU chains
//       (xwSlot), so the matrix unit computes them beside the gate math
//   Y_h[d] <- h (and Y_c[d] <- c for lstm)
//
// The gru's R is two tile groups (z/r rows, then h rows, whose product needs
// r first). When R_h (row 2H) does not start on a DRAM-aligned address
// (small H such as 3 or 5), its tiles start at the nearest aligned row
// before it instead; the extra leading product columns are discarded.
//
// When a step's B x H slice of Y is not a whole number of DRAM alignment
// units, the per-step stores would be unaligned: Y, Y_h and Y_c are then
// assembled in ACC (each h_t written straight into its Y row, which the
// next step's mm reads) and stored with one DMA each at the end; this needs
// the whole sequence in one chunk.
//
//   lstm: c = f*c + i*c~; h = o*tanh(c)
//   gru:  G_zr += h.R_zr^T; z, r = sigmoid(G_zr + Wb + Rb)
//         linear_before_reset: n = tanh(G_h + r*(h.R_h^T + Rb_h) + Wb_h)
//         else:                n = tanh(G_h + (r*h).R_h^T + Rb_h + Wb_h)
//         h = (1 - z)*n + z*h
//
// Element types: the tensors are read and written in their dtype (DMA bit
// copies); mm takes f16/bf16 activations and weights with f32 accumulation,
// so the gate pre-activations, the lstm cell state and the gru hidden state
// stay in f32 on chip, and only the recurrent mm operand (h, or r*h) and
// the stored results are rounded to the dtype. The host reference computes
// in f32 throughout, so f16/bf16 results differ by that per-step rounding.
//
// In f32 the arithmetic mirrors the host kernels (lib/Runtime/
// HostSequence.cpp): x.W^T is one dotF32 when I <= N, the recurrent product
// is added to it, then the biases in the host's order, so with I, H <= N the
// results are bit-exact; larger I or H split the dot products into
// N-element tiles whose partial sums are accumulated in f32 (a different
// rounding order than one long dotF32, well inside the f32 tolerance).
// Initial states come from the operands or are zero (v.fill). LSTM
// peepholes P*c are added to the i and f gates before their clip and
// sigmoid, and P_o*c' to o after the cell update, as the host does.
//
//===----------------------------------------------------------------------===//

#include "RecurrentKernels.h"

#include "CardKernels.h"
#include "KernelOperands.h"
#include "KernelUtils.h"

#include "Accel/AccelOps.h"

#include <algorithm>
#include <deque>
#include <functional>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
namespace build = ::nnaccel::isa::build;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// At most this many h slots (stateSlots).
constexpr int64_t kMaxStateSlots = 4;

/// Pieces the XW phase of a chunk is split into when W is pinned (see
/// emitDirection): the first piece's X load is the wait before the first
/// step, so more pieces start the recurrence sooner, at one mm per tile of
/// W per piece.
constexpr int64_t kXwPieces = 8;

/// xwSlot calls per step of each cell (the MFU chains a step's pending XW
/// products are spread between).
constexpr int64_t kLstmXwSlots = 4, kGruXwSlots = 3;

/// One N x N (or smaller) tile of R: rows [row, row + rows) of the G*H
/// outputs, columns [col, col + cols) of the H inputs. `block` is the group
/// of output rows one recurrent product covers: all 4H for lstm; z/r and h
/// separately for gru, whose h product needs r first.
struct RTile {
  int block;
  int64_t row, rows, col, cols;
};

/// Output-row blocks of R: [begin, end) rows each. The gru h block starts
/// `hLead` rows before R_h (see RnnLayout::hLead).
SmallVector<std::pair<int64_t, int64_t>, 2> rBlocks(const RnnShape &s,
                                                    int64_t hLead) {
  if (s.gates == 4)
    return {{0, 4 * s.hidden}};
  return {{0, 2 * s.hidden}, {2 * s.hidden - hLead, 3 * s.hidden}};
}

/// The fewest rows of R before R_h (row 2H) at which a gru's h-block tiles
/// can start on a DRAM-aligned address: R_h itself starts 2H*H elements into
/// the direction's slice, which is unaligned for small H (3 or 5 in f32,
/// e.g.), and every tile of the block is offset from that start by whole
/// N-row or N-column steps, so one start row fixes all of them. Row 0 always
/// qualifies (the slice itself is aligned), so the lead is at most 2H.
int64_t gruHLead(const RnnShape &s, int64_t align) {
  int64_t row = 2 * s.hidden;
  while (s.weight.rowBytes(row * s.hidden) % align != 0)
    --row;
  return 2 * s.hidden - row;
}

/// On-chip placement of the kernel.
struct RnnLayout {
  int64_t tile;           // N
  int64_t stepsPerChunk;  // Tc
  int64_t nTiles, iTiles; // tiles of G*H (W outputs) and I (k)
  uint64_t tileBytes;     // one N x N MRF tile in W's format, aligned
  // Block-float W and R: a k tile of a row starts at an unaligned DRAM
  // address (9 or 33 bytes a block), so all k tiles of a row group are
  // loaded by one DMA, a plane per tile; a streaming slot holds a group.
  int64_t groupTiles = 1;
  uint64_t slotBytes = 0;
  std::vector<RTile> rTiles;
  enum RMode { Resident, ReloadPerChunk, Streamed } rMode;
  // gru: R_h's tiles are loaded from hLead rows earlier so that their DRAM
  // sources are aligned; the h-block product then has hLead leading columns
  // (z/r rows' products, discarded) and goes to hProduct, B x (hLead + H)
  // f32 in ACC, instead of straight onto the h gate or aux.
  int64_t hLead = 0;
  uint64_t hProduct = 0;
  uint64_t rBase = 0; // mrf: R tiles (Resident/ReloadPerChunk)
  uint64_t slot[2];   // mrf: streamed W (and R) tiles
  uint64_t xBase = 0; // vrf: X chunk, Tc*B x I
  // acc: gate pre-activations G (Tc*B x G*H, f32), the two bias rows (input
  // and recurrence, op format, biasPitch apart), then B x H state buffers:
  // lstm c (f32); h in the op format (the mm operand and what is stored),
  // stateSlots slots; gru h in f32, stateSlots slots, plus format copies hq
  // when the op is not f32 (else hq = h); tmp scratch; gru aux (r*h or
  // h.R_h^T); the lstm peephole row (3H, op format). Block-float W and R
  // add the bias sum row and the gru's block of ones after the bias rows.
  // ones: the gru's block of ones (0: none, see gruStep).
  uint64_t gates = 0, bias, biasSum, ones, biasPitch, cState = 0,
           h[kMaxStateSlots], hq[kMaxStateSlots], tmp[2], aux = 0, peep = 0,
           end;
  // When a step's B x H slice of Y is not a whole number of DRAM alignment
  // units, Y (S x D x B x H), Y_h and Y_c (D x B x H) are assembled in ACC
  // (op format) and stored once at the end: each h_t is written straight
  // into its Y row, which is also the next step's mm operand. The initial
  // states of all directions are loaded into Y_h / Y_c first.
  bool buffered = false;
  uint64_t yBuf = 0, yhBuf = 0, ycBuf = 0;
};

/// Bytes of one B x H state buffer: f32, whatever the op's format.
uint64_t stateBufferBytes(const RnnShape &s) {
  return alignUp(uint64_t(s.batch * s.hidden * kF32), 64);
}

/// Slots h_t rotates through. A step's h is stored (Y[t]) while the next
/// steps run, and the slot can only be rewritten once that store's data
/// has landed (its bytes plus the DRAM latency: 132 cycles for H = 512 in
/// f32 on brainwave-like). Two slots suffice when a step takes longer than
/// that; block-float steps are short enough to need four.
int64_t stateSlots(const RnnShape &s) { return s.blockWeights() ? 4 : 2; }

int64_t stateBufferCount(const RnnShape &s) {
  const int64_t slots = stateSlots(s);
  if (s.gates == 4)
    return 3 + slots; // c, h[slots], tmp[2]
  // h[slots], tmp[2], aux (, hq[slots])
  return 3 + (s.format == kF32Format ? slots : 2 * slots);
}

/// Bytes of a B x H slice of Y, Y_h or an initial state in the op's format.
int64_t stepSliceBytes(const RnnShape &s) {
  return s.batch * s.format.rowBytes(s.hidden);
}

std::optional<RnnLayout> computeLayout(const TargetDesc &target,
                                       const RnnShape &s) {
  const ElementFormat f = s.format;
  RnnLayout l;
  const int64_t slice = stepSliceBytes(s);
  l.buffered = slice % int64_t(target.memory(Space::Dram).align) != 0 &&
               !(s.seq == 1 && s.dirs == 1);
  l.tile = target.nativeDim;
  if (s.gates == 3)
    l.hLead = gruHLead(s, int64_t(target.memory(Space::Dram).align));
  l.nTiles = (s.gateCols() + l.tile - 1) / l.tile;
  l.iTiles = (s.input + l.tile - 1) / l.tile;
  l.tileBytes = alignUp(uint64_t(l.tile * s.weight.rowBytes(l.tile)),
                        target.memory(Space::Mrf).align);
  l.groupTiles = s.blockWeights()
                     ? std::max(l.iTiles, (s.hidden + l.tile - 1) / l.tile)
                     : 1;
  l.slotBytes = uint64_t(l.groupTiles) * l.tileBytes;
  for (auto [index, block] : llvm::enumerate(rBlocks(s, l.hLead)))
    for (int64_t row = block.first; row < block.second; row += l.tile)
      for (int64_t col = 0; col < s.hidden; col += l.tile)
        l.rTiles.push_back({static_cast<int>(index), row,
                            std::min(l.tile, block.second - row), col,
                            std::min(l.tile, s.hidden - col)});
  uint64_t mrfBytes = target.memory(Space::Mrf).bytes;
  uint64_t rBytes = uint64_t(l.rTiles.size()) * l.tileBytes;
  if (2 * l.slotBytes > mrfBytes)
    return std::nullopt;
  if (rBytes + 2 * l.slotBytes <= mrfBytes) {
    l.rMode = RnnLayout::Resident;
    l.slot[0] = rBytes;
    l.slot[1] = rBytes + l.slotBytes;
  } else {
    l.rMode =
        rBytes <= mrfBytes ? RnnLayout::ReloadPerChunk : RnnLayout::Streamed;
    l.slot[0] = 0;
    l.slot[1] = l.slotBytes;
  }

  // Fixed ACC state after the gate chunk; the chunk gets the rest.
  l.biasPitch = alignUp(uint64_t(f.rowBytes(s.gateCols())),
                        target.memory(Space::Acc).align);
  const uint64_t state = stateBufferBytes(s);
  // Block-float W and R: the two biases' f32 sum (see sumsBias) follows
  // them, and for gru a B x H block of ones (see gruStep).
  const uint64_t biasBytes =
      alignUp(2 * l.biasPitch, 64) +
      (s.blockWeights() ? alignUp(uint64_t(s.gateCols() * kF32), 64) +
                              (s.gates == 3 ? state : 0)
                        : 0);
  const uint64_t peepBytes =
      s.peepholes ? alignUp(uint64_t(f.rowBytes(3 * s.hidden)), 64) : 0;
  const uint64_t yBytes =
      l.buffered ? alignUp(uint64_t(s.seq * s.dirs * slice), 64) : 0;
  const uint64_t finalBytes =
      l.buffered ? alignUp(uint64_t(s.dirs * slice), 64) : 0;
  const int finalStates = s.gates == 4 ? 2 : 1;
  const uint64_t hProductBytes =
      l.hLead ? alignUp(uint64_t(s.batch * (l.hLead + s.hidden) * kF32), 64)
              : 0;
  uint64_t fixed = biasBytes + uint64_t(stateBufferCount(s)) * state +
                   peepBytes + yBytes + finalStates * finalBytes +
                   hProductBytes;
  uint64_t accBytes = target.memory(Space::Acc).bytes;
  uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  if (fixed >= accBytes)
    return std::nullopt;
  uint64_t stepGates = uint64_t(s.batch * s.gateCols() * kF32);
  uint64_t stepX = uint64_t(s.batch * f.rowBytes(s.input));
  l.stepsPerChunk = std::min<int64_t>(
      {s.seq, static_cast<int64_t>((accBytes - fixed) / stepGates),
       static_cast<int64_t>(vrfBytes / stepX), kMaxDmaYZ / s.batch,
       kMaxCount / s.batch});
  if (l.stepsPerChunk < 1)
    return std::nullopt;
  l.bias = alignUp(uint64_t(l.stepsPerChunk) * stepGates, 64);
  l.biasSum = l.bias + alignUp(2 * l.biasPitch, 64);
  l.ones = s.blockWeights() && s.gates == 3
               ? l.biasSum + alignUp(uint64_t(s.gateCols() * kF32), 64)
               : 0;
  uint64_t cursor = l.bias + biasBytes;
  auto take = [&] {
    uint64_t at = cursor;
    cursor += state;
    return at;
  };
  if (s.gates == 4) {
    l.cState = take();
    for (int64_t i = 0; i < stateSlots(s); ++i)
      l.h[i] = l.hq[i] = take();
    l.tmp[0] = take();
    l.tmp[1] = take();
  } else {
    for (int64_t i = 0; i < stateSlots(s); ++i)
      l.h[i] = take();
    l.tmp[0] = take();
    l.tmp[1] = take();
    l.aux = take();
    bool wide = s.format == kF32Format;
    for (int64_t i = 0; i < stateSlots(s); ++i)
      l.hq[i] = wide ? l.h[i] : take();
  }
  l.hProduct = cursor;
  l.peep = l.hProduct + hProductBytes;
  l.yBuf = l.peep + peepBytes;
  l.yhBuf = l.yBuf + yBytes;
  l.ycBuf = l.yhBuf + finalBytes;
  l.end = l.yhBuf + finalStates * finalBytes;
  return l;
}

/// Block-float W: zero rows after each plane of `rows` rows (one k tile,
/// N elements a row) that make the planes MRF-aligned; nullopt if the DMA's
/// pad field cannot.
std::optional<int64_t> planePad(const TargetDesc &target, const RnnShape &s,
                                int64_t rows) {
  const int64_t rowBytes = s.weight.rowBytes(target.nativeDim);
  const int64_t align = int64_t(target.memory(Space::Mrf).align);
  for (int64_t pad = 0; pad <= kMaxDmaPad; ++pad)
    if ((rows + pad) * rowBytes % align == 0)
      return pad;
  return std::nullopt;
}

LogicalResult checkRnn(Operation *operation, const TargetDesc &target,
                       std::string &reason) {
  RnnOp op = getRnnOp(operation);
  RnnShape s = getShape(op);
  // Block-float W and R (accel-quantize-block-float) aside, every operand
  // and result is in the op's float type.
  SmallVector<Type> floats;
  for (Value operand : operation->getOperands())
    if (!s.blockWeights() || (operand != op.w && operand != op.r))
      floats.push_back(operand.getType());
  if (!allCardFloat(floats, op.name, reason) ||
      !allCardFloat(operation->getResultTypes(), op.name, reason))
    return failure();
  auto sameFormat = [&](Type type) {
    return getElementFormat(type) == std::optional<ElementFormat>(s.format);
  };
  if (s.blockWeights() && getElementDType(op.r.getType()) !=
                              std::optional<::nnaccel::DType>(s.weight.dtype)) {
    reason = (op.name + " with W and R in different formats is not lowered "
                        "to the card")
                 .str();
    return failure();
  }
  if (!llvm::all_of(floats, sameFormat) ||
      !llvm::all_of(operation->getResultTypes(), sameFormat)) {
    reason = (op.name + " with mixed element types is not lowered to the "
                        "card")
                 .str();
    return failure();
  }
  if (!target.macsPerCycle.count(s.weight.dtype)) {
    reason = "the target's matrix unit has no " +
             std::string(::nnaccel::isa::dtypeName(s.weight.dtype)) + " mode";
    return failure();
  }
  if (s.seq < 1 || s.batch < 1 || s.input < 1 || s.hidden < 1) {
    reason = (op.name + " with an empty dimension stays on the host").str();
    return failure();
  }
  // Row pitches of the gate block (f32) and X rows are 16-bit byte counts.
  if (s.gateCols() * kF32 > kMaxPitch ||
      s.format.rowBytes(s.input) > kMaxPitch || s.batch > kMaxDmaYZ) {
    reason = (op.name + " rows are wider than the 64 KiB pitch (hidden_size " +
              std::to_string(s.hidden) + ", input " + std::to_string(s.input) +
              ") or the batch exceeds 4095")
                 .str();
    return failure();
  }
  std::optional<RnnLayout> layout = computeLayout(target, s);
  if (!layout) {
    reason = ("the " + op.name +
              " state and one time step's gates do not fit the on-chip "
              "memories")
                 .str();
    return failure();
  }
  const RnnLayout &l = *layout;
  // Every DRAM operand base the kernel addresses must be aligned: per
  // direction slices of W, R, B, P and (unless buffered) the states, per
  // step slices of Y (unless buffered) and, when X is chunked, chunk starts
  // of X. (Tiles inside a direction's W and R start N rows or columns
  // apart, and the gru's R_h tiles from an aligned row: see gruHLead.)
  const ElementFormat f = s.format, wf = s.weight;
  uint64_t align = target.memory(Space::Dram).align;
  auto aligned = [&](int64_t size) { return size % int64_t(align) == 0; };
  if (s.blockWeights()) {
    // Blocks along I and H; k tiles of whole blocks; a row group's k tiles
    // loaded by one DMA from an aligned row start into planes of one tile
    // slot each (see RnnLayout::groupTiles).
    const int64_t block = int64_t(::nnaccel::blockElements(wf.dtype));
    const int64_t n = l.tile;
    const std::string name(::nnaccel::isa::dtypeName(wf.dtype));
    auto fail = [&](const std::string &why) {
      reason = op.name.str() + " with " + name + " W and R: " + why;
      return failure();
    };
    if (s.input % block || s.hidden % block || n % block)
      return fail("the input size (" + std::to_string(s.input) +
                  "), hidden_size (" + std::to_string(s.hidden) +
                  ") and native dimension (" + std::to_string(n) +
                  ") must be multiples of the block size " +
                  std::to_string(block));
    if ((s.input > n && s.input % n) || (s.hidden > n && s.hidden % n))
      return fail("an input size or hidden_size above the native dimension " +
                  std::to_string(n) +
                  " must be a multiple of it (a partial k tile would start "
                  "at an unaligned DRAM address)");
    if ((s.gateCols() > n && (!aligned(n * wf.rowBytes(s.input)) ||
                              !aligned(n * wf.rowBytes(s.hidden)))) ||
        uint64_t(n * wf.rowBytes(n)) != l.tileBytes)
      return fail("its row groups would start at unaligned DRAM or MRF "
                  "addresses");
    if (s.hidden > n && l.hLead)
      return fail("the gru's R_h does not start at an aligned DRAM address");
    // A partial W row group with several k tiles: zero rows (pb) pad each
    // plane to an MRF-aligned size.
    const int64_t partial = s.gateCols() % n;
    if (l.iTiles > 1 && partial && !planePad(target, s, partial))
      return fail("the planes of the last W row group (" +
                  std::to_string(partial) +
                  " rows) cannot be padded to MRF-aligned sizes");
  }
  if (layout->buffered) {
    // Y, Y_h and Y_c are assembled on chip: the whole sequence must be one
    // chunk, and the per-step rows in ACC aligned.
    const int64_t slice = stepSliceBytes(s);
    if (layout->stepsPerChunk < s.seq || s.seq * s.dirs > kMaxDmaYZ) {
      reason =
          ("a step of this " + op.name +
           "'s output (batch * "
           "hidden_size * " +
           std::to_string(f.elementBytes()) + " = " + std::to_string(slice) +
           " bytes) is not a multiple of " + std::to_string(align) +
           " bytes, so Y is assembled on chip, but the whole sequence "
           "does not fit the on-chip memories")
              .str();
      return failure();
    }
    if (slice % int64_t(target.memory(Space::Acc).align) != 0) {
      reason =
          ("a step of this " + op.name + "'s output (" + std::to_string(slice) +
           " bytes) is not a multiple of the accumulator alignment")
              .str();
      return failure();
    }
  }
  bool ok = true;
  if (s.dirs == 2)
    ok = aligned(s.gateCols() * wf.rowBytes(s.input)) &&
         aligned(s.gateCols() * wf.rowBytes(s.hidden)) &&
         aligned(f.rowBytes(2 * s.gateCols())) &&
         (!s.peepholes || aligned(f.rowBytes(3 * s.hidden)));
  if (layout->stepsPerChunk < s.seq)
    ok = ok && aligned(s.batch * f.rowBytes(s.input));
  if (!ok) {
    reason = ("the backward direction's W, R, B or P slice, or a chunk of "
              "X, of this " +
              op.name +
              " would start at an unaligned DRAM address (the slices' bytes "
              "must be multiples of " +
              std::to_string(align) + ")")
                 .str();
    return failure();
  }
  return success();
}

/// MRF bytes of one direction's W and R tiles when they are pinned
/// (accel-pin-weights): W's row groups (iTiles slots each), then R's tiles
/// where a resident R has them.
uint64_t pinnedDirectionBytes(const RnnLayout &l) {
  return uint64_t(l.nTiles * l.iTiles) * l.tileBytes +
         uint64_t(l.rTiles.size()) * l.tileBytes;
}

class RnnEmitter {
public:
  RnnEmitter(Operation *operation, KernelContext &context)
      : op(getRnnOp(operation)), context(context), emitter(context.emitter),
        s(getShape(op)), l(*computeLayout(context.target, s)),
        pinned(context.pinnedWeight), loads(&context.emitter), rMrf(l.rBase) {}

  void emit() {
    if (pinned) {
      // Pinned W and R: the core's setup program loads every direction's
      // tiles once per session; the runs multiply from them.
      assert(context.setup() && "pinned weights need the setup program");
      loads = context.setup();
      for (int64_t d = 0; d < s.dirs; ++d) {
        for (int64_t j = 0; j < l.nTiles; ++j) {
          const int64_t nt = std::min(l.tile, s.gateCols() - j * l.tile);
          // Block-float: the row group's k tiles in one DMA (see loadTile);
          // else tile by tile, each in its slot.
          if (s.blockWeights()) {
            loadTile(wBase(d), s.input, j * l.tile, nt, 0,
                     std::min(l.tile, s.input), pinnedW(d, j), l.iTiles);
            continue;
          }
          for (int64_t t = 0; t < l.iTiles; ++t)
            loadTile(wBase(d), s.input, j * l.tile, nt, t * l.tile,
                     std::min(l.tile, s.input - t * l.tile),
                     pinnedW(d, j) + uint64_t(t) * l.tileBytes);
        }
        rMrf = pinnedR(d);
        loadAllR(rBase(d));
      }
      loads = &emitter;
    }
    if (l.buffered) {
      if (op.initialH)
        loadAllDirections(op.initialH, l.yhBuf);
      if (op.initialC)
        loadAllDirections(op.initialC, l.ycBuf);
    }
    for (int64_t d = 0; d < s.dirs; ++d)
      emitDirection(d);
    if (l.buffered) {
      storeAll(op.y, l.yBuf, s.seq * s.dirs);
      storeAll(op.yH, l.yhBuf, s.dirs);
      if (op.yC)
        storeAll(op.yC, l.ycBuf, s.dirs);
    }
  }

private:
  RnnOp op;
  KernelContext &context;
  ProgramEmitter &emitter;
  RnnShape s;
  RnnLayout l;
  // W and R pinned in the MRF across runs: their base there.
  std::optional<uint64_t> pinned;
  ProgramEmitter *loads;  // where loadTile emits: the run, or the setup
  uint64_t rMrf;          // the current direction's resident R tiles
  int64_t streamed = 0;   // MRF slot alternation
  uint64_t groupSlot = 0; // block-float R streamed: the current row group
  // The next XW piece's products (pinned W), emitted a few at a time at the
  // current piece's xwSlots: the matrix unit computes them while the MFUs
  // do the gate math (the ex queue's units overlap, docs/emulator.md §4).
  std::deque<std::function<void()>> pendingXw;
  int64_t xwPerSlot = 0;

  bool isF32() const { return s.format == kF32Format; }
  /// Bytes of `n` consecutive elements in the op's format.
  int64_t bytes(int64_t n) const { return s.format.rowBytes(n); }
  /// Bytes of one direction's (or step's) B x H slice in DRAM.
  uint64_t stateBytes() const { return uint64_t(stepSliceBytes(s)); }
  int64_t gatePitch() const { return s.gateCols() * kF32; }
  int64_t timeIndex(int64_t d, int64_t step) const {
    bool backwards = s.reverseOnly || d == 1;
    return backwards ? s.seq - 1 - step : step;
  }

  // Operand views in ACC (every vector instruction covers the B batch
  // rows): column `col` of the gates of a step at `g` (f32), a B x H state
  // buffer in f32 or in the op's format, one bias row (0 input, 1
  // recurrence) or the peephole row from column `col`.
  Operand2D gate(uint64_t g, int64_t col) const {
    return Operand2D{Space::Acc, g, gatePitch(), kF32Format}.at(0, col);
  }
  Operand2D wide(uint64_t at) const {
    return denseOperand(Space::Acc, at, s.hidden);
  }
  Operand2D narrow(uint64_t at) const {
    return denseOperand(Space::Acc, at, s.hidden, s.format);
  }
  Operand2D biasRow(int which, int64_t col) const {
    return Operand2D{Space::Acc, l.bias, int64_t(l.biasPitch), s.format}.at(
        which, col);
  }
  /// The f32 sum Wb + Rb the steps add when sumsBias (from column col).
  Operand2D biasSumRow(int64_t col) const {
    return denseOperand(Space::Acc, l.biasSum, s.gateCols()).at(0, col);
  }
  /// Block-float W and R: a step adds the biases' f32 sum Wb + Rb, one
  /// vector addition instead of two (the h gate of a linear_before_reset
  /// gru keeps Rb inside the reset product and adds Wb alone); the host's
  /// block kernels add in that order (lib/Runtime/HostSequence.cpp).
  bool sumsBias() const { return s.blockWeights() && op.b; }
  /// Block-float recurrences chain pairs of a step's MFU operations
  /// (docs/isa.md §5): a chain occupies the MFUs for its slowest member,
  /// the two one by one for both, so a pair on H elements saves
  /// H / vector_lanes cycles; the results are bit for bit the same.
  /// Needs two MFU stages; clipping would put its own operations between.
  bool chainsGates() const {
    return s.blockWeights() && !op.clip && context.target.mfuCount >= 2 &&
           context.target.maxChainLength >= 2;
  }
  /// block = act(clip(block + bias row)) over `cols` columns: one chain
  /// when chainsGates.
  void biasThen(Opcode act, const Operand2D &block, const Operand2D &bias,
                int64_t cols) {
    if (chainsGates()) {
      emitBinary(emitter, Opcode::VAdd, chainOperand(cols), block, bias,
                 Bcast::Row, s.batch, cols);
      emitUnary(emitter, act, block, chainOperand(cols), s.batch, cols);
      return;
    }
    emitBinary(emitter, Opcode::VAdd, block, block, bias, Bcast::Row, s.batch,
               cols);
    clip(block, cols);
    emitUnary(emitter, act, block, block, s.batch, cols);
  }
  /// A point in a step between two MFU chains where xwPerSlot of the
  /// pending XW products go (see pendingXw).
  void xwSlot() {
    for (int64_t i = 0; i < xwPerSlot && !pendingXw.empty(); ++i) {
      pendingXw.front()();
      pendingXw.pop_front();
    }
  }
  /// Emits the pending XW products that are left.
  void drainXw() {
    xwPerSlot = int64_t(pendingXw.size());
    xwSlot();
  }
  /// xwSlot calls a step makes (lstmStep, gruStep).
  int64_t xwSlotsPerStep() const {
    return op.cell == Cell::Lstm ? kLstmXwSlots : kGruXwSlots;
  }

  Operand2D peepholeRow(int64_t col) const {
    return denseOperand(Space::Acc, l.peep, 3 * s.hidden, s.format).at(0, col);
  }

  /// Bytes of `n` consecutive elements of a W or R row.
  int64_t wbytes(int64_t n) const { return s.weight.rowBytes(n); }

  /// Loads rows [row, row + rows) x columns [col, col + cols) of a
  /// [G*H x k] matrix (direction slice at `base`) into MRF at `dst`; with
  /// `count` > 1 (block-float weights), that many consecutive k tiles of N
  /// columns, one plane of `rows` rows (plus planePad zero rows) each.
  void loadTile(uint64_t base, int64_t k, int64_t row, int64_t rows,
                int64_t col, int64_t cols, uint64_t dst, int64_t count = 1) {
    DmaLoad load;
    load.dst = {Space::Mrf, dst};
    load.src = {Space::Dram, base + uint64_t(row * wbytes(k) + wbytes(col))};
    load.format = s.weight;
    load.x = cols;
    load.y = rows;
    load.sy = wbytes(k);
    if (count > 1) {
      load.z = count;
      load.sz = wbytes(l.tile);
      load.pb = *planePad(context.target, s, rows);
    }
    emitLoad(*loads, load);
  }

  /// MRF bytes between the planes of a row group of `rows` rows.
  uint64_t planeBytes(int64_t rows) const {
    return uint64_t((rows + *planePad(context.target, s, rows)) *
                    wbytes(l.tile));
  }

  uint64_t rTileAddress(size_t index) const {
    return rMrf + uint64_t(index) * l.tileBytes;
  }

  uint64_t wBase(int64_t d) const {
    return context.addressOf(op.w) +
           uint64_t(d * s.gateCols() * wbytes(s.input));
  }
  uint64_t rBase(int64_t d) const {
    return context.addressOf(op.r) +
           uint64_t(d * s.gateCols() * wbytes(s.hidden));
  }
  /// Pinned: direction d's W row group j (its k tiles in consecutive
  /// slots), and its R tiles.
  uint64_t pinnedW(int64_t d, int64_t j) const {
    return *pinned + uint64_t(d) * pinnedDirectionBytes(l) +
           uint64_t(j * l.iTiles) * l.tileBytes;
  }
  uint64_t pinnedR(int64_t d) const {
    return *pinned + uint64_t(d) * pinnedDirectionBytes(l) +
           uint64_t(l.nTiles * l.iTiles) * l.tileBytes;
  }

  void loadAllR(uint64_t rBase) {
    const int64_t hTiles = (s.hidden + l.tile - 1) / l.tile;
    for (auto [index, tile] : llvm::enumerate(l.rTiles)) {
      // Block-float R: a row group's k tiles in one DMA (full N-row groups,
      // whose planes are tile slots: checkRnn).
      if (s.blockWeights() && tile.col > 0)
        continue;
      loadTile(rBase, s.hidden, tile.row, tile.rows, tile.col, tile.cols,
               rTileAddress(index), s.blockWeights() ? hTiles : 1);
    }
  }

  /// dst[rows x n] (+)= a[rows x k] . w^T, dst f32 in ACC, `a` and the
  /// n x k tile at `w` in the MRF in the op's format.
  void mm(const Operand2D &dst, const Operand2D &a, uint64_t w, int64_t rows,
          int64_t k, int64_t n, bool accumulate) {
    emitMm(emitter, dst, a, denseOperand(Space::Mrf, w, k, s.weight), rows, k,
           n, accumulate);
  }

  /// Clamps `cols` columns of `block` to [-clip, clip] when the op clips.
  void clip(const Operand2D &block, int64_t cols) {
    if (!op.clip)
      return;
    emitScalar(emitter, Opcode::VsMax, block, block, -*op.clip, s.batch, cols);
    emitScalar(emitter, Opcode::VsMin, block, block, *op.clip, s.batch, cols);
  }

  /// Direction d's B x H slice of `value` into `dst` (the op's format), or
  /// zeros in `dst`'s format when the op has no such operand.
  void loadOrFill(Value value, int64_t d, const Operand2D &dst) {
    if (!value) {
      emitFill(emitter, dst, s.batch, s.hidden);
      return;
    }
    DmaLoad load;
    load.dst = dst.ref();
    load.src = {Space::Dram,
                context.addressOf(value) + uint64_t(d) * stateBytes()};
    load.format = s.format;
    load.x = s.hidden;
    load.y = s.batch;
    load.dpitch = dst.pitch;
    emitLoad(emitter, load);
  }

  /// An f32 state at `dst` from direction d's slice of `value` (or zeros),
  /// widened through `staging` (a buffer in the op's format) unless f32.
  void initWide(Value value, int64_t d, uint64_t dst, uint64_t staging) {
    if (isF32()) {
      loadOrFill(value, d, wide(dst));
      return;
    }
    loadOrFill(value, d, narrow(staging));
    emitCopy(emitter, wide(dst), narrow(staging), s.batch, s.hidden);
  }

  /// Loads `value` ([D x B x H]) whole into ACC at `dst`.
  void loadAllDirections(Value value, uint64_t dst) {
    DmaLoad load;
    load.dst = {Space::Acc, dst};
    load.src = {Space::Dram, context.addressOf(value)};
    load.format = s.format;
    load.x = s.hidden;
    load.y = s.dirs * s.batch;
    emitLoad(emitter, load);
  }

  /// Stores `slices` B x H slices, dense in ACC at `src`, to `value`.
  void storeAll(Value value, uint64_t src, int64_t slices) {
    DmaStore store;
    store.dst = {Space::Dram, context.addressOf(value)};
    store.src = {Space::Acc, src};
    store.format = s.format;
    store.x = s.hidden;
    store.y = s.batch;
    store.z = slices;
    store.dz = int64_t(stateBytes());
    emitStore(emitter, store);
  }

  /// dst = src, converting between f32 and the op's format when they differ.
  void copy(const Operand2D &dst, const Operand2D &src) {
    emitCopy(emitter, dst, src, s.batch, s.hidden);
  }

  /// Stores the B x H block `src` (the op's format) to `value` at `offset`.
  void store(Value value, uint64_t offset, uint64_t src) {
    DmaStore store;
    store.dst = {Space::Dram, context.addressOf(value) + offset};
    store.src = {Space::Acc, src};
    store.format = s.format;
    store.x = s.hidden;
    store.y = s.batch;
    emitStore(emitter, store);
  }

  /// Stores the f32 state at `src`, narrowed through `staging` unless f32.
  void storeWide(Value value, uint64_t offset, uint64_t src, uint64_t staging) {
    if (isF32()) {
      store(value, offset, src);
      return;
    }
    copy(narrow(staging), wide(src));
    store(value, offset, staging);
  }

  /// dst (+)= a . R_block^T for R's output-row block `block`, tile by tile;
  /// dst covers the block's columns (`dst` is its first column), `a` is a
  /// B x H operand in the op's format. The first k tile overwrites unless
  /// `accumulate`. Resident R tiles are read where loadAllR put them
  /// (tracked as one buffer: see the Group in emitDirection); otherwise
  /// each tile is streamed through the MRF slots.
  void recurrentProduct(int block, const Operand2D &dst, const Operand2D &a,
                        uint64_t rBase, bool accumulate) {
    const int64_t blockRow = rBlocks(s, l.hLead)[block].first;
    for (auto [index, tile] : llvm::enumerate(l.rTiles)) {
      if (tile.block != block)
        continue;
      uint64_t w = rTileAddress(index);
      if (l.rMode == RnnLayout::Streamed && s.blockWeights() && !pinned) {
        // The row group's k tiles, loaded together at its first.
        if (tile.col == 0) {
          groupSlot = l.slot[streamed++ % 2];
          loadTile(rBase, s.hidden, tile.row, tile.rows, 0, tile.cols,
                   groupSlot, (s.hidden + l.tile - 1) / l.tile);
        }
        w = groupSlot +
            (tile.col ? uint64_t(tile.col / l.tile) * planeBytes(tile.rows)
                      : 0);
      } else if (l.rMode == RnnLayout::Streamed && !pinned) {
        w = l.slot[streamed++ % 2];
        loadTile(rBase, s.hidden, tile.row, tile.rows, tile.col, tile.cols, w);
      }
      mm(dst.at(0, tile.row - blockRow), a.at(0, tile.col), w, s.batch,
         tile.cols, tile.rows, accumulate || tile.col > 0);
    }
  }

  /// Where a step finds h_{t-1} and puts h_t: in the op's format (`q`,
  /// the mm operand and what is stored) and, for gru, in f32.
  struct StepState {
    uint64_t qPrev, qNext, widePrev, wideNext;
  };

  /// G_t's gates += h_{t-1}.R^T, biases, the lstm cell; h_t -> qNext.
  void lstmStep(uint64_t g, const StepState &h, uint64_t rBase) {
    const int64_t B = s.batch, H = s.hidden, cols4 = 4 * H;
    recurrentProduct(0, gate(g, 0), narrow(h.qPrev), rBase,
                     /*accumulate=*/true);
    if (chainsGates() && !op.peepholes) {
      // Gate blocks i, o, f [0, 3H) and c~ [3H, 4H); the products' sums in
      // the other order, the same f32 additions.
      const Operand2D gi = gate(g, 0), go = gate(g, H), gf = gate(g, 2 * H),
                      gc = gate(g, 3 * H), c = wide(l.cState),
                      t0 = wide(l.tmp[0]), chain = chainOperand(H);
      if (sumsBias()) {
        biasThen(Opcode::VSigm, gi, biasSumRow(0), 3 * H);
        xwSlot();
        biasThen(Opcode::VTanh, gc, biasSumRow(3 * H), H);
      } else {
        emitUnary(emitter, Opcode::VSigm, gi, gi, B, 3 * H);
        xwSlot();
        emitUnary(emitter, Opcode::VTanh, gc, gc, B, H);
      }
      xwSlot();
      // c = i*c~ + f*c; h = tanh(c) * o.
      emitBinary(emitter, Opcode::VMul, t0, gf, c, Bcast::None, B, H);
      xwSlot();
      emitBinary(emitter, Opcode::VMul, chain, gi, gc, Bcast::None, B, H);
      emitBinary(emitter, Opcode::VAdd, c, chain, t0, Bcast::None, B, H);
      xwSlot();
      emitUnary(emitter, Opcode::VTanh, chain, c, B, H);
      emitBinary(emitter, Opcode::VMul, narrow(h.qNext), chain, go, Bcast::None,
                 B, H);
      return;
    }
    if (sumsBias())
      emitBinary(emitter, Opcode::VAdd, gate(g, 0), gate(g, 0), biasSumRow(0),
                 Bcast::Row, B, cols4);
    else if (op.b) {
      emitBinary(emitter, Opcode::VAdd, gate(g, 0), gate(g, 0), biasRow(0, 0),
                 Bcast::Row, B, cols4);
      emitBinary(emitter, Opcode::VAdd, gate(g, 0), gate(g, 0), biasRow(1, 0),
                 Bcast::Row, B, cols4);
    }
    // Gate blocks: i [0, H), o [H, 2H), f [2H, 3H), c~ [3H, 4H).
    const Operand2D gi = gate(g, 0), go = gate(g, H), gf = gate(g, 2 * H),
                    gc = gate(g, 3 * H), c = wide(l.cState),
                    t0 = wide(l.tmp[0]), t1 = wide(l.tmp[1]);
    // Peepholes (P blocks i, o, f) add P*c to a gate before its clip, as
    // the host: i and f with the old c here, o with the new c below.
    auto addPeephole = [&](const Operand2D &gateBlock, int64_t pCol) {
      emitBinary(emitter, Opcode::VMul, t0, c, peepholeRow(pCol), Bcast::Row, B,
                 H);
      emitBinary(emitter, Opcode::VAdd, gateBlock, gateBlock, t0, Bcast::None,
                 B, H);
    };
    if (op.peepholes) {
      addPeephole(gi, 0);
      addPeephole(gf, 2 * H);
      clip(gi, H);
      clip(gf, 2 * H); // f and c~
      emitUnary(emitter, Opcode::VSigm, gi, gi, B, H);
      emitUnary(emitter, Opcode::VSigm, gf, gf, B, H);
    } else {
      clip(gate(g, 0), cols4);
      emitUnary(emitter, Opcode::VSigm, gi, gi, B, 3 * H); // i, o, f
    }
    xwSlot();
    emitUnary(emitter, Opcode::VTanh, gc, gc, B, H);
    xwSlot();
    // c = f*c + i*c~ (two rounded products, then the sum, as the host).
    emitBinary(emitter, Opcode::VMul, t0, gf, c, Bcast::None, B, H);
    xwSlot();
    emitBinary(emitter, Opcode::VMul, t1, gi, gc, Bcast::None, B, H);
    emitBinary(emitter, Opcode::VAdd, c, t0, t1, Bcast::None, B, H);
    xwSlot();
    if (op.peepholes) {
      addPeephole(go, H);
      clip(go, H);
      emitUnary(emitter, Opcode::VSigm, go, go, B, H);
    }
    // h = o * tanh(c), rounded to the op's format once.
    emitUnary(emitter, Opcode::VTanh, t0, c, B, H);
    emitBinary(emitter, Opcode::VMul, narrow(h.qNext), go, t0, Bcast::None, B,
               H);
  }

  /// The gru cell for G_t; h_t -> wideNext (f32) and qNext.
  void gruStep(uint64_t g, const StepState &h, uint64_t rBase) {
    const int64_t B = s.batch, H = s.hidden;
    const Operand2D hPrevQ = narrow(h.qPrev), hPrev = wide(h.widePrev);
    const Operand2D gz = gate(g, 0), gr = gate(g, H), gh = gate(g, 2 * H);
    // Host order: x.W^T + h.R^T, then Wb, then Rb (block-float W and R:
    // then Wb + Rb, see sumsBias).
    recurrentProduct(0, gz, hPrevQ, rBase, /*accumulate=*/true);
    // The h block's product (h.R_h^T or (r*h).R_h^T) in f32, at `lin` after
    // hLead discarded columns; without a lead, linear_before_reset puts it
    // in aux (which otherwise holds r*h, the product's operand).
    const Operand2D product =
        l.hLead ? denseOperand(Space::Acc, l.hProduct, l.hLead + H)
                : wide(l.aux);
    const Operand2D lin = product.at(0, l.hLead);
    auto hProduct = [&](const Operand2D &a) {
      recurrentProduct(1, product, a, rBase, /*accumulate=*/false);
    };
    if (op.linearBeforeReset)
      hProduct(hPrevQ);
    if (sumsBias()) {
      biasThen(Opcode::VSigm, gz, biasSumRow(0), 2 * H);
    } else {
      if (op.b) {
        emitBinary(emitter, Opcode::VAdd, gz, gz, biasRow(0, 0), Bcast::Row, B,
                   2 * H);
        emitBinary(emitter, Opcode::VAdd, gz, gz, biasRow(1, 0), Bcast::Row, B,
                   2 * H);
      }
      clip(gz, 2 * H);
      emitUnary(emitter, Opcode::VSigm, gz, gz, B, 2 * H);
    }
    xwSlot();
    // n's last bias addition, its clip and tanh (biasThen), unless it has
    // no bias.
    bool activated = false;
    if (op.linearBeforeReset) {
      // n = x.W_h^T + r * (h.R_h^T + Rb_h), then + Wb_h.
      if (op.b)
        emitBinary(emitter, Opcode::VAdd, lin, lin, biasRow(1, 2 * H),
                   Bcast::Row, B, H);
      emitBinary(emitter, Opcode::VMul, lin, gr, lin, Bcast::None, B, H);
      emitBinary(emitter, Opcode::VAdd, gh, gh, lin, Bcast::None, B, H);
      if (op.b) {
        biasThen(Opcode::VTanh, gh, biasRow(0, 2 * H), H);
        activated = true;
      }
    } else {
      // n = x.W_h^T + (r * h).R_h^T, then + Rb_h.
      const Operand2D rh = narrow(l.aux);
      emitBinary(emitter, Opcode::VMul, rh, gr, hPrev, Bcast::None, B, H);
      if (l.hLead) {
        // One f32 addition, as mm's acc=1 would do.
        hProduct(rh);
        emitBinary(emitter, Opcode::VAdd, gh, gh, lin, Bcast::None, B, H);
      } else {
        recurrentProduct(1, gh, rh, rBase, /*accumulate=*/true);
      }
      if (sumsBias()) {
        biasThen(Opcode::VTanh, gh, biasSumRow(2 * H), H);
        activated = true;
      } else if (op.b) {
        emitBinary(emitter, Opcode::VAdd, gh, gh, biasRow(1, 2 * H), Bcast::Row,
                   B, H);
        biasThen(Opcode::VTanh, gh, biasRow(0, 2 * H), H);
        activated = true;
      }
    }
    if (!activated) {
      clip(gh, H);
      emitUnary(emitter, Opcode::VTanh, gh, gh, B, H);
    }
    xwSlot();
    // h = (1 - z)*n + z*h: -z is exact, so 1 + (-z) rounds like 1 - z.
    const Operand2D t0 = wide(l.tmp[0]), t1 = wide(l.tmp[1]),
                    hNext = wide(h.wideNext);
    if (chainsGates()) {
      // (1 - z)*n, then z*h + that: two chains, the same additions.
      const Operand2D chain = chainOperand(H);
      emitBinary(emitter, Opcode::VSub, chain, wide(l.ones), gz, Bcast::None, B,
                 H);
      emitBinary(emitter, Opcode::VMul, t0, chain, gh, Bcast::None, B, H);
      xwSlot();
      emitBinary(emitter, Opcode::VMul, chain, gz, hPrev, Bcast::None, B, H);
      emitBinary(emitter, Opcode::VAdd, hNext, chain, t0, Bcast::None, B, H);
      if (!isF32())
        copy(narrow(h.qNext), hNext);
      return;
    }
    if (l.ones) {
      // 1 - z in one instruction (block-float recurrences, which keep a
      // block of ones; the same rounding).
      emitBinary(emitter, Opcode::VSub, t0, wide(l.ones), gz, Bcast::None, B,
                 H);
    } else {
      emitUnary(emitter, Opcode::VNeg, t0, gz, B, H);
      emitScalar(emitter, Opcode::VsAdd, t0, t0, 1.0f, B, H);
    }
    emitBinary(emitter, Opcode::VMul, t0, t0, gh, Bcast::None, B, H);
    xwSlot();
    emitBinary(emitter, Opcode::VMul, t1, gz, hPrev, Bcast::None, B, H);
    emitBinary(emitter, Opcode::VAdd, hNext, t0, t1, Bcast::None, B, H);
    if (!isF32())
      copy(narrow(h.qNext), hNext);
  }

  /// Steps per piece of the XW phase of a chunk of `steps` steps (see
  /// emitDirection): W pinned, kXwPieces pieces; else one. Each piece loads
  /// its steps of X, so the pieces need a step of X to be a whole number of
  /// DRAM alignment units (B = 1, I = 63 in f32, say, keeps one piece).
  int64_t xwPieceSteps(int64_t steps) const {
    const uint64_t align =
        std::max<uint64_t>(context.target.memory(Space::Dram).align, 1);
    if (!pinned || uint64_t(s.batch * bytes(s.input)) % align != 0)
      return steps;
    return (steps + kXwPieces - 1) / kXwPieces;
  }

  /// Direction d's biases (two rows in ACC) and peepholes.
  void loadBiases(int64_t d) {
    const int64_t G = s.gateCols();
    if (op.b) {
      // Input and recurrence biases as two rows (biasPitch keeps the
      // second ACC-aligned in f16/bf16).
      DmaLoad load;
      load.dst = {Space::Acc, l.bias};
      load.src = {Space::Dram,
                  context.addressOf(op.b) + uint64_t(d * bytes(2 * G))};
      load.format = s.format;
      load.x = G;
      load.y = 2;
      load.dpitch = int64_t(l.biasPitch);
      emitLoad(emitter, load);
    }
    if (op.peepholes) {
      DmaLoad load;
      load.dst = {Space::Acc, l.peep};
      load.src = {Space::Dram, context.addressOf(op.peepholes) +
                                   uint64_t(d * bytes(3 * s.hidden))};
      load.format = s.format;
      load.x = 3 * s.hidden;
      emitLoad(emitter, load);
    }
  }

  /// XW phase rows [row0, row0 + rows) of the chunk: G[rows x G*H] =
  /// X[rows] . W^T, X in the VRF at xBase, G in ACC at l.gates.
  /// With `defer` (pinned W), the products go to pendingXw instead.
  void emitXw(int64_t d, uint64_t wBase, int64_t row0, int64_t rows,
              bool defer = false) {
    const int64_t G = s.gateCols();
    const Operand2D x =
        denseOperand(Space::Vrf, l.xBase, s.input, s.format).at(row0, 0);
    const Operand2D gates =
        Operand2D{Space::Acc, l.gates, gatePitch(), kF32Format}.at(row0, 0);
    for (int64_t j = 0; j < l.nTiles; ++j) {
      int64_t nt = std::min(l.tile, G - j * l.tile);
      // Block-float: all k tiles of the row group in one DMA (see
      // loadTile), one plane each.
      uint64_t group = 0;
      if (s.blockWeights()) {
        group = pinned ? pinnedW(d, j) : l.slot[streamed++ % 2];
        if (!pinned)
          loadTile(wBase, s.input, j * l.tile, nt, 0, std::min(l.tile, s.input),
                   group, l.iTiles);
      }
      for (int64_t t = 0; t < l.iTiles; ++t) {
        const int64_t kt = std::min(l.tile, s.input - t * l.tile);
        uint64_t w;
        if (s.blockWeights()) {
          w = group + (t ? uint64_t(t) * planeBytes(nt) : 0);
        } else if (pinned) {
          w = pinnedW(d, j) + uint64_t(t) * l.tileBytes;
        } else {
          w = l.slot[streamed++ % 2];
          loadTile(wBase, s.input, j * l.tile, nt, t * l.tile, kt, w);
        }
        auto product = [this, dst = gates.at(0, j * l.tile),
                        a = x.at(0, t * l.tile), w, rows, kt, nt,
                        t] { mm(dst, a, w, rows, kt, nt, t > 0); };
        if (defer && pinned)
          pendingXw.push_back(product);
        else
          product();
      }
    }
  }

  void emitDirection(int64_t d) {
    const uint64_t wBase = this->wBase(d), rBase = this->rBase(d);
    if (pinned)
      rMrf = pinnedR(d);

    // (With the XW phase in pieces, the biases are loaded after its first
    // piece of X; see the chunk loop.)
    const int64_t firstSteps = std::min(l.stepsPerChunk, s.seq);
    if (xwPieceSteps(firstSteps) == firstSteps)
      loadBiases(d);
    // h_{t-1} rotates through stateSlots slots (the f32 gru state always; the
    // op-format copy unless buffered, when it is the previous step's Y row).
    // f32 gru keeps one copy: the op-format one.
    int current = 0;
    const uint64_t finalSlice = uint64_t(d) * stateBytes();
    uint64_t qPrev = l.buffered ? l.yhBuf + finalSlice : l.hq[current];
    auto wideSlot = [&](int slot, uint64_t q) {
      return op.cell == Cell::Gru && isF32() ? q : l.h[slot];
    };
    // The initial h (already in Y_h's buffer when buffered), and c.
    if (!l.buffered || !op.initialH)
      loadOrFill(op.initialH, d, narrow(qPrev));
    if (op.cell == Cell::Gru && !isF32())
      copy(wide(l.h[current]), narrow(qPrev));
    if (op.cell == Cell::Lstm) {
      if (l.buffered && op.initialC)
        copy(wide(l.cState), narrow(l.ycBuf + finalSlice));
      else
        initWide(op.initialC, d, l.cState, l.tmp[0]);
    }
    if (l.ones)
      emitFill(emitter, wide(l.ones), s.batch, s.hidden, 1.0f);
    if (l.rMode == RnnLayout::Resident && !pinned)
      loadAllR(rBase);

    for (int64_t first = 0; first < s.seq; first += l.stepsPerChunk) {
      const int64_t steps = std::min(l.stepsPerChunk, s.seq - first);
      // The chunk covers times [tLo, tLo + steps) whichever the direction.
      const int64_t tLo =
          std::min(timeIndex(d, first), timeIndex(d, first + steps - 1));

      // XW phase: G[rows x G*H] = X[tLo .. tLo+steps) . W^T. With W
      // pinned in the MRF it is split into pieces of consecutive steps:
      // the first piece's product only waits for that piece of X, and each
      // later piece's product runs after the recurrence steps of the piece
      // before it, while the ld queue brings in the rest of X (the
      // products cost the same split or not: mm is linear in m). Streamed
      // W keeps one phase, so that its tiles are loaded once per chunk.
      const int64_t pieceSteps = xwPieceSteps(steps);
      const int64_t pieces = (steps + pieceSteps - 1) / pieceSteps;
      // A piece's times [lo, lo + n), whichever the direction.
      auto pieceTimes = [&](int64_t piece) {
        const int64_t step0 = first + piece * pieceSteps;
        const int64_t n = std::min(pieceSteps, first + steps - step0);
        return std::make_pair(
            std::min(timeIndex(d, step0), timeIndex(d, step0 + n - 1)), n);
      };
      for (int64_t piece = 0; piece < pieces; ++piece) {
        auto [lo, n] = pieceTimes(piece);
        DmaLoad loadX;
        loadX.dst = {Space::Vrf,
                     l.xBase + uint64_t((lo - tLo) * s.batch * bytes(s.input))};
        loadX.src = {Space::Dram, context.addressOf(op.x) +
                                      uint64_t(lo * s.batch * bytes(s.input))};
        loadX.format = s.format;
        loadX.x = s.input;
        loadX.y = n * s.batch;
        emitLoad(emitter, loadX);
        // The biases are first needed by the first step: with XW in
        // pieces, loaded after the first piece of X, so that they do not
        // delay its product.
        if (pieces > 1 && first == 0 && piece == 0)
          loadBiases(d);
      }
      auto xwPhase = [&](int64_t piece, bool defer = false) {
        auto [lo, n] = pieceTimes(piece);
        emitXw(d, wBase, (lo - tLo) * s.batch, n * s.batch, defer);
      };
      xwPhase(0);
      // After the first XW product, which need not wait for the biases.
      if (first == 0 && sumsBias())
        emitBinary(emitter, Opcode::VAdd, biasSumRow(0), biasRow(0, 0),
                   biasRow(1, 0), Bcast::None, 1, s.gateCols());
      if (l.rMode == RnnLayout::ReloadPerChunk && !pinned)
        loadAllR(rBase);

      // During the recurrence resident R tiles are one buffer: the first
      // step waits for the last tile load only, instead of one token per
      // tile (64 loads in flight would overflow the token FIFO while the
      // full ld queue stalls dispatch of their consumers).
      std::optional<ProgramEmitter::Group> residentR;
      if (l.rMode != RnnLayout::Streamed && !pinned)
        residentR.emplace(emitter, MemRegion{Space::Mrf, l.rBase,
                                             rTileAddress(l.rTiles.size() - 1) +
                                                 l.tileBytes});

      // The next piece's products run during this piece's steps, spread
      // over their xwSlots (see pendingXw).
      if (pieces > 1)
        xwPhase(1, /*defer=*/true);
      for (int64_t step = first; step < first + steps; ++step) {
        const int64_t time = timeIndex(d, step);
        const int64_t stepsLeftInPiece =
            pieceSteps - (step - first) % pieceSteps;
        const int64_t perStep =
            (int64_t(pendingXw.size()) + stepsLeftInPiece - 1) /
            stepsLeftInPiece;
        xwPerSlot = (perStep + xwSlotsPerStep() - 1) / xwSlotsPerStep();
        const uint64_t g =
            l.gates + uint64_t((time - tLo) * s.batch * gatePitch());
        const uint64_t ySlice = uint64_t(time * s.dirs + d) * stateBytes();
        const int next = (current + 1) % int(stateSlots(s));
        const uint64_t qNext = l.buffered ? l.yBuf + ySlice : l.hq[next];
        const StepState h{qPrev, qNext, wideSlot(current, qPrev),
                          wideSlot(next, qNext)};
        if (op.cell == Cell::Lstm)
          lstmStep(g, h, rBase);
        else
          gruStep(g, h, rBase);
        if (!l.buffered)
          store(op.y, ySlice, qNext);
        qPrev = qNext;
        current = next;
        // The next piece's products are complete before its first step;
        // then the one after it is spread over the next piece.
        const int64_t done = step + 1 - first;
        if (done % pieceSteps == 0 && done / pieceSteps < pieces) {
          drainXw();
          if (done / pieceSteps + 1 < pieces)
            xwPhase(done / pieceSteps + 1, /*defer=*/true);
        }
      }
    }
    if (l.buffered) {
      copy(narrow(l.yhBuf + finalSlice), narrow(qPrev));
      if (op.cell == Cell::Lstm)
        copy(narrow(l.ycBuf + finalSlice), wide(l.cState));
      return;
    }
    store(op.yH, finalSlice, qPrev);
    if (op.cell == Cell::Lstm)
      storeWide(op.yC, finalSlice, l.cState, l.tmp[0]);
  }
};

} // namespace

std::optional<SmallVector<uint64_t, 4>>
mlir::nnaccel::npu_lowering::getRnnPinBytes(Operation *operation,
                                            const TargetDesc &target) {
  // W and R in any format the kernels multiply (f32, f16, bf16 or block
  // float); R must be a constant too.
  RnnOp op = getRnnOp(operation);
  RnnShape s = getShape(op);
  if (!op.r.getDefiningOp<ConstantOp>())
    return std::nullopt;
  std::string reason;
  if (failed(checkRnn(operation, target, reason)))
    return std::nullopt;
  const size_t cores = getKernelCores(operation, target).size();
  if (cores > 1)
    return getMultiCoreRnnPinBytes(operation, target, unsigned(cores));
  std::optional<RnnLayout> l = computeLayout(target, s);
  if (!l)
    return std::nullopt;
  return SmallVector<uint64_t, 4>{uint64_t(s.dirs) * pinnedDirectionBytes(*l)};
}

namespace {
LogicalResult emitRnn(Operation *operation, KernelContext &context) {
  if (context.cores.size() > 1)
    return emitMultiCoreRnn(operation, context);
  // On one core an input sequence another card sends step by step is
  // received whole before the kernel starts, and Y is sent at the
  // partition's end (LowerToNPU): only the multi-core kernel pipelines.
  if (StreamedTransfer *in = context.getStreamedReceive(getRnnOp(operation).x))
    in->receiveThrough(context.emitter, in->pieces);
  RnnEmitter(operation, context).emit();
  return success();
}

uint64_t sharedScratch(Operation *operation, const TargetDesc &target) {
  return getRnnSharedBytes(operation, target,
                           unsigned(getKernelCores(operation, target).size()));
}
} // namespace

void mlir::nnaccel::npu_lowering::attachRecurrentKernels(MLIRContext *context) {
  attachCardKernel<CardKernelModel<checkRnn, emitRnn, sharedScratch,
                                   getRnnMaxCores, getRnnPreferredCores>,
                   LSTMOp, GRUOp>(context);
}
