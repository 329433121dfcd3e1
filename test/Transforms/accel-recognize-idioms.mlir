// RUN: nnaccel-opt --accel-recognize-idioms --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @bag_sum(
// CHECK-SAME: %[[T:.+]]: tensor<10x4xf32>, %[[IDS:.+]]: tensor<3x5xi64>)
// CHECK-NEXT: %[[B:.+]] = accel.embedding_bag %[[T]], %[[IDS]] : (tensor<10x4xf32>, tensor<3x5xi64>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[B]]
func.func @bag_sum(%t: tensor<10x4xf32>, %ids: tensor<3x5xi64>) -> tensor<3x4xf32> {
  %0 = accel.gather %t, %ids : (tensor<10x4xf32>, tensor<3x5xi64>) -> tensor<3x5x4xf32>
  %1 = accel.reduce_sum %0 {axes = array<i64: 1>, keepdims = false} : tensor<3x5x4xf32> -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// Negative axis -2 is the bag axis too; mean mode; keepdims adds a reshape.
// CHECK-LABEL: func.func @bag_mean_keepdims(
// CHECK-SAME: %[[T:.+]]: tensor<10x4xf32>, %[[IDS:.+]]: tensor<3x5xi64>)
// CHECK-NEXT: %[[B:.+]] = accel.embedding_bag %[[T]], %[[IDS]] {mode = #accel.bag_mode<mean>} : (tensor<10x4xf32>, tensor<3x5xi64>) -> tensor<3x4xf32>
// CHECK-NEXT: %[[R:.+]] = accel.reshape %[[B]] : tensor<3x4xf32> -> tensor<3x1x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @bag_mean_keepdims(%t: tensor<10x4xf32>, %ids: tensor<3x5xi64>) -> tensor<3x1x4xf32> {
  %0 = accel.gather %t, %ids : (tensor<10x4xf32>, tensor<3x5xi64>) -> tensor<3x5x4xf32>
  %1 = accel.reduce_mean %0 {axes = array<i64: -2>} : tensor<3x5x4xf32> -> tensor<3x1x4xf32>
  return %1 : tensor<3x1x4xf32>
}

// -----

// The gathered rows have a second user: not fused.
// CHECK-LABEL: func.func @bag_shared_gather(
// CHECK-NOT: accel.embedding_bag
// CHECK: accel.gather
// CHECK: accel.reduce_sum
func.func @bag_shared_gather(%t: tensor<10x4xf32>, %ids: tensor<3x5xi64>) -> (tensor<3x4xf32>, tensor<3x5x4xf32>) {
  %0 = accel.gather %t, %ids : (tensor<10x4xf32>, tensor<3x5xi64>) -> tensor<3x5x4xf32>
  %1 = accel.reduce_sum %0 {axes = array<i64: 1>, keepdims = false} : tensor<3x5x4xf32> -> tensor<3x4xf32>
  return %1, %0 : tensor<3x4xf32>, tensor<3x5x4xf32>
}

// -----

// Not a bag: reducing over the embedding dimension, gathering along axis 1,
// or 1-D ids.
// CHECK-LABEL: func.func @bag_negative(
// CHECK-NOT: accel.embedding_bag
// CHECK: accel.reduce_sum {{.+}} {axes = array<i64: 2>
// CHECK: accel.gather {{.+}} {axis = 1 : i64}
// CHECK: accel.reduce_sum
// CHECK: accel.gather
// CHECK: accel.reduce_sum
func.func @bag_negative(%t: tensor<10x4xf32>, %ids: tensor<3x5xi64>, %ids1: tensor<5xi64>) -> (tensor<3x5xf32>, tensor<10xf32>, tensor<4xf32>) {
  %0 = accel.gather %t, %ids : (tensor<10x4xf32>, tensor<3x5xi64>) -> tensor<3x5x4xf32>
  %1 = accel.reduce_sum %0 {axes = array<i64: 2>, keepdims = false} : tensor<3x5x4xf32> -> tensor<3x5xf32>
  %2 = accel.gather %t, %ids {axis = 1 : i64} : (tensor<10x4xf32>, tensor<3x5xi64>) -> tensor<10x3x5xf32>
  %3 = accel.reduce_sum %2 {axes = array<i64: 1, 2>, keepdims = false} : tensor<10x3x5xf32> -> tensor<10xf32>
  %4 = accel.gather %t, %ids1 : (tensor<10x4xf32>, tensor<5xi64>) -> tensor<5x4xf32>
  %5 = accel.reduce_sum %4 {axes = array<i64: 0>, keepdims = false} : tensor<5x4xf32> -> tensor<4xf32>
  return %1, %3, %5 : tensor<3x5xf32>, tensor<10xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @gelu_div(
// CHECK-SAME: %[[X:.+]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[G:.+]] = accel.gelu %[[X]] : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_div(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = accel.constant dense<1.41421354> : tensor<f32>
  %one = accel.constant dense<1.0> : tensor<f32>
  %half = accel.constant dense<0.5> : tensor<f32>
  %0 = accel.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = accel.erf %0 : tensor<2x8xf32>
  %2 = accel.add %1, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = accel.mul %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = accel.mul %3, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// (0.5 * x) * (1 + erf(x * 1/sqrt(2))), constants on the left.
// CHECK-LABEL: func.func @gelu_mul_order(
// CHECK-SAME: %[[X:.+]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[G:.+]] = accel.gelu %[[X]] : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_mul_order(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %inv = accel.constant dense<0.707106769> : tensor<f32>
  %one = accel.constant dense<1.0> : tensor<f32>
  %half = accel.constant dense<0.5> : tensor<f32>
  %0 = accel.mul %inv, %x : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = accel.erf %0 : tensor<2x8xf32>
  %2 = accel.add %one, %1 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = accel.mul %half, %x : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = accel.mul %2, %3 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// Near misses: sqrt(3) instead of sqrt(2); the erf of another value; the
// inner product x * (1 + erf) has a second user.
// CHECK-LABEL: func.func @gelu_negative(
// CHECK-NOT: accel.gelu
// CHECK: return
func.func @gelu_negative(%x: tensor<2x8xf32>, %z: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %sqrt3 = accel.constant dense<1.7320508> : tensor<f32>
  %sqrt2 = accel.constant dense<1.41421354> : tensor<f32>
  %one = accel.constant dense<1.0> : tensor<f32>
  %half = accel.constant dense<0.5> : tensor<f32>
  %0 = accel.div %x, %sqrt3 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = accel.erf %0 : tensor<2x8xf32>
  %2 = accel.add %1, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = accel.mul %x, %2 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = accel.mul %3, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %5 = accel.div %z, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %6 = accel.erf %5 : tensor<2x8xf32>
  %7 = accel.add %6, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %8 = accel.mul %x, %7 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %9 = accel.mul %8, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %10 = accel.div %x, %sqrt2 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %11 = accel.erf %10 : tensor<2x8xf32>
  %12 = accel.add %11, %one : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %13 = accel.mul %x, %12 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %14 = accel.mul %13, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4, %9, %14, %13 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: %[[X:.+]]: tensor<2x5x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NEXT: %[[LN:.+]] = accel.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.99999997E-7 : f32} : (tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT: return %[[LN]]
func.func @layer_norm(%x: tensor<2x5x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<2x5x8xf32> {
  %two = accel.constant dense<2.0> : tensor<f32>
  %eps = accel.constant dense<1.0e-6> : tensor<f32>
  %mean = accel.reduce_mean %x {axes = array<i64: -1>} : tensor<2x5x8xf32> -> tensor<2x5x1xf32>
  %c = accel.sub %x, %mean : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  %sq = accel.pow %c, %two : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %var = accel.reduce_mean %sq {axes = array<i64: -1>} : tensor<2x5x8xf32> -> tensor<2x5x1xf32>
  %ve = accel.add %var, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %sd = accel.sqrt %ve : tensor<2x5x1xf32>
  %n = accel.div %c, %sd : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  %s = accel.mul %n, %gamma : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %y = accel.add %s, %beta : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  return %y : tensor<2x5x8xf32>
}

// -----

// Normalising the two trailing axes, without affine: a unit scale constant
// shaped like the normalised dimensions is created.
// CHECK-LABEL: func.func @layer_norm_two_axes(
// CHECK-SAME: %[[X:.+]]: tensor<2x5x8xf32>)
// CHECK: %[[ONE:.+]] = accel.constant dense<1.000000e+00> : tensor<5x8xf32>
// CHECK: %[[LN:.+]] = accel.layer_norm %[[X]], %[[ONE]] {axis = 1 : i64} : (tensor<2x5x8xf32>, tensor<5x8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT: return %[[LN]]
func.func @layer_norm_two_axes(%x: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
  %two = accel.constant dense<2.0> : tensor<f32>
  %eps = accel.constant dense<1.0e-5> : tensor<f32>
  %mean = accel.reduce_mean %x {axes = array<i64: 1, 2>} : tensor<2x5x8xf32> -> tensor<2x1x1xf32>
  %c = accel.sub %x, %mean : (tensor<2x5x8xf32>, tensor<2x1x1xf32>) -> tensor<2x5x8xf32>
  %sq = accel.pow %c, %two : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %var = accel.reduce_mean %sq {axes = array<i64: 1, 2>} : tensor<2x5x8xf32> -> tensor<2x1x1xf32>
  %ve = accel.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %sd = accel.sqrt %ve : tensor<2x1x1xf32>
  %n = accel.div %c, %sd : (tensor<2x5x8xf32>, tensor<2x1x1xf32>) -> tensor<2x5x8xf32>
  return %n : tensor<2x5x8xf32>
}

// -----

// Wrong epsilon structure: sqrt(var) + eps instead of sqrt(var + eps).
// CHECK-LABEL: func.func @layer_norm_eps_outside(
// CHECK-NOT: accel.layer_norm
// CHECK: accel.sqrt
// CHECK: accel.add
// CHECK: accel.div
func.func @layer_norm_eps_outside(%x: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
  %two = accel.constant dense<2.0> : tensor<f32>
  %eps = accel.constant dense<1.0e-5> : tensor<f32>
  %mean = accel.reduce_mean %x {axes = array<i64: -1>} : tensor<2x5x8xf32> -> tensor<2x5x1xf32>
  %c = accel.sub %x, %mean : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  %sq = accel.pow %c, %two : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %var = accel.reduce_mean %sq {axes = array<i64: -1>} : tensor<2x5x8xf32> -> tensor<2x5x1xf32>
  %sd = accel.sqrt %var : tensor<2x5x1xf32>
  %ve = accel.add %sd, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %n = accel.div %c, %ve : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  return %n : tensor<2x5x8xf32>
}

// -----

// Other near misses: squaring with exponent 3, variance over a different
// axis than the mean, and normalising a leading axis.
// CHECK-LABEL: func.func @layer_norm_negative(
// CHECK-NOT: accel.layer_norm
// CHECK: return
func.func @layer_norm_negative(%x: tensor<2x5x8xf32>) -> (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>) {
  %two = accel.constant dense<2.0> : tensor<f32>
  %three = accel.constant dense<3.0> : tensor<f32>
  %eps = accel.constant dense<1.0e-5> : tensor<f32>
  %mean = accel.reduce_mean %x {axes = array<i64: -1>} : tensor<2x5x8xf32> -> tensor<2x5x1xf32>
  %c = accel.sub %x, %mean : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  %cube = accel.pow %c, %three : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %v0 = accel.reduce_mean %cube {axes = array<i64: -1>} : tensor<2x5x8xf32> -> tensor<2x5x1xf32>
  %e0 = accel.add %v0, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %s0 = accel.sqrt %e0 : tensor<2x5x1xf32>
  %n0 = accel.div %c, %s0 : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  %sq = accel.pow %c, %two : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %v1 = accel.reduce_mean %sq {axes = array<i64: 1>} : tensor<2x5x8xf32> -> tensor<2x1x8xf32>
  %e1 = accel.add %v1, %eps : (tensor<2x1x8xf32>, tensor<f32>) -> tensor<2x1x8xf32>
  %s1 = accel.sqrt %e1 : tensor<2x1x8xf32>
  %n1 = accel.div %c, %s1 : (tensor<2x5x8xf32>, tensor<2x1x8xf32>) -> tensor<2x5x8xf32>
  %m2 = accel.reduce_mean %x {axes = array<i64: 0>} : tensor<2x5x8xf32> -> tensor<1x5x8xf32>
  %c2 = accel.sub %x, %m2 : (tensor<2x5x8xf32>, tensor<1x5x8xf32>) -> tensor<2x5x8xf32>
  %q2 = accel.pow %c2, %two : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %v2 = accel.reduce_mean %q2 {axes = array<i64: 0>} : tensor<2x5x8xf32> -> tensor<1x5x8xf32>
  %e2 = accel.add %v2, %eps : (tensor<1x5x8xf32>, tensor<f32>) -> tensor<1x5x8xf32>
  %s2 = accel.sqrt %e2 : tensor<1x5x8xf32>
  %n2 = accel.div %c2, %s2 : (tensor<2x5x8xf32>, tensor<1x5x8xf32>) -> tensor<2x5x8xf32>
  return %n0, %n1, %n2 : tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>
}

// -----

// gamma shaped differently from the normalised dimensions is not absorbed.
// CHECK-LABEL: func.func @layer_norm_broadcast_gamma(
// CHECK: %[[LN:.+]] = accel.layer_norm %{{.+}}, %{{.+}} {axis = 2 : i64} : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
// CHECK: accel.mul %[[LN]], %{{.+}} : (tensor<2x5x8xf32>, tensor<5x8xf32>) -> tensor<2x5x8xf32>
func.func @layer_norm_broadcast_gamma(%x: tensor<2x5x8xf32>, %gamma: tensor<5x8xf32>) -> tensor<2x5x8xf32> {
  %two = accel.constant dense<2.0> : tensor<f32>
  %eps = accel.constant dense<1.0e-5> : tensor<f32>
  %mean = accel.reduce_mean %x {axes = array<i64: -1>} : tensor<2x5x8xf32> -> tensor<2x5x1xf32>
  %c = accel.sub %x, %mean : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  %sq = accel.pow %c, %two : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %var = accel.reduce_mean %sq {axes = array<i64: -1>} : tensor<2x5x8xf32> -> tensor<2x5x1xf32>
  %ve = accel.add %var, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %sd = accel.sqrt %ve : tensor<2x5x1xf32>
  %n = accel.div %c, %sd : (tensor<2x5x8xf32>, tensor<2x5x1xf32>) -> tensor<2x5x8xf32>
  %s = accel.mul %n, %gamma : (tensor<2x5x8xf32>, tensor<5x8xf32>) -> tensor<2x5x8xf32>
  return %s : tensor<2x5x8xf32>
}

// -----

// nn.Linear on three dimensions (MatMul + Add) and a ReLU: one
// fully_connected with the bias and the activation, between reshapes.
// CHECK-LABEL: func.func @linear_3d
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x16xf32>)
// CHECK-DAG: %[[W:.*]] = accel.constant {{.*}} : tensor<16x4xf32>
// CHECK-DAG: %[[B:.*]] = accel.constant {{.*}} : tensor<4xf32>
// CHECK: %[[ROWS:.*]] = accel.reshape %[[X]] : tensor<1x8x16xf32> -> tensor<8x16xf32>
// CHECK: %[[FC:.*]] = accel.fully_connected %[[ROWS]], %[[W]], %[[B]] {activation = #accel.act<relu>} : (tensor<8x16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK: %[[Y:.*]] = accel.reshape %[[FC]] : tensor<8x4xf32> -> tensor<1x8x4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @linear_3d(%x: tensor<1x8x16xf32>) -> tensor<1x8x4xf32> {
  %w = accel.constant dense<0.5> : tensor<16x4xf32>
  %b = accel.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = accel.matmul %x, %w : (tensor<1x8x16xf32>, tensor<16x4xf32>) -> tensor<1x8x4xf32>
  %1 = accel.add %0, %b : (tensor<1x8x4xf32>, tensor<4xf32>) -> tensor<1x8x4xf32>
  %2 = accel.relu %1 : tensor<1x8x4xf32>
  return %2 : tensor<1x8x4xf32>
}

// -----

// A computed right operand stays a matmul; an addend that varies along
// rows is not a bias and stays an add.
// CHECK-LABEL: func.func @not_linear
// CHECK: accel.matmul %{{.*}}, %{{.*}} : (tensor<8x16xf32>, tensor<16x4xf32>)
// CHECK: %[[FC:.*]] = accel.fully_connected
// CHECK-NOT: activation
// CHECK: %[[R:.*]] = accel.reshape %[[FC]] : tensor<8x4xf32> -> tensor<1x8x4xf32>
// CHECK: accel.add %[[R]], %{{.*}} : (tensor<1x8x4xf32>, tensor<8x1xf32>)
func.func @not_linear(%x: tensor<8x16xf32>, %y: tensor<16x4xf32>, %z: tensor<1x8x16xf32>) -> (tensor<8x4xf32>, tensor<1x8x4xf32>) {
  %w = accel.constant dense<0.5> : tensor<16x4xf32>
  %rows = accel.constant dense<[[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0], [8.0]]> : tensor<8x1xf32>
  %0 = accel.matmul %x, %y : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %1 = accel.matmul %z, %w : (tensor<1x8x16xf32>, tensor<16x4xf32>) -> tensor<1x8x4xf32>
  %2 = accel.add %1, %rows : (tensor<1x8x4xf32>, tensor<8x1xf32>) -> tensor<1x8x4xf32>
  return %0, %2 : tensor<8x4xf32>, tensor<1x8x4xf32>
}

// -----

// An attention in-projection: query, key and value are column slices of
// one product. Each becomes its own product over its weight and bias
// columns; nothing is copied out of the wide result.
// CHECK-LABEL: func.func @qkv
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-DAG: %[[WQ:.*]] = accel.constant dense<1.000000e+00> : tensor<16x4xf32>
// CHECK-DAG: %[[WK:.*]] = accel.constant dense<2.000000e+00> : tensor<16x4xf32>
// CHECK-DAG: %[[BQ:.*]] = accel.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[BK:.*]] = accel.constant dense<[5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[Q:.*]] = accel.fully_connected %[[X]], %[[WQ]], %[[BQ]] : (tensor<8x16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[K:.*]] = accel.fully_connected %[[X]], %[[WK]], %[[BK]] : (tensor<8x16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-DAG: %[[QR:.*]] = accel.reshape %[[Q]] : tensor<8x4xf32> -> tensor<8x1x4xf32>
// CHECK-DAG: %[[KR:.*]] = accel.reshape %[[K]] : tensor<8x4xf32> -> tensor<8x1x4xf32>
// CHECK-NOT: accel.slice
// CHECK: return %[[QR]], %[[KR]]
func.func @qkv(%x: tensor<8x16xf32>) -> (tensor<8x1x4xf32>, tensor<8x1x4xf32>) {
  %w = accel.constant dense<[[1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]]> : tensor<16x8xf32>
  %b = accel.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %0 = accel.fully_connected %x, %w, %b : (tensor<8x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  %1 = accel.reshape %0 : tensor<8x8xf32> -> tensor<8x1x8xf32>
  %q = accel.slice %1 {starts = array<i64: 0, 0, 0>, ends = array<i64: 8, 1, 4>, steps = array<i64: 1, 1, 1>} : tensor<8x1x8xf32> -> tensor<8x1x4xf32>
  %k = accel.slice %1 {starts = array<i64: 0, 0, 4>, ends = array<i64: 8, 1, 8>, steps = array<i64: 1, 1, 1>} : tensor<8x1x8xf32> -> tensor<8x1x4xf32>
  return %q, %k : tensor<8x1x4xf32>, tensor<8x1x4xf32>
}

// -----

// A product read whole as well as in slices is computed once.
// CHECK-LABEL: func.func @qkv_and_whole
// CHECK: accel.fully_connected
// CHECK-NOT: accel.fully_connected
// CHECK: accel.slice
func.func @qkv_and_whole(%x: tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<8x8xf32>) {
  %w = accel.constant dense<0.5> : tensor<16x8xf32>
  %0 = accel.fully_connected %x, %w : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  %q = accel.slice %0 {starts = array<i64: 0, 0>, ends = array<i64: 8, 4>, steps = array<i64: 1, 1>} : tensor<8x8xf32> -> tensor<8x4xf32>
  return %q, %0 : tensor<8x4xf32>, tensor<8x8xf32>
}

// -----

// Attention's 1/sqrt(d) on the query, through the reshape and transpose to
// heads, goes into the query product's weight and bias.
// CHECK-LABEL: func.func @scaled_query
// CHECK-DAG: %[[W:.*]] = accel.constant dense_resource<scaled> : tensor<16x8xf32>
// CHECK-DAG: %[[B:.*]] = accel.constant dense<5.000000e-01> : tensor<8xf32>
// CHECK: %[[Q:.*]] = accel.fully_connected %{{.*}}, %[[W]], %[[B]]
// CHECK: %[[R:.*]] = accel.reshape %[[Q]]
// CHECK: %[[T:.*]] = accel.transpose %[[R]]
// CHECK-NOT: accel.div
// CHECK: return %[[T]]
func.func @scaled_query(%x: tensor<4x16xf32>) -> tensor<2x4x4xf32> {
  %w = accel.constant dense<0.5> : tensor<16x8xf32>
  %b = accel.constant dense<1.0> : tensor<8xf32>
  %s = accel.constant dense<2.0> : tensor<f32>
  %0 = accel.fully_connected %x, %w, %b : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = accel.reshape %0 : tensor<4x8xf32> -> tensor<4x2x4xf32>
  %2 = accel.transpose %1 {permutation = array<i64: 1, 0, 2>} : tensor<4x2x4xf32> -> tensor<2x4x4xf32>
  %3 = accel.div %2, %s : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  return %3 : tensor<2x4x4xf32>
}

// -----

// A negative scale does not commute with a fused ReLU; a product read twice
// would be scaled for its other reader too.
// CHECK-LABEL: func.func @scale_kept
// CHECK: accel.mul
// CHECK: accel.mul
func.func @scale_kept(%x: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = accel.constant dense<0.5> : tensor<16x8xf32>
  %s = accel.constant dense<-2.0> : tensor<f32>
  %t = accel.constant dense<3.0> : tensor<f32>
  %0 = accel.fully_connected %x, %w {activation = #accel.act<relu>} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = accel.mul %0, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = accel.fully_connected %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %3 = accel.mul %t, %2 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// The tanh GELU as PyTorch's gelu(approximate='tanh') exports it:
// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3)))).
// CHECK-LABEL: func.func @gelu_tanh_pow(
// CHECK-SAME: %[[X:.+]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[G:.+]] = accel.gelu %[[X]] {approximate = #accel.gelu_approx<tanh>} : tensor<2x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh_pow(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %three = accel.constant dense<3.0> : tensor<f32>
  %kappa = accel.constant dense<0.044715> : tensor<f32>
  %beta = accel.constant dense<0.797884583> : tensor<f32>
  %one = accel.constant dense<1.0> : tensor<f32>
  %half = accel.constant dense<0.5> : tensor<f32>
  %0 = accel.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = accel.mul %kappa, %0 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = accel.add %x, %1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = accel.mul %beta, %2 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = accel.tanh %3 : tensor<2x8xf32>
  %5 = accel.add %one, %4 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %6 = accel.mul %half, %x : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %7 = accel.mul %6, %5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %7 : tensor<2x8xf32>
}

// -----

// HF's gelu_new with x * x * x, constants on the right and
// x * (1 + tanh) * 0.5.
// CHECK-LABEL: func.func @gelu_tanh_cube(
// CHECK-SAME: %[[X:.+]]: tensor<3x5xf32>)
// CHECK-NEXT: %[[G:.+]] = accel.gelu %[[X]] {approximate = #accel.gelu_approx<tanh>} : tensor<3x5xf32>
// CHECK-NEXT: return %[[G]]
func.func @gelu_tanh_cube(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %kappa = accel.constant dense<0.044715> : tensor<f32>
  %beta = accel.constant dense<0.7978845608> : tensor<f32>
  %one = accel.constant dense<1.0> : tensor<f32>
  %half = accel.constant dense<0.5> : tensor<f32>
  %0 = accel.mul %x, %x : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %1 = accel.mul %0, %x : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %2 = accel.mul %1, %kappa : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %3 = accel.add %2, %x : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %4 = accel.mul %3, %beta : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %5 = accel.tanh %4 : tensor<3x5xf32>
  %6 = accel.add %5, %one : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %7 = accel.mul %x, %6 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %8 = accel.mul %7, %half : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  return %8 : tensor<3x5xf32>
}

// -----

// Near misses stay as they are: kappa 0.04 instead of 0.044715; x^2
// instead of x^3; the cube of another value; no sqrt(2/pi) scale.
// CHECK-LABEL: func.func @gelu_tanh_negative(
// CHECK-NOT: accel.gelu
// CHECK: return
func.func @gelu_tanh_negative(%x: tensor<2x8xf32>, %z: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %two = accel.constant dense<2.0> : tensor<f32>
  %three = accel.constant dense<3.0> : tensor<f32>
  %kappa = accel.constant dense<0.044715> : tensor<f32>
  %wrong = accel.constant dense<0.04> : tensor<f32>
  %beta = accel.constant dense<0.797884583> : tensor<f32>
  %one = accel.constant dense<1.0> : tensor<f32>
  %half = accel.constant dense<0.5> : tensor<f32>
  %cube = accel.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %square = accel.pow %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %zcube = accel.pow %z, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  // kappa 0.04.
  %a1 = accel.mul %wrong, %cube : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %a2 = accel.add %x, %a1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %a3 = accel.mul %beta, %a2 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %a4 = accel.tanh %a3 : tensor<2x8xf32>
  %a5 = accel.add %one, %a4 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %a6 = accel.mul %x, %a5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %a7 = accel.mul %a6, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  // x^2.
  %b1 = accel.mul %kappa, %square : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %b2 = accel.add %x, %b1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %b3 = accel.mul %beta, %b2 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %b4 = accel.tanh %b3 : tensor<2x8xf32>
  %b5 = accel.add %one, %b4 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %b6 = accel.mul %x, %b5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %b7 = accel.mul %b6, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  // z^3 inside, x outside.
  %c1 = accel.mul %kappa, %zcube : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c2 = accel.add %x, %c1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c3 = accel.mul %beta, %c2 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c4 = accel.tanh %c3 : tensor<2x8xf32>
  %c5 = accel.add %one, %c4 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c6 = accel.mul %x, %c5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c7 = accel.mul %c6, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  // No sqrt(2/pi).
  %d1 = accel.mul %kappa, %cube : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %d2 = accel.add %x, %d1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %d4 = accel.tanh %d2 : tensor<2x8xf32>
  %d5 = accel.add %one, %d4 : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %d6 = accel.mul %x, %d5 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %d7 = accel.mul %d6, %half : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %a7, %b7, %c7, %d7 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
