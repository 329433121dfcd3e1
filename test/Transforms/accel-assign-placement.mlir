// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement{force-host=accel.relu}))' \
// RUN:   | FileCheck %s --check-prefix=FORCE

// An f32 fully_connected the NPU lowers goes to the card; ops without a
// lowering go to the host with the reason. Constants stay unplaced.
// CHECK-LABEL: func.func @mlp
// FORCE-LABEL: func.func @mlp
func.func @mlp(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  // CHECK: accel.constant
  // CHECK-NOT: accel.placement
  %w = accel.constant dense<1.0> : tensor<2x4xf32>
  // CHECK: accel.fully_connected
  // CHECK-SAME: accel.placement = #accel.placement<card = 0>
  // CHECK-NOT: accel.host_reason
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  // CHECK: accel.erf
  // CHECK-SAME: accel.host_reason = "erf is not in the NPU ISA"
  // CHECK-SAME: accel.placement = #accel.placement<card = -1>
  %1 = accel.erf %0 : tensor<1x2xf32>
  // FORCE: accel.relu
  // FORCE-SAME: accel.host_reason = "forced to the host (--force-host)"
  %2 = accel.relu %1 : tensor<1x2xf32>
  return %2 : tensor<1x2xf32>
}

// -----

// Heavy ops that cannot run on the card are reported together; a
// fully_connected the kernel does not cover says why.
// CHECK-LABEL: func.func @heavy
// expected-warning @+1 {{2 heavy op(s) run on the host: accel.conv, accel.fully_connected}}
func.func @heavy(%x: tensor<1x4x7x7xf32>, %w: tensor<200x2x3x3xf32>, %a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<1x200x5x5xf32>, tensor<2x2xf32>) {
  // CHECK: accel.conv
  // CHECK-SAME: accel.host_reason = "the output plane of filter 1 starts at an unaligned DRAM address"
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x7x7xf32>, tensor<200x2x3x3xf32>) -> tensor<1x200x5x5xf32>
  // CHECK: accel.fully_connected
  // CHECK-SAME: accel.host_reason = "a K x N weight must be constant to be transposed for the card"
  %1 = accel.fully_connected %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<1x200x5x5xf32>, tensor<2x2xf32>
}

// -----

// A host hint is honoured and keeps its reason.
// CHECK-LABEL: func.func @host_hint
// expected-warning @+1 {{1 heavy op(s) run on the host: accel.fully_connected}}
func.func @host_hint(%x: tensor<1x4xf32>, %w: tensor<2x4xf32>) -> tensor<1x2xf32> {
  // CHECK: accel.host_reason = "placed on the host by the user"
  // CHECK-SAME: accel.placement = #accel.placement<card = -1>
  %0 = accel.fully_connected %x, %w {transpose_weight = true, accel.placement = #accel.placement<card = -1>} : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// A card hint the backend cannot honour is a warning with the reason; the
// op runs on the host.
// CHECK-LABEL: func.func @card_hint
func.func @card_hint(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: accel.erf
  // CHECK-SAME: accel.host_reason = "erf is not in the NPU ISA"
  // CHECK-SAME: accel.placement = #accel.placement<card = -1>
  // expected-warning @+1 {{accel.erf: cannot honour the hint to run on card 0: erf is not in the NPU ISA; it runs on the host}}
  %0 = accel.erf %x {accel.placement = #accel.placement<card = 0, cores = [1]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_target(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// RUN: not nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=no-such-target},func.func(accel-assign-placement))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TARGET
// TARGET: error: cannot load target 'no-such-target'
