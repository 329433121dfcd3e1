//===- QuantizedAddKernel.cpp - accel.add of int8 tensors on the MFUs -----===//
//
// The residual adds between int8 convolutions (accel-quantize): operands
// and result of one shape, each quantized per tensor to i8 or u8. The
// real values are added and requantized, the same steps as the host's
// kernel (HostQuantizedElementwise.cpp):
//
//   ya = v.dqnt(a), yb = v.dqnt(b)       f32(x - zero point) * scale
//   y  = yb + ya                         f32 (addition commutes exactly)
//   q  = v.rqnt(y, 1 / y_scale, y_zp)    the result's storage type
//
// The tensors stream through the VRF in flat chunks, two slots alternating
// so that loads and stores overlap the vector work: per chunk two loads,
// v.dqnt of a into an f32 buffer in ACC, v.dqnt of b chained into the add,
// v.rqnt and one store. A quarter of an f32 add's bytes move.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "KernelOperands.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// The operands' and the result's formats and parameters.
struct QuantizedAddSpec {
  ElementFormat a, b, out;
  float aScale = 1, bScale = 1, outInverse = 1;
  int64_t aZero = 0, bZero = 0, outZero = 0;
  int64_t total = 0;
};

struct QuantizedAddLayout {
  int64_t chunk = 0;                                      // elements
  uint64_t a[2] = {0, 0}, b[2] = {0, 0}, out[2] = {0, 0}; // vrf
  uint64_t scales = 0;                                    // vrf: sa, sb, 1 / sc
  uint64_t sum[2] = {0, 0};                               // acc: f32
};

std::optional<QuantizedAddSpec> makeSpec(Operation *op, std::string &reason) {
  auto lhs = getQuantization8(op->getOperand(0).getType());
  auto rhs = getQuantization8(op->getOperand(1).getType());
  auto result = getQuantization8(op->getResult(0).getType());
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!lhs || !rhs || !result || !type.hasStaticShape() ||
      cast<RankedTensorType>(op->getOperand(0).getType()).getShape() !=
          type.getShape() ||
      cast<RankedTensorType>(op->getOperand(1).getType()).getShape() !=
          type.getShape()) {
    reason = "a quantized add runs on the card with operands and result of "
             "one static shape, each quantized per tensor to i8 or u8";
    return std::nullopt;
  }
  auto format = [](quant::UniformQuantizedType quantized) {
    return ElementFormat(quantized.isSigned() ? ::nnaccel::DType::I8
                                              : ::nnaccel::DType::U8);
  };
  QuantizedAddSpec spec;
  spec.a = format(lhs);
  spec.b = format(rhs);
  spec.out = format(result);
  spec.aScale = float(lhs.getScale());
  spec.bScale = float(rhs.getScale());
  spec.outInverse = 1.0f / float(result.getScale());
  spec.aZero = lhs.getZeroPoint();
  spec.bZero = rhs.getZeroPoint();
  spec.outZero = result.getZeroPoint();
  spec.total = type.getNumElements();
  return spec;
}

std::optional<QuantizedAddLayout> computeLayout(const TargetDesc &target,
                                                const QuantizedAddSpec &spec) {
  const uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  const uint64_t accBytes = target.memory(Space::Acc).bytes;
  const int64_t dramAlign = int64_t(target.memory(Space::Dram).align);
  // Chunks after the first start at aligned DRAM addresses (1-byte
  // elements); one vector row each (16-bit element counts and pitches).
  int64_t chunk = std::min<int64_t>({spec.total, kMaxCount / kF32,
                                     int64_t((vrfBytes - 64) / 6) - 64,
                                     int64_t(accBytes / 2 / kF32)});
  if (chunk < spec.total)
    chunk = chunk / dramAlign * dramAlign;
  if (chunk < 1)
    return std::nullopt;
  QuantizedAddLayout l;
  l.chunk = chunk;
  const uint64_t slot = alignUp(uint64_t(chunk), 64);
  uint64_t vrf = 0;
  for (int i = 0; i < 2; ++i) {
    l.a[i] = vrf;
    l.b[i] = vrf + slot;
    l.out[i] = vrf + 2 * slot;
    vrf += 3 * slot;
  }
  l.scales = vrf;
  for (int i = 0; i < 2; ++i)
    l.sum[i] = uint64_t(i) * alignUp(uint64_t(chunk * kF32), 64);
  return l;
}

} // namespace

bool mlir::nnaccel::npu_lowering::isQuantizedAdd(Operation *op) {
  return isa<AddOp>(op) && isa<quant::QuantizedType>(getElementTypeOrSelf(
                               op->getResult(0).getType()));
}

LogicalResult mlir::nnaccel::npu_lowering::checkQuantizedAdd(
    Operation *op, const TargetDesc &target, std::string &reason) {
  std::optional<QuantizedAddSpec> spec = makeSpec(op, reason);
  if (!spec)
    return failure();
  if (!computeLayout(target, *spec)) {
    reason = "the vector register file cannot hold a DRAM-aligned chunk of "
             "a quantized add";
    return failure();
  }
  return success();
}

LogicalResult
mlir::nnaccel::npu_lowering::emitQuantizedAdd(Operation *op,
                                              KernelContext &context) {
  std::string reason;
  std::optional<QuantizedAddSpec> spec = makeSpec(op, reason);
  if (!spec)
    return op->emitOpError() << "cannot run on the card: " << reason;
  const QuantizedAddLayout l = *computeLayout(context.target, *spec);
  ProgramEmitter &emitter = context.emitter;
  const uint64_t a = context.addressOf(op->getOperand(0));
  const uint64_t b = context.addressOf(op->getOperand(1));
  const uint64_t out = context.addressOf(op->getResult(0));
  auto load = [&](uint64_t dst, uint64_t src, ElementFormat format, int64_t n) {
    DmaLoad dma;
    dma.dst = {Space::Vrf, dst};
    dma.src = {Space::Dram, src};
    dma.format = format;
    dma.x = n;
    emitLoad(emitter, dma);
  };
  const Operand2D scales{Space::Vrf, l.scales, 0, kF32Format};
  bool first = true;
  for (int64_t begin = 0, slot = 0; begin < spec->total;
       begin += l.chunk, slot ^= 1) {
    const int64_t n = std::min(l.chunk, spec->total - begin);
    load(l.a[slot], a + uint64_t(begin), spec->a, n);
    load(l.b[slot], b + uint64_t(begin), spec->b, n);
    if (first) {
      // Behind the first loads, which they then overlap.
      emitFill(emitter, scales, 1, 1, spec->aScale);
      emitFill(emitter, scales.at(0, 1), 1, 1, spec->bScale);
      emitFill(emitter, scales.at(0, 2), 1, 1, spec->outInverse);
      first = false;
    }
    const Operand2D sum = denseOperand(Space::Acc, l.sum[slot], n);
    emitQuantConvert(emitter, Opcode::VDqnt, sum,
                     denseOperand(Space::Vrf, l.a[slot], n, spec->a), scales,
                     /*perColumn=*/false, spec->aZero, 1, n);
    emitQuantConvert(emitter, Opcode::VDqnt, chainOperand(n),
                     denseOperand(Space::Vrf, l.b[slot], n, spec->b),
                     scales.at(0, 1), /*perColumn=*/false, spec->bZero, 1, n);
    emitBinary(emitter, Opcode::VAdd, sum, chainOperand(n), sum,
               ::nnaccel::isa::Bcast::None, 1, n);
    const Operand2D result =
        denseOperand(Space::Vrf, l.out[slot], n, spec->out);
    emitQuantConvert(emitter, Opcode::VRqnt, result, sum, scales.at(0, 2),
                     /*perColumn=*/false, spec->outZero, 1, n);
    DmaStore store;
    store.dst = {Space::Dram, out + uint64_t(begin)};
    store.src = result.ref();
    store.format = spec->out;
    store.x = n;
    emitStore(emitter, store);
  }
  return success();
}
