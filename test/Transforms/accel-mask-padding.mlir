// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-mask-padding))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-mask-padding{exact=false}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VALUE

// Masked: self-attention over a padded sequence. The scores are padded
// along both axes; softmax over the keys gets the -65504 bias, so the
// product with the values, which contracts over the padded axis, needs no
// mask of its own (the weights of padded keys are exactly zero); the mean
// over the sequence becomes a masked sum over the true length.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf32> {accel.padded_axis = 0 : i64}
// CHECK-SAME: %[[LEN:[^:]*]]: tensor<1xf32> {accel.valid_length, onnx.name = "valid_length"}
// CHECK: %[[IOTA:.*]] = accel.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>
// CHECK: %[[D:.*]] = accel.sub %[[LEN]], %[[IOTA]]
// CHECK: %[[M:.*]] = accel.clip %[[D]] {max = 1.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<8xf32>
// CHECK: %[[S:.*]] = accel.sub %[[M]], %{{.*}} : (tensor<8xf32>, tensor<f32>)
// CHECK: %[[BIAS:.*]] = accel.mul %[[S]], %{{.*}} : (tensor<8xf32>, tensor<f32>)
// CHECK: %[[MCOL:.*]] = accel.reshape %[[M]] : tensor<8xf32> -> tensor<8x1xf32>
// CHECK: %[[Q:.*]] = accel.fully_connected %[[X]], %{{.*}} {accel.padded_axes = array<i64: 0>}
// CHECK: %[[KT:.*]] = accel.transpose %[[Q]] {accel.padded_axes = array<i64: 1>
// CHECK: %[[SC:.*]] = accel.matmul %[[Q]], %[[KT]] {accel.padded_axes = array<i64: 0, 1>}
// CHECK: %[[SB:.*]] = accel.add %[[SC]], %[[BIAS]] : (tensor<8x8xf32>, tensor<8xf32>)
// CHECK: %[[P:.*]] = accel.softmax %[[SB]] {accel.padded_axes = array<i64: 0, 1>, accel.padding_mask = "softmax", axis = 1 : i64}
// CHECK-NEXT: %[[O:.*]] = accel.matmul %[[P]], %[[Q]] {accel.padded_axes = array<i64: 0>, accel.padding_mask = "zero-operand"}
// CHECK: %[[OM:.*]] = accel.mul %[[O]], %[[MCOL]]
// CHECK: %[[SUM:.*]] = accel.reduce_sum %[[OM]] {accel.padding_mask = "reduce-mean", axes = array<i64: 0>, keepdims = false}
// CHECK: %[[MEAN:.*]] = accel.div %[[SUM]], %[[LEN]] : (tensor<16xf32>, tensor<1xf32>) -> tensor<16xf32>
// CHECK-NOT: accel.reduce_mean
// CHECK: return %[[MEAN]], %[[O]] : tensor<16xf32>, tensor<8x16xf32>
// VALUE-LABEL: func.func @attention
// VALUE-NOT: valid_length
// VALUE: accel.softmax %{{[0-9]+}} {accel.padded_axes = array<i64: 0, 1>, axis = 1 : i64}
// VALUE: accel.reduce_mean
func.func @attention(%x: tensor<8x16xf32> {accel.padded_axis = 0 : i64}, %w: tensor<16x16xf32>)
    -> (tensor<16xf32>, tensor<8x16xf32>) {
  %q = accel.fully_connected %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %kt = accel.transpose %q {permutation = array<i64: 1, 0>} : tensor<8x16xf32> -> tensor<16x8xf32>
  %s = accel.matmul %q, %kt : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %p = accel.softmax %s {axis = 1 : i64} : tensor<8x8xf32>
  %o = accel.matmul %p, %q : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = accel.reduce_mean %o {axes = array<i64: 0>, keepdims = false} : tensor<8x16xf32> -> tensor<16xf32>
  return %m, %o : tensor<16xf32>, tensor<8x16xf32>
}

// -----

// Masked: max over the padded axis adds the bias after zeroing; a sum over
// two axes, one of them padded, needs only the 0/1 mask; a mean over both
// divides by the true length times the other axis.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: %[[LEN:[^:]*]]: tensor<1xf32> {accel.valid_length
// CHECK: %[[M:.*]] = accel.clip
// CHECK: %[[MCOL:.*]] = accel.reshape %[[M]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[BCOL:.*]] = accel.mul %{{.*}} : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
// CHECK: %[[Z:.*]] = accel.mul %arg0, %[[MCOL]]
// CHECK: %[[ZB:.*]] = accel.add %[[Z]], %[[BCOL]]
// CHECK: accel.reduce_max %[[ZB]] {accel.padding_mask = "reduce-max", axes = array<i64: 0>}
// CHECK: %[[Z2:.*]] = accel.mul %arg0, %[[MCOL]]
// CHECK: accel.reduce_sum %[[Z2]] {accel.padding_mask = "reduce-sum", axes = array<i64: 0, 1>}
// CHECK: %[[Z3:.*]] = accel.mul %arg0, %[[MCOL]]
// CHECK: %[[N:.*]] = accel.mul %[[LEN]], %{{.*}} : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
// CHECK: %[[S:.*]] = accel.reduce_sum %[[Z3]] {accel.padding_mask = "reduce-mean", axes = array<i64>, keepdims = false} : tensor<4x3xf32> -> tensor<f32>
// CHECK: %[[N0:.*]] = accel.reshape %[[N]] : tensor<1xf32> -> tensor<f32>
// CHECK: accel.div %[[S]], %[[N0]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @reductions(%x: tensor<4x3xf32> {accel.padded_axis = 0 : i64})
    -> (tensor<1x3xf32>, tensor<1x1xf32>, tensor<f32>) {
  %mx = accel.reduce_max %x {axes = array<i64: 0>} : tensor<4x3xf32> -> tensor<1x3xf32>
  %s = accel.reduce_sum %x {axes = array<i64: 0, 1>} : tensor<4x3xf32> -> tensor<1x1xf32>
  %m = accel.reduce_mean %x {axes = array<i64>, keepdims = false} : tensor<4x3xf32> -> tensor<f32>
  return %mx, %s, %m : tensor<1x3xf32>, tensor<1x1xf32>, tensor<f32>
}

// -----

// Masked: a product over the padded axis with garbage in the padded rows
// (here against a constant) zeroes them first.
// CHECK-LABEL: func.func @contraction
// CHECK: %[[M:.*]] = accel.clip
// CHECK: %[[MCOL:.*]] = accel.reshape %[[M]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[Z:.*]] = accel.mul %arg0, %[[MCOL]] : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
// CHECK: accel.fully_connected %[[Z]], %{{.*}} {accel.padding_mask = "contraction", transpose_input = true}
func.func @contraction(%x: tensor<4x3xf32> {accel.padded_axis = 0 : i64}) -> tensor<3x2xf32> {
  %w = accel.constant dense<1.0> : tensor<4x2xf32>
  %y = accel.fully_connected %x, %w {transpose_input = true} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Not needed: every op works per position (an embedding lookup, a
// per-row product, layer norm over the features, a reshape that keeps the
// padded axis, a reduction over the features). No mask, no length input;
// the result is marked padded along axis 1, which the runtime crops.
// CHECK-LABEL: func.func @per_position
// CHECK-SAME: (%{{[^:]*}}: tensor<1x6xi64> {accel.padded_axis = 1 : i64}) -> (tensor<1x6xf32> {accel.padded_axes = array<i64: 1>})
// CHECK-NOT: accel.padding_mask
// CHECK-NOT: valid_length
// CHECK: accel.gather {{.*}}accel.padded_axes = array<i64: 1>
// CHECK: accel.reshape {{.*}}accel.padded_axes = array<i64: 0>
// CHECK: accel.fully_connected {{.*}}accel.padded_axes = array<i64: 0>
// CHECK: accel.layer_norm {{.*}}accel.padded_axes = array<i64: 0>
// CHECK: accel.reduce_sum {{.*}}accel.padded_axes = array<i64: 0>
// CHECK: accel.reshape {{.*}}accel.padded_axes = array<i64: 1>
func.func @per_position(%ids: tensor<1x6xi64> {accel.padded_axis = 1 : i64}) -> tensor<1x6xf32> {
  %table = accel.constant dense<0.5> : tensor<10x4xf32>
  %w = accel.constant dense<0.25> : tensor<4x4xf32>
  %g = accel.constant dense<1.0> : tensor<4xf32>
  %e = accel.gather %table, %ids : (tensor<10x4xf32>, tensor<1x6xi64>) -> tensor<1x6x4xf32>
  %r = accel.reshape %e : tensor<1x6x4xf32> -> tensor<6x4xf32>
  %h = accel.fully_connected %r, %w : (tensor<6x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
  %n = accel.layer_norm %h, %g {axis = 1 : i64} : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6x4xf32>
  %s = accel.reduce_sum %n {axes = array<i64: 1>, keepdims = false} : tensor<6x4xf32> -> tensor<6xf32>
  %o = accel.reshape %s : tensor<6xf32> -> tensor<1x6xf32>
  return %o : tensor<1x6xf32>
}

// -----

// Masked: a "same" convolution along the padded axis (stride 1, output as
// long as the input) reads the padded neighbours of the last valid
// positions, which at the true length would be its own zero padding: the
// padded input is zeroed.
// CHECK-LABEL: func.func @conv
// CHECK: %[[M:.*]] = accel.clip
// CHECK: %[[Z:.*]] = accel.mul %arg0, %[[M]] : (tensor<1x2x8xf32>, tensor<8xf32>) -> tensor<1x2x8xf32>
// CHECK: accel.conv %[[Z]], %arg1 {accel.padded_axes = array<i64: 2>, accel.padding_mask = "convolution"
// VALUE-LABEL: func.func @conv
// VALUE-NOT: error
// VALUE: accel.conv %arg0, %arg1 {accel.padded_axes = array<i64: 2>, dilations
func.func @conv(%x: tensor<1x2x8xf32> {accel.padded_axis = 2 : i64}, %w: tensor<2x2x3xf32>) -> tensor<1x2x8xf32> {
  %y = accel.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1>} : (tensor<1x2x8xf32>, tensor<2x2x3xf32>) -> tensor<1x2x8xf32>
  return %y : tensor<1x2x8xf32>
}

// -----

// Refused: a strided convolution along the padded axis changes its length,
// so padded positions would land among the outputs of a shorter sequence.
func.func @strided_conv(%x: tensor<1x2x8xf32> {accel.padded_axis = 2 : i64}, %w: tensor<2x2x3xf32>) -> tensor<1x2x4xf32> {
  // expected-error @below {{'accel.conv' op cannot be padded exactly: it mixes positions along the padded axis 2 and changes its length (stride or padding other than 'same') (compile with --pad-mode=value:<v> to pad without exactness)}}
  %y = accel.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 1, 1>, dilations = array<i64: 1>} : (tensor<1x2x8xf32>, tensor<2x2x3xf32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

// Refused: max pooling along the padded axis.
func.func @pool(%x: tensor<1x2x8xf32> {accel.padded_axis = 2 : i64}) -> tensor<1x2x4xf32> {
  // expected-error @below {{'accel.max_pool' op cannot be padded exactly: it mixes positions along the padded axis 2 of operand #0}}
  %y = accel.max_pool %x {dilations = array<i64: 1>, kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>} : tensor<1x2x8xf32> -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

// Masked: layer norm over the padded axis becomes its formula with masked
// statistics (sums over the valid positions divided by the true count, the
// true length times the other normalised axis).
// CHECK-LABEL: func.func @norm
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x8x3xf32> {accel.padded_axis = 1 : i64}, %[[G:[^:]*]]: tensor<8x3xf32>, %[[LEN:[^:]*]]: tensor<1xf32> {accel.valid_length
// CHECK: %[[M:.*]] = accel.clip
// CHECK: %[[MCOL:.*]] = accel.reshape %[[M]] : tensor<8xf32> -> tensor<8x1xf32>
// CHECK: %[[N:.*]] = accel.mul %[[LEN]], %{{.*}} : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
// CHECK: %[[XM:.*]] = accel.mul %[[X]], %[[MCOL]]
// CHECK: %[[S:.*]] = accel.reduce_sum %[[XM]] {axes = array<i64: 1, 2>} : tensor<2x8x3xf32> -> tensor<2x1x1xf32>
// CHECK: %[[MEAN:.*]] = accel.div %[[S]], %[[N]]
// CHECK: %[[D:.*]] = accel.sub %[[X]], %[[MEAN]]
// CHECK: %[[DM:.*]] = accel.mul %[[D]], %[[MCOL]]
// CHECK: %[[SQ:.*]] = accel.mul %[[DM]], %[[DM]]
// CHECK: %[[VS:.*]] = accel.reduce_sum %[[SQ]]
// CHECK: %[[VAR:.*]] = accel.div %[[VS]], %[[N]]
// CHECK: %[[VE:.*]] = accel.add %[[VAR]]
// CHECK: %[[SD:.*]] = accel.sqrt %[[VE]]
// CHECK: %[[Y:.*]] = accel.div %[[DM]], %[[SD]]
// CHECK: %[[R:.*]] = accel.mul %[[Y]], %[[G]] {accel.padded_axes = array<i64: 1>, accel.padding_mask = "layer-norm"}
// CHECK-NOT: accel.layer_norm
// CHECK: return %[[R]]
func.func @norm(%x: tensor<2x8x3xf32> {accel.padded_axis = 1 : i64}, %g: tensor<8x3xf32>) -> tensor<2x8x3xf32> {
  %y = accel.layer_norm %x, %g {axis = 1 : i64} : (tensor<2x8x3xf32>, tensor<8x3xf32>) -> tensor<2x8x3xf32>
  return %y : tensor<2x8x3xf32>
}

// -----

// Refused: layer norm whose scale holds padded positions.
func.func @norm_scale(%x: tensor<2x8xf32>, %g: tensor<8xf32> {accel.padded_axis = 0 : i64}) -> tensor<2x8xf32> {
  // expected-error @below {{'accel.layer_norm' op cannot be padded exactly: its scale or bias holds padded positions}}
  %y = accel.layer_norm %x, %g {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Refused: a slice that keeps part of the padded axis.
func.func @slice(%x: tensor<8x4xf32> {accel.padded_axis = 0 : i64}) -> tensor<2x4xf32> {
  // expected-error @below {{'accel.slice' op cannot be padded exactly: it slices the padded axis 0}}
  %y = accel.slice %x {starts = array<i64: 6, 0>, ends = array<i64: 8, 4>, steps = array<i64: 1, 1>} : tensor<8x4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Refused: a reshape that merges the padded axis with the features.
func.func @flatten(%x: tensor<8x4xf32> {accel.padded_axis = 0 : i64}) -> tensor<32xf32> {
  // expected-error @below {{'accel.reshape' op cannot be padded exactly: it merges or splits the padded axis 0 with other axes}}
  %y = accel.reshape %x : tensor<8x4xf32> -> tensor<32xf32>
  return %y : tensor<32xf32>
}
