// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-outline-partitions))' | FileCheck %s

// Two host runs separated by a card op become two partitions. Inputs are
// the values read from outside, results the values used later; a constant
// used in both runs is cloned into each, one used only inside moves in.
// CHECK-LABEL: func.func @two_runs
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @two_runs(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = accel.constant dense<2.0> : tensor<4xf32>
  %d = accel.constant dense<3.0> : tensor<4xf32>
  // CHECK: %[[P0:.*]]:2 = accel.host_partition(%[[X]]) {reason = "r1; r2"}
  // CHECK-SAME: (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>):
  // CHECK-DAG: %[[C:.*]] = accel.constant dense<2.000000e+00>
  // CHECK-DAG: %[[D:.*]] = accel.constant dense<3.000000e+00>
  // CHECK: %[[M:.*]] = accel.mul %[[A]], %[[C]]
  // CHECK: %[[S:.*]] = accel.add %[[M]], %[[D]]
  // CHECK: accel.yield %[[M]], %[[S]]
  %0 = accel.mul %x, %c {accel.host_reason = "r1", accel.placement = #accel.placement<card = -1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = accel.add %0, %d {accel.host_reason = "r2", accel.placement = #accel.placement<card = -1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: %[[R:.*]] = accel.card_partition(%[[P0]]#1) {card = 0 : i64}
  // CHECK-SAME: (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<4xf32>):
  // CHECK-NEXT: %[[RELU:.*]] = accel.relu %[[B]] {accel.placement = #accel.placement<card = 0>}
  // CHECK-NEXT: accel.yield %[[RELU]]
  %2 = accel.relu %1 {accel.placement = #accel.placement<card = 0>} : tensor<4xf32>
  // CHECK: %[[P1:.*]] = accel.host_partition(%[[R]]) {reason = "r1"}
  // CHECK: accel.constant dense<2.000000e+00>
  // CHECK: accel.mul
  %3 = accel.mul %2, %c {accel.host_reason = "r1", accel.placement = #accel.placement<card = -1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: return %[[P0]]#0, %[[P1]]
  return %0, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Runs on different cards are separate partitions; unplaced ops are left
// alone and end a run.
// CHECK-LABEL: func.func @cards
// CHECK: accel.card_partition({{.*}}) {card = 0 : i64}
// CHECK: accel.neg
// CHECK-NOT: accel.placement
// CHECK: accel.card_partition({{.*}}) {card = 1 : i64}
// CHECK-NOT: accel.host_partition
func.func @cards(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0>} : tensor<4xf32>
  %1 = accel.neg %0 : tensor<4xf32>
  %2 = accel.relu %1 {accel.placement = #accel.placement<card = 1>} : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Integer index arithmetic on the inputs (categorical offsets added to the
// indices of an embedding gather) runs on the host; it needs nothing the
// card computes, so it moves to the start with its constant and the card
// ops before and after it form one partition instead of two.
// CHECK-LABEL: func.func @hoisted_index_add
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[I:.*]]: tensor<2x3xi64>)
// CHECK: %[[H:.*]] = accel.host_partition(%[[I]])
// CHECK: accel.constant dense<[0, 10, 30]>
// CHECK: accel.add
// CHECK: accel.card_partition(%[[X]], %[[H]])
// CHECK: accel.relu
// CHECK: accel.gather
// CHECK-NOT: accel.card_partition
func.func @hoisted_index_add(%x: tensor<2x8xf32>, %idx: tensor<2x3xi64>) -> (tensor<2x8xf32>, tensor<2x3x8xf32>) {
  %table = accel.constant dense<1.0> : tensor<40x8xf32>
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0>} : tensor<2x8xf32>
  %offsets = accel.constant dense<[0, 10, 30]> : tensor<3xi64>
  %1 = accel.add %idx, %offsets {accel.host_reason = "integer", accel.placement = #accel.placement<card = -1>} : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %2 = accel.gather %table, %1 {axis = 0 : i64, accel.placement = #accel.placement<card = 0>} : (tensor<40x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
  return %0, %2 : tensor<2x8xf32>, tensor<2x3x8xf32>
}
