//===- QuantizedConvSupport.cpp - what the int8 conv kernels share --------===//
//
// The per-channel scales, the transposed input load and the epilogue of a
// quantized accel.conv (ConvKernelSupport.h, ConvQuantization): the
// pointwise, depthwise and implicit-GEMM kernels produce blocks of exact
// i32 sums whose columns are output channels, and all of them turn them into
// the result the same way, which is also what the host kernel computes
// (HostQuantizedLinalg.cpp).
//
//===----------------------------------------------------------------------===//

#include "ConvKernelSupport.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::npu_lowering;
using namespace mlir::nnaccel::npu_lowering::conv;

void conv::loadPixelsTransposed(ProgramEmitter &emitter,
                                ::nnaccel::isa::MemRef dst, uint64_t src,
                                ElementFormat format, int64_t channels,
                                int64_t pixels, int64_t planeStride,
                                int64_t pixelPitch) {
  DmaLoad load;
  load.dst = dst;
  load.src = {Space::Dram, src};
  load.format = format;
  load.x = 1;
  load.y = channels;
  load.z = pixels;
  load.sy = planeStride;
  load.sz = 1;
  load.dpitch = 1;
  load.pb = std::max<int64_t>(pixelPitch - channels, 0);
  emitLoad(emitter, load);
}

Operand2D conv::emitConvScaleFills(ProgramEmitter &emitter,
                                   const ConvQuantization &quant, Space space,
                                   uint64_t base) {
  const Operand2D scales{space, base, 0, kF32Format};
  Operand2D outputScale = scales.at(0, int64_t(quant.scales.size()));
  if (quant.scalesAddress) {
    DmaLoad load;
    load.dst = scales.ref();
    load.src = {Space::Dram, *quant.scalesAddress};
    load.format = kF32Format;
    load.x = int64_t(quant.scaleValues().size());
    emitLoad(emitter, load);
    return outputScale;
  }
  emitFillValues(emitter, scales, quant.scales);
  if (quant.quantizedOutput() && !quant.rescale)
    emitFill(emitter, outputScale, 1, 1, quant.outputInverse);
  return outputScale;
}

void conv::emitConvEpilogue(ProgramEmitter &emitter,
                            const ConvQuantization &quant,
                            const ActivationSpec &activation,
                            const Operand2D &sum,
                            const std::optional<Operand2D> &bias,
                            const Operand2D &scales,
                            const Operand2D &outputScale, const Operand2D &out,
                            int64_t rows, int64_t cols) {
  const bool perChannel = quant.perChannel();
  const bool integerBias = bias && !quant.realBias();
  // sum (+ i32 bias) as the source of the next step: forwarded through the
  // chain when there is a bias to add.
  auto withIntegerBias = [&]() -> Operand2D {
    if (!integerBias)
      return sum;
    emitBinary(emitter, Opcode::VAdd, chainOperand(cols, kI32Format), sum,
               *bias, Bcast::Row, rows, cols);
    return chainOperand(cols, kI32Format);
  };
  if (quant.rescale) {
    Operand2D source = withIntegerBias();
    emitQuantConvert(emitter, Opcode::VRqnt, out, source, scales, perChannel,
                     quant.outputZeroPoint, rows, cols);
    return;
  }
  // Dequantized to f32 (the result itself, or the sums in place), the real
  // bias added on the way.
  const Operand2D real =
      quant.quantizedOutput() ? Operand2D{sum.space, sum.addr, sum.pitch} : out;
  Operand2D source = withIntegerBias();
  if (bias && !integerBias) {
    emitQuantConvert(emitter, Opcode::VDqnt, chainOperand(cols), source, scales,
                     perChannel, /*zeroPoint=*/0, rows, cols);
    emitBinary(emitter, Opcode::VAdd, real, chainOperand(cols), *bias,
               Bcast::Row, rows, cols);
  } else {
    emitQuantConvert(emitter, Opcode::VDqnt, real, source, scales, perChannel,
                     /*zeroPoint=*/0, rows, cols);
  }
  emitActivation(emitter, activation, real, rows, cols);
  if (quant.quantizedOutput())
    emitQuantConvert(emitter, Opcode::VRqnt, out, real, outputScale,
                     /*perColumn=*/false, quant.outputZeroPoint, rows, cols);
}
