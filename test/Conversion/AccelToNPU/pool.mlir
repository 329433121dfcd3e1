// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=PLACE

// accel.global_avg_pool on the NPU (PoolKernels.cpp): channel planes are
// rows of an [N*C, HW] matrix; v.rsum reduces each row, vs.mul scales the
// contiguous sums by 1/HW, the store writes them back in one row.

// CHECK-LABEL: npu.program @gap_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 9 y = 40 z = 1 sy = 36 dpitch = 36 push_next
// CHECK-NEXT: npu.v.rsum vrf[0x0], acc[0x0], f32, f32 rows = 40 cols = 9 dpitch = 4 apitch = 36 pop_prev
// CHECK-NEXT: npu.vs.mul vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 40 dpitch = 160 apitch = 160 imm = 0.111111112 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], vrf[0x0], f32 x = 40 y = 1 z = 1 dy = 160 spitch = 160 pop_prev
// CHECK-NEXT: npu.halt
func.func @gap(%x: tensor<1x40x3x3xf32>) -> tensor<1x40x1x1xf32> {
  %0 = accel.global_avg_pool %x : tensor<1x40x3x3xf32> -> tensor<1x40x1x1xf32>
  return %0 : tensor<1x40x1x1xf32>
}

// -----

// 600 planes of 64 floats: 512 rows fill half of ACC (a multiple of 16 rows
// keeps both DRAM bases aligned), the rest goes to the second slot.
// CHECK-LABEL: npu.program @gap_chunked_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 64 y = 512 z = 1 sy = 256 dpitch = 256 push_next
// CHECK-NEXT: npu.v.rsum vrf[0x0], acc[0x0], f32, f32 rows = 512 cols = 64 dpitch = 4 apitch = 256 pop_prev
// CHECK-NEXT: npu.vs.mul vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 512 dpitch = 2048 apitch = 2048 imm = 1.562500e-02 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], vrf[0x0], f32 x = 512 y = 1 z = 1 dy = 2048 spitch = 2048 pop_prev
// CHECK-NEXT: npu.dma.ld acc[0x20000], dram[{{0x[0-9a-f]+}}], f32 x = 64 y = 88 z = 1 sy = 256 dpitch = 256 push_next
// CHECK-NEXT: npu.v.rsum vrf[0x800], acc[0x20000], f32, f32 rows = 88 cols = 64 dpitch = 4 apitch = 256 pop_prev
// CHECK-NEXT: npu.vs.mul vrf[0x800], vrf[0x800], f32, f32 rows = 1 cols = 88 dpitch = 352 apitch = 352 imm = 1.562500e-02 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], vrf[0x800], f32 x = 88 y = 1 z = 1 dy = 352 spitch = 352 pop_prev
// CHECK-NEXT: npu.halt
func.func @gap_chunked(%x: tensor<1x600x8x8xf32>) -> tensor<1x600x1x1xf32> {
  %0 = accel.global_avg_pool %x : tensor<1x600x8x8xf32> -> tensor<1x600x1x1xf32>
  return %0 : tensor<1x600x1x1xf32>
}

// -----

// Refused: other element types, planes wider than a vector operand pitch,
// and the windowed pools (no kernel yet).
// PLACE-LABEL: func.func @refused
func.func @refused(%x: tensor<1x4x8x8xf16>, %y: tensor<1x4x130x130xf32>, %z: tensor<1x4x8x8xf32>) -> (tensor<1x4x1x1xf16>, tensor<1x4x1x1xf32>, tensor<1x4x4x4xf32>) {
  // PLACE: accel.global_avg_pool
  // PLACE-SAME: accel.host_reason = "global_avg_pool runs on the card in f32 only so far"
  // PLACE-SAME: accel.placement = #accel.placement<card = -1>
  %0 = accel.global_avg_pool %x : tensor<1x4x8x8xf16> -> tensor<1x4x1x1xf16>
  // PLACE: accel.global_avg_pool
  // PLACE-SAME: accel.host_reason = "channel planes of 16900 elements exceed the 64 KiB vector operand pitch"
  %1 = accel.global_avg_pool %y : tensor<1x4x130x130xf32> -> tensor<1x4x1x1xf32>
  // PLACE: accel.max_pool
  // PLACE-SAME: accel.host_reason = "no NPU lowering for accel.max_pool yet"
  %2 = accel.max_pool %z {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0, %1, %2 : tensor<1x4x1x1xf16>, tensor<1x4x1x1xf32>, tensor<1x4x4x4xf32>
}
