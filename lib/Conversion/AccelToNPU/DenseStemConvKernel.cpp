//===- DenseStemConvKernel.cpp - dense 3x3 stem convolutions on the MFUs
//---===//
//
// See ConvKernels.cpp for how accel.conv picks this kernel and
// ConvKernelSupport.h for its spec.
//
//===----------------------------------------------------------------------===//

#include "ConvKernelSupport.h"

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::npu_lowering;
using namespace mlir::nnaccel::npu_lowering::conv;

namespace mlir::nnaccel::npu_lowering::conv {
namespace {

/// At most this many (filter, channel, tap) products per image: each costs a
/// chained multiply-add of a whole output plane on the MFUs.
constexpr int64_t kMaxDenseProducts = 4096;

struct DenseLayout {
  uint64_t in = 0; // acc: all padded input planes of one image
  uint64_t out[2]; // acc: one output plane, double-buffered
  uint64_t weightBase = 0, biasBase = 0; // vrf
};

std::optional<DenseLayout> denseLayout(const TargetDesc &target,
                                       const DenseSpec &spec) {
  int64_t vrfBytes = int64_t(target.vrfRegisters) * target.vrfRegisterBytes;
  int64_t accBytes = static_cast<int64_t>(target.memory(Space::Acc).bytes);
  DenseLayout layout;
  layout.biasBase = alignUp(spec.f * spec.c * 9 * kF32, 64);
  int64_t vrfTop = layout.biasBase + alignUp(spec.f * kF32, 64);
  layout.in = 0;
  layout.out[0] = alignUp(spec.inBytes(), 64);
  layout.out[1] = layout.out[0] + alignUp(spec.outBytes(), 64);
  int64_t accTop = layout.out[1] + alignUp(spec.outBytes(), 64);
  if (vrfTop > vrfBytes || accTop > accBytes)
    return std::nullopt;
  return layout;
}

} // namespace

bool canEmitDense(const TargetDesc &target, const DenseSpec &spec,
                  std::string &reason) {
  int64_t dramAlign = static_cast<int64_t>(target.memory(Space::Dram).align);
  std::string shape = "dense 3x3 convolutions";
  if (spec.f * spec.c * 9 > kMaxDenseProducts) {
    reason = shape + " are lowered for few channels only (" +
             std::to_string(spec.c) + " channels x " + std::to_string(spec.f) +
             " filters need more than " + std::to_string(kMaxDenseProducts) +
             " plane products; no im2col: its gathers would start at "
             "unaligned DRAM addresses)";
    return false;
  }
  if (spec.stride == 2 && (spec.h % 2 != 0 || spec.w % 2 != 0)) {
    reason = "stride-2 " + shape + " are lowered for even plane sizes only";
    return false;
  }
  if (spec.h > kMaxDmaYZ || spec.ho() > kMaxDmaYZ || spec.c > kMaxDmaYZ ||
      2 * (spec.w + 2) * kF32 > kMaxPitch) {
    reason = "the planes of this convolution exceed the DMA counts or the "
             "operand pitch";
    return false;
  }
  if ((spec.ho() * spec.wo() * kF32) % dramAlign != 0 ||
      (spec.batch > 1 && (spec.c * spec.h * spec.w * kF32) % dramAlign != 0)) {
    reason = "the output planes of this convolution would start at "
             "unaligned DRAM addresses";
    return false;
  }
  if (!denseLayout(target, spec)) {
    reason = "the padded input planes of this convolution do not fit the "
             "accumulator memory (row tiling is not implemented)";
    return false;
  }
  return true;
}

void emitDense(ProgramEmitter &emitter, const TargetDesc &target,
               const DenseSpec &spec) {
  DenseLayout layout = *denseLayout(target, spec);
  const int64_t c = spec.c, f = spec.f, h = spec.h, w = spec.w, ho = spec.ho(),
                wo = spec.wo(), wp = w + 2;
  const int64_t planeIn = (h + 2) * wp * kF32;
  emitLoad(emitter, {Space::Vrf, layout.weightBase, spec.weight, f * c * 9},
           region(Space::Dram, spec.weight, f * c * 9 * kF32));
  if (spec.bias)
    emitLoad(emitter, {Space::Vrf, layout.biasBase, *spec.bias, f},
             region(Space::Dram, *spec.bias, f * kF32));
  int64_t plane = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * h * w * kF32);
    uint64_t y = spec.output + uint64_t(image * f * ho * wo * kF32);
    const MemRegion yDram = region(Space::Dram, y, f * ho * wo * kF32);
    emitLoad(emitter,
             {Space::Acc, layout.in, x, /*x=*/w, /*y=*/h, /*z=*/c,
              /*sy=*/w * kF32, /*sz=*/h * w * kF32, /*dpitch=*/wp * kF32,
              /*pt=*/1, /*pb=*/1, /*pl=*/1, /*pr=*/1},
             region(Space::Dram, x, c * h * w * kF32));
    for (int64_t filter = 0; filter < f; ++filter, ++plane) {
      Block out{Space::Acc, layout.out[plane % 2], w * kF32};
      for (int64_t channel = 0; channel < c; ++channel)
        for (int t = 0; t < 9; ++t) {
          int64_t di = t / 3, dj = t % 3;
          Block window{Space::Acc,
                       layout.in +
                           uint64_t(channel * planeIn + (di * wp + dj) * kF32),
                       spec.stride * wp * kF32};
          Block weight{Space::Vrf,
                       layout.weightBase +
                           uint64_t(((filter * c + channel) * 9 + t) * kF32),
                       kF32};
          if (channel == 0 && t == 0) {
            emitBinary(emitter, Opcode::VMul, out, window, weight,
                       Bcast::Scalar, ho, w);
            continue;
          }
          emitBinary(emitter, Opcode::VMul, std::nullopt, window, weight,
                     Bcast::Scalar, ho, w);
          emitBinary(emitter, Opcode::VAdd, out, std::nullopt, out, Bcast::None,
                     ho, w, operandReads(window, weight, Bcast::Scalar, ho, w));
        }
      if (spec.bias)
        emitBinary(
            emitter, Opcode::VAdd, out, out,
            Block{Space::Vrf, layout.biasBase + uint64_t(filter * kF32), kF32},
            Bcast::Scalar, ho, w);
      emitActivation(emitter, spec.activation, out, ho, w);
      uint64_t dst = y + uint64_t(filter * ho * wo * kF32);
      if (spec.stride == 1)
        emitStore(emitter,
                  {dst, Space::Acc, out.addr, /*x=*/w, /*y=*/h, /*z=*/1,
                   /*dy=*/w * kF32, /*dz=*/0, /*spitch=*/w * kF32},
                  yDram);
      else
        // Every other column: one element per DMA row, source pitch 2.
        emitStore(emitter,
                  {dst, Space::Acc, out.addr, /*x=*/1, /*y=*/wo, /*z=*/ho,
                   /*dy=*/kF32, /*dz=*/wo * kF32, /*spitch=*/2 * kF32},
                  yDram);
    }
  }
}

} // namespace mlir::nnaccel::npu_lowering::conv
