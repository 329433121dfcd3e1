// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s

// accel.convert streams flat chunks through two VRF slots: dma.ld in the
// input type, v.cvt (at -> dt), dma.st in the result type.
// CHECK-LABEL: npu.program @converts
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 384 y = 1 z = 1 sy = 1536 dpitch = 1536
// CHECK-NEXT: npu.v.cvt vrf[0x600], vrf[0x0], f16, f32 rows = 1 cols = 384 dpitch = 768 apitch = 1536
// CHECK-NEXT: npu.dma.st dram[0x600], vrf[0x600], f16 x = 384 y = 1 z = 1 dy = 768 spitch = 768
// CHECK: npu.dma.ld vrf[0x0], dram[0x600], f16 x = 384 y = 1 z = 1 sy = 768 dpitch = 768
// CHECK-NEXT: npu.v.cvt vrf[0x300], vrf[0x0], bf16, f16 rows = 1 cols = 384 dpitch = 768 apitch = 768
// CHECK: npu.dma.st dram[0x900], vrf[0x300], bf16 x = 384 y = 1 z = 1 dy = 768 spitch = 768
// CHECK-NEXT: npu.halt
func.func @converts(%a: tensor<4x96xf32>) -> (tensor<4x96xf16>, tensor<4x96xbf16>) {
  %0 = accel.convert %a : tensor<4x96xf32> -> tensor<4x96xf16>
  %1 = accel.convert %0 : tensor<4x96xf16> -> tensor<4x96xbf16>
  return %0, %1 : tensor<4x96xf16>, tensor<4x96xbf16>
}

// -----

// Larger tensors: chunks of 5440 elements (bf16 in + f32 out fill half the
// VRF) alternate between the two slots; chunk starts stay 64-byte aligned
// on both sides.
// CHECK-LABEL: npu.program @big_convert
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], bf16 x = 5440 y = 1 z = 1 sy = 10880 dpitch = 10880
// CHECK-NEXT: npu.v.cvt vrf[0x2a80], vrf[0x0], f32, bf16 rows = 1 cols = 5440 dpitch = 21760 apitch = 10880
// CHECK-NEXT: npu.dma.st dram[0x4e40], vrf[0x2a80], f32 x = 5440 y = 1 z = 1 dy = 21760 spitch = 21760
// CHECK-NEXT: npu.dma.ld vrf[0x7f80], dram[0x2a80], bf16 x = 4560 y = 1 z = 1 sy = 9120 dpitch = 9120
// CHECK-NEXT: npu.v.cvt vrf[0xaa00], vrf[0x7f80], f32, bf16 rows = 1 cols = 4560 dpitch = 18240 apitch = 9120
// CHECK-NEXT: npu.dma.st dram[0xa340], vrf[0xaa00], f32 x = 4560 y = 1 z = 1 dy = 18240 spitch = 18240
// CHECK-NEXT: npu.halt
func.func @big_convert(%a: tensor<10000xbf16>) -> tensor<10000xf32> {
  %0 = accel.convert %a : tensor<10000xbf16> -> tensor<10000xf32>
  return %0 : tensor<10000xf32>
}

// -----

// A float-to-float accel.cast (ONNX Cast) is the same conversion; casts to
// integers stay on the host (ONNX truncates where v.cvt rounds).
// CHECK-LABEL: func.func @casts
// CHECK: accel.cast {{.*}}accel.host_reason = "accel.cast runs on the card only between f32, f16 and bf16"
// CHECK-LABEL: npu.program @casts
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 8 y = 1 z = 1 sy = 32 dpitch = 32
// CHECK-NEXT: npu.v.cvt vrf[0x20], vrf[0x0], f16, f32 rows = 1 cols = 8 dpitch = 16 apitch = 32
// CHECK-NEXT: npu.dma.st dram[0x40], vrf[0x20], f16 x = 8 y = 1 z = 1 dy = 16 spitch = 16
// CHECK-NEXT: npu.halt
func.func @casts(%a: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xi32>) {
  %0 = accel.cast %a : tensor<8xf32> -> tensor<8xf16>
  %1 = accel.cast %a : tensor<8xf32> -> tensor<8xi32>
  return %0, %1 : tensor<8xf16>, tensor<8xi32>
}

// -----

// On a target with a large VRF (brainwave-like: 512 KiB) the chunk is also
// bounded by the 16-bit row pitch of the v.cvt: 16383 f32 elements (65532
// bytes), rounded down to the 64-byte alignment of both sides (16352).
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=brainwave-like},func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s --check-prefix=BIG
// BIG-LABEL: npu.program @wide_convert
// BIG: npu.v.cvt {{.*}}, f16, f32 rows = 1 cols = 16352 dpitch = 32704 apitch = 65408
func.func @wide_convert(%a: tensor<1x100000xf32>) -> tensor<1x100000xf16> {
  %0 = accel.convert %a : tensor<1x100000xf32> -> tensor<1x100000xf16>
  return %0 : tensor<1x100000xf16>
}
