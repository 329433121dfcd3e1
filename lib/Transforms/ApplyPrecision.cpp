//===- ApplyPrecision.cpp - accel-apply-precision pass --------------------===//
//
// Honours the `precision` field of #accel.hint where the card can: an op
// asked to compute in f16, bf16 or f32 gets its float operands converted
// to that type (constants at compile time), computes in it, and its
// results are converted back, so the rest of the graph is unchanged. A
// precision the op's card kernel lacks is a warning naming the node and
// the kernel's reason, and the op keeps its types; integer and quantised
// precisions are --quantize's (accel-assign-placement warns about them).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "DeadConstants.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "NPU/NPUTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

#include <cstring>

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELAPPLYPRECISION
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

/// Where a convert added for `op` stands: `op`'s node name with `suffix`,
/// so reports and placement files tell the converts and the op apart.
Location getConvertLoc(Operation *op, StringRef suffix) {
  std::optional<StringRef> name = getNodeName(op->getLoc());
  if (!name)
    return op->getLoc();
  return NameLoc::get(StringAttr::get(op->getContext(), *name + suffix),
                      op->getLoc());
}

bool isCardFloat(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

/// `type` with element type `element` (tensors of a float type only).
Type withElement(Type type, Type element) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa<FloatType>(tensor.getElementType()))
    return type;
  return RankedTensorType::get(tensor.getShape(), element);
}

/// The f32 constant data of `value` rounded to `type`'s element type.
ElementsAttr convertConstant(Value value, RankedTensorType type) {
  std::optional<F32ConstantView> view = getF32Constant(value);
  if (!view)
    return {};
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  auto round = [&](float x) {
    APFloat converted(x);
    bool lost = false;
    converted.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    return converted;
  };
  if (view->splat)
    return DenseElementsAttr::get(type, round((*view)[0]));
  if (type.getNumElements() <= kMaxInlineElements) {
    SmallVector<APFloat> values;
    values.reserve(type.getNumElements());
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
      values.push_back(round((*view)[i]));
    return DenseElementsAttr::get(type, values);
  }
  // Large weights become blobs, as imported ones are: inline they would be
  // uniqued in the context and printed into the package's IR in full.
  unsigned bytes = type.getElementTypeBitWidth() / 8;
  std::vector<char> data(size_t(type.getNumElements()) * bytes);
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    uint64_t bits = round((*view)[i]).bitcastToAPInt().getZExtValue();
    std::memcpy(&data[size_t(i) * bytes], &bits, bytes);
  }
  return DenseResourceElementsAttr::get(
      type, "weight_rounded",
      HeapAsmResourceBlob::allocateAndCopyWithAlign(data, alignof(uint64_t)));
}

/// True when a result of `op` is a result of its function: the model's
/// last ops keep their precision under a model-wide one (as accel-quantize
/// keeps the last product), since their outputs are what users compare and
/// narrow formats lose the small probabilities of a softmax head first.
bool producesModelOutput(Operation *op) {
  return llvm::any_of(op->getUsers(), [](Operation *user) {
    return isa<func::ReturnOp>(user);
  });
}

struct AccelApplyPrecisionPass
    : mlir::nnaccel::impl::AccelApplyPrecisionBase<AccelApplyPrecisionPass> {
  using Base::Base;

  void runOnOperation() override {
    const ::nnaccel::isa::TargetDesc *target =
        npu::lookupTarget(getOperation());
    if (!target)
      return signalPassFailure();
    Type modelPrecision;
    if (!defaultPrecision.empty()) {
      modelPrecision = llvm::StringSwitch<Type>(defaultPrecision)
                           .Case("f16", Float16Type::get(&getContext()))
                           .Case("bf16", BFloat16Type::get(&getContext()))
                           .Case("f32", Float32Type::get(&getContext()))
                           .Default(Type());
      if (!modelPrecision) {
        getOperation().emitError()
            << "accel-apply-precision: default precision must be f32, f16 "
               "or bf16, got '"
            << defaultPrecision << "'";
        return signalPassFailure();
      }
    }
    SmallVector<std::pair<Operation *, bool>> chosen; // op, hinted
    getOperation().walk([&](Operation *op) {
      if (isa<ConstantOp, CardPartitionOp, HostPartitionOp, func::FuncOp,
              func::ReturnOp>(op) ||
          op->getNumResults() == 0)
        return;
      auto hint = op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName());
      if (hint && hint.getPrecision() && isa<FloatType>(hint.getPrecision()))
        chosen.push_back({op, true});
      else if (modelPrecision && !(hint && hint.getPrecision()) &&
               isa<CardKernelOpInterface>(op) && !producesModelOutput(op))
        chosen.push_back({op, false});
    });
    for (auto [op, hinted] : chosen) {
      Type precision =
          hinted ? op->getAttrOfType<HintAttr>(AccelDialect::getHintAttrName())
                       .getPrecision()
                 : modelPrecision;
      apply(op, precision, hinted, *target);
    }
    if (!modelPrecision)
      return;
    // Ops in the model's precision back to back: each one's convert back
    // to f32 and the next one's convert in cancel.
    RewritePatternSet patterns(&getContext());
    ConvertOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  /// Moves `op` to `precision`. A hinted op that cannot be moved is a
  /// warning; an op the model-wide precision cannot move stays quietly.
  void apply(Operation *op, Type precision, bool hinted,
             const ::nnaccel::isa::TargetDesc &target) {
    // Only ops computing on float tensors change; the op's own type needs
    // nothing.
    bool floats = op->getNumResults() > 0;
    bool differs = false;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      floats &= tensor && isa<FloatType>(tensor.getElementType());
      differs |= tensor && tensor.getElementType() != precision;
    }
    if (!floats || !differs)
      return;
    if (!isCardFloat(precision)) {
      if (!hinted)
        return;
      op->emitWarning() << describeNode(op) << ": cannot compute in "
                        << precision
                        << ": the card computes in f32, f16 or bf16";
      dropHintPrecision(op);
      return;
    }
    OpBuilder builder(op);
    Location loc = op->getLoc();
    SmallVector<Operation *> created;
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      Type type = withElement(operand.getType(), precision);
      if (type == operand.getType()) {
        operands.push_back(operand);
        continue;
      }
      Operation *converted;
      if (ElementsAttr attr =
              operand.getDefiningOp<ConstantOp>()
                  ? convertConstant(operand, cast<RankedTensorType>(type))
                  : ElementsAttr())
        converted = builder.create<ConstantOp>(operand.getLoc(), attr);
      else
        converted = builder.create<ConvertOp>(getConvertLoc(op, "/convert_in"),
                                              type, operand);
      created.push_back(converted);
      operands.push_back(converted->getResult(0));
    }
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    for (Type type : op->getResultTypes())
      state.addTypes(withElement(type, precision));
    state.addAttributes(op->getAttrs());
    Operation *replacement = builder.create(state);
    created.push_back(replacement);
    // The card kernel must have the precision; otherwise the op stays.
    std::string reason;
    auto kernel = dyn_cast<CardKernelOpInterface>(replacement);
    if (!kernel || failed(kernel.checkCardKernel(target, reason))) {
      if (!kernel)
        reason = "it has no card kernel";
      if (hinted)
        op->emitWarning() << describeNode(op) << ": cannot compute in "
                          << precision << ": " << reason << "; it computes in "
                          << getElementTypeOrSelf(op->getResult(0).getType());
      for (Operation *undo : llvm::reverse(created))
        undo->erase();
      if (hinted)
        dropHintPrecision(op);
      return;
    }
    builder.setInsertionPointAfter(replacement);
    for (auto [result, value] :
         llvm::zip(op->getResults(), replacement->getResults())) {
      Value back = value;
      if (value.getType() != result.getType())
        back = builder.create<ConvertOp>(getConvertLoc(op, "/convert_out"),
                                         result.getType(), value);
      result.replaceAllUsesWith(back);
    }
    // Constants only the op read are now replaced by their rounded copies.
    eraseWithDeadConstants(op);
    ++numChanged;
  }
};
} // namespace
