// RUN: nnaccel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-split-ops,accel-place))' \
// RUN:   | FileCheck %s --check-prefix=SPLIT
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory --accel-lower-to-npu | FileCheck %s

// The int8 1x1 conv kernel (QuantizedPointwiseConvKernel.cpp) on several
// cores as one unit: each core computes a contiguous range of whole DMA
// alignment steps (64 pixels) of every filter's plane, with all filters.
//
// accel-split-ops asks the kernel how many cores pay (its own cycle
// estimates): 576 pixels of 96 channels go to 3 cores (192 pixels each;
// a 4th would get the same 192 and add nothing); 36 pixels are less than
// one alignment step, so that conv is left to the splitter, which keeps
// it whole, and accel-place runs it on core 3 alongside.
// SPLIT-LABEL: func.func @choice
// SPLIT: accel.conv {{.*}}cores = [0, 1, 2]>
// SPLIT: accel.conv {{.*}}cores = [3]>
func.func @choice(%x: tensor<1x96x24x24x!quant.uniform<u8:f32, 0.1:3>>, %w: tensor<16x96x1x1x!quant.uniform<i8:f32, 0.01>>, %y: tensor<1x96x6x6x!quant.uniform<u8:f32, 0.1:3>>) -> (tensor<1x16x24x24x!quant.uniform<i8:f32, 0.05>>, tensor<1x16x6x6x!quant.uniform<i8:f32, 0.05>>) {
  %0:2 = accel.card_partition(%x, %w, %y) {card = 0 : i64} : (tensor<1x96x24x24x!quant.uniform<u8:f32, 0.1:3>>, tensor<16x96x1x1x!quant.uniform<i8:f32, 0.01>>, tensor<1x96x6x6x!quant.uniform<u8:f32, 0.1:3>>) -> (tensor<1x16x24x24x!quant.uniform<i8:f32, 0.05>>, tensor<1x16x6x6x!quant.uniform<i8:f32, 0.05>>) {
  ^bb0(%a: tensor<1x96x24x24x!quant.uniform<u8:f32, 0.1:3>>, %aw: tensor<16x96x1x1x!quant.uniform<i8:f32, 0.01>>, %ay: tensor<1x96x6x6x!quant.uniform<u8:f32, 0.1:3>>):
    %1 = accel.conv %a, %aw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x96x24x24x!quant.uniform<u8:f32, 0.1:3>>, tensor<16x96x1x1x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x16x24x24x!quant.uniform<i8:f32, 0.05>>
    %2 = accel.conv %ay, %aw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x96x6x6x!quant.uniform<u8:f32, 0.1:3>>, tensor<16x96x1x1x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x16x6x6x!quant.uniform<i8:f32, 0.05>>
    accel.yield %1, %2 : tensor<1x16x24x24x!quant.uniform<i8:f32, 0.05>>, tensor<1x16x6x6x!quant.uniform<i8:f32, 0.05>>
  }
  return %0#0, %0#1 : tensor<1x16x24x24x!quant.uniform<i8:f32, 0.05>>, tensor<1x16x6x6x!quant.uniform<i8:f32, 0.05>>
}

// -----

// Pixels as rows (u8 input), 256 pixels on 4 cores: core i loads the X^T
// rows of pixels [64i, 64i + 64) (input + 64i), all 96 filters' weights,
// and stores its pixels of every plane (output 0x1780 + 64i). 96 filters x
// 64 pixels are more rows than the race detector checks one by one (4096),
// so the results are kept and stored in blocks of 64 and 32 filters (64 x
// 64 at ACC 0x0, 64 x 32 at 0x1000; filter 64's plane at 0x1780 + 64 x
// 256 = 0x5780).
// CHECK-LABEL: npu.program @pixel_rows4_p0_card0_core0
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x1000], i8 x = 16 y = 96
// CHECK-NEXT: npu.dma.ld vrf[0x1c0], dram[0x0], u8 x = 1 y = 16 z = 64 sy = 256 sz = 1
// CHECK: npu.mm acc[0x3000], vrf[0x1c0], mrf[0x0], i32, u8, i8 m = 64 k = 16 n = 64 {{.*}}azp = 3
// CHECK: npu.v.rqnt acc[0x0], acc[0x3000], {{.*}} rows = 64 cols = 64 dpitch = 64
// CHECK-NEXT: npu.mm acc[0x7000], vrf[0x1c0], mrf[0x400], i32, u8, i8 m = 64 k = 16 n = 32
// CHECK: npu.v.rqnt acc[0x1000], acc[0x7000], {{.*}} rows = 64 cols = 32 dpitch = 32
// CHECK-NEXT: npu.dma.st dram[0x1780], acc[0x0], u8 x = 1 y = 64 z = 64 dy = 256 dz = 1 spitch = 1
// CHECK-NEXT: npu.dma.st dram[0x5780], acc[0x1000], u8 x = 1 y = 32 z = 64 dy = 256 dz = 1 spitch = 1
// CHECK-NEXT: npu.halt
func.func @pixel_rows4(%x: tensor<1x16x16x16x!quant.uniform<u8:f32, 0.1:3>>, %w: tensor<96x16x1x1x!quant.uniform<i8:f32, 0.01>>, %b: tensor<96x!quant.uniform<i32:f32, 0.001>>) -> tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>> {
  %0 = accel.card_partition(%x, %w, %b) {card = 0 : i64} : (tensor<1x16x16x16x!quant.uniform<u8:f32, 0.1:3>>, tensor<96x16x1x1x!quant.uniform<i8:f32, 0.01>>, tensor<96x!quant.uniform<i32:f32, 0.001>>) -> tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>> {
  ^bb0(%a: tensor<1x16x16x16x!quant.uniform<u8:f32, 0.1:3>>, %aw: tensor<96x16x1x1x!quant.uniform<i8:f32, 0.01>>, %ab: tensor<96x!quant.uniform<i32:f32, 0.001>>):
    %1 = accel.conv %a, %aw, %ab {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>, accel.placement = #accel.placement<card = 0, cores = [0, 1, 2, 3]>} : (tensor<1x16x16x16x!quant.uniform<u8:f32, 0.1:3>>, tensor<96x16x1x1x!quant.uniform<i8:f32, 0.01>>, tensor<96x!quant.uniform<i32:f32, 0.001>>) -> tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>>
    accel.yield %1 : tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>>
  }
  return %0 : tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>>
}

// -----

// Filters as rows (i8 input, zero point 0; 128 channels, 16 filters), 256
// pixels on cores 0 and 1: the filter matrix in ACC, core i's X^T tiles of
// pixels [128i, 128i + 128) in two groups of 64 (K tiles at input + 0 and
// + 64 x 256), its rows of 64 pixels stored per plane (x = 64, y = 16) in
// SHARED, where the memory plan keeps the intermediate.
// The next conv on core 0 reads what both wrote: a barrier of the two
// cores in front of it (and core 1 meets it after its part).
// CHECK-LABEL: npu.program @filter_rows2_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x8000], i8 x = 128 y = 16
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x0], i8 x = 1 y = 64 z = 64 sy = 256
// CHECK-NEXT: npu.dma.ld mrf[0x1000], dram[0x4000], i8 x = 1 y = 64 z = 64 sy = 256
// CHECK: npu.dma.ld mrf[0x2000], dram[0x40], i8 x = 1 y = 64 z = 64
// CHECK-NEXT: npu.dma.ld mrf[0x3000], dram[0x4040], i8 x = 1 y = 64 z = 64
// CHECK: npu.mm acc[0x800], acc[0x0], mrf[0x0], i32, i8, i8 m = 16 k = 64 n = 64
// CHECK: npu.dma.st shared[0x0], acc[0x2800], i8 x = 64 y = 16 z = 1 dy = 256 spitch = 64
// CHECK: npu.dma.st shared[0x40], acc[0x2c00], i8 x = 64 y = 16 z = 1 dy = 256 spitch = 64
// CHECK-NEXT: npu.barrier mask = 3
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x8800], i8 x = 16 y = 8
// CHECK: npu.halt
// CHECK-LABEL: npu.program @filter_rows2_p0_card0_core1
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x8000], i8 x = 128 y = 16
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x80], i8 x = 1 y = 64 z = 64 sy = 256
// CHECK-NEXT: npu.dma.ld mrf[0x1000], dram[0x4080], i8 x = 1 y = 64 z = 64 sy = 256
// CHECK: npu.dma.st shared[0x80], acc[0x2800], i8 x = 64 y = 16 z = 1 dy = 256 spitch = 64
// CHECK: npu.dma.st shared[0xc0], acc[0x2c00], i8 x = 64 y = 16 z = 1 dy = 256 spitch = 64
// CHECK-NEXT: npu.barrier mask = 3
// CHECK-NEXT: npu.halt
func.func @filter_rows2(%x: tensor<1x128x16x16x!quant.uniform<i8:f32, 0.1>>, %w: tensor<16x128x1x1x!quant.uniform<i8:f32, 0.01>>, %w2: tensor<8x16x1x1x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x8x16x16xf32> {
  %0 = accel.card_partition(%x, %w, %w2) {card = 0 : i64} : (tensor<1x128x16x16x!quant.uniform<i8:f32, 0.1>>, tensor<16x128x1x1x!quant.uniform<i8:f32, 0.01>>, tensor<8x16x1x1x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x8x16x16xf32> {
  ^bb0(%a: tensor<1x128x16x16x!quant.uniform<i8:f32, 0.1>>, %aw: tensor<16x128x1x1x!quant.uniform<i8:f32, 0.01>>, %aw2: tensor<8x16x1x1x!quant.uniform<i8:f32, 0.01>>):
    %1 = accel.conv %a, %aw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.placement = #accel.placement<card = 0, cores = [0, 1]>} : (tensor<1x128x16x16x!quant.uniform<i8:f32, 0.1>>, tensor<16x128x1x1x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x16x16x16x!quant.uniform<i8:f32, 0.05>>
    %2 = accel.conv %1, %aw2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<1x16x16x16x!quant.uniform<i8:f32, 0.05>>, tensor<8x16x1x1x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x8x16x16xf32>
    accel.yield %2 : tensor<1x8x16x16xf32>
  }
  return %0 : tensor<1x8x16x16xf32>
}

// -----

// An int8 depthwise conv with whole image rows as vector rows repeats each
// tap's 16 channel weights once per pixel of a row (8 x 16 bytes) by
// doubling copies, one vector pass each, instead of one broadcast pass per
// pixel; the pixels a tap reaches past the row's edge get weight 0. The
// bias repeats the same way.
// CHECK-LABEL: npu.program @depthwise_row_view_p0_card0_core0
// CHECK: npu.v.mov vrf[0x140], vrf[0x0], i8, i8 rows = 1 cols = 16
// CHECK-NEXT: npu.v.mov vrf[0x150], vrf[0x140], i8, i8 rows = 1 cols = 16
// CHECK-NEXT: npu.v.mov vrf[0x160], vrf[0x140], i8, i8 rows = 1 cols = 32
// CHECK-NEXT: npu.v.mov vrf[0x180], vrf[0x140], i8, i8 rows = 1 cols = 64
// CHECK-NEXT: npu.v.fill vrf[0x140], i8 rows = 1 cols = 16
// CHECK-NEXT: npu.v.mov vrf[0x1c0], vrf[0x10], i8, i8 rows = 1 cols = 16
// CHECK: npu.v.mov vrf[[[BIAS:0x[0-9a-f]+]]], vrf[0xc0], i32, i32 rows = 1 cols = 16
// CHECK-NEXT: npu.v.mov vrf[{{.*}}], vrf[[[BIAS]]], i32, i32 rows = 1 cols = 16
// CHECK-NEXT: npu.v.mov vrf[{{.*}}], vrf[[[BIAS]]], i32, i32 rows = 1 cols = 32
// CHECK-NEXT: npu.v.mov vrf[{{.*}}], vrf[[[BIAS]]], i32, i32 rows = 1 cols = 64
// CHECK-NEXT: npu.v.mul {{.*}} rows = 8 cols = 128
func.func @depthwise_row_view(%x: tensor<1x16x8x8x!quant.uniform<u8:f32, 0.1>>, %w: tensor<16x1x3x3x!quant.uniform<i8:f32, 0.01>>, %b: tensor<16x!quant.uniform<i32:f32, 0.001>>) -> tensor<1x16x8x8x!quant.uniform<u8:f32, 0.05>> {
  %0 = accel.card_partition(%x, %w, %b) {card = 0 : i64} : (tensor<1x16x8x8x!quant.uniform<u8:f32, 0.1>>, tensor<16x1x3x3x!quant.uniform<i8:f32, 0.01>>, tensor<16x!quant.uniform<i32:f32, 0.001>>) -> tensor<1x16x8x8x!quant.uniform<u8:f32, 0.05>> {
  ^bb0(%a: tensor<1x16x8x8x!quant.uniform<u8:f32, 0.1>>, %wa: tensor<16x1x3x3x!quant.uniform<i8:f32, 0.01>>, %ba: tensor<16x!quant.uniform<i32:f32, 0.001>>):
    %1 = accel.conv %a, %wa, %ba {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x8x8x!quant.uniform<u8:f32, 0.1>>, tensor<16x1x3x3x!quant.uniform<i8:f32, 0.01>>, tensor<16x!quant.uniform<i32:f32, 0.001>>) -> tensor<1x16x8x8x!quant.uniform<u8:f32, 0.05>>
    accel.yield %1 : tensor<1x16x8x8x!quant.uniform<u8:f32, 0.05>>
  }
  return %0 : tensor<1x16x8x8x!quant.uniform<u8:f32, 0.05>>
}
