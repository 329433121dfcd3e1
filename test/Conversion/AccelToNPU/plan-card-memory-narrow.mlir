// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory | FileCheck %s

// Narrow element types through the DRAM plan (no kernel computes in them
// yet): tensors are sized by the ISA's row rules (Numerics' denseBytes) and
// every tensor starts 64-byte aligned.

// An int8 fully_connected: x 4x100 i8 (400 bytes), an i32 bias (256), the
// 100 x 64 i8 weight transposed element by element to 64 x 100 (6400) and
// the 4 x 64 i8 result (256).
// CHECK-LABEL: func.func @int8_fc
// CHECK: accel.card_partition
// CHECK-SAME: accel.dram_bytes = 7360 : i64
// CHECK-SAME: input_addresses = array<i64: 0>
// CHECK-SAME: output_addresses = array<i64: 7104>
// CHECK: accel.constant {accel.dram_address = 448 : i64} dense<7> : tensor<64xi32>
// CHECK: accel.constant {accel.dram_address = 704 : i64} dense<3> : tensor<64x100xi8>
// CHECK: accel.fully_connected {{.*}}accel.dram_address = 7104 : i64, transpose_weight = true
func.func @int8_fc(%x: tensor<4x100xi8>) -> tensor<4x64xi8> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x100xi8>) -> tensor<4x64xi8> {
  ^bb0(%a: tensor<4x100xi8>):
    %w = accel.constant dense<3> : tensor<100x64xi8>
    %b = accel.constant dense<7> : tensor<64xi32>
    %1 = accel.fully_connected %a, %w, %b : (tensor<4x100xi8>, tensor<100x64xi8>, tensor<64xi32>) -> tensor<4x64xi8>
    accel.yield %1 : tensor<4x64xi8>
  }
  return %0 : tensor<4x64xi8>
}

// -----

// The transpose of an i8 weight moves whole elements.
// CHECK-LABEL: func.func @int8_transpose
// CHECK: accel.constant {accel.dram_address = 64 : i64} dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi8>
func.func @int8_transpose(%x: tensor<1x2xi8>) -> tensor<1x3xi8> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x2xi8>) -> tensor<1x3xi8> {
  ^bb0(%a: tensor<1x2xi8>):
    %w = accel.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
    %1 = accel.fully_connected %a, %w : (tensor<1x2xi8>, tensor<2x3xi8>) -> tensor<1x3xi8>
    accel.yield %1 : tensor<1x3xi8>
  }
  return %0 : tensor<1x3xi8>
}

// -----

// An i4 embedding table of 1000 rows of 33 elements packs two per byte, each
// row starting on a byte: 17 bytes a row, 17000 in all; the 8 gathered rows
// take 136. A msfp8 tensor of 64 rows of 40 pads each row to 48 elements,
// three 9-byte blocks (1728 bytes); its reshape to rows of 64 (four blocks,
// 1440 bytes) moves bytes, so it is no view.
// CHECK-LABEL: func.func @int4_table
// CHECK: accel.card_partition
// CHECK-SAME: accel.dram_bytes = 20480 : i64
// CHECK-SAME: input_addresses = array<i64: 0, 17024, 17088>
// CHECK-SAME: output_addresses = array<i64: 18816, 19008>
// CHECK: accel.gather {{.*}}{accel.dram_address = 18816 : i64}
// CHECK: accel.reshape {{.*}}{accel.dram_address = 19008 : i64} :
// CHECK-SAME: tensor<64x40x!accel.bfp<msfp8>> -> tensor<40x64x!accel.bfp<msfp8>>
func.func @int4_table(%t: tensor<1000x33xi4>, %i: tensor<8xi32>, %q: tensor<64x40x!accel.bfp<msfp8>>) -> (tensor<8x33xi4>, tensor<40x64x!accel.bfp<msfp8>>) {
  %0:2 = accel.card_partition(%t, %i, %q) {card = 0 : i64} : (tensor<1000x33xi4>, tensor<8xi32>, tensor<64x40x!accel.bfp<msfp8>>) -> (tensor<8x33xi4>, tensor<40x64x!accel.bfp<msfp8>>) {
  ^bb0(%a: tensor<1000x33xi4>, %b: tensor<8xi32>, %c: tensor<64x40x!accel.bfp<msfp8>>):
    %1 = accel.gather %a, %b : (tensor<1000x33xi4>, tensor<8xi32>) -> tensor<8x33xi4>
    %2 = accel.reshape %c : tensor<64x40x!accel.bfp<msfp8>> -> tensor<40x64x!accel.bfp<msfp8>>
    accel.yield %1, %2 : tensor<8x33xi4>, tensor<40x64x!accel.bfp<msfp8>>
  }
  return %0#0, %0#1 : tensor<8x33xi4>, tensor<40x64x!accel.bfp<msfp8>>
}

// -----

// Reshapes and slices of packed types stay views where the bytes stay: an
// i4 reshape that keeps the rows (even rows of 64: no padding) and a slice
// of whole rows (rows 2 and 3: offset 2 x 32 bytes = 64).
// CHECK-LABEL: func.func @int4_views
// CHECK: accel.reshape {{.*}}{accel.dram_address = 0 : i64, accel.in_place}
// CHECK: accel.slice {{.*}}{accel.dram_address = 64 : i64, accel.in_place,
func.func @int4_views(%t: tensor<4x64xi4>) -> (tensor<2x128xi4>, tensor<2x64xi4>) {
  %0:2 = accel.card_partition(%t) {card = 0 : i64} : (tensor<4x64xi4>) -> (tensor<2x128xi4>, tensor<2x64xi4>) {
  ^bb0(%a: tensor<4x64xi4>):
    %1 = accel.reshape %a : tensor<4x64xi4> -> tensor<2x128xi4>
    %2 = accel.slice %a {starts = array<i64: 2, 0>, ends = array<i64: 4, 64>, steps = array<i64: 1, 1>} : tensor<4x64xi4> -> tensor<2x64xi4>
    accel.yield %1, %2 : tensor<2x128xi4>, tensor<2x64xi4>
  }
  return %0#0, %0#1 : tensor<2x128xi4>, tensor<2x64xi4>
}

// -----

// The transpose of a 4-bit quantized weight (a packed blob: rows of
// ceil(N / 2) bytes, element 2j in the low nibble) moves nibbles: the 3 x 2
// weight [[1, 2], [3, -4], [5, -8]] becomes the 2 x 3 [[1, 3, 5],
// [2, -4, -8]] in rows of 2 bytes (the odd row's spare nibble zero), and
// its per-column scales move from axis 1 to axis 0. The kernel's
// per-column scales (x_scale x w_scale) become a constant of the partition
// that the kernel loads with one DMA (accel.kernel_constants) instead of a
// v.fill per column.
// CHECK-LABEL: func.func @int4_transpose
// CHECK: accel.constant {accel.dram_address = 64 : i64} dense_resource<weight_t> : tensor<2x3x!quant.uniform<i4:f32:0, {2.500000e-01,5.000000e-01}>>
// CHECK: accel.constant {accel.dram_address = 128 : i64} dense<[1.250000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK: accel.fully_connected {{.*}}accel.kernel_constants = 128 : i64, transpose_weight = true
// CHECK: weight_t: "0x080000003105C208"
func.func @int4_transpose(%x: tensor<1x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x3x!quant.uniform<i8:f32, 0.5>>):
    %w = accel.constant dense_resource<w4> : tensor<3x2x!quant.uniform<i4:f32:1, {0.25, 0.5}>>
    %1 = accel.fully_connected %a, %w : (tensor<1x3x!quant.uniform<i8:f32, 0.5>>, tensor<3x2x!quant.uniform<i4:f32:1, {0.25, 0.5}>>) -> tensor<1x2xf32>
    accel.yield %1 : tensor<1x2xf32>
  }
  return %0 : tensor<1x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w4: "0x0800000021C385"
    }
  }
#-}
