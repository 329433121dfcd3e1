//===- CardKernels.cpp - the NPU backend's card kernels -------------------===//
//
// See CardKernels.h.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "RecurrentKernels.h"

#include "nnaccel/Conversion/NPUKernels.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::nnaccel::npu_lowering;

void mlir::nnaccel::registerNPUKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, accel::AccelDialect *) {
    attachLinearKernels(context);
    attachElementwiseKernels(context);
    attachDataMovementKernels(context);
    attachConvKernels(context);
    attachPoolKernels(context);
    attachEmbeddingKernels(context);
    attachRecurrentKernels(context);
    attachMatMulKernels(context);
    attachNormKernels(context);
    attachConvertKernels(context);
    attachSelectKernels(context);
  });
}

void KernelCores::barrier() const {
  for (ProgramEmitter *emitter : emitters)
    emitter->emit(::nnaccel::isa::build::Barrier().id(barrierId).mask(mask));
}

void StreamedTransfer::sendNext(ProgramEmitter &emitter,
                                ::nnaccel::isa::MemRef src) {
  assert(done < pieces && "every piece is sent already");
  emitter.emit(::nnaccel::isa::build::Send()
                   .src(src)
                   .bytes(pieceBytes)
                   .peer(peer)
                   .chan(channel));
  ++done;
}

bool StreamedTransfer::receiveThrough(
    ProgramEmitter &emitter, int64_t end,
    std::optional<::nnaccel::isa::MemRef> at) {
  end = std::min(end, pieces);
  if (done >= end)
    return false;
  ::nnaccel::isa::MemRef dst = at.value_or(::nnaccel::isa::MemRef{
      ::nnaccel::isa::Space::Dram, address + uint64_t(done) * pieceBytes});
  for (; done < end; ++done, dst.addr += pieceBytes)
    emitter.emit(::nnaccel::isa::build::Recv()
                     .dst(dst)
                     .bytes(pieceBytes)
                     .peer(peer)
                     .chan(channel));
  return true;
}

SmallVector<uint32_t, 4> mlir::nnaccel::npu_lowering::getKernelCores(
    Operation *op, const ::nnaccel::isa::TargetDesc &target) {
  auto placement = op->getAttrOfType<accel::PlacementAttr>(
      accel::AccelDialect::getPlacementAttrName());
  auto kernel = dyn_cast<accel::CardKernelOpInterface>(op);
  unsigned most = kernel ? std::max(kernel.getMaxKernelCores(target), 1u) : 1;
  SmallVector<uint32_t, 4> cores;
  if (placement)
    for (int64_t core : placement.getCores()) {
      if (core < 0 || cores.size() == most)
        break;
      cores.push_back(uint32_t(core));
    }
  if (cores.empty())
    cores.push_back(accel::getPlacedCore(op));
  return cores;
}

std::optional<ElementFormat>
mlir::nnaccel::npu_lowering::getElementFormat(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isF32())
    return kF32Format;
  if (type.isF16())
    return kF16Format;
  if (type.isBF16())
    return kBF16Format;
  return std::nullopt;
}

quant::UniformQuantizedType
mlir::nnaccel::npu_lowering::getQuantization8(Type type) {
  auto quantized =
      dyn_cast<quant::UniformQuantizedType>(getElementTypeOrSelf(type));
  if (!quantized || quantized.getStorageTypeIntegralWidth() != 8 ||
      quantized.getStorageTypeMin() !=
          quant::QuantizedType::getDefaultMinimumForInteger(
              quantized.isSigned(), 8) ||
      quantized.getStorageTypeMax() !=
          quant::QuantizedType::getDefaultMaximumForInteger(
              quantized.isSigned(), 8))
    return nullptr;
  return quantized;
}

bool mlir::nnaccel::npu_lowering::allCardFloat(TypeRange types,
                                               llvm::StringRef what,
                                               std::string &reason) {
  if (llvm::all_of(
          types, [](Type type) { return getElementFormat(type).has_value(); }))
    return true;
  reason = (what + " runs on the card in f32, f16 or bf16 only").str();
  return false;
}

std::optional<std::vector<float>>
mlir::nnaccel::npu_lowering::getKernelConstantValues(
    Operation *op, const ::nnaccel::isa::TargetDesc &target) {
  if (auto fc = dyn_cast<accel::FullyConnectedOp>(op))
    return getFullyConnectedKernelConstants(fc);
  if (auto conv = dyn_cast<accel::ConvOp>(op))
    return getConvKernelConstants(conv, target);
  return std::nullopt;
}

std::optional<SmallVector<uint64_t, 4>>
mlir::nnaccel::npu_lowering::getPinnableWeightBytes(
    Operation *op, const ::nnaccel::isa::TargetDesc &target) {
  // The recurrent kernels pin on any number of cores.
  if (isa<accel::LSTMOp, accel::GRUOp>(op))
    return getRnnPinBytes(op, target);
  // The others multiply from pinned tiles on one core only.
  if (getKernelCores(op, target).size() != 1)
    return std::nullopt;
  std::optional<uint64_t> bytes;
  if (auto fc = dyn_cast<accel::FullyConnectedOp>(op))
    bytes = getFullyConnectedPinBytes(fc, target);
  else if (auto matmul = dyn_cast<accel::MatMulOp>(op))
    bytes = getMatMulPinBytes(matmul, target);
  else if (auto conv = dyn_cast<accel::ConvOp>(op))
    bytes = getConvPinBytes(conv, target);
  if (!bytes)
    return std::nullopt;
  return SmallVector<uint64_t, 4>{*bytes};
}
