// RUN: nnaccel-opt %s --accel-plan-card-memory=shared-intermediates=false | FileCheck %s

// A freed buffer is reused only by a value the same core writes first:
// %1 (core 1) dies at %2, but %3 is written by core 0, which could then
// overwrite it while core 1 is still reading it, so %3 takes fresh memory;
// %4, written by core 1 again, reuses %1's buffer.
// CHECK-LABEL: func.func @core_aware_reuse
// CHECK: input_addresses = array<i64: 0>
// CHECK: accel.relu %{{.*}} {accel.dram_address = 1024 : i64, accel.placement = #accel.placement<card = 0, cores = [1]>}
// CHECK: accel.neg %{{.*}} {accel.dram_address = 2048 : i64, accel.placement = #accel.placement<card = 0, cores = [1]>}
// CHECK: accel.abs %{{.*}} {accel.dram_address = 3072 : i64, accel.placement = #accel.placement<card = 0, cores = [0]>}
// CHECK: accel.exp %{{.*}} {accel.dram_address = 1024 : i64, accel.placement = #accel.placement<card = 0, cores = [1]>}
func.func @core_aware_reuse(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  %0:3 = accel.card_partition(%x) {card = 0 : i64} : (tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  ^bb0(%a: tensor<256xf32>):
    %1 = accel.relu %a {accel.placement = #accel.placement<card = 0, cores = [1]>} : tensor<256xf32>
    %2 = accel.neg %1 {accel.placement = #accel.placement<card = 0, cores = [1]>} : tensor<256xf32>
    %3 = accel.abs %2 {accel.placement = #accel.placement<card = 0, cores = [0]>} : tensor<256xf32>
    %4 = accel.exp %2 {accel.placement = #accel.placement<card = 0, cores = [1]>} : tensor<256xf32>
    accel.yield %2, %3, %4 : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>
  }
  return %0#0, %0#1, %0#2 : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>
}
