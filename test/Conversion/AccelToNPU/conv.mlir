// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=PLACE
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=brainwave-like},func.func(accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=BRAINWAVE

// accel.conv on the NPU (ConvKernels.cpp): pointwise 1x1 convolutions on
// the matrix unit, depthwise 3x3 (stride 1 and 2) and dense 3x3 with few
// channels on the MFUs, everything else (any kernel, stride, dilation,
// padding, groups, 1-D/3-D, f16/bf16) on the general implicit-GEMM kernel,
// and the shapes that stay on the host with their reasons.

// Bias row load, the resident filter chunk A = Wc (24 x 16), the X^T tile
// transposed by the DMA (64 pixels x 16 channels: x = 1, one plane per
// pixel), one mm, the per-row bias (bcast = col), clip 0..6, and the store
// with a row pitch of HW.
// CHECK-LABEL: npu.program @pointwise_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 24 y = 1 z = 1 sy = 96 dpitch = 96
// CHECK-NEXT: npu.dma.ld vrf[0x60], dram[{{0x[0-9a-f]+}}], f32 x = 16 y = 24 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 1 y = 16 z = 64 sy = 256 sz = 4 dpitch = 4 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x60], mrf[0x0], f32, f32, f32 m = 24 k = 16 n = 64 dpitch = 256 apitch = 64 pop_prev
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[0x0], f32, f32, f32 rows = 24 cols = 64 dpitch = 256 apitch = 256 bpitch = 4 bcast = col
// CHECK-NEXT: npu.vs.max acc[0x0], acc[0x0], f32, f32 rows = 24 cols = 64 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.vs.min acc[0x0], acc[0x0], f32, f32 rows = 24 cols = 64 dpitch = 256 apitch = 256 imm = 6.000000e+00 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x0], f32 x = 64 y = 24 z = 1 dy = 256 spitch = 256 pop_prev
// CHECK-NEXT: npu.halt
func.func @pointwise(%x: tensor<1x16x8x8xf32>, %w: tensor<24x16x1x1xf32>, %b: tensor<24xf32>) -> tensor<1x24x8x8xf32> {
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, activation = #accel.act<clip>, activation_min = 0.0 : f32, activation_max = 6.0 : f32} : (tensor<1x16x8x8xf32>, tensor<24x16x1x1xf32>, tensor<24xf32>) -> tensor<1x24x8x8xf32>
  return %0 : tensor<1x24x8x8xf32>
}

// -----

// Weights [C x 9] and bias into the VRF, the 8 padded planes (8x8) into
// ACC with DMA padding, then the 9 taps in the device dot-product order
// ((p0 + p8) + p4) + (p2 + p6) + ((p1 + p5) + (p3 + p7)): the first product
// of each partial sum is written, the others are chained into the adds.
// The store skips the two garbage columns per row (spitch = 8 floats).
// CHECK-LABEL: npu.program @depthwise_s1_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 72 y = 1 z = 1 sy = 288 dpitch = 288
// CHECK-NEXT: npu.dma.ld vrf[0x140], dram[{{0x[0-9a-f]+}}], f32 x = 8 y = 1 z = 1 sy = 32 dpitch = 32
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 6 y = 6 z = 8 sy = 24 sz = 144 dpitch = 32 pt = 1 pb = 1 pl = 1 pr = 1 push_next
// CHECK-NEXT: npu.v.mul acc[0x800], acc[0x0], vrf[0x0], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 256 bpitch = 36 bcast = col pop_prev
// CHECK-NEXT: npu.v.mul chain, acc[0x48], vrf[0x20], f32, f32, f32 rows = 8 cols = 46 dpitch = 184 apitch = 256 bpitch = 36 bcast = col chain
// CHECK-NEXT: npu.v.add acc[0x800], chain, acc[0x800], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 184 bpitch = 192
// CHECK-NEXT: npu.v.mul chain, acc[0x24], vrf[0x10], f32, f32, f32 rows = 8 cols = 46 dpitch = 184 apitch = 256 bpitch = 36 bcast = col chain
// CHECK-NEXT: npu.v.add acc[0x800], chain, acc[0x800], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 184 bpitch = 192
// CHECK-NEXT: npu.v.mul vrf[0x180], acc[0x8], vrf[0x8], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 256 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.mul chain, acc[0x40], vrf[0x18], f32, f32, f32 rows = 8 cols = 46 dpitch = 184 apitch = 256 bpitch = 36 bcast = col chain
// CHECK-NEXT: npu.v.add vrf[0x180], chain, vrf[0x180], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 184 bpitch = 192
// CHECK-NEXT: npu.v.add acc[0x800], acc[0x800], vrf[0x180], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 192 bpitch = 192
// CHECK-NEXT: npu.v.mul vrf[0x180], acc[0x4], vrf[0x4], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 256 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.mul chain, acc[0x28], vrf[0x14], f32, f32, f32 rows = 8 cols = 46 dpitch = 184 apitch = 256 bpitch = 36 bcast = col chain
// CHECK-NEXT: npu.v.add vrf[0x180], chain, vrf[0x180], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 184 bpitch = 192
// CHECK-NEXT: npu.v.mul vrf[0x780], acc[0x20], vrf[0xc], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 256 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.mul chain, acc[0x44], vrf[0x1c], f32, f32, f32 rows = 8 cols = 46 dpitch = 184 apitch = 256 bpitch = 36 bcast = col chain
// CHECK-NEXT: npu.v.add vrf[0x780], chain, vrf[0x780], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 184 bpitch = 192
// CHECK-NEXT: npu.v.add vrf[0x180], vrf[0x180], vrf[0x780], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 192 bpitch = 192
// CHECK-NEXT: npu.v.add acc[0x800], acc[0x800], vrf[0x180], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 192 bpitch = 192
// CHECK-NEXT: npu.v.add acc[0x800], acc[0x800], vrf[0x140], f32, f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 192 bpitch = 4 bcast = col
// CHECK-NEXT: npu.v.relu acc[0x800], acc[0x800], f32, f32 rows = 8 cols = 46 dpitch = 192 apitch = 192 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x800], f32 x = 6 y = 6 z = 8 dy = 24 dz = 144 spitch = 32 pop_prev
// CHECK-NEXT: npu.halt
func.func @depthwise_s1(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64, activation = #accel.act<relu>} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Stride 2: the weights are expanded to one value per (channel, output
// row) vector row, a row pitch of two padded rows subsamples vertically,
// each channel's 4 valid rows are compacted, and the store takes every other
// column (x = 1, spitch = 2 floats).
// CHECK-LABEL: npu.program @depthwise_s2_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 36 y = 1 z = 1 sy = 144 dpitch = 144 push_next
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 8 y = 8 z = 4 sy = 32 sz = 256 dpitch = 40 pt = 1 pb = 1 pl = 1 pr = 1 push_next
// CHECK-NEXT: npu.v.fill vrf[0x600], f32 rows = 36 cols = 5 dpitch = 20
// CHECK-NEXT: npu.v.add vrf[0x600], vrf[0x600], vrf[0x0], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col pop_prev
// CHECK-NEXT: npu.v.add vrf[0x650], vrf[0x650], vrf[0x4], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.add vrf[0x6a0], vrf[0x6a0], vrf[0x8], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.add vrf[0x6f0], vrf[0x6f0], vrf[0xc], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.add vrf[0x740], vrf[0x740], vrf[0x10], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.add vrf[0x790], vrf[0x790], vrf[0x14], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.add vrf[0x7e0], vrf[0x7e0], vrf[0x18], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.add vrf[0x830], vrf[0x830], vrf[0x1c], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.add vrf[0x880], vrf[0x880], vrf[0x20], f32, f32, f32 rows = 4 cols = 5 dpitch = 20 apitch = 20 bpitch = 36 bcast = col
// CHECK-NEXT: npu.v.mul acc[0x640], acc[0x0], vrf[0x600], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col pop_prev
// CHECK-NEXT: npu.v.mul chain, acc[0x58], vrf[0x880], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col chain
// CHECK-NEXT: npu.v.add acc[0x640], chain, acc[0x640], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-NEXT: npu.v.mul chain, acc[0x2c], vrf[0x740], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col chain
// CHECK-NEXT: npu.v.add acc[0x640], chain, acc[0x640], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-NEXT: npu.v.mul vrf[0x100], acc[0x8], vrf[0x6a0], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col
// CHECK-NEXT: npu.v.mul chain, acc[0x50], vrf[0x7e0], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col chain
// CHECK-NEXT: npu.v.add vrf[0x100], chain, vrf[0x100], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-NEXT: npu.v.add acc[0x640], acc[0x640], vrf[0x100], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-NEXT: npu.v.mul vrf[0x100], acc[0x4], vrf[0x650], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col
// CHECK-NEXT: npu.v.mul chain, acc[0x30], vrf[0x790], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col chain
// CHECK-NEXT: npu.v.add vrf[0x100], chain, vrf[0x100], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-NEXT: npu.v.mul vrf[0x380], acc[0x28], vrf[0x6f0], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col
// CHECK-NEXT: npu.v.mul chain, acc[0x54], vrf[0x830], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 80 bpitch = 4 bcast = col chain
// CHECK-NEXT: npu.v.add vrf[0x380], chain, vrf[0x380], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-NEXT: npu.v.add vrf[0x100], vrf[0x100], vrf[0x380], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-NEXT: npu.v.add acc[0x640], acc[0x640], vrf[0x100], f32, f32, f32 rows = 19 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-NEXT: npu.v.mov acc[0x8c0], acc[0x640], f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32
// CHECK-NEXT: npu.v.mov acc[0x940], acc[0x6e0], f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32
// CHECK-NEXT: npu.v.mov acc[0x9c0], acc[0x780], f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32
// CHECK-NEXT: npu.v.mov acc[0xa40], acc[0x820], f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x8c0], f32 x = 1 y = 4 z = 16 dy = 4 dz = 16 spitch = 8 pop_prev
// CHECK-NEXT: npu.halt
func.func @depthwise_s2(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = accel.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// 96 of the 1280 filter rows per chunk (the VRF holds 96 x 160 floats and
// 96 x 9 x 4 bytes keeps every chunk's output base aligned): 13 chunks of
// 96 and one of 32. The three X^T tiles (k = 64, 64, 32) stay resident in
// the MRF for all chunks; the result alternates between two ACC slots.
// CHECK-LABEL: npu.program @pointwise_chunked_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 160 y = 96 z = 1 sy = 640 dpitch = 640
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 1 y = 64 z = 9 sy = 36 sz = 4 dpitch = 4 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 96 k = 64 n = 9 dpitch = 36 apitch = 640 pop_prev
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[{{0x[0-9a-f]+}}], f32 x = 1 y = 64 z = 9 sy = 36 sz = 4 dpitch = 4 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x100], mrf[0x4000], f32, f32, f32 m = 96 k = 64 n = 9 dpitch = 36 apitch = 640 acc = 1 pop_prev
// CHECK-NEXT: npu.dma.ld mrf[0x8000], dram[{{0x[0-9a-f]+}}], f32 x = 1 y = 32 z = 9 sy = 36 sz = 4 dpitch = 4 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x200], mrf[0x8000], f32, f32, f32 m = 96 k = 32 n = 9 dpitch = 36 apitch = 640 acc = 1 pop_prev push_prev push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x0], f32 x = 9 y = 96 z = 1 dy = 36 spitch = 36 pop_prev push_prev
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 160 y = 96 z = 1 sy = 640 dpitch = 640 pop_next push_next
// CHECK-NEXT: npu.mm acc[0x6000], vrf[0x0], mrf[0x0], f32, f32, f32 m = 96 k = 64 n = 9 dpitch = 36 apitch = 640 pop_prev
// CHECK-NEXT: npu.mm acc[0x6000], vrf[0x100], mrf[0x4000], f32, f32, f32 m = 96 k = 64 n = 9 dpitch = 36 apitch = 640 acc = 1
// CHECK-NEXT: npu.mm acc[0x6000], vrf[0x200], mrf[0x8000], f32, f32, f32 m = 96 k = 32 n = 9 dpitch = 36 apitch = 640 acc = 1 push_prev push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x6000], f32 x = 9 y = 96 z = 1 dy = 36 spitch = 36 pop_prev push_prev
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 160 y = 96 z = 1 sy = 640 dpitch = 640 pop_next push_next
// CHECK-NOT: npu.dma.ld mrf
// CHECK-COUNT-10: npu.dma.ld vrf[0x0], {{.*}} x = 160 y = 96
// CHECK-NOT: npu.dma.ld mrf
// CHECK: npu.dma.ld vrf[0x0], {{.*}} x = 160 y = 32
// CHECK-NEXT: npu.mm acc[0x6000], vrf[0x0], mrf[0x0], f32, f32, f32 m = 32 k = 64 n = 9
// CHECK-NOT: npu.dma.ld mrf
// CHECK: npu.halt
func.func @pointwise_chunked(%x: tensor<1x160x3x3xf32>, %w: tensor<1280x160x1x1xf32>) -> tensor<1x1280x3x3xf32> {
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x160x3x3xf32>, tensor<1280x160x1x1xf32>) -> tensor<1x1280x3x3xf32>
  return %0 : tensor<1x1280x3x3xf32>
}

// -----

// 48x48 planes: channel chunks alternate between two ACC slots.
// CHECK-LABEL: npu.program @depthwise_chunked_p0_card0_core0
// CHECK: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 144 y = 1 z = 1 sy = 576 dpitch = 576
// CHECK: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 48 y = 48 z = 4 sy = 192 sz = 9216 dpitch = 200 pt = 1 pb = 1 pl = 1 pr = 1 push_next
// CHECK: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x9c40], f32 x = 48 y = 48 z = 4 dy = 192 dz = 9216 spitch = 200 pop_prev push_prev
// CHECK: npu.dma.ld acc[0x13240], dram[{{0x[0-9a-f]+}}], f32 x = 48 y = 48 z = 4 sy = 192 sz = 9216 dpitch = 200 pt = 1 pb = 1 pl = 1 pr = 1 push_next
// CHECK: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x1ce80], f32 x = 48 y = 48 z = 4 dy = 192 dz = 9216 spitch = 200 pop_prev push_prev
// CHECK: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 48 y = 48 z = 4 sy = 192 sz = 9216 dpitch = 200 pt = 1 pb = 1 pl = 1 pr = 1 pop_next push_next
// CHECK: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x9c40], f32 x = 48 y = 48 z = 4 dy = 192 dz = 9216 spitch = 200 pop_prev
// CHECK: npu.dma.ld acc[0x13240], dram[{{0x[0-9a-f]+}}], f32 x = 48 y = 48 z = 4 sy = 192 sz = 9216 dpitch = 200 pt = 1 pb = 1 pl = 1 pr = 1 pop_next push_next
// CHECK: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x1ce80], f32 x = 48 y = 48 z = 4 dy = 192 dz = 9216 spitch = 200 pop_prev
// CHECK: npu.halt
func.func @depthwise_chunked(%x: tensor<1x16x48x48xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<1x16x48x48xf32> {
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x48x48xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x48x48xf32>
  return %0 : tensor<1x16x48x48xf32>
}

// -----

// Dense 3x3 stride 1 on 2 channels (a stem): one plane per filter, a
// multiply by a scalar weight per (channel, tap) chained into the add, bias
// (bcast = scalar), clip and the store.
// CHECK-LABEL: npu.program @dense_s1_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 36 y = 1 z = 1 sy = 144 dpitch = 144
// CHECK-NEXT: npu.dma.ld vrf[0xc0], dram[{{0x[0-9a-f]+}}], f32 x = 2 y = 1 z = 1 sy = 8 dpitch = 8
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 8 y = 8 z = 2 sy = 32 sz = 256 dpitch = 40 pt = 1 pb = 1 pl = 1 pr = 1 push_next
// CHECK-NEXT: npu.v.mul acc[0x340], acc[0x0], vrf[0x0], f32, f32, f32 rows = 8 cols = 8 dpitch = 32 apitch = 40 bpitch = 4 bcast = scalar pop_prev
// CHECK-NEXT: npu.v.mul chain, acc[0x4], vrf[0x4], f32, f32, f32 rows = 8 cols = 8 dpitch = 32 apitch = 40 bpitch = 4 bcast = scalar chain
// CHECK-NEXT: npu.v.add acc[0x340], chain, acc[0x340], f32, f32, f32 rows = 8 cols = 8 dpitch = 32 apitch = 32 bpitch = 32
// CHECK-COUNT-16: npu.v.mul chain
// CHECK: npu.v.add acc[0x340], acc[0x340], vrf[0xc0], f32, f32, f32 rows = 8 cols = 8 dpitch = 32 apitch = 32 bpitch = 4 bcast = scalar
// CHECK-NEXT: npu.vs.max acc[0x340], acc[0x340], f32, f32 rows = 8 cols = 8 dpitch = 32 apitch = 32
// CHECK-NEXT: npu.vs.min acc[0x340], acc[0x340], f32, f32 rows = 8 cols = 8 dpitch = 32 apitch = 32 imm = 6.000000e+00 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x340], f32 x = 8 y = 8 z = 1 dy = 32 spitch = 32 pop_prev
// CHECK-COUNT-18: npu.v.mul
// CHECK: npu.dma.st
// CHECK-NEXT: npu.halt
func.func @dense_s1(%x: tensor<1x2x8x8xf32>, %w: tensor<2x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x8x8xf32> {
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<clip>, activation_min = 0.0 : f32, activation_max = 6.0 : f32} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// The same stem at stride 2 runs on the matrix unit: the weights (loaded
// first, then the image transposed to [pixels x channels], then the bias)
// reordered into tiles of (tap, channel) columns (one per kernel row and
// run of two taps, one per tap) with one-column copies, staged through
// SHARED into the MRF; per output row and kernel row one mm per run of
// taps (A rows two pixels apart) and a single-tap mm for the left border
// pixel; then bias (repeated per pixel) chained into the clip's max, min,
// and a transposing store.
// CHECK-LABEL: npu.program @stem_s2_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x200], dram[{{0x[0-9a-f]+}}], f32 x = 18 y = 2 z = 1 sy = 72 dpitch = 72
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 1 y = 2 z = 64 sy = 256 sz = 4 dpitch = 4
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 2 y = 1 z = 1 sy = 8 dpitch = 8
// CHECK-NEXT: npu.v.fill acc[0x2c0], f32 rows = 1 cols = 192
// CHECK-NEXT: npu.v.mov acc[0x2c0], acc[0x200], f32, f32 rows = 2 cols = 1 dpitch = 16 apitch = 72
// CHECK-COUNT-29: npu.v.mov
// CHECK-NEXT: npu.dma.st shared[0x0], acc[0x2c0], f32 x = 192
// CHECK: npu.dma.ld mrf[0x0], shared[0x0], f32 x = 192
// CHECK: npu.v.fill vrf[0x40], f32 rows = 4 cols = 2 dpitch = 8
// CHECK-NEXT: npu.v.add vrf[0x40], vrf[0x40], vrf[0x0], f32, f32, f32 rows = 4 cols = 2 dpitch = 8 apitch = 8 bcast = row
// CHECK-NEXT: npu.v.fill acc[0x5c0], f32 rows = 4 cols = 8 dpitch = 32
// CHECK-NEXT: npu.mm acc[0x5c8], acc[0x8], mrf[0x100], f32, f32, f32 m = 3 k = 4 n = 2 dpitch = 8 apitch = 16 acc = 1
// CHECK-NEXT: npu.mm acc[0x5c0], acc[0x0], mrf[0x1c0], f32, f32, f32 m = 1 k = 2 n = 2 dpitch = 8 apitch = 16 acc = 1
// CHECK-NEXT: npu.mm acc[0x5c0], acc[0x8], mrf[0x140], f32, f32, f32 m = 4 k = 2 n = 2 dpitch = 8 apitch = 16 acc = 1
// CHECK-COUNT-30: npu.mm
// CHECK-NEXT: npu.v.add chain, acc[0x5c0], vrf[0x40], f32, f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32 bcast = row chain
// CHECK-NEXT: npu.vs.max acc[0x5c0], chain, f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32
// CHECK-NEXT: npu.vs.min acc[0x6c0], acc[0x5c0], f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32 imm = 6.000000e+00
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x6c0], f32 x = 1 y = 2 z = 16 dy = 64 dz = 4 spitch = 4
// CHECK-NEXT: npu.halt
func.func @stem_s2(%x: tensor<1x2x8x8xf32>, %w: tensor<2x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = accel.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<clip>, activation_min = 0.0 : f32, activation_max = 6.0 : f32} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// The stem quantizing its result (its int8 consumer's input): 1 / scale in
// the VRF, the bias chained into the ReLU, v.rqnt to u8 and a u8 store.
// CHECK-LABEL: npu.program @stem_s2_u8_p0_card0_core0
// CHECK: npu.v.fill vrf[0x80], f32 rows = 1 cols = 1 imm = 4.000000e+01
// CHECK: npu.v.add chain, acc[0x5c0], vrf[0x40], f32, f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32 bcast = row chain
// CHECK-NEXT: npu.v.relu acc[0x5c0], chain, f32, f32 rows = 4 cols = 8 dpitch = 32 apitch = 32
// CHECK-NEXT: npu.v.rqnt acc[0x6c0], acc[0x5c0], vrf[0x80], u8, f32 rows = 4 cols = 8 dpitch = 8 apitch = 32
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x6c0], u8 x = 1 y = 2 z = 16 dy = 16 dz = 1 spitch = 1
func.func @stem_s2_u8(%x: tensor<1x2x8x8xf32>, %w: tensor<2x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.025>> {
  %0 = accel.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.025>>
  return %0 : tensor<1x2x4x4x!quant.uniform<u8:f32, 0.025>>
}


// -----

// Shapes the special kernels do not cover run on the card with the general
// (implicit-GEMM) kernel: other dense kernels, dilation, groups other than
// 1 or C, other depthwise kernels, odd planes at stride 2, strided 1x1,
// f16, and a dense 3x3 with too many channels for plane-by-plane products.
// PLACE-LABEL: func.func @general
func.func @general(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x5x5xf32>, %wd: tensor<3x1x3x3xf32>, %wg: tensor<4x2x1x1xf32>, %x4: tensor<1x4x8x8xf32>, %wd5: tensor<3x1x5x5xf32>, %x7: tensor<1x3x7x7xf32>, %w1: tensor<4x3x1x1xf32>, %xh: tensor<1x3x8x8xf16>, %wh: tensor<4x3x1x1xf16>, %xm: tensor<1x64x8x8xf32>, %wm: tensor<64x64x3x3xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x8x8xf16>, tensor<1x64x8x8xf32>) {
  // PLACE: accel.conv
  // PLACE-NOT: host_reason
  // PLACE-SAME: accel.placement = #accel.placement<card = 0>
  %0 = accel.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x5x5xf32>) -> tensor<1x4x4x4xf32>
  // PLACE: accel.conv
  // PLACE-NOT: host_reason
  // PLACE-SAME: accel.placement = #accel.placement<card = 0>
  %1 = accel.conv %x, %wd {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 3 : i64} : (tensor<1x3x8x8xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x4x4xf32>
  // PLACE: accel.conv
  // PLACE-NOT: host_reason
  // PLACE-SAME: accel.placement = #accel.placement<card = 0>
  %2 = accel.conv %x4, %wg {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x8x8xf32>
  // PLACE: accel.conv
  // PLACE-NOT: host_reason
  // PLACE-SAME: accel.placement = #accel.placement<card = 0>
  %3 = accel.conv %x, %wd5 {strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, groups = 3 : i64} : (tensor<1x3x8x8xf32>, tensor<3x1x5x5xf32>) -> tensor<1x3x8x8xf32>
  // PLACE: accel.conv
  // PLACE-NOT: host_reason
  // PLACE-SAME: accel.placement = #accel.placement<card = 0>
  %4 = accel.conv %x7, %wd {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 3 : i64} : (tensor<1x3x7x7xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x4x4xf32>
  // PLACE: accel.conv
  // PLACE-NOT: host_reason
  // PLACE-SAME: accel.placement = #accel.placement<card = 0>
  %5 = accel.conv %x, %w1 {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  // PLACE: accel.conv
  // PLACE-NOT: host_reason
  // PLACE-SAME: accel.placement = #accel.placement<card = 0>
  %6 = accel.conv %xh, %wh {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf16>, tensor<4x3x1x1xf16>) -> tensor<1x4x8x8xf16>
  // PLACE: accel.conv
  // PLACE-NOT: host_reason
  // PLACE-SAME: accel.placement = #accel.placement<card = 0>
  %7 = accel.conv %xm, %wm {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x64x8x8xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x8x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<1x4x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x8x8xf16>, tensor<1x64x8x8xf32>
}

// -----

// The general kernel on a dilated 3x3 (dilation 2, pads 2) with bias and
// relu: the bias row into the VRF; the f32 input staging zeroed once (one
// fill row per 64-byte aligned slot); per channel (last slot first) one DMA
// of the band's 8 input rows into the
// padded plane (row pitch 12 = 2 + 8 + 2 floats, horizontal zero border by
// the DMA: pl/pr) and v.fills of the 2 zero rows above and below; the
// weight tile (8
// filters x 36 taps, a plain copy of the weight rows) into the MRF; one
// strided v.mov per tap gathers the patch matrix (92 GEMM rows: 8 output
// rows at a virtual pitch of 12, the last row only 8 wide; the taps step
// 2 elements and 2 rows); one mm m = 92, k = 36, n = 8; bias (bcast = row),
// relu; a compaction of the 8 valid pixels of each row; and a transposing
// store (one element per DMA row, filters a plane apart).
// CHECK-LABEL: npu.program @dilated_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 8 y = 1 z = 1 sy = 32 dpitch = 32
// CHECK-NEXT: npu.v.fill acc[{{0x[0-9a-f]+}}], f32 rows = 4 cols = 156 dpitch = 640
// CHECK-COUNT-3: npu.dma.ld acc[{{0x[0-9a-f]+}}], dram[{{0x[0-9a-f]+}}], f32 x = 8 y = 8 z = 1 sy = 32 dpitch = 48 pl = 2 pr = 2
// CHECK: npu.dma.ld acc[{{0x[0-9a-f]+}}], dram[{{0x[0-9a-f]+}}], f32 x = 8 y = 8 z = 1 sy = 32 dpitch = 48 pl = 2 pr = 2
// CHECK-NEXT: npu.v.fill acc[[[ORIGIN0:0x[0-9a-f]+]]], f32 rows = 2 cols = 12 dpitch = 48
// CHECK-NEXT: npu.v.fill acc[{{0x[0-9a-f]+}}], f32 rows = 2 cols = 12 dpitch = 48
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 36 y = 8 z = 1 sy = 144 dpitch = 144
// CHECK-NEXT: npu.v.mov vrf[[[A:0x[0-9a-f]+]]], acc[[[ORIGIN0]]], f32, f32 rows = 92 cols = 1 dpitch = 256 apitch = 4
// CHECK-COUNT-35: npu.v.mov vrf[{{0x[0-9a-f]+}}], acc[{{0x[0-9a-f]+}}], f32, f32 rows = 92 cols = 1 dpitch = 256 apitch = 4
// CHECK-NEXT: npu.mm acc[0x0], vrf[[[A]]], mrf[0x0], f32, f32, f32 m = 92 k = 36 n = 8 dpitch = 32 apitch = 256
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[0x0], f32, f32, f32 rows = 92 cols = 8 {{.*}} bcast = row
// CHECK-NEXT: npu.v.relu acc[0x0], acc[0x0], f32, f32 rows = 92 cols = 8 dpitch = 32 apitch = 32
// CHECK-NEXT: npu.v.mov vrf[[[A]]], acc[0x0], f32, f32 rows = 8 cols = 64 dpitch = 256 apitch = 384
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], vrf[[[A]]], f32 x = 1 y = 8 z = 64 dy = 256 dz = 4 spitch = 4
// CHECK-NEXT: npu.halt
func.func @dilated(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, activation = #accel.act<relu>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// f16 through the general kernel (a 1-D conv, k = 3, pads 1): the f16 bias
// is widened to f32 once; each staged f16 row (DMA bit copy; channel 1 starts
// at an odd 32-byte row, so its DMA starts one row early into the guard row;
// every slot has a spare zero row for the column phases; the two f16 staging
// slots alternate) is converted to f32 for the gathers (last slot first);
// the patch matrices are zeroed once (mm reads their unused columns). The 16 output columns are split into 3
// phases (j mod 3: 6 GEMM rows each), so one copy per phase gathers a whole
// kernel row (3 taps, source step 3 elements). The f32 patch matrix is
// converted to f16 for mm f16 x f16 -> f32; the compaction re-interleaves
// the phases (6, 5, 5 columns, destination step 3 pixels) while converting
// the result to f16 for the store.
// CHECK-LABEL: npu.program @conv1d_f16_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f16 x = 8 y = 1 z = 1 sy = 16 dpitch = 16
// CHECK-NEXT: npu.v.cvt vrf[[[BIAS:0x[0-9a-f]+]]], vrf[0x0], f32, f16 rows = 1 cols = 8
// CHECK-NEXT: npu.v.fill acc[{{0x[0-9a-f]+}}], f32 rows = 4 cols = 54 dpitch = 256
// CHECK-NEXT: npu.v.fill acc[{{0x[0-9a-f]+}}], f16 rows = 2 cols = 54 dpitch = 128
// CHECK-NEXT: npu.v.fill vrf[{{0x[0-9a-f]+}}], f32 rows = 18 cols = 64 dpitch = 256
// CHECK-NEXT: npu.v.fill vrf[{{0x[0-9a-f]+}}], f16 rows = 18 cols = 64 dpitch = 128
// CHECK-NEXT: npu.dma.ld acc[{{0x[0-9a-f]+}}], dram[{{0x[0-9a-f]+}}], f16 x = 16 y = 2 z = 1 sy = 32 dpitch = 36 pl = 1 pr = 1
// CHECK-NEXT: npu.v.cvt acc[{{0x[0-9a-f]+}}], acc[{{0x[0-9a-f]+}}], f32, f16 rows = 1 cols = 18 dpitch = 72 apitch = 36
// CHECK-NEXT: npu.dma.ld acc[{{0x[0-9a-f]+}}], dram[{{0x[0-9a-f]+}}], f16 x = 16 y = 1 z = 1 sy = 32 dpitch = 36 pl = 1 pr = 1
// CHECK: npu.dma.ld mrf[0x0], dram[{{0x[0-9a-f]+}}], f16 x = 12 y = 8 z = 1 sy = 24 dpitch = 24
// CHECK-NEXT: npu.v.mov vrf[[[A32:0x[0-9a-f]+]]], acc[[[X0:0x[0-9a-f]+]]], f32, f32 rows = 6 cols = 3 dpitch = 256 apitch = 12
// CHECK-COUNT-11: npu.v.mov vrf[{{0x[0-9a-f]+}}], acc[{{0x[0-9a-f]+}}], f32, f32 rows = 6 cols = 3 dpitch = 256 apitch = 12
// CHECK-NEXT: npu.v.cvt vrf[[[A16:0x[0-9a-f]+]]], vrf[[[A32]]], f16, f32 rows = 18 cols = 12 dpitch = 128 apitch = 256
// CHECK-NEXT: npu.mm acc[0x0], vrf[[[A16]]], mrf[0x0], f32, f16, f16 m = 18 k = 12 n = 8 dpitch = 32 apitch = 128
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[[[BIAS]]], f32, f32, f32 rows = 18 cols = 8 {{.*}} bcast = row
// CHECK-NEXT: npu.v.cvt vrf[[[OUT:0x[0-9a-f]+]]], acc[0x0], f16, f32 rows = 6 cols = 8 dpitch = 48 apitch = 32
// CHECK-NEXT: npu.v.cvt vrf[{{0x[0-9a-f]+}}], acc[0xc0], f16, f32 rows = 5 cols = 8 dpitch = 48 apitch = 32
// CHECK-NEXT: npu.v.cvt vrf[{{0x[0-9a-f]+}}], acc[0x180], f16, f32 rows = 5 cols = 8 dpitch = 48 apitch = 32
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], vrf[[[OUT]]], f16 x = 1 y = 8 z = 16 dy = 32 dz = 2 spitch = 2
// CHECK-NEXT: npu.halt
func.func @conv1d_f16(%x: tensor<1x4x16xf16>, %w: tensor<8x4x3xf16>, %b: tensor<8xf16>) -> tensor<1x8x16xf16> {
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1>} : (tensor<1x4x16xf16>, tensor<8x4x3xf16>, tensor<8xf16>) -> tensor<1x8x16xf16>
  return %0 : tensor<1x8x16xf16>
}

// -----

// What the general kernel cannot represent stays on the host with the
// reason: groups of more than N filters (stored one filter tile at a time; here one filter, as the
// 18-tap weight rows are loaded skewed) whose output planes (5x5 f32, 100
// bytes) start at unaligned DRAM addresses, and integer convolutions. (Groups of at most N filters are
// stored in runs of groups, so only run starts need aligned planes.)
// PLACE-LABEL: func.func @refused
func.func @refused(%x7: tensor<1x4x7x7xf32>, %wd: tensor<200x2x3x3xf32>, %xi: tensor<1x3x8x8xi8>, %wi: tensor<4x3x3x3xi8>) -> (tensor<1x200x5x5xf32>, tensor<1x4x6x6xi8>) {
  // PLACE: accel.conv
  // PLACE-SAME: accel.host_reason = "the output plane of filter 1 starts at an unaligned DRAM address"
  // PLACE-SAME: accel.placement = #accel.placement<card = -1>
  %0 = accel.conv %x7, %wd {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x7x7xf32>, tensor<200x2x3x3xf32>) -> tensor<1x200x5x5xf32>
  // PLACE: accel.conv
  // PLACE-SAME: accel.host_reason = "conv runs on the card in f32, f16 or bf16 only"
  // PLACE-SAME: accel.placement = #accel.placement<card = -1>
  %1 = accel.conv %xi, %wi {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>) -> tensor<1x4x6x6xi8>
  return %0, %1 : tensor<1x200x5x5xf32>, tensor<1x4x6x6xi8>
}

// -----

// A matrix unit without the convolution's type keeps it on the host: the
// brainwave-like target multiplies f16 but not bf16.
// BRAINWAVE-LABEL: func.func @matrix_modes
func.func @matrix_modes(%xh: tensor<1x4x8x8xf16>, %wh: tensor<8x4x3x3xf16>, %xb: tensor<1x4x8x8xbf16>, %wb: tensor<8x4x3x3xbf16>) -> (tensor<1x8x8x8xf16>, tensor<1x8x8x8xbf16>) {
  // BRAINWAVE: accel.conv
  // BRAINWAVE-NOT: host_reason
  // BRAINWAVE-SAME: accel.placement = #accel.placement<card = 0>
  %0 = accel.conv %xh, %wh {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf16>, tensor<8x4x3x3xf16>) -> tensor<1x8x8x8xf16>
  // BRAINWAVE: accel.conv
  // BRAINWAVE-SAME: accel.host_reason = "the target's matrix unit has no bf16 mode"
  // BRAINWAVE-SAME: accel.placement = #accel.placement<card = -1>
  %1 = accel.conv %xb, %wb {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xbf16>, tensor<8x4x3x3xbf16>) -> tensor<1x8x8x8xbf16>
  return %0, %1 : tensor<1x8x8x8xf16>, tensor<1x8x8x8xbf16>
}

// -----

// int8 dense convs run on the implicit GEMM (QuantizedGemmConvKernel.cpp).
// A 3x3 conv of a u8 input with zero point 3 (6 channels, staged 8 bytes a
// pixel), per-channel scales, an i32 bias and a fused ReLU, real result.
// The weights (8 x 6 x 3 x 3, taps innermost) go to ACC in one DMA and are
// scattered to SHARED tap by tap (one element per DMA row: tap t of pair
// (filter, channel) p to p + 64 t), then one MRF tile per tap (8 filters x
// 6 channels). Bands of 2 output rows (an aligned f32 result row is 2
// rows): the input rows a band reads are DMAed transposed, [pixels x 8]
// (24 pixels: rows 0-2), the next band's while this one multiplies. Per
// output row, one mm per tap that reads inside the image, A straight from
// the staged pixels (apitch = one pixel): the centre tap (all 8 columns)
// writes the sums, the taps reading the padding skip those columns
// (m = 7) and accumulate; mm subtracts the zero point (azp = 3). Then the
// i32 bias chained into v.dqnt per channel, the ReLU, and a transposing
// store of the band's 16 pixels x 8 planes. The 8 per-channel scales are a
// constant of the partition (accel.kernel_constants), one DMA behind the
// bias instead of 8 fills.
// CHECK-LABEL: npu.program @int8_3x3_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[[[PLAIN:0x[0-9a-f]+]]], dram[{{0x[0-9a-f]+}}], i8 x = 432 y = 1 z = 1
// CHECK-NEXT: npu.sync ex
// CHECK-NEXT: npu.dma.st shared[0x0], acc[[[PLAIN]]], i8 x = 1 y = 9 z = 48 dy = 64 dz = 1 spitch = 1
// CHECK-NEXT: npu.dma.ld vrf[[[X0:0x[0-9a-f]+]]], dram[{{0x[0-9a-f]+}}], u8 x = 1 y = 6 z = 24 sy = 64 sz = 1 dpitch = 1 pb = 2
// CHECK-NEXT: npu.dma.ld vrf[[[BIAS:0x[0-9a-f]+]]], dram[{{0x[0-9a-f]+}}], i32 x = 8
// CHECK-NEXT: npu.dma.ld vrf[{{0x[0-9a-f]+}}], dram[{{0x[0-9a-f]+}}], f32 x = 8 y = 1
// CHECK-NOT: npu.v.fill vrf[{{0x[0-9a-f]+}}], f32 rows = 1 cols = 1 imm
// CHECK: npu.dma.ld mrf[0x0], shared[0x0], i8 x = 6 y = 8 z = 1 sy = 6 dpitch = 6
// CHECK-COUNT-8: npu.dma.ld mrf[{{0x[0-9a-f]+}}], shared[{{0x[0-9a-f]+}}], i8 x = 6 y = 8 z = 1 sy = 6 dpitch = 6
// CHECK-NEXT: npu.dma.ld vrf[{{0x[0-9a-f]+}}], dram[{{0x[0-9a-f]+}}], u8 x = 1 y = 6 z = 40 sy = 64 sz = 1 dpitch = 1 pb = 2
// CHECK-NEXT: npu.mm acc[0x0], vrf[[[X0]]], mrf[0x100], i32, u8, i8 m = 8 k = 6 n = 8 dpitch = 32 apitch = 8 azp = 3
// CHECK-NEXT: npu.mm acc[0x20], vrf[[[X0]]], mrf[0xc0], i32, u8, i8 m = 7 k = 6 n = 8 dpitch = 32 apitch = 8 acc = 1 azp = 3
// CHECK-COUNT-4: npu.mm acc[{{0x[0-9a-f]+}}], vrf[{{0x[0-9a-f]+}}], mrf[{{0x[0-9a-f]+}}], i32, u8, i8 m = {{[78]}} k = 6 n = 8 dpitch = 32 apitch = 8 acc = 1 azp = 3
// CHECK-NEXT: npu.mm acc[0x100], vrf[[[X0]]], mrf[0x40], i32, u8, i8 m = 8 k = 6 n = 8 dpitch = 32 apitch = 8 azp = 3
// CHECK-COUNT-8: npu.mm acc[{{0x[0-9a-f]+}}], vrf[{{0x[0-9a-f]+}}], mrf[{{0x[0-9a-f]+}}], i32, u8, i8 m = {{[78]}} k = 6 n = 8 dpitch = 32 apitch = 8 acc = 1 azp = 3
// CHECK-NEXT: npu.v.add chain, acc[0x0], vrf[[[BIAS]]], i32, i32, i32 rows = 16 cols = 8 {{.*}} bcast = row chain
// CHECK-NEXT: npu.v.dqnt acc[[[Y:0x[0-9a-f]+]]], chain, vrf[{{0x[0-9a-f]+}}], f32, i32 rows = 16 cols = 8 {{.*}} perch = 1
// CHECK-NEXT: npu.v.relu acc[[[Y]]], acc[[[Y]]], f32, f32 rows = 16 cols = 8
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[[[Y]]], f32 x = 1 y = 8 z = 16 dy = 256 dz = 4 spitch = 4
func.func @int8_3x3(%x: tensor<1x6x8x8x!quant.uniform<u8:f32, 0.1:3>>, %w: tensor<8x6x3x3x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02}>>, %b: tensor<8x!quant.uniform<i32:f32:0, {0.001, 0.002, 0.001, 0.002, 0.001, 0.002, 0.001, 0.002}>>) -> tensor<1x8x8x8xf32> {
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>} : (tensor<1x6x8x8x!quant.uniform<u8:f32, 0.1:3>>, tensor<8x6x3x3x!quant.uniform<i8:f32:0, {0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02}>>, tensor<8x!quant.uniform<i32:f32:0, {0.001, 0.002, 0.001, 0.002, 0.001, 0.002, 0.001, 0.002}>>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// Stride 2, an i8 input, one weight scale, requantized to i8 without
// activation: A rows two pixels apart (apitch = 16), output row 0's left
// tap skips column 0 (m = 3), and the sums go to i8 in one v.rqnt by
// x_scale * w_scale / y_scale. The 4x4 i8 result is one band (a 4-byte
// result row cannot start a band at an aligned address).
// CHECK-LABEL: npu.program @int8_3x3_s2_p0_card0_core0
// CHECK: npu.dma.ld vrf[[[X:0x[0-9a-f]+]]], dram[{{0x[0-9a-f]+}}], i8 x = 1 y = 6 z = 64 sy = 64 sz = 1 dpitch = 1 pb = 2
// CHECK-NEXT: npu.v.fill vrf[[[SCALE:0x[0-9a-f]+]]], f32 rows = 1 cols = 1 imm = 2.000000e-02
// CHECK: npu.mm acc[0x0], vrf[[[X]]], mrf[0x100], i32, i8, i8 m = 4 k = 6 n = 8 dpitch = 32 apitch = 16
// CHECK-NEXT: npu.mm acc[0x20], vrf[{{0x[0-9a-f]+}}], mrf[0xc0], i32, i8, i8 m = 3 k = 6 n = 8 dpitch = 32 apitch = 16 acc = 1
// CHECK: npu.v.rqnt acc[[[Q:0x[0-9a-f]+]]], acc[0x0], vrf[[[SCALE]]], i8, i32 rows = 16 cols = 8 dpitch = 8 apitch = 32
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[[[Q]]], i8 x = 1 y = 8 z = 16 dy = 16 dz = 1 spitch = 1
// CHECK-NEXT: npu.halt
func.func @int8_3x3_s2(%x: tensor<1x6x8x8x!quant.uniform<i8:f32, 0.1>>, %w: tensor<8x6x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x8x4x4x!quant.uniform<i8:f32, 0.05>> {
  %0 = accel.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x6x8x8x!quant.uniform<i8:f32, 0.1>>, tensor<8x6x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x8x4x4x!quant.uniform<i8:f32, 0.05>>
  return %0 : tensor<1x8x4x4x!quant.uniform<i8:f32, 0.05>>
}

// -----

// int8 convs the card's int8 kernels do not take run on the host, saying
// why: a grouped conv that is not depthwise, a 3-D one, a depthwise conv
// whose input has a zero point (its padding would be the stored 0), and a
// real conv quantizing its result that is no strided stem.
// PLACE-LABEL: func.func @int8_host
func.func @int8_host(%x: tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1>>, %w: tensor<4x2x3x3x!quant.uniform<i8:f32, 0.01>>, %xz: tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1:3>>, %wd: tensor<4x1x3x3x!quant.uniform<i8:f32, 0.01>>, %xf: tensor<1x4x6x6xf32>, %w1: tensor<4x4x1x1xf32>, %x3: tensor<1x4x4x6x6x!quant.uniform<u8:f32, 0.1>>, %w3: tensor<4x4x3x3x3x!quant.uniform<i8:f32, 0.01>>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1>>, tensor<1x4x2x4x4xf32>) {
  // PLACE: accel.conv
  // PLACE-SAME: accel.host_reason = "grouped int8 convolutions run on the card as depthwise k x k ones only (k = 3, 5, 7, same padding, stride 1 or 2, no dilation)"
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1>>, tensor<4x2x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x4x6x6xf32>
  // PLACE: accel.conv
  // PLACE-SAME: accel.host_reason = "an int8 depthwise convolution needs input zero point 0 (its padding is the stored 0)"
  %1 = accel.conv %xz, %wd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1:3>>, tensor<4x1x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x4x6x6xf32>
  // PLACE: accel.conv
  // PLACE-SAME: accel.host_reason = "a real convolution quantizes its result on the card only as a strided stem (few channels and filters, stride > 1, same padding), to i8 or u8"
  %2 = accel.conv %xf, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1>>
  // PLACE: accel.conv
  // PLACE-SAME: accel.host_reason = "int8 convolutions run on the card in 1-D and 2-D with static shapes only"
  %3 = accel.conv %x3, %w3 {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x4x4x6x6x!quant.uniform<u8:f32, 0.1>>, tensor<4x4x3x3x3x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x4x2x4x4xf32>
  return %0, %1, %2, %3 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6x!quant.uniform<u8:f32, 0.1>>, tensor<1x4x2x4x4xf32>
}
