//===- QuantizeEmbeddings.cpp - accel-quantize-embeddings pass ------------===//
//
// Stores the constant f32 tables of embedding bags and row gathers as
// rowwise-quantized tables (!accel.rowwise<4|8>), the fused FBGEMM layouts
// the gather engine dequantizes as it reads rows. Recommendation models
// are dominated by their tables, so this shrinks their packages and DRAM
// (rw4: 1/6.4 of f32 for 32-wide rows) and the bytes every lookup moves,
// while the ops keep computing and returning f32. The codes come from
// numerics::quantizeFusedTable, the same function the tests and any host
// tool would use, so a table means the same bits everywhere.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "DeadConstants.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "Accel/ElementTypes.h"

#include "nnaccel/Numerics/RowwiseEmbedding.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELQUANTIZEEMBEDDINGS
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
namespace num = ::nnaccel::numerics;

namespace {

/// The table operand of an op this pass may rewrite: embedding_bag's table,
/// or the data of a gather of whole rows by run-time indices (a gather by
/// constant indices is a compile-time slice, not a lookup). Null otherwise.
Value getLookupTable(Operation *op) {
  if (auto bag = dyn_cast<EmbeddingBagOp>(op))
    return bag.getTable();
  auto gather = dyn_cast<GatherOp>(op);
  if (!gather || gather.getData().getType().getRank() != 2 ||
      matchPattern(gather.getIndices(), m_Constant()))
    return {};
  int64_t axis = static_cast<int64_t>(gather.getAxis());
  return axis == 0 || axis == -2 ? gather.getData() : Value();
}

/// A name for the quantized table's blob: the f32 blob's with a suffix, so
/// IR dumps still say which table it was.
std::string getBlobName(Value table, unsigned bits) {
  std::string suffix = "_rw" + std::to_string(bits);
  if (auto resource = dyn_cast_if_present<DenseResourceElementsAttr>(
          table.getDefiningOp<ConstantOp>().getValue()))
    return (resource.getRawHandle().getKey() + suffix).str();
  return "table" + suffix;
}

struct QuantizeEmbeddingsPass
    : mlir::nnaccel::impl::AccelQuantizeEmbeddingsBase<QuantizeEmbeddingsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (bits != 4 && bits != 8) {
      getOperation().emitError()
          << "accel-quantize-embeddings: bits must be 4 or 8, got "
          << bits.getValue();
      return signalPassFailure();
    }
    SmallVector<Operation *> lookups;
    getOperation().walk([&](Operation *op) {
      Value table = getLookupTable(op);
      if (!table || !table.getDefiningOp<ConstantOp>())
        return;
      // An empty table has nothing to shrink.
      auto type = cast<RankedTensorType>(table.getType());
      if (type.getElementType().isF32() && type.getNumElements() > 0)
        lookups.push_back(op);
    });
    // One quantized copy per (f32 table, width), shared by its readers.
    llvm::DenseMap<std::pair<Value, unsigned>, Value> quantized;
    SmallVector<Operation *> replaced;
    for (Operation *op : lookups) {
      std::optional<unsigned> width = chooseWidth(op);
      if (!width)
        continue;
      Value table = getLookupTable(op);
      Value &rowwise = quantized[{table, *width}];
      if (!rowwise) {
        std::string reason;
        rowwise = quantizeTable(table, *width, reason);
        if (!rowwise) {
          quantized.erase({table, *width});
          op->emitWarning()
              << describeNode(op) << ": its table stays f32, not rw" << *width
              << ": " << reason;
          continue;
        }
      }
      // Operand 0 is the table of both ops; the results are f32 either way.
      op->setOperand(0, rowwise);
      replaced.push_back(table.getDefiningOp());
    }
    // The f32 tables (a table shared by several converted ops is listed once
    // per op).
    eraseUnusedOps(replaced);
  }

  /// The code width `op`'s table gets, or nullopt when it stays: from the
  /// op's precision hint (dropped once honoured or warned about) or the
  /// pass's `bits`.
  std::optional<unsigned> chooseWidth(Operation *op) {
    auto hint = op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
    Type precision = hint ? hint.getPrecision() : Type();
    if (!precision)
      return bits.getValue();
    if (precision.isF32()) {
      // The table's own type: kept, and nothing is left to warn about.
      dropHintPrecision(op);
      return std::nullopt;
    }
    auto integer = dyn_cast<IntegerType>(precision);
    if (!integer)
      return std::nullopt; // f16/bf16: accel-apply-precision's
    dropHintPrecision(op);
    if (integer.getWidth() == 4 || integer.getWidth() == 8)
      return integer.getWidth();
    op->emitWarning() << describeNode(op) << ": its table stays f32, not "
                      << precision << ": rowwise tables have 4- or 8-bit codes";
    return std::nullopt;
  }

  /// A new constant holding `table` (an f32 constant R x D) rowwise-quantized
  /// with `width`-bit codes, or null with `reason` set.
  Value quantizeTable(Value table, unsigned width, std::string &reason) {
    std::optional<F32ConstantView> data = getF32Constant(table);
    auto type = cast<RankedTensorType>(table.getType());
    if (!data) {
      reason = "its data cannot be read";
      return {};
    }
    const int64_t rows = type.getDimSize(0), dim = type.getDimSize(1);
    // Tables are read in place (a mapped external-data table is not
    // copied); only a splat is expanded.
    std::vector<float> splat;
    ArrayRef<float> values = data->data;
    if (data->splat) {
      splat.assign(size_t(rows * dim), (*data)[0]);
      values = splat;
    }
    auto rowwiseType = RankedTensorType::get(
        type.getShape(), RowwiseType::get(table.getContext(), width));
    const uint64_t size = getDenseByteSize(rowwiseType);
    // The rows are written straight into the new constant's blob.
    AsmResourceBlob blob =
        HeapAsmResourceBlob::allocate(size, alignof(uint64_t));
    MutableArrayRef<char> bytes = blob.getMutableData();
    num::Status status = num::quantizeFusedTable(
        width == 8 ? num::RowwiseBits::Eight : num::RowwiseBits::Four,
        {values.data(), values.size()}, size_t(dim),
        {reinterpret_cast<uint8_t *>(bytes.data()), bytes.size()});
    if (!status.ok()) {
      reason = status.message();
      return {};
    }
    OpBuilder builder(table.getDefiningOp());
    ++numTables;
    numBytesSaved += getDenseByteSize(type) - size;
    return builder.create<ConstantOp>(
        table.getLoc(),
        DenseResourceElementsAttr::get(rowwiseType, getBlobName(table, width),
                                       std::move(blob)));
  }
};

} // namespace
