//===- QuantizeBlockFloat.cpp - accel-quantize-block-float pass -----------===//
//
// Stores the constant f32 weights of fully_connected ops (and W and R of
// lstm / gru ops, and the weights of convolutions with groups 1) in a block
// floating-point format (!accel.bfp<msfp8|msfp9|mxint8>, docs/isa.md §3):
// N x K, blocks along K (the reduction axis), exactly the rows `mm` streams
// through its dot-product engines. Activations stay f32: the matrix unit
// converts each activation row to the weight's block format itself, and
// the host kernels do the same (HostBlockLinalg.cpp), so no quantize ops
// and no calibration are needed. The codes come from lib/Numerics'
// encoders (encodeMsfpBlock with blocks of 16, encodeMxBlock), packed in the
// ISA's storage layout.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "DeadConstants.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUTarget.h"

#include "nnaccel/Numerics/BlockFloat.h"
#include "nnaccel/Numerics/Mx.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELQUANTIZEBLOCKFLOAT
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
namespace num = ::nnaccel::numerics;

namespace {

/// The ISA element type of a block format.
::nnaccel::DType blockDType(BlockFormat format) {
  switch (format) {
  case BlockFormat::msfp8:
    return ::nnaccel::DType::MSFP8;
  case BlockFormat::msfp9:
    return ::nnaccel::DType::MSFP9;
  case BlockFormat::mxint8:
    return ::nnaccel::DType::MXINT8;
  case BlockFormat::mxfp8e4m3:
    return ::nnaccel::DType::MXFP8E4M3;
  case BlockFormat::mxfp8e5m2:
    return ::nnaccel::DType::MXFP8E5M2;
  }
  return ::nnaccel::DType::MXINT8;
}

/// True for the OCP MX formats (blocks of 32 with an E8M0 scale).
bool isMxFormat(BlockFormat format) {
  return format == BlockFormat::mxint8 || format == BlockFormat::mxfp8e4m3 ||
         format == BlockFormat::mxfp8e5m2;
}

/// Packs one row of `k` values (k a multiple of the block size) in the
/// ISA's storage of `format`: msfp blocks of 16 as 1 exponent byte + 8
/// bytes of nibbles (element 2j in the low nibble of byte 1 + j), MX
/// blocks of 32 as 1 E8M0 scale byte + 32 int8 or fp8 codes.
void packRow(BlockFormat format, const float *x, int64_t k, uint8_t *dst) {
  if (isMxFormat(format)) {
    const num::MxElemType elem =
        format == BlockFormat::mxint8      ? num::MxElemType::Int8
        : format == BlockFormat::mxfp8e4m3 ? num::MxElemType::Fp8E4M3
                                           : num::MxElemType::Fp8E5M2;
    for (int64_t b = 0; b < k / 32; ++b) {
      uint8_t *blk = dst + b * 33;
      blk[0] = num::encodeMxBlock(elem, {x + b * 32, 32}, {blk + 1, 32});
    }
    return;
  }
  num::MsfpType type = format == BlockFormat::msfp8 ? num::MsfpType::Msfp8
                                                    : num::MsfpType::Msfp9;
  uint8_t codes[16];
  for (int64_t b = 0; b < k / 16; ++b) {
    uint8_t *blk = dst + b * 9;
    blk[0] = num::encodeMsfpBlock(type, {x + b * 16, 16}, {codes, 16});
    for (int j = 0; j < 8; ++j)
      blk[1 + j] = uint8_t((codes[2 * j] & 0xF) | (codes[2 * j + 1] << 4));
  }
}

struct QuantizeBlockFloatPass
    : mlir::nnaccel::impl::AccelQuantizeBlockFloatBase<QuantizeBlockFloatPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<BlockFormat> parsed = symbolizeBlockFormat(format);
    if (!parsed) {
      getOperation().emitError()
          << "accel-quantize-block-float: format must be msfp8, msfp9, "
             "mxint8, mxfp8e4m3 or mxfp8e5m2, got '"
          << format << "'";
      return signalPassFailure();
    }
    blockFormat = *parsed;
    const ::nnaccel::isa::TargetDesc *target =
        npu::lookupTarget(getOperation());
    if (!target)
      return signalPassFailure();
    // A matmul by a constant matrix (accel-recognize-idioms makes these
    // fully_connected ops already; IR that skipped it) becomes one first.
    SmallVector<MatMulOp> matmuls;
    getOperation().walk([&](MatMulOp op) { matmuls.push_back(op); });
    for (MatMulOp op : matmuls)
      rewriteMatMulByConstant(op);
    SmallVector<FullyConnectedOp> products;
    getOperation().walk([&](FullyConnectedOp op) {
      if (isa<FloatType>(getElementTypeOrSelf(op.getInput().getType())) &&
          isa<FloatType>(getElementTypeOrSelf(op.getType())))
        products.push_back(op);
    });
    llvm::DenseMap<std::pair<Value, unsigned>, Value> converted;
    SmallVector<Operation *> replaced;
    for (auto [index, op] : llvm::enumerate(products)) {
      // A block-type hint converts the node even when it is the last.
      std::optional<FormatChoice> choice = chooseFormat(op, *parsed);
      if (!choice)
        continue;
      if (!choice->hinted && keepLast && index + 1 == products.size()) {
        ++numKept;
        continue;
      }
      blockFormat = choice->format;
      Value weight = op.getWeight();
      auto type = cast<RankedTensorType>(weight.getType());
      std::string reason;
      // Without a matrix-unit mode for the format the product could only
      // run on the host: it stays f32 on the card instead.
      ::nnaccel::DType dtype = blockDType(blockFormat);
      if (!target->macsPerCycle.count(dtype))
        reason = "the target's matrix unit has no " +
                 stringifyBlockFormat(blockFormat).str() +
                 " mode (core.macs_per_cycle)";
      else if (!type.getElementType().isF32())
        reason = "its weight is not f32";
      else if (!weight.getDefiningOp<ConstantOp>())
        reason = "its weight is not a constant";
      const int64_t k = type.getDimSize(op.getTransposeWeight() ? 1 : 0);
      const int64_t block = isMxFormat(blockFormat) ? 32 : 16;
      if (reason.empty() && k % block)
        reason = "K = " + std::to_string(k) + " is not a multiple of the " +
                 stringifyBlockFormat(blockFormat).str() + " block size " +
                 std::to_string(block);
      Value blockWeight;
      if (reason.empty()) {
        auto key = std::make_pair(weight, unsigned(blockFormat));
        Value &cached = converted[key];
        if (!cached)
          cached = convertWeight(op, reason);
        blockWeight = cached;
        if (!blockWeight)
          converted.erase(key);
      }
      if (!blockWeight) {
        ++numKept;
        op->emitWarning() << describeNode(op) << ": its weight stays f32, not "
                          << stringifyBlockFormat(blockFormat) << ": "
                          << reason;
        continue;
      }
      op.getWeightMutable().assign(blockWeight);
      op.setTransposeWeight(true);
      // The card sums the k tiles of the matrix unit (native_dim wide) in
      // f32, each tile's blocks from +0; the host kernel sums in the same
      // order when it knows the tile.
      op->setAttr("k_tile",
                  IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                   int64_t(target->nativeDim)));
      ++numProducts;
      replaced.push_back(weight.getDefiningOp());
    }
    // Recurrent ops: W (D x G*H x I) and R (D x G*H x H) are already rows
    // of K (blocks along their last axis); the gate math stays in the op's
    // float type. keep-last concerns the products above only.
    SmallVector<Operation *> recurrent;
    getOperation().walk([&](Operation *op) {
      if (isa<LSTMOp, GRUOp>(op) &&
          isa<FloatType>(getElementTypeOrSelf(op->getOperand(0).getType())))
        recurrent.push_back(op);
    });
    for (Operation *op : recurrent)
      convertRecurrent(op, *parsed, *target, converted, replaced);
    // Convolutions: the weight's rows of K = C/groups x taps, blocks along
    // K, as the matrix unit streams them.
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp op) {
      if (isa<FloatType>(getElementTypeOrSelf(op.getInput().getType())) &&
          isa<FloatType>(getElementTypeOrSelf(op.getType())) &&
          !op.hasBlockWeight())
        convs.push_back(op);
    });
    for (ConvOp op : convs)
      convertConv(op, *parsed, *target, converted, replaced);
    // The float weights (one shared by several converted ops is listed once
    // per op).
    eraseUnusedOps(replaced);
  }

  /// The block format a node takes and whether a hint chose it.
  struct FormatChoice {
    BlockFormat format;
    bool hinted;
  };
  /// A precision hint decides: a block type converts the node to that
  /// format (the hint's precision is consumed), a float type keeps the
  /// node as it is (the hint is accel-apply-precision's); without one the
  /// node takes `defaultFormat`, unless only hinted nodes convert.
  std::optional<FormatChoice> chooseFormat(Operation *op,
                                           BlockFormat defaultFormat) {
    auto hint = op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
    Type precision = hint ? hint.getPrecision() : Type();
    auto hinted = dyn_cast_if_present<BlockFloatType>(precision);
    if (precision && !hinted)
      return std::nullopt;
    if (!hinted && onlyHinted)
      return std::nullopt;
    if (!hinted)
      return FormatChoice{defaultFormat, false};
    dropHintPrecision(op);
    return FormatChoice{hinted.getFormat(), true};
  }

  /// W and R of an lstm or gru in the block format, both or neither (the
  /// kernels take one weight format for the two); a warning names the node
  /// and the reason when they stay f32.
  void
  convertRecurrent(Operation *op, BlockFormat defaultFormat,
                   const ::nnaccel::isa::TargetDesc &target,
                   llvm::DenseMap<std::pair<Value, unsigned>, Value> &converted,
                   SmallVectorImpl<Operation *> &replaced) {
    std::optional<FormatChoice> choice = chooseFormat(op, defaultFormat);
    if (!choice)
      return;
    blockFormat = choice->format;
    const ::nnaccel::DType dtype = blockDType(blockFormat);
    const int64_t block = isMxFormat(blockFormat) ? 32 : 16;
    Value w = op->getOperand(1), r = op->getOperand(2);
    std::string reason;
    if (!target.macsPerCycle.count(dtype))
      reason = "the target's matrix unit has no " +
               stringifyBlockFormat(blockFormat).str() +
               " mode (core.macs_per_cycle)";
    for (auto [name, value] : {std::pair<StringRef, Value>{"W", w}, {"R", r}}) {
      if (!reason.empty())
        break;
      auto type = cast<RankedTensorType>(value.getType());
      if (!type.getElementType().isF32())
        reason = (name + " is not f32").str();
      else if (!value.getDefiningOp<ConstantOp>())
        reason = (name + " is not a constant").str();
      else if (type.getRank() != 3 || type.getShape().back() % block)
        reason =
            (name + "'s K = " + Twine(type.getShape().back()) +
             " (input or hidden size) is not a multiple of the " +
             stringifyBlockFormat(blockFormat) + " block size " + Twine(block))
                .str();
    }
    Value blockW, blockR;
    if (reason.empty()) {
      auto get = [&](Value value) {
        auto key = std::make_pair(value, unsigned(blockFormat));
        Value &cached = converted[key];
        if (!cached)
          cached = convertRows(value, reason);
        Value result = cached;
        if (!result)
          converted.erase(key);
        return result;
      };
      blockW = get(w);
      blockR = blockW ? get(r) : Value();
    }
    if (!blockW || !blockR) {
      ++numKept;
      op->emitWarning() << describeNode(op) << ": its W and R stay f32, not "
                        << stringifyBlockFormat(blockFormat) << ": " << reason;
      return;
    }
    op->setOperand(1, blockW);
    op->setOperand(2, blockR);
    op->setAttr("k_tile", IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                           int64_t(target.nativeDim)));
    ++numProducts;
    replaced.push_back(w.getDefiningOp());
    replaced.push_back(r.getDefiningOp());
  }

  /// The weight of a float convolution in the block format: F x K rows (K
  /// = C/groups x the kernel's taps, the f32 weight's own order), with the
  /// kernel's size in `kernel_shape` and the matrix unit's k tile in
  /// `k_tile`; a warning names the node and the reason when it stays f32.
  void convertConv(ConvOp op, BlockFormat defaultFormat,
                   const ::nnaccel::isa::TargetDesc &target,
                   llvm::DenseMap<std::pair<Value, unsigned>, Value> &converted,
                   SmallVectorImpl<Operation *> &replaced) {
    std::optional<FormatChoice> choice = chooseFormat(op, defaultFormat);
    if (!choice)
      return;
    blockFormat = choice->format;
    const int64_t block = isMxFormat(blockFormat) ? 32 : 16;
    Value weight = op.getWeight();
    auto type = cast<RankedTensorType>(weight.getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    const int64_t groups = op.getGroups();
    std::string reason;
    if (!target.macsPerCycle.count(blockDType(blockFormat)))
      reason = "the target's matrix unit has no " +
               stringifyBlockFormat(blockFormat).str() +
               " mode (core.macs_per_cycle)";
    else if (!type.getElementType().isF32())
      reason = "its weight is not f32";
    else if (!weight.getDefiningOp<ConstantOp>())
      reason = "its weight is not a constant";
    else if (!type.hasStaticShape() || !inputType.hasStaticShape())
      reason = "its shapes are not static";
    else if (groups != 1)
      // Depthwise convolutions run on the vector units (one weight per
      // channel and tap: no dot product to put in blocks), and the matrix
      // unit's block kernels (1x1 and implicit GEMM) multiply one group.
      reason =
          groups == inputType.getDimSize(1) && type.getDimSize(1) == 1
              ? "depthwise convolutions have no reduction over "
                "channels for blocks"
              : "grouped convolutions (groups = " + std::to_string(groups) +
                    ") are not converted";
    const int64_t k =
        type.getNumElements() / std::max<int64_t>(type.getDimSize(0), 1);
    if (reason.empty() && k % block)
      reason = "K = " + std::to_string(k) + " is not a multiple of the " +
               stringifyBlockFormat(blockFormat).str() + " block size " +
               std::to_string(block);
    // The k tile: the widest multiple of the block size that fits the
    // matrix unit (native_dim) and divides K, so that every tile has the
    // same width and one DMA loads all of a filter row group's tiles.
    int64_t kTile = 0;
    for (int64_t t = int64_t(target.nativeDim) / block * block; t >= block;
         t -= block)
      if (k % t == 0) {
        kTile = t;
        break;
      }
    if (reason.empty() && !kTile)
      reason = "the matrix unit's native_dim " +
               std::to_string(target.nativeDim) + " holds no whole " +
               stringifyBlockFormat(blockFormat).str() + " block";
    Value blockWeight;
    if (reason.empty()) {
      auto key = std::make_pair(weight, unsigned(blockFormat));
      Value &cached = converted[key];
      if (!cached)
        cached = packConstant(weight, {type.getDimSize(0), k},
                              /*fromKxN=*/false, reason);
      blockWeight = cached;
      if (!blockWeight)
        converted.erase(key);
    }
    if (!blockWeight) {
      ++numKept;
      op->emitWarning() << describeNode(op) << ": its weight stays f32, not "
                        << stringifyBlockFormat(blockFormat) << ": " << reason;
      return;
    }
    SmallVector<int64_t> kernel = op.getKernelSpatialShape();
    op.getWeightMutable().assign(blockWeight);
    op.setKernelShape(kernel);
    op->setAttr("k_tile",
                IntegerAttr::get(IntegerType::get(&getContext(), 64), kTile));
    ++numProducts;
    replaced.push_back(weight.getDefiningOp());
  }

  /// A constant f32 tensor [... x K] as the same shape in the block format
  /// (each row of K packed), or null with `reason` set.
  Value convertRows(Value weight, std::string &reason) {
    auto type = cast<RankedTensorType>(weight.getType());
    return packConstant(weight, type.getShape(), /*fromKxN=*/false, reason);
  }

  /// The constant f32 `weight` packed into the block format as a tensor of
  /// `shape` [... x K], each row of K elements packed; `fromKxN`: `weight`
  /// is the K x N transpose of a [N x K] `shape`. Null with `reason` set when
  /// the data cannot be read or holds a value that is not finite.
  Value packConstant(Value weight, ArrayRef<int64_t> shape, bool fromKxN,
                     std::string &reason) {
    auto type = cast<RankedTensorType>(weight.getType());
    std::optional<F32ConstantView> data = getF32Constant(weight);
    if (!data) {
      reason = "its data cannot be read";
      return {};
    }
    const int64_t k = shape.back();
    const int64_t rows = k ? type.getNumElements() / k : 0;
    for (int64_t i = 0, e = data->splat ? 1 : rows * k; i < e; ++i)
      if (!std::isfinite((*data)[i])) {
        reason = "it holds a value that is not finite";
        return {};
      }
    auto blockType = RankedTensorType::get(
        shape, BlockFloatType::get(&getContext(), blockFormat));
    const uint64_t size = getDenseByteSize(blockType);
    const uint64_t rowBytes = rows ? size / uint64_t(rows) : 0;
    AsmResourceBlob blob =
        HeapAsmResourceBlob::allocate(size, alignof(uint64_t));
    auto *bytes = reinterpret_cast<uint8_t *>(blob.getMutableData().data());
    std::vector<float> row(static_cast<size_t>(k));
    for (int64_t j = 0; j < rows; ++j) {
      for (int64_t t = 0; t < k; ++t)
        row[size_t(t)] = (*data)[fromKxN ? t * rows + j : j * k + t];
      packRow(blockFormat, row.data(), k, bytes + uint64_t(j) * rowBytes);
    }
    std::string name = "weight";
    if (auto resource = dyn_cast_if_present<DenseResourceElementsAttr>(
            weight.getDefiningOp<ConstantOp>().getValue()))
      name = resource.getRawHandle().getKey().str();
    name += "_" + stringifyBlockFormat(blockFormat).str();
    numBytesSaved += getDenseByteSize(type) - size;
    OpBuilder builder(weight.getDefiningOp());
    return builder.create<ConstantOp>(
        weight.getLoc(),
        DenseResourceElementsAttr::get(blockType, name, std::move(blob)));
  }

  /// matmul(x[... x K], W[K x N] constant f32) -> reshape(fully_connected(
  /// reshape(x, [rows x K]), W), [... x N]), the rewrite of
  /// accel-recognize-idioms; other matmuls stay.
  void rewriteMatMulByConstant(MatMulOp op) {
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    if (!op.getRhs().getDefiningOp<ConstantOp>() || rhsType.getRank() != 2 ||
        lhsType.getRank() < 2 || !rhsType.getElementType().isF32() ||
        !isa<FloatType>(element) || lhsType.getElementType() != element)
      return;
    int64_t k = lhsType.getShape().back(), n = rhsType.getDimSize(1);
    int64_t rows = lhsType.getNumElements() / std::max<int64_t>(k, 1);
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Value input = op.getLhs();
    auto rowsType = RankedTensorType::get({rows, k}, element);
    if (lhsType != rowsType)
      input = builder.create<ReshapeOp>(loc, rowsType, input);
    auto product = builder.create<FullyConnectedOp>(
        loc, TypeRange{RankedTensorType::get({rows, n}, element)},
        ValueRange{input, op.getRhs()}, ArrayRef<NamedAttribute>{});
    for (NamedAttribute attr : op->getDiscardableAttrs())
      product->setAttr(attr.getName(), attr.getValue());
    Value result = product.getResult();
    if (result.getType() != resultType)
      result = builder.create<ReshapeOp>(loc, resultType, result);
    op.getResult().replaceAllUsesWith(result);
    op.erase();
  }

  /// The N x K block-float constant of `op`'s f32 weight, or null with
  /// `reason` set.
  Value convertWeight(FullyConnectedOp op, std::string &reason) {
    Value weight = op.getWeight();
    auto type = cast<RankedTensorType>(weight.getType());
    const bool nByK = op.getTransposeWeight();
    const int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    const int64_t n = nByK ? rows : cols, k = nByK ? cols : rows;
    return packConstant(weight, {n, k}, /*fromKxN=*/!nByK, reason);
  }

  BlockFormat blockFormat = BlockFormat::msfp8;
};

} // namespace
