// RUN: nnaccel-opt %s --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' | FileCheck %s

// accel.embedding_bag becomes one pooled emb.gather into ACC and a dma.st.
// The index/length/weight lists are register-indirect (s1/s2/s3 set by
// s.li); fixed-size bags get their i32 lengths list from v.fill in ACC;
// i32 lengths are read in place; i64 offsets are narrowed to i32 by an
// element-strided DMA and completed with the final offset N.
// accel.gather with constant indices is a staged DMA copy (v.mov picks
// several slices); data-dependent row gathers use emb.gather without pooling.

// f16 / bf16 tables: the gather engine reads the rows in their format
// (fmt, rowbytes), pools in f32 and writes the output type (dt, dpitch).
// Rowwise-quantized tables likewise: fmt rw4 / rw8, rowbytes the fused row
// (8 x rw4: 4 + 4 bytes; 7 x rw8: 7 + 8; 16 x rw4: 8 + 4; 16 x rw8: 16 + 8),
// f32 results; a rowwise table's rows at constant indices go through the
// gather engine too (it dequantizes).

// CHECK-DAG: accel.host_reason = "gather with data-dependent indices runs on the card only for rows (axis 0) of a 2-D f32, f16, bf16 or rowwise table"

func.func @fixed_bags(%t: tensor<100x32xf32>, %ids: tensor<16x4xi64>) -> tensor<16x32xf32> {
  %0 = accel.embedding_bag %t, %ids : (tensor<100x32xf32>, tensor<16x4xi64>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
func.func @lengths_mean(%t: tensor<50x8xf32>, %ids: tensor<12xi32>, %len: tensor<4xi32>, %w: tensor<12xf32>) -> tensor<4x8xf32> {
  %0 = accel.embedding_bag %t, %ids lengths %len weights %w {mode = #accel.bag_mode<mean>} : (tensor<50x8xf32>, tensor<12xi32>, tensor<4xi32>, tensor<12xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @offsets_i64(%t: tensor<50x8xf32>, %ids: tensor<12xi64>, %off: tensor<4xi64>) -> tensor<4x8xf32> {
  %0 = accel.embedding_bag %t, %ids offsets %off : (tensor<50x8xf32>, tensor<12xi64>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @f16_table(%t: tensor<50x8xf16>, %ids: tensor<4x3xi64>) -> tensor<4x8xf16> {
  %0 = accel.embedding_bag %t, %ids : (tensor<50x8xf16>, tensor<4x3xi64>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}
func.func @dlrm_slice(%s: tensor<16x8x4xi64>) -> tensor<16x4xi64> {
  %c = accel.constant dense<3> : tensor<i64>
  %0 = accel.gather %s, %c {axis = 1 : i64} : (tensor<16x8x4xi64>, tensor<i64>) -> tensor<16x4xi64>
  return %0 : tensor<16x4xi64>
}
func.func @const_rows(%d: tensor<6x16xf32>) -> tensor<3x16xf32> {
  %c = accel.constant dense<[5, 0, -1]> : tensor<3xi64>
  %0 = accel.gather %d, %c {axis = 0 : i64} : (tensor<6x16xf32>, tensor<3xi64>) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}
func.func @rows(%t: tensor<100x16xf32>, %ids: tensor<5xi32>) -> tensor<5x16xf32> {
  %0 = accel.gather %t, %ids {axis = 0 : i64} : (tensor<100x16xf32>, tensor<5xi32>) -> tensor<5x16xf32>
  return %0 : tensor<5x16xf32>
}
func.func @bf16_rows(%t: tensor<100x16xbf16>, %ids: tensor<5xi32>) -> tensor<5x16xbf16> {
  %0 = accel.gather %t, %ids {axis = 0 : i64} : (tensor<100x16xbf16>, tensor<5xi32>) -> tensor<5x16xbf16>
  return %0 : tensor<5x16xbf16>
}
func.func @rw4_weighted(%ids: tensor<12xi32>, %len: tensor<4xi32>, %w: tensor<12xf32>) -> tensor<4x8xf32> {
  %t = accel.constant dense_resource<rw4_table> : tensor<50x8x!accel.rowwise<4>>
  %0 = accel.embedding_bag %t, %ids lengths %len weights %w {mode = #accel.bag_mode<mean>} : (tensor<50x8x!accel.rowwise<4>>, tensor<12xi32>, tensor<4xi32>, tensor<12xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @rw8_offsets(%ids: tensor<12xi64>, %off: tensor<4xi64>) -> tensor<4x7xf32> {
  %t = accel.constant dense_resource<rw8_table> : tensor<50x7x!accel.rowwise<8>>
  %0 = accel.embedding_bag %t, %ids offsets %off : (tensor<50x7x!accel.rowwise<8>>, tensor<12xi64>, tensor<4xi64>) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}
func.func @rw4_rows(%ids: tensor<5xi32>) -> tensor<5x16xf32> {
  %t = accel.constant dense_resource<rw4_rows> : tensor<100x16x!accel.rowwise<4>>
  %0 = accel.gather %t, %ids : (tensor<100x16x!accel.rowwise<4>>, tensor<5xi32>) -> tensor<5x16xf32>
  return %0 : tensor<5x16xf32>
}
func.func @rw8_const_rows() -> tensor<2x16xf32> {
  %t = accel.constant dense_resource<rw8_rows> : tensor<100x16x!accel.rowwise<8>>
  %c = accel.constant dense<[7, 3]> : tensor<2xi64>
  %0 = accel.gather %t, %c : (tensor<100x16x!accel.rowwise<8>>, tensor<2xi64>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
func.func @cols_dynamic(%t: tensor<100x16xf32>, %ids: tensor<5xi32>) -> tensor<100x5xf32> {
  %0 = accel.gather %t, %ids {axis = 1 : i64} : (tensor<100x16xf32>, tensor<5xi32>) -> tensor<100x5xf32>
  return %0 : tensor<100x5xf32>
}

// CHECK-LABEL: npu.program @fixed_bags_p0_card0_core0
// CHECK-NEXT: npu.v.fill acc[0x800], i32 rows = 1 cols = 16 dpitch = 64 imm = 5.605190e-45 push_prev
// CHECK-NEXT: npu.s.li s1 imm = 12800
// CHECK-NEXT: npu.s.li s2 imm = 2048
// CHECK-NEXT: npu.emb.gather acc[0x0], dram[0x0], dram[s1], acc[s2], dram[s0], f32 dim = 32 rowbytes = 128 nrows = 100 nseg = 16 ityp = i64 pool = sum dpitch = 128 pop_next push_next
// CHECK-NEXT: npu.sync ex pop_prev push_next
// CHECK-NEXT: npu.dma.st dram[0x3400], acc[0x0], f32 x = 32 y = 16 z = 1 dy = 128 spitch = 128 pop_prev
// CHECK-NEXT: npu.halt

// CHECK-LABEL: npu.program @lengths_mean_p0_card0_core0
// CHECK-NEXT: npu.s.li s1 imm = 1600
// CHECK-NEXT: npu.s.li s2 imm = 1664
// CHECK-NEXT: npu.s.li s3 imm = 1728
// CHECK-NEXT: npu.emb.gather acc[0x0], dram[0x0], dram[s1], dram[s2], dram[s3], f32 dim = 8 rowbytes = 32 nrows = 50 nseg = 4 pool = mean weighted = 1 dpitch = 32 push_next
// CHECK-NEXT: npu.sync ex pop_prev push_next
// CHECK-NEXT: npu.dma.st dram[0x700], acc[0x0], f32 x = 8 y = 4 z = 1 dy = 32 spitch = 32 pop_prev

// CHECK-LABEL: npu.program @offsets_i64_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x80], dram[0x6c0], i32 x = 1 y = 4 z = 1 sy = 8 dpitch = 4
// CHECK-NEXT: npu.v.fill acc[0x90], i32 rows = 1 cols = 1 dpitch = 4 imm = 1.681560e-44 push_prev
// CHECK-NEXT: npu.s.li s1 imm = 1600
// CHECK-NEXT: npu.s.li s2 imm = 128
// CHECK-NEXT: npu.emb.gather acc[0x0], dram[0x0], dram[s1], acc[s2], dram[s0], f32 dim = 8 rowbytes = 32 nrows = 50 nseg = 4 ityp = i64 offs = 1 pool = sum dpitch = 32 pop_next push_next

// The DLRM slice gather(sparse[16,8,4] i64, 3, axis=1): i64 moves as i32
// pairs; the store picks slice 3 (byte 0x60) of every staged row.
// CHECK-LABEL: npu.program @f16_table_p0_card0_core0
// CHECK-NEXT: npu.v.fill acc[0x40], i32 rows = 1 cols = 4 dpitch = 16
// CHECK-NEXT: npu.s.li s1 imm = 832
// CHECK-NEXT: npu.s.li s2 imm = 64
// CHECK-NEXT: npu.emb.gather acc[0x0], dram[0x0], dram[s1], acc[s2], dram[s0], f16 fmt = f16 dim = 8 rowbytes = 16 nrows = 50 nseg = 4 ityp = i64 pool = sum dpitch = 16 pop_next push_next
// CHECK-NEXT: npu.sync ex pop_prev push_next
// CHECK-NEXT: npu.dma.st dram[0x3c0], acc[0x0], f16 x = 8 y = 4 z = 1 dy = 16 spitch = 16 pop_prev

// CHECK-LABEL: npu.program @dlrm_slice_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], i32 x = 64 y = 16 z = 1 sy = 256 dpitch = 256 push_next
// CHECK-NEXT: npu.sync ex pop_prev push_next
// CHECK-NEXT: npu.dma.st dram[0x1040], acc[0x60], i32 x = 8 y = 16 z = 1 dy = 32 spitch = 256 pop_prev

// Indices 5, 0, -1 (= 5).
// CHECK-LABEL: npu.program @const_rows_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x0], i32 x = 96 y = 1 z = 1 sy = 384 dpitch = 384 push_next
// CHECK-NEXT: npu.v.mov acc[0x180], acc[0x140], i32, i32 rows = 1 cols = 16 dpitch = 192 apitch = 384 pop_prev
// CHECK-NEXT: npu.v.mov acc[0x1c0], acc[0x0], i32, i32 rows = 1 cols = 16 dpitch = 192 apitch = 384
// CHECK-NEXT: npu.v.mov acc[0x200], acc[0x140], i32, i32 rows = 1 cols = 16 dpitch = 192 apitch = 384 push_next
// CHECK-NEXT: npu.dma.st dram[0x1c0], acc[0x180], i32 x = 48 y = 1 z = 1 dy = 192 spitch = 192 pop_prev

// CHECK-LABEL: npu.program @rows_p0_card0_core0
// CHECK-NEXT: npu.s.li s1 imm = 6400
// CHECK-NEXT: npu.emb.gather acc[0x0], dram[0x0], dram[s1], dram[s0], dram[s0], f32 dim = 16 rowbytes = 64 nrows = 100 nseg = 5 dpitch = 64 push_next
// CHECK-NEXT: npu.sync ex pop_prev push_next
// CHECK-NEXT: npu.dma.st dram[0x1940], acc[0x0], f32 x = 16 y = 5 z = 1 dy = 64 spitch = 64 pop_prev

// CHECK-LABEL: npu.program @bf16_rows_p0_card0_core0
// CHECK-NEXT: npu.s.li s1 imm = 3200
// CHECK-NEXT: npu.emb.gather acc[0x0], dram[0x0], dram[s1], dram[s0], dram[s0], bf16 fmt = bf16 dim = 16 rowbytes = 32 nrows = 100 nseg = 5 dpitch = 32 push_next
// CHECK-NEXT: npu.sync ex pop_prev push_next
// CHECK-NEXT: npu.dma.st dram[0xcc0], acc[0x0], bf16 x = 16 y = 5 z = 1 dy = 32 spitch = 32 pop_prev

// CHECK-LABEL: npu.program @rw4_weighted_p0_card0_core0
// CHECK: npu.emb.gather acc[0x0], dram[0xc0], dram[s1], dram[s2], dram[s3], f32 fmt = rw4 dim = 8 rowbytes = 8 nrows = 50 nseg = 4 pool = mean weighted = 1 dpitch = 32 push_next
// CHECK-NEXT: npu.sync ex pop_prev push_next
// CHECK-NEXT: npu.dma.st dram[0x280], acc[0x0], f32 x = 8 y = 4 z = 1 dy = 32 spitch = 32 pop_prev

// CHECK-LABEL: npu.program @rw8_offsets_p0_card0_core0
// CHECK: npu.emb.gather acc[0x0], dram[0xc0], dram[s1], acc[s2], dram[s0], f32 fmt = rw8 dim = 7 rowbytes = 15 nrows = 50 nseg = 4 ityp = i64 offs = 1 pool = sum dpitch = 28

// CHECK-LABEL: npu.program @rw4_rows_p0_card0_core0
// CHECK: npu.emb.gather acc[0x0], dram[0x40], dram[s1], dram[s0], dram[s0], f32 fmt = rw4 dim = 16 rowbytes = 12 nrows = 100 nseg = 5 dpitch = 64

// CHECK-LABEL: npu.program @rw8_const_rows_p0_card0_core0
// CHECK-NEXT: npu.s.li s1 imm = 2432
// CHECK-NEXT: npu.emb.gather acc[0x0], dram[0x0], dram[s1], dram[s0], dram[s0], f32 fmt = rw8 dim = 16 rowbytes = 24 nrows = 100 nseg = 2 ityp = i64 dpitch = 64
