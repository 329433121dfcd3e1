// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights=enabled=false | FileCheck %s --check-prefix=OFF
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights --accel-lower-to-npu | FileCheck %s --check-prefix=LOWER

// OFF-NOT: accel.mrf_address
// OFF-NOT: accel.mrf_work_bytes

// A card's only partition pins its constant FC weight: 2 k tiles x 2 n
// tiles of 64 x 64 f32 (16 KiB each) at the top of the 1 MiB MRF; the
// kernels keep the 960 KiB below.
// CHECK-LABEL: func.func @fc
// CHECK: accel.card_partition
// CHECK-SAME: accel.mrf_work_bytes = 983040 : i64
// CHECK: accel.fully_connected
// CHECK-SAME: accel.mrf_address = 983040 : i64

// The setup program loads the four tiles into their own slots; the
// program multiplies from them and loads no weight. The verifier takes the
// pinned range as written (pinned_mrf).
// LOWER-LABEL: func.func @fc
// LOWER: accel.card_partition
// LOWER-SAME: programs = [@fc_p0_card0_core0]
// LOWER-SAME: setup_programs = [@fc_p0_card0_core0_setup]
// LOWER: npu.program @fc_p0_card0_core0 card = 0 core = 0 target = "default" attributes {pinned_mrf = array<i64: 983040, 1048576>}
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.mm acc[0x0], vrf[0x0], mrf[0xf0000], f32, f32, f32 m = 2 k = 64 n = 64
// LOWER-NEXT: npu.mm acc[0x0], vrf[0x100], mrf[0xf4000], f32, f32, f32 m = 2 k = 64 n = 64 {{.*}} acc = 1
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.mm acc[0x{{[0-9a-f]+}}], vrf[0x0], mrf[0xf8000], f32, f32, f32 m = 2 k = 64 n = 32
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.halt
// LOWER: npu.program @fc_p0_card0_core0_setup card = 0 core = 0
// The bias, kept in SHARED (pin-shared-constants.mlir), comes first.
// LOWER-NEXT: npu.dma.ld acc[0x0], dram[{{.*}}], u8 x = 384
// LOWER-NEXT: npu.sync
// LOWER-NEXT: npu.dma.st shared[0x0], acc[0x0], u8 x = 384
// LOWER-NEXT: npu.dma.ld mrf[0xf0000], dram[{{.*}}], f32 x = 64 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xf4000], dram[{{.*}}], f32 x = 64 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xf8000], dram[{{.*}}], f32 x = 64 y = 32 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xfc000], dram[{{.*}}], f32 x = 64 y = 32 z = 1
// LOWER-NEXT: npu.halt
module attributes {npu.target = "default"} {
func.func @fc(%x: tensor<2x128xf32>) -> tensor<2x96xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<2x128xf32>) -> tensor<2x96xf32> {
  ^bb0(%a: tensor<2x128xf32>):
    %w = accel.constant dense<0.5> : tensor<96x128xf32>
    %b = accel.constant dense<1.0> : tensor<96xf32>
    %1 = accel.fully_connected %a, %w, %b {transpose_weight = true} : (tensor<2x128xf32>, tensor<96x128xf32>, tensor<96xf32>) -> tensor<2x96xf32>
    accel.yield %1 : tensor<2x96xf32>
  }
  return %0 : tensor<2x96xf32>
}
}

// -----

// First fit in program order: the 4 MiB weight of the first layer cannot
// be pinned and streams through the MRF its kernel measured (two groups of
// eight 16 KiB tiles, 256 KiB); the second layer's 1 MiB weight does not
// fit above that either, the third's (64 KiB) does.
// CHECK-LABEL: func.func @first_fit
// CHECK: accel.card_partition
// CHECK-SAME: accel.mrf_work_bytes = 983040 : i64
// CHECK: accel.fully_connected
// CHECK-NOT: accel.mrf_address
// CHECK-SAME: tensor<1x1024xf32>
// CHECK: accel.fully_connected
// CHECK-NOT: accel.mrf_address
// CHECK-SAME: tensor<1x256xf32>
// CHECK: accel.fully_connected
// CHECK-SAME: accel.mrf_address = 983040 : i64
module attributes {npu.target = "default"} {
func.func @first_fit(%x: tensor<1x1024xf32>) -> tensor<1x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x1024xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x1024xf32>):
    %w1 = accel.constant dense<0.5> : tensor<1024x1024xf32>
    %w2 = accel.constant dense<0.5> : tensor<256x1024xf32>
    %w3 = accel.constant dense<0.5> : tensor<64x256xf32>
    %1 = accel.fully_connected %a, %w1 {transpose_weight = true} : (tensor<1x1024xf32>, tensor<1024x1024xf32>) -> tensor<1x1024xf32>
    %2 = accel.fully_connected %1, %w2 {transpose_weight = true} : (tensor<1x1024xf32>, tensor<256x1024xf32>) -> tensor<1x256xf32>
    %3 = accel.fully_connected %2, %w3 {transpose_weight = true} : (tensor<1x256xf32>, tensor<64x256xf32>) -> tensor<1x64xf32>
    accel.yield %3 : tensor<1x64xf32>
  }
  return %0 : tensor<1x64xf32>
}
}

// -----

// Pieces on several cores pin in their own core's MRF: each piece's tiles
// at the top of its core's MRF.
// CHECK-LABEL: func.func @cores
// CHECK: accel.card_partition
// CHECK-SAME: accel.mrf_work_bytes = 1015808 : i64
// CHECK: accel.fully_connected
// CHECK-SAME: accel.mrf_address = 1015808 : i64
// CHECK-SAME: cores = [0]
// CHECK: accel.fully_connected
// CHECK-SAME: accel.mrf_address = 1015808 : i64
// CHECK-SAME: cores = [1]
// LOWER-LABEL: func.func @cores
// LOWER: setup_programs = [@cores_p0_card0_core0_setup, @cores_p0_card0_core1_setup]
module attributes {npu.target = "default"} {
func.func @cores(%x: tensor<1x128xf32>) -> (tensor<1x64xf32>, tensor<1x64xf32>) {
  %0:2 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x128xf32>) -> (tensor<1x64xf32>, tensor<1x64xf32>) {
  ^bb0(%a: tensor<1x128xf32>):
    %w1 = accel.constant dense<0.5> : tensor<64x128xf32>
    %w2 = accel.constant dense<0.25> : tensor<64x128xf32>
    %1 = accel.fully_connected %a, %w1 {transpose_weight = true, accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<1x128xf32>, tensor<64x128xf32>) -> tensor<1x64xf32>
    %2 = accel.fully_connected %a, %w2 {transpose_weight = true, accel.placement = #accel.placement<card = 0, cores = [1]>} : (tensor<1x128xf32>, tensor<64x128xf32>) -> tensor<1x64xf32>
    accel.yield %1, %2 : tensor<1x64xf32>, tensor<1x64xf32>
  }
  return %0#0, %0#1 : tensor<1x64xf32>, tensor<1x64xf32>
}
}

// -----

// Two partitions take turns on card 0: each would overwrite the other's
// MRF, so neither pins. A matmul whose right operand is computed has no
// weight to pin either.
// CHECK-LABEL: func.func @shared_card
// CHECK-NOT: accel.mrf_address
// CHECK-NOT: accel.mrf_work_bytes
// CHECK: return
module attributes {npu.target = "default"} {
func.func @shared_card(%x: tensor<1x128xf32>) -> tensor<1x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x128xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x128xf32>):
    %w = accel.constant dense<0.5> : tensor<64x128xf32>
    %1 = accel.fully_connected %a, %w {transpose_weight = true} : (tensor<1x128xf32>, tensor<64x128xf32>) -> tensor<1x64xf32>
    accel.yield %1 : tensor<1x64xf32>
  }
  %1 = accel.card_partition(%0) {card = 0 : i64} : (tensor<1x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x64xf32>):
    %w = accel.constant dense<0.5> : tensor<64x64xf32>
    %1 = accel.fully_connected %a, %w {transpose_weight = true} : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
    accel.yield %1 : tensor<1x64xf32>
  }
  return %1 : tensor<1x64xf32>
}
}

// -----

// CHECK-LABEL: func.func @computed_rhs
// CHECK-NOT: accel.mrf_address
// CHECK: return
module attributes {npu.target = "default"} {
func.func @computed_rhs(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = accel.card_partition(%x, %y) {card = 0 : i64} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>):
    %1 = accel.matmul %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    accel.yield %1 : tensor<64x64xf32>
  }
  return %0 : tensor<64x64xf32>
}
}

// -----

// lstm and gru pin f32 W and R too. A gru on one core: its three W tiles
// (64 x 16) and three R tiles (64 x 64), 16 KiB each, at the top of the
// MRF. The setup program loads them, one DMA a tile; the program
// multiplies from them (x.W^T in pieces of one step, h.R^T every step)
// and loads no weight.
// CHECK-LABEL: func.func @gru_one_core
// CHECK: accel.card_partition
// CHECK-SAME: accel.mrf_work_bytes = 950272 : i64
// CHECK: accel.gru
// CHECK-SAME: accel.mrf_address = 950272 : i64
// LOWER-LABEL: func.func @gru_one_core
// LOWER: setup_programs = [@gru_one_core_p0_card0_core0_setup]
// LOWER: npu.program @gru_one_core_p0_card0_core0 card = 0 core = 0 target = "default" attributes {pinned_mrf = array<i64: 950272, 1048576>}
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.mm acc[0x0], vrf[0x0], mrf[0xe8000], f32, f32, f32 m = 1 k = 16 n = 64
// LOWER: npu.mm acc[0x0], acc[{{.*}}], mrf[0xf4000], f32, f32, f32 m = 1 k = 64 n = 64 {{.*}}acc = 1
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.mm acc[0x300], vrf[0x40], mrf[0xe8000], f32, f32, f32 m = 1 k = 16 n = 64
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.halt
// LOWER: npu.program @gru_one_core_p0_card0_core0_setup card = 0 core = 0
// LOWER-NEXT: npu.dma.ld mrf[0xe8000], dram[{{.*}}], f32 x = 16 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xec000], dram[{{.*}}], f32 x = 16 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xf0000], dram[{{.*}}], f32 x = 16 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xf4000], dram[{{.*}}], f32 x = 64 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xf8000], dram[{{.*}}], f32 x = 64 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xfc000], dram[{{.*}}], f32 x = 64 y = 64 z = 1
// LOWER-NEXT: npu.halt
module attributes {npu.target = "default"} {
func.func @gru_one_core(%x: tensor<3x1x16xf32>) -> tensor<3x1x1x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<3x1x16xf32>) -> tensor<3x1x1x64xf32> {
  ^bb0(%a: tensor<3x1x16xf32>):
    %w = accel.constant dense<0.01> : tensor<1x192x16xf32>
    %r = accel.constant dense<0.02> : tensor<1x192x64xf32>
    %y, %h = accel.gru %a, %w, %r {hidden_size = 64 : i64, linear_before_reset = true} : (tensor<3x1x16xf32>, tensor<1x192x16xf32>, tensor<1x192x64xf32>) -> (tensor<3x1x1x64xf32>, tensor<1x1x64xf32>)
    accel.yield %y : tensor<3x1x1x64xf32>
  }
  return %0 : tensor<3x1x1x64xf32>
}
}

// -----

// An lstm the multi-core kernel shares among cores 0 and 1 pins each
// core's slices of W and R (MultiCoreRecurrentKernel.cpp). H = 132: core 0
// owns 68 columns of every gate (two row tiles: 8 W tiles, 24 R tiles,
// 512 KiB), core 1 64 (one: 4 + 12 tiles, 256 KiB). One address serves
// both cores: the highest at which each core's slice ends below what was
// pinned on it before, here the FC weight at the top of core 0's MRF
// (1015808 - 524288 = 491520); core 1 leaves the rest of its MRF unused.
// Every core's setup program loads its own tiles, W's then R's, the full
// N x N k tiles of a row block in one DMA; the programs multiply from them
// and load no weight.
// CHECK-LABEL: func.func @lstm_cores
// CHECK: accel.card_partition
// CHECK-SAME: accel.mrf_work_bytes = 491520 : i64
// CHECK: accel.fully_connected
// CHECK-SAME: accel.mrf_address = 1015808 : i64
// CHECK: accel.lstm
// CHECK-SAME: accel.mrf_address = 491520 : i64
// LOWER-LABEL: func.func @lstm_cores
// LOWER: setup_programs = [@lstm_cores_p0_card0_core0_setup, @lstm_cores_p0_card0_core1_setup]
// LOWER: npu.program @lstm_cores_p0_card0_core0 card = 0 core = 0 target = "default" attributes {pinned_mrf = array<i64: 1015808, 1048576, 491520, 1015808>}
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.mm acc[{{.*}}], vrf[0x0], mrf[0x78000], f32, f32, f32 m = 2 k = 16 n = 64
// LOWER-NEXT: npu.mm acc[{{.*}}], vrf[0x0], mrf[0x7c000], f32, f32, f32 m = 2 k = 16 n = 4
// LOWER: npu.mm acc[{{.*}}], acc[{{.*}}], mrf[0x98000], f32, f32, f32 m = 1 k = 64 n = 64 {{.*}}acc = 1
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.halt
// LOWER: npu.program @lstm_cores_p0_card0_core1 card = 0 core = 1 target = "default" attributes {pinned_mrf = array<i64: 491520, 753664>}
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.mm acc[{{.*}}], vrf[0x0], mrf[0x78000], f32, f32, f32 m = 2 k = 16 n = 64
// LOWER-NEXT: npu.mm acc[{{.*}}], vrf[0x0], mrf[0x7c000], f32, f32, f32 m = 2 k = 16 n = 64
// LOWER: npu.mm acc[{{.*}}], acc[{{.*}}], mrf[0x88000], f32, f32, f32 m = 1 k = 64 n = 64 {{.*}}acc = 1
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.halt
// LOWER: npu.program @lstm_cores_p0_card0_core0_setup card = 0 core = 0
// LOWER-NEXT: npu.dma.ld mrf[0xf8000], dram[{{.*}}], f32 x = 64 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0xfc000], dram[{{.*}}], f32 x = 64 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0x78000], dram[{{.*}}], f32 x = 16 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0x7c000], dram[{{.*}}], f32 x = 16 y = 4 z = 1
// LOWER: npu.dma.ld mrf[0x98000], dram[{{.*}}], f32 x = 64 y = 64 z = 2 sy = 528
// LOWER: npu.halt
// LOWER: npu.program @lstm_cores_p0_card0_core1_setup card = 0 core = 1
// LOWER-NEXT: npu.dma.ld mrf[0x78000], dram[{{.*}}], f32 x = 16 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0x7c000], dram[{{.*}}], f32 x = 16 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0x80000], dram[{{.*}}], f32 x = 16 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0x84000], dram[{{.*}}], f32 x = 16 y = 64 z = 1
// LOWER-NEXT: npu.dma.ld mrf[0x88000], dram[{{.*}}], f32 x = 64 y = 64 z = 2 sy = 528
// LOWER: npu.halt
module attributes {npu.target = "default"} {
func.func @lstm_cores(%x: tensor<2x1x16xf32>, %v: tensor<1x128xf32>) -> (tensor<1x64xf32>, tensor<2x1x1x132xf32>) {
  %0:2 = accel.card_partition(%x, %v) {card = 0 : i64} : (tensor<2x1x16xf32>, tensor<1x128xf32>) -> (tensor<1x64xf32>, tensor<2x1x1x132xf32>) {
  ^bb0(%a: tensor<2x1x16xf32>, %b: tensor<1x128xf32>):
    %fw = accel.constant dense<0.5> : tensor<64x128xf32>
    %w = accel.constant dense<0.01> : tensor<1x528x16xf32>
    %r = accel.constant dense<0.02> : tensor<1x528x132xf32>
    %1 = accel.fully_connected %b, %fw {transpose_weight = true, accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<1x128xf32>, tensor<64x128xf32>) -> tensor<1x64xf32>
    %y, %h, %c = accel.lstm %a, %w, %r {hidden_size = 132 : i64, accel.placement = #accel.placement<card = 0, cores = [0, 1]>} : (tensor<2x1x16xf32>, tensor<1x528x16xf32>, tensor<1x528x132xf32>) -> (tensor<2x1x1x132xf32>, tensor<1x1x132xf32>, tensor<1x1x132xf32>)
    accel.yield %1, %y : tensor<1x64xf32>, tensor<2x1x1x132xf32>
  }
  return %0#0, %0#1 : tensor<1x64xf32>, tensor<2x1x1x132xf32>
}
}

// -----

// lstm_small's two layers (H = 256 on 4 cores): each core pins 320 KiB of
// the first (4 W and 16 R tiles) and 512 KiB of the second (16 + 16). A
// candidate is weighed against the MRF the kernels that still stream
// need, not counting its own streaming need (R resident and two W slots,
// 288 KiB for the second layer), which pinning it removes: both fit.
// CHECK-LABEL: func.func @two_layers
// CHECK: accel.card_partition
// CHECK-SAME: accel.mrf_work_bytes = 196608 : i64
// CHECK: accel.lstm
// CHECK-SAME: accel.mrf_address = 720896 : i64
// CHECK: accel.lstm
// CHECK-SAME: accel.mrf_address = 196608 : i64
// LOWER-LABEL: func.func @two_layers
// LOWER: npu.program @two_layers_p0_card0_core3 card = 0 core = 3 target = "default" attributes {pinned_mrf = array<i64: 720896, 1048576, 196608, 720896>}
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.halt
module attributes {npu.target = "default"} {
func.func @two_layers(%x: tensor<2x1x64xf32>) -> tensor<2x1x1x256xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<2x1x64xf32>) -> tensor<2x1x1x256xf32> {
  ^bb0(%a: tensor<2x1x64xf32>):
    %w1 = accel.constant dense<0.01> : tensor<1x1024x64xf32>
    %r1 = accel.constant dense<0.02> : tensor<1x1024x256xf32>
    %w2 = accel.constant dense<0.01> : tensor<1x1024x256xf32>
    %r2 = accel.constant dense<0.02> : tensor<1x1024x256xf32>
    %y1, %h1, %c1 = accel.lstm %a, %w1, %r1 {hidden_size = 256 : i64, accel.placement = #accel.placement<card = 0, cores = [0, 1, 2, 3]>} : (tensor<2x1x64xf32>, tensor<1x1024x64xf32>, tensor<1x1024x256xf32>) -> (tensor<2x1x1x256xf32>, tensor<1x1x256xf32>, tensor<1x1x256xf32>)
    %x2 = accel.reshape %y1 : tensor<2x1x1x256xf32> -> tensor<2x1x256xf32>
    %y2, %h2, %c2 = accel.lstm %x2, %w2, %r2 {hidden_size = 256 : i64, accel.placement = #accel.placement<card = 0, cores = [0, 1, 2, 3]>} : (tensor<2x1x256xf32>, tensor<1x1024x256xf32>, tensor<1x1024x256xf32>) -> (tensor<2x1x1x256xf32>, tensor<1x1x256xf32>, tensor<1x1x256xf32>)
    accel.yield %y2 : tensor<2x1x1x256xf32>
  }
  return %0 : tensor<2x1x1x256xf32>
}
}

// -----

// An int8 1x1 conv on one core with pixels as the matrix unit's rows pins
// its filter matrix (96 x 16 i8, 1536 bytes) like a product's weight: the
// setup program loads it once, the program multiplies from it and loads
// only its input (and no bias: there is none).
// CHECK-LABEL: func.func @int8_pointwise
// CHECK: accel.card_partition
// CHECK-SAME: accel.mrf_work_bytes = 1047040 : i64
// CHECK: accel.conv
// CHECK-SAME: accel.mrf_address = 1047040 : i64
// LOWER-LABEL: func.func @int8_pointwise
// LOWER: npu.program @int8_pointwise_p0_card0_core0 card = 0 core = 0 target = "default" attributes {pinned_mrf = array<i64: 1047040, 1048576>}
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.mm chain, vrf[0x1c0], mrf[0xffa00], i32, u8, i8 m = 64 k = 16 n = 64
// LOWER: npu.mm chain, vrf[0x1c0], mrf[0xffe00], i32, u8, i8 m = 64 k = 16 n = 32
// LOWER-NOT: npu.dma.ld mrf
// LOWER: npu.halt
// LOWER: npu.program @int8_pointwise_p0_card0_core0_setup card = 0 core = 0
// LOWER-NEXT: npu.dma.ld mrf[0xffa00], dram[{{.*}}], i8 x = 16 y = 96 z = 1 sy = 16
// LOWER-NEXT: npu.halt
module attributes {npu.target = "default"} {
func.func @int8_pointwise(%x: tensor<1x16x16x16x!quant.uniform<u8:f32, 0.1:3>>) -> tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x16x16x16x!quant.uniform<u8:f32, 0.1:3>>) -> tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>> {
  ^bb0(%a: tensor<1x16x16x16x!quant.uniform<u8:f32, 0.1:3>>):
    %w = accel.constant dense_resource<ones> : tensor<96x16x1x1x!quant.uniform<i8:f32, 0.01>>
    %1 = accel.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x16x16x16x!quant.uniform<u8:f32, 0.1:3>>, tensor<96x16x1x1x!quant.uniform<i8:f32, 0.01>>) -> tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>>
    accel.yield %1 : tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>>
  }
  return %0 : tensor<1x96x16x16x!quant.uniform<u8:f32, 0.05:2>>
}
}
{-#
  dialect_resources: {
    builtin: {
      ones: "0x08000000010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101"
    }
  }
#-}
