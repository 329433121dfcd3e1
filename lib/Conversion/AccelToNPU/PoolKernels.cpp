//===- PoolKernels.cpp - pooling kernels on the MFUs ----------------------===//
//
// accel.global_avg_pool (f32, N x C x spatial -> N x C x 1..1): the input
// is a [N*C, S] matrix (S = product of the spatial sizes), one channel per
// row. Chunks of rows are loaded into two alternating ACC slots; v.rsum
// reduces each row (axis = cols) in the device's 16-lane order, which is
// the order of the host's numerics::reduceMeanF32 sum, and vs.mul scales by
// 1/S. The card has no divide, so the card's mean is sum * f32(1/S) while
// the host computes sum / S: the two can differ in the last bit (exact when
// S is a power of two).
//
// max_pool / avg_pool have no kernel yet and run on the host.
//
//===----------------------------------------------------------------------===//

#include "KernelRegistry.h"

#include "Accel/AccelOps.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Axis;
using ::nnaccel::isa::DType;
using ::nnaccel::isa::Instruction;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {
constexpr int64_t kF32 = 4;
constexpr int64_t kDt = static_cast<int64_t>(DType::F32);
constexpr int64_t kMaxPitch = 0xFFFF; // 16-bit vector operand pitches
constexpr int64_t kMaxDmaY = 4095;    // 12-bit DMA y count

Instruction &withMem(Instruction &inst, const char *name, Space space,
                     uint64_t address) {
  std::string prefix(name);
  inst.with(prefix + ".space", static_cast<int64_t>(space));
  inst.with(prefix + ".addr", static_cast<int64_t>(address));
  return inst;
}

uint64_t alignUp(uint64_t value, uint64_t align) {
  return (value + align - 1) / align * align;
}

/// Rows (channels) per chunk: two input slots fit ACC, the means of one
/// chunk fit the VRF, and chunk bases stay aligned in DRAM. 0 if none.
int64_t rowsPerChunk(const TargetDesc &target, int64_t rows, int64_t plane) {
  int64_t accBytes = static_cast<int64_t>(target.memory(Space::Acc).bytes);
  int64_t vrfBytes = int64_t(target.vrfRegisters) * target.vrfRegisterBytes;
  int64_t chunk = std::min<int64_t>(
      {rows, accBytes / 2 / (plane * kF32), (vrfBytes / 2 - 64) / kF32,
       kMaxDmaY});
  if (chunk < rows) {
    // Chunk r0 reads from r0 * plane * 4 and writes r0 * 4: both aligned
    // when r0 is a multiple of align / 4.
    int64_t step =
        static_cast<int64_t>(target.memory(Space::Dram).align) / kF32;
    chunk = chunk / step * step;
  }
  return std::max<int64_t>(chunk, 0);
}

LogicalResult checkGlobalAvgPool(Operation *operation,
                                 const TargetDesc &target,
                                 std::string &reason) {
  auto op = cast<GlobalAvgPoolOp>(operation);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  if (!type.getElementType().isF32() ||
      !cast<RankedTensorType>(op.getType()).getElementType().isF32()) {
    reason = "global_avg_pool runs on the card in f32 only so far";
    return failure();
  }
  if (!type.hasStaticShape() || type.getRank() < 3) {
    reason = "global_avg_pool needs a static N x C x spatial input";
    return failure();
  }
  int64_t plane = type.getNumElements() / (type.getDimSize(0) *
                                           type.getDimSize(1));
  if (plane < 1 || plane * kF32 > kMaxPitch) {
    reason = "channel planes of " + std::to_string(plane) +
             " elements exceed the 64 KiB vector operand pitch";
    return failure();
  }
  if (rowsPerChunk(target, type.getDimSize(0) * type.getDimSize(1), plane) <
      1) {
    reason = "a chunk of channel planes that keeps DRAM bases aligned does "
             "not fit the accumulator memory";
    return failure();
  }
  return success();
}

LogicalResult emitGlobalAvgPool(Operation *operation, KernelContext &context) {
  auto op = cast<GlobalAvgPoolOp>(operation);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  const int64_t rows = type.getDimSize(0) * type.getDimSize(1);
  const int64_t plane = type.getNumElements() / rows;
  const int64_t chunk = rowsPerChunk(context.target, rows, plane);
  const uint64_t input = context.addressOf(op.getInput());
  const uint64_t output = context.addressOf(op.getResult());
  const MemRegion xDram{Space::Dram, input,
                        input + uint64_t(rows * plane * kF32)};
  const MemRegion yDram{Space::Dram, output, output + uint64_t(rows * kF32)};
  const uint64_t accAlign = context.target.memory(Space::Acc).align;
  const uint64_t slotBytes = alignUp(chunk * plane * kF32, accAlign);
  const uint64_t vrfSlotBytes = alignUp(chunk * kF32, 64);
  const float scale = 1.0f / static_cast<float>(plane);
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &scale, sizeof(scaleBits));
  ProgramEmitter &emitter = context.emitter;

  for (int64_t r0 = 0, index = 0; r0 < rows; r0 += chunk, ++index) {
    int64_t rc = std::min(chunk, rows - r0);
    uint64_t slot = uint64_t(index % 2) * slotBytes;
    uint64_t mean = uint64_t(index % 2) * vrfSlotBytes;
    MemRegion slotRegion{Space::Acc, slot, slot + uint64_t(rc * plane * kF32)};
    MemRegion meanRegion{Space::Vrf, mean, mean + uint64_t(rc * kF32)};

    Instruction load(Opcode::DmaLd);
    withMem(load, "dst", Space::Acc, slot);
    withMem(load, "src", Space::Dram, input + uint64_t(r0 * plane * kF32));
    load.with("dt", kDt).with("x", plane).with("y", rc).with("z", 1)
        .with("sy", plane * kF32).with("dpitch", plane * kF32);
    emitter.emit(load, {xDram}, {slotRegion});

    // Not chained into the scale: the next load into this slot waits for
    // the reduction, and only a chain's last member may push that token.
    Instruction sum(Opcode::VRsum);
    withMem(sum, "dst", Space::Vrf, mean);
    withMem(sum, "a", Space::Acc, slot);
    sum.with("dt", kDt).with("at", kDt).with("rows", rc).with("cols", plane)
        .with("dpitch", kF32).with("apitch", plane * kF32)
        .with("axis", static_cast<int64_t>(Axis::Cols));
    emitter.emit(sum, {slotRegion}, {meanRegion});

    // The means are contiguous: scale them as one row.
    Instruction mul(Opcode::VsMul);
    withMem(mul, "dst", Space::Vrf, mean);
    withMem(mul, "a", Space::Vrf, mean);
    mul.with("dt", kDt).with("at", kDt).with("rows", 1).with("cols", rc)
        .with("dpitch", rc * kF32).with("apitch", rc * kF32)
        .with("imm", scaleBits);
    emitter.emit(mul, {meanRegion}, {meanRegion});

    Instruction store(Opcode::DmaSt);
    withMem(store, "dst", Space::Dram, output + uint64_t(r0 * kF32));
    withMem(store, "src", Space::Vrf, mean);
    store.with("dt", kDt).with("x", rc).with("y", 1).with("z", 1)
        .with("dy", rc * kF32).with("spitch", rc * kF32);
    emitter.emit(store, {meanRegion}, {yDram});
  }
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::registerPoolKernels(KernelTable &table) {
  table[GlobalAvgPoolOp::getOperationName()] = {checkGlobalAvgPool,
                                                emitGlobalAvgPool};
}
