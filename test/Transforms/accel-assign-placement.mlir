// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement{force-host=accel.relu}))' \
// RUN:   | FileCheck %s --check-prefix=FORCE

// Ops the NPU backend does not lower go to the host with the reason; heavy
// ones are reported together. Constants are values and stay unplaced.
// CHECK-LABEL: func.func @mlp
// FORCE-LABEL: func.func @mlp
// expected-warning @+1 {{1 heavy op(s) run on the host: accel.fully_connected}}
func.func @mlp(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  // CHECK: accel.constant
  // CHECK-NOT: accel.placement
  %w = accel.constant dense<1.0> : tensor<2x4xf32>
  // CHECK: accel.fully_connected
  // CHECK-SAME: accel.host_reason = "no NPU lowering for accel.fully_connected yet"
  // CHECK-SAME: accel.placement = #accel.placement<card = -1>
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  // CHECK: accel.relu
  // CHECK-SAME: accel.host_reason = "no NPU lowering for accel.relu yet"
  // FORCE: accel.relu
  // FORCE-SAME: accel.host_reason = "forced to the host (--force-host)"
  %1 = accel.relu %0 : tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}

// -----

// A host hint is honoured and keeps its reason.
// CHECK-LABEL: func.func @host_hint
func.func @host_hint(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: accel.host_reason = "placed on the host by the user"
  // CHECK-SAME: accel.placement = #accel.placement<card = -1>
  %0 = accel.neg %x {accel.placement = #accel.placement<card = -1>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A card hint the backend cannot honour is rejected with the reason.
func.func @card_hint(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot honour placement on card 0: no NPU lowering for accel.tanh yet}}
  %0 = accel.tanh %x {accel.placement = #accel.placement<card = 0, cores = [1]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
