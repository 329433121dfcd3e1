//===- Quantize.cpp - accel-quantize pass ---------------------------------===//
//
// Post-training int8 quantisation of the matrix products from calibrated
// ranges (docs/quantization.md). Each chosen fully_connected (or matmul by a
// constant matrix, rewritten as one) gets a per-tensor quantized input, a
// weight quantized at compile time per output column (8 bits, or 4 packed
// two per byte with weight-bits=4 or an `i4` hint), an i32 bias, and a
// real result; a quantized product whose only user quantizes its result
// again requantizes on the card instead. Everything is in the IR's types
// (MLIR quant), so the card kernels and the host read the same parameters.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "DeadConstants.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "NPU/NPUTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELQUANTIZE
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

/// The calibrated range of a value (docs/quantization.md): `accel.range` on
/// its producer, or the argument attribute of a function argument.
constexpr StringLiteral kRangeAttrName = AccelDialect::getRangeAttrName();

std::optional<std::pair<double, double>> getCalibratedRange(Value value) {
  DenseF64ArrayAttr range;
  if (Operation *producer = value.getDefiningOp()) {
    if (producer->getNumResults() == 1)
      range = producer->getAttrOfType<DenseF64ArrayAttr>(kRangeAttrName);
  } else if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (auto func = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp()))
      range = func.getArgAttrOfType<DenseF64ArrayAttr>(argument.getArgNumber(),
                                                       kRangeAttrName);
  }
  if (!range || range.size() != 2 || !std::isfinite(range[0]) ||
      !std::isfinite(range[1]) || range[0] > range[1])
    return std::nullopt;
  return std::make_pair(range[0], range[1]);
}

/// The only user of `op`'s single result, or null.
Operation *getOnlyUser(Operation *op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return nullptr;
  return *op->getResult(0).getUsers().begin();
}

/// Smallest scale used: a range or weight column of zeros still needs a
/// positive scale (every value quantizes to 0 with it).
constexpr double kMinScale = 1e-12;

/// The per-tensor quantized type of an activation with range [lo, hi].
quant::UniformQuantizedType getActivationType(MLIRContext *context, double lo,
                                              double hi, bool asymmetric,
                                              Type expressed) {
  auto i8 = IntegerType::get(context, 8);
  if (asymmetric) {
    // u8 over a range that includes 0, so 0 is exact (zero padding, ReLU).
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
    double scale = std::max((hi - lo) / 255.0, kMinScale);
    int64_t zeroPoint =
        std::clamp<int64_t>(int64_t(std::nearbyint(-lo / scale)), 0, 255);
    return quant::UniformQuantizedType::get(0, i8, expressed, scale, zeroPoint,
                                            0, 255);
  }
  if (lo >= 0) // non-negative (after a ReLU): all 8 bits for the magnitude
    return quant::UniformQuantizedType::get(
        0, i8, expressed, std::max(hi / 255.0, kMinScale), 0, 0, 255);
  double scale = std::max(std::max(-lo, hi) / 127.0, kMinScale);
  return quant::UniformQuantizedType::get(quant::QuantizationFlags::Signed, i8,
                                          expressed, scale, 0, -128, 127);
}

/// A weight quantized symmetrically to i8 or i4 in N x K layout: its type
/// (per column or per tensor) and stored integers, or nullopt for a weight
/// that is not an f32 constant.
struct QuantizedWeight {
  RankedTensorType type;
  std::vector<char> storage;
  SmallVector<double> scales; // one, or one per column
};

/// Quantizes `rows` output rows (columns of an FC, filters of a conv) of `k`
/// reduction elements each, element (r, i) read by `at`, symmetrically to
/// `bits` (8: i8 in [-127, 127]; 4: i4 in [-7, 7], the symmetric range, so
/// -w quantizes to -q): one scale per row (axis 0) or one per tensor. The
/// result has `shape` (rows first, k the product of the others) and
/// row-major storage: a byte per i8 element; i4 packed two per byte, element
/// 2j of an innermost row in the low nibble of byte j, each innermost row
/// ceil(inner / 2) bytes (docs/isa.md §3, accel::getDenseByteSize).
QuantizedWeight quantizeWeightRows(MLIRContext *context, int64_t rows,
                                   int64_t k,
                                   function_ref<float(int64_t, int64_t)> at,
                                   bool perChannel, ArrayRef<int64_t> shape,
                                   unsigned bits = 8) {
  assert((bits == 8 || bits == 4) && "i8 or i4 weights");
  const int64_t qmax = (int64_t(1) << (bits - 1)) - 1;
  const int64_t storageMin = -qmax - 1;
  QuantizedWeight result;
  SmallVector<double> maxima(perChannel ? rows : 1, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < k; ++i) {
      double &max = maxima[perChannel ? r : 0];
      max = std::max(max, double(std::abs(at(r, i))));
    }
  for (double max : maxima)
    result.scales.push_back(std::max(max / double(qmax), kMinScale));
  auto quantizeAt = [&](int64_t r, int64_t i) {
    double scale = result.scales[perChannel ? r : 0];
    return std::clamp<int64_t>(
        int64_t(std::nearbyint(double(at(r, i)) / scale)), -qmax, qmax);
  };
  if (bits == 8) {
    result.storage.resize(size_t(rows * k));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < k; ++i)
        result.storage[size_t(r * k + i)] = char(quantizeAt(r, i));
  } else {
    // Element e of the row-major order is (e / k, e % k); packed per
    // innermost row of the stored shape.
    const int64_t inner = shape.empty() ? 1 : shape.back();
    const int64_t innerRows = inner ? rows * k / inner : 0;
    const int64_t rowBytes = (inner + 1) / 2;
    result.storage.assign(size_t(innerRows * rowBytes), 0);
    for (int64_t e = 0; e < rows * k; ++e) {
      int64_t row = e / inner, column = e % inner;
      uint8_t nibble = uint8_t(quantizeAt(e / k, e % k)) & 0xF;
      result.storage[size_t(row * rowBytes + column / 2)] |=
          char(column % 2 ? nibble << 4 : nibble);
    }
  }
  auto storageType = IntegerType::get(context, bits);
  Type f32 = Float32Type::get(context);
  Type element;
  if (perChannel)
    element = quant::UniformQuantizedPerAxisType::get(
        quant::QuantizationFlags::Signed, storageType, f32, result.scales,
        SmallVector<int64_t>(rows, 0), /*quantizedDimension=*/0, storageMin,
        qmax);
  else
    element = quant::UniformQuantizedType::get(
        quant::QuantizationFlags::Signed, storageType, f32, result.scales[0], 0,
        storageMin, qmax);
  result.type = RankedTensorType::get(shape, element);
  return result;
}

std::optional<QuantizedWeight> quantizeWeight(Value weight, bool transposed,
                                              bool perChannel, unsigned bits) {
  std::optional<F32ConstantView> data = getF32Constant(weight);
  if (!data)
    return std::nullopt;
  auto type = cast<RankedTensorType>(weight.getType());
  // Element (column c, reduction index i) of the weight; stored N x K.
  int64_t n = type.getDimSize(transposed ? 0 : 1);
  int64_t k = type.getDimSize(transposed ? 1 : 0);
  auto at = [&](int64_t c, int64_t i) {
    return (*data)[transposed ? c * k + i : i * n + c];
  };
  return quantizeWeightRows(weight.getContext(), n, k, at, perChannel, {n, k},
                            bits);
}

/// The bias of a product with input scale `inputScale` and weight scales
/// `weightScales` as i32 in the accumulator's scale, or null when it is not
/// an f32 constant with one value per column.
Value quantizeBias(OpBuilder &builder, Value bias, int64_t n, double inputScale,
                   ArrayRef<double> weightScales) {
  std::optional<F32ConstantView> data = getF32Constant(bias);
  if (!data || cast<RankedTensorType>(bias.getType()).getNumElements() != n)
    return {};
  SmallVector<double> scales;
  std::vector<char> storage(size_t(n) * sizeof(int32_t));
  for (int64_t c = 0; c < n; ++c) {
    double scale = inputScale * weightScales[weightScales.size() == 1 ? 0 : c];
    scales.push_back(scale);
    double value = std::nearbyint(double((*data)[c]) / scale);
    int32_t stored =
        int32_t(std::clamp<double>(value, std::numeric_limits<int32_t>::min(),
                                   std::numeric_limits<int32_t>::max()));
    std::memcpy(&storage[size_t(c) * sizeof(int32_t)], &stored,
                sizeof(int32_t));
  }
  MLIRContext *context = builder.getContext();
  auto i32 = IntegerType::get(context, 32);
  Type f32 = Float32Type::get(context);
  Type element = quant::UniformQuantizedPerAxisType::get(
      quant::QuantizationFlags::Signed, i32, f32, scales,
      SmallVector<int64_t>(n, 0), 0, std::numeric_limits<int32_t>::min(),
      std::numeric_limits<int32_t>::max());
  auto type = RankedTensorType::get({n}, element);
  return builder.create<ConstantOp>(
      bias.getLoc(), createQuantizedConstant(type, storage, "bias_i32"));
}

/// A convolution weight (F x C/groups x K...) quantized symmetrically to
/// i8 at compile time, one scale per output channel (axis 0) or one per
/// tensor; nullopt for a weight that is not an f32 constant.
std::optional<QuantizedWeight> quantizeConvWeight(Value weight,
                                                  bool perChannel) {
  std::optional<F32ConstantView> data = getF32Constant(weight);
  if (!data)
    return std::nullopt;
  auto type = cast<RankedTensorType>(weight.getType());
  int64_t filters = type.getDimSize(0);
  int64_t k = type.getNumElements() / std::max<int64_t>(filters, 1);
  auto at = [&](int64_t f, int64_t i) { return (*data)[f * k + i]; };
  return quantizeWeightRows(weight.getContext(), filters, k, at, perChannel,
                            type.getShape());
}

/// True when requantizing to `type` already clips to the fused activation
/// of `op` (relu, or clip with both bounds): every representable value lies
/// inside the activation's range, so saturation does what the activation
/// would.
bool isActivationSubsumed(ConvOp op, quant::UniformQuantizedType type) {
  double lo =
      double(type.getStorageTypeMin() - type.getZeroPoint()) * type.getScale();
  double hi =
      double(type.getStorageTypeMax() - type.getZeroPoint()) * type.getScale();
  switch (op.getActivation()) {
  case Activation::relu:
    return lo >= 0.0;
  case Activation::clip: {
    std::optional<APFloat> min = op.getActivationMin(),
                           max = op.getActivationMax();
    return min && max && lo >= min->convertToDouble() &&
           hi <= max->convertToDouble();
  }
  default:
    return false;
  }
}

/// A quantize op's result becomes a quantized product's own result when
/// the product's real result has no other user: FC or conv + bias +
/// activation + requantize in one kernel, no real tensor in between. A
/// conv's fused relu or clip that the requantized type's range lies inside
/// is dropped (saturation clips the same), so its kernel goes from the
/// exact sum to the stored integer in one rescale.
struct FuseRequantizeIntoProduct : OpRewritePattern<QuantizeOp> {
  FuseRequantizeIntoProduct(MLIRContext *context, uint64_t &fused,
                            const ::nnaccel::isa::TargetDesc *target)
      : OpRewritePattern(context), fused(fused), target(target) {}

  /// Whether the card kernel of `product` also takes it with `resultType`
  /// (and without its activation when `subsumed`): a requantized result is
  /// stored in 1-byte elements, which can break the alignment a kernel
  /// needs (an int8 conv's images of a batch). Checked on a detached clone.
  bool kernelTakes(Operation *product, Type resultType, bool subsumed) const {
    if (!target || !isa<CardKernelOpInterface>(product))
      return true;
    Operation *clone = product->clone();
    clone->getResult(0).setType(resultType);
    if (auto conv = dyn_cast<ConvOp>(clone); conv && subsumed)
      conv.setActivation(Activation::none);
    std::string reason;
    bool takes = succeeded(
        cast<CardKernelOpInterface>(clone).checkCardKernel(*target, reason));
    clone->destroy();
    return takes;
  }

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    Operation *product = op.getInput().getDefiningOp();
    auto resultType = dyn_cast<quant::UniformQuantizedType>(
        getElementTypeOrSelf(op.getType()));
    if (!isa_and_nonnull<FullyConnectedOp, ConvOp>(product) ||
        !product->hasOneUse() || !resultType ||
        !isa<quant::QuantizedType>(
            getElementTypeOrSelf(product->getOperand(0).getType())))
      return failure();
    auto conv = dyn_cast<ConvOp>(product);
    bool subsumed = conv && isActivationSubsumed(conv, resultType);
    if (!kernelTakes(product, op.getType(), subsumed))
      return failure();
    // The quantized type now carries the range.
    rewriter.modifyOpInPlace(product, [&] {
      product->getResult(0).setType(op.getType());
      product->removeAttr(AccelDialect::getRangeAttrName());
      if (subsumed) {
        conv.setActivation(Activation::none);
        conv->removeAttr(conv.getActivationMinAttrName());
        conv->removeAttr(conv.getActivationMaxAttrName());
      }
    });
    rewriter.replaceOp(op, product->getResult(0));
    ++fused;
    return success();
  }

  uint64_t &fused;
  const ::nnaccel::isa::TargetDesc *target;
};

struct QuantizePass
    : public mlir::nnaccel::impl::AccelQuantizeBase<QuantizePass> {
  using Base::Base;

  void runOnOperation() override {
    if (keepLastPrecision != "f32" && keepLastPrecision != "f16" &&
        keepLastPrecision != "bf16") {
      getOperation().emitError()
          << "accel-quantize: keep-last-precision must be f32, f16 or bf16, "
             "got '"
          << keepLastPrecision << "'";
      return signalPassFailure();
    }
    if (scheme != "symmetric" && scheme != "asymmetric") {
      getOperation().emitError() << "accel-quantize: unknown scheme '" << scheme
                                 << "' (symmetric or asymmetric)";
      return signalPassFailure();
    }
    if (weightBits != 8 && weightBits != 4) {
      getOperation().emitError()
          << "accel-quantize: weight-bits must be 8 or 4, got "
          << unsigned(weightBits);
      return signalPassFailure();
    }
    SmallVector<Operation *> products;
    Operation *firstConv = nullptr;
    getOperation().walk([&](Operation *op) {
      if (isa<FullyConnectedOp, MatMulOp, ConvOp>(op) &&
          isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
        products.push_back(op);
      if (isa<ConvOp>(op) && !firstConv)
        firstConv = op;
    });
    for (auto [index, op] : llvm::enumerate(products)) {
      auto hint = op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
      Type precision = hint ? hint.getPrecision() : Type();
      // `i8` or `i4`: quantized, with weights of that width.
      bool hinted = precision && (precision.isSignlessInteger(8) ||
                                  precision.isSignlessInteger(4));
      if (precision && !hinted)
        continue; // a float precision: accel-apply-precision's
      if (!hinted && onlyHinted)
        continue;
      if (!hinted && keepLast && index + 1 == products.size()) {
        keepInPrecision(op);
        continue;
      }
      if (!hinted && keepFirstConv && op == firstConv)
        continue;
      // Honoured or warned about below; later passes need not see it.
      if (hinted)
        dropHintPrecision(op);
      unsigned bits =
          hinted ? precision.getIntOrFloatBitWidth() : unsigned(weightBits);
      if (bits == 4 && isa<ConvOp>(op)) {
        // Only the fully_connected kernel multiplies by 4-bit weights.
        if (hinted)
          op->emitWarning() << describeNode(op)
                            << ": keeps 8-bit weights, not i4: only "
                               "fully_connected and matmul products take "
                               "4-bit weights";
        bits = 8;
      }
      std::string reason;
      bool expected = false;
      if (succeeded(quantize(op, bits, reason, expected))) {
        ++numQuantized;
      } else if (hinted || expected) {
        // Unhinted ops that are no constant-weight f32 product (attention's
        // activation x activation matmuls) stay quietly; what a user asked
        // for, or what calibration should have covered, is worth a warning.
        op->emitWarning() << describeNode(op) << ": stays "
                          << getElementTypeOrSelf(op->getResult(0).getType())
                          << ", not int8: " << reason;
      }
    }
    if (quantizeAdds)
      rewriteAdds();
    RewritePatternSet patterns(&getContext());
    uint64_t fused = 0;
    patterns.add<FuseRequantizeIntoProduct>(&getContext(), fused,
                                            npu::lookupTarget(getOperation()));
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    numFused += fused;
    if (failed(fuseIntoRealConvs()))
      return signalPassFailure();
  }

  /// The quantize of `value` to `type`: an existing one that runs before
  /// `before`, or a new one right before it.
  Value getQuantized(OpBuilder &builder, Value value,
                     quant::UniformQuantizedType type, Operation *before) {
    for (Operation *user : value.getUsers())
      if (auto quantize = dyn_cast<QuantizeOp>(user))
        if (getElementTypeOrSelf(quantize.getType()) == type &&
            quantize->getBlock() == before->getBlock() &&
            quantize->isBeforeInBlock(before))
          return quantize.getResult();
    builder.setInsertionPoint(before);
    auto shape = cast<RankedTensorType>(value.getType()).getShape();
    return builder.create<QuantizeOp>(before->getLoc(),
                                      RankedTensorType::get(shape, type), value,
                                      /*reciprocal_scale=*/true);
  }

  /// Residual adds between int8 convolutions: an f32 add of same-shape
  /// operands whose users all quantize its result (int8 convs) or are adds
  /// themselves adds the quantized values into a quantized result (type
  /// from its range): the quantize of its result goes, the quantize of each
  /// operand is fused into the conv producing it. Without this, the real
  /// tensors around every add cost a dequantize and a quantize pass through
  /// memory. An add that stays f32 reads a quantized operand through an
  /// accel.dequantize.
  ///
  /// An add whose only user is a ReLU whose users all do (ResNet's blocks
  /// end in add + ReLU) takes the ReLU's range instead: its u8 type with
  /// zero point 0 saturates every negative sum to 0, which is the ReLU, so
  /// the ReLU goes too.
  void rewriteAdds() {
    MLIRContext *context = &getContext();
    Type f32 = Float32Type::get(context);
    bool asymmetric = scheme == "asymmetric";
    auto quantizesAll = [](Operation *op) {
      return !op->use_empty() &&
             llvm::all_of(op->getUsers(), [](Operation *user) {
               return isa<QuantizeOp, AddOp>(user);
             });
    };
    SmallVector<AddOp> adds;
    getOperation().walk([&](AddOp op) { adds.push_back(op); });
    for (AddOp add : adds) {
      auto type = cast<RankedTensorType>(add.getType());
      auto hint = add->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
      // The op whose result the quantized add replaces: the add, or the
      // ReLU it saturates into.
      Operation *replaced = add;
      if (auto relu = dyn_cast_or_null<ReluOp>(getOnlyUser(add));
          relu && relu.getType() == type && quantizesAll(relu))
        if (std::optional<std::pair<double, double>> reluRange =
                getCalibratedRange(relu.getResult())) {
          quant::UniformQuantizedType reluType = getActivationType(
              context, reluRange->first, reluRange->second, asymmetric, f32);
          if (!reluType.isSigned() && reluType.getZeroPoint() == 0)
            replaced = relu;
        }
      if (!type.getElementType().isF32() ||
          (hint && hint.getPrecision() &&
           !hint.getPrecision().isSignlessInteger(8)) ||
          !quantizesAll(replaced) ||
          llvm::any_of(add->getOperands(), [&](Value operand) {
            return cast<RankedTensorType>(operand.getType()).getShape() !=
                   type.getShape();
          }))
        continue;
      std::optional<std::pair<double, double>> range =
          getCalibratedRange(replaced->getResult(0));
      // Operands quantized by an add rewritten before are read through
      // their dequantize; the others need a range of their own.
      SmallVector<Value, 2> real;
      for (Value operand : add->getOperands()) {
        if (auto dequantize = operand.getDefiningOp<DequantizeOp>())
          operand = dequantize.getInput();
        real.push_back(operand);
      }
      if (!range || llvm::any_of(real, [](Value operand) {
            return !isa<quant::QuantizedType>(
                       getElementTypeOrSelf(operand.getType())) &&
                   !getCalibratedRange(operand);
          }))
        continue;
      if (hint && hint.getPrecision())
        dropHintPrecision(add);
      OpBuilder builder(add);
      SmallVector<Value, 2> operands;
      for (Value operand : real) {
        if (isa<quant::QuantizedType>(
                getElementTypeOrSelf(operand.getType()))) {
          operands.push_back(operand);
          continue;
        }
        std::optional<std::pair<double, double>> operandRange =
            getCalibratedRange(operand);
        operands.push_back(getQuantized(
            builder, operand,
            getActivationType(context, operandRange->first,
                              operandRange->second, asymmetric, f32),
            add));
      }
      builder.setInsertionPoint(add);
      auto resultType = RankedTensorType::get(
          type.getShape(), getActivationType(context, range->first,
                                             range->second, asymmetric, f32));
      auto quantized = builder.create<AddOp>(add.getLoc(), resultType,
                                             operands[0], operands[1]);
      for (NamedAttribute attribute : add->getDiscardableAttrs())
        if (attribute.getName() != AccelDialect::getRangeAttrName())
          quantized->setAttr(attribute.getName(), attribute.getValue());
      Value dequantized;
      Value result = replaced->getResult(0);
      for (Operation *user : llvm::make_early_inc_range(result.getUsers())) {
        if (auto quantize = dyn_cast<QuantizeOp>(user)) {
          builder.setInsertionPoint(quantize);
          Value replacement = quantized.getResult();
          if (quantize.getType() != resultType)
            replacement = builder.create<RequantizeOp>(
                quantize.getLoc(), quantize.getType(), replacement);
          quantize.getResult().replaceAllUsesWith(replacement);
          quantize->erase();
          continue;
        }
        if (!dequantized) {
          builder.setInsertionPointAfter(quantized);
          dequantized =
              builder.create<DequantizeOp>(add.getLoc(), type, quantized);
        }
        user->replaceUsesOfWith(result, dequantized);
      }
      if (replaced != add)
        replaced->erase();
      add->erase();
      ++numQuantizedAdds;
    }
  }

  /// A real (f32) conv whose only user quantizes its result -- the input
  /// of an int8 consumer, e.g. after a network's stem -- quantizes it in
  /// its epilogue instead, where its card kernel can (the strided stem
  /// kernel): the real tensor never goes to memory. A fused ReLU or clip
  /// the quantized range lies inside goes, as for quantized convs.
  LogicalResult fuseIntoRealConvs() {
    const ::nnaccel::isa::TargetDesc *target =
        npu::lookupTarget(getOperation());
    if (!target)
      return failure();
    SmallVector<QuantizeOp> quantizes;
    getOperation().walk([&](QuantizeOp op) { quantizes.push_back(op); });
    for (QuantizeOp op : quantizes) {
      auto conv = op.getInput().getDefiningOp<ConvOp>();
      auto resultType = dyn_cast<quant::UniformQuantizedType>(
          getElementTypeOrSelf(op.getType()));
      if (!conv || !conv->hasOneUse() || !resultType ||
          isa<quant::QuantizedType>(
              getElementTypeOrSelf(conv.getInput().getType())))
        continue;
      auto kernel = dyn_cast<CardKernelOpInterface>(conv.getOperation());
      if (!kernel)
        continue;
      RankedTensorType realType = conv.getType();
      NamedAttrList attributes = conv->getAttrs();
      conv.getResult().setType(op.getType());
      if (isActivationSubsumed(conv, resultType)) {
        conv.setActivation(Activation::none);
        conv->removeAttr(conv.getActivationMinAttrName());
        conv->removeAttr(conv.getActivationMaxAttrName());
      }
      std::string reason;
      if (failed(kernel.checkCardKernel(*target, reason))) {
        conv.getResult().setType(realType);
        conv->setAttrs(attributes.getDictionary(conv.getContext()));
        continue;
      }
      conv->removeAttr(AccelDialect::getRangeAttrName());
      op.getResult().replaceAllUsesWith(conv.getResult());
      op.erase();
      ++numFused;
    }
    return success();
  }

  /// Whether a product with `weight` and `input` can be quantized: an f32
  /// constant weight (else `reason`, quietly) and a calibrated input range
  /// (else `reason` and `expected`: a candidate calibration missed). Checked
  /// before the weight is quantized, which reads all of it.
  static LogicalResult
  checkCandidate(Value weight, Value input,
                 std::optional<std::pair<double, double>> &range,
                 std::string &reason, bool &expected) {
    if (!getF32Constant(weight)) {
      reason = "its weight is not an f32 constant";
      return failure();
    }
    range = getCalibratedRange(input);
    if (!range) {
      reason = "its input has no calibrated range (--calibration)";
      expected = true;
      return failure();
    }
    return success();
  }

  /// The kept last product computes in keepLastPrecision: a `precision`
  /// hint accel-apply-precision honours (fully_connected and matmul, whose
  /// card kernels take f16 and bf16).
  void keepInPrecision(Operation *op) {
    if (!isa<FullyConnectedOp, MatMulOp>(op) || keepLastPrecision == "f32" ||
        !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
      return;
    Type precision = keepLastPrecision == "bf16"
                         ? Type(BFloat16Type::get(op->getContext()))
                         : Type(Float16Type::get(op->getContext()));
    auto hint = op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
    op->setAttr(AccelDialect::getHintAttrName(),
                hint ? HintAttr::get(op->getContext(), hint.getCard(),
                                     hint.getCores(), hint.getChunks(),
                                     hint.getParallel(), hint.getMemory(),
                                     precision, hint.getOrder())
                     : HintAttr::get(op->getContext(), {}, {}, {}, {}, {},
                                     precision, {}));
  }

  /// Collects the ops a builder creates, so that an attempt can be undone.
  struct CreatedOps : OpBuilder::Listener {
    SmallVector<Operation *> ops;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      ops.push_back(op);
    }
    void eraseAll() {
      for (Operation *op : llvm::reverse(ops))
        op->erase();
      ops.clear();
    }
  };

  /// Rewrites one product with `bits`-bit weights (8, or 4 for a
  /// fully_connected / matmul); on failure `reason` says why, and
  /// `expected` whether the op was otherwise a candidate (only its range is
  /// missing). A product the card's kernel cannot take with 4-bit weights
  /// gets 8-bit ones, with a warning that says why.
  LogicalResult quantize(Operation *op, unsigned bits, std::string &reason,
                         bool &expected) {
    if (auto conv = dyn_cast<ConvOp>(op))
      return quantizeConv(conv, reason, expected);
    Value input, weight, bias;
    bool transposed;
    auto fc = dyn_cast<FullyConnectedOp>(op);
    if (fc) {
      if (fc.getTransposeInput() || !fc.getAlpha().isExactlyValue(1.0) ||
          (fc.getBias() && !fc.getBeta().isExactlyValue(1.0))) {
        reason = "transpose_input and alpha/beta != 1 are not quantized";
        return failure();
      }
      input = fc.getInput();
      weight = fc.getWeight();
      bias = fc.getBias();
      transposed = fc.getTransposeWeight();
    } else {
      auto matmul = cast<MatMulOp>(op);
      input = matmul.getLhs();
      weight = matmul.getRhs();
      transposed = false;
      if (cast<RankedTensorType>(weight.getType()).getRank() != 2 ||
          cast<RankedTensorType>(input.getType()).getRank() < 2) {
        reason = "only a matmul of a matrix (or batch of rows) by a constant "
                 "matrix is quantized";
        return failure();
      }
    }
    auto inputType = cast<RankedTensorType>(input.getType());
    if (!inputType.getElementType().isF32()) {
      reason = "only f32 products are quantized";
      return failure();
    }
    std::optional<std::pair<double, double>> range;
    if (failed(checkCandidate(weight, input, range, reason, expected)))
      return failure();
    std::optional<QuantizedWeight> quantizedWeight =
        quantizeWeight(weight, transposed, perChannel, bits);

    MLIRContext *context = op->getContext();
    OpBuilder builder(op);
    CreatedOps created;
    builder.setListener(&created);
    Location loc = op->getLoc();
    quant::UniformQuantizedType activationType =
        getActivationType(context, range->first, range->second,
                          scheme == "asymmetric", inputType.getElementType());
    int64_t k = inputType.getShape().back();
    int64_t rows = inputType.getNumElements() / std::max<int64_t>(k, 1);
    int64_t n = quantizedWeight->type.getDimSize(0);
    // A matmul's leading axes become the rows of a 2-D product.
    Value rowsInput = input;
    if (inputType.getRank() != 2)
      rowsInput = builder.create<ReshapeOp>(
          loc, RankedTensorType::get({rows, k}, inputType.getElementType()),
          input);
    // The card multiplies by the reciprocal of a scale the pass chose.
    Value quantizedInput = builder.create<QuantizeOp>(
        loc, RankedTensorType::get({rows, k}, activationType), rowsInput,
        /*reciprocal_scale=*/true);
    Value quantizedWeightValue = builder.create<ConstantOp>(
        weight.getLoc(),
        createQuantizedConstant(quantizedWeight->type, quantizedWeight->storage,
                                bits == 4 ? "weight_i4" : "weight_i8"));
    Value quantizedBias;
    if (bias) {
      quantizedBias = quantizeBias(builder, bias, n, activationType.getScale(),
                                   quantizedWeight->scales);
      if (!quantizedBias) // e.g. a broadcast M x N bias: added in f32
        quantizedBias = bias;
    }
    // A matmul's bias add and ReLU (ONNX MatMul + Add + Relu) join the
    // product: the bias into the exact i32 sums, the ReLU into the kernel,
    // so a following int8 product's quantize can fuse into this one.
    SmallVector<Operation *> absorbed;
    Activation activation = Activation::none;
    if (!fc) {
      Operation *last = op;
      if (Operation *add = getOnlyUser(last); isa_and_nonnull<AddOp>(add)) {
        Value other = add->getOperand(add->getOperand(0) == last->getResult(0));
        auto otherType = cast<RankedTensorType>(other.getType());
        if (otherType.getNumElements() == n && otherType.getRank() >= 1 &&
            otherType.getShape().back() == n &&
            add->getResult(0).getType() == last->getResult(0).getType())
          if (Value perColumn =
                  quantizeBias(builder, other, n, activationType.getScale(),
                               quantizedWeight->scales)) {
            quantizedBias = perColumn;
            absorbed.push_back(add);
            last = add;
          }
      }
      if (Operation *relu = getOnlyUser(last); isa_and_nonnull<ReluOp>(relu)) {
        activation = Activation::relu;
        absorbed.push_back(relu);
      }
    }
    auto resultType = RankedTensorType::get({rows, n}, builder.getF32Type());
    SmallVector<Value> operands{quantizedInput, quantizedWeightValue};
    if (quantizedBias)
      operands.push_back(quantizedBias);
    // The fused activation and every discardable attribute (hint,
    // placement, range) carry over.
    auto product = builder.create<FullyConnectedOp>(loc, TypeRange{resultType},
                                                    operands, op->getAttrs());
    product.setTransposeWeight(true);
    if (activation != Activation::none)
      product.setActivation(activation);
    // 4-bit weights only where the card's kernel takes them (the host's
    // takes any shape, but a product the card could run with 8-bit weights
    // should not move to the host for its weights' sake).
    if (bits == 4) {
      std::string kernelReason;
      const ::nnaccel::isa::TargetDesc *target =
          npu::lookupTarget(getOperation());
      auto kernel = cast<CardKernelOpInterface>(product.getOperation());
      if (target && failed(kernel.checkCardKernel(*target, kernelReason))) {
        created.eraseAll();
        op->emitWarning() << describeNode(op)
                          << ": keeps 8-bit weights, not 4-bit: the card's "
                             "kernel cannot take them ("
                          << kernelReason << ")";
        return quantize(op, 8, reason, expected);
      }
      ++numWeights4;
    }
    // The value the product now stands for, and its calibrated range.
    Operation *replaced = absorbed.empty() ? op : absorbed.back();
    Attribute resultRange = replaced->getAttr(AccelDialect::getRangeAttrName());
    if (resultRange)
      product->setAttr(AccelDialect::getRangeAttrName(), resultRange);
    Value result = product.getResult();
    auto originalType = cast<RankedTensorType>(op->getResult(0).getType());
    if (originalType != resultType) {
      result = builder.create<ReshapeOp>(loc, originalType, result);
      if (resultRange)
        result.getDefiningOp()->setAttr(AccelDialect::getRangeAttrName(),
                                        resultRange);
    }
    replaced->getResult(0).replaceAllUsesWith(result);
    SmallVector<Operation *> dead{op};
    llvm::append_range(dead, absorbed);
    // A set: the same constant can be the bias and an operand of an
    // absorbed op, and must be erased once.
    llvm::SetVector<Operation *> constants;
    constants.insert(weight.getDefiningOp());
    if (bias)
      constants.insert(bias.getDefiningOp());
    for (Operation *erased : llvm::reverse(dead)) {
      for (Value operand : erased->getOperands())
        if (operand.getDefiningOp<ConstantOp>())
          constants.insert(operand.getDefiningOp());
      erased->erase();
    }
    // The f32 weight and bias would otherwise take package space too.
    eraseUnusedOps(constants.getArrayRef());
    return success();
  }

  /// Rewrites one convolution (groups 1 or depthwise) like quantize() does a
  /// product: quantized input, per-output-channel i8 weight, i32 bias, real
  /// result.
  LogicalResult quantizeConv(ConvOp op, std::string &reason, bool &expected) {
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t channels = inputType.getDimSize(1);
    int64_t filters = op.getType().getDimSize(1);
    int64_t groups = int64_t(op.getGroups());
    if (groups != 1 && !(groups == channels && groups == filters)) {
      reason = "only convolutions with groups = 1 and depthwise ones are "
               "quantized";
      return failure();
    }
    if (!inputType.getElementType().isF32()) {
      reason = "only f32 convolutions are quantized";
      return failure();
    }
    std::optional<std::pair<double, double>> range;
    if (failed(checkCandidate(op.getWeight(), op.getInput(), range, reason,
                              expected)))
      return failure();
    std::optional<QuantizedWeight> quantizedWeight =
        quantizeConvWeight(op.getWeight(), perChannel);
    OpBuilder builder(op);
    Location loc = op.getLoc();
    quant::UniformQuantizedType activationType =
        getActivationType(op.getContext(), range->first, range->second,
                          scheme == "asymmetric", inputType.getElementType());
    Value quantizedInput = builder.create<QuantizeOp>(
        loc, RankedTensorType::get(inputType.getShape(), activationType),
        op.getInput(), /*reciprocal_scale=*/true);
    Value weight = op.getWeight(), bias = op.getBias();
    Value quantizedWeightValue = builder.create<ConstantOp>(
        weight.getLoc(),
        createQuantizedConstant(quantizedWeight->type, quantizedWeight->storage,
                                "weight_i8"));
    Value quantizedBias;
    if (bias) {
      quantizedBias =
          quantizeBias(builder, bias, filters, activationType.getScale(),
                       quantizedWeight->scales);
      if (!quantizedBias)
        quantizedBias = bias;
    }
    SmallVector<Value> operands{quantizedInput, quantizedWeightValue};
    if (quantizedBias)
      operands.push_back(quantizedBias);
    // The fused activation and every discardable attribute (hint,
    // placement, range) carry over; the result stays real.
    auto conv = builder.create<ConvOp>(loc, TypeRange{op.getType()}, operands,
                                       op->getAttrs());
    // Only where the card has an int8 kernel for it (1x1, depthwise, the
    // implicit GEMM for groups 1 in 1-D and 2-D): an int8 conv on the host
    // would be far slower than the f32 one on the card.
    std::string kernelReason;
    auto kernel = cast<CardKernelOpInterface>(conv.getOperation());
    const ::nnaccel::isa::TargetDesc *target =
        npu::lookupTarget(getOperation());
    if (!target || failed(kernel.checkCardKernel(*target, kernelReason))) {
      SmallVector<Operation *> created{conv};
      for (Value operand : operands)
        if (Operation *producer = operand.getDefiningOp();
            producer && producer != weight.getDefiningOp() &&
            (!bias || producer != bias.getDefiningOp()))
          created.push_back(producer);
      for (Operation *newOp : created)
        newOp->erase();
      reason = "the card has no int8 kernel for it (" + kernelReason + ")";
      return failure();
    }
    op.getResult().replaceAllUsesWith(conv.getResult());
    Operation *weightOp = weight.getDefiningOp();
    Operation *biasOp = bias ? bias.getDefiningOp() : nullptr;
    op->erase();
    eraseUnusedOps({weightOp, biasOp});
    return success();
  }
};

} // namespace
