// RUN: nnaccel-opt %s -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=%S/Inputs/tiny-dram.json},accel-lower-to-npu)'

// The whole model must fit the card's DRAM (1 MiB here).
func.func @too_big(%x: tensor<1x1024xf32>) -> tensor<1x512xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x1024xf32>) -> tensor<1x512xf32> {
  ^bb0(%a: tensor<1x1024xf32>):
    // expected-error @+1 {{'accel.constant' op does not fit the card's 1048576 bytes of DRAM}}
    %w = accel.constant dense<1.0> : tensor<512x1024xf32>
    %1 = accel.fully_connected %a, %w {transpose_weight = true} : (tensor<1x1024xf32>, tensor<512x1024xf32>) -> tensor<1x512xf32>
    accel.yield %1 : tensor<1x512xf32>
  }
  return %0 : tensor<1x512xf32>
}
