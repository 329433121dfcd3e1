// RUN: nnaccel-opt %s --nnaccel-lower | FileCheck %s
// RUN: nnaccel-opt %s --pass-pipeline='builtin.module(nnaccel-lower{target=default force-host=accel.tanh})' \
// RUN:   | FileCheck %s --check-prefix=FORCED

// nnaccel-lower: placement, outlining, memory planning and lowering, from
// plain accel IR to npu programs.
// CHECK-LABEL: func.func @model
// CHECK: accel.card_partition(%{{.*}}) {accel.dram_bytes = {{[0-9]+}} : i64, accel.dram_work_begin = 0 : i64, accel.launch = 0 : i64, accel.shared_bytes = {{[0-9]+}} : i64, card = 0 : i64
// CHECK-SAME: programs = [@model_p0_card0_core0]
// CHECK: npu.shared_tensor
// CHECK: npu.dram_tensor
// CHECK: npu.program @model_p0_card0_core0 card = 0 core = 0 target = "default"
// CHECK: npu.v.relu
// CHECK: npu.v.tanh
// CHECK: npu.halt

// Options reach the passes: a forced op splits the model into card, host
// and card partitions.
// FORCED-LABEL: func.func @model
// FORCED: accel.card_partition
// FORCED: accel.host_partition
// FORCED: accel.tanh {{.*}}accel.host_reason = "forced to the host (--force-host)"
// FORCED: accel.card_partition
// FORCED: npu.program @model_p0_card0_core0
// FORCED: npu.program @model_p1_card0_core0
func.func @model(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = accel.relu %x : tensor<4x64xf32>
  %1 = accel.tanh %0 : tensor<4x64xf32>
  %2 = accel.relu %1 : tensor<4x64xf32>
  return %2 : tensor<4x64xf32>
}
