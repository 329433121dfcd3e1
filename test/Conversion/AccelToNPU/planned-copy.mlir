// RUN: nnaccel-opt %s --accel-lower-to-npu | FileCheck %s

// accel-lower-to-npu follows the plan it is given. A reshape the plan does
// not mark accel.in_place (here a hand-written plan puts the 64 KiB result
// elsewhere) is copied by its kernel: two chunks, one per VRF slot, both
// loads before the stores, so the second load does not wait for the first
// store.
// CHECK-LABEL: npu.program @reshape_copy_p0_card0_core0
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 8192 y = 1 z = 1 dpitch = 32768 push_next
// CHECK-NEXT: npu.dma.ld vrf[0x8000], dram[0x8000], f32 x = 8192 y = 1 z = 1 dpitch = 32768 push_next
// CHECK: npu.dma.st dram[0x10000], vrf[0x0], f32 x = 8192 y = 1 z = 1 spitch = 32768 pop_prev
// CHECK: npu.dma.st dram[0x18000], vrf[0x8000], f32 x = 8192 y = 1 z = 1 spitch = 32768 pop_prev
func.func @reshape_copy(%a: tensor<128x128xf32>) -> tensor<16384xf32> {
  %0 = accel.card_partition(%a) {accel.dram_bytes = 131072 : i64, card = 0 : i64, input_addresses = array<i64: 0>, output_addresses = array<i64: 65536>} : (tensor<128x128xf32>) -> tensor<16384xf32> {
  ^bb0(%x: tensor<128x128xf32>):
    %1 = accel.reshape %x {accel.dram_address = 65536 : i64} : tensor<128x128xf32> -> tensor<16384xf32>
    accel.yield %1 : tensor<16384xf32>
  }
  return %0 : tensor<16384xf32>
}
