//===- SelectKernels.cpp - accel.compare and accel.where on the card ------===//
//
// Comparisons and selects on the vector units with the ISA 1.2 mask
// instructions (docs/isa.md §8.7): v.ceq .. v.cge write 1 / 0 for each
// element, v.sel keeps its destination where the mask is 0 and takes b where
// it is not. ONNX Equal / Less / Greater / LessOrEqual / GreaterOrEqual
// import to accel.compare, Where to accel.where, and Not / And / Or / Xor to
// compares and wheres of i1 (lib/Import/ONNX/DecomposedConverters.cpp), so
// all of them run here.
//
// Bool tensors are one byte per element holding 0 or 1 on the card, as the
// runtime stores i1: no conversion at partition boundaries, and the vector
// units read them as u8. Float operands are compared in f32 after exact
// widening (IEEE: NaN compares false except for ne, +0 == -0), integers in
// i32, so every result is exact and equals the host's. A select copies the
// chosen elements bit for bit (dt = bt): NaN, infinities and signed zeros in
// either input survive, and a NaN in the branch not taken does not leak.
//
// The output is viewed as rows x cols (cols: the product of the output's
// dimensions from one split on, chosen so every broadcast operand is a row,
// a column or a scalar of the view; the widest legal row for flat views)
// and streamed in chunks through two VRF slots (one when a double-buffered
// chunk does not fit; column tiles with DRAM-aligned starts when whole rows
// cannot be chunked aligned, e.g. rows of 37 x 37 f32):
//
//   [resident: row-vector and scalar operands, loaded once]
//   for each chunk of rc rows (slot = chunk % 2):
//     dma.ld  full operands and per-row operands -> slot
//     compare: v.c<pred> slot.out, a, b          (b broadcast as needed)
//     where:   slot.out = on_false               (dma.ld, or broadcast)
//              slot.mask = condition             (dma.ld, or broadcast)
//              v.sel slot.out, slot.mask, on_true
//     dma.st  out <- slot.out
//
// Only b of a vector instruction broadcasts, so a compare with a broadcast
// lhs swaps its operands and mirrors the predicate (a < b is b > a). An
// operand that must be a full block but is broadcast (a where's on_false or
// condition, or both sides of a compare) is materialised exactly: v.fill
// with the additive identity (-0.0 in the float domain, where -0 + x = x for
// every x including -0 and NaN; 0 for integers), then v.add of the
// broadcast operand.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "KernelOperands.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::DType;
using ::nnaccel::isa::Bcast;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// Widest row chosen when no operand fixes the view (flattened tensors).
constexpr int64_t kMaxFlatCols = 1024;
/// The first ISA minor with the mask instructions.
constexpr uint16_t kMaskIsaMinor = 2;

/// How an operand relates to the output view.
enum class Shape { Full, Row, Col, Scalar };

struct MaskOperand {
  Shape shape = Shape::Full;
  ElementFormat format = kF32Format;
  uint64_t dram = 0;
  // VRF placement: `resident` for Row / Scalar, `offset` inside a slot for
  // Full / Col.
  uint64_t resident = 0;
  uint64_t offset = 0;
};

/// What the kernel computes, independent of MLIR.
struct MaskSpec {
  bool isWhere = false;
  Opcode compare = Opcode::VCeq; // compare
  // compare: a, b; where: condition, on_true, on_false.
  SmallVector<MaskOperand, 3> operands;
  ElementFormat outFormat = kF32Format;
  uint64_t outAddr = 0;
  int64_t rows = 0, cols = 0;
  // Per slot: the output chunk at offset 0, then the operands' buffers and
  // the materialised block (`work`, in the format it is needed in).
  uint64_t workOffset = 0;
  uint64_t slot[2] = {0, 0};
  int64_t rowsPerChunk = 0;
  /// Columns per chunk: all of them, or DRAM-aligned column tiles when
  /// rows that long cannot be chunked aligned (odd widths such as the
  /// 37 x 37 = 1369 of an attention mask against [1, H, 37, 37]).
  int64_t colsPerChunk = 0;
};

/// The card's storage format of a compare / where element type: the card
/// floats, whole-byte integers up to i32 and bools (bytes 0 / 1 as u8).
std::optional<ElementFormat> getMaskFormat(Type type) {
  if (std::optional<ElementFormat> f = getElementFormat(type))
    return f;
  Type element = getElementTypeOrSelf(type);
  if (!isa<IntegerType>(element))
    return std::nullopt;
  std::optional<DType> dtype = getElementDType(element);
  if (!dtype)
    return std::nullopt;
  switch (*dtype) {
  case DType::I1:
  case DType::U8:
    return ElementFormat(DType::U8);
  case DType::I8:
  case DType::I16:
  case DType::I32:
    return ElementFormat(*dtype);
  default:
    return std::nullopt;
  }
}

bool isFloatFormat(ElementFormat format) {
  return format == kF32Format || format == kF16Format || format == kBF16Format;
}

/// How an operand relates to the output viewed as rows x cols, where cols
/// is the product of the output's dimensions from `split` on: a whole
/// block (Full), one element (Scalar), the same cols for every row (its
/// dimensions before `split` are 1 and from `split` on equal the
/// output's: Row), or one element per row (the other way round: Col).
/// split = rank views every operand as one row (Full / Scalar only).
std::optional<Shape> classify(Value value, ArrayRef<int64_t> out,
                              size_t split) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t outNumel = std::accumulate(out.begin(), out.end(), int64_t{1},
                                     std::multiplies<int64_t>());
  if (type.getNumElements() == outNumel)
    return Shape::Full;
  if (type.getNumElements() == 1)
    return Shape::Scalar;
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.size() > out.size() || split == 0 || split >= out.size())
    return std::nullopt;
  SmallVector<int64_t> aligned(out.size() - shape.size(), 1);
  aligned.append(shape.begin(), shape.end());
  ArrayRef<int64_t> outer = ArrayRef<int64_t>(aligned).take_front(split);
  ArrayRef<int64_t> inner = ArrayRef<int64_t>(aligned).drop_front(split);
  auto ones = [](ArrayRef<int64_t> dims) {
    return llvm::all_of(dims, [](int64_t d) { return d == 1; });
  };
  if (ones(outer) && inner == out.drop_front(split))
    return Shape::Row;
  if (ones(inner) && outer == out.take_front(split))
    return Shape::Col;
  return std::nullopt;
}

/// The predicate with its operands swapped: a < b is b > a.
Opcode mirror(Opcode opcode) {
  switch (opcode) {
  case Opcode::VClt:
    return Opcode::VCgt;
  case Opcode::VCle:
    return Opcode::VCge;
  case Opcode::VCgt:
    return Opcode::VClt;
  case Opcode::VCge:
    return Opcode::VCle;
  default:
    return opcode; // eq, ne
  }
}

Opcode compareOpcode(CompareKind kind) {
  switch (kind) {
  case CompareKind::eq:
    return Opcode::VCeq;
  case CompareKind::ne:
    return Opcode::VCne;
  case CompareKind::lt:
    return Opcode::VClt;
  case CompareKind::le:
    return Opcode::VCle;
  case CompareKind::gt:
    return Opcode::VCgt;
  case CompareKind::ge:
    return Opcode::VCge;
  }
  return Opcode::VCeq;
}

/// Operand 0 (a compare's a, a where's condition) must be a full block;
/// when it is broadcast it is materialised in the slot's work buffer. (A
/// where's on_false is materialised in the output buffer.)
bool needsWork(const MaskSpec &spec) {
  return spec.operands[0].shape != Shape::Full;
}

/// A where's full on_false is loaded straight into the output chunk.
bool isLoadedIntoOut(const MaskSpec &spec, const MaskOperand &operand) {
  return spec.isWhere && &operand == &spec.operands[2] &&
         operand.shape == Shape::Full;
}

int64_t alignElems(const TargetDesc &target, ElementFormat format) {
  return std::max<int64_t>(
      int64_t(target.memory(Space::Dram).align) / format.elementBytes(), 1);
}

/// Lays out the resident operands and `slots` slots (2: double buffered)
/// of chunks of `cc` columns and as many rows as fit; false when not even
/// one aligned chunk does.
bool layoutWith(const TargetDesc &target, MaskSpec &spec, int64_t cc,
                int slots) {
  const int64_t cols = spec.cols;
  if (cols < 1 || cols > kMaxCount || kF32Format.rowBytes(cols) > kMaxPitch)
    return false;
  const uint64_t regBytes = target.vrfRegisterBytes;
  const uint64_t vrfBytes = uint64_t(target.vrfRegisters) * regBytes;
  uint64_t resident = 0;
  for (MaskOperand &operand : spec.operands) {
    if (operand.shape != Shape::Row && operand.shape != Shape::Scalar)
      continue;
    operand.resident = resident;
    resident += alignUp(
        operand.format.rowBytes(operand.shape == Shape::Row ? cols : 1), 4);
  }
  resident = alignUp(resident, regBytes);
  if (resident >= vrfBytes)
    return false;
  const uint64_t slotBytes =
      (vrfBytes - resident) / uint64_t(slots) / regBytes * regBytes;
  spec.slot[0] = resident;
  spec.slot[1] = resident + (slots == 2 ? slotBytes : 0);

  // Chunk starts stay DRAM-aligned for every full stream (rc * cols
  // elements a multiple of the alignment in elements), and 1- and 2-byte
  // per-row operands start their used part on a 4-byte VRF boundary.
  auto rowMultiple = [&](ElementFormat f) {
    return alignElems(target, f) / std::gcd(alignElems(target, f), cols);
  };
  int64_t multiple = rowMultiple(spec.outFormat);
  int64_t perRow = spec.outFormat.rowBytes(cc);
  int64_t slack = 4 * int64_t(spec.operands.size() + 2);
  for (const MaskOperand &operand : spec.operands) {
    const ElementFormat f = operand.format;
    if (operand.shape == Shape::Full) {
      multiple = std::lcm(multiple, rowMultiple(f));
      if (!isLoadedIntoOut(spec, operand))
        perRow += f.rowBytes(cc);
    } else if (operand.shape == Shape::Col) {
      if (f.elementBytes() < 4)
        multiple = std::lcm<int64_t>(multiple, 4 / f.elementBytes());
      perRow += f.rowBytes(1);
      slack += f.rowBytes(alignElems(target, f) - 1);
    }
  }
  if (needsWork(spec))
    perRow += spec.operands[0].format.rowBytes(cc);
  int64_t rows =
      std::min<int64_t>({spec.rows, kMaxDmaYZ,
                         (static_cast<int64_t>(slotBytes) - slack) / perRow});
  if (rows < 1)
    return false;
  if (rows < spec.rows) {
    rows = rows / multiple * multiple;
    if (rows < 1)
      return false;
  }
  spec.rowsPerChunk = rows;
  spec.colsPerChunk = cc;
  uint64_t offset = alignUp(uint64_t(spec.outFormat.rowBytes(rows * cc)), 4);
  for (MaskOperand &operand : spec.operands) {
    const ElementFormat f = operand.format;
    if (operand.shape == Shape::Full && !isLoadedIntoOut(spec, operand)) {
      operand.offset = offset;
      offset = alignUp(offset + uint64_t(f.rowBytes(rows * cc)), 4);
    } else if (operand.shape == Shape::Col) {
      operand.offset = offset;
      offset = alignUp(
          offset + uint64_t(f.rowBytes(rows + alignElems(target, f) - 1)), 4);
    }
  }
  spec.workOffset = offset;
  if (needsWork(spec))
    offset += uint64_t(spec.operands[0].format.rowBytes(rows * cc));
  return offset <= slotBytes;
}

/// Whole rows, double buffered if they fit, else in one slot; failing
/// that, column tiles whose starts are DRAM-aligned in every format (a
/// multiple of the widest alignment in elements), the widest that fit.
bool computeLayout(const TargetDesc &target, MaskSpec &spec) {
  for (int slots : {2, 1})
    if (layoutWith(target, spec, spec.cols, slots))
      return true;
  int64_t colAlign = alignElems(target, spec.outFormat);
  for (const MaskOperand &operand : spec.operands)
    if (operand.shape == Shape::Full || operand.shape == Shape::Row)
      colAlign = std::lcm(colAlign, alignElems(target, operand.format));
  for (int slots : {2, 1})
    for (int64_t cc = (spec.cols - 1) / colAlign * colAlign; cc >= colAlign;
         cc -= colAlign)
      if (layoutWith(target, spec, cc, slots))
        return true;
  return false;
}

void emitMaskKernel(ProgramEmitter &emitter, const TargetDesc &target,
                    const MaskSpec &spec) {
  const int64_t cols = spec.cols;
  auto vrf = [](uint64_t addr, int64_t n, ElementFormat format) {
    return denseOperand(Space::Vrf, addr, n, format);
  };
  // `rows` rows of `n` elements from DRAM rows `stride` elements apart.
  auto load = [&](const Operand2D &dst, uint64_t src, int64_t rows, int64_t n,
                  int64_t stride) {
    DmaLoad dma;
    dma.dst = dst.ref();
    dma.src = {Space::Dram, src};
    dma.format = dst.format;
    dma.x = n;
    dma.y = rows;
    dma.sy = dst.format.rowBytes(stride);
    emitLoad(emitter, dma);
  };

  // Row vectors and scalars, loaded once.
  for (const MaskOperand &operand : spec.operands)
    if (operand.shape == Shape::Row || operand.shape == Shape::Scalar) {
      int64_t n = operand.shape == Shape::Row ? cols : 1;
      load(vrf(operand.resident, n, operand.format), operand.dram, 1, n, n);
    }

  int64_t chunk = 0;
  for (int64_t row = 0; row < spec.rows; row += spec.rowsPerChunk) {
    const int64_t rc = std::min(spec.rowsPerChunk, spec.rows - row);
    for (int64_t col = 0; col < cols; col += spec.colsPerChunk, ++chunk) {
      const int64_t cw = std::min(spec.colsPerChunk, cols - col);
      const uint64_t base = spec.slot[chunk % 2];
      const Operand2D out = vrf(base, cw, spec.outFormat);
      // Element (row, col) of a full operand, in elements.
      const int64_t first = row * cols + col;

      // Each operand as a vector instruction reads it, with its broadcast.
      SmallVector<std::pair<Operand2D, Bcast>, 3> views;
      for (const MaskOperand &operand : spec.operands) {
        const ElementFormat f = operand.format;
        switch (operand.shape) {
        case Shape::Full: {
          Operand2D block = isLoadedIntoOut(spec, operand)
                                ? out
                                : vrf(base + operand.offset, cw, f);
          load(block, operand.dram + uint64_t(f.rowBytes(first)), rc, cw, cols);
          views.push_back({block, Bcast::None});
          break;
        }
        case Shape::Col: {
          // The chunk's rc values start at row * e bytes, usually not a
          // DRAM alignment multiple: load from the aligned address below.
          int64_t delta = row % alignElems(target, f);
          load(vrf(base + operand.offset, rc + delta, f),
               operand.dram + uint64_t(f.rowBytes(row - delta)), 1, rc + delta,
               rc + delta);
          Operand2D column =
              vrf(base + operand.offset + uint64_t(f.rowBytes(delta)), 1, f);
          views.push_back({column, Bcast::Col});
          break;
        }
        case Shape::Row:
          views.push_back(
              {vrf(operand.resident + uint64_t(f.rowBytes(col)), cw, f),
               Bcast::Row});
          break;
        case Shape::Scalar:
          views.push_back({vrf(operand.resident, 1, f), Bcast::Scalar});
          break;
        }
      }
      // Broadcasts `view` into the full block `dst` exactly: fill with the
      // additive identity, then add.
      auto materialise = [&](const Operand2D &dst,
                             const std::pair<Operand2D, Bcast> &view) {
        if (isFloatFormat(dst.format))
          emitFill(emitter, dst, rc, cw, -0.0f);
        else
          emitFillBits(emitter, dst, rc, cw, 0);
        emitBinary(emitter, Opcode::VAdd, dst, dst, view.first, view.second, rc,
                   cw);
      };

      if (!spec.isWhere) {
        Opcode opcode = spec.compare;
        auto a = views[0], b = views[1];
        if (a.second != Bcast::None && b.second == Bcast::None) {
          std::swap(a, b);
          opcode = mirror(opcode);
        } else if (a.second != Bcast::None) {
          Operand2D work = vrf(base + spec.workOffset, cw, a.first.format);
          materialise(work, a);
          a = {work, Bcast::None};
        }
        emitBinary(emitter, opcode, out, a.first, b.first, b.second, rc, cw);
      } else {
        auto condition = views[0], onTrue = views[1], onFalse = views[2];
        if (onFalse.second != Bcast::None)
          materialise(out, onFalse);
        if (condition.second != Bcast::None) {
          Operand2D work =
              vrf(base + spec.workOffset, cw, condition.first.format);
          materialise(work, condition);
          condition = {work, Bcast::None};
        }
        emitBinary(emitter, Opcode::VSel, out, condition.first, onTrue.first,
                   onTrue.second, rc, cw);
      }

      DmaStore store;
      store.dst = {Space::Dram,
                   spec.outAddr + uint64_t(spec.outFormat.rowBytes(first))};
      store.src = out.ref();
      store.format = spec.outFormat;
      store.x = cw;
      store.y = rc;
      store.dy = spec.outFormat.rowBytes(cols);
      emitStore(emitter, store);
    }
  }
}

//===----------------------------------------------------------------------===//
// MLIR adapter.
//===----------------------------------------------------------------------===//

/// Builds the spec of `op` (addresses left 0) or explains why not.
std::optional<MaskSpec> makeSpec(Operation *op, const TargetDesc &target,
                                 std::string &reason) {
  const std::string name = op->getName().getStringRef().str();
  if (target.isaMinor < kMaskIsaMinor) {
    reason = name +
             " needs the ISA 1.2 mask instructions (v.ceq .. v.sel); "
             "target '" +
             target.name + "' implements ISA 1." +
             std::to_string(target.isaMinor);
    return std::nullopt;
  }
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type type : types) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape()) {
      reason = "only static shapes are lowered to the card";
      return std::nullopt;
    }
    if (!getMaskFormat(type)) {
      reason = name +
               " runs on the card on f32, f16, bf16, i32, i16, i8, u8 and "
               "bool tensors only (the vector units compute integers in "
               "i32)";
      return std::nullopt;
    }
  }
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> out = outType.getShape();
  const int64_t total = outType.getNumElements();
  if (total == 0) {
    reason = "empty tensors are not lowered to the card";
    return std::nullopt;
  }

  MaskSpec spec;
  spec.outFormat = *getMaskFormat(outType);
  if (auto compare = dyn_cast<CompareOp>(op)) {
    spec.compare = compareOpcode(compare.getKind());
    if (compare.getLhs().getType().getElementType() !=
        compare.getRhs().getType().getElementType()) {
      reason = "compare with mixed element types is not lowered to the card";
      return std::nullopt;
    }
  } else {
    spec.isWhere = true;
  }
  for (Value operand : op->getOperands()) {
    MaskOperand m;
    m.format = *getMaskFormat(operand.getType());
    spec.operands.push_back(m);
  }
  if (spec.isWhere && (spec.operands[1].format != spec.outFormat ||
                       spec.operands[2].format != spec.outFormat)) {
    reason = "where with mixed element types is not lowered to the card";
    return std::nullopt;
  }

  // The view: with only full and scalar operands, the widest divisor of the
  // element count that gives a legal chunking. Otherwise the output splits
  // into rows x cols at a dimension where every broadcast operand is a row
  // repeated for every row, or one value per row ([4, 5] against [3, 4, 5]
  // is a row of 20; [3, 1, 1] a column); the widest rows that fit win.
  auto classifyAll = [&](size_t split) {
    for (auto [operand, value] : llvm::zip(spec.operands, op->getOperands())) {
      std::optional<Shape> shape = classify(value, out, split);
      if (!shape)
        return false;
      operand.shape = *shape;
    }
    return true;
  };
  if (classifyAll(out.size())) {
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
  bool viewed = false;
  for (size_t split = 1; split < out.size(); ++split) {
    if (!classifyAll(split))
      continue;
    viewed = true;
    spec.cols = std::accumulate(out.begin() + split, out.end(), int64_t{1},
                                std::multiplies<int64_t>());
    spec.rows = total / spec.cols;
    if (computeLayout(target, spec))
      return spec;
  }
  reason = viewed ? "the broadcast operands' rows do not fit the vector "
                    "unit's tiling"
                  : "only broadcasts of a row, a column or a scalar of the "
                    "output (at one split of its dimensions) are lowered to "
                    "the card";
  return std::nullopt;
}

LogicalResult checkMask(Operation *op, const TargetDesc &target,
                        std::string &reason) {
  return success(makeSpec(op, target, reason).has_value());
}

LogicalResult emitMask(Operation *op, KernelContext &context) {
  std::string reason;
  std::optional<MaskSpec> spec = makeSpec(op, context.target, reason);
  if (!spec)
    return op->emitOpError(reason);
  for (auto [operand, value] : llvm::zip(spec->operands, op->getOperands()))
    operand.dram = context.addressOf(value);
  spec->outAddr = context.addressOf(op->getResult(0));
  emitMaskKernel(context.emitter, context.target, *spec);
  return success();
}

} // namespace

void mlir::nnaccel::npu_lowering::attachSelectKernels(MLIRContext *context) {
  attachCardKernel<CardKernelModel<checkMask, emitMask>, CompareOp, WhereOp>(
      context);
}
