// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory=shared-intermediates=false | FileCheck %s --check-prefix=PLAN
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory=shared-intermediates=false --accel-lower-to-npu | FileCheck %s --check-prefix=LOWER
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory | FileCheck %s --check-prefix=SHARED
// RUN: nnaccel-opt %s -split-input-file --accel-lower-to-npu | FileCheck %s --check-prefix=SHARED-LOWER

// The DRAM plan of a partition, recorded in the IR: inputs first (64-byte
// aligned), then every weight, then each result in program order. %1 is
// freed after its last reader (%2), so %3 reuses its block; the yielded
// value keeps its own. dram_bytes is the peak.

// By default the intermediates go to the card's SHARED memory instead
// (reused the same way); the input, the weight and the result stay in DRAM,
// where the host reads and writes them. The lowering (which plans an
// unplanned partition itself) turns their DMA operands into SHARED ones.
// SHARED-LABEL: func.func @chain
// SHARED: accel.card_partition
// SHARED-SAME: accel.dram_bytes = 768 : i64
// SHARED-SAME: accel.shared_bytes = 512 : i64
// SHARED-SAME: output_addresses = array<i64: 512>
// SHARED: accel.constant {accel.dram_address = 256 : i64}
// SHARED: accel.relu %{{.*}} {accel.result_shared_address = 0 : i64}
// SHARED: accel.tanh %{{.*}} {accel.result_shared_address = 256 : i64}
// SHARED: accel.add %{{.*}} {accel.result_shared_address = 0 : i64}
// SHARED: accel.mul %{{.*}} {accel.dram_address = 512 : i64}
// SHARED-LOWER-LABEL: func.func @chain
// SHARED-LOWER: npu.shared_tensor at 0 : tensor<64xf32>
// SHARED-LOWER: npu.shared_tensor at 256 : tensor<64xf32>
// SHARED-LOWER: npu.shared_tensor at 0 : tensor<64xf32>
// SHARED-LOWER: npu.dram_tensor at 512 : tensor<64xf32>
// SHARED-LOWER: npu.program @chain_p0_card0_core0
// SHARED-LOWER: npu.v.relu
// SHARED-LOWER: npu.dma.st shared[0x0]
// SHARED-LOWER: npu.dma.ld vrf[0x0], shared[0x0]
// SHARED-LOWER: npu.v.tanh
// SHARED-LOWER: npu.dma.st shared[0x100]
// SHARED-LOWER: npu.v.mul
// SHARED-LOWER: npu.dma.st dram[0x200]
// PLAN-LABEL: func.func @chain
// PLAN: accel.card_partition
// PLAN-SAME: accel.dram_bytes = 1280 : i64
// PLAN-SAME: input_addresses = array<i64: 0>
// PLAN-SAME: output_addresses = array<i64: 1024>
// PLAN: accel.constant {accel.dram_address = 256 : i64}
// PLAN: accel.relu %{{.*}} {accel.dram_address = 512 : i64}
// PLAN: accel.tanh %{{.*}} {accel.dram_address = 768 : i64}
// PLAN: accel.add %{{.*}} {accel.dram_address = 512 : i64}
// PLAN: accel.mul %{{.*}} {accel.dram_address = 1024 : i64}

// Lowered, the body keeps inputs and weights and names where the program
// leaves each result; the ops themselves are now instructions.
// LOWER-LABEL: func.func @chain
// LOWER: accel.card_partition
// LOWER-SAME: programs = [@chain_p0_card0_core0]
// LOWER: accel.constant {accel.dram_address = 256 : i64}
// LOWER-NOT: accel.relu
// LOWER: npu.dram_tensor at 512 : tensor<64xf32>
// LOWER: npu.dram_tensor at 768 : tensor<64xf32>
// LOWER: npu.dram_tensor at 512 : tensor<64xf32>
// LOWER: %[[R:.*]] = npu.dram_tensor at 1024 : tensor<64xf32>
// LOWER: accel.yield %[[R]]
// LOWER: npu.program @chain_p0_card0_core0
func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %c = accel.constant dense<2.0> : tensor<64xf32>
    %1 = accel.relu %a : tensor<64xf32>
    %2 = accel.tanh %1 : tensor<64xf32>
    %3 = accel.add %2, %c : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    %4 = accel.mul %3, %2 : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    accel.yield %4 : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

// A K x N fully_connected weight is laid out for the matrix unit: its
// N x K transpose replaces it (the original is dropped, so it takes neither
// DRAM nor package space).
// PLAN-LABEL: func.func @transpose
// PLAN-NOT: tensor<8x4xf32>
// PLAN: accel.constant {accel.dram_address = 64 : i64} dense<1.000000e+00> : tensor<4x8xf32>
// PLAN-NOT: tensor<8x4xf32>
// PLAN: accel.fully_connected {{.*}}accel.dram_address = 192 : i64{{.*}}transpose_weight = true
// LOWER-LABEL: func.func @transpose
// LOWER: accel.constant {accel.dram_address = 64 : i64} {{.*}} : tensor<4x8xf32>
// LOWER: npu.dram_tensor at 192 : tensor<1x4xf32>
func.func @transpose(%x: tensor<1x8xf32>) -> tensor<1x4xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x8xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x8xf32>):
    %w = accel.constant dense<1.0> : tensor<8x4xf32>
    %1 = accel.fully_connected %a, %w : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
    accel.yield %1 : tensor<1x4xf32>
  }
  return %0 : tensor<1x4xf32>
}

// -----

// An op with several results gets one address per result.
// PLAN-LABEL: func.func @lstm
// PLAN: accel.lstm {{.*}}accel.dram_address = array<i64: 8896, 9088, 9152>
// LOWER-LABEL: func.func @lstm
// LOWER: npu.dram_tensor at 8896 : tensor<3x1x1x16xf32>
// LOWER: npu.dram_tensor at 9088 : tensor<1x1x16xf32>
// LOWER: npu.dram_tensor at 9152 : tensor<1x1x16xf32>
func.func @lstm(%x: tensor<3x1x16xf32>, %w: tensor<1x64x16xf32>, %r: tensor<1x64x16xf32>, %b: tensor<1x128xf32>) -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>) {
  %0:3 = accel.card_partition(%x, %w, %r, %b) {card = 0 : i64} : (tensor<3x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>) -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>) {
  ^bb0(%a: tensor<3x1x16xf32>, %aw: tensor<1x64x16xf32>, %ar: tensor<1x64x16xf32>, %ab: tensor<1x128xf32>):
    %y, %h, %c = accel.lstm %a, %aw, %ar, %ab {hidden_size = 16 : i64} : (tensor<3x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>) -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
    accel.yield %y, %h, %c : tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>
  }
  return %0#0, %0#1, %0#2 : tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>
}

// -----

// The layout is byte-wise, for every card float type: a small f16 weight
// stays inline (transposed), a larger bf16 one becomes a new blob.
// PLAN-LABEL: func.func @transpose_f16
// PLAN: accel.constant {accel.dram_address = 128 : i64} dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf16>
// PLAN: accel.fully_connected {{.*}}transpose_weight = true{{.*}} : (tensor<1x2xf16>, tensor<3x2xf16>) -> tensor<1x3xf16>
// PLAN: accel.constant {accel.dram_address = {{[0-9]+}} : i64} dense_resource<weight_t> : tensor<8x16xbf16>
// PLAN: accel.fully_connected {{.*}}transpose_weight = true{{.*}} : (tensor<1x16xbf16>, tensor<8x16xbf16>) -> tensor<1x8xbf16>
// LOWER-LABEL: func.func @transpose_f16
// LOWER: npu.program @transpose_f16_p0_card0_core0
// LOWER: npu.mm {{.*}}f32, f16, f16
// LOWER: npu.mm {{.*}}f32, bf16, bf16
func.func @transpose_f16(%x: tensor<1x2xf16>, %y: tensor<1x16xbf16>) -> (tensor<1x3xf16>, tensor<1x8xbf16>) {
  %0:2 = accel.card_partition(%x, %y) {card = 0 : i64} : (tensor<1x2xf16>, tensor<1x16xbf16>) -> (tensor<1x3xf16>, tensor<1x8xbf16>) {
  ^bb0(%a: tensor<1x2xf16>, %b: tensor<1x16xbf16>):
    %w = accel.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf16>
    %1 = accel.fully_connected %a, %w : (tensor<1x2xf16>, tensor<2x3xf16>) -> tensor<1x3xf16>
    %v = accel.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<16x8xbf16>
    %2 = accel.fully_connected %b, %v : (tensor<1x16xbf16>, tensor<16x8xbf16>) -> tensor<1x8xbf16>
    accel.yield %1, %2 : tensor<1x3xf16>, tensor<1x8xbf16>
  }
  return %0#0, %0#1 : tensor<1x3xf16>, tensor<1x8xbf16>
}

// -----

// Two partitions take turns on card 0 (a host op between them): the
// weights of both go side by side at the bottom of DRAM (256 bytes each),
// and both partitions' work memory starts above them, at 512; the work
// memory is shared, the weights never overlap it.
// PLAN-LABEL: func.func @turns
// PLAN: accel.card_partition
// PLAN-SAME: accel.dram_bytes = 1024 : i64, accel.dram_work_begin = 512 : i64
// PLAN-SAME: input_addresses = array<i64: 512>, output_addresses = array<i64: 768>
// PLAN: accel.constant {accel.dram_address = 0 : i64}
// PLAN: accel.host_partition
// PLAN: accel.card_partition
// PLAN-SAME: accel.dram_bytes = 1024 : i64, accel.dram_work_begin = 512 : i64
// PLAN-SAME: input_addresses = array<i64: 512>, output_addresses = array<i64: 768>
// PLAN: accel.constant {accel.dram_address = 256 : i64}
func.func @turns(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %c = accel.constant dense<2.0> : tensor<64xf32>
    %1 = accel.add %a, %c : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    accel.yield %1 : tensor<64xf32>
  }
  %2 = accel.host_partition(%0) {reason = "test"} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%b: tensor<64xf32>):
    %3 = accel.tanh %b : tensor<64xf32>
    accel.yield %3 : tensor<64xf32>
  }
  %4 = accel.card_partition(%2) {card = 0 : i64} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%d: tensor<64xf32>):
    %e = accel.constant dense<3.0> : tensor<64xf32>
    %5 = accel.mul %d, %e : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    accel.yield %5 : tensor<64xf32>
  }
  return %4 : tensor<64xf32>
}
