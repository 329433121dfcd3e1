// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=PLACE

// Pooling on the NPU (PoolKernels.cpp). accel.global_avg_pool: channel
// planes are rows of an [N*C, HW] matrix; v.rsum reduces each row, vs.mul
// scales the contiguous sums by 1/HW, the store writes them back in one row.
// accel.max_pool / accel.avg_pool: one vector op per window position.

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

// f16: the planes are loaded as they are, v.rsum reads f16 and sums in
// f32, and the scale writes the f16 means to their own buffer.
// CHECK-LABEL: npu.program @gap_f16_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f16 x = 64 y = 4 z = 1 sy = 128 dpitch = 128
// CHECK-NEXT: npu.v.rsum vrf[0x0], acc[0x0], f32, f16 rows = 4 cols = 64 dpitch = 4 apitch = 128
// CHECK-NEXT: npu.vs.mul vrf[0x40], vrf[0x0], f16, f32 rows = 1 cols = 4 dpitch = 8 apitch = 16 imm = 1.562500e-02
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], vrf[0x40], f16 x = 4 y = 1 z = 1 dy = 8 spitch = 8
// CHECK-NEXT: npu.halt
func.func @gap_f16(%x: tensor<1x4x8x8xf16>) -> tensor<1x4x1x1xf16> {
  %0 = accel.global_avg_pool %x : tensor<1x4x8x8xf16> -> tensor<1x4x1x1xf16>
  return %0 : tensor<1x4x1x1xf16>
}

// -----

// Refused: other element types, planes wider than a vector operand pitch.
// PLACE-LABEL: func.func @refused
func.func @refused(%x: tensor<1x4x8x8xf64>, %y: tensor<1x4x130x130xf32>) -> (tensor<1x4x1x1xf64>, tensor<1x4x1x1xf32>) {
  // PLACE: accel.global_avg_pool
  // PLACE-SAME: accel.host_reason = "global_avg_pool runs on the card in f32, f16 or bf16 only"
  // PLACE-SAME: accel.placement = #accel.placement<card = -1>
  %0 = accel.global_avg_pool %x : tensor<1x4x8x8xf64> -> tensor<1x4x1x1xf64>
  // PLACE: accel.global_avg_pool
  // PLACE-SAME: accel.host_reason = "channel planes of 16900 elements exceed the 64 KiB vector operand pitch"
  %1 = accel.global_avg_pool %y : tensor<1x4x130x130xf32> -> tensor<1x4x1x1xf32>
  return %0, %1 : tensor<1x4x1x1xf64>, tensor<1x4x1x1xf32>
}

// -----

// max_pool 3x3 stride 2 pads 1: the -inf border mask (a row broadcast over
// the chunk's flattened planes), one v.max per window position over all
// (channel, output row) vector rows, per-channel compaction, and the store
// of every other column.
// CHECK-LABEL: npu.program @max_pool_p0_card0_core0
// CHECK-NEXT: npu.v.fill vrf[0x0], f32 rows = 8 cols = 8 dpitch = 32 imm = 0xFF800000
// CHECK-NEXT: npu.v.fill vrf[0x24], f32 rows = 6 cols = 6 dpitch = 32
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 6 y = 6 z = 4 sy = 24 sz = 144 dpitch = 32 pt = 1 pb = 1 pl = 1 pr = 1 push_next
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[0x0], f32, f32, f32 rows = 4 cols = 64 dpitch = 256 apitch = 256 bpitch = 256 bcast = row pop_prev
// CHECK-NEXT: npu.v.max acc[0x400], acc[0x0], acc[0x4], f32, f32, f32 rows = 15 cols = 5 dpitch = 24 apitch = 64 bpitch = 64
// CHECK-NEXT: npu.v.max acc[0x400], acc[0x400], acc[0x8], f32, f32, f32 rows = 15 cols = 5 dpitch = 24 apitch = 24 bpitch = 64
// CHECK-NEXT: npu.v.max acc[0x400], acc[0x400], acc[0x20], f32, f32, f32 rows = 15 cols = 5 dpitch = 24 apitch = 24 bpitch = 64
// CHECK-NEXT: npu.v.max acc[0x400], acc[0x400], acc[0x24], f32, f32, f32 rows = 15 cols = 5 dpitch = 24 apitch = 24 bpitch = 64
// CHECK-NEXT: npu.v.max acc[0x400], acc[0x400], acc[0x28], f32, f32, f32 rows = 15 cols = 5 dpitch = 24 apitch = 24 bpitch = 64
// CHECK-NEXT: npu.v.max acc[0x400], acc[0x400], acc[0x40], f32, f32, f32 rows = 15 cols = 5 dpitch = 24 apitch = 24 bpitch = 64
// CHECK-NEXT: npu.v.max acc[0x400], acc[0x400], acc[0x44], f32, f32, f32 rows = 15 cols = 5 dpitch = 24 apitch = 24 bpitch = 64
// CHECK-NEXT: npu.v.max acc[0x400], acc[0x400], acc[0x48], f32, f32, f32 rows = 15 cols = 5 dpitch = 24 apitch = 24 bpitch = 64
// CHECK-NEXT: npu.v.mov acc[0x580], acc[0x400], f32, f32 rows = 3 cols = 5 dpitch = 24 apitch = 24
// CHECK-NEXT: npu.v.mov acc[0x5c8], acc[0x460], f32, f32 rows = 3 cols = 5 dpitch = 24 apitch = 24
// CHECK-NEXT: npu.v.mov acc[0x610], acc[0x4c0], f32, f32 rows = 3 cols = 5 dpitch = 24 apitch = 24
// CHECK-NEXT: npu.v.mov acc[0x658], acc[0x520], f32, f32 rows = 3 cols = 5 dpitch = 24 apitch = 24 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x580], f32 x = 1 y = 3 z = 12 dy = 4 dz = 12 spitch = 8 pop_prev
// CHECK-NEXT: npu.halt
func.func @max_pool(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32> {
  %0 = accel.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x4x6x6xf32> -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

// avg_pool without count_include_pad: 1/count per output position from the
// same window sums over a ones plane (computed once), applied while
// compacting each channel.
// CHECK-LABEL: npu.program @avg_pool_p0_card0_core0
// CHECK-NEXT: npu.v.fill vrf[0x0], f32 rows = 5 cols = 5 dpitch = 20
// CHECK-NEXT: npu.v.fill vrf[0x0], f32 rows = 4 cols = 4 dpitch = 20 imm = 1.000000e+00
// CHECK-NEXT: npu.v.add vrf[0x80], vrf[0x0], vrf[0x4], f32, f32, f32 rows = 4 cols = 4 dpitch = 16 apitch = 20 bpitch = 20
// CHECK-NEXT: npu.v.add vrf[0x80], vrf[0x80], vrf[0x14], f32, f32, f32 rows = 4 cols = 4 dpitch = 16 apitch = 16 bpitch = 20
// CHECK-NEXT: npu.v.add vrf[0x80], vrf[0x80], vrf[0x18], f32, f32, f32 rows = 4 cols = 4 dpitch = 16 apitch = 16 bpitch = 20
// CHECK-NEXT: npu.v.recip vrf[0x80], vrf[0x80], f32, f32 rows = 4 cols = 4 dpitch = 16 apitch = 16
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 4 y = 4 z = 2 sy = 16 sz = 64 dpitch = 20 pb = 1 pr = 1 push_next
// CHECK-NEXT: npu.v.add acc[0x100], acc[0x0], acc[0x4], f32, f32, f32 rows = 9 cols = 4 dpitch = 16 apitch = 20 bpitch = 20 pop_prev
// CHECK-NEXT: npu.v.add acc[0x100], acc[0x100], acc[0x14], f32, f32, f32 rows = 9 cols = 4 dpitch = 16 apitch = 16 bpitch = 20
// CHECK-NEXT: npu.v.add acc[0x100], acc[0x100], acc[0x18], f32, f32, f32 rows = 9 cols = 4 dpitch = 16 apitch = 16 bpitch = 20
// CHECK-NEXT: npu.v.mul acc[0x1c0], acc[0x100], vrf[0x80], f32, f32, f32 rows = 4 cols = 4 dpitch = 16 apitch = 16 bpitch = 16
// CHECK-NEXT: npu.v.mul acc[0x200], acc[0x150], vrf[0x80], f32, f32, f32 rows = 4 cols = 4 dpitch = 16 apitch = 16 bpitch = 16 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x1c0], f32 x = 4 y = 4 z = 2 dy = 16 dz = 64 spitch = 16 pop_prev
// CHECK-NEXT: npu.halt
func.func @avg_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = accel.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// bf16 max_pool 3x3 stride 2 pads 1: the bf16 planes are loaded with their
// zero border and widened to f32 (one vector row per plane), the -inf mask
// and the window maxima are f32, and the per-channel compaction writes
// bf16 for the every-other-column store.
// CHECK-LABEL: npu.program @max_pool_bf16_p0_card0_core0
// CHECK-NEXT: npu.v.fill vrf[0x0], f32 rows = 10 cols = 10 dpitch = 40 imm = 0xFF800000
// CHECK-NEXT: npu.v.fill vrf[0x2c], f32 rows = 8 cols = 8 dpitch = 40
// CHECK-NEXT: npu.dma.ld acc[[[RAW:0x[0-9a-f]+]]], dram[{{0x[0-9a-f]+}}], bf16 x = 8 y = 8 z = 2 sy = 16 sz = 128 dpitch = 20 pt = 1 pb = 1 pl = 1 pr = 1
// CHECK-NEXT: npu.v.cvt acc[0x0], acc[[[RAW]]], f32, bf16 rows = 2 cols = 100 dpitch = 400 apitch = 200
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[0x0], f32, f32, f32 rows = 2 cols = 100 {{.*}} bcast = row
// CHECK-COUNT-8: npu.v.max acc[[[OUT:0x[0-9a-f]+]]], acc[{{0x[0-9a-f]+}}], acc[{{0x[0-9a-f]+}}], f32, f32, f32 rows = 9 cols = 7
// CHECK-NEXT: npu.v.cvt acc[[[CMP:0x[0-9a-f]+]]], acc[[[OUT]]], bf16, f32 rows = 4 cols = 7 dpitch = 16 apitch = 32
// CHECK-NEXT: npu.v.cvt acc[{{0x[0-9a-f]+}}], acc[{{0x[0-9a-f]+}}], bf16, f32 rows = 4 cols = 7 dpitch = 16 apitch = 32
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[[[CMP]]], bf16 x = 1 y = 4 z = 8 dy = 2 dz = 8 spitch = 4
// CHECK-NEXT: npu.halt
func.func @max_pool_bf16(%x: tensor<1x2x8x8xbf16>) -> tensor<1x2x4x4xbf16> {
  %0 = accel.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x2x8x8xbf16> -> tensor<1x2x4x4xbf16>
  return %0 : tensor<1x2x4x4xbf16>
}

// -----

// Windowed pools the kernel does not cover stay on the host.
// PLACE-LABEL: func.func @refused_windows
func.func @refused_windows(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x4x7xf32>) {
  // PLACE: accel.max_pool
  // PLACE-SAME: accel.host_reason = "max_pool with ceil_mode is not lowered to the card"
  %0 = accel.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  // PLACE: accel.max_pool
  // PLACE-SAME: accel.host_reason = "dilated max_pool is not lowered to the card"
  %1 = accel.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x3x3xf32>
  // PLACE: accel.avg_pool
  // PLACE-SAME: accel.host_reason = "avg_pool is lowered with equal strides of at most 7 only"
  %2 = accel.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x7xf32>
  return %0, %1, %2 : tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x4x7xf32>
}
