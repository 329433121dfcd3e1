//===- FullyConnectedKernel.cpp - fully_connected on the matrix unit ------===//
//
// Brainwave-style: a chunk of activation rows stays resident in the VRF
// while N x N weight tiles stream from DRAM into two alternating MRF slots;
// the matrix unit accumulates the k tiles of each output tile in one of two
// ACC slots, the MFUs add the bias and apply the activation in place, and
// the store queue writes the tile back while the next one is computed.
//
// The same loop serves accel.matmul, whose right operand is stored k x n:
// its tiles are transposed by the DMA itself (one-element rows, one plane
// per weight column), so neither side needs a transposed copy in DRAM.
//
//   for each chunk of mc rows:             (X chunk: one DMA, resident)
//     for j in output tiles (n / N):
//       for t in k tiles (k / N):           (W tile: DMA into MRF slot)
//         mm acc[slot_j] (+)= X[:, t] . W[j, t]^T
//       v.add acc[slot_j] += bias[j]        (bias row broadcast)
//       activation on acc[slot_j]
//       dma.st Y[:, j] <- acc[slot_j]
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Kernels.h"

#include <algorithm>
#include <cstring>

using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::DType;
using ::nnaccel::isa::Instruction;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// On-chip layout of the kernel for a target.
struct Layout {
  int64_t tile;         // N: k and n tile size
  int64_t rowsPerChunk; // mc
  uint64_t xBase = 0;   // vrf: resident X chunk, mc x k
  uint64_t biasBase;    // vrf: bias tile, 1 x N
  uint64_t wSlot[2];    // mrf: weight tiles, N x N
  uint64_t accSlot[2];  // acc: result tiles, mc x N
};

std::optional<Layout> computeLayout(const TargetDesc &target, int64_t m,
                                    int64_t k) {
  Layout layout;
  layout.tile = target.nativeDim;
  uint64_t vrfBytes =
      uint64_t(target.vrfRegisters) * uint64_t(target.vrfRegisterBytes);
  uint64_t vrfAlign = target.memory(Space::Vrf).align;
  uint64_t biasBytes = alignUp(layout.tile * kF32, vrfAlign);
  if (vrfBytes <= biasBytes)
    return std::nullopt;
  // X chunk gets the VRF minus the bias tile; ACC holds two result tiles.
  uint64_t xBudget = vrfBytes - biasBytes;
  int64_t byVrf = static_cast<int64_t>(xBudget / (k * kF32));
  int64_t byAcc = static_cast<int64_t>(target.memory(Space::Acc).bytes /
                                       (2 * layout.tile * kF32));
  // DMA moves at most 4095 rows at a time.
  layout.rowsPerChunk = std::min<int64_t>({m, byVrf, byAcc, 4095});
  if (layout.rowsPerChunk < 1)
    return std::nullopt;
  layout.biasBase = alignUp(layout.rowsPerChunk * k * kF32, vrfAlign);
  uint64_t wBytes = alignUp(layout.tile * layout.tile * kF32,
                            target.memory(Space::Mrf).align);
  if (2 * wBytes > target.memory(Space::Mrf).bytes)
    return std::nullopt;
  layout.wSlot[0] = 0;
  layout.wSlot[1] = wBytes;
  uint64_t accBytes = alignUp(layout.rowsPerChunk * layout.tile * kF32,
                              target.memory(Space::Acc).align);
  layout.accSlot[0] = 0;
  layout.accSlot[1] = accBytes;
  return layout;
}

} // namespace

void mlir::nnaccel::npu_lowering::emitActivationInPlace(
    ProgramEmitter &emitter, const ActivationSpec &act, Space space,
    uint64_t address, int64_t pitch, int64_t rows, int64_t cols) {
  MemRegion where{space, address,
                  address + uint64_t((rows - 1) * pitch + cols * kF32)};
  auto apply = [&](Opcode opcode, std::optional<float> immediate) {
    Instruction inst(opcode);
    setMem(inst, "dst", space, address);
    setMem(inst, "a", space, address);
    inst.with("dt", kDt)
        .with("at", kDt)
        .with("rows", rows)
        .with("cols", cols)
        .with("dpitch", pitch)
        .with("apitch", pitch);
    if (immediate)
      inst.with("imm", floatBits(*immediate));
    emitter.emit(inst, {where}, {where});
  };
  switch (act.kind) {
  case ActivationSpec::None:
    break;
  case ActivationSpec::Relu:
    apply(Opcode::VRelu, std::nullopt);
    break;
  case ActivationSpec::Sigmoid:
    apply(Opcode::VSigm, std::nullopt);
    break;
  case ActivationSpec::Tanh:
    apply(Opcode::VTanh, std::nullopt);
    break;
  case ActivationSpec::Gelu:
    apply(Opcode::VGelu, std::nullopt);
    break;
  case ActivationSpec::Clip:
    if (act.min)
      apply(Opcode::VsMax, act.min);
    if (act.max)
      apply(Opcode::VsMin, act.max);
    break;
  }
}

bool mlir::nnaccel::npu_lowering::canEmitFullyConnected(
    const TargetDesc &target, int64_t m, int64_t k, int64_t n,
    std::string &reason) {
  if (!target.macsPerCycle.count(DType::F32)) {
    reason = "the target's matrix unit has no f32 mode";
    return false;
  }
  std::optional<Layout> layout = computeLayout(target, m, k);
  if (!layout) {
    reason = "a row of " + std::to_string(k) +
             " f32 inputs does not fit the vector register file";
    return false;
  }
  uint64_t dramAlign = target.memory(Space::Dram).align;
  if (layout->rowsPerChunk < m &&
      ((layout->rowsPerChunk * k * kF32) % dramAlign != 0 ||
       (layout->rowsPerChunk * n * kF32) % dramAlign != 0)) {
    reason = "row chunks of this input would start at unaligned addresses";
    return false;
  }
  // Row pitches are 16-bit byte counts in mm.
  if (k * kF32 > 0xFFFF) {
    reason = "rows of " + std::to_string(k) + " inputs exceed the 64 KiB pitch";
    return false;
  }
  return true;
}

void mlir::nnaccel::npu_lowering::emitFullyConnected(
    ProgramEmitter &emitter, const TargetDesc &target,
    const FullyConnectedSpec &spec) {
  Layout layout = *computeLayout(target, spec.m, spec.k);
  const int64_t tile = layout.tile;
  const int64_t kTiles = (spec.k + tile - 1) / tile;
  const int64_t nTiles = (spec.n + tile - 1) / tile;
  const MemRegion xDram{Space::Dram, spec.input,
                        spec.input + uint64_t(spec.m * spec.k * kF32)};
  const MemRegion wDram{Space::Dram, spec.weight,
                        spec.weight + uint64_t(spec.n * spec.k * kF32)};
  const MemRegion yDram{Space::Dram, spec.output,
                        spec.output + uint64_t(spec.m * spec.n * kF32)};
  int64_t weightTile = 0, outputTile = 0;

  for (int64_t row = 0; row < spec.m; row += layout.rowsPerChunk) {
    int64_t mc = std::min(layout.rowsPerChunk, spec.m - row);
    // The whole X chunk in one DMA: mc rows of k floats.
    MemRegion xTile{Space::Vrf, layout.xBase,
                    layout.xBase + uint64_t(mc * spec.k * kF32)};
    Instruction loadX(Opcode::DmaLd);
    setMem(loadX, "dst", Space::Vrf, layout.xBase);
    setMem(loadX, "src", Space::Dram,
           spec.input + uint64_t(row * spec.k * kF32));
    loadX.with("dt", kDt)
        .with("x", spec.k)
        .with("y", mc)
        .with("z", 1)
        .with("sy", spec.k * kF32)
        .with("dpitch", spec.k * kF32);
    emitter.emit(loadX, {xDram}, {xTile});

    for (int64_t j = 0; j < nTiles; ++j, ++outputTile) {
      int64_t nt = std::min(tile, spec.n - j * tile);
      uint64_t acc = layout.accSlot[outputTile % 2];
      MemRegion accTile{Space::Acc, acc, acc + uint64_t(mc * nt * kF32)};
      for (int64_t t = 0; t < kTiles; ++t, ++weightTile) {
        int64_t kt = std::min(tile, spec.k - t * tile);
        uint64_t w = layout.wSlot[weightTile % 2];
        MemRegion wTile{Space::Mrf, w, w + uint64_t(nt * kt * kF32)};
        Instruction loadW(Opcode::DmaLd);
        setMem(loadW, "dst", Space::Mrf, w);
        if (spec.weightKxN) {
          // The kt x nt block at row t*N, column j*N of a k x n weight,
          // transposed: one-element rows (x = 1) walk down a column (sy =
          // one weight row) and each column becomes one plane (sz = one
          // element), i.e. one contiguous MRF row of kt floats.
          setMem(loadW, "src", Space::Dram,
                 spec.weight + uint64_t((t * tile * spec.n + j * tile) * kF32));
          loadW.with("dt", kDt)
              .with("x", 1)
              .with("y", kt)
              .with("z", nt)
              .with("sy", spec.n * kF32)
              .with("sz", kF32)
              .with("dpitch", kF32);
        } else {
          // nt weight rows of kt floats, from row j*N, column t*N.
          setMem(loadW, "src", Space::Dram,
                 spec.weight + uint64_t((j * tile * spec.k + t * tile) * kF32));
          loadW.with("dt", kDt)
              .with("x", kt)
              .with("y", nt)
              .with("z", 1)
              .with("sy", spec.k * kF32)
              .with("dpitch", kt * kF32);
        }
        emitter.emit(loadW, {wDram}, {wTile});

        Instruction mm(Opcode::Mm);
        setMem(mm, "dst", Space::Acc, acc);
        setMem(mm, "a", Space::Vrf, layout.xBase + uint64_t(t * tile * kF32));
        setMem(mm, "w", Space::Mrf, w);
        mm.with("dt", kDt)
            .with("at", kDt)
            .with("wt", kDt)
            .with("m", mc)
            .with("k", kt)
            .with("n", nt)
            .with("dpitch", nt * kF32)
            .with("apitch", spec.k * kF32)
            .with("acc", t > 0 ? 1 : 0);
        emitter.emit(mm, {xTile, wTile}, {accTile});
      }

      if (spec.bias) {
        uint64_t bias = layout.biasBase;
        MemRegion biasTile{Space::Vrf, bias, bias + uint64_t(nt * kF32)};
        Instruction loadB(Opcode::DmaLd);
        setMem(loadB, "dst", Space::Vrf, bias);
        setMem(loadB, "src", Space::Dram,
               *spec.bias + uint64_t(j * tile * kF32));
        loadB.with("dt", kDt)
            .with("x", nt)
            .with("y", 1)
            .with("z", 1)
            .with("sy", nt * kF32)
            .with("dpitch", nt * kF32);
        emitter.emit(
            loadB,
            {{Space::Dram, *spec.bias, *spec.bias + uint64_t(spec.n * kF32)}},
            {biasTile});
        Instruction add(Opcode::VAdd);
        setMem(add, "dst", Space::Acc, acc);
        setMem(add, "a", Space::Acc, acc);
        setMem(add, "b", Space::Vrf, bias);
        add.with("dt", kDt)
            .with("at", kDt)
            .with("bt", kDt)
            .with("rows", mc)
            .with("cols", nt)
            .with("dpitch", nt * kF32)
            .with("apitch", nt * kF32)
            .with("bpitch", nt * kF32)
            .with("bcast", static_cast<int64_t>(::nnaccel::isa::Bcast::Row));
        emitter.emit(add, {accTile, biasTile}, {accTile});
      }

      emitActivationInPlace(emitter, spec.activation, Space::Acc, acc,
                            nt * kF32, mc, nt);

      Instruction store(Opcode::DmaSt);
      setMem(store, "dst", Space::Dram,
             spec.output + uint64_t((row * spec.n + j * tile) * kF32));
      setMem(store, "src", Space::Acc, acc);
      store.with("dt", kDt)
          .with("x", nt)
          .with("y", mc)
          .with("z", 1)
          .with("dy", spec.n * kF32)
          .with("spitch", nt * kF32);
      emitter.emit(store, {accTile}, {yDram});
    }
  }
}
