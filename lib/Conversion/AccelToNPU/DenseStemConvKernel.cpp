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
  auto loadRow = [&](uint64_t vrf, uint64_t dram, int64_t n) {
    DmaLoad load;
    load.dst = {Space::Vrf, vrf};
    load.src = {Space::Dram, dram};
    load.x = n;
    emitLoad(emitter, load);
  };
  loadRow(layout.weightBase, spec.weight, f * c * 9);
  if (spec.bias)
    loadRow(layout.biasBase, *spec.bias, f);
  int64_t plane = 0;
  for (int64_t image = 0; image < spec.batch; ++image) {
    uint64_t x = spec.input + uint64_t(image * c * h * w * kF32);
    uint64_t y = spec.output + uint64_t(image * f * ho * wo * kF32);
    // All padded input planes of the image.
    DmaLoad planes;
    planes.dst = {Space::Acc, layout.in};
    planes.src = {Space::Dram, x};
    planes.x = w;
    planes.y = h;
    planes.z = c;
    planes.sz = h * w * kF32;
    planes.pt = planes.pb = planes.pl = planes.pr = 1;
    emitLoad(emitter, planes);
    for (int64_t filter = 0; filter < f; ++filter, ++plane) {
      Operand2D out{Space::Acc, layout.out[plane % 2], w * kF32};
      for (int64_t channel = 0; channel < c; ++channel)
        for (int t = 0; t < 9; ++t) {
          int64_t di = t / 3, dj = t % 3;
          Operand2D window{
              Space::Acc,
              layout.in + uint64_t(channel * planeIn + (di * wp + dj) * kF32),
              spec.stride * wp * kF32};
          Operand2D weight{
              Space::Vrf,
              layout.weightBase +
                  uint64_t(((filter * c + channel) * 9 + t) * kF32),
              kF32};
          if (channel == 0 && t == 0) {
            emitBinary(emitter, Opcode::VMul, out, window, weight,
                       Bcast::Scalar, ho, w);
            continue;
          }
          // out += window * weight, the product forwarded through the chain.
          emitBinary(emitter, Opcode::VMul, chainOperand(w), window, weight,
                     Bcast::Scalar, ho, w);
          emitBinary(emitter, Opcode::VAdd, out, chainOperand(w), out,
                     Bcast::None, ho, w);
        }
      if (spec.bias)
        emitBinary(emitter, Opcode::VAdd, out, out,
                   Operand2D{Space::Vrf,
                             layout.biasBase + uint64_t(filter * kF32), kF32},
                   Bcast::Scalar, ho, w);
      emitActivation(emitter, spec.activation, out, ho, w);
      DmaStore store;
      store.dst = {Space::Dram, y + uint64_t(filter * ho * wo * kF32)};
      store.src = out.ref();
      if (spec.stride == 1) {
        store.x = w;
        store.y = h;
      } else {
        // Every other column: one element per DMA row, source pitch 2.
        store.x = 1;
        store.y = wo;
        store.z = ho;
        store.dz = wo * kF32;
        store.spitch = 2 * kF32;
      }
      emitStore(emitter, store);
    }
  }
}

} // namespace mlir::nnaccel::npu_lowering::conv
