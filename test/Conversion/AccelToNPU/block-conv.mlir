// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float,accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{format=mxint8},accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s --check-prefix=MX
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float,accel-assign-placement))' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=PLACE

// 1x1 convolutions with block-float weights (accel-quantize-block-float) on
// the matrix unit (PointwiseConvKernel.cpp): the pixels are the rows. The
// bias into the VRF; a block of pixels transposed into ACC by the DMA (one
// element per row, a plane per pixel: 64 rows of 32 channels); the weight
// rows (24 filters x 32 channels of msfp8, 18 bytes a row) into the MRF;
// mm with the f32 pixels as `a` and the msfp8 weight as `w` (k = k_tile =
// 32); the bias per column (bcast = row), relu, and a transposing store
// (one element per row: filters a plane apart, pixels an element apart).
// CHECK-LABEL: npu.program @pointwise_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 24 y = 1 z = 1 sy = 96 dpitch = 96
// CHECK-NEXT: npu.dma.ld acc[0x3000], dram[{{0x[0-9a-f]+}}], f32 x = 1 y = 32 z = 64 sy = 256 sz = 4 dpitch = 4
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[{{0x[0-9a-f]+}}], msfp8 x = 32 y = 24 z = 1 sy = 18 dpitch = 18 push_next
// CHECK-NEXT: npu.mm acc[0x0], acc[0x3000], mrf[0x0], f32, f32, msfp8 m = 64 k = 32 n = 24 dpitch = 96 apitch = 128 pop_prev
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[0x0], f32, f32, f32 rows = 64 cols = 24 dpitch = 96 apitch = 96 bpitch = 96 bcast = row
// CHECK-NEXT: npu.v.relu acc[0x0], acc[0x0], f32, f32 rows = 64 cols = 24 dpitch = 96 apitch = 96 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x0], f32 x = 1 y = 24 z = 64 dy = 256 dz = 4 spitch = 4 pop_prev
// CHECK-NEXT: npu.halt
// MX-LABEL: npu.program @pointwise_p0_card0_core0
// MX: npu.dma.ld mrf[0x0], dram[{{0x[0-9a-f]+}}], mxint8 x = 32 y = 24 z = 1 sy = 33 dpitch = 33 push_next
// MX-NEXT: npu.mm acc[0x0], acc[0x3000], mrf[0x0], f32, f32, mxint8 m = 64 k = 32 n = 24 dpitch = 96 apitch = 128 pop_prev
// PLACE-LABEL: func.func @pointwise
// PLACE: accel.conv {{.*}}accel.placement = #accel.placement<card = 0>{{.*}}tensor<24x32x!accel.bfp<msfp8>>
func.func @pointwise(%x: tensor<1x32x8x8xf32>, %b: tensor<24xf32>) -> tensor<1x24x8x8xf32> {
  %w = accel.constant dense<0.5> : tensor<24x32x1x1xf32>
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>} : (tensor<1x32x8x8xf32>, tensor<24x32x1x1xf32>, tensor<24xf32>) -> tensor<1x24x8x8xf32>
  return %0 : tensor<1x24x8x8xf32>
}

// -----

// Strided (2x2) with 80 filters of 96 channels: the input subsampled into
// SHARED first, then read from there. K = 96 is two k tiles of 48 (27
// bytes a row in msfp8). The first group of 64 filter rows loads all its
// tiles with one DMA, a plane per tile (64 x 27 bytes: MRF-aligned); the
// last group of 16 rows would start its second tile at byte 432 of the MRF,
// so it goes through SHARED: one DMA lays the tiles out with 64-byte rows,
// then one DMA per tile moves each dense to an aligned MRF slot.
// CHECK-LABEL: npu.program @staged_p0_card0_core0
// CHECK-NEXT: npu.dma.ld shared[0x0], dram[{{0x[0-9a-f]+}}], f32 x = 1 y = 2 z = 192 sy = 8 sz = 32 dpitch = 4
// CHECK-NEXT: npu.dma.ld acc[0x800], shared[0x0], f32 x = 1 y = 96 z = 4 sy = 16 sz = 4 dpitch = 4
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[{{0x[0-9a-f]+}}], msfp8 x = 48 y = 64 z = 2 sy = 54 sz = 27 dpitch = 27 push_next
// CHECK-NEXT: npu.mm acc[0x0], acc[0x800], mrf[0x0], f32, f32, msfp8 m = 4 k = 48 n = 64 dpitch = 256 apitch = 384 pop_prev
// CHECK-NEXT: npu.mm acc[0x0], acc[0x8c0], mrf[0x6c0], f32, f32, msfp8 m = 4 k = 48 n = 64 dpitch = 256 apitch = 384 acc = 1 push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x0], f32 x = 1 y = 64 z = 4 dy = 16 dz = 4 spitch = 4 pop_prev
// CHECK-NEXT: npu.dma.ld shared[0x600], dram[{{0x[0-9a-f]+}}], msfp8 x = 48 y = 16 z = 2 sy = 54 sz = 27 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0xd80], shared[0x600], msfp8 x = 48 y = 16 z = 1 sy = 64 dpitch = 27 push_next
// CHECK-NEXT: npu.dma.ld mrf[0xf40], shared[0xa00], msfp8 x = 48 y = 16 z = 1 sy = 64 dpitch = 27 push_next
// CHECK-NEXT: npu.mm acc[0x400], acc[0x800], mrf[0xd80], f32, f32, msfp8 m = 4 k = 48 n = 16 dpitch = 64 apitch = 384 pop_prev
// CHECK-NEXT: npu.mm acc[0x400], acc[0x8c0], mrf[0xf40], f32, f32, msfp8 m = 4 k = 48 n = 16 dpitch = 64 apitch = 384 acc = 1 pop_prev push_next
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], acc[0x400], f32 x = 1 y = 16 z = 4 dy = 16 dz = 4 spitch = 4 pop_prev
// CHECK-NEXT: npu.halt
// MX-LABEL: npu.program @staged_p0_card0_core0
// MX: npu.mm acc[0x0], acc[0x800], mrf[0x0], f32, f32, mxint8 m = 4 k = 32 n = 64
// MX-NEXT: npu.mm acc[0x0], acc[0x880], mrf[{{0x[0-9a-f]+}}], f32, f32, mxint8 m = 4 k = 32 n = 64 {{.*}}acc = 1
// MX-NEXT: npu.mm acc[0x0], acc[0x900], mrf[{{0x[0-9a-f]+}}], f32, f32, mxint8 m = 4 k = 32 n = 64 {{.*}}acc = 1
func.func @staged(%x: tensor<1x96x4x4xf32>) -> tensor<1x80x2x2xf32> {
  %w = accel.constant dense<0.5> : tensor<80x96x1x1xf32>
  %0 = accel.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x96x4x4xf32>, tensor<80x96x1x1xf32>) -> tensor<1x80x2x2xf32>
  return %0 : tensor<1x80x2x2xf32>
}

// -----

// A 3x3 conv on the implicit GEMM (GemmConvKernel.cpp): the patch matrix
// gathered in f32 as for an f32 conv, the weight's k tiles (K = 16 x 9 =
// 144: three tiles of 48, 27 bytes a row) resident in the MRF. 20 rows of
// 27 bytes would put the second tile at an unaligned MRF byte, so the
// tiles go through SHARED (one DMA, 64-byte rows) and one DMA each into
// aligned MRF slots; mm with wt = msfp8 accumulates the tiles.
// CHECK-LABEL: npu.program @gemm_p0_card0_core0
// CHECK: npu.dma.ld shared[0x0], dram[{{0x[0-9a-f]+}}], msfp8 x = 48 y = 20 z = 3 sy = 81 sz = 27 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x0], shared[0x0], msfp8 x = 48 y = 20 z = 1 sy = 64 dpitch = 27
// CHECK-NEXT: npu.dma.ld mrf[0x240], shared[0x500], msfp8 x = 48 y = 20 z = 1 sy = 64 dpitch = 27
// CHECK-NEXT: npu.dma.ld mrf[0x480], shared[0xa00], msfp8 x = 48 y = 20 z = 1 sy = 64 dpitch = 27
// CHECK: npu.mm acc[0x0], vrf[0x80], mrf[0x0], f32, f32, msfp8 m = 51 k = 48 n = 20 dpitch = 80 apitch = 256
// CHECK: npu.mm acc[0x0], vrf[0x80], mrf[0x240], f32, f32, msfp8 m = 51 k = 48 n = 20 dpitch = 80 apitch = 256 acc = 1
// CHECK: npu.mm acc[0x0], vrf[0x80], mrf[0x480], f32, f32, msfp8 m = 51 k = 48 n = 20 dpitch = 80 apitch = 256 acc = 1
// CHECK: npu.halt
// In mxint8 K = 144 is not whole blocks of 32: the conv stays f32.
// MX-LABEL: npu.program @gemm_p0_card0_core0
// MX: npu.mm {{.*}}, f32, f32, f32 m = 51 k = 64 n = 20
// PLACE-LABEL: func.func @gemm
// PLACE: accel.conv {{.*}}accel.placement = #accel.placement<card = 0>{{.*}}kernel_shape = array<i64: 3, 3>{{.*}}tensor<20x144x!accel.bfp<msfp8>>
func.func @gemm(%x: tensor<1x16x6x6xf32>, %b: tensor<20xf32>) -> tensor<1x20x6x6xf32> {
  %w = accel.constant dense<0.5> : tensor<20x16x3x3xf32>
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x16x6x6xf32>, tensor<20x16x3x3xf32>, tensor<20xf32>) -> tensor<1x20x6x6xf32>
  return %0 : tensor<1x20x6x6xf32>
}

// -----

// A 1x1 conv with padding runs on the implicit GEMM too.
// PLACE-LABEL: func.func @padded
// PLACE: accel.conv {{.*}}accel.placement = #accel.placement<card = 0>{{.*}}pads = array<i64: 1, 1, 1, 1>{{.*}}tensor<16x32x!accel.bfp<msfp8>>
func.func @padded(%x: tensor<1x32x4x4xf32>) -> tensor<1x16x6x6xf32> {
  %w = accel.constant dense<0.5> : tensor<16x32x1x1xf32>
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x32x4x4xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}
