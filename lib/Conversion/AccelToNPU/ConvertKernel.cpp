//===- ConvertKernel.cpp - accel.convert / float casts on the vector units ===//
//
// accel.convert changes the float format of a tensor (f32, f16, bf16 on the
// card); accel.cast between two of those formats (what ONNX Cast imports
// to) is the same conversion and shares the kernel. The tensor is streamed
// through the VRF in flat chunks: dma.ld copies a chunk's bits, `v.cvt` widens
// them exactly to f32 and rounds to the result format (round to nearest even,
// overflow to infinity, NaN stays NaN: docs/isa.md §3.1), and dma.st writes the
// converted chunk. Two slots alternate, so the load of one chunk and the store
// of the previous one overlap the conversion; the ProgramEmitter derives the
// tokens from the instructions.
//
//   for each chunk of at most L elements (slot = chunk % 2):
//     dma.ld  in  -> slot.in     (input format)
//     v.cvt   slot.out <- slot.in
//     dma.st  out <- slot.out    (result format)
//
// accel.quantize and accel.dequantize (per tensor, i8/u8) stream the same
// way with v.rqnt / v.dqnt in place of v.cvt; their scale (1 / scale for
// quantize, so the unit multiplies) is filled into the VRF once. The
// host's quantize divides by the scale, so a value within an ulp of a
// rounding tie may land on the other side of it.
//
// The host's convert and float-to-float cast are the same RNE conversion
// (f16 <-> bf16 widens exactly through f32 and rounds once on both sides),
// so the card's result is bit-identical. accel.convert only takes float
// types (the host rejects others). Casts involving integers stay on the
// host: ONNX Cast truncates floats toward zero where v.cvt rounds half to
// even, so they would not match.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "KernelOperands.h"

#include "Accel/AccelOps.h"

#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// VRF placement of the two slots, the scale and the chunk size.
struct ConvertLayout {
  uint64_t in[2], out[2];
  uint64_t scale;
  int64_t chunk; // elements per chunk (L)
};

std::optional<ConvertLayout> computeLayout(const TargetDesc &target,
                                           ElementFormat from, ElementFormat to,
                                           int64_t total) {
  const uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  const int64_t vrfAlign = int64_t(target.memory(Space::Vrf).align);
  const int64_t dramAlign = int64_t(target.memory(Space::Dram).align);
  // Every chunk after the first must start DRAM-aligned on both sides.
  const int64_t multiple =
      std::lcm(std::max<int64_t>(dramAlign / from.elementBytes(), 1),
               std::max<int64_t>(dramAlign / to.elementBytes(), 1));
  const int64_t slotBytes =
      int64_t(vrfBytes / 2) / vrfAlign * vrfAlign - 3 * vrfAlign;
  // A chunk is one row of the v.cvt, whose row pitches are 16-bit byte
  // counts.
  int64_t chunk = std::min<int64_t>(
      {total, kMaxCount, slotBytes / (from.elementBytes() + to.elementBytes()),
       kMaxPitch / std::max(from.elementBytes(), to.elementBytes())});
  if (chunk < total)
    chunk = chunk / multiple * multiple;
  if (chunk < 1)
    return std::nullopt;
  ConvertLayout layout;
  layout.chunk = chunk;
  uint64_t inBytes = alignUp(from.rowBytes(chunk), vrfAlign);
  uint64_t slotStride = alignUp(inBytes + to.rowBytes(chunk), vrfAlign);
  for (int i = 0; i < 2; ++i) {
    layout.in[i] = i * slotStride;
    layout.out[i] = layout.in[i] + inBytes;
  }
  layout.scale = 2 * slotStride;
  return layout;
}

struct ConvertTypes {
  ElementFormat from, to;
  int64_t total;
  /// Quantize / dequantize: the instruction, the scale it multiplies by and
  /// the zero point.
  std::optional<::nnaccel::isa::Opcode> quantOpcode;
  float scale = 1;
  int64_t zeroPoint = 0;
};

std::optional<ConvertTypes> getTypes(Operation *op, std::string &reason) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  std::string what = op->getName().getStringRef().str();
  if (!input.hasStaticShape() || input.getNumElements() == 0) {
    reason = what + " of an empty or dynamic tensor is not lowered to the card";
    return std::nullopt;
  }
  ConvertTypes types;
  types.total = input.getNumElements();
  if (isa<QuantizeOp, DequantizeOp>(op)) {
    bool quantize = isa<QuantizeOp>(op);
    Type real = quantize ? input : result;
    if (quantize && !cast<QuantizeOp>(op).getReciprocalScale()) {
      reason = "accel.quantize divides by its scale exactly (ONNX "
               "QuantizeLinear); the card multiplies by the reciprocal "
               "(reciprocal_scale)";
      return std::nullopt;
    }
    quant::UniformQuantizedType quantized =
        getQuantization8(quantize ? result : input);
    if (!quantized || !getElementFormat(real)) {
      reason = what + " runs on the card only per tensor, between f32, f16 "
                      "or bf16 and the full i8 or u8 range";
      return std::nullopt;
    }
    ElementFormat integer(quantized.isSigned() ? ::nnaccel::DType::I8
                                               : ::nnaccel::DType::U8);
    types.from = quantize ? *getElementFormat(real) : integer;
    types.to = quantize ? integer : *getElementFormat(real);
    types.quantOpcode = quantize ? ::nnaccel::isa::Opcode::VRqnt
                                 : ::nnaccel::isa::Opcode::VDqnt;
    types.scale = quantize ? float(1.0 / quantized.getScale())
                           : float(quantized.getScale());
    types.zeroPoint = quantized.getZeroPoint();
    return types;
  }
  if (!getElementFormat(input) || !getElementFormat(result)) {
    reason = what + " runs on the card only between f32, f16 and bf16";
    return std::nullopt;
  }
  types.from = *getElementFormat(input);
  types.to = *getElementFormat(result);
  return types;
}

LogicalResult checkConvert(Operation *op, const TargetDesc &target,
                           std::string &reason) {
  std::optional<ConvertTypes> types = getTypes(op, reason);
  if (!types)
    return failure();
  if (!computeLayout(target, types->from, types->to, types->total)) {
    reason = "the vector register file cannot hold a DRAM-aligned convert "
             "chunk";
    return failure();
  }
  return success();
}

LogicalResult emitConvert(Operation *op, KernelContext &context) {
  std::string reason;
  std::optional<ConvertTypes> types = getTypes(op, reason);
  if (!types)
    return op->emitOpError() << "cannot run on the card: " << reason;
  const ElementFormat from = types->from, to = types->to;
  const int64_t total = types->total;
  const ConvertLayout layout = *computeLayout(context.target, from, to, total);
  const uint64_t src = context.addressOf(op->getOperand(0));
  const uint64_t dst = context.addressOf(op->getResult(0));
  ProgramEmitter &emitter = context.emitter;
  const Operand2D scale = denseOperand(Space::Vrf, layout.scale, 1);
  if (types->quantOpcode)
    emitFill(emitter, scale, 1, 1, types->scale);

  for (int64_t first = 0, slot = 0; first < total;
       first += layout.chunk, slot ^= 1) {
    const int64_t n = std::min(layout.chunk, total - first);
    const Operand2D in = denseOperand(Space::Vrf, layout.in[slot], n, from);
    const Operand2D out = denseOperand(Space::Vrf, layout.out[slot], n, to);

    DmaLoad load;
    load.dst = in.ref();
    load.src = {Space::Dram, src + uint64_t(from.rowBytes(first))};
    load.format = from;
    load.x = n;
    emitLoad(emitter, load);

    if (types->quantOpcode)
      emitQuantConvert(emitter, *types->quantOpcode, out, in, scale,
                       /*perColumn=*/false, types->zeroPoint, 1, n);
    else // same format (a convert the canonicaliser left alone): a bit copy
      emitCopy(emitter, out, in, 1, n);

    DmaStore store;
    store.dst = {Space::Dram, dst + uint64_t(to.rowBytes(first))};
    store.src = out.ref();
    store.format = to;
    store.x = n;
    emitStore(emitter, store);
  }
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::attachConvertKernels(MLIRContext *context) {
  attachCardKernel<CardKernelModel<checkConvert, emitConvert>, ConvertOp,
                   CastOp, QuantizeOp, DequantizeOp>(context);
}
