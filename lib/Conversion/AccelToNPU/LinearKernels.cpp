//===- LinearKernels.cpp - fully_connected and matmul kernel entries ------===//
//
// Adapts accel.fully_connected to the MLIR-free matrix-unit kernel in
// FullyConnectedKernel.cpp: checks types (f32, f16, bf16, or a quantized
// i8/u8 x i8 or i4 product), transposes and scalars, and maps operands to
// DRAM addresses.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "CardMemoryPlan.h"
#include "FusedActivation.h"
#include "Kernels.h"

#include "Accel/AccelOps.h"
#include "Accel/ConstantUtils.h"
#include "Accel/ElementTypes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;

namespace {
/// The formats and scales of a quantized fully_connected (the verifier
/// checked the type combination), or failure with the reason.
LogicalResult makeQuantizedSpec(FullyConnectedOp op, FullyConnectedSpec &spec,
                                std::string &reason) {
  auto input = cast<quant::UniformQuantizedType>(
      getElementTypeOrSelf(op.getInput().getType()));
  auto weight = cast<quant::QuantizedType>(
      getElementTypeOrSelf(op.getWeight().getType()));
  std::optional<::nnaccel::DType> inType = getElementDType(input),
                                  weightType = getElementDType(weight);
  if (!inType || !weightType) {
    reason = "fully_connected's quantized storage types have no card format";
    return failure();
  }
  spec.inFormat = ElementFormat(*inType);
  // Not emplace(): clang decides optional<Quantized>'s default
  // constructibility inside FullyConnectedSpec, before Quantized's member
  // initialisers are parsed, and rejects the call.
  spec.quantized = FullyConnectedSpec::Quantized();
  FullyConnectedSpec::Quantized &quantized = *spec.quantized;
  quantized.weightFormat = ElementFormat(*weightType);
  quantized.inputZeroPoint = int32_t(input.getZeroPoint());
  // The accumulator's scale: input scale x weight scale (per column).
  auto addScale = [&](double weightScale) {
    quantized.scales.push_back(float(input.getScale() * weightScale));
  };
  if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(weight))
    addScale(perTensor.getScale());
  else
    llvm::for_each(cast<quant::UniformQuantizedPerAxisType>(weight).getScales(),
                   addScale);
  Type result = getElementTypeOrSelf(op.getType());
  if (auto requantized = dyn_cast<quant::UniformQuantizedType>(result)) {
    std::optional<::nnaccel::DType> outType = getElementDType(requantized);
    if (!outType || (*outType != ::nnaccel::DType::I8 &&
                     *outType != ::nnaccel::DType::U8)) {
      reason = "a requantized fully_connected result must be i8 or u8 on the "
               "card";
      return failure();
    }
    spec.outFormat = ElementFormat(*outType);
    quantized.outputScale = float(requantized.getScale());
    quantized.outputZeroPoint = int32_t(requantized.getZeroPoint());
  } else if (std::optional<ElementFormat> out = getElementFormat(result)) {
    spec.outFormat = *out;
  } else {
    reason = "fully_connected's quantized result type has no card format";
    return failure();
  }
  if (Value bias = op.getBias()) {
    Type biasElement = getElementTypeOrSelf(bias.getType());
    spec.biasFormat = isa<quant::QuantizedType>(biasElement)
                          ? kI32Format
                          : getElementFormat(biasElement).value_or(kF32Format);
  }
  return success();
}

/// The kernel spec of `op` without addresses, or failure with the reason.
FailureOr<FullyConnectedSpec> makeSpec(FullyConnectedOp op,
                                       std::string &reason) {
  FullyConnectedSpec spec;
  bool quantized =
      isa<quant::QuantizedType>(getElementTypeOrSelf(op.getInput().getType()));
  if (quantized) {
    if (failed(makeQuantizedSpec(op, spec, reason)))
      return failure();
  } else if (isa<BlockFloatType>(
                 getElementTypeOrSelf(op.getWeight().getType()))) {
    // A block-float weight: float input, bias and result.
    SmallVector<Type> floats{op.getInput().getType(), op.getType()};
    if (Value bias = op.getBias())
      floats.push_back(bias.getType());
    if (!allCardFloat(floats, "fully_connected", reason))
      return failure();
    spec.inFormat = *getElementFormat(op.getInput().getType());
    spec.outFormat = *getElementFormat(op.getType());
    spec.blockWeightFormat =
        ElementFormat(*getElementDType(op.getWeight().getType()));
  } else {
    if (!allCardFloat(op->getOperandTypes(), "fully_connected", reason) ||
        !allCardFloat(op->getResultTypes(), "fully_connected", reason))
      return failure();
    spec.inFormat = *getElementFormat(op.getInput().getType());
    spec.outFormat = *getElementFormat(op.getType());
    if (!(*getElementFormat(op.getWeight().getType()) == spec.inFormat)) {
      reason = "fully_connected with different input and weight types is not "
               "lowered to the card (the matrix unit takes one input type)";
      return failure();
    }
  }
  if (op.getTransposeInput() || !op.getAlpha().isExactlyValue(1.0) ||
      (op.getBias() && !op.getBeta().isExactlyValue(1.0))) {
    reason = "fully_connected with transpose_input or alpha/beta != 1 is not "
             "lowered to the card";
    return failure();
  }
  spec.m = op.getType().getDimSize(0);
  spec.n = op.getType().getDimSize(1);
  spec.k = cast<RankedTensorType>(op.getWeight().getType())
               .getDimSize(op.getTransposeWeight() ? 1 : 0);
  if (Value bias = op.getBias()) {
    if (cast<RankedTensorType>(bias.getType()).getNumElements() != spec.n) {
      reason = "only a per-column bias is lowered to the card";
      return failure();
    }
    if (!quantized)
      spec.biasFormat = *getElementFormat(bias.getType());
    spec.bias = 0;
  }
  // accel-plan-card-memory transposes K x N weights at compile time.
  if (!op.getTransposeWeight() &&
      !canTransposeWeightAtCompileTime(op.getWeight())) {
    reason = "a K x N weight must be constant to be transposed for the card";
    return failure();
  }
  spec.activation = getFusedActivation(op);
  return spec;
}

LogicalResult checkFullyConnected(Operation *operation,
                                  const ::nnaccel::isa::TargetDesc &target,
                                  std::string &reason) {
  FailureOr<FullyConnectedSpec> spec =
      makeSpec(cast<FullyConnectedOp>(operation), reason);
  return success(succeeded(spec) &&
                 canEmitFullyConnected(target, *spec, reason));
}

LogicalResult emitFullyConnectedOp(Operation *operation,
                                   KernelContext &context) {
  auto op = cast<FullyConnectedOp>(operation);
  if (!op.getTransposeWeight())
    return op.emitOpError("weight must be pre-transposed for the NPU");
  std::string reason;
  FailureOr<FullyConnectedSpec> spec = makeSpec(op, reason);
  if (failed(spec))
    return op.emitOpError() << "cannot run on the card: " << reason;
  spec->input = context.addressOf(op.getInput());
  spec->weight = context.addressOf(op.getWeight());
  spec->output = context.addressOf(op.getResult());
  if (Value bias = op.getBias())
    spec->bias = context.addressOf(bias);
  spec->outputPitch = int64_t(context.rowPitchOf(op.getResult()));
  if (spec->outputPitch &&
      !canEmitFullyConnected(context.target, *spec, reason))
    return op.emitOpError() << "cannot write its result rows "
                            << spec->outputPitch << " bytes apart: " << reason;
  spec->pinnedWeight = context.pinnedWeight;
  if (spec->quantized)
    spec->scalesAddress = context.kernelConstants;
  emitFullyConnected(context.emitter, context.target, *spec, context.setup());
  return success();
}

/// The result's rows are its innermost dimension, which the tile loop
/// stores with any DRAM-aligned pitch.
bool fullyConnectedResultPitch(Operation * /*op*/, int64_t axis) {
  return axis == 1;
}
} // namespace

std::optional<std::vector<float>>
mlir::nnaccel::npu_lowering::getFullyConnectedKernelConstants(
    FullyConnectedOp op) {
  std::string reason;
  FailureOr<FullyConnectedSpec> spec = makeSpec(op, reason);
  if (failed(spec) || !spec->quantized || spec->quantized->scales.size() < 2)
    return std::nullopt;
  return spec->scaleValues();
}

std::optional<uint64_t> mlir::nnaccel::npu_lowering::getFullyConnectedPinBytes(
    FullyConnectedOp op, const ::nnaccel::isa::TargetDesc &target) {
  std::string reason;
  FailureOr<FullyConnectedSpec> spec = makeSpec(op, reason);
  if (failed(spec) || !canEmitFullyConnected(target, *spec, reason))
    return std::nullopt;
  return getPinnedWeightBytes(target, *spec);
}

void mlir::nnaccel::npu_lowering::attachLinearKernels(MLIRContext *context) {
  attachCardKernel<
      CardKernelModel<checkFullyConnected, emitFullyConnectedOp,
                      /*SharedScratch=*/nullptr, /*MaxCores=*/nullptr,
                      /*PreferredCores=*/nullptr, fullyConnectedResultPitch>,
      FullyConnectedOp>(context);
}
