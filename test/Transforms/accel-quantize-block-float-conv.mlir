// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{format=mxint8}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MX
// A target whose matrix unit has no mxint8 mode keeps conv weights f32 too.
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=brainwave-like},func.func(accel-quantize-block-float{format=mxint8}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOMODE
// NOMODE: warning: accel.conv: its weight stays f32, not mxint8: the target's matrix unit has no mxint8 mode (core.macs_per_cycle)

// Convolutions in block floating point (accel-quantize-block-float): a
// conv's F x C x K1 x K2 f32 weight becomes F x K rows with blocks along K
// (K = C x K1 x K2; a 1x1 conv's K = C), `kernel_shape` keeps the kernel's
// size and `k_tile` the matrix
// unit's tile: the widest multiple of the block size up to native_dim (64)
// that divides K. K = 32: one tile of 32 in msfp8 and mxint8. The codes:
// filter 0 is [1.0, 0.5, 0.25, 0 x 12, -1.5] then 16 x 0.75, as the FC test
// of accel-quantize-block-float.mlir (exponent 0: 0F 12 0 x 6 70; exponent
// -1, codes 3: 0E 33 x 8); filter 1 is all zeros (E = 0, codes 0).
// CHECK-LABEL: func.func @pointwise
// CHECK: %[[W:.*]] = accel.constant dense_resource<weight_msfp8> : tensor<2x32x!accel.bfp<msfp8>>
// CHECK: accel.conv %arg0, %[[W]], %{{.*}} {dilations = array<i64: 1, 1>, k_tile = 32 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x32x4x4xf32>, tensor<2x32x!accel.bfp<msfp8>>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK: weight_msfp8: "0x080000000F12000000000000700E3333333333333333000000000000000000000000000000000000"
// MX-LABEL: func.func @pointwise
// MX: accel.conv %arg0, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, k_tile = 32 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x32x4x4xf32>, tensor<2x32x!accel.bfp<mxint8>>, tensor<2xf32>)
func.func @pointwise(%x: tensor<1x32x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = accel.constant dense<[[[[1.0]], [[0.5]], [[0.25]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[-1.5]],
                              [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]], [[0.75]]],
                             [[[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]],
                              [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]]]]> : tensor<2x32x1x1xf32>
  %b = accel.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %r = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x32x4x4xf32>, tensor<2x32x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// K = 96 has no tile of 64: msfp8 tiles of 48 (two), mxint8 of 32 (three).
// A strided 1x1 conv converts too; a weight two convs share is converted
// once.
// CHECK-LABEL: func.func @tiles
// CHECK: %[[W:.*]] = accel.constant dense_resource<weight_msfp8> : tensor<80x96x!accel.bfp<msfp8>>
// CHECK: accel.conv %arg0, %[[W]] {dilations = array<i64: 1, 1>, k_tile = 48 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK: accel.conv %arg0, %[[W]] {dilations = array<i64: 1, 1>, k_tile = 48 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x96x8x8xf32>, tensor<80x96x!accel.bfp<msfp8>>) -> tensor<1x80x4x4xf32>
// MX-LABEL: func.func @tiles
// MX: accel.conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, k_tile = 32 : i64, kernel_shape = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x96x8x8xf32>, tensor<80x96x!accel.bfp<mxint8>>)
func.func @tiles(%x: tensor<1x96x8x8xf32>) -> (tensor<1x80x8x8xf32>, tensor<1x80x4x4xf32>) {
  %w = accel.constant dense<0.125> : tensor<80x96x1x1xf32>
  %r = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x96x8x8xf32>, tensor<80x96x1x1xf32>) -> tensor<1x80x8x8xf32>
  %s = accel.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x96x8x8xf32>, tensor<80x96x1x1xf32>) -> tensor<1x80x4x4xf32>
  return %r, %s : tensor<1x80x8x8xf32>, tensor<1x80x4x4xf32>
}

// -----

// What keeps f32, with a warning naming the node and the reason: K = 24
// (not whole blocks), a depthwise conv, a grouped one, a weight that is not
// a constant. A 3x3 conv converts: K = 32 x 9 = 288 in the f32 weight's
// order (channel, then kernel row and column), tiles of 48. A float precision hint keeps the
// weight without a warning; a block type hint converts to that format.
// CHECK-LABEL: func.func @kept
// CHECK: accel.conv %arg0, %{{.*}} {{.*}}: (tensor<1x24x6x6xf32>, tensor<16x24x1x1xf32>) -> tensor<1x16x6x6xf32>
// CHECK: accel.conv %{{.*}}, %{{.*}} {{.*}}groups = 16 : i64{{.*}}: (tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x6x6xf32>
// CHECK: accel.conv %{{.*}}, %{{.*}} {{.*}}groups = 2 : i64{{.*}}: (tensor<1x16x6x6xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x6x6xf32>
// CHECK: accel.conv %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, k_tile = 48 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x32x6x6xf32>, tensor<16x288x!accel.bfp<msfp8>>) -> tensor<1x16x6x6xf32>
// CHECK: accel.conv %{{.*}}, %arg1 {{.*}}: (tensor<1x16x6x6xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x6x6xf32>
// CHECK: accel.conv %{{.*}}, %{{.*}} {accel.hint = #accel.hint<precision = f16>, {{.*}}: (tensor<1x16x6x6xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x6x6xf32>
// CHECK: accel.conv %{{.*}}, %{{.*}} {{{.*}}k_tile = 16 : i64, kernel_shape = array<i64: 1, 1>{{.*}}: (tensor<1x16x6x6xf32>, tensor<16x16x!accel.bfp<msfp9>>) -> tensor<1x16x6x6xf32>
// MX: warning: accel.conv: its weight stays f32, not mxint8: K = 24 is not a multiple of the mxint8 block size 32
func.func @kept(%x: tensor<1x24x6x6xf32>, %v: tensor<16x16x1x1xf32>) -> tensor<1x16x6x6xf32> {
  %w0 = accel.constant dense<0.5> : tensor<16x24x1x1xf32>
  // expected-warning @+1 {{its weight stays f32, not msfp8: K = 24 is not a multiple of the msfp8 block size 16}}
  %a = accel.conv %x, %w0 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x24x6x6xf32>, tensor<16x24x1x1xf32>) -> tensor<1x16x6x6xf32>
  %w1 = accel.constant dense<0.5> : tensor<16x1x3x3xf32>
  // expected-warning @+1 {{its weight stays f32, not msfp8: depthwise convolutions have no reduction over channels for blocks}}
  %b = accel.conv %a, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : (tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x6x6xf32>
  %w2 = accel.constant dense<0.5> : tensor<32x8x1x1xf32>
  // expected-warning @+1 {{its weight stays f32, not msfp8: grouped convolutions (groups = 2) are not converted}}
  %c = accel.conv %b, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x16x6x6xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x6x6xf32>
  %w3 = accel.constant dense<0.5> : tensor<16x32x3x3xf32>
  %d = accel.conv %c, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x32x6x6xf32>, tensor<16x32x3x3xf32>) -> tensor<1x16x6x6xf32>
  // expected-warning @+1 {{its weight stays f32, not msfp8: its weight is not a constant}}
  %e = accel.conv %d, %v {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x16x6x6xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x6x6xf32>
  %w4 = accel.constant dense<0.5> : tensor<16x16x1x1xf32>
  %f = accel.conv %e, %w4 {accel.hint = #accel.hint<precision = f16>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x16x6x6xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x6x6xf32>
  %w5 = accel.constant dense<0.25> : tensor<16x16x1x1xf32>
  %g = accel.conv %f, %w5 {accel.hint = #accel.hint<precision = !accel.bfp<msfp9>>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x16x6x6xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x6x6xf32>
  return %g : tensor<1x16x6x6xf32>
}
