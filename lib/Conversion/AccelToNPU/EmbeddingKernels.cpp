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
// write, which is how the host's reference computes them too. The gather engine
// faults on negative indices, which
//     ONNX Gather would wrap (the host kernel does).
//
//===----------------------------------------------------------------------===//

#include "KernelRegistry.h"
#include "KernelUtils.h"

#include "Accel/AccelOps.h"
#include "nnaccel/Conversion/NPUSupport.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::DType;
using ::nnaccel::isa::EmbFmt;
using ::nnaccel::isa::Instruction;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Pool;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {
// Store chunks of this many rows start at 64-byte multiples for any row size
// that is a multiple of 2 bytes (4032 * 2 = 64 * 126).
constexpr int64_t kStoreChunkRows = 4032;

// Scalar registers holding the register-indirect list addresses.
constexpr int64_t kIdxReg = 1, kLenReg = 2, kWtsReg = 3;

Instruction &indirect(Instruction &inst, const char *name, Space space,
                      int64_t reg) {
  std::string prefix(name);
  inst.with(prefix + ".space", static_cast<int64_t>(space));
  inst.with(prefix + ".reg", reg);
  return inst;
}

void loadImmediate(ProgramEmitter &emitter, int64_t reg, uint64_t value) {
  Instruction li(Opcode::SLi);
  li.with("rd", reg).with("imm", static_cast<int64_t>(value));
  emitter.emit(li, {}, {});
}

MemRegion dramRegion(uint64_t address, Type type) {
  return {Space::Dram, address, address + getDenseByteSize(type)};
}

int64_t indexBytes(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementTypeBitWidth() / 8;
}

/// The gather engine's row format of a float table.
EmbFmt embFormat(ElementFormat format) {
  if (format == kF16Format)
    return EmbFmt::F16;
  if (format == kBF16Format)
    return EmbFmt::BF16;
  return EmbFmt::F32;
}

/// Stores `rows` x `cols` elements of `format` from ACC (dense) to DRAM
/// (dense), in chunks the DMA can address.
void storeRows(ProgramEmitter &emitter, uint64_t acc, uint64_t dram,
               int64_t rows, int64_t cols, ElementFormat format,
               MemRegion dramAll) {
  const int64_t rowBytes = cols * format.bytes;
  for (int64_t row = 0; row < rows; row += kStoreChunkRows) {
    int64_t n = std::min(kStoreChunkRows, rows - row);
    uint64_t src = acc + uint64_t(row * rowBytes);
    Instruction st(Opcode::DmaSt);
    setMem(st, "dst", Space::Dram, dram + uint64_t(row * rowBytes));
    setMem(st, "src", Space::Acc, src);
    st.with("dt", format.dt)
        .with("x", cols)
        .with("y", n)
        .with("z", 1)
        .with("dy", rowBytes)
        .with("spitch", rowBytes);
    emitter.emit(st, {{Space::Acc, src, src + uint64_t(n * rowBytes)}},
                 {dramAll});
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
  shape.table = getElementFormat(table).value_or(kF32Format);
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
  layout.list = alignUp(uint64_t(shape.bags * shape.dim * shape.out.bytes), 64);
  layout.end = layout.list + uint64_t((shape.bags + 1) * 4);
  return layout;
}

LogicalResult checkEmbeddingBag(Operation *operation, const TargetDesc &target,
                                std::string &reason) {
  auto op = cast<EmbeddingBagOp>(operation);
  auto table = cast<RankedTensorType>(op.getTable().getType());
  if (!getElementFormat(table) || !getElementFormat(op.getType())) {
    reason = "embedding_bag runs on the card with f32, f16 or bf16 tables and "
             "results only";
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
  if (shape.rows > 0xFFFFFFFFll || shape.dim * shape.out.bytes > kMaxPitch ||
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
  const MemRegion indexRegion = dramRegion(indices, op.getIndices().getType());
  const MemRegion listAcc{Space::Acc, layout.list,
                          layout.list + uint64_t((shape.bags + 1) * 4)};

  // The i32 per-bag list: where it lives and what wrote it.
  Space listSpace = Space::Acc;
  uint64_t listAddress = layout.list;
  MemRegion listRegion = listAcc;
  bool offsets = false;
  auto fill = [&](uint64_t at, int64_t count, int64_t value) {
    Instruction vfill(Opcode::VFill);
    setMem(vfill, "dst", Space::Acc, at);
    vfill.with("dt", static_cast<int64_t>(DType::I32))
        .with("rows", 1)
        .with("cols", count)
        .with("dpitch", count * 4)
        .with("imm", static_cast<int64_t>(static_cast<uint32_t>(value)));
    emitter.emit(vfill, {}, {{Space::Acc, at, at + uint64_t(count * 4)}});
  };
  // Copies `count` list entries to ACC as i32 (i64: their low words).
  auto copyList = [&](Value list, int64_t count) {
    uint64_t src = context.addressOf(list);
    MemRegion srcRegion = dramRegion(src, list.getType());
    int64_t esz = indexBytes(list);
    for (int64_t i = 0; i < count; i += kStoreChunkRows) {
      int64_t n = std::min(kStoreChunkRows, count - i);
      Instruction ld(Opcode::DmaLd);
      setMem(ld, "dst", Space::Acc, layout.list + uint64_t(i * 4));
      setMem(ld, "src", Space::Dram, src + uint64_t(i * esz));
      ld.with("dt", static_cast<int64_t>(DType::I32));
      if (esz == 4)
        ld.with("x", n)
            .with("y", 1)
            .with("z", 1)
            .with("sy", n * 4)
            .with("dpitch", n * 4);
      else
        ld.with("x", 1).with("y", n).with("z", 1).with("sy", esz).with("dpitch",
                                                                       4);
      emitter.emit(ld, {srcRegion},
                   {{Space::Acc, layout.list + uint64_t(i * 4),
                     layout.list + uint64_t((i + n) * 4)}});
    }
  };

  if (shape.fixedLength) {
    fill(layout.list, shape.bags, shape.length);
  } else if (Value lengths = op.getLengths()) {
    if (indexBytes(lengths) == 4) {
      listSpace = Space::Dram;
      listAddress = context.addressOf(lengths);
      listRegion = dramRegion(listAddress, lengths.getType());
    } else {
      copyList(lengths, shape.bags);
    }
  } else {
    copyList(op.getOffsets(), shape.bags);
    fill(layout.list + uint64_t(shape.bags * 4), 1, shape.numIndices);
    offsets = true;
  }

  std::vector<MemRegion> reads = {
      dramRegion(context.addressOf(op.getTable()), op.getTable().getType()),
      indexRegion, listRegion};
  loadImmediate(emitter, kIdxReg, indices);
  loadImmediate(emitter, kLenReg, listAddress);
  Value weights = op.getPerSampleWeights();
  if (weights) {
    uint64_t w = context.addressOf(weights);
    loadImmediate(emitter, kWtsReg, w);
    reads.push_back(dramRegion(w, weights.getType()));
  }

  Instruction gather(Opcode::EmbGather);
  setMem(gather, "dst", Space::Acc, layout.out);
  setMem(gather, "table", Space::Dram, context.addressOf(op.getTable()));
  indirect(gather, "idx", Space::Dram, kIdxReg);
  indirect(gather, "len", listSpace, kLenReg);
  if (weights)
    indirect(gather, "wts", Space::Dram, kWtsReg);
  gather.with("dt", shape.out.dt)
      .with("fmt", static_cast<int64_t>(embFormat(shape.table)))
      .with("dim", shape.dim)
      .with("rowbytes", shape.dim * shape.table.bytes)
      .with("nrows", shape.rows)
      .with("nseg", shape.bags)
      .with("ityp", isz == 8 ? 1 : 0)
      .with("offs", offsets ? 1 : 0)
      .with("pool", static_cast<int64_t>(
                        op.getMode() == BagMode::mean ? Pool::Mean : Pool::Sum))
      .with("weighted", weights ? 1 : 0)
      .with("dpitch", shape.dim * shape.out.bytes);
  MemRegion outAcc{Space::Acc, layout.out,
                   layout.out +
                       uint64_t(shape.bags * shape.dim * shape.out.bytes)};
  emitter.emit(gather, reads, {outAcc});

  uint64_t result = context.addressOf(op.getResult());
  storeRows(emitter, layout.out, result, shape.bags, shape.dim, shape.out,
            dramRegion(result, op.getType()));
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

/// Plain gather of rows of a 2-D float table by data-dependent indices.
bool canGatherRows(GatherOp op, const TargetDesc &target, std::string &reason) {
  auto dataType = cast<RankedTensorType>(op.getData().getType());
  // The I64Attr getter is unsigned; read it signed so -1 normalises.
  int64_t rawAxis = static_cast<int64_t>(op.getAxis());
  int64_t axis = rawAxis < 0 ? rawAxis + dataType.getRank() : rawAxis;
  std::optional<ElementFormat> format = getElementFormat(dataType);
  if (dataType.getRank() != 2 || axis != 0 || !format) {
    reason = "gather with data-dependent indices runs on the card only for "
             "rows (axis 0) of a 2-D f32, f16 or bf16 table";
    return false;
  }
  int64_t n =
      cast<RankedTensorType>(op.getIndices().getType()).getNumElements();
  int64_t dim = dataType.getDimSize(1);
  int64_t e = format->bytes;
  if (n < 1 || n > kMaxCount || dim * e > kMaxPitch ||
      dataType.getDimSize(0) > 0xFFFFFFFFll ||
      uint64_t(n * dim * e) > target.memory(Space::Acc).bytes) {
    reason = "gathered rows do not fit one gather instruction";
    return false;
  }
  return true;
}

LogicalResult checkGather(Operation *operation, const TargetDesc &target,
                          std::string &reason) {
  auto op = cast<GatherOp>(operation);
  if (std::optional<SmallVector<int64_t>> indices = getConstantIndices(op)) {
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
  const MemRegion dataDram = dramRegion(data, op.getData().getType());
  const MemRegion resultDram = dramRegion(result, op.getType());
  const int64_t wordsPerSlice = plan.sliceBytes() / plan.wordBytes;
  const int64_t dt = static_cast<int64_t>(plan.word);

  for (int64_t row = 0; row < plan.outer; row += plan.rowsPerChunk) {
    int64_t rows = std::min(plan.rowsPerChunk, plan.outer - row);
    MemRegion staged{Space::Acc, plan.stage,
                     plan.stage + uint64_t(rows * plan.dataRowBytes())};
    Instruction ld(Opcode::DmaLd);
    setMem(ld, "dst", Space::Acc, plan.stage);
    setMem(ld, "src", Space::Dram, data + uint64_t(row * plan.dataRowBytes()));
    ld.with("dt", dt)
        .with("x", plan.dataRowBytes() / plan.wordBytes)
        .with("y", rows)
        .with("z", 1)
        .with("sy", plan.dataRowBytes())
        .with("dpitch", plan.dataRowBytes());
    emitter.emit(ld, {dataDram}, {staged});

    // One index: store the selected slice of every staged row directly.
    uint64_t src = plan.stage + uint64_t(indices[0] * plan.sliceBytes());
    int64_t spitch = plan.dataRowBytes();
    MemRegion srcRegion = staged;
    if (plan.count > 1) {
      // Several: pick each slice into the result layout first.
      srcRegion = {Space::Acc, plan.pick,
                   plan.pick + uint64_t(rows * plan.outRowBytes())};
      for (auto [position, index] : llvm::enumerate(indices)) {
        Instruction mov(Opcode::VMov);
        setMem(mov, "dst", Space::Acc,
               plan.pick + uint64_t(position) * plan.sliceBytes());
        setMem(mov, "a", Space::Acc,
               plan.stage + uint64_t(index * plan.sliceBytes()));
        mov.with("dt", dt)
            .with("at", dt)
            .with("rows", rows)
            .with("cols", wordsPerSlice)
            .with("dpitch", plan.outRowBytes())
            .with("apitch", plan.dataRowBytes());
        emitter.emit(mov, {staged}, {srcRegion});
      }
      src = plan.pick;
      spitch = plan.outRowBytes();
    }
    Instruction st(Opcode::DmaSt);
    setMem(st, "dst", Space::Dram, result + uint64_t(row * plan.outRowBytes()));
    setMem(st, "src", Space::Acc, src);
    st.with("dt", dt)
        .with("x", plan.outRowBytes() / plan.wordBytes)
        .with("y", rows)
        .with("z", 1)
        .with("dy", plan.outRowBytes())
        .with("spitch", spitch);
    if (plan.count == 1)
      st.with("x", wordsPerSlice);
    emitter.emit(st, {srcRegion}, {resultDram});
  }
}

void emitRowGather(GatherOp op, KernelContext &context) {
  ProgramEmitter &emitter = context.emitter;
  auto dataType = cast<RankedTensorType>(op.getData().getType());
  int64_t rows = dataType.getDimSize(0), dim = dataType.getDimSize(1);
  int64_t n =
      cast<RankedTensorType>(op.getIndices().getType()).getNumElements();
  const ElementFormat format = *getElementFormat(dataType);
  const int64_t e = format.bytes;
  const uint64_t table = context.addressOf(op.getData());
  const uint64_t indices = context.addressOf(op.getIndices());
  loadImmediate(emitter, kIdxReg, indices);
  Instruction gather(Opcode::EmbGather);
  setMem(gather, "dst", Space::Acc, 0);
  setMem(gather, "table", Space::Dram, table);
  indirect(gather, "idx", Space::Dram, kIdxReg);
  gather.with("dt", format.dt)
      .with("fmt", static_cast<int64_t>(embFormat(format)))
      .with("dim", dim)
      .with("rowbytes", dim * e)
      .with("nrows", rows)
      .with("nseg", n)
      .with("ityp", indexBytes(op.getIndices()) == 8 ? 1 : 0)
      .with("pool", static_cast<int64_t>(Pool::None))
      .with("dpitch", dim * e);
  emitter.emit(gather,
               {dramRegion(table, dataType),
                dramRegion(indices, op.getIndices().getType())},
               {{Space::Acc, 0, uint64_t(n * dim * e)}});
  uint64_t result = context.addressOf(op.getResult());
  storeRows(emitter, 0, result, n, dim, format,
            dramRegion(result, op.getType()));
}

LogicalResult emitGather(Operation *operation, KernelContext &context) {
  auto op = cast<GatherOp>(operation);
  if (std::optional<SmallVector<int64_t>> indices = getConstantIndices(op)) {
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

void mlir::nnaccel::npu_lowering::registerEmbeddingKernels(KernelTable &table) {
  table[EmbeddingBagOp::getOperationName()] = {checkEmbeddingBag,
                                               emitEmbeddingBag};
  table[GatherOp::getOperationName()] = {checkGather, emitGather};
}
