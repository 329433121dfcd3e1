// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=default},func.func(accel-align-matmuls))' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=default},func.func(accel-align-matmuls,accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=PLACE

// Attention scores with head_dim 4 and sequence 13: K^T's batch elements
// are 4 x 13 f32 = 208 bytes apart, not a multiple of the 64-byte DRAM
// alignment, so the card's matmul refuses them. K padded to 16 (16 x 13 x 4
// = 832 bytes) aligns them; both operands get the zeros.
// CHECK-LABEL: func.func @scores(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x3x13x4xf32>, %[[K:[^:]+]]: tensor<1x3x4x13xf32>
// CHECK-NEXT: %[[QP:.+]] = accel.pad %[[Q]] {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 12>} : tensor<1x3x13x4xf32> -> tensor<1x3x13x16xf32>
// CHECK-NEXT: %[[KP:.+]] = accel.pad %[[K]] {pads = array<i64: 0, 0, 0, 0, 0, 0, 12, 0>} : tensor<1x3x4x13xf32> -> tensor<1x3x16x13xf32>
// CHECK-NEXT: %[[R:.+]] = accel.matmul %[[QP]], %[[KP]] : (tensor<1x3x13x16xf32>, tensor<1x3x16x13xf32>) -> tensor<1x3x13x13xf32>
// CHECK-NEXT: return %[[R]]
// PLACE-LABEL: func.func @scores(
// PLACE-COUNT-3: accel.placement = #accel.placement<card = 0>
// PLACE-NOT: host_reason
func.func @scores(%q: tensor<1x3x13x4xf32>, %k: tensor<1x3x4x13xf32>) -> tensor<1x3x13x13xf32> {
  %0 = accel.matmul %q, %k : (tensor<1x3x13x4xf32>, tensor<1x3x4x13xf32>) -> tensor<1x3x13x13xf32>
  return %0 : tensor<1x3x13x13xf32>
}

// -----

// Left alone: aligned batch elements (head_dim 16), a single batch element,
// and a matmul the user placed on the host.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: accel.pad
// PLACE-LABEL: func.func @unchanged(
// CHECK: return
func.func @unchanged(%q: tensor<1x3x13x16xf32>, %k: tensor<1x3x16x13xf32>, %a: tensor<1x13x4xf32>, %b: tensor<1x4x13xf32>, %c: tensor<1x3x13x4xf32>, %d: tensor<1x3x4x13xf32>) -> (tensor<1x3x13x13xf32>, tensor<1x13x13xf32>, tensor<1x3x13x13xf32>) {
  %0 = accel.matmul %q, %k : (tensor<1x3x13x16xf32>, tensor<1x3x16x13xf32>) -> tensor<1x3x13x13xf32>
  %1 = accel.matmul %a, %b : (tensor<1x13x4xf32>, tensor<1x4x13xf32>) -> tensor<1x13x13xf32>
  %2 = accel.matmul %c, %d {accel.placement = #accel.placement<card = -1>} : (tensor<1x3x13x4xf32>, tensor<1x3x4x13xf32>) -> tensor<1x3x13x13xf32>
  return %0, %1, %2 : tensor<1x3x13x13xf32>, tensor<1x13x13xf32>, tensor<1x3x13x13xf32>
}
