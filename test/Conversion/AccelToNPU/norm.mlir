// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s

// Softmax over the last axis of attention scores: the 64 rows of 16 are one
// chunk in ACC; per-row max and sum are columns in the VRF (dpitch = one
// float), read back as col-broadcast operands; 1/sum is one vector op over
// the 64 sums.
// CHECK-LABEL: func.func @softmax
// CHECK: npu.dram_tensor at {{[0-9]+}} : tensor<
// CHECK: npu.program @softmax_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], f32 x = 16 y = 64 z = 1 sy = 64 dpitch = 64 push_next
// CHECK-NEXT: npu.v.rmax vrf[0x0], acc[0x0], f32, f32 rows = 64 cols = 16 dpitch = 4 apitch = 64 pop_prev
// CHECK-NEXT: npu.v.sub acc[0x0], acc[0x0], vrf[0x0], f32, f32, f32 rows = 64 cols = 16 dpitch = 64 apitch = 64 bpitch = 4 bcast = col
// CHECK-NEXT: npu.v.exp acc[0x0], acc[0x0], f32, f32 rows = 64 cols = 16 dpitch = 64 apitch = 64
// CHECK-NEXT: npu.v.rsum vrf[0x100], acc[0x0], f32, f32 rows = 64 cols = 16 dpitch = 4 apitch = 64
// CHECK-NEXT: npu.v.recip vrf[0x100], vrf[0x100], f32, f32 rows = 1 cols = 64 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.mul acc[0x0], acc[0x0], vrf[0x100], f32, f32, f32 rows = 64 cols = 16 dpitch = 64 apitch = 64 bpitch = 4 bcast = col
// CHECK: npu.dma.st dram[0x1000], acc[0x0], f32 x = 16 y = 64 z = 1 dy = 64 spitch = 64 pop_prev
// CHECK-NEXT: npu.halt
func.func @softmax(%x: tensor<4x16x16xf32>) -> tensor<4x16x16xf32> {
  %0 = accel.softmax %x {axis = 2 : i64} : tensor<4x16x16xf32>
  return %0 : tensor<4x16x16xf32>
}

// -----

// Layer norm as the host computes it: mean = sum * (1/n), centre, variance
// of the centred rows (squares in a scratch ACC slot), + epsilon, rsqrt,
// then scale and bias rows (resident in the VRF) broadcast over the rows.
// CHECK-LABEL: func.func @layer_norm
// CHECK: npu.program @layer_norm_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x2000], f32 x = 128 y = 1 z = 1 sy = 512 dpitch = 512
// CHECK-NEXT: npu.dma.ld vrf[0x200], dram[0x2200], f32 x = 128 y = 1 z = 1 sy = 512 dpitch = 512
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], f32 x = 128 y = 16 z = 1 sy = 512 dpitch = 512 push_next
// CHECK-NEXT: npu.v.rsum vrf[0x400], acc[0x0], f32, f32 rows = 16 cols = 128 dpitch = 4 apitch = 512 pop_prev
// CHECK-NEXT: npu.vs.mul vrf[0x400], vrf[0x400], f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 imm = 7.812500e-03
// CHECK-NEXT: npu.v.sub acc[0x0], acc[0x0], vrf[0x400], f32, f32, f32 rows = 16 cols = 128 dpitch = 512 apitch = 512 bpitch = 4 bcast = col
// CHECK-NEXT: npu.v.mul acc[0x4000], acc[0x0], acc[0x0], f32, f32, f32 rows = 16 cols = 128 dpitch = 512 apitch = 512 bpitch = 512
// CHECK-NEXT: npu.v.rsum vrf[0x440], acc[0x4000], f32, f32 rows = 16 cols = 128 dpitch = 4 apitch = 512
// CHECK-NEXT: npu.vs.mul vrf[0x440], vrf[0x440], f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 imm = 7.812500e-03
// CHECK-NEXT: npu.vs.add vrf[0x440], vrf[0x440], f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 imm = 9.99999974E-6
// CHECK-NEXT: npu.v.rsqrt vrf[0x440], vrf[0x440], f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64
// CHECK-NEXT: npu.v.mul acc[0x0], acc[0x0], vrf[0x440], f32, f32, f32 rows = 16 cols = 128 dpitch = 512 apitch = 512 bpitch = 4 bcast = col
// CHECK-NEXT: npu.v.mul acc[0x0], acc[0x0], vrf[0x0], f32, f32, f32 rows = 16 cols = 128 dpitch = 512 apitch = 512 bpitch = 512 bcast = row
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], vrf[0x200], f32, f32, f32 rows = 16 cols = 128 dpitch = 512 apitch = 512 bpitch = 512 bcast = row
// CHECK: npu.dma.st dram[0x2400], acc[0x0], f32 x = 128 y = 16 z = 1 dy = 512 spitch = 512 pop_prev
// CHECK-NEXT: npu.halt
func.func @layer_norm(%x: tensor<1x16x128xf32>) -> tensor<1x16x128xf32> {
  %g = accel.constant dense<1.5> : tensor<128xf32>
  %b = accel.constant dense<0.25> : tensor<128xf32>
  %0 = accel.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x16x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<1x16x128xf32>
  return %0 : tensor<1x16x128xf32>
}

// -----

// 700 rows of 96 do not fit one ACC slot (a third of ACC with the scratch
// slot): chunks of 227 rows alternate between two slots, so a chunk's load
// overlaps the previous chunk's work and store; no bias, no v.add.
// CHECK-LABEL: func.func @layer_norm_chunks
// CHECK: npu.program @layer_norm_chunks_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x41a00], f32 x = 96 y = 1 z = 1
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], f32 x = 96 y = 227 z = 1 sy = 384 dpitch = 384
// CHECK-NOT: npu.v.add
// CHECK: npu.dma.st dram[0x41b80], acc[0x0], f32 x = 96 y = 227 z = 1 dy = 384 spitch = 384
// CHECK-NEXT: npu.dma.ld acc[0x15480], dram[0x15480], f32 x = 96 y = 227 z = 1
// CHECK: npu.dma.st dram[0x57000], acc[0x15480], f32 x = 96 y = 227
// CHECK: npu.dma.ld acc[0x0], dram[0x2a900], f32 x = 96 y = 227 z = 1 {{.*}}pop_next
// CHECK: npu.dma.ld acc[0x15480], dram[0x3fd80], f32 x = 96 y = 19 z = 1
// CHECK: npu.dma.st dram[0x81900], acc[0x15480], f32 x = 96 y = 19
// CHECK-NEXT: npu.halt
func.func @layer_norm_chunks(%x: tensor<700x96xf32>) -> tensor<700x96xf32> {
  %g = accel.constant dense<1.5> : tensor<96xf32>
  %0 = accel.layer_norm %x, %g : (tensor<700x96xf32>, tensor<96xf32>) -> tensor<700x96xf32>
  return %0 : tensor<700x96xf32>
}

// -----

// Mean pooling over the sequence axis: a middle-axis reduction sums down
// the columns of the [16 x 128] plane (axis = rows), then scales by 1/16.
// CHECK-LABEL: func.func @pool
// CHECK: npu.program @pool_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], f32 x = 128 y = 16 z = 1 sy = 512 dpitch = 512 push_next
// CHECK-NEXT: npu.v.rsum vrf[0x0], acc[0x0], f32, f32 rows = 16 cols = 128 dpitch = 512 apitch = 512 axis = rows pop_prev
// CHECK-NEXT: npu.vs.mul vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 128 dpitch = 512 apitch = 512 imm = 6.250000e-02 push_next
// CHECK-NEXT: npu.dma.st dram[0x2000], vrf[0x0], f32 x = 128 y = 1 z = 1 dy = 512 spitch = 512 pop_prev
// CHECK-NEXT: npu.halt
func.func @pool(%x: tensor<1x16x128xf32>) -> tensor<1x128xf32> {
  %0 = accel.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : tensor<1x16x128xf32> -> tensor<1x128xf32>
  return %0 : tensor<1x128xf32>
}

// -----

// Several planes: one reduction per plane, planes loaded with one 3-D DMA.
// CHECK-LABEL: func.func @planes
// CHECK: npu.program @planes_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], f32 x = 16 y = 8 z = 3 sy = 64 sz = 512 dpitch = 64
// CHECK-NEXT: npu.v.rmax vrf[0x0], acc[0x0], f32, f32 rows = 8 cols = 16 dpitch = 64 apitch = 64 axis = rows
// CHECK-NEXT: npu.v.rmax vrf[0x40], acc[0x200], f32, f32 rows = 8 cols = 16 dpitch = 64 apitch = 64 axis = rows
// CHECK-NEXT: npu.v.rmax vrf[0x80], acc[0x400], f32, f32 rows = 8 cols = 16 dpitch = 64 apitch = 64 axis = rows
// CHECK-NEXT: npu.dma.st dram[0x600], vrf[0x0], f32 x = 16 y = 3 z = 1 dy = 64 spitch = 64
func.func @planes(%x: tensor<3x8x16xf32>) -> tensor<3x1x16xf32> {
  %0 = accel.reduce_max %x {axes = array<i64: 1>} : tensor<3x8x16xf32> -> tensor<3x1x16xf32>
  return %0 : tensor<3x1x16xf32>
}

// -----

// Last-axis reductions: one value per row into the VRF, stored as a row.
// The next op reuses the same buffers once the store has read them.
// CHECK-LABEL: func.func @rows
// CHECK: npu.program @rows_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], f32 x = 40 y = 6 z = 1 sy = 160 dpitch = 160
// CHECK-NEXT: npu.v.rsum vrf[0x0], acc[0x0], f32, f32 rows = 6 cols = 40 dpitch = 4 apitch = 160
// CHECK-NEXT: npu.vs.mul vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 6 dpitch = 24 apitch = 24 imm = 2.500000e-02
// CHECK-NEXT: npu.dma.st dram[0x440], vrf[0x0], f32 x = 6 y = 1 z = 1 dy = 24 spitch = 24
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], f32 x = 40 y = 6 z = 1 {{.*}}pop_next
// CHECK-NEXT: npu.v.rmax vrf[0x0], acc[0x0], f32, f32 rows = 6 cols = 40 dpitch = 4 apitch = 160
// CHECK-NEXT: npu.dma.st dram[0x480], vrf[0x0], f32 x = 6 y = 1 z = 1
// All axes: one row of 24, one value.
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x3c0], f32 x = 24 y = 1 z = 1
// CHECK-NEXT: npu.v.rsum vrf[0x0], acc[0x0], f32, f32 rows = 1 cols = 24 dpitch = 4 apitch = 96
// CHECK-NEXT: npu.dma.st dram[0x4c0], vrf[0x0], f32 x = 1 y = 1 z = 1
func.func @rows(%x: tensor<6x40xf32>, %y: tensor<2x3x4xf32>) -> (tensor<6x1xf32>, tensor<6xf32>, tensor<1x1x1xf32>) {
  %0 = accel.reduce_mean %x {axes = array<i64: -1>} : tensor<6x40xf32> -> tensor<6x1xf32>
  %1 = accel.reduce_max %x {axes = array<i64: 1>, keepdims = false} : tensor<6x40xf32> -> tensor<6xf32>
  %2 = accel.reduce_sum %y {axes = array<i64>} : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  return %0, %1, %2 : tensor<6x1xf32>, tensor<6xf32>, tensor<1x1x1xf32>
}

// -----

// What the kernels refuse runs on the host, with the reason.
// CHECK-LABEL: func.func @refused
// CHECK-NOT: npu.program
func.func @refused(%x: tensor<4x8xf32>, %y: tensor<2x3x4xf32>, %i: tensor<4x8xi32>, %g: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x3x1xf32>, tensor<4x1xi32>) {
  // CHECK: accel.softmax {{.*}}accel.host_reason = "softmax runs on the card over the last axis only"
  %0 = accel.softmax %x {axis = 0 : i64} : tensor<4x8xf32>
  // CHECK: accel.log_softmax {{.*}}accel.host_reason = "log_softmax needs a logarithm, which the NPU has no instruction for"
  %1 = accel.log_softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  // CHECK: accel.layer_norm {{.*}}accel.host_reason = "layer_norm runs on the card over the last axis only"
  %2 = accel.layer_norm %x, %g {axis = 0 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: accel.reduce_sum {{.*}}accel.host_reason = "reduce_sum over non-adjacent axes is not lowered to the card"
  %3 = accel.reduce_sum %y {axes = array<i64: 0, 2>} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  // CHECK: accel.reduce_max {{.*}}accel.host_reason = "reduce_max runs on the card in f32, f16 or bf16 only"
  %4 = accel.reduce_max %i {axes = array<i64: 1>} : tensor<4x8xi32> -> tensor<4x1xi32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x3x1xf32>, tensor<4x1xi32>
}

// -----

// f16 softmax: the chunk is loaded as f16, the max is taken on it directly,
// x - max widens it into an f32 working copy (exp and the sum stay f32),
// and the final scaling by 1/sum narrows it back into the f16 buffer.
// CHECK-LABEL: npu.program @softmax_f16_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x1000], dram[0x0], f16 x = 16 y = 64 z = 1 sy = 32 dpitch = 32 push_next
// CHECK-NEXT: npu.v.rmax vrf[0x0], acc[0x1000], f32, f16 rows = 64 cols = 16 dpitch = 4 apitch = 32 pop_prev
// CHECK-NEXT: npu.v.sub acc[0x0], acc[0x1000], vrf[0x0], f32, f16, f32 rows = 64 cols = 16 dpitch = 64 apitch = 32 bpitch = 4 bcast = col
// CHECK-NEXT: npu.v.exp acc[0x0], acc[0x0], f32, f32 rows = 64 cols = 16 dpitch = 64 apitch = 64
// CHECK-NEXT: npu.v.rsum vrf[0x100], acc[0x0], f32, f32 rows = 64 cols = 16 dpitch = 4 apitch = 64
// CHECK-NEXT: npu.v.recip vrf[0x100], vrf[0x100], f32, f32 rows = 1 cols = 64 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.mul acc[0x1000], acc[0x0], vrf[0x100], f16, f32, f32 rows = 64 cols = 16 dpitch = 32 apitch = 64 bpitch = 4 bcast = col
// CHECK: npu.dma.st dram[0x800], acc[0x1000], f16 x = 16 y = 64 z = 1 dy = 32 spitch = 32 pop_prev
// CHECK-NEXT: npu.halt
func.func @softmax_f16(%x: tensor<4x16x16xf16>) -> tensor<4x16x16xf16> {
  %0 = accel.softmax %x {axis = 2 : i64} : tensor<4x16x16xf16>
  return %0 : tensor<4x16x16xf16>
}

// -----

// bf16 mean: the sums are read from the bf16 chunk into f32 statistics,
// scaled in f32 and converted to bf16 next to them for the store.
// CHECK-LABEL: npu.program @reduce_mean_bf16_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], bf16 x = 40 y = 6 z = 1 sy = 80 dpitch = 80 push_next
// CHECK-NEXT: npu.v.rsum vrf[0x0], acc[0x0], f32, bf16 rows = 6 cols = 40 dpitch = 4 apitch = 80 pop_prev
// CHECK-NEXT: npu.vs.mul vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 6 dpitch = 24 apitch = 24 imm = 2.500000e-02
// CHECK-NEXT: npu.v.cvt vrf[0x18], vrf[0x0], bf16, f32 rows = 1 cols = 6 dpitch = 12 apitch = 24 push_next
// CHECK-NEXT: npu.dma.st dram[0x200], vrf[0x18], bf16 x = 6 y = 1 z = 1 dy = 12 spitch = 12 pop_prev
// CHECK-NEXT: npu.halt
func.func @reduce_mean_bf16(%x: tensor<6x40xbf16>) -> tensor<6x1xbf16> {
  %0 = accel.reduce_mean %x {axes = array<i64: 1>} : tensor<6x40xbf16> -> tensor<6x1xbf16>
  return %0 : tensor<6x1xbf16>
}
