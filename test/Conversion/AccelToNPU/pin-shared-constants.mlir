// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights=shared-constant-bytes=256 | FileCheck %s --check-prefix=CAP
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights=shared-constant-bytes=0 | FileCheck %s --check-prefix=OFF
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights=enabled=false | FileCheck %s --check-prefix=OFF
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights --accel-lower-to-npu | FileCheck %s --check-prefix=LOWER
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory \
// RUN:   --accel-pin-weights=shared-constant-bytes=400000 --accel-lower-to-npu \
// RUN:   | FileCheck %s --check-prefix=BIG

// OFF-NOT: accel.pinned_shared_address

// A card's only partition keeps its small constants in SHARED, smallest
// first, above the 1 KiB its intermediates use there (accel.shared_bytes
// grows to cover them): %b2 (128 B), %d (256 B), %b1 (384 B). Not the FC
// weights, which are pinned in the MRF (the setup loads those from DRAM),
// nor %c, whose reader is an in-place reshape (a view of its DRAM bytes).
// CHECK-LABEL: func.func @small_first
// CHECK: accel.card_partition
// CHECK-SAME: accel.shared_bytes = 1792 : i64
// CHECK: %[[W1:.*]] = accel.constant {accel.dram_address = {{[0-9]+}} : i64} dense<5.000000e-01> : tensor<96x128xf32>
// CHECK: %[[B1:.*]] = accel.constant {accel.dram_address = {{[0-9]+}} : i64, accel.pinned_shared_address = 1408 : i64} dense<1.000000e+00> : tensor<96xf32>
// CHECK: %[[W2:.*]] = accel.constant {accel.dram_address = {{[0-9]+}} : i64} dense<2.500000e-01>
// CHECK: %[[B2:.*]] = accel.constant {accel.dram_address = {{[0-9]+}} : i64, accel.pinned_shared_address = 1024 : i64} dense<2.000000e+00> : tensor<32xf32>
// CHECK: accel.constant {accel.dram_address = {{[0-9]+}} : i64} dense<3.000000e+00> : tensor<64xf32>
// CHECK: accel.constant {accel.dram_address = {{[0-9]+}} : i64, accel.pinned_shared_address = 1152 : i64} dense<4.000000e+00> : tensor<2x32xf32>

// At most 256 bytes: %b1 stays in DRAM.
// CAP-LABEL: func.func @small_first
// CAP: accel.card_partition
// CAP-SAME: accel.shared_bytes = 1408 : i64
// CAP: accel.constant {accel.dram_address = {{[0-9]+}} : i64} dense<1.000000e+00> : tensor<96xf32>
// CAP: accel.pinned_shared_address = 1024 : i64} dense<2.000000e+00>
// CAP: accel.pinned_shared_address = 1152 : i64} dense<4.000000e+00>

// The setup program gathers them from DRAM into ACC at their relative
// SHARED offsets (the loads' latencies overlap) and stores them with one
// DMA; the kernels read them in SHARED (the biases at 0x580 and 0x400, %d
// at 0x480), %c in DRAM.
// LOWER-LABEL: func.func @small_first
// LOWER: npu.program @small_first_p0_card0_core0 card = 0 core = 0
// LOWER: npu.dma.ld vrf[{{.*}}], shared[0x580], f32 x = 96
// LOWER: npu.dma.ld vrf[{{.*}}], shared[0x400], f32 x = 32
// LOWER: npu.dma.ld vrf[{{.*}}], dram[{{.*}}], f32 x = 64
// LOWER-NEXT: npu.v.add
// LOWER: npu.dma.ld vrf[{{.*}}], shared[0x480], f32 x = 64
// LOWER-NEXT: npu.v.mul
// LOWER: npu.program @small_first_p0_card0_core0_setup card = 0 core = 0
// LOWER-NEXT: npu.dma.ld acc[0x0], dram[{{.*}}], u8 x = 128
// LOWER-NEXT: npu.dma.ld acc[0x80], dram[{{.*}}], u8 x = 256
// LOWER-NEXT: npu.dma.ld acc[0x180], dram[{{.*}}], u8 x = 384
// LOWER-NEXT: npu.sync
// LOWER-NEXT: npu.dma.st shared[0x400], acc[0x0], u8 x = 768
// LOWER-NEXT: npu.dma.ld mrf
module attributes {npu.target = "default"} {
func.func @small_first(%x: tensor<2x128xf32>) -> tensor<2x32xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<2x128xf32>) -> tensor<2x32xf32> {
  ^bb0(%a: tensor<2x128xf32>):
    %w1 = accel.constant dense<0.5> : tensor<96x128xf32>
    %b1 = accel.constant dense<1.0> : tensor<96xf32>
    %w2 = accel.constant dense<0.25> : tensor<32x96xf32>
    %b2 = accel.constant dense<2.0> : tensor<32xf32>
    %c = accel.constant dense<3.0> : tensor<64xf32>
    %d = accel.constant dense<4.0> : tensor<2x32xf32>
    %1 = accel.fully_connected %a, %w1, %b1 {transpose_weight = true} : (tensor<2x128xf32>, tensor<96x128xf32>, tensor<96xf32>) -> tensor<2x96xf32>
    %2 = accel.fully_connected %1, %w2, %b2 {transpose_weight = true} : (tensor<2x96xf32>, tensor<32x96xf32>, tensor<32xf32>) -> tensor<2x32xf32>
    %r = accel.reshape %c : tensor<64xf32> -> tensor<2x32xf32>
    %3 = accel.add %2, %r : (tensor<2x32xf32>, tensor<2x32xf32>) -> tensor<2x32xf32>
    %4 = accel.mul %3, %d : (tensor<2x32xf32>, tensor<2x32xf32>) -> tensor<2x32xf32>
    accel.yield %4 : tensor<2x32xf32>
  }
  return %0 : tensor<2x32xf32>
}
}

// -----

// An int8 product's per-channel scales (its accel.kernel_constants, which
// accel-plan-card-memory made a constant) go to SHARED too, and its kernel
// loads them there; the attribute keeps naming their DRAM copy.
// CHECK-LABEL: func.func @kernel_constants
// CHECK: accel.constant {accel.dram_address = 128 : i64, accel.pinned_shared_address = 0 : i64} dense<[1.250000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK: accel.fully_connected {{.*}}accel.kernel_constants = 128 : i64
// LOWER-LABEL: func.func @kernel_constants
// LOWER: npu.program @kernel_constants_p0_card0_core0
// LOWER-NEXT: npu.dma.ld vrf[[[SCALES:0x[0-9a-f]+]]], shared[0x0], f32 x = 2
// LOWER: npu.v.dqnt acc[0x0], acc[0x0], vrf[[[SCALES]]], f32, i32
// LOWER: npu.program @kernel_constants_p0_card0_core0_setup
// LOWER-NEXT: npu.dma.ld acc[0x0], dram[0x80], u8 x = 8
// LOWER-NEXT: npu.sync
// LOWER-NEXT: npu.dma.st shared[0x0], acc[0x0], u8 x = 8
module attributes {npu.target = "default"} {
func.func @kernel_constants(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x4x!quant.uniform<i8:f32, 0.5>>):
    %w = accel.constant dense_resource<w8> : tensor<4x2x!quant.uniform<i8:f32:1, {0.25, 0.5}>>
    %1 = accel.fully_connected %a, %w : (tensor<1x4x!quant.uniform<i8:f32, 0.5>>, tensor<4x2x!quant.uniform<i8:f32:1, {0.25, 0.5}>>) -> tensor<1x2xf32>
    accel.yield %1 : tensor<1x2xf32>
  }
  return %0 : tensor<1x2xf32>
}
}
{-#
  dialect_resources: {
    builtin: {
      w8: "0x080000000102030405060708"
    }
  }
#-}

// -----

// Two partitions that take turns on a card would overwrite each other's
// SHARED: neither keeps constants there.
// CHECK-LABEL: func.func @two_partitions
// CHECK-NOT: accel.pinned_shared_address
// CHECK: return
module attributes {npu.target = "default"} {
func.func @two_partitions(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x64xf32>):
    %c = accel.constant dense<1.0> : tensor<1x64xf32>
    %1 = accel.add %a, %c : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
    accel.yield %1 : tensor<1x64xf32>
  }
  %1 = accel.card_partition(%0) {card = 0 : i64} : (tensor<1x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x64xf32>):
    %c = accel.constant dense<2.0> : tensor<1x64xf32>
    %2 = accel.mul %a, %c : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
    accel.yield %2 : tensor<1x64xf32>
  }
  return %1 : tensor<1x64xf32>
}
}

// -----

// A constant larger than ACC (300 KiB, with a bound that admits it) is
// copied chunk by chunk: 16 KiB through ACC at a time.
// BIG-LABEL: func.func @larger_than_acc
// BIG: npu.program @larger_than_acc_p0_card0_core0_setup
// BIG-NEXT: npu.dma.ld acc[0x0], dram[{{.*}}], u8 x = 16384
// BIG-NEXT: npu.sync
// BIG-NEXT: npu.dma.st shared[{{.*}}], acc[0x0], u8 x = 16384
// BIG: npu.dma.st shared[{{.*}}], acc[0x0], u8 x = 12288
// BIG-NEXT: npu.halt
module attributes {npu.target = "default"} {
func.func @larger_than_acc(%x: tensor<1x76800xf32>) -> tensor<1x76800xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x76800xf32>) -> tensor<1x76800xf32> {
  ^bb0(%a: tensor<1x76800xf32>):
    %c = accel.constant dense<1.0> : tensor<1x76800xf32>
    %1 = accel.add %a, %c : (tensor<1x76800xf32>, tensor<1x76800xf32>) -> tensor<1x76800xf32>
    accel.yield %1 : tensor<1x76800xf32>
  }
  return %0 : tensor<1x76800xf32>
}
}
