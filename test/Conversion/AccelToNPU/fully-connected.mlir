// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s

// A 2 x 128 x 96 layer on the default target (N = 64): the input chunk is
// loaded once, weight tiles (2 k-tiles x 2 n-tiles) alternate between two
// MRF slots, results between two ACC slots; bias and relu run in place and
// the store queue writes each output tile. Tokens order ld -> ex -> st and
// the buffer reuse back again.
// CHECK-LABEL: func.func @fc
// CHECK: accel.card_partition
// CHECK-SAME: card = 0 : i64
// CHECK-SAME: input_addresses = array<i64: 0>
// CHECK-SAME: output_addresses = array<i64: [[OUT:[0-9]+]]>
// CHECK-SAME: programs = [@fc_p0_card0_core0]
// CHECK: accel.constant {accel.dram_address = [[W:[0-9]+]] : i64}
// CHECK: accel.constant {accel.dram_address = [[B:[0-9]+]] : i64}
// CHECK: npu.program @fc_p0_card0_core0 card = 0 core = 0 target = "default"
// X: 2 rows of 128 floats, resident in the VRF.
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 128 y = 2 z = 1 sy = 512 dpitch = 512
// Both k tiles of the first output tile in one DMA (2 rows of X make the
// layer load-bound, so a group of tiles pays the DRAM latency once): two
// planes of 64 rows of 64 floats (row pitch 128 floats in DRAM, the second
// plane 64 floats to the right), one after the other in the MRF.
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[{{.*}}], f32 x = 64 y = 64 z = 2 sy = 512 sz = 256 dpitch = 256 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 2 k = 64 n = 64 dpitch = 256 apitch = 512 pop_prev
// The second k tile accumulates from the next plane.
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x100], mrf[0x4000], f32, f32, f32 m = 2 k = 64 n = 64 dpitch = 256 apitch = 512 acc = 1
// The whole bias (96 columns) is loaded once, by its first use.
// CHECK-NEXT: npu.dma.ld vrf[{{.*}}], dram[{{.*}}], f32 x = 96 y = 1 z = 1 sy = 384 dpitch = 384 push_next
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[{{.*}}], f32, f32, f32 rows = 2 cols = 64 dpitch = 256 apitch = 256 bpitch = 256 bcast = row pop_prev
// CHECK-NEXT: npu.v.relu acc[0x0], acc[0x0], f32, f32 rows = 2 cols = 64 dpitch = 256 apitch = 256 push_next
// CHECK-NEXT: npu.dma.st dram[{{.*}}], acc[0x0], f32 x = 64 y = 2 z = 1 dy = 384 spitch = 256 pop_prev
// The second output tile is 32 columns wide; its group goes to the other
// group slot (8 tiles further) and its result to the other ACC slot.
// CHECK: npu.dma.ld mrf[0x20000], dram[{{.*}}], f32 x = 64 y = 32 z = 2 sy = 512 sz = 256 dpitch = 256
// CHECK: npu.mm acc[0x{{[0-9a-f]+}}], vrf[0x0], mrf[0x20000], f32, f32, f32 m = 2 k = 64 n = 32
// CHECK: npu.dma.st dram[{{.*}}], acc[0x{{[0-9a-f]+}}], f32 x = 32 y = 2 z = 1 dy = 384 spitch = 128
// CHECK: npu.halt
func.func @fc(%x: tensor<2x128xf32>) -> tensor<2x96xf32> {
  %w = accel.constant dense<0.5> : tensor<96x128xf32>
  %b = accel.constant dense<1.0> : tensor<96xf32>
  %0 = accel.fully_connected %x, %w, %b {transpose_weight = true, activation = #accel.act<relu>} : (tensor<2x128xf32>, tensor<96x128xf32>, tensor<96xf32>) -> tensor<2x96xf32>
  return %0 : tensor<2x96xf32>
}

// -----

// A K x N weight is transposed at compile time into an N x K constant; a
// chain of layers passes its intermediate through DRAM, and the second
// layer's input load waits for the first layer's store (relayed via ex).
// CHECK-LABEL: func.func @chain
// CHECK: accel.constant {accel.dram_address = {{[0-9]+}} : i64} dense<{{.*}}> : tensor<4x8xf32>
// CHECK: npu.dram_tensor at {{[0-9]+}} : tensor<1x4xf32>
// CHECK: npu.dma.st
// CHECK: npu.sync ex{{.*}}pop_next
// CHECK: npu.dma.ld vrf[0x0]{{.*}}pop_next
// CHECK: npu.halt
func.func @chain(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
  %w1 = accel.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<8x8xf32>
  %w2 = accel.constant dense<1.0> : tensor<8x4xf32>
  %0 = accel.fully_connected %x, %w1 {transpose_weight = true} : (tensor<1x8xf32>, tensor<8x8xf32>) -> tensor<1x8xf32>
  %1 = accel.fully_connected %0, %w2 : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  return %1 : tensor<1x4xf32>
}

// -----

// f16: X and W tiles load as f16 (x = elements, pitches in 2-byte units),
// mm reads f16 (at = wt) and accumulates in f32 in ACC, the f16 bias is
// added from the VRF (bt = f16) and relu runs in f32; v.cvt rounds each
// result tile to f16 into its own ACC slot before the store.
// CHECK-LABEL: npu.program @fc_half
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f16 x = 96 y = 4 z = 1 sy = 192 dpitch = 192
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x300], f16 x = 64 y = 64 z = 1 sy = 192 dpitch = 128
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f16, f16 m = 4 k = 64 n = 64 dpitch = 256 apitch = 192
// CHECK-NEXT: npu.dma.ld mrf[0x20000], dram[0x380], f16 x = 32 y = 64 z = 1 sy = 192 dpitch = 64
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x80], mrf[0x20000], f32, f16, f16 m = 4 k = 32 n = 64 dpitch = 256 apitch = 192 acc = 1
// CHECK-NEXT: npu.dma.ld vrf[0x300], dram[0x3900], f16 x = 72 y = 1 z = 1 sy = 144 dpitch = 144
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[0x300], f32, f32, f16 rows = 4 cols = 64 dpitch = 256 apitch = 256 bpitch = 128 bcast = row
// CHECK-NEXT: npu.v.relu acc[0x0], acc[0x0], f32, f32 rows = 4 cols = 64 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.cvt acc[0x800], acc[0x0], f16, f32 rows = 4 cols = 64 dpitch = 128 apitch = 256
// CHECK-NEXT: npu.dma.st dram[0x39c0], acc[0x800], f16 x = 64 y = 4 z = 1 dy = 144 spitch = 128
// CHECK: npu.v.cvt acc[0xa00], acc[0x400], f16, f32 rows = 4 cols = 8 dpitch = 16 apitch = 32
// CHECK-NEXT: npu.dma.st dram[0x3a40], acc[0xa00], f16 x = 8 y = 4 z = 1 dy = 144 spitch = 16
// CHECK-NEXT: npu.halt
func.func @fc_half(%x: tensor<4x96xf16>, %w: tensor<72x96xf16>, %b: tensor<72xf16>) -> tensor<4x72xf16> {
  %0 = accel.fully_connected %x, %w, %b {transpose_weight = true, activation = #accel.act<relu>} : (tensor<4x96xf16>, tensor<72x96xf16>, tensor<72xf16>) -> tensor<4x72xf16>
  return %0 : tensor<4x72xf16>
}

// -----

// CHECK-LABEL: npu.program @fc_bf16
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], bf16 x = 32 y = 4 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x100], bf16 x = 32 y = 16 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, bf16, bf16 m = 4 k = 32 n = 16 dpitch = 64 apitch = 64
// CHECK-NEXT: npu.v.cvt acc[0x800], acc[0x0], bf16, f32 rows = 4 cols = 16 dpitch = 32 apitch = 64
// CHECK-NEXT: npu.dma.st dram[0x500], acc[0x800], bf16 x = 16 y = 4 z = 1 dy = 32 spitch = 32
// CHECK-NEXT: npu.halt
func.func @fc_bf16(%x: tensor<4x32xbf16>, %w: tensor<16x32xbf16>) -> tensor<4x16xbf16> {
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<4x32xbf16>, tensor<16x32xbf16>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

// Weight residency: 40 rows of 512 inputs take two VRF chunks (31 + 9
// rows); all 16 weight tiles fit the MRF, so the first chunk loads each
// into its own slot (one by one: 31 rows keep the matrix unit busy long
// enough to hide each load's latency) and the second multiplies straight
// from them.
// CHECK-LABEL: npu.program @resident
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 512 y = 31
// CHECK-COUNT-16: npu.dma.ld mrf{{.*}} z = 1
// CHECK: npu.dma.ld vrf[0x0], dram[0xf800], f32 x = 512 y = 9
// CHECK-NOT: npu.dma.ld mrf
// CHECK: npu.mm acc[{{.*}}], vrf[0x700], mrf[0x3c000], f32, f32, f32 m = 9 k = 64 n = 64
// CHECK-NOT: npu.dma.ld mrf
// CHECK: npu.halt
func.func @resident(%x: tensor<40x512xf32>, %w: tensor<128x512xf32>) -> tensor<40x128xf32> {
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<40x512xf32>, tensor<128x512xf32>) -> tensor<40x128xf32>
  return %0 : tensor<40x128xf32>
}
