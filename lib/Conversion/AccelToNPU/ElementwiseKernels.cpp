//===- ElementwiseKernels.cpp - elementwise accel ops on the vector units -===//
//
// NPU kernels for the f32 / f16 / bf16 elementwise ops: binary
// add/sub/mul/div/max/min (and pow with exponent 2 or 0.5) and unary
// relu/sigmoid/tanh/exp/gelu (erf and tanh forms)/abs/neg/clip/sqrt.
//
// The output is viewed as rows x cols (cols = the innermost dimension when
// an operand is broadcast along rows or columns, else a divisor of the
// element count chosen so row chunks stay DRAM-aligned). Row chunks stream
// through two VRF slots: while the MFUs work on one chunk in place, the
// load queue fills the other and the store queue drains the previous one;
// the ProgramEmitter derives the tokens from the instructions.
//
//   [resident b: row vector / scalar, loaded (and inverted for div) once]
//   for each chunk of rc rows (slot = chunk % 2):
//     dma.ld  A -> slot.a  (and B -> slot.b when b is full or per-row)
//     v.op    slot.a = slot.a op b        (bcast none/row/col/scalar)
//     dma.st  out <- slot.a
//
// Broadcasts: the vector units broadcast their `b` operand only, so a
// broadcast lhs is swapped into `b`: directly for the commutative ops, as
// -a + b for sub (exact: IEEE subtraction is addition of the negation) and
// as b * (1/a) for div. A compile-time constant scalar uses the vs.* ops
// with an immediate (sub by c is vs.add of -c, exact; div by c is vs.mul by
// the correctly rounded 1/c). Any numpy broadcast is an inner row / per-row
// problem repeated over outer loops (EltwiseBroadcast.h: [B,S,D] + [S,D]
// is B rows of S*D plus a row vector; [B,S,D] + [B,1,D] a loop over B
// around S rows plus a row vector; [B,1,D] + [1,S,D], both operands
// broadcast, a loop over B around [S,D] plus a row of the first; an outer
// product [S,1] * [1,D] S rows of the second operand's row, loaded once per
// row, times a value per row); a row vector too wide for the vector units
// becomes a block of rows that is streamed like a full operand, its chunks
// read from the block again for every repetition.
//
// Precision: the ISA has no divide. The card computes a/b as a * (1/b) with
// 1/b correctly rounded (v.recip): two roundings instead of the host's one,
// a relative difference of about 2^-23 (up to 2^-21 for |b| > 2^126, where
// 1/b is subnormal), far inside the e2e tolerance of 1e-4 + 1e-3 |ref|.
// NaN, infinities and zero divisors behave like the host. The exception is
// a divisor below 2^-128 in magnitude (deep subnormals): 1/b overflows to
// inf, so the card gives +-inf (or NaN for 0/b) where the host gives a
// finite quotient. sqrt(x) is 1 / rsqrt(x) (two roundings, within 2 ulp): it
// gives sqrt(+-0) = +-0, sqrt(+inf) = +inf and NaN for negative x, like the
// host; x * rsqrt(x) would give NaN at 0 and is not used. pow(x, 0.5) uses
// the same sequence (it differs from the host's pow only at -0 and -inf,
// where pow gives +0 and +inf); pow(x, 2) is x * x, which is what the host's
// pow rounds to. Every other op matches the host bit for bit (both sides use
// lib/Numerics).
//
// f16 / bf16: the vector units read their operands in the tensor's type,
// compute in f32 and round on write, which is what the host's reference
// does (f32 arithmetic, rounded once to the result type). Steps whose
// result feeds another rounding step (the reciprocal of a divisor, rsqrt
// before its reciprocal) write an f32 work buffer instead of rounding in
// place, so those sequences round to the narrow type only once; the other
// in-place steps (negation, clip bounds) are exact in any type.
//
// erf is not in the ISA and pow with other exponents needs exp/log, which
// the vector units lack: both stay on the host.
//
// An add of quantized tensors (int8 residual adds) is
// QuantizedAddKernel.cpp's.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "EltwiseBroadcast.h"
#include "KernelOperands.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// Widest row chosen when the op does not fix the view (flattened tensors).
constexpr int64_t kMaxFlatCols = 1024;

/// Most repetitions of a broadcast's inner problem (EltwiseBroadcast.h) one
/// op is lowered with: each is at least one chunk of instructions.
constexpr int64_t kMaxBroadcastRepeats = 4096;

/// What the kernel computes, independent of MLIR.
struct EltwiseSpec {
  enum Kind {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min, // binary
    Square,
    Sqrt, // pow 2 / pow 0.5 and sqrt
    Relu,
    Sigmoid,
    Tanh,
    Exp,
    Gelu,
    GeluTanh, // approximate = tanh: v.gelut (ISA 1.2)
    Abs,
    Neg,
    Clip
  } kind;
  /// Shape of the second operand `b` (after swapping a broadcast lhs);
  /// Block: `blockRows` rows of cols reused cyclically (row r reads b's row
  /// r % blockRows).
  enum BKind { None, Full, Row, Col, Block, Scalar, Imm } b = None;
  int64_t blockRows = 0;
  /// a is one row of cols that every row repeats (an outer product: b is
  /// Col); each chunk loads it once per row.
  bool aIsRow = false;
  /// Loops around the rows x cols problem (EltwiseBroadcast.h): each
  /// repetition moves the output by rows * cols elements and a and b by
  /// the loops' strides.
  std::vector<BroadcastLoop> loops;
  /// b was the lhs: compute b op a (matters for sub and div).
  bool reversed = false;
  ElementFormat format = kF32Format;     // of a, b and the result
  float imm = 0;                         // BKind::Imm
  std::optional<float> clipMin, clipMax; // Clip
  int64_t rows = 0, cols = 0;            // the output view
  uint64_t aAddr = 0, bAddr = 0, outAddr = 0;
};

/// VRF placement and chunking of a spec on a target.
struct Layout {
  uint64_t resident = 0;     // row vector / scalar b
  uint64_t slot[2] = {0, 0}; // per slot: a chunk, then the b chunk
  uint64_t bOffset = 0;      // b chunk offset inside a slot
  uint64_t workOffset = 0;   // f32 intermediate offset inside a slot
  uint64_t residentWide = 0; // f32 inverse of a resident divisor
  int64_t rowsPerChunk = 0;
};

bool isBinary(EltwiseSpec::Kind kind) { return kind <= EltwiseSpec::Min; }

/// b is streamed in chunks of rows x cols like a (same shape or a block).
bool hasBRows(const EltwiseSpec &spec) {
  return spec.b == EltwiseSpec::Full || spec.b == EltwiseSpec::Block;
}

/// The spec's divide inverts its divisor b (not reversed) or a (reversed).
bool invertsB(const EltwiseSpec &spec) {
  return spec.kind == EltwiseSpec::Div && !spec.reversed;
}

/// Elements per row of the f32 work buffer a chunk needs for intermediates
/// that must not be rounded to a narrow format: the chunk's reciprocals and
/// rsqrt (rows x cols) or a per-row divisor's reciprocals (1 per row). In
/// f32 the intermediates are written in place and need none.
int64_t workPerRow(const EltwiseSpec &spec) {
  if (spec.format == kF32Format)
    return 0;
  if (spec.kind == EltwiseSpec::Sqrt ||
      (spec.kind == EltwiseSpec::Div && (spec.reversed || hasBRows(spec))))
    return spec.cols;
  if (invertsB(spec) && spec.b == EltwiseSpec::Col)
    return 1;
  return 0;
}

std::optional<Layout> computeLayout(const TargetDesc &target,
                                    const EltwiseSpec &spec) {
  const ElementFormat fmt = spec.format;
  // Whole-byte card floats only (makeSpec): per-element alignment below.
  const int64_t e = fmt.elementBytes();
  if (spec.cols < 1 || spec.cols > kMaxCount ||
      kF32Format.rowBytes(spec.cols) > kMaxPitch)
    return std::nullopt;
  const uint64_t regBytes = target.vrfRegisterBytes;
  const uint64_t vrfBytes = uint64_t(target.vrfRegisters) * regBytes;
  Layout layout;
  uint64_t residentBytes = 0;
  if (spec.b == EltwiseSpec::Row || spec.b == EltwiseSpec::Scalar) {
    // The divisor's f32 inverse follows a narrow resident b; f32 data is
    // inverted in place.
    int64_t elems = spec.b == EltwiseSpec::Row ? spec.cols : 1;
    uint64_t narrow = alignUp(fmt.rowBytes(elems), 4);
    uint64_t wide = invertsB(spec) && !(fmt == kF32Format)
                        ? uint64_t(kF32Format.rowBytes(elems))
                        : 0;
    residentBytes = alignUp(narrow + wide, regBytes);
    layout.residentWide = layout.resident + (wide ? narrow : 0);
  }
  if (residentBytes >= vrfBytes)
    return std::nullopt;
  uint64_t slotBytes = (vrfBytes - residentBytes) / 2 / regBytes * regBytes;
  layout.slot[0] = residentBytes;
  layout.slot[1] = residentBytes + slotBytes;
  const int64_t rowSize = fmt.rowBytes(spec.cols);
  int64_t perRow = rowSize + kF32Format.rowBytes(workPerRow(spec));
  if (hasBRows(spec))
    perRow += rowSize;
  else if (spec.b == EltwiseSpec::Col)
    perRow += fmt.rowBytes(1);
  // A per-row operand's chunk is loaded from the aligned address below it
  // (up to alignElems - 1 extra values, see emitEltwise).
  const int64_t alignElems = std::max<int64_t>(
      static_cast<int64_t>(target.memory(Space::Dram).align) / e, 1);
  int64_t slack = spec.b == EltwiseSpec::Col ? fmt.rowBytes(alignElems - 1) : 0;
  // Rounding the 2-byte buffers' offsets up to 4 bytes.
  if (e < 4)
    slack += 8;
  int64_t rows =
      std::min<int64_t>({spec.rows, kMaxDmaYZ,
                         (static_cast<int64_t>(slotBytes) - slack) / perRow});
  if (rows < 1)
    return std::nullopt;
  if (rows < spec.rows) {
    // Chunk starts must stay DRAM-aligned: rc * cols elements must be a
    // multiple of the alignment.
    int64_t multiple = alignElems / std::gcd(alignElems, spec.cols);
    // 2-byte per-row operands: even chunk starts keep the staged column's
    // used part on a 4-byte VRF boundary.
    if (spec.b == EltwiseSpec::Col && e < 4)
      multiple = std::lcm<int64_t>(multiple, 4 / e);
    rows = rows / multiple * multiple;
    if (rows < 1)
      return std::nullopt;
  }
  layout.rowsPerChunk = rows;
  layout.bOffset = alignUp(rows * rowSize, 4);
  int64_t bBytes = hasBRows(spec)               ? rows * rowSize
                   : spec.b == EltwiseSpec::Col ? slack + fmt.rowBytes(rows)
                                                : 0;
  layout.workOffset = alignUp(layout.bOffset + bBytes, 4);
  return layout;
}

Opcode binaryOpcode(EltwiseSpec::Kind kind) {
  switch (kind) {
  case EltwiseSpec::Sub:
    return Opcode::VSub;
  case EltwiseSpec::Mul:
  case EltwiseSpec::Div:
    return Opcode::VMul;
  case EltwiseSpec::Max:
    return Opcode::VMax;
  case EltwiseSpec::Min:
    return Opcode::VMin;
  default:
    return Opcode::VAdd;
  }
}

Opcode unaryOpcode(EltwiseSpec::Kind kind) {
  switch (kind) {
  case EltwiseSpec::Relu:
    return Opcode::VRelu;
  case EltwiseSpec::Sigmoid:
    return Opcode::VSigm;
  case EltwiseSpec::Tanh:
    return Opcode::VTanh;
  case EltwiseSpec::Exp:
    return Opcode::VExp;
  case EltwiseSpec::Gelu:
    return Opcode::VGelu;
  case EltwiseSpec::GeluTanh:
    return Opcode::VGeluT;
  case EltwiseSpec::Abs:
    return Opcode::VAbs;
  default:
    return Opcode::VNeg;
  }
}

/// Emits one repetition of the spec's rows x cols problem at the spec's
/// addresses; chunks alternate VRF slots from `chunk` on.
void emitProblem(ProgramEmitter &emitter, const TargetDesc &target,
                 const EltwiseSpec &spec, int64_t &chunk) {
  const Layout layout = *computeLayout(target, spec);
  const ElementFormat fmt = spec.format;
  const int64_t cols = spec.cols;
  const int64_t alignElems =
      std::max<int64_t>(static_cast<int64_t>(target.memory(Space::Dram).align) /
                            fmt.elementBytes(),
                        1);
  const bool reversed = spec.reversed && isBinary(spec.kind);
  // div inverts its divisor: b normally, a when reversed (b / a).
  const bool invertB = spec.kind == EltwiseSpec::Div && !reversed;
  // Dense VRF rows of `n` elements.
  auto vrf = [](uint64_t addr, int64_t n, ElementFormat format) {
    return denseOperand(Space::Vrf, addr, n, format);
  };
  // Where an intermediate that must stay f32 goes (rows of `n`): in place
  // for f32 data, else `work` (see workPerRow).
  auto widened = [&](uint64_t self, uint64_t work, int64_t n) {
    return vrf(fmt == kF32Format ? self : work, n, kF32Format);
  };
  // `rows` dense rows of the block's width from DRAM at `src`.
  auto load = [&](const Operand2D &dst, uint64_t src, int64_t rows, int64_t n) {
    DmaLoad dma;
    dma.dst = dst.ref();
    dma.src = {Space::Dram, src};
    dma.format = fmt;
    dma.x = n;
    dma.y = rows;
    emitLoad(emitter, dma);
  };

  // Resident b (row vector or scalar), loaded once; inverted once for div.
  // Its pitch is set where it is used.
  Operand2D residentB = vrf(layout.resident, 1, fmt);
  if (spec.b == EltwiseSpec::Row || spec.b == EltwiseSpec::Scalar) {
    int64_t bElems = spec.b == EltwiseSpec::Row ? cols : 1;
    residentB = vrf(layout.resident, bElems, fmt);
    load(residentB, spec.bAddr, 1, bElems);
    if (invertB) {
      Operand2D inverse = widened(layout.resident, layout.residentWide, bElems);
      emitUnary(emitter, Opcode::VRecip, inverse, residentB, 1, bElems);
      residentB = inverse;
    }
  }

  for (int64_t row = 0, rc = 0; row < spec.rows; row += rc, ++chunk) {
    rc = std::min(layout.rowsPerChunk, spec.rows - row);
    // A chunk of a block-broadcast b stays inside one block (the chunk's b
    // rows are then one contiguous run of it).
    if (spec.b == EltwiseSpec::Block)
      rc = std::min(rc, spec.blockRows - row % spec.blockRows);
    const uint64_t aBuf = layout.slot[chunk % 2];
    const uint64_t bBuf = aBuf + layout.bOffset;
    const uint64_t work = aBuf + layout.workOffset;
    const Operand2D a = vrf(aBuf, cols, fmt);
    Operand2D b = residentB;
    if (spec.aIsRow) {
      // The row once per chunk row: planes of one row, source stride 0.
      DmaLoad dma;
      dma.dst = a.ref();
      dma.src = {Space::Dram, spec.aAddr};
      dma.format = fmt;
      dma.x = cols;
      dma.z = rc;
      dma.dpitch = fmt.rowBytes(cols);
      emitLoad(emitter, dma);
    } else {
      load(a, spec.aAddr + uint64_t(fmt.rowBytes(row * cols)), rc, cols);
    }
    if (hasBRows(spec)) {
      int64_t bRow = spec.b == EltwiseSpec::Block ? row % spec.blockRows : row;
      b = vrf(bBuf, cols, fmt);
      load(b, spec.bAddr + uint64_t(fmt.rowBytes(bRow * cols)), rc, cols);
    } else if (spec.b == EltwiseSpec::Col) {
      // The chunk's rc values start at row * e bytes, usually not a DRAM
      // alignment multiple: load from the aligned address below and use the
      // values from `delta` on.
      int64_t delta = row % alignElems;
      load(vrf(bBuf, rc + delta, fmt),
           spec.bAddr + uint64_t(fmt.rowBytes(row - delta)), 1, rc + delta);
      b = vrf(bBuf + uint64_t(fmt.rowBytes(delta)), rc, fmt);
    }

    switch (spec.kind) {
    case EltwiseSpec::Add:
    case EltwiseSpec::Sub:
    case EltwiseSpec::Mul:
    case EltwiseSpec::Div:
    case EltwiseSpec::Max:
    case EltwiseSpec::Min: {
      // b - a = -a + b (negation is exact); b / a = (1/a) * b with 1/a
      // kept in f32.
      Operand2D lhs = a;
      if (reversed && spec.kind == EltwiseSpec::Sub)
        emitUnary(emitter, Opcode::VNeg, a, a, rc, cols);
      if (reversed && spec.kind == EltwiseSpec::Div) {
        lhs = widened(aBuf, work, cols);
        emitUnary(emitter, Opcode::VRecip, lhs, a, rc, cols);
      }
      Opcode opcode = binaryOpcode(spec.kind);
      if (reversed && spec.kind == EltwiseSpec::Sub)
        opcode = Opcode::VAdd;
      if (spec.b == EltwiseSpec::Imm) {
        float imm = spec.imm;
        Opcode vs = Opcode::VsAdd;
        switch (opcode) {
        case Opcode::VSub:
          vs = Opcode::VsAdd;
          imm = -imm;
          break;
        case Opcode::VMul:
          vs = Opcode::VsMul;
          break;
        case Opcode::VMax:
          vs = Opcode::VsMax;
          break;
        case Opcode::VMin:
          vs = Opcode::VsMin;
          break;
        default:
          break;
        }
        // Division by a constant: multiply by its correctly rounded inverse
        // (what v.recip would compute).
        if (invertB)
          imm = 1.0f / imm;
        emitScalar(emitter, vs, a, a, imm, rc, cols);
        break;
      }
      if (invertB && (hasBRows(spec) || spec.b == EltwiseSpec::Col)) {
        // A full b as rc rows, a per-row b as one row of rc values.
        int64_t bCols = hasBRows(spec) ? cols : rc;
        int64_t bRows = hasBRows(spec) ? rc : 1;
        Operand2D inverse = widened(b.addr, work, bCols);
        emitUnary(emitter, Opcode::VRecip, inverse, b, bRows, bCols);
        b = inverse;
      }
      // b as the vector units read it: one value per row for a per-row b,
      // else rows of cols (the pitch is unused by a scalar broadcast).
      Bcast bcast = Bcast::None;
      int64_t bpitch = b.format.rowBytes(cols);
      switch (spec.b) {
      case EltwiseSpec::Row:
        bcast = Bcast::Row;
        break;
      case EltwiseSpec::Col:
        bcast = Bcast::Col;
        bpitch = b.format.rowBytes(1);
        break;
      case EltwiseSpec::Scalar:
        bcast = Bcast::Scalar;
        break;
      default:
        break;
      }
      emitBinary(emitter, opcode, a, lhs, b.withPitch(bpitch), bcast, rc, cols);
      break;
    }
    case EltwiseSpec::Square:
      emitBinary(emitter, Opcode::VMul, a, a, a, Bcast::None, rc, cols);
      break;
    case EltwiseSpec::Sqrt: {
      // 1 / rsqrt(x), rounded to the data's format once.
      Operand2D root = widened(aBuf, work, cols);
      emitUnary(emitter, Opcode::VRsqrt, root, a, rc, cols);
      emitUnary(emitter, Opcode::VRecip, a, root, rc, cols);
      break;
    }
    case EltwiseSpec::Clip:
      if (spec.clipMin)
        emitScalar(emitter, Opcode::VsMax, a, a, *spec.clipMin, rc, cols);
      if (spec.clipMax)
        emitScalar(emitter, Opcode::VsMin, a, a, *spec.clipMax, rc, cols);
      break;
    default:
      emitUnary(emitter, unaryOpcode(spec.kind), a, a, rc, cols);
      break;
    }

    DmaStore store;
    store.dst = {Space::Dram,
                 spec.outAddr + uint64_t(fmt.rowBytes(row * cols))};
    store.src = a.ref();
    store.format = fmt;
    store.x = cols;
    store.y = rc;
    emitStore(emitter, store);
  }
}

void emitEltwise(ProgramEmitter &emitter, const TargetDesc &target,
                 const EltwiseSpec &spec) {
  // The broadcast loops (EltwiseBroadcast.h) repeat the whole problem at
  // the next output rows and a's and b's offsets for the repetition.
  int64_t repeats = 1;
  for (const BroadcastLoop &loop : spec.loops)
    repeats *= loop.count;
  const uint64_t problemBytes =
      uint64_t(spec.format.rowBytes(spec.rows * spec.cols));
  int64_t chunk = 0;
  for (int64_t repeat = 0; repeat < repeats; ++repeat) {
    int64_t aOffset = 0, bOffset = 0;
    for (int64_t rest = repeat, i = int64_t(spec.loops.size()); i-- > 0;) {
      aOffset += rest % spec.loops[i].count * spec.loops[i].aStride;
      bOffset += rest % spec.loops[i].count * spec.loops[i].bStride;
      rest /= spec.loops[i].count;
    }
    EltwiseSpec part = spec;
    part.aAddr += uint64_t(spec.format.rowBytes(aOffset));
    part.outAddr += uint64_t(repeat) * problemBytes;
    part.bAddr += uint64_t(spec.format.rowBytes(bOffset));
    emitProblem(emitter, target, part, chunk);
  }
}

//===----------------------------------------------------------------------===//
// MLIR adapter.
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// How an operand relates to the output: the whole of it, one element (a
/// constant one: Imm), or broadcast along some of its dimensions (None: the
/// op's broadcast pattern, EltwiseBroadcast.h, says how).
EltwiseSpec::BKind classify(Value value, ArrayRef<int64_t> out) {
  RankedTensorType type = tensorType(value);
  int64_t numel = type.getNumElements();
  int64_t outNumel = std::accumulate(out.begin(), out.end(), int64_t{1},
                                     std::multiplies<int64_t>());
  if (numel == outNumel)
    return EltwiseSpec::Full;
  if (numel == 1)
    return getF32Constant(value) ? EltwiseSpec::Imm : EltwiseSpec::Scalar;
  return EltwiseSpec::None;
}

/// Sets the view of a broadcast b (Row / Col `pattern`) and checks that the
/// target can run it: a row of b too wide for the vector unit becomes a
/// block of narrower rows; repetitions of the problem must start at
/// DRAM-aligned addresses of a, b and the output.
bool setBroadcastView(EltwiseSpec &spec, const BroadcastPattern &pattern,
                      const TargetDesc &target, std::string &reason) {
  const ElementFormat fmt = spec.format;
  const int64_t align = int64_t(target.memory(Space::Dram).align);
  // Where each repetition starts in a, b and the output.
  int64_t repeats = 1;
  bool aligned = true;
  for (const BroadcastLoop &loop : pattern.loops) {
    repeats *= loop.count;
    aligned &= fmt.rowBytes(loop.aStride) % align == 0 &&
               fmt.rowBytes(loop.bStride) % align == 0;
  }
  if (repeats > 1)
    aligned &= fmt.rowBytes(pattern.rows * pattern.cols) % align == 0;
  if (!aligned) {
    reason = "a repetition of the broadcast would start at a DRAM offset "
             "that is not a multiple of " +
             std::to_string(align) + " bytes";
    return false;
  }
  // Every repetition is a chunk at least: bound the program's size.
  if (repeats > kMaxBroadcastRepeats) {
    reason = "the broadcast repeats its operand " + std::to_string(repeats) +
             " times (at most " + std::to_string(kMaxBroadcastRepeats) +
             " are lowered to the card)";
    return false;
  }
  spec.loops = pattern.loops;
  spec.rows = pattern.rows;
  spec.cols = pattern.cols;
  if (computeLayout(target, spec))
    return true;
  if (spec.b == EltwiseSpec::Row) {
    // b's row (S x D of a position table, say) is wider than the vector
    // unit's tiling: read it as blockRows rows of a divisor of its width,
    // the block reused every blockRows output rows. Blocks start at aligned
    // addresses so that every chunk does.
    const int64_t width = pattern.cols;
    for (int64_t cols = std::min(width, kMaxFlatCols); cols >= 1; --cols) {
      if (width % cols)
        continue;
      spec.b = EltwiseSpec::Block;
      spec.cols = cols;
      spec.blockRows = width / cols;
      spec.rows = pattern.rows * spec.blockRows;
      if (fmt.rowBytes(width) % align == 0 && computeLayout(target, spec))
        return true;
    }
  }
  reason = "rows of " + std::to_string(pattern.cols) +
           " elements do not fit the vector unit's tiling";
  return false;
}

/// Builds the spec of `op` (addresses left 0) or explains why not.
std::optional<EltwiseSpec> makeSpec(Operation *op, const TargetDesc &target,
                                    std::string &reason) {
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type type : types) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape()) {
      reason = "only static shapes are lowered to the card";
      return std::nullopt;
    }
  }
  if (!allCardFloat(types, op->getName().getStringRef(), reason))
    return std::nullopt;
  if (llvm::any_of(types, [&](Type type) {
        return !(*getElementFormat(type) == *getElementFormat(types.front()));
      })) {
    reason = op->getName().getStringRef().str() +
             " with mixed element types is not lowered to the card";
    return std::nullopt;
  }
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> out = outType.getShape();
  int64_t total = outType.getNumElements();
  if (total == 0) {
    reason = "empty tensors are not lowered to the card";
    return std::nullopt;
  }

  EltwiseSpec spec;
  spec.format = *getElementFormat(outType);
  BroadcastPattern pattern;
  bool binary = true;
  if (isa<AddOp>(op))
    spec.kind = EltwiseSpec::Add;
  else if (isa<SubOp>(op))
    spec.kind = EltwiseSpec::Sub;
  else if (isa<MulOp>(op))
    spec.kind = EltwiseSpec::Mul;
  else if (isa<DivOp>(op))
    spec.kind = EltwiseSpec::Div;
  else if (isa<MaxOp>(op))
    spec.kind = EltwiseSpec::Max;
  else if (isa<MinOp>(op))
    spec.kind = EltwiseSpec::Min;
  else {
    binary = false;
    if (auto pow = dyn_cast<PowOp>(op)) {
      std::optional<F32ConstantView> exponent = getF32Constant(pow.getRhs());
      if (!exponent || tensorType(pow.getRhs()).getNumElements() != 1 ||
          (exponent->data.empty())) {
        reason = "pow runs on the card only with a constant scalar exponent";
        return std::nullopt;
      }
      float e = (*exponent)[0];
      if (e == 2.0f)
        spec.kind = EltwiseSpec::Square;
      else if (e == 0.5f)
        spec.kind = EltwiseSpec::Sqrt;
      else {
        reason = "pow runs on the card only with exponent 2 or 0.5 (the "
                 "vector units have no log/exp-based power)";
        return std::nullopt;
      }
      if (tensorType(pow.getLhs()).getNumElements() != total) {
        reason = "pow with a broadcast base is not lowered to the card";
        return std::nullopt;
      }
    } else if (isa<SqrtOp>(op))
      spec.kind = EltwiseSpec::Sqrt;
    else if (isa<ReluOp>(op))
      spec.kind = EltwiseSpec::Relu;
    else if (isa<SigmoidOp>(op))
      spec.kind = EltwiseSpec::Sigmoid;
    else if (isa<TanhOp>(op))
      spec.kind = EltwiseSpec::Tanh;
    else if (isa<ExpOp>(op))
      spec.kind = EltwiseSpec::Exp;
    else if (isa<AbsOp>(op))
      spec.kind = EltwiseSpec::Abs;
    else if (isa<NegOp>(op))
      spec.kind = EltwiseSpec::Neg;
    else if (auto gelu = dyn_cast<GeluOp>(op)) {
      spec.kind = EltwiseSpec::Gelu;
      if (gelu.getApproximate() == GeluApproximation::tanh) {
        // v.gelut computes numerics' geluTanhF32, as the host does.
        if (target.isaMinor < 2) {
          reason = "the tanh gelu (v.gelut) needs ISA 1.2; target '" +
                   target.name + "' implements ISA 1." +
                   std::to_string(target.isaMinor);
          return std::nullopt;
        }
        spec.kind = EltwiseSpec::GeluTanh;
      }
    } else if (auto clip = dyn_cast<ClipOp>(op)) {
      spec.kind = EltwiseSpec::Clip;
      if (auto min = clip.getMin())
        spec.clipMin = min->convertToFloat();
      if (auto max = clip.getMax())
        spec.clipMax = max->convertToFloat();
      if (spec.clipMin && spec.clipMax && !(*spec.clipMin <= *spec.clipMax)) {
        reason = "clip with min > max is not lowered to the card";
        return std::nullopt;
      }
    } else {
      reason = "no NPU lowering for " + op->getName().getStringRef().str();
      return std::nullopt;
    }
  }

  if (binary) {
    EltwiseSpec::BKind lhs = classify(op->getOperand(0), out);
    EltwiseSpec::BKind rhs = classify(op->getOperand(1), out);
    if (lhs == EltwiseSpec::Full && rhs != EltwiseSpec::None) {
      spec.b = rhs;
    } else if (rhs == EltwiseSpec::Full && lhs != EltwiseSpec::None) {
      spec.b = lhs;
      spec.reversed = true;
    } else {
      std::optional<BroadcastPattern> broadcast =
          getBroadcastPattern(tensorType(op->getOperand(0)).getShape(),
                              tensorType(op->getOperand(1)).getShape(), out);
      if (!broadcast) {
        reason = "operands that are not numpy broadcasts of the result are "
                 "not lowered to the card";
        return std::nullopt;
      }
      pattern = *broadcast;
      spec.b = pattern.innerRow ? EltwiseSpec::Row : EltwiseSpec::Col;
      spec.aIsRow = pattern.aIsRow;
      spec.reversed = pattern.bIsLhs;
    }
    if (spec.b == EltwiseSpec::Imm) {
      Value scalar = op->getOperand(spec.reversed ? 0 : 1);
      spec.imm = (*getF32Constant(scalar))[0];
    }
  }

  // The view: the broadcast's inner problem when b is broadcast along
  // rows or columns; otherwise the widest divisor of the element count that
  // gives a legal chunking.
  if (spec.b == EltwiseSpec::Row || spec.b == EltwiseSpec::Col) {
    if (!setBroadcastView(spec, pattern, target, reason))
      return std::nullopt;
    return spec;
  }
  for (int64_t cols = std::min(total, kMaxFlatCols); cols >= 1; --cols) {
    if (total % cols)
      continue;
    spec.cols = cols;
    spec.rows = total / cols;
    if (computeLayout(target, spec))
      return spec;
  }
  reason = "no DRAM-aligned chunking of " + std::to_string(total) +
           " elements fits the vector register file";
  return std::nullopt;
}

LogicalResult checkEltwise(Operation *op, const TargetDesc &target,
                           std::string &reason) {
  if (isQuantizedAdd(op))
    return checkQuantizedAdd(op, target, reason);
  return success(makeSpec(op, target, reason).has_value());
}

LogicalResult emitEltwiseOp(Operation *op, KernelContext &context) {
  if (isQuantizedAdd(op))
    return emitQuantizedAdd(op, context);
  std::string reason;
  std::optional<EltwiseSpec> spec = makeSpec(op, context.target, reason);
  if (!spec)
    return op->emitOpError(reason);
  Value a = op->getOperand(0), b;
  if (spec->b != EltwiseSpec::None && spec->b != EltwiseSpec::Imm) {
    b = op->getOperand(1);
    if (spec->reversed)
      std::swap(a, b);
  } else if (spec->reversed) {
    a = op->getOperand(1);
  }
  spec->aAddr = context.addressOf(a);
  if (b)
    spec->bAddr = context.addressOf(b);
  spec->outAddr = context.addressOf(op->getResult(0));
  emitEltwise(context.emitter, context.target, *spec);
  return success();
}

LogicalResult checkErf(Operation *, const TargetDesc &, std::string &reason) {
  reason = "erf is not in the NPU ISA";
  return failure();
}

LogicalResult emitErf(Operation *op, KernelContext &) {
  return op->emitOpError("erf is not in the NPU ISA");
}
} // namespace

void mlir::nnaccel::npu_lowering::attachElementwiseKernels(
    MLIRContext *context) {
  attachCardKernel<CardKernelModel<checkEltwise, emitEltwiseOp>, AddOp, SubOp,
                   MulOp, DivOp, MaxOp, MinOp, PowOp, SqrtOp, ReluOp, SigmoidOp,
                   TanhOp, ExpOp, GeluOp, AbsOp, NegOp, ClipOp>(context);
  attachCardKernel<CardKernelModel<checkErf, emitErf>, ErfOp>(context);
}
