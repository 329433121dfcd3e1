// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s

// Attention scores Q.K^T with equal batch dims and a non-constant right
// operand: one GEMM per batch element. Each K x N tile of the right operand
// is transposed by its DMA on the way into the MRF (x = 1: one element per
// row, y = k rows one weight row apart, z = n planes one element apart), so
// the MRF holds n rows of k as mm expects.
// CHECK-LABEL: func.func @attn
// CHECK: accel.card_partition
// CHECK-SAME: input_addresses = array<i64: 0, 8192>
// CHECK-SAME: output_addresses = array<i64: 16384>
// CHECK: npu.dram_tensor at 16384 : tensor<4x16x16xf32>
// CHECK: npu.program @attn_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 32 y = 16 z = 1 sy = 128 dpitch = 128
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x2000], f32 x = 1 y = 32 z = 16 sy = 64 sz = 4 dpitch = 4 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 16 k = 32 n = 16 dpitch = 64 apitch = 128 pop_prev
// CHECK-NEXT: npu.dma.st dram[0x4000], acc[0x0], f32 x = 16 y = 16 z = 1 dy = 64 spitch = 64 pop_prev
// The next batch element: operands 16x32, 32x16 and 16x16 floats further,
// in the other MRF and ACC slots (the slots alternate across batch
// elements, so the next weight load overlaps this element's store).
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x800], f32 x = 32 y = 16 z = 1 sy = 128 dpitch = 128
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x2800], f32 x = 1 y = 32 z = 16 sy = 64 sz = 4 dpitch = 4
// CHECK-NEXT: npu.mm acc[0x1000], vrf[0x0], mrf[0x4000], f32, f32, f32 m = 16 k = 32 n = 16
// CHECK-NEXT: npu.dma.st dram[0x4400], acc[0x1000]
// CHECK: npu.dma.st dram[0x4800], acc[0x0]
// CHECK: npu.dma.st dram[0x4c00], acc[0x1000]
// CHECK-NEXT: npu.halt
func.func @attn(%q: tensor<4x16x32xf32>, %k: tensor<4x32x16xf32>) -> tensor<4x16x16xf32> {
  %0 = accel.matmul %q, %k : (tensor<4x16x32xf32>, tensor<4x32x16xf32>) -> tensor<4x16x16xf32>
  return %0 : tensor<4x16x16xf32>
}

// -----

// A shared 2-D (constant) right operand: the left operand's batch and row
// dims flatten into one GEMM of 16 rows. K = 128 and N = 96 span two k
// tiles (accumulated in ACC) and two n tiles (the second 32 wide, in the
// other ACC slot); weight tiles alternate between two MRF slots.
// CHECK-LABEL: func.func @proj
// CHECK: accel.constant {accel.dram_address = 8192 : i64}
// CHECK: npu.program @proj_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 128 y = 16 z = 1 sy = 512 dpitch = 512
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x2000], f32 x = 1 y = 64 z = 64 sy = 384 sz = 4 dpitch = 4 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 16 k = 64 n = 64 dpitch = 256 apitch = 512 pop_prev
// Rows 64..127 of the weight (64 x 96 floats further), next 64 inputs.
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x8000], f32 x = 1 y = 64 z = 64 sy = 384 sz = 4 dpitch = 4 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x100], mrf[0x4000], f32, f32, f32 m = 16 k = 64 n = 64 dpitch = 256 apitch = 512 acc = 1
// CHECK-NEXT: npu.dma.st dram[0xe000], acc[0x0], f32 x = 64 y = 16 z = 1 dy = 384 spitch = 256 pop_prev
// Columns 64..95.
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x2100], f32 x = 1 y = 64 z = 32 sy = 384 sz = 4 dpitch = 4 pop_next push_next
// CHECK-NEXT: npu.mm acc[0x1000], vrf[0x0], mrf[0x0], f32, f32, f32 m = 16 k = 64 n = 32 dpitch = 128 apitch = 512 pop_prev
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x8100], f32 x = 1 y = 64 z = 32
// CHECK-NEXT: npu.mm acc[0x1000], vrf[0x100], mrf[0x4000], f32, f32, f32 m = 16 k = 64 n = 32 dpitch = 128 apitch = 512 acc = 1
// CHECK-NEXT: npu.dma.st dram[0xe100], acc[0x1000], f32 x = 32 y = 16 z = 1 dy = 384 spitch = 128 pop_prev
// CHECK-NEXT: npu.halt
func.func @proj(%x: tensor<16x1x128xf32>) -> tensor<16x1x96xf32> {
  %w = accel.constant dense<0.5> : tensor<128x96xf32>
  %0 = accel.matmul %x, %w : (tensor<16x1x128xf32>, tensor<128x96xf32>) -> tensor<16x1x96xf32>
  return %0 : tensor<16x1x96xf32>
}

// -----

// A rank-1 right operand is a K x 1 column (same bytes); the result drops
// the unit dimension (same bytes again): n = 1 tiles.
// CHECK-LABEL: func.func @vec
// CHECK: npu.program @vec_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 96 y = 16 z = 1 sy = 384 dpitch = 384
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x1800], f32 x = 1 y = 64 z = 1 sy = 4 sz = 4 dpitch = 4
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 16 k = 64 n = 1 dpitch = 4 apitch = 384
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x1900], f32 x = 1 y = 32 z = 1 sy = 4 sz = 4 dpitch = 4
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x100], mrf[0x4000], f32, f32, f32 m = 16 k = 32 n = 1 dpitch = 4 apitch = 384 acc = 1
// CHECK-NEXT: npu.dma.st dram[0x1980], acc[0x0], f32 x = 1 y = 16 z = 1 dy = 4 spitch = 4
// CHECK-NEXT: npu.halt
func.func @vec(%x: tensor<2x8x96xf32>, %v: tensor<96xf32>) -> tensor<2x8xf32> {
  %0 = accel.matmul %x, %v : (tensor<2x8x96xf32>, tensor<96xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// What the kernel refuses runs on the host, with the reason.
// CHECK-LABEL: func.func @refused
// CHECK-NOT: npu.program
// expected-warning @+1 {{2 heavy op(s) run on the host: accel.matmul}}
func.func @refused(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>, %c: tensor<3x5x7xf32>, %d: tensor<3x7x3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3x5x3xf32>) {
  // CHECK: accel.matmul {{.*}}accel.host_reason = "matmul batch dimensions that broadcast against each other are not lowered to the card (only equal batch dimensions or a shared operand)"
  %0 = accel.matmul %a, %b : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  // 7 x 3 floats per right batch element: the second would start at byte
  // 84, and weight tiles go from DRAM straight to the 64-byte aligned MRF.
  // CHECK: accel.matmul {{.*}}accel.host_reason = "batch elements of the weight (right) operand would start at unaligned DRAM addresses (weight tiles are loaded into the 64-byte aligned matrix register file straight from DRAM)"
  %1 = accel.matmul %c, %d : (tensor<3x5x7xf32>, tensor<3x7x3xf32>) -> tensor<3x5x3xf32>
  return %0, %1 : tensor<2x3x4x5xf32>, tensor<3x5x3xf32>
}

// -----

// Unaligned result batch elements (5 x 5 floats: the second starts at byte
// 100 of the result): each element's result is staged densely in ACC
// behind the 9 values of the previous one that share its first 64-byte DRAM
// granule (copied from the previous stage), and stored in one DMA from the
// aligned address below it (0x500 + 64).
// CHECK-LABEL: npu.program @scores
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 5 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x280], f32 x = 1 y = 16 z = 5 sy = 20 sz = 4 dpitch = 4
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 5 k = 16 n = 5 dpitch = 20 apitch = 64
// CHECK-NEXT: npu.v.mov acc[0xa00], acc[0x0], f32, f32 rows = 5 cols = 5 dpitch = 20 apitch = 20
// CHECK-NEXT: npu.dma.st dram[0x500], acc[0xa00], f32 x = 25 y = 1 z = 1 dy = 100 spitch = 100
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x140], f32 x = 16 y = 5 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x3c0], f32 x = 1 y = 16 z = 5 sy = 20 sz = 4 dpitch = 4
// CHECK-NEXT: npu.mm acc[0x500], vrf[0x0], mrf[0x4000], f32, f32, f32 m = 5 k = 16 n = 5 dpitch = 20 apitch = 64
// CHECK-NEXT: npu.v.mov acc[0xac8], acc[0x500], f32, f32 rows = 5 cols = 5 dpitch = 20 apitch = 20
// CHECK-NEXT: npu.v.mov acc[0xaa4], acc[0xa40], f32, f32 rows = 1 cols = 9
// CHECK-NEXT: npu.dma.st dram[0x540], acc[0xaa4], f32 x = 34 y = 1 z = 1 dy = 136 spitch = 136
// CHECK-NEXT: npu.halt
func.func @scores(%q: tensor<2x5x16xf32>, %k: tensor<2x16x5xf32>) -> tensor<2x5x5xf32> {
  %0 = accel.matmul %q, %k : (tensor<2x5x16xf32>, tensor<2x16x5xf32>) -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}

// -----

// Unaligned left batch elements (byte 100): loaded as one flat run from the
// aligned address below (0x40, 9 extra values) and used from vrf 0x24.
// CHECK-LABEL: npu.program @context
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 5 y = 5 z = 1 sy = 20 dpitch = 20
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x100], f32 x = 1 y = 5 z = 16 sy = 64 sz = 4 dpitch = 4
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 5 k = 5 n = 16 dpitch = 64 apitch = 20
// CHECK-NEXT: npu.dma.st dram[0x380], acc[0x0], f32 x = 16 y = 5 z = 1 dy = 64 spitch = 64
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x40], f32 x = 34 y = 1 z = 1 sy = 136 dpitch = 136
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x240], f32 x = 1 y = 5 z = 16 sy = 64 sz = 4 dpitch = 4
// CHECK-NEXT: npu.mm acc[0x500], vrf[0x24], mrf[0x4000], f32, f32, f32 m = 5 k = 5 n = 16 dpitch = 64 apitch = 20
// CHECK-NEXT: npu.dma.st dram[0x4c0], acc[0x500], f32 x = 16 y = 5 z = 1 dy = 64 spitch = 64
// CHECK-NEXT: npu.halt
func.func @context(%p: tensor<2x5x5xf32>, %v: tensor<2x5x16xf32>) -> tensor<2x5x16xf32> {
  %0 = accel.matmul %p, %v : (tensor<2x5x5xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  return %0 : tensor<2x5x16xf32>
}

// -----

// f16: the matrix unit reads f16 operands (at = wt = f16) and accumulates
// in f32 in ACC; v.cvt rounds each result tile to f16 before its store.
// The second left batch element starts 50 bytes past an aligned address,
// 2 bytes off the VRF's 4-byte alignment: one element of left padding
// (pl = 1) puts it at vrf 0x34.
// CHECK-LABEL: npu.program @half
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f16 x = 5 y = 5 z = 1 sy = 10 dpitch = 10
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x80], f16 x = 1 y = 5 z = 32 sy = 64 sz = 2 dpitch = 2
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f16, f16 m = 5 k = 5 n = 32 dpitch = 128 apitch = 10
// CHECK-NEXT: npu.v.cvt acc[0xa00], acc[0x0], f16, f32 rows = 5 cols = 32 dpitch = 64 apitch = 128
// CHECK-NEXT: npu.dma.st dram[0x300], acc[0xa00], f16 x = 32 y = 5 z = 1 dy = 64 spitch = 64
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f16 x = 50 y = 1 z = 1 sy = 100 dpitch = 102 pl = 1
// CHECK-NEXT: npu.dma.ld mrf[0x2000], dram[0x1c0], f16 x = 1 y = 5 z = 32 sy = 64 sz = 2 dpitch = 2
// CHECK-NEXT: npu.mm acc[0x500], vrf[0x34], mrf[0x2000], f32, f16, f16 m = 5 k = 5 n = 32 dpitch = 128 apitch = 10
// CHECK-NEXT: npu.v.cvt acc[0xc80], acc[0x500], f16, f32 rows = 5 cols = 32 dpitch = 64 apitch = 128
// CHECK-NEXT: npu.dma.st dram[0x440], acc[0xc80], f16 x = 32 y = 5 z = 1 dy = 64 spitch = 64
// CHECK-NEXT: npu.halt
func.func @half(%p: tensor<2x5x5xf16>, %v: tensor<2x5x32xf16>) -> tensor<2x5x32xf16> {
  %0 = accel.matmul %p, %v : (tensor<2x5x5xf16>, tensor<2x5x32xf16>) -> tensor<2x5x32xf16>
  return %0 : tensor<2x5x32xf16>
}

// -----

// bf16 with staged results: the f32 stage (lead + result) is converted to
// bf16 as one flat run, so the 2-byte lead needs no 4-byte alignment.
// CHECK-LABEL: npu.program @bscores
// CHECK: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, bf16, bf16 m = 5 k = 32 n = 5 dpitch = 20 apitch = 64
// CHECK-NEXT: npu.v.mov acc[0xa00], acc[0x0], f32, f32 rows = 5 cols = 5 dpitch = 20 apitch = 20
// CHECK-NEXT: npu.v.cvt acc[0xbc8], acc[0xa00], bf16, f32 rows = 1 cols = 25
// CHECK-NEXT: npu.dma.st dram[0x500], acc[0xbc8], bf16 x = 25 y = 1 z = 1 dy = 50 spitch = 50
// CHECK: npu.mm acc[0x500], vrf[0x0], mrf[0x2000], f32, bf16, bf16 m = 5 k = 32 n = 5
// CHECK-NEXT: npu.v.mov acc[0xb48], acc[0x500], f32, f32 rows = 5 cols = 5 dpitch = 20 apitch = 20
// CHECK-NEXT: npu.v.mov acc[0xae4], acc[0xa00], f32, f32 rows = 1 cols = 25
// CHECK-NEXT: npu.v.cvt acc[0xc3c], acc[0xae4], bf16, f32 rows = 1 cols = 50
// CHECK-NEXT: npu.dma.st dram[0x500], acc[0xc3c], bf16 x = 50 y = 1 z = 1 dy = 100 spitch = 100
// CHECK-NEXT: npu.halt
func.func @bscores(%q: tensor<2x5x32xbf16>, %k: tensor<2x32x5xbf16>) -> tensor<2x5x5xbf16> {
  %0 = accel.matmul %q, %k : (tensor<2x5x32xbf16>, tensor<2x32x5xbf16>) -> tensor<2x5x5xbf16>
  return %0 : tensor<2x5x5xbf16>
}
