// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{format=mxint8 keep-last=true}))' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=MX
// RUN: not nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{format=mxfp8}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FMT
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{format=mxfp8e5m2}))' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=MXE5
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{format=mxfp8e4m3}))' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=MXFP8
// A target whose matrix unit has no mxint8 mode (brainwave-like: f16,
// msfp8, msfp9, i8) keeps the weights f32, saying why.
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=brainwave-like},func.func(accel-quantize-block-float{format=mxint8}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOMODE
// NOMODE: warning: accel.fully_connected: its weight stays f32, not mxint8: the target's matrix unit has no mxint8 mode (core.macs_per_cycle)
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=brainwave-like},func.func(accel-quantize-block-float{format=mxfp8e5m2}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOMODE5
// NOMODE5: warning: accel.fully_connected: its weight stays f32, not mxfp8e5m2: the target's matrix unit has no mxfp8e5m2 mode (core.macs_per_cycle)

// MXFP8 is spelt with its element type.
// FMT: error: accel-quantize-block-float: format must be msfp8, msfp9, mxint8, mxfp8e4m3 or mxfp8e5m2, got 'mxfp8'

// A K x N weight (K = 16, N = 2) becomes N x K ms-fp8 blocks along K:
// column 0 is [1, 0.5, 0.25, 0, ..., 0, -1.5]: max 1.5 gives exponent 0
// (field 15 = 0x0F), quantum 2^-1: codes 2, 1, 0 (0.25 is half a quantum:
// 0 in RNE), ...,
// sign + 3 (-1.5 -> 3, sign bit 4): bytes 0F 12, 6 zero bytes, then 0x70
// (element 15 in the last high nibble). Column 1 is all 0.75:
// exponent -1 (field 0x0E), quantum 2^-2, codes 3: 0E 33 x 8.
// CHECK-LABEL: func.func @fc
// CHECK: %[[W:.*]] = accel.constant dense_resource<weight_msfp8> : tensor<2x16x!accel.bfp<msfp8>>
// CHECK: accel.fully_connected %arg0, %[[W]] {k_tile = 64 : i64, transpose_weight = true} : (tensor<1x16xf32>, tensor<2x16x!accel.bfp<msfp8>>) -> tensor<1x2xf32>
// CHECK: weight_msfp8: "0x080000000F12000000000000700E3333333333333333"
// MX-LABEL: func.func @fc
// MX: accel.fully_connected %arg0, %{{.*}} : (tensor<1x16xf32>, tensor<16x2xf32>)
func.func @fc(%x: tensor<1x16xf32>) -> tensor<1x2xf32> {
  %w = accel.constant dense<[[1.0, 0.75], [0.5, 0.75], [0.25, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [0.0, 0.75], [-1.5, 0.75]]> : tensor<16x2xf32>
  %r = accel.fully_connected %x, %w : (tensor<1x16xf32>, tensor<16x2xf32>) -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}

// -----

// K = 24 is not a whole number of blocks: the weight stays f32, with a
// warning naming the node; so does a weight that is not a constant.
// CHECK-LABEL: func.func @odd
// CHECK: accel.fully_connected %arg0, %{{.*}} : (tensor<1x24xf32>, tensor<24x8xf32>) -> tensor<1x8xf32>
// CHECK: accel.fully_connected %arg0, %arg1 {transpose_weight = true} : (tensor<1x24xf32>, tensor<4x24xf32>)
func.func @odd(%x: tensor<1x24xf32>, %v: tensor<4x24xf32>) -> (tensor<1x8xf32>, tensor<1x4xf32>) {
  %w = accel.constant dense<0.5> : tensor<24x8xf32>
  // expected-warning @+1 {{its weight stays f32, not msfp8: K = 24 is not a multiple of the msfp8 block size 16}}
  %r = accel.fully_connected %x, %w : (tensor<1x24xf32>, tensor<24x8xf32>) -> tensor<1x8xf32>
  // expected-warning @+1 {{its weight stays f32, not msfp8: its weight is not a constant}}
  %s = accel.fully_connected %x, %v {transpose_weight = true} : (tensor<1x24xf32>, tensor<4x24xf32>) -> tensor<1x4xf32>
  return %r, %s : tensor<1x8xf32>, tensor<1x4xf32>
}

// -----

// Precision hints decide per node: a block type picks the format (the
// hint loses its precision), a float keeps the weight for
// accel-apply-precision. keep-last keeps the last product f32 unless a
// hint converts it. A weight two products share is converted once.
// CHECK-LABEL: func.func @hints
// CHECK-DAG: %[[M:.*]] = accel.constant dense_resource<weight_mxint8> : tensor<32x64x!accel.bfp<mxint8>>
// CHECK-DAG: %[[S:.*]] = accel.constant dense_resource<weight_msfp8> : tensor<32x64x!accel.bfp<msfp8>>
// CHECK: accel.fully_connected %arg0, %[[S]] {k_tile = 64 : i64, transpose_weight = true}
// CHECK: accel.fully_connected %arg0, %[[S]] {k_tile = 64 : i64, transpose_weight = true}
// CHECK: accel.fully_connected %arg0, %{{.*}} {accel.hint = #accel.hint<precision = f16>} : (tensor<1x64xf32>, tensor<64x32xf32>)
// CHECK: accel.fully_connected %arg0, %[[M]] {k_tile = 64 : i64, transpose_weight = true} : (tensor<1x64xf32>, tensor<32x64x!accel.bfp<mxint8>>)
// MX-LABEL: func.func @hints
// MX: accel.fully_connected %arg0, %{{.*}} {k_tile = 64 : i64, transpose_weight = true} : (tensor<1x64xf32>, tensor<32x64x!accel.bfp<mxint8>>)
// MX: accel.fully_connected %arg0, %{{.*}} {k_tile = 64 : i64, transpose_weight = true} : (tensor<1x64xf32>, tensor<32x64x!accel.bfp<mxint8>>)
// MX: accel.fully_connected %arg0, %{{.*}} {accel.hint = #accel.hint<precision = f16>} : (tensor<1x64xf32>, tensor<64x32xf32>)
// MX: accel.fully_connected %arg0, %{{.*}} {k_tile = 64 : i64, transpose_weight = true} : (tensor<1x64xf32>, tensor<32x64x!accel.bfp<mxint8>>)
func.func @hints(%x: tensor<1x64xf32>) -> (tensor<1x32xf32>, tensor<1x32xf32>, tensor<1x32xf32>, tensor<1x32xf32>) {
  %w = accel.constant dense<0.25> : tensor<64x32xf32>
  %a = accel.fully_connected %x, %w : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
  %b = accel.fully_connected %x, %w : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
  %c = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = f16>} : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
  %d = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = !accel.bfp<mxint8>>} : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
  return %a, %b, %c, %d : tensor<1x32xf32>, tensor<1x32xf32>, tensor<1x32xf32>, tensor<1x32xf32>
}

// -----

// A matmul by a constant matrix becomes a fully_connected between
// reshapes first (as accel-recognize-idioms does); a matmul of two
// activations stays.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[W:.*]] = accel.constant dense_resource<weight_msfp8> : tensor<8x32x!accel.bfp<msfp8>>
// CHECK: %[[X:.*]] = accel.reshape %arg0 : tensor<2x3x32xf32> -> tensor<6x32xf32>
// CHECK: %[[P:.*]] = accel.fully_connected %[[X]], %[[W]] {k_tile = 64 : i64, transpose_weight = true} : (tensor<6x32xf32>, tensor<8x32x!accel.bfp<msfp8>>) -> tensor<6x8xf32>
// CHECK: accel.reshape %[[P]] : tensor<6x8xf32> -> tensor<2x3x8xf32>
// CHECK: accel.matmul %arg0, %arg1 : (tensor<2x3x32xf32>, tensor<32x8xf32>)
func.func @matmul(%x: tensor<2x3x32xf32>, %y: tensor<32x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %w = accel.constant dense<1.0> : tensor<32x8xf32>
  %r = accel.matmul %x, %w : (tensor<2x3x32xf32>, tensor<32x8xf32>) -> tensor<2x3x8xf32>
  %s = accel.matmul %x, %y : (tensor<2x3x32xf32>, tensor<32x8xf32>) -> tensor<2x3x8xf32>
  return %r, %s : tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// MXFP8 E4M3 (OCP MX): K = 32, N = 1, one block of 32 with an E8M0 scale.
// max |v| = 3.0: X = floor(log2 3) - 8 = -7 (scale byte 127 - 7 = 0x78);
// elements v * 2^7: 384 = 1.5 * 2^8 -> 0x7C, -96 = -1.5 * 2^6 -> 0xEC,
// 0.128 rounds to 2^-3 (1.024 -> 1.0) -> 0x20, the rest 0.
// MXFP8-LABEL: func.func @mxfp8
// MXFP8: %[[W:.*]] = accel.constant dense_resource<weight_mxfp8e4m3> : tensor<1x32x!accel.bfp<mxfp8e4m3>>
// MXFP8: accel.fully_connected %arg0, %[[W]] {k_tile = 64 : i64, transpose_weight = true} : (tensor<1x32xf32>, tensor<1x32x!accel.bfp<mxfp8e4m3>>) -> tensor<1x1xf32>
// MXFP8: weight_mxfp8e4m3: "0x08000000787CEC200000000000000000000000000000000000000000000000000000000000"
func.func @mxfp8(%x: tensor<1x32xf32>) -> tensor<1x1xf32> {
  %w = accel.constant dense<[[3.0], [-0.75], [0.001], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]> : tensor<32x1xf32>
  %r = accel.fully_connected %x, %w : (tensor<1x32xf32>, tensor<32x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// -----

// MXFP8 E5M2: K = 32, N = 1. max |v| = 3.75: X = floor(log2 3.75) - 15 =
// -14 (scale byte 127 - 14 = 0x71); elements v * 2^14: 61440 is beyond
// E5M2's largest element 57344 (1.75 * 2^15) and saturates to it (0x7B),
// -12288 = -1.5 * 2^13 -> 0xF2, 0.001 -> 16.384 = 1.024 * 2^4 -> 2^4 (0x4C),
// 0.0001 -> 1.6384 -> 1.75 (two mantissa bits, 0x3F), the rest 0.
// MXE5-LABEL: func.func @mxfp8e5m2
// MXE5: %[[W:.*]] = accel.constant dense_resource<weight_mxfp8e5m2> : tensor<1x32x!accel.bfp<mxfp8e5m2>>
// MXE5: accel.fully_connected %arg0, %[[W]] {k_tile = 64 : i64, transpose_weight = true} : (tensor<1x32xf32>, tensor<1x32x!accel.bfp<mxfp8e5m2>>) -> tensor<1x1xf32>
// MXE5: weight_mxfp8e5m2: "0x08000000717BF24C3F00000000000000000000000000000000000000000000000000000000"
func.func @mxfp8e5m2(%x: tensor<1x32xf32>) -> tensor<1x1xf32> {
  %w = accel.constant dense<[[3.75], [-0.75], [0.001], [0.0001], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0], [0.0]]> : tensor<32x1xf32>
  %r = accel.fully_connected %x, %w : (tensor<1x32xf32>, tensor<32x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
