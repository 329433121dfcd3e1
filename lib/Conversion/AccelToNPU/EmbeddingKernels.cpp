//===- EmbeddingKernels.cpp - embedding_bag and gather kernels ------------===//
//
// accel.embedding_bag runs as one `emb.gather` with sum/mean pooling: the
// gather engine reads the index list (and the per-sample weights) straight
// from their DRAM tensors through register-indirect operands, pools every
// bag into the accumulator SRAM, and the store queue writes the B x D result
// back. The ISA wants a per-bag i32 length list (or B + 1 i32 offsets):
//   - 2-D indices [B, L] (fixed-size bags): the lengths list (B times L) is
//     written on chip with `v.fill` (i32) into ACC, so no DRAM constant is
//     needed;
//   - lengths (i32): the gather reads the lengths tensor in place; i64
//     lengths are narrowed to their low words by an element-strided DMA;
//   - offsets: copied into ACC (i64: low words, as above) and completed with
//     the final offset N by a one-element `v.fill`.
// Narrowing keeps every valid list (values below 2^31) exact; values that
// only the host would reject (>= 2^31) are not detected on the card.
//
// accel.gather has two forms:
//   - constant indices (any axis, any dtype whose size is a multiple of a
//     byte; the DLRM `gather(sparse, k, axis=1)`): the rows of the data are
//     staged into ACC with one DMA per chunk of outer rows, the selected
//     slices are picked by address arithmetic on chip (`v.mov` when several
//     indices are gathered) and stored with one strided `dma.st`. DMA moves
//     bits, so 8-byte elements travel as pairs of i32 words;
//   - data-dependent indices into a 2-D float table on axis 0: an
//     `emb.gather` without pooling.
//
// The gather engine reads f32, f16 and bf16 table rows (`fmt`), widens them
// exactly, pools in f32 and converts the result to the output's type on
// write, which is how the host's reference computes them too. Rowwise-
// quantized tables (!accel.rowwise<8|4>, accel-quantize-embeddings) are
// read in the engine's rw8/rw4 formats, which it dequantizes row by row
// (q * scale + bias in f32) before weighting and pooling: the table is a
// constant in exactly that layout (dense rows, rowbytes = the fused row
// size), so nothing is converted on the card. The gather engine faults on
// negative indices, which ONNX Gather would wrap (the host kernel does).
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "KernelOperands.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
namespace build = ::nnaccel::isa::build;
using ::nnaccel::isa::DType;
using ::nnaccel::isa::EmbFmt;
using ::nnaccel::isa::IdxType;
using ::nnaccel::isa::Pool;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

// Store chunks of this many rows start at 64-byte multiples for any row size
// that is a multiple of 2 bytes (4032 * 2 = 64 * 126).
constexpr int64_t kStoreChunkRows = 4032;

// Scalar registers holding the register-indirect list addresses.
constexpr unsigned kIdxReg = 1, kLenReg = 2, kWtsReg = 3;

/// The i32 length / offset lists.

int64_t indexBytes(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementTypeBitWidth() / 8;
}

/// The row format of a table the gather engine reads: f32, f16, bf16 or a
/// rowwise-quantized format (rw8, rw4), whose rowBytes is the fused row.
std::optional<ElementFormat> getTableFormat(Type type) {
  std::optional<DType> dtype = getElementDType(type);
  if (dtype && ::nnaccel::isRowwise(*dtype))
    return ElementFormat(*dtype);
  return getElementFormat(type);
}

/// The gather engine's row format of a table.
EmbFmt embFormat(ElementFormat format) {
  switch (format.dtype) {
  case DType::F16:
    return EmbFmt::F16;
  case DType::BF16:
    return EmbFmt::BF16;
  case DType::RW8:
    return EmbFmt::RW8;
  case DType::RW4:
    return EmbFmt::RW4;
  default:
    return EmbFmt::F32;
  }
}

/// Stores `rows` x `cols` elements of `format` from ACC (dense) to DRAM
/// (dense), in chunks the DMA can address.
void storeRows(ProgramEmitter &emitter, uint64_t acc, uint64_t dram,
               int64_t rows, int64_t cols, ElementFormat format) {
  const int64_t rowBytes = format.rowBytes(cols);
  for (int64_t row = 0; row < rows; row += kStoreChunkRows) {
    DmaStore store;
    store.dst = {Space::Dram, dram + uint64_t(row * rowBytes)};
    store.src = {Space::Acc, acc + uint64_t(row * rowBytes)};
    store.format = format;
    store.x = cols;
    store.y = std::min(kStoreChunkRows, rows - row);
    emitStore(emitter, store);
  }
}

//===----------------------------------------------------------------------===//
// embedding_bag
//===----------------------------------------------------------------------===//

/// Shape of an embedding_bag the kernel handles.
struct BagShape {
  ElementFormat table, out;
  int64_t rows, dim, bags, numIndices;
  bool fixedLength;
  int64_t length; // fixed-size bags
};

BagShape getBagShape(EmbeddingBagOp op) {
  auto table = cast<RankedTensorType>(op.getTable().getType());
  auto indices = cast<RankedTensorType>(op.getIndices().getType());
  BagShape shape;
  shape.table = getTableFormat(table).value_or(kF32Format);
  shape.out = getElementFormat(op.getType()).value_or(kF32Format);
  shape.rows = table.getDimSize(0);
  shape.dim = table.getDimSize(1);
  shape.bags = op.getType().getDimSize(0);
  shape.numIndices = indices.getNumElements();
  shape.fixedLength = indices.getRank() == 2;
  shape.length = shape.fixedLength ? indices.getDimSize(1) : 0;
  return shape;
}

/// ACC layout: the pooled result, then the i32 length/offset list.
struct BagLayout {
  uint64_t out = 0, list = 0, end = 0;
};

BagLayout getBagLayout(const BagShape &shape) {
  BagLayout layout;
  layout.list =
      alignUp(uint64_t(shape.bags * shape.out.rowBytes(shape.dim)), 64);
  layout.end = layout.list + uint64_t(kI32Format.rowBytes(shape.bags + 1));
  return layout;
}

LogicalResult checkEmbeddingBag(Operation *operation, const TargetDesc &target,
                                std::string &reason) {
  auto op = cast<EmbeddingBagOp>(operation);
  auto table = cast<RankedTensorType>(op.getTable().getType());
  if (!getTableFormat(table) || !getElementFormat(op.getType())) {
    reason = "embedding_bag runs on the card with f32, f16, bf16 or rowwise "
             "(rw8, rw4) tables and f32, f16 or bf16 results only";
    return failure();
  }
  if (table.getRank() != 2 || op.getType().getRank() != 2) {
    reason = "embedding_bag needs a 2-D table";
    return failure();
  }
  if (Value weights = op.getPerSampleWeights();
      weights &&
      !cast<RankedTensorType>(weights.getType()).getElementType().isF32()) {
    reason = "per_sample_weights must be f32 on the card";
    return failure();
  }
  BagShape shape = getBagShape(op);
  if (shape.bags < 1 || shape.numIndices < 1 || shape.rows < 1) {
    reason = "embedding_bag with no bags, indices or table rows stays on the "
             "host";
    return failure();
  }
  if (shape.rows > 0xFFFFFFFFll || shape.out.rowBytes(shape.dim) > kMaxPitch ||
      shape.bags > kMaxCount) {
    reason = "the table has too many rows, the rows are wider than the "
             "gather's 64 KiB pitch, or there are more than 65535 bags";
    return failure();
  }
  if (getBagLayout(shape).end > target.memory(Space::Acc).bytes) {
    reason = "the " + std::to_string(shape.bags) + " x " +
             std::to_string(shape.dim) +
             " pooled result does not fit the accumulator SRAM";
    return failure();
  }
  return success();
}

LogicalResult emitEmbeddingBag(Operation *operation, KernelContext &context) {
  auto op = cast<EmbeddingBagOp>(operation);
  ProgramEmitter &emitter = context.emitter;
  BagShape shape = getBagShape(op);
  BagLayout layout = getBagLayout(shape);
  const int64_t isz = indexBytes(op.getIndices());
  const uint64_t indices = context.addressOf(op.getIndices());

  // The i32 per-bag list: where it lives.
  Space listSpace = Space::Acc;
  uint64_t listAddress = layout.list;
  bool offsets = false;
  // v.fill of i32 `value`: the immediate is its bit pattern (docs/isa.md,
  // v.fill).
  auto fill = [&](uint64_t at, int64_t count, int64_t value) {
    emitFillBits(emitter, denseOperand(Space::Acc, at, count, kI32Format), 1,
                 count, static_cast<uint32_t>(value));
  };
  // Copies `count` list entries to ACC as i32 (i64: their low words).
  auto copyList = [&](Value list, int64_t count) {
    uint64_t src = context.addressOf(list);
    int64_t esz = indexBytes(list);
    for (int64_t i = 0; i < count; i += kStoreChunkRows) {
      int64_t n = std::min(kStoreChunkRows, count - i);
      DmaLoad load;
      load.dst = {Space::Acc, layout.list + uint64_t(kI32Format.rowBytes(i))};
      load.src = {Space::Dram, src + uint64_t(i * esz)};
      load.format = kI32Format;
      if (esz == 4) {
        load.x = n;
      } else {
        // One word per element, the low one (little endian).
        load.x = 1;
        load.y = n;
        load.sy = esz;
      }
      emitLoad(emitter, load);
    }
  };

  if (shape.fixedLength) {
    fill(layout.list, shape.bags, shape.length);
  } else if (Value lengths = op.getLengths()) {
    if (indexBytes(lengths) == 4) {
      listSpace = Space::Dram;
      listAddress = context.addressOf(lengths);
    } else {
      copyList(lengths, shape.bags);
    }
  } else {
    copyList(op.getOffsets(), shape.bags);
    fill(layout.list + uint64_t(kI32Format.rowBytes(shape.bags)), 1,
         shape.numIndices);
    offsets = true;
  }

  // The emitter derives the gather's reads from the registers set here.
  emitter.emit(build::SLi().rd(kIdxReg).imm(int64_t(indices)));
  emitter.emit(build::SLi().rd(kLenReg).imm(int64_t(listAddress)));
  Value weights = op.getPerSampleWeights();
  if (weights)
    emitter.emit(
        build::SLi().rd(kWtsReg).imm(int64_t(context.addressOf(weights))));

  auto gather =
      build::EmbGather()
          .dst(Space::Acc, layout.out)
          .table(Space::Dram, context.addressOf(op.getTable()))
          .idx(Space::Dram, kIdxReg)
          .len(listSpace, kLenReg)
          .dt(shape.out.dtype)
          .fmt(embFormat(shape.table))
          .dim(shape.dim)
          .rowbytes(shape.table.rowBytes(shape.dim))
          .nrows(shape.rows)
          .nseg(shape.bags)
          .ityp(isz == 8 ? IdxType::I64 : IdxType::I32)
          .offs(offsets)
          .pool(op.getMode() == BagMode::mean ? Pool::Mean : Pool::Sum)
          .weighted(bool(weights))
          .dpitch(shape.out.rowBytes(shape.dim));
  if (weights)
    gather.wts(Space::Dram, kWtsReg);
  emitter.emit(gather);

  storeRows(emitter, layout.out, context.addressOf(op.getResult()), shape.bags,
            shape.dim, shape.out);
  return success();
}

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

/// The constant indices of a gather, normalised to [0, axis size), or
/// nullopt when they are not an inline constant (or out of range).
std::optional<SmallVector<int64_t>> getConstantIndices(GatherOp op) {
  DenseIntElementsAttr attr;
  if (!matchPattern(op.getIndices(), m_Constant(&attr)))
    return std::nullopt;
  auto dataType = cast<RankedTensorType>(op.getData().getType());
  // The I64Attr getter is unsigned; read it signed so -1 normalises.
  int64_t rawAxis = static_cast<int64_t>(op.getAxis());
  int64_t axis = rawAxis < 0 ? rawAxis + dataType.getRank() : rawAxis;
  int64_t size = dataType.getDimSize(axis);
  SmallVector<int64_t> result;
  for (const APInt &value : attr.getValues<APInt>()) {
    int64_t index = value.getSExtValue();
    if (index < 0)
      index += size;
    if (index < 0 || index >= size)
      return std::nullopt;
    result.push_back(index);
  }
  return result;
}

/// A constant-index gather seen as data [outer, A, inner] -> [outer, n,
/// inner], moved in `word`-byte DMA elements.
struct ConstGather {
  int64_t outer = 1, axisSize = 1, inner = 1, count = 0;
  int64_t elementBytes = 0, wordBytes = 0;
  DType word = DType::I32;
  int64_t rowsPerChunk = 0;
  uint64_t stage = 0, pick = 0; // ACC: staged data rows, picked result rows
  int64_t dataRowBytes() const { return axisSize * inner * elementBytes; }
  int64_t sliceBytes() const { return inner * elementBytes; }
  int64_t outRowBytes() const { return count * sliceBytes(); }
};

std::optional<ConstGather> planConstGather(GatherOp op,
                                           ArrayRef<int64_t> indices,
                                           const TargetDesc &target,
                                           std::string &reason) {
  auto dataType = cast<RankedTensorType>(op.getData().getType());
  int64_t rank = dataType.getRank();
  int64_t rawAxis = static_cast<int64_t>(op.getAxis());
  int64_t axis = rawAxis < 0 ? rawAxis + rank : rawAxis;
  ConstGather plan;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis)
      plan.outer *= dataType.getDimSize(d);
    else if (d > axis)
      plan.inner *= dataType.getDimSize(d);
  }
  plan.axisSize = dataType.getDimSize(axis);
  plan.count = static_cast<int64_t>(indices.size());
  unsigned bits = dataType.getElementTypeBitWidth();
  if (bits % 8 != 0 || plan.outer * plan.inner * plan.count == 0) {
    reason = "gather of sub-byte elements or empty tensors stays on the host";
    return std::nullopt;
  }
  plan.elementBytes = bits / 8;
  switch (plan.elementBytes) {
  case 1:
    plan.word = DType::U8;
    plan.wordBytes = 1;
    break;
  case 2:
    plan.word = DType::I16;
    plan.wordBytes = 2;
    break;
  default:
    if (plan.elementBytes % 4 != 0) {
      reason = "gather of " + std::to_string(bits) + "-bit elements";
      return std::nullopt;
    }
    plan.word = DType::I32;
    plan.wordBytes = 4;
    break;
  }
  // On-chip slice addresses must respect the ACC alignment (4 bytes).
  uint64_t accAlign = target.memory(Space::Acc).align;
  if (plan.sliceBytes() % accAlign != 0) {
    reason = "gathered slices of " + std::to_string(plan.sliceBytes()) +
             " bytes are not aligned for the accumulator SRAM";
    return std::nullopt;
  }
  if (plan.dataRowBytes() > kMaxPitch || plan.outRowBytes() > kMaxPitch) {
    reason = "gather rows wider than the 64 KiB pitch";
    return std::nullopt;
  }
  uint64_t perRow = uint64_t(plan.dataRowBytes()) +
                    (plan.count > 1 ? uint64_t(plan.outRowBytes()) : 0);
  plan.rowsPerChunk = std::min<int64_t>(
      {plan.outer, kMaxDmaYZ,
       static_cast<int64_t>(target.memory(Space::Acc).bytes / perRow)});
  if (plan.rowsPerChunk < 1) {
    reason = "a gather row does not fit the accumulator SRAM";
    return std::nullopt;
  }
  uint64_t dramAlign = target.memory(Space::Dram).align;
  if (plan.rowsPerChunk < plan.outer &&
      ((plan.rowsPerChunk * plan.dataRowBytes()) % dramAlign != 0 ||
       (plan.rowsPerChunk * plan.outRowBytes()) % dramAlign != 0)) {
    reason = "gather chunks would start at unaligned DRAM addresses";
    return std::nullopt;
  }
  plan.stage = 0;
  plan.pick = alignUp(uint64_t(plan.rowsPerChunk * plan.dataRowBytes()), 64);
  return plan;
}

/// Plain gather of rows of a 2-D float or rowwise table by data-dependent
/// indices (and of a rowwise table by any indices).
bool canGatherRows(GatherOp op, const TargetDesc &target, std::string &reason) {
  auto dataType = cast<RankedTensorType>(op.getData().getType());
  // The I64Attr getter is unsigned; read it signed so -1 normalises.
  int64_t rawAxis = static_cast<int64_t>(op.getAxis());
  int64_t axis = rawAxis < 0 ? rawAxis + dataType.getRank() : rawAxis;
  std::optional<ElementFormat> format = getTableFormat(dataType);
  std::optional<ElementFormat> out = getElementFormat(op.getType());
  if (dataType.getRank() != 2 || axis != 0 || !format || !out) {
    reason = "gather with data-dependent indices runs on the card only for "
             "rows (axis 0) of a 2-D f32, f16, bf16 or rowwise table";
    return false;
  }
  int64_t n =
      cast<RankedTensorType>(op.getIndices().getType()).getNumElements();
  int64_t dim = dataType.getDimSize(1);
  int64_t rowBytes = std::max(format->rowBytes(dim), out->rowBytes(dim));
  if (n < 1 || n > kMaxCount || rowBytes > kMaxPitch ||
      dataType.getDimSize(0) > 0xFFFFFFFFll ||
      uint64_t(n * out->rowBytes(dim)) > target.memory(Space::Acc).bytes) {
    reason = "gathered rows do not fit one gather instruction";
    return false;
  }
  return true;
}

LogicalResult checkGather(Operation *operation, const TargetDesc &target,
                          std::string &reason) {
  auto op = cast<GatherOp>(operation);
  // Rows of a rowwise table need the gather engine's dequantization, even
  // at constant indices.
  std::optional<SmallVector<int64_t>> indices;
  if (!isRowwiseTable(op.getData().getType()))
    indices = getConstantIndices(op);
  if (indices) {
    if (!planConstGather(op, *indices, target, reason))
      return failure();
    return success();
  }
  if (!canGatherRows(op, target, reason))
    return failure();
  return success();
}

void emitConstGather(GatherOp op, ArrayRef<int64_t> indices,
                     const ConstGather &plan, KernelContext &context) {
  ProgramEmitter &emitter = context.emitter;
  const uint64_t data = context.addressOf(op.getData());
  const uint64_t result = context.addressOf(op.getResult());
  const int64_t wordsPerSlice = plan.sliceBytes() / plan.wordBytes;
  const ElementFormat word(plan.word);
  // Staged data rows and picked result rows in ACC (columns in words).
  const Operand2D staged{Space::Acc, plan.stage, plan.dataRowBytes(), word};
  const Operand2D picked{Space::Acc, plan.pick, plan.outRowBytes(), word};

  for (int64_t row = 0; row < plan.outer; row += plan.rowsPerChunk) {
    int64_t rows = std::min(plan.rowsPerChunk, plan.outer - row);
    DmaLoad load;
    load.dst = staged.ref();
    load.src = {Space::Dram, data + uint64_t(row * plan.dataRowBytes())};
    load.format = word;
    load.x = plan.dataRowBytes() / plan.wordBytes;
    load.y = rows;
    emitLoad(emitter, load);

    // One index: store the selected slice of every staged row directly.
    Operand2D src = staged.at(0, indices[0] * wordsPerSlice);
    if (plan.count > 1) {
      // Several: pick each slice into the result layout first.
      for (auto [position, index] : llvm::enumerate(indices))
        emitCopy(emitter, picked.at(0, int64_t(position) * wordsPerSlice),
                 staged.at(0, index * wordsPerSlice), rows, wordsPerSlice);
      src = picked;
    }
    DmaStore store;
    store.dst = {Space::Dram, result + uint64_t(row * plan.outRowBytes())};
    store.src = src.ref();
    store.format = word;
    store.x = plan.outRowBytes() / plan.wordBytes;
    store.y = rows;
    store.spitch = src.pitch;
    emitStore(emitter, store);
  }
}

void emitRowGather(GatherOp op, KernelContext &context) {
  ProgramEmitter &emitter = context.emitter;
  auto dataType = cast<RankedTensorType>(op.getData().getType());
  int64_t rows = dataType.getDimSize(0), dim = dataType.getDimSize(1);
  int64_t n =
      cast<RankedTensorType>(op.getIndices().getType()).getNumElements();
  const ElementFormat format = *getTableFormat(dataType);
  const ElementFormat out = *getElementFormat(op.getType());
  // The emitter derives the gather's index reads from the register.
  emitter.emit(build::SLi().rd(kIdxReg).imm(
      int64_t(context.addressOf(op.getIndices()))));
  emitter.emit(
      build::EmbGather()
          .dst(Space::Acc, 0)
          .table(Space::Dram, context.addressOf(op.getData()))
          .idx(Space::Dram, kIdxReg)
          .dt(out.dtype)
          .fmt(embFormat(format))
          .dim(dim)
          .rowbytes(format.rowBytes(dim))
          .nrows(rows)
          .nseg(n)
          .ityp(indexBytes(op.getIndices()) == 8 ? IdxType::I64 : IdxType::I32)
          .pool(Pool::None)
          .dpitch(out.rowBytes(dim)));
  storeRows(emitter, 0, context.addressOf(op.getResult()), n, dim, out);
}

LogicalResult emitGather(Operation *operation, KernelContext &context) {
  auto op = cast<GatherOp>(operation);
  std::optional<SmallVector<int64_t>> indices;
  if (!isRowwiseTable(op.getData().getType()))
    indices = getConstantIndices(op);
  if (indices) {
    std::string reason;
    std::optional<ConstGather> plan =
        planConstGather(op, *indices, context.target, reason);
    if (!plan)
      return op.emitOpError() << "cannot run on the card: " << reason;
    emitConstGather(op, *indices, *plan, context);
    return success();
  }
  emitRowGather(op, context);
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::attachEmbeddingKernels(MLIRContext *context) {
  // emb.gather takes its index, length and weight lists through scalar
  // registers: those tensors stay in DRAM.
  attachCardKernel<CardKernelModel<checkEmbeddingBag, emitEmbeddingBag, nullptr,
                                   nullptr, nullptr, nullptr,
                                   /*DirectAddresses=*/false>,
                   EmbeddingBagOp>(context);
  attachCardKernel<CardKernelModel<checkGather, emitGather, nullptr, nullptr,
                                   nullptr, nullptr, /*DirectAddresses=*/false>,
                   GatherOp>(context);
}
