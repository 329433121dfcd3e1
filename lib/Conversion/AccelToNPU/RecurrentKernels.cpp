//===- RecurrentKernels.cpp - LSTM on the matrix unit and MFUs ------------===//
//
// accel.lstm (f32, ONNX semantics, gate order i, o, f, c), Brainwave-style.
// Per direction, the time steps are processed in chunks whose gate
// pre-activations fit the accumulator SRAM:
//
//   for each chunk of Tc time steps:
//     XW phase: X[chunk] (Tc*B rows, resident in the VRF) times every N x N
//       tile of W (streamed through two MRF slots) -> G[Tc*B x 4H] in ACC
//     load R into the MRF (once per direction when it fits next to the W
//       slots; after every XW phase when it only fits alone; when it does
//       not fit at all, its tiles are streamed through the slots each step)
//     for each step t of the chunk (backwards for the reverse direction):
//       G_t += h_{t-1} . R^T              (mm, acc=1, h in ACC)
//       G_t += Wb; G_t += Rb              (v.add bcast=row)
//       clip (vs.max / vs.min) when the op has `clip`
//       sigmoid on [i o f], tanh on [c]   (gate blocks are contiguous)
//       c = f*c + i*c~; h_t = o*tanh(c)   (v.mul / v.add / v.tanh)
//       Y[t, d] <- h_t                    (dma.st, overlapping the next step)
//   Y_h[d] <- h, Y_c[d] <- c
//
// The arithmetic mirrors the host kernel (lib/Runtime/HostSequence.cpp):
// x.W^T is one dotF32 when I <= N, the recurrent product is added to it, then
// the two biases in that order, so with I, H <= N the results are bit-exact;
// larger I or H split the dot products into N-element tiles whose partial
// sums are accumulated in f32 (a different rounding order than one long
// dotF32, well inside the f32 tolerance). Initial states come from the
// operands or are zero (v.fill). Peepholes are not lowered.
//
//===----------------------------------------------------------------------===//

#include "KernelRegistry.h"
#include "KernelUtils.h"

#include "Accel/AccelOps.h"

#include <algorithm>
#include <cstring>

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
constexpr int64_t kMaxDmaRows = 4095; // 12-bit DMA y
constexpr int64_t kMax16 = 0xFFFF;    // 16-bit element counts and pitches

struct LstmShape {
  int64_t seq, batch, input, hidden, dirs;
  bool reverseOnly;
};

LstmShape getShape(LSTMOp op) {
  auto x = cast<RankedTensorType>(op.getX().getType());
  LstmShape shape;
  shape.seq = x.getDimSize(0);
  shape.batch = x.getDimSize(1);
  shape.input = x.getDimSize(2);
  shape.hidden = op.getHiddenSize();
  shape.dirs = op.getDirection() == RNNDirection::bidirectional ? 2 : 1;
  shape.reverseOnly = op.getDirection() == RNNDirection::reverse;
  return shape;
}

/// On-chip placement of the kernel.
struct LstmLayout {
  int64_t tile;                   // N
  int64_t stepsPerChunk;          // Tc
  int64_t nTiles, hTiles, iTiles; // tiles of 4H (outputs), H and I (k)
  uint64_t tileBytes;             // one N x N f32 MRF tile, aligned
  enum RMode { Resident, ReloadPerChunk, Streamed } rMode;
  uint64_t rBase = 0; // mrf: R tiles (Resident/ReloadPerChunk)
  uint64_t slot[2];   // mrf: streamed W (and R) tiles
  uint64_t xBase = 0; // vrf: X chunk, Tc*B x I
  // acc: gate pre-activations G (Tc*B x 4H), biases (8H), c, h[2], tmp[2]
  uint64_t gates = 0, bias, cState, h[2], tmp[2], end;
};

std::optional<LstmLayout> computeLayout(const TargetDesc &target,
                                        const LstmShape &s) {
  LstmLayout l;
  l.tile = target.nativeDim;
  l.nTiles = (4 * s.hidden + l.tile - 1) / l.tile;
  l.hTiles = (s.hidden + l.tile - 1) / l.tile;
  l.iTiles = (s.input + l.tile - 1) / l.tile;
  l.tileBytes = alignUp(uint64_t(l.tile * l.tile * kF32),
                        target.memory(Space::Mrf).align);
  uint64_t mrfBytes = target.memory(Space::Mrf).bytes;
  uint64_t rBytes = uint64_t(l.nTiles * l.hTiles) * l.tileBytes;
  if (2 * l.tileBytes > mrfBytes)
    return std::nullopt;
  if (rBytes + 2 * l.tileBytes <= mrfBytes) {
    l.rMode = LstmLayout::Resident;
    l.slot[0] = rBytes;
    l.slot[1] = rBytes + l.tileBytes;
  } else {
    l.rMode =
        rBytes <= mrfBytes ? LstmLayout::ReloadPerChunk : LstmLayout::Streamed;
    l.slot[0] = 0;
    l.slot[1] = l.tileBytes;
  }

  // Fixed ACC state after the gate chunk; the chunk gets the rest.
  uint64_t state = uint64_t(s.batch * s.hidden * kF32);
  uint64_t fixed =
      alignUp(uint64_t(8 * s.hidden * kF32), 64) + 5 * alignUp(state, 64);
  uint64_t accBytes = target.memory(Space::Acc).bytes;
  uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  if (fixed >= accBytes)
    return std::nullopt;
  uint64_t stepGates = uint64_t(s.batch * 4 * s.hidden * kF32);
  uint64_t stepX = uint64_t(s.batch * s.input * kF32);
  l.stepsPerChunk = std::min<int64_t>(
      {s.seq, static_cast<int64_t>((accBytes - fixed) / stepGates),
       static_cast<int64_t>(vrfBytes / stepX), kMaxDmaRows / s.batch,
       kMax16 / s.batch});
  if (l.stepsPerChunk < 1)
    return std::nullopt;
  l.bias = alignUp(uint64_t(l.stepsPerChunk) * stepGates, 64);
  l.cState = l.bias + alignUp(uint64_t(8 * s.hidden * kF32), 64);
  l.h[0] = l.cState + alignUp(state, 64);
  l.h[1] = l.h[0] + alignUp(state, 64);
  l.tmp[0] = l.h[1] + alignUp(state, 64);
  l.tmp[1] = l.tmp[0] + alignUp(state, 64);
  l.end = l.tmp[1] + alignUp(state, 64);
  return l;
}

LogicalResult checkLstm(Operation *operation, const TargetDesc &target,
                        std::string &reason) {
  auto op = cast<LSTMOp>(operation);
  auto allF32 = [](TypeRange types) {
    return llvm::all_of(types, [](Type type) {
      return cast<RankedTensorType>(type).getElementType().isF32();
    });
  };
  if (!allF32(op->getOperandTypes()) || !allF32(op->getResultTypes())) {
    reason = "lstm runs on the card in f32 only";
    return failure();
  }
  if (op.getP()) {
    reason = "lstm with peepholes is not lowered to the card";
    return failure();
  }
  if (!target.macsPerCycle.count(DType::F32)) {
    reason = "the target's matrix unit has no f32 mode";
    return failure();
  }
  LstmShape s = getShape(op);
  if (s.seq < 1 || s.batch < 1 || s.input < 1 || s.hidden < 1) {
    reason = "lstm with an empty dimension stays on the host";
    return failure();
  }
  // Row pitches of the gate block and X rows are 16-bit byte counts; the
  // bias row is loaded with one DMA of 8H elements.
  if (4 * s.hidden * kF32 > kMax16 || s.input * kF32 > kMax16 ||
      8 * s.hidden > kMax16 || s.batch > kMaxDmaRows) {
    reason = "lstm rows are wider than the 64 KiB pitch (hidden_size " +
             std::to_string(s.hidden) + ", input " + std::to_string(s.input) +
             ") or the batch exceeds 4095";
    return failure();
  }
  std::optional<LstmLayout> layout = computeLayout(target, s);
  if (!layout) {
    reason = "the lstm state and one time step's gates do not fit the "
             "on-chip memories";
    return failure();
  }
  // Every DRAM operand base the kernel addresses must be aligned: per
  // direction slices of W, R, B and the states, per step slices of Y and,
  // when X is chunked, chunk starts of X.
  uint64_t align = target.memory(Space::Dram).align;
  auto aligned = [&](int64_t bytes) { return bytes % int64_t(align) == 0; };
  int64_t state = s.batch * s.hidden * kF32;
  bool ok = aligned(state) || (s.seq == 1 && s.dirs == 1);
  if (s.dirs == 2)
    ok = ok && aligned(4 * s.hidden * s.input * kF32) &&
         aligned(4 * s.hidden * s.hidden * kF32) &&
         aligned(8 * s.hidden * kF32) && aligned(state);
  if (layout->stepsPerChunk < s.seq)
    ok = ok && aligned(s.batch * s.input * kF32);
  if (!ok) {
    reason = "per-step or per-direction slices of this lstm would start at "
             "unaligned DRAM addresses (batch * hidden_size must be a "
             "multiple of 16)";
    return failure();
  }
  return success();
}

class LstmEmitter {
public:
  LstmEmitter(LSTMOp op, KernelContext &context)
      : op(op), context(context), emitter(context.emitter), s(getShape(op)),
        l(*computeLayout(context.target, s)) {}

  void emit() {
    for (int64_t d = 0; d < s.dirs; ++d)
      emitDirection(d);
  }

private:
  LSTMOp op;
  KernelContext &context;
  ProgramEmitter &emitter;
  LstmShape s;
  LstmLayout l;
  int64_t streamed = 0; // MRF slot alternation

  MemRegion dram(Value value) const {
    uint64_t at = context.addressOf(value);
    auto type = cast<RankedTensorType>(value.getType());
    return {Space::Dram, at, at + uint64_t(type.getNumElements() * kF32)};
  }
  static MemRegion acc(uint64_t at, uint64_t bytes) {
    return {Space::Acc, at, at + bytes};
  }
  uint64_t stateBytes() const { return uint64_t(s.batch * s.hidden * kF32); }
  int64_t gatePitch() const { return 4 * s.hidden * kF32; }
  int64_t timeIndex(int64_t d, int64_t step) const {
    bool backwards = s.reverseOnly || d == 1;
    return backwards ? s.seq - 1 - step : step;
  }

  /// Loads tile (j, t) of a [4H x K] f32 matrix (direction slice at
  /// `base`) into MRF at `dst`; returns its MRF region.
  MemRegion loadTile(uint64_t base, MemRegion whole, int64_t k, int64_t j,
                     int64_t t, uint64_t dst) {
    int64_t nt = std::min(l.tile, 4 * s.hidden - j * l.tile);
    int64_t kt = std::min(l.tile, k - t * l.tile);
    MemRegion tile{Space::Mrf, dst, dst + uint64_t(nt * kt * kF32)};
    Instruction ld(Opcode::DmaLd);
    setMem(ld, "dst", Space::Mrf, dst);
    setMem(ld, "src", Space::Dram,
           base + uint64_t((j * l.tile * k + t * l.tile) * kF32));
    ld.with("dt", kDt)
        .with("x", kt)
        .with("y", nt)
        .with("z", 1)
        .with("sy", k * kF32)
        .with("dpitch", kt * kF32);
    emitter.emit(ld, {whole}, {tile});
    return tile;
  }

  uint64_t rTileAddress(int64_t j, int64_t t) const {
    return l.rBase + uint64_t(j * l.hTiles + t) * l.tileBytes;
  }

  void loadAllR(uint64_t rBase, MemRegion rDram) {
    for (int64_t j = 0; j < l.nTiles; ++j)
      for (int64_t t = 0; t < l.hTiles; ++t)
        loadTile(rBase, rDram, s.hidden, j, t, rTileAddress(j, t));
  }

  void mm(uint64_t dst, MemRegion dstRegion, Space aSpace, uint64_t a,
          MemRegion aRegion, int64_t apitch, MemRegion wTile, MemRegion wRead,
          int64_t rows, int64_t k, int64_t n, bool accumulate) {
    Instruction inst(Opcode::Mm);
    setMem(inst, "dst", Space::Acc, dst);
    setMem(inst, "a", aSpace, a);
    setMem(inst, "w", Space::Mrf, wTile.begin);
    inst.with("dt", kDt)
        .with("at", kDt)
        .with("wt", kDt)
        .with("m", rows)
        .with("k", k)
        .with("n", n)
        .with("dpitch", gatePitch())
        .with("apitch", apitch)
        .with("acc", accumulate ? 1 : 0);
    emitter.emit(inst, {aRegion, wRead}, {dstRegion});
  }

  /// dst = a (op) b on B x cols blocks in ACC.
  void binary(Opcode opcode, uint64_t dst, int64_t dpitch, uint64_t a,
              int64_t apitch, uint64_t b, int64_t bpitch, int64_t cols,
              Bcast bcast = Bcast::None) {
    Instruction inst(opcode);
    setMem(inst, "dst", Space::Acc, dst);
    setMem(inst, "a", Space::Acc, a);
    setMem(inst, "b", Space::Acc, b);
    inst.with("dt", kDt)
        .with("at", kDt)
        .with("bt", kDt)
        .with("rows", s.batch)
        .with("cols", cols)
        .with("dpitch", dpitch)
        .with("apitch", apitch)
        .with("bpitch", bpitch)
        .with("bcast", static_cast<int64_t>(bcast));
    auto extent = [&](uint64_t base, int64_t pitch, int64_t rows) {
      return acc(base, uint64_t((rows - 1) * pitch + cols * kF32));
    };
    emitter.emit(inst,
                 {extent(a, apitch, s.batch),
                  extent(b, bpitch, bcast == Bcast::Row ? 1 : s.batch)},
                 {extent(dst, dpitch, s.batch)});
  }

  void unary(Opcode opcode, uint64_t dst, int64_t dpitch, uint64_t a,
             int64_t apitch, int64_t cols, std::optional<float> imm = {}) {
    Instruction inst(opcode);
    setMem(inst, "dst", Space::Acc, dst);
    setMem(inst, "a", Space::Acc, a);
    inst.with("dt", kDt)
        .with("at", kDt)
        .with("rows", s.batch)
        .with("cols", cols)
        .with("dpitch", dpitch)
        .with("apitch", apitch);
    if (imm)
      inst.with("imm", floatBits(*imm));
    emitter.emit(inst, {acc(a, uint64_t((s.batch - 1) * apitch + cols * kF32))},
                 {acc(dst, uint64_t((s.batch - 1) * dpitch + cols * kF32))});
  }

  /// Loads a B x H slice of `value` (direction d) into ACC, or zeros.
  void initState(Value value, int64_t d, uint64_t dst) {
    if (!value) {
      Instruction fill(Opcode::VFill);
      setMem(fill, "dst", Space::Acc, dst);
      fill.with("dt", kDt)
          .with("rows", s.batch)
          .with("cols", s.hidden)
          .with("dpitch", s.hidden * kF32);
      emitter.emit(fill, {}, {acc(dst, stateBytes())});
      return;
    }
    Instruction ld(Opcode::DmaLd);
    setMem(ld, "dst", Space::Acc, dst);
    setMem(ld, "src", Space::Dram,
           context.addressOf(value) + uint64_t(d) * stateBytes());
    ld.with("dt", kDt)
        .with("x", s.hidden)
        .with("y", s.batch)
        .with("z", 1)
        .with("sy", s.hidden * kF32)
        .with("dpitch", s.hidden * kF32);
    emitter.emit(ld, {dram(value)}, {acc(dst, stateBytes())});
  }

  void store(Value value, uint64_t offset, uint64_t src) {
    Instruction st(Opcode::DmaSt);
    setMem(st, "dst", Space::Dram, context.addressOf(value) + offset);
    setMem(st, "src", Space::Acc, src);
    st.with("dt", kDt)
        .with("x", s.hidden)
        .with("y", s.batch)
        .with("z", 1)
        .with("dy", s.hidden * kF32)
        .with("spitch", s.hidden * kF32);
    emitter.emit(st, {acc(src, stateBytes())}, {dram(value)});
  }

  void emitDirection(int64_t d) {
    const uint64_t wBase = context.addressOf(op.getW()) +
                           uint64_t(d * 4 * s.hidden * s.input * kF32);
    const uint64_t rBase = context.addressOf(op.getR()) +
                           uint64_t(d * 4 * s.hidden * s.hidden * kF32);
    const MemRegion wDram = dram(op.getW()), rDram = dram(op.getR());
    const int64_t hPitch = s.hidden * kF32;

    if (Value b = op.getB()) {
      Instruction ld(Opcode::DmaLd);
      setMem(ld, "dst", Space::Acc, l.bias);
      setMem(ld, "src", Space::Dram,
             context.addressOf(b) + uint64_t(d * 8 * s.hidden * kF32));
      ld.with("dt", kDt)
          .with("x", 8 * s.hidden)
          .with("y", 1)
          .with("z", 1)
          .with("sy", 8 * s.hidden * kF32)
          .with("dpitch", 8 * s.hidden * kF32);
      emitter.emit(ld, {dram(b)}, {acc(l.bias, uint64_t(8 * s.hidden * kF32))});
    }
    int current = 0; // h slot holding h_{t-1}
    initState(op.getInitialH(), d, l.h[current]);
    initState(op.getInitialC(), d, l.cState);
    if (l.rMode == LstmLayout::Resident)
      loadAllR(rBase, rDram);

    for (int64_t first = 0; first < s.seq; first += l.stepsPerChunk) {
      const int64_t steps = std::min(l.stepsPerChunk, s.seq - first);
      // The chunk covers times [tLo, tLo + steps) whichever the direction.
      const int64_t tLo =
          std::min(timeIndex(d, first), timeIndex(d, first + steps - 1));
      const int64_t rows = steps * s.batch;

      // XW phase: G[rows x 4H] = X[tLo .. tLo+steps) . W^T.
      MemRegion xVrf{Space::Vrf, l.xBase,
                     l.xBase + uint64_t(rows * s.input * kF32)};
      Instruction ldx(Opcode::DmaLd);
      setMem(ldx, "dst", Space::Vrf, l.xBase);
      setMem(ldx, "src", Space::Dram,
             context.addressOf(op.getX()) +
                 uint64_t(tLo * s.batch * s.input * kF32));
      ldx.with("dt", kDt)
          .with("x", s.input)
          .with("y", rows)
          .with("z", 1)
          .with("sy", s.input * kF32)
          .with("dpitch", s.input * kF32);
      emitter.emit(ldx, {dram(op.getX())}, {xVrf});
      MemRegion gates = acc(l.gates, uint64_t(rows * gatePitch()));
      for (int64_t j = 0; j < l.nTiles; ++j) {
        int64_t nt = std::min(l.tile, 4 * s.hidden - j * l.tile);
        for (int64_t t = 0; t < l.iTiles; ++t) {
          int64_t kt = std::min(l.tile, s.input - t * l.tile);
          MemRegion w =
              loadTile(wBase, wDram, s.input, j, t, l.slot[streamed++ % 2]);
          mm(l.gates + uint64_t(j * l.tile * kF32), gates, Space::Vrf,
             l.xBase + uint64_t(t * l.tile * kF32), xVrf, s.input * kF32, w, w,
             rows, kt, nt, t > 0);
        }
      }
      if (l.rMode == LstmLayout::ReloadPerChunk)
        loadAllR(rBase, rDram);

      for (int64_t step = first; step < first + steps; ++step) {
        const int64_t time = timeIndex(d, step);
        const uint64_t g =
            l.gates + uint64_t((time - tLo) * s.batch * gatePitch());
        const MemRegion gRegion = acc(g, uint64_t(s.batch * gatePitch()));
        const uint64_t hPrev = l.h[current], hNext = l.h[1 - current];
        const MemRegion hPrevRegion = acc(hPrev, stateBytes());

        // G_t += h_{t-1} . R^T, tile by tile.
        for (int64_t j = 0; j < l.nTiles; ++j) {
          int64_t nt = std::min(l.tile, 4 * s.hidden - j * l.tile);
          for (int64_t t = 0; t < l.hTiles; ++t) {
            int64_t kt = std::min(l.tile, s.hidden - t * l.tile);
            MemRegion r =
                l.rMode == LstmLayout::Streamed
                    ? loadTile(rBase, rDram, s.hidden, j, t,
                               l.slot[streamed++ % 2])
                    : MemRegion{Space::Mrf, rTileAddress(j, t),
                                rTileAddress(j, t) + uint64_t(nt * kt * kF32)};
            // A resident R is declared read as a whole: the first mm then
            // waits for the last R load only, instead of one token per tile
            // (64 loads in flight would overflow the token FIFO while the
            // full ld queue stalls dispatch of their consumers).
            MemRegion rRead =
                l.rMode == LstmLayout::Streamed
                    ? r
                    : MemRegion{Space::Mrf, l.rBase,
                                rTileAddress(l.nTiles - 1, l.hTiles - 1) +
                                    l.tileBytes};
            mm(g + uint64_t(j * l.tile * kF32), gRegion, Space::Acc,
               hPrev + uint64_t(t * l.tile * kF32), hPrevRegion, hPitch, r,
               rRead, s.batch, kt, nt, /*accumulate=*/true);
          }
        }
        const int64_t cols4 = 4 * s.hidden;
        if (op.getB()) {
          binary(Opcode::VAdd, g, gatePitch(), g, gatePitch(), l.bias,
                 gatePitch(), cols4, Bcast::Row);
          binary(Opcode::VAdd, g, gatePitch(), g, gatePitch(),
                 l.bias + uint64_t(cols4 * kF32), gatePitch(), cols4,
                 Bcast::Row);
        }
        if (std::optional<APFloat> clipAttr = op.getClip()) {
          float clip = clipAttr->convertToFloat();
          unary(Opcode::VsMax, g, gatePitch(), g, gatePitch(), cols4, -clip);
          unary(Opcode::VsMin, g, gatePitch(), g, gatePitch(), cols4, clip);
        }
        // Gate blocks: i [0, H), o [H, 2H), f [2H, 3H), c~ [3H, 4H).
        const uint64_t gi = g, go = g + uint64_t(hPitch),
                       gf = g + uint64_t(2 * hPitch),
                       gc = g + uint64_t(3 * hPitch);
        unary(Opcode::VSigm, g, gatePitch(), g, gatePitch(), 3 * s.hidden);
        unary(Opcode::VTanh, gc, gatePitch(), gc, gatePitch(), s.hidden);
        // c = f*c + i*c~ (two rounded products, then the sum, as the host).
        binary(Opcode::VMul, l.tmp[0], hPitch, gf, gatePitch(), l.cState,
               hPitch, s.hidden);
        binary(Opcode::VMul, l.tmp[1], hPitch, gi, gatePitch(), gc, gatePitch(),
               s.hidden);
        binary(Opcode::VAdd, l.cState, hPitch, l.tmp[0], hPitch, l.tmp[1],
               hPitch, s.hidden);
        // h = o * tanh(c)
        unary(Opcode::VTanh, l.tmp[0], hPitch, l.cState, hPitch, s.hidden);
        binary(Opcode::VMul, hNext, hPitch, go, gatePitch(), l.tmp[0], hPitch,
               s.hidden);
        store(op.getY(), uint64_t((time * s.dirs + d)) * stateBytes(), hNext);
        current = 1 - current;
      }
    }
    store(op.getYH(), uint64_t(d) * stateBytes(), l.h[current]);
    store(op.getYC(), uint64_t(d) * stateBytes(), l.cState);
  }
};

LogicalResult emitLstm(Operation *operation, KernelContext &context) {
  LstmEmitter(cast<LSTMOp>(operation), context).emit();
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::registerRecurrentKernels(KernelTable &table) {
  table[LSTMOp::getOperationName()] = {checkLstm, emitLstm};
}
