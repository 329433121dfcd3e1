// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-place))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-place{max-cores=1}))' \
// RUN:   | FileCheck %s --check-prefix=ONE

// Three independent layers start together on three cores; the adds wait
// for their operands (plus a synchronisation for another core's result)
// and go where they finish first. The reshape is a view: no core, no time.
// CHECK-LABEL: func.func @independent
// CHECK: %[[F1:.*]] = accel.fully_connected {{.*}}accel.placement = #accel.placement<card = 0, cores = [0]>, accel.schedule = array<i64: 0, [[C1:[0-9]+]]>
// CHECK: %[[F2:.*]] = accel.fully_connected {{.*}}accel.placement = #accel.placement<card = 0, cores = [1]>, accel.schedule = array<i64: 0, [[C1]]>
// CHECK: %[[F3:.*]] = accel.fully_connected {{.*}}accel.placement = #accel.placement<card = 0, cores = [2]>, accel.schedule = array<i64: 0, [[C1]]>
// CHECK: %[[A1:.*]] = accel.add %[[F1]], %[[F2]] {accel.placement = #accel.placement<card = 0, cores = [{{[01]}}]>, accel.schedule = array<i64: [[S1:[1-9][0-9]*]], {{[0-9]+}}>}
// CHECK: %[[A2:.*]] = accel.add %[[A1]], %[[F3]] {accel.placement = #accel.placement<card = 0, cores = [{{[0-3]}}]>, accel.schedule = array<i64: {{[1-9][0-9]*}}, {{[0-9]+}}>}
// CHECK: accel.reshape %[[A2]] {accel.placement = #accel.placement<card = 0>, accel.schedule = array<i64: {{[1-9][0-9]*}}, 0>}
// On one core they run one after another, in program order.
// ONE-LABEL: func.func @independent
// ONE: accel.fully_connected {{.*}}cores = [0]>, accel.schedule = array<i64: 0, [[C1:[0-9]+]]>
// ONE: accel.fully_connected {{.*}}cores = [0]>, accel.schedule = array<i64: [[C1]], [[C1]]>
// ONE: accel.fully_connected {{.*}}cores = [0]>, accel.schedule = array<i64: {{[1-9][0-9]*}}, [[C1]]>
func.func @independent(%x: tensor<1x512xf32>) -> tensor<256xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x512xf32>) -> tensor<256xf32> {
  ^bb0(%a: tensor<1x512xf32>):
    %w1 = accel.constant dense<0.5> : tensor<512x256xf32>
    %w2 = accel.constant dense<0.25> : tensor<512x256xf32>
    %w3 = accel.constant dense<0.125> : tensor<512x256xf32>
    %1 = accel.fully_connected %a, %w1 {accel.placement = #accel.placement<card = 0>} : (tensor<1x512xf32>, tensor<512x256xf32>) -> tensor<1x256xf32>
    %2 = accel.fully_connected %a, %w2 {accel.placement = #accel.placement<card = 0>} : (tensor<1x512xf32>, tensor<512x256xf32>) -> tensor<1x256xf32>
    %3 = accel.fully_connected %a, %w3 {accel.placement = #accel.placement<card = 0>} : (tensor<1x512xf32>, tensor<512x256xf32>) -> tensor<1x256xf32>
    %4 = accel.add %1, %2 {accel.placement = #accel.placement<card = 0>} : (tensor<1x256xf32>, tensor<1x256xf32>) -> tensor<1x256xf32>
    %5 = accel.add %4, %3 {accel.placement = #accel.placement<card = 0>} : (tensor<1x256xf32>, tensor<1x256xf32>) -> tensor<1x256xf32>
    %6 = accel.reshape %5 {accel.placement = #accel.placement<card = 0>} : tensor<1x256xf32> -> tensor<256xf32>
    accel.yield %6 : tensor<256xf32>
  }
  return %0 : tensor<256xf32>
}

// -----

// The longest path goes first: the program lists the chain's layer before
// the short side branch even though it comes later in the input, and ops
// with cores already chosen (pieces, hints) stay there.
// CHECK-LABEL: func.func @critical_path
// CHECK: accel.fully_connected {{.*}}cores = [2]>, accel.schedule = array<i64: 0,
// CHECK-SAME: tensor<1x1024xf32>
// CHECK: accel.relu {{.*}}accel.schedule = array<i64: 0,
// CHECK: accel.relu {{.*}}accel.schedule = array<i64: {{[1-9][0-9]*}},
func.func @critical_path(%x: tensor<1x512xf32>, %y: tensor<1x64xf32>) -> (tensor<1x64xf32>, tensor<1x1024xf32>) {
  %0:2 = accel.card_partition(%x, %y) {card = 0 : i64} : (tensor<1x512xf32>, tensor<1x64xf32>) -> (tensor<1x64xf32>, tensor<1x1024xf32>) {
  ^bb0(%a: tensor<1x512xf32>, %b: tensor<1x64xf32>):
    %w = accel.constant dense<0.5> : tensor<512x1024xf32>
    %1 = accel.relu %b {accel.placement = #accel.placement<card = 0>} : tensor<1x64xf32>
    %2 = accel.fully_connected %a, %w {accel.placement = #accel.placement<card = 0, cores = [2]>} : (tensor<1x512xf32>, tensor<512x1024xf32>) -> tensor<1x1024xf32>
    %3 = accel.relu %2 {accel.placement = #accel.placement<card = 0>} : tensor<1x1024xf32>
    accel.yield %1, %3 : tensor<1x64xf32>, tensor<1x1024xf32>
  }
  return %0#0, %0#1 : tensor<1x64xf32>, tensor<1x1024xf32>
}

// -----

// An order hint that would run an op before its producer is a warning.
func.func @order_hint(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x64xf32>):
    %1 = accel.relu %a {accel.hint = #accel.hint<order = 5>, accel.placement = #accel.placement<card = 0>} : tensor<1x64xf32>
    // expected-warning @+1 {{accel.tanh: order hint 1 puts it before its producer accel.relu (order 5); it runs after it, as the data requires}}
    %2 = accel.tanh %1 {accel.hint = #accel.hint<order = 1>, accel.placement = #accel.placement<card = 0>} : tensor<1x64xf32>
    accel.yield %2 : tensor<1x64xf32>
  }
  return %0 : tensor<1x64xf32>
}
