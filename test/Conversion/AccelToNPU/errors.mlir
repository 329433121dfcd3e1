// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(accel-lower-to-npu)'

// An op without a kernel inside a card partition is an error at the op.
func.func @no_kernel(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4xf32>) -> tensor<4xi1> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{has no NPU lowering (it should have been placed on the host)}}
    %1 = accel.compare lt, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    accel.yield %1 : tensor<4xi1>
  }
  return %0 : tensor<4xi1>
}

// -----

// A K x N weight that is not constant cannot be transposed for the card.
func.func @dynamic_weight(%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> tensor<1x2xf32> {
  %0 = accel.card_partition(%x, %w) {card = 0 : i64} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>):
    // expected-error @+1 {{needs a constant weight to transpose for the NPU}}
    %1 = accel.fully_connected %a, %b : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    accel.yield %1 : tensor<1x2xf32>
  }
  return %0 : tensor<1x2xf32>
}

