// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory | FileCheck %s --check-prefix=PLAN
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory --accel-lower-to-npu | FileCheck %s --check-prefix=LOWER
// RUN: nnaccel-opt %s -split-input-file --accel-lower-to-npu | FileCheck %s --check-prefix=PLANNED
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=%S/Inputs/tiny-shared.json},accel-plan-card-memory)' \
// RUN:   | FileCheck %s --check-prefix=TINY

// Kernels that stage data in the card-wide SHARED memory get it from the
// memory plan: a strided 1x1 conv subsamples its input (16 channels of
// 4 x 4 f32 pixels: 1 KiB) into SHARED before its tiles are loaded. The
// scratch lives while the op runs, so the next op could reuse it; the
// partition records its SHARED peak.
// PLAN-LABEL: func.func @strided_pointwise
// PLAN: accel.card_partition
// PLAN-SAME: accel.shared_bytes = 1024 : i64
// PLAN: accel.conv {{.*}}accel.shared_address = 0 : i64
// PLAN-NOT: accel.shared_address
// PLAN: accel.yield
// On a card whose SHARED memory (512 B) cannot hold the subsampled input the
// conv takes the implicit-GEMM kernel instead, which needs no scratch.
// TINY-LABEL: func.func @strided_pointwise
// TINY-NOT: accel.shared_bytes
// TINY: accel.conv
// TINY-NOT: accel.shared_address
// TINY: accel.yield
// LOWER-LABEL: npu.program @strided_pointwise_p0_card0_core0
// LOWER: npu.dma.ld shared[0x0], dram[0x0], f32 x = 1 y = 4 z = 64 sy = 8 sz = 64 dpitch = 4
// LOWER: npu.dma.ld mrf[0x0], shared[0x0], f32 x = 1 y = 16 z = 16 sy = 64 sz = 4 dpitch = 4
func.func @strided_pointwise(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32> {
  %0 = accel.card_partition(%x, %w) {card = 0 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32> {
  ^bb0(%a: tensor<1x16x8x8xf32>, %b: tensor<32x16x1x1xf32>):
    %1 = accel.conv %a, %b {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32>
    %2 = accel.relu %1 : tensor<1x32x4x4xf32>
    accel.yield %2 : tensor<1x32x4x4xf32>
  }
  return %0 : tensor<1x32x4x4xf32>
}

// -----

// A plan given in the IR is followed: the conv stages at SHARED 0x1000.
// PLANNED-LABEL: npu.program @planned_shared_p0_card0_core0
// PLANNED: npu.dma.ld shared[0x1000], dram[0x0], f32 x = 1 y = 4 z = 64
// PLANNED: npu.dma.ld mrf[0x0], shared[0x1000], f32 x = 1 y = 16 z = 16
func.func @planned_shared(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32> {
  %0 = accel.card_partition(%x, %w) {accel.dram_bytes = 8192 : i64, accel.shared_bytes = 5120 : i64, card = 0 : i64, input_addresses = array<i64: 0, 4096>, output_addresses = array<i64: 6144>} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32> {
  ^bb0(%a: tensor<1x16x8x8xf32>, %b: tensor<32x16x1x1xf32>):
    %1 = accel.conv %a, %b {accel.dram_address = 6144 : i64, accel.shared_address = 4096 : i64, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32>
    accel.yield %1 : tensor<1x32x4x4xf32>
  }
  return %0 : tensor<1x32x4x4xf32>
}
