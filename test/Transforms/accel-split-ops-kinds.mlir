// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-split-ops))' | FileCheck %s

// Each op kind's split rules, made deterministic with a hint for two
// pieces (the cost model picks among the kind's rules); rules follow the
// op: which axis is cut and which operands are cut with it.

// A batched matmul by batch: both operands cut along it.
// CHECK-LABEL: func.func @matmul_batch
// CHECK: accel.slice %{{.*}}ends = array<i64: 2, 64, 64>, starts = array<i64: 0, 0, 0>
// CHECK: accel.matmul {{.*}}accel.split = array<i64: 0, 0, 2>} : (tensor<2x64x64xf32>, tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
// CHECK: accel.matmul {{.*}}accel.split = array<i64: 0, 1, 2>}
// CHECK: accel.concat {{.*}}{axis = 0 : i64}
func.func @matmul_batch(%a: tensor<4x64x64xf32>, %b: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %0 = accel.card_partition(%a, %b) {card = 0 : i64} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  ^bb0(%x: tensor<4x64x64xf32>, %y: tensor<4x64x64xf32>):
    %1 = accel.matmul %x, %y {accel.hint = #accel.hint<chunks = 2, parallel = data>} : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    accel.yield %1 : tensor<4x64x64xf32>
  }
  return %0 : tensor<4x64x64xf32>
}

// -----

// A convolution by filters (model-parallel): each piece reads the whole
// input, its filters and biases (cut at compile time).
// CHECK-LABEL: func.func @conv_filters
// CHECK: accel.conv %{{[a-z0-9]+}}, %{{.*}}accel.split = array<i64: 1, 0, 2>
// CHECK-SAME: (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
// CHECK: accel.conv {{.*}}accel.split = array<i64: 1, 1, 2>
// CHECK: accel.concat {{.*}}{axis = 1 : i64}
func.func @conv_filters(%a: tensor<1x16x32x32xf32>) -> tensor<1x32x32x32xf32> {
  %0 = accel.card_partition(%a) {card = 0 : i64} : (tensor<1x16x32x32xf32>) -> tensor<1x32x32x32xf32> {
  ^bb0(%x: tensor<1x16x32x32xf32>):
    %w = accel.constant dense<0.5> : tensor<32x16x3x3xf32>
    %b = accel.constant dense<1.0> : tensor<32xf32>
    %1 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, accel.hint = #accel.hint<chunks = 2, parallel = model>} : (tensor<1x16x32x32xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x32x32xf32>
    accel.yield %1 : tensor<1x32x32x32xf32>
  }
  return %0 : tensor<1x32x32x32xf32>
}

// -----

// A convolution by images (data-parallel): the filters are shared.
// CHECK-LABEL: func.func @conv_batch
// CHECK: accel.slice %{{.*}}ends = array<i64: 1, 16, 32, 32>, starts = array<i64: 0, 0, 0, 0>
// CHECK: accel.conv {{.*}}accel.split = array<i64: 0, 0, 2>
// CHECK-SAME: (tensor<1x16x32x32xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x32x32xf32>
// CHECK: accel.concat {{.*}}{axis = 0 : i64}
func.func @conv_batch(%a: tensor<2x16x32x32xf32>) -> tensor<2x32x32x32xf32> {
  %0 = accel.card_partition(%a) {card = 0 : i64} : (tensor<2x16x32x32xf32>) -> tensor<2x32x32x32xf32> {
  ^bb0(%x: tensor<2x16x32x32xf32>):
    %w = accel.constant dense<0.5> : tensor<32x16x3x3xf32>
    %1 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, accel.hint = #accel.hint<chunks = 2, parallel = data>} : (tensor<2x16x32x32xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x32x32xf32>
    accel.yield %1 : tensor<2x32x32x32xf32>
  }
  return %0 : tensor<2x32x32x32xf32>
}

// -----

// A layer norm by rows; its scale and bias are read whole by every piece.
// CHECK-LABEL: func.func @layer_norm_rows
// CHECK: accel.layer_norm {{.*}}accel.split = array<i64: 0, 0, 2>, axis = 1 : i64} : (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
// CHECK: accel.layer_norm {{.*}}accel.split = array<i64: 0, 1, 2>
// CHECK: accel.concat {{.*}}{axis = 0 : i64}
func.func @layer_norm_rows(%a: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %0 = accel.card_partition(%a) {card = 0 : i64} : (tensor<128x64xf32>) -> tensor<128x64xf32> {
  ^bb0(%x: tensor<128x64xf32>):
    %g = accel.constant dense<2.0> : tensor<64xf32>
    %b = accel.constant dense<1.0> : tensor<64xf32>
    %1 = accel.layer_norm %x, %g, %b {axis = 1 : i64, accel.hint = #accel.hint<chunks = 2>} : (tensor<128x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
    accel.yield %1 : tensor<128x64xf32>
  }
  return %0 : tensor<128x64xf32>
}

// -----

// A pool by channels (windows never cross them).
// CHECK-LABEL: func.func @pool_channels
// CHECK: accel.slice %{{.*}}ends = array<i64: 1, 16, 32, 32>, starts = array<i64: 0, 0, 0, 0>
// CHECK: accel.max_pool {{.*}}accel.split = array<i64: 1, 0, 2>
// CHECK-SAME: tensor<1x16x32x32xf32> -> tensor<1x16x16x16xf32>
// CHECK: accel.concat {{.*}}{axis = 1 : i64}
func.func @pool_channels(%a: tensor<1x32x32x32xf32>) -> tensor<1x32x16x16xf32> {
  %0 = accel.card_partition(%a) {card = 0 : i64} : (tensor<1x32x32x32xf32>) -> tensor<1x32x16x16xf32> {
  ^bb0(%x: tensor<1x32x32x32xf32>):
    %1 = accel.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, accel.hint = #accel.hint<chunks = 2>} : tensor<1x32x32x32xf32> -> tensor<1x32x16x16xf32>
    accel.yield %1 : tensor<1x32x16x16xf32>
  }
  return %0 : tensor<1x32x16x16xf32>
}

// -----

// A transpose: result axis 0 is input axis permutation[0] = 1, so the
// pieces read column blocks of the input.
// CHECK-LABEL: func.func @transpose_cols
// CHECK: accel.slice %{{.*}}ends = array<i64: 64, 64>, starts = array<i64: 0, 0>
// CHECK: accel.transpose {{.*}}accel.split = array<i64: 0, 0, 2>
// CHECK: accel.slice %{{.*}}ends = array<i64: 64, 128>, starts = array<i64: 0, 64>
// CHECK: accel.transpose {{.*}}accel.split = array<i64: 0, 1, 2>
// CHECK: accel.concat {{.*}}{axis = 0 : i64} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
func.func @transpose_cols(%a: tensor<64x128xf32>) -> tensor<128x64xf32> {
  %0 = accel.card_partition(%a) {card = 0 : i64} : (tensor<64x128xf32>) -> tensor<128x64xf32> {
  ^bb0(%x: tensor<64x128xf32>):
    %1 = accel.transpose %x {permutation = array<i64: 1, 0>, accel.hint = #accel.hint<chunks = 2>} : tensor<64x128xf32> -> tensor<128x64xf32>
    accel.yield %1 : tensor<128x64xf32>
  }
  return %0 : tensor<128x64xf32>
}

// -----

// A log-softmax by rows (never along its axis).
// CHECK-LABEL: func.func @log_softmax_rows
// CHECK: accel.log_softmax {{.*}}accel.split = array<i64: 0, 0, 2>, axis = 1 : i64} : tensor<32x64xf32>
// CHECK: accel.log_softmax {{.*}}accel.split = array<i64: 0, 1, 2>
// CHECK: accel.concat {{.*}}{axis = 0 : i64}
func.func @log_softmax_rows(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = accel.card_partition(%a) {card = 0 : i64} : (tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%x: tensor<64x64xf32>):
    %1 = accel.log_softmax %x {axis = 1 : i64, accel.hint = #accel.hint<chunks = 2>} : tensor<64x64xf32>
    accel.yield %1 : tensor<64x64xf32>
  }
  return %0 : tensor<64x64xf32>
}

// -----

// A gather by indices: each piece looks up its share of the ids in the
// whole table (the table, a weight, is not cut).
// CHECK-LABEL: func.func @gather_indices
// CHECK: %[[T:.*]] = accel.constant
// CHECK: %[[I0:.*]] = accel.slice %{{.*}}ends = array<i64: 1, 32>, starts = array<i64: 0, 0>
// CHECK: accel.gather %[[T]], %[[I0]] {{.*}}accel.split = array<i64: 1, 0, 2>
// CHECK-SAME: (tensor<100x16xf32>, tensor<1x32xi64>) -> tensor<1x32x16xf32>
// CHECK: accel.gather %[[T]], %{{.*}}accel.split = array<i64: 1, 1, 2>
// CHECK: accel.concat {{.*}}{axis = 1 : i64}
func.func @gather_indices(%ids: tensor<1x64xi64>) -> tensor<1x64x16xf32> {
  %0 = accel.card_partition(%ids) {card = 0 : i64} : (tensor<1x64xi64>) -> tensor<1x64x16xf32> {
  ^bb0(%i: tensor<1x64xi64>):
    %t = accel.constant dense<0.5> : tensor<100x16xf32>
    %1 = accel.gather %t, %i {axis = 0 : i64, accel.hint = #accel.hint<chunks = 2, parallel = data>} : (tensor<100x16xf32>, tensor<1x64xi64>) -> tensor<1x64x16xf32>
    accel.yield %1 : tensor<1x64x16xf32>
  }
  return %0 : tensor<1x64x16xf32>
}
