//===- PlanCardMemory.cpp - accel-plan-card-memory pass -------------------===//
//
// See CardMemoryPlan.h. The plan is first-fit over the ops in program
// order, the order the lowering emits their kernels in, so a freed block
// is only reused by values produced after its last reader ran.
//
//===----------------------------------------------------------------------===//

#include "CardMemoryPlan.h"

#include "Accel/ElementTypes.h"

#include "nnaccel/Conversion/Passes.h"

#include "Accel/ConstantUtils.h"
#include "CardKernels.h"
#include "NPU/NPUTarget.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>
#include <map>

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELPLANCARDMEMORY
#include "nnaccel/Conversion/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {
/// First-fit allocation of one memory (card DRAM, or the card-wide SHARED
/// memory) in blocks aligned to the memory's alignment. Freed blocks are
/// reused by later values, which is what keeps intermediates of long models
/// small -- but only by a value the same core writes first: another core
/// could still be accessing the old value, and ordering the two would cost
/// a barrier. A block whose values several cores accessed is not reused; a
/// multi-core partition trades that DRAM for fewer barriers.
class MemoryAllocator {
public:
  MemoryAllocator(uint64_t capacity, uint64_t align)
      : capacity(capacity), align(align) {}

  /// `core`: the core that writes the new value first.
  std::optional<uint64_t> allocate(uint64_t bytes, uint32_t core = 0) {
    bytes = roundUp(std::max<uint64_t>(bytes, 1));
    for (auto it = freeBlocks.begin(); it != freeBlocks.end(); ++it) {
      auto [size, users] = it->second;
      if (size < bytes || (users & ~(uint64_t(1) << core)))
        continue;
      uint64_t address = it->first;
      uint64_t remaining = size - bytes;
      freeBlocks.erase(it);
      if (remaining)
        freeBlocks.emplace(address + bytes, Block{remaining, users});
      return address;
    }
    if (top + bytes > capacity)
      return std::nullopt;
    uint64_t address = top;
    top += bytes;
    peak = std::max(peak, top);
    return address;
  }

  /// `users`: a bit per core that accessed the block's values.
  void release(uint64_t address, uint64_t bytes, uint64_t users = 1) {
    freeBlocks.emplace(address,
                       Block{roundUp(std::max<uint64_t>(bytes, 1)), users});
  }

  uint64_t getPeak() const { return peak; }

private:
  uint64_t roundUp(uint64_t bytes) const {
    return (bytes + align - 1) / align * align;
  }
  struct Block {
    uint64_t size;
    uint64_t users; // cores that accessed it
  };
  uint64_t capacity, align, top = 0, peak = 0;
  std::map<uint64_t, Block> freeBlocks; // by address
};

/// The constant data of `value` when it is a constant of a card float type:
/// its attribute and raw row-major bytes (one element for a splat).
struct RawConstant {
  ElementsAttr attr;
  ArrayRef<char> bytes;
  bool splat = false;
};

std::optional<RawConstant> getRawConstant(Value value) {
  // Raw bytes in the attribute's layout, which is the card's for whole-byte
  // element types and for blobs of 4-bit ones (packed two per byte; a dense
  // attribute holds an i4 element in a byte).
  auto constant = value.getDefiningOp<ConstantOp>();
  std::optional<::nnaccel::DType> dtype = getElementDType(value.getType());
  if (!constant || !dtype ||
      (::nnaccel::elementBytes(*dtype) == 0 && !::nnaccel::isSubByte(*dtype)))
    return std::nullopt;
  ElementsAttr attr = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (::nnaccel::isSubByte(*dtype))
      return std::nullopt;
    return RawConstant{attr, dense.getRawData(), dense.isSplat()};
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    ArrayRef<char> bytes = blob->getData();
    if (bytes.size() != getDenseByteSize(resource.getType()))
      return std::nullopt;
    return RawConstant{attr, bytes, false};
  }
  return std::nullopt;
}

/// Replaces a constant [K x N] weight of a fully_connected by its transpose
/// so the matrix unit can stream weight rows. Element by element in raw
/// bytes, so it serves every whole-byte element type; 4-bit blobs nibble by
/// nibble (rows of ceil(elements / 2) bytes, element 2j in the low nibble).
LogicalResult transposeWeight(FullyConnectedOp op) {
  if (op.getTransposeWeight())
    return success();
  std::optional<RawConstant> weight = getRawConstant(op.getWeight());
  if (!weight)
    return op.emitOpError("needs a constant weight of a whole-byte element "
                          "type (or a 4-bit blob) to transpose for the NPU");
  auto type = cast<RankedTensorType>(op.getWeight().getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  // Per-column quantization parameters follow their axis (1 -> 0).
  Type element = type.getElementType();
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(element))
    element = quant::UniformQuantizedPerAxisType::get(
        perAxis.getFlags(), perAxis.getStorageType(),
        perAxis.getExpressedType(), perAxis.getScales(),
        perAxis.getZeroPoints(), 1 - perAxis.getQuantizedDimension(),
        perAxis.getStorageTypeMin(), perAxis.getStorageTypeMax());
  auto newType = RankedTensorType::get({n, k}, element);
  ElementsAttr transposed;
  if (weight->splat) {
    transposed = cast<DenseElementsAttr>(weight->attr).reshape(newType);
  } else if (::nnaccel::isSubByte(*getElementDType(type))) {
    const int64_t inRow = (n + 1) / 2, outRow = (k + 1) / 2;
    std::vector<char> bytes(size_t(n * outRow), 0);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) {
        uint8_t nibble =
            (uint8_t(weight->bytes[i * inRow + j / 2]) >> (j % 2 * 4)) & 0xF;
        bytes[j * outRow + i / 2] |= char(i % 2 ? nibble << 4 : nibble);
      }
    transposed = DenseResourceElementsAttr::get(
        newType, "weight_t",
        HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes,
                                                      alignof(uint64_t)));
  } else {
    size_t size = ::nnaccel::elementBytes(*getElementDType(type));
    std::vector<char> bytes(weight->bytes.size());
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(&bytes[(j * k + i) * size],
                    &weight->bytes[(i * n + j) * size], size);
    // (A dense attribute cannot carry a quantized type.)
    if (type.getNumElements() <= kMaxInlineElements &&
        !isa<quant::QuantizedType>(element))
      transposed = DenseElementsAttr::getFromRawBuffer(newType, bytes);
    else
      transposed = DenseResourceElementsAttr::get(
          newType, "weight_t",
          HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes,
                                                        alignof(uint64_t)));
  }
  OpBuilder builder(op);
  Value constant =
      builder.create<ConstantOp>(op.getWeight().getLoc(), transposed);
  Operation *original = op.getWeight().getDefiningOp();
  op.getWeightMutable().assign(constant);
  op.setTransposeWeight(true);
  // The K x N original would otherwise take DRAM and package space too.
  if (original->use_empty())
    original->erase();
  return success();
}

/// Ops whose result needs no instructions, only addresses: a reshape is a
/// view of its operand, a slice of a contiguous, aligned range is a view
/// into its operand, and a concat of aligned parts whose producers can
/// write straight into it is those parts (consecutive runs of it, or, along
/// its innermost axis, columns written at the concat's row pitch).
struct InPlacePlan {
  /// View results: the value whose memory they are, and the byte offset.
  llvm::DenseMap<Value, std::pair<Value, uint64_t>> views;
  /// Concat operands written in place: the concat result and byte offset.
  llvm::DenseMap<Value, std::pair<Value, uint64_t>> concatParts;
  /// Concat operands written as columns: their row pitch in bytes.
  llvm::DenseMap<Value, uint64_t> rowPitches;
  llvm::DenseSet<Operation *> ops;
};

/// Elements a packed element type stores per unit that never straddles a
/// byte (2 for i4/u4, the block for block formats); 1 for whole-byte types.
int64_t getPackingUnit(Type type) {
  std::optional<::nnaccel::DType> dtype = getElementDType(type);
  if (!dtype || ::nnaccel::elementBytes(*dtype) != 0)
    return 1;
  return ::nnaccel::isSubByte(*dtype) ? 2 : ::nnaccel::blockElements(*dtype);
}

/// Byte offset of the element at row-major position `index` of a dense
/// tensor of `type`, when it starts a byte: always for whole-byte types;
/// for packed types at the start of an innermost row (rows start on whole
/// bytes) or anywhere when rows hold whole packing units.
std::optional<uint64_t> getByteOffset(RankedTensorType type, int64_t index) {
  int64_t inner = type.getRank() ? type.getShape().back() : 1;
  int64_t unit = getPackingUnit(type);
  if (unit == 1 || inner % unit == 0) {
    if (index % unit)
      return std::nullopt;
    auto prefix = RankedTensorType::get({index}, type.getElementType());
    return getDenseByteSize(prefix);
  }
  if (inner == 0 || index % inner)
    return std::nullopt;
  auto rows =
      RankedTensorType::get({index / inner, inner}, type.getElementType());
  return getDenseByteSize(rows);
}

/// True when a reshape between the two types leaves every byte where it is:
/// always for whole-byte element types; for packed types when the innermost
/// dimension stays or neither layout pads its rows.
bool isLayoutPreserving(RankedTensorType from, RankedTensorType to) {
  int64_t unit = getPackingUnit(from);
  if (unit == 1)
    return true;
  int64_t innerFrom = from.getRank() ? from.getShape().back() : 1;
  int64_t innerTo = to.getRank() ? to.getShape().back() : 1;
  return innerFrom == innerTo || (innerFrom % unit == 0 && innerTo % unit == 0);
}

/// Byte offset of `op`'s result in its operand when the slice is one
/// contiguous run (unit steps; outer result dims 1, inner dims whole).
std::optional<uint64_t> getContiguousSliceOffset(SliceOp op) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> dims = inputType.getShape();
  ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
  ArrayRef<int64_t> result = op.getType().getShape();
  if (llvm::any_of(steps, [](int64_t step) { return step != 1; }))
    return std::nullopt;
  // Contiguous when every dim inside the innermost cut one is whole and
  // every dim outside it has one element.
  size_t rank = dims.size();
  std::optional<size_t> cut;
  for (size_t d = 0; d < rank; ++d)
    if (result[d] != dims[d])
      cut = d;
  for (size_t d = 0; cut && d < *cut; ++d)
    if (result[d] != 1)
      return std::nullopt;
  int64_t offset = 0, stride = 1;
  for (size_t d = rank; d-- > 0;) {
    offset += starts[d] * stride;
    stride *= dims[d];
  }
  return getByteOffset(inputType, offset);
}

/// Byte offset of each input of `op` in its result when the inputs are
/// consecutive runs of it (concatenation along the outermost non-unit axis).
std::optional<SmallVector<uint64_t>> getConcatPartOffsets(ConcatOp op) {
  auto type = op.getType();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += type.getRank();
  for (int64_t d = 0; d < axis; ++d)
    if (type.getDimSize(d) != 1)
      return std::nullopt;
  SmallVector<uint64_t> offsets;
  uint64_t offset = 0;
  for (Value input : op.getInputs()) {
    offsets.push_back(offset);
    offset += getDenseByteSize(input.getType());
  }
  return offsets;
}

/// Where the parts of a concat along the innermost axis lie in its result
/// when each part's rows are written one result row apart: the byte offset
/// of each part's first row and the pitch (the bytes of a result row).
/// Whole-byte element types only, so every column starts a byte.
struct ColumnLayout {
  SmallVector<uint64_t> offsets;
  uint64_t pitch = 0;
};

std::optional<ColumnLayout> getConcatColumnLayout(ConcatOp op) {
  auto type = op.getType();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += type.getRank();
  if (type.getRank() == 0 || axis != type.getRank() - 1 ||
      getPackingUnit(type) != 1)
    return std::nullopt;
  auto rowBytes = [](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return getDenseByteSize(
        RankedTensorType::get({type.getShape().back()}, type.getElementType()));
  };
  ColumnLayout layout;
  for (Value input : op.getInputs()) {
    layout.offsets.push_back(layout.pitch);
    layout.pitch += rowBytes(input);
  }
  return layout;
}

/// True when `part`, an operand of a concat along `axis`, can be written in
/// place by its producer: a single-result op of `body` that only feeds the
/// concat and is not itself in place. With `denseReaders`, other ops may
/// read the part too (from the concat's buffer, where it is a dense run of
/// bytes): any but another concat and the partition's terminator.
bool canWritePartInPlace(Value part, Block &body, const InPlacePlan &plan,
                         bool denseReaders = false) {
  Operation *producer = part.getDefiningOp();
  auto otherReadersOk = [&]() {
    unsigned concats = 0;
    for (Operation *user : part.getUsers()) {
      if (isa<YieldOp>(user))
        return false;
      concats += isa<ConcatOp>(user);
    }
    return concats == 1;
  };
  return producer && producer->getBlock() == &body &&
         !isa<ConstantOp>(producer) && producer->getNumResults() == 1 &&
         (part.hasOneUse() || (denseReaders && otherReadersOk())) &&
         !plan.ops.contains(producer);
}

/// True when making `op`'s result a view of `source` would put a partition
/// result inside a constant: the runtime binds results in the partition's
/// work range (inputs, results and intermediates) only, and a card's
/// weights lie below it when several partitions share the card, so such a
/// view (a learned position table's slice that the host or another
/// partition reads, say) is copied by its kernel instead.
bool wouldYieldConstantView(Operation &op, Value source,
                            const InPlacePlan &plan) {
  while (true) {
    auto view = plan.views.find(source);
    if (view == plan.views.end())
      break;
    source = view->second.first;
  }
  if (!isa_and_nonnull<ConstantOp>(source.getDefiningOp()))
    return false;
  return llvm::any_of(op.getResult(0).getUsers(),
                      [](Operation *user) { return isa<YieldOp>(user); });
}

InPlacePlan findInPlaceOps(Block &body, uint64_t align) {
  InPlacePlan plan;
  for (Operation &op : body) {
    if (isa<ReshapeOp, TransposeOp, SliceOp>(op) &&
        wouldYieldConstantView(op, op.getOperand(0), plan))
      continue;
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      if (!isLayoutPreserving(
              cast<RankedTensorType>(reshape.getInput().getType()),
              reshape.getType()))
        continue;
      plan.views[reshape.getResult()] = {reshape.getInput(), 0};
      plan.ops.insert(&op);
    } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
      // Moving unit dimensions (what accel-split-ops leaves of a transpose
      // cut along the axis it moves) keeps every element in place.
      if (!transpose.movesOnlyUnitDims() ||
          !isLayoutPreserving(transpose.getInput().getType(),
                              transpose.getType()))
        continue;
      plan.views[transpose.getResult()] = {transpose.getInput(), 0};
      plan.ops.insert(&op);
    } else if (auto slice = dyn_cast<SliceOp>(op)) {
      std::optional<uint64_t> offset = getContiguousSliceOffset(slice);
      if (offset && *offset % align == 0) {
        plan.views[slice.getResult()] = {slice.getInput(), *offset};
        plan.ops.insert(&op);
      }
    } else if (auto concat = dyn_cast<ConcatOp>(op)) {
      if (std::optional<SmallVector<uint64_t>> offsets =
              getConcatPartOffsets(concat)) {
        bool ok = llvm::all_of(
            llvm::zip(concat.getInputs(), *offsets), [&](auto part) {
              auto [input, offset] = part;
              return canWritePartInPlace(input, body, plan,
                                         /*denseReaders=*/true) &&
                     offset % align == 0;
            });
        if (!ok)
          continue;
        for (auto [input, offset] : llvm::zip(concat.getInputs(), *offsets))
          plan.concatParts[input] = {concat.getResult(), offset};
        plan.ops.insert(&op);
        continue;
      }
      // Along the innermost axis the parts' rows interleave: each producer
      // writes its rows a concat row apart, which its kernel must support.
      // Every store of a part starts at a row of it, so the part's offset
      // in a row and the pitch must keep the DMA's DRAM alignment.
      std::optional<ColumnLayout> layout = getConcatColumnLayout(concat);
      if (!layout || layout->pitch % align)
        continue;
      int64_t axis = concat.getType().getRank() - 1;
      bool ok = llvm::all_of(
          llvm::zip(concat.getInputs(), layout->offsets), [&](auto part) {
            auto [input, offset] = part;
            auto kernel =
                dyn_cast_or_null<CardKernelOpInterface>(input.getDefiningOp());
            return canWritePartInPlace(input, body, plan) &&
                   offset % align == 0 && kernel &&
                   kernel.supportsResultPitch(axis);
          });
      if (!ok)
        continue;
      for (auto [input, offset] :
           llvm::zip(concat.getInputs(), layout->offsets)) {
        plan.concatParts[input] = {concat.getResult(), offset};
        plan.rowPitches[input] = layout->pitch;
      }
      plan.ops.insert(&op);
    }
  }
  return plan;
}

/// Records `addresses` (one per result) on `op`.
void setResultAddresses(Operation *op, ArrayRef<int64_t> addresses) {
  Builder builder(op->getContext());
  if (addresses.size() == 1)
    op->setAttr(AccelDialect::getDramAddressAttrName(),
                builder.getI64IntegerAttr(addresses.front()));
  else
    op->setAttr(AccelDialect::getDramAddressAttrName(),
                builder.getDenseI64ArrayAttr(addresses));
}

struct AccelPlanCardMemoryPass
    : mlir::nnaccel::impl::AccelPlanCardMemoryBase<AccelPlanCardMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    const ::nnaccel::isa::TargetDesc *desc = npu::lookupTarget(getOperation());
    if (!desc)
      return signalPassFailure();
    // Partitions of one function that share a card share its weight area.
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      std::map<int64_t, SmallVector<CardPartitionOp>> byCard;
      func.walk([&](CardPartitionOp partition) {
        byCard[int64_t(partition.getCard())].push_back(partition);
      });
      for (auto &[card, partitions] : byCard) {
        if (failed(npu_lowering::planCardMemory(partitions, *desc,
                                                sharedIntermediates)))
          return signalPassFailure();
        for (CardPartitionOp partition : partitions)
          if (auto bytes = partition->getAttrOfType<IntegerAttr>(
                  AccelDialect::getDramBytesAttrName()))
            dramBytes += bytes.getInt();
      }
    }
  }
};
} // namespace

bool mlir::nnaccel::npu_lowering::canTransposeWeightAtCompileTime(
    Value weight) {
  return getRawConstant(weight).has_value();
}

/// A bit per core `op` runs on (several for a multi-core kernel).
static uint64_t getCoreMask(Operation *op,
                            const ::nnaccel::isa::TargetDesc &target) {
  uint64_t mask = 0;
  for (uint32_t core : npu_lowering::getKernelCores(op, target))
    mask |= uint64_t(1) << core;
  return mask;
}

/// The values of `body` that may live in SHARED instead of DRAM. Values
/// that share memory (views and their sources, in-place concats and their
/// parts) form one buffer, which may move when every value in it is the
/// result of an op of the partition that is either address arithmetic
/// (in place) or a single-result card kernel, and every reader is address
/// arithmetic or a card kernel reaching its operands by DMA immediates:
/// not an input, weight or result of the partition, and nothing
/// emb.gather addresses through scalar registers. Kernels that stage data
/// through SHARED scratch keep their operands and results in DRAM, as
/// there is no SHARED-to-SHARED DMA.
static llvm::DenseSet<Value>
findSharedCandidates(Block &body, const InPlacePlan &inPlace,
                     const ::nnaccel::isa::TargetDesc &target) {
  auto isKernel = [&](Operation *op, bool reads) {
    auto kernel = dyn_cast<CardKernelOpInterface>(op);
    return kernel && !inPlace.ops.contains(op) &&
           (reads ? npu_lowering::readsOperandsFromShared(kernel, target)
                  : kernel.getSharedScratchBytes(target) == 0 &&
                        op->getNumResults() == 1);
  };
  auto isMovable = [&](Operation *op, bool reads) {
    return op && op->getBlock() == &body && !isa<ConstantOp>(op) &&
           (inPlace.ops.contains(op) || isKernel(op, reads));
  };
  // The value whose buffer `value` lives in.
  std::function<Value(Value)> rootOf = [&](Value value) -> Value {
    if (auto view = inPlace.views.find(value); view != inPlace.views.end())
      return rootOf(view->second.first);
    if (auto part = inPlace.concatParts.find(value);
        part != inPlace.concatParts.end())
      return rootOf(part->second.first);
    return value;
  };
  llvm::DenseMap<Value, bool> movableBuffer; // by root
  auto note = [&](Value value) {
    bool movable = isMovable(value.getDefiningOp(), /*reads=*/false) &&
                   llvm::all_of(value.getUsers(), [&](Operation *user) {
                     return isMovable(user, /*reads=*/true);
                   });
    auto [it, inserted] = movableBuffer.try_emplace(rootOf(value), movable);
    if (!inserted)
      it->second = it->second && movable;
  };
  for (BlockArgument arg : body.getArguments())
    note(arg);
  for (Operation &op : body)
    for (Value result : op.getResults())
      note(result);
  llvm::DenseSet<Value> shared;
  for (Operation &op : body)
    for (Value result : op.getResults())
      if (movableBuffer.lookup(rootOf(result)))
        shared.insert(result);
  return shared;
}

/// Plans one partition whose weights are already placed; `allocator` holds
/// the card's weights and the partition's work memory starts at its top.
/// With `sharedIntermediates`, intermediates go to the card's SHARED memory
/// while it has room (findSharedCandidates), DRAM otherwise.
static LogicalResult planPartition(CardPartitionOp partition,
                                   const ::nnaccel::isa::TargetDesc &target,
                                   MemoryAllocator allocator,
                                   bool sharedIntermediates) {
  Block &body = partition.getBody().front();
  const auto &dram = target.memory(::nnaccel::isa::Space::Dram);
  const auto &sharedDesc = target.memory(::nnaccel::isa::Space::Shared);
  // SHARED blocks keep DRAM's alignment too: kernels align their accesses
  // to DRAM's, and see a SHARED value at its DRAM alias
  // (npu_lowering::getSharedWindow).
  MemoryAllocator shared(
      sharedDesc.bytes,
      std::max<uint64_t>({sharedDesc.align, dram.align, uint64_t(1)}));
  const uint64_t sharedWindow = npu_lowering::getSharedWindow(target);
  const uint64_t workBegin = allocator.getPeak();
  InPlacePlan inPlace = findInPlaceOps(body, dram.align);
  llvm::DenseSet<Value> sharedCandidates;
  if (sharedIntermediates && sharedDesc.bytes)
    sharedCandidates = findSharedCandidates(body, inPlace, target);

  // Program position of every op, to find each buffer's last reader.
  llvm::DenseMap<Operation *, size_t> position;
  for (auto [index, op] : llvm::enumerate(body))
    position[&op] = index;
  auto yield = cast<YieldOp>(body.getTerminator());

  // Values share a buffer when one is a view of another or a part of an
  // in-place concat; a buffer is freed once every value in it is dead.
  struct Buffer {
    uint64_t address = 0, bytes = 0;
    bool pinned = false; // inputs, weights, results: live for the program
    bool released = false;
    bool inShared = false; // address is the SHARED address's DRAM alias
    SmallVector<Value> values;
  };
  SmallVector<Buffer> buffers;
  llvm::DenseMap<Value, std::pair<unsigned, uint64_t>> where; // buffer, offset
  auto allocate = [&](uint64_t bytes, Operation *user,
                      bool mayShare = false) -> FailureOr<unsigned> {
    if (mayShare)
      if (std::optional<uint64_t> at =
              shared.allocate(bytes, getPlacedCore(user))) {
        buffers.push_back({sharedWindow + *at, bytes, false, false, true, {}});
        return buffers.size() - 1;
      }
    std::optional<uint64_t> at = allocator.allocate(bytes, getPlacedCore(user));
    if (!at)
      return user->emitOpError()
             << "does not fit the card's " << dram.bytes << " bytes of DRAM";
    buffers.push_back({*at, bytes, false, false, false, {}});
    return buffers.size() - 1;
  };
  auto bind = [&](Value value, unsigned buffer, uint64_t offset) {
    where[value] = {buffer, offset};
    buffers[buffer].values.push_back(value);
  };
  auto addressOf = [&](Value value) -> int64_t {
    auto [buffer, offset] = where.lookup(value);
    return buffers[buffer].address + offset;
  };
  auto place = [&](Value value, Operation *user) -> LogicalResult {
    if (auto view = inPlace.views.find(value); view != inPlace.views.end()) {
      auto [source, offset] = view->second;
      auto [buffer, base] = where.lookup(source);
      bind(value, buffer, base + offset);
      return success();
    }
    if (auto part = inPlace.concatParts.find(value);
        part != inPlace.concatParts.end()) {
      auto [concat, offset] = part->second;
      if (!where.count(concat)) {
        FailureOr<unsigned> buffer =
            allocate(getDenseByteSize(concat.getType()), user,
                     sharedCandidates.count(concat));
        if (failed(buffer))
          return failure();
        bind(concat, *buffer, 0);
      }
      bind(value, where.lookup(concat).first, offset);
      return success();
    }
    if (where.count(value)) // an in-place concat, placed with its first part
      return success();
    FailureOr<unsigned> buffer = allocate(getDenseByteSize(value.getType()),
                                          user, sharedCandidates.count(value));
    if (failed(buffer))
      return failure();
    bind(value, *buffer, 0);
    return success();
  };
  auto isDeadAfter = [&](Value value, size_t at) {
    return llvm::all_of(value.getUsers(),
                        [&](Operation *user) { return position[user] <= at; });
  };
  auto releaseIfDead = [&](Value value, size_t at) {
    auto it = where.find(value);
    if (it == where.end())
      return;
    Buffer &buffer = buffers[it->second.first];
    if (buffer.pinned || buffer.released)
      return;
    if (!llvm::all_of(buffer.values,
                      [&](Value other) { return isDeadAfter(other, at); }))
      return;
    // Every core that wrote or read one of the buffer's values.
    uint64_t users = 0;
    for (Value other : buffer.values) {
      if (Operation *producer = other.getDefiningOp())
        users |= getCoreMask(producer, target);
      for (Operation *reader : other.getUsers())
        users |= getCoreMask(reader, target);
    }
    if (buffer.inShared)
      shared.release(buffer.address - sharedWindow, buffer.bytes, users);
    else
      allocator.release(buffer.address, buffer.bytes, users);
    buffer.released = true;
  };

  for (BlockArgument arg : body.getArguments())
    if (failed(place(arg, partition)))
      return failure();
  // Weights placed for the whole card keep their address; the others go
  // after the inputs.
  for (auto constant : body.getOps<ConstantOp>()) {
    if (auto address = constant->getAttrOfType<IntegerAttr>(
            AccelDialect::getDramAddressAttrName())) {
      buffers.push_back({uint64_t(address.getInt()),
                         getDenseByteSize(constant.getType()),
                         true,
                         false,
                         false,
                         {}});
      bind(constant, buffers.size() - 1, 0);
    } else if (failed(place(constant, constant))) {
      return failure();
    }
  }
  auto pin = [&](Value value) {
    buffers[where.lookup(value).first].pinned = true;
  };
  for (BlockArgument arg : body.getArguments())
    pin(arg);
  for (auto constant : body.getOps<ConstantOp>()) {
    pin(constant);
    setResultAddresses(constant, {addressOf(constant)});
  }
  // Results are pinned as soon as they are placed: a buffer that holds one
  // must survive to the end.
  llvm::DenseSet<Value> yielded(yield.getValues().begin(),
                                yield.getValues().end());
  Builder builder(partition.getContext());
  for (Operation &op : body) {
    if (isa<ConstantOp, YieldOp>(op) || op.getNumResults() == 0)
      continue;
    SmallVector<int64_t> results;
    for (Value result : op.getResults()) {
      if (failed(place(result, &op)))
        return failure();
      if (yielded.contains(result))
        pin(result);
      results.push_back(addressOf(result));
    }
    if (buffers[where.lookup(op.getResult(0)).first].inShared)
      op.setAttr(
          AccelDialect::getResultSharedAddressAttrName(),
          builder.getI64IntegerAttr(results.front() - int64_t(sharedWindow)));
    else
      setResultAddresses(&op, results);
    if (auto pitch = inPlace.rowPitches.find(op.getResult(0));
        pitch != inPlace.rowPitches.end())
      op.setAttr(AccelDialect::getResultPitchAttrName(),
                 builder.getI64IntegerAttr(int64_t(pitch->second)));
    if (inPlace.ops.contains(&op))
      op.setAttr(AccelDialect::getInPlaceAttrName(), builder.getUnitAttr());
    // SHARED scratch lives while the op runs: the next op reuses it (the
    // program's dependency tokens order their accesses).
    if (auto kernel = dyn_cast<CardKernelOpInterface>(op);
        kernel && !inPlace.ops.contains(&op)) {
      if (uint64_t bytes = kernel.getSharedScratchBytes(target)) {
        uint32_t core = getPlacedCore(&op);
        std::optional<uint64_t> at = shared.allocate(bytes, core);
        if (!at)
          return op.emitOpError()
                 << "needs " << bytes << " bytes of SHARED memory; the card "
                 << "has " << sharedDesc.bytes;
        op.setAttr(AccelDialect::getSharedAddressAttrName(),
                   builder.getI64IntegerAttr(int64_t(*at)));
        shared.release(*at, bytes, getCoreMask(&op, target));
      }
    }
    // Intermediates die at their last reader (results nobody reads, now).
    for (Value operand : op.getOperands())
      releaseIfDead(operand, position[&op]);
    for (Value result : op.getResults())
      releaseIfDead(result, position[&op]);
  }

  SmallVector<int64_t> inputAddresses, outputAddresses;
  for (BlockArgument arg : body.getArguments())
    inputAddresses.push_back(addressOf(arg));
  for (Value value : yield.getValues())
    outputAddresses.push_back(addressOf(value));
  partition.setInputAddresses(inputAddresses);
  partition.setOutputAddresses(outputAddresses);
  partition->setAttr(AccelDialect::getDramBytesAttrName(),
                     builder.getI64IntegerAttr(allocator.getPeak()));
  partition->setAttr(AccelDialect::getDramWorkBeginAttrName(),
                     builder.getI64IntegerAttr(workBegin));
  if (shared.getPeak())
    partition->setAttr(AccelDialect::getSharedBytesAttrName(),
                       builder.getI64IntegerAttr(shared.getPeak()));
  return success();
}

bool mlir::nnaccel::npu_lowering::readsOperandsFromShared(
    CardKernelOpInterface kernel, const ::nnaccel::isa::TargetDesc &target) {
  return kernel.addressesOperandsDirectly() &&
         kernel.getSharedScratchBytes(target) == 0;
}

uint64_t mlir::nnaccel::npu_lowering::getSharedWindow(
    const ::nnaccel::isa::TargetDesc &target) {
  // Past the end of DRAM, at an address every alignment divides.
  constexpr uint64_t granule = uint64_t(1) << 20;
  return (target.memory(::nnaccel::isa::Space::Dram).bytes + granule - 1) /
         granule * granule;
}

LogicalResult mlir::nnaccel::npu_lowering::planCardMemory(
    ArrayRef<CardPartitionOp> partitions,
    const ::nnaccel::isa::TargetDesc &target, bool sharedIntermediates) {
  const auto &dram = target.memory(::nnaccel::isa::Space::Dram);
  for (CardPartitionOp partition : partitions)
    for (auto fc : llvm::make_early_inc_range(
             partition.getBody().front().getOps<FullyConnectedOp>()))
      if (failed(transposeWeight(fc)))
        return failure();
  // Kernel constants (per-channel requantisation scales) become constants
  // of the partition, placed with its weights; their kernels get the
  // address once the plan is made.
  SmallVector<std::pair<Operation *, ConstantOp>> kernelConstants;
  for (CardPartitionOp partition : partitions)
    for (Operation &op : partition.getBody().front()) {
      std::optional<std::vector<float>> values =
          npu_lowering::getKernelConstantValues(&op, target);
      if (!values)
        continue;
      OpBuilder builder(&op);
      auto type = RankedTensorType::get({int64_t(values->size())},
                                        builder.getF32Type());
      auto constant = builder.create<ConstantOp>(
          op.getLoc(), cast<ElementsAttr>(DenseElementsAttr::get(
                           type, ArrayRef<float>(*values))));
      kernelConstants.push_back({&op, constant});
    }
  // Partitions that take turns on the card get their weights side by side
  // at the bottom, below the work memory they share, so a runtime never has
  // to upload them again. A card's only partition keeps its weights with
  // its work memory (inputs first): nothing else would overwrite them.
  MemoryAllocator allocator(dram.bytes, dram.align);
  for (CardPartitionOp partition : partitions) {
    if (partitions.size() < 2)
      break; // the only partition places its weights itself
    Block &body = partition.getBody().front();
    for (auto constant : body.getOps<ConstantOp>()) {
      std::optional<uint64_t> at =
          allocator.allocate(getDenseByteSize(constant.getType()));
      if (!at)
        return constant.emitOpError()
               << "does not fit the card's " << dram.bytes << " bytes of DRAM";
      setResultAddresses(constant, {int64_t(*at)});
    }
  }
  // Then each partition's inputs, results and intermediates above them.
  for (CardPartitionOp partition : partitions)
    if (failed(
            planPartition(partition, target, allocator, sharedIntermediates)))
      return failure();
  for (auto [op, constant] : kernelConstants)
    op->setAttr(AccelDialect::getKernelConstantsAttrName(),
                constant->getAttr(AccelDialect::getDramAddressAttrName()));
  return success();
}

LogicalResult mlir::nnaccel::npu_lowering::verifyInPlaceOp(
    Operation *op, const llvm::DenseMap<Value, uint64_t> &addresses) {
  auto expect = [&](Value value, Value base, uint64_t offset) {
    return addresses.lookup(value) == addresses.lookup(base) + offset;
  };
  auto notInPlace = [&](StringRef why) {
    return op->emitOpError()
           << "is marked '" << AccelDialect::getInPlaceAttrName() << "' but "
           << why;
  };
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    if (!isLayoutPreserving(
            cast<RankedTensorType>(reshape.getInput().getType()),
            reshape.getType()))
      return notInPlace("it repacks the rows of its packed element type");
    if (!expect(reshape.getResult(), reshape.getInput(), 0))
      return notInPlace("its result is not at its operand's address");
    return success();
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    if (!transpose.movesOnlyUnitDims() ||
        !isLayoutPreserving(transpose.getInput().getType(),
                            transpose.getType()))
      return notInPlace("it moves elements");
    if (!expect(transpose.getResult(), transpose.getInput(), 0))
      return notInPlace("its result is not at its operand's address");
    return success();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    std::optional<uint64_t> offset = getContiguousSliceOffset(slice);
    if (!offset)
      return notInPlace("the slice is not one contiguous run");
    if (!expect(slice.getResult(), slice.getInput(), *offset))
      return notInPlace("its result is not at its operand's address + " +
                        std::to_string(*offset));
    return success();
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    std::optional<SmallVector<uint64_t>> offsets = getConcatPartOffsets(concat);
    // Along the innermost axis each part's producer writes its rows one
    // concat row apart, and must say so.
    std::optional<ColumnLayout> columns;
    if (!offsets) {
      columns = getConcatColumnLayout(concat);
      if (!columns)
        return notInPlace(
            "its parts interleave along an axis that is neither the "
            "outermost non-unit nor the innermost one");
      offsets = columns->offsets;
    }
    for (auto [index, part] :
         llvm::enumerate(llvm::zip(concat.getInputs(), *offsets))) {
      auto [input, offset] = part;
      if (!expect(input, concat.getResult(), offset))
        return notInPlace("input #" + std::to_string(index) +
                          " is not at the result's address + " +
                          std::to_string(offset));
      if (!columns)
        continue;
      Operation *producer = input.getDefiningOp();
      auto pitch = producer ? producer->getAttrOfType<IntegerAttr>(
                                  AccelDialect::getResultPitchAttrName())
                            : IntegerAttr();
      if (!pitch || uint64_t(pitch.getInt()) != columns->pitch)
        return notInPlace("input #" + std::to_string(index) +
                          " is not written with the result's row pitch ('" +
                          AccelDialect::getResultPitchAttrName().str() + " = " +
                          std::to_string(columns->pitch) + "')");
    }
    return success();
  }
  return notInPlace("only reshape, unit-dimension transpose, slice and concat "
                    "can be");
}

bool mlir::nnaccel::npu_lowering::hasCardMemoryPlan(CardPartitionOp partition) {
  if (!partition.getInputAddresses() || !partition.getOutputAddresses())
    return false;
  return llvm::all_of(partition.getBody().front(), [](Operation &op) {
    return op.getNumResults() == 0 ||
           op.hasAttr(AccelDialect::getDramAddressAttrName()) ||
           op.hasAttr(AccelDialect::getResultSharedAddressAttrName());
  });
}

FailureOr<llvm::DenseMap<Value, uint64_t>>
mlir::nnaccel::npu_lowering::readCardMemoryPlan(
    CardPartitionOp partition, const ::nnaccel::isa::TargetDesc &target) {
  llvm::DenseMap<Value, uint64_t> addresses;
  Block &body = partition.getBody().front();
  ArrayRef<int64_t> inputs = *partition.getInputAddresses();
  for (auto [arg, address] : llvm::zip(body.getArguments(), inputs))
    addresses[arg] = address;
  for (Operation &op : body) {
    if (op.getNumResults() == 0)
      continue;
    // Kernels read a constant kept in SHARED there (its DRAM copy is what
    // the setup programs copy from).
    for (StringRef name : {AccelDialect::getResultSharedAddressAttrName(),
                           AccelDialect::getPinnedSharedAddressAttrName()})
      if (auto shared = op.getAttrOfType<IntegerAttr>(name))
        addresses[op.getResult(0)] =
            getSharedWindow(target) + uint64_t(shared.getInt());
    if (addresses.count(op.getResult(0)))
      continue;
    Attribute attr = op.getAttr(AccelDialect::getDramAddressAttrName());
    if (auto single = dyn_cast_or_null<IntegerAttr>(attr)) {
      addresses[op.getResult(0)] = single.getInt();
    } else if (auto each = dyn_cast_or_null<DenseI64ArrayAttr>(attr)) {
      for (auto [result, address] :
           llvm::zip(op.getResults(), each.asArrayRef()))
        addresses[result] = address;
    } else {
      return op.emitOpError()
             << "has no '" << AccelDialect::getDramAddressAttrName()
             << "' (run accel-plan-card-memory first)";
    }
  }
  return addresses;
}

llvm::DenseMap<Value, uint64_t>
mlir::nnaccel::npu_lowering::getRowPitches(Block &body) {
  llvm::DenseMap<Value, uint64_t> pitches;
  for (Operation &op : body)
    if (auto pitch = op.getAttrOfType<IntegerAttr>(
            AccelDialect::getResultPitchAttrName()))
      pitches[op.getResult(0)] = uint64_t(pitch.getInt());
  return pitches;
}
