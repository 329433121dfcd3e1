// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory=shared-intermediates=false | FileCheck %s --check-prefix=PLAN
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory=shared-intermediates=false --accel-lower-to-npu | FileCheck %s --check-prefix=LOWER
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory --accel-lower-to-npu | FileCheck %s --check-prefix=SHARED

// Address arithmetic instead of copies. A reshape is a view of its operand;
// a slice of one contiguous run at a 64-byte aligned offset is a view into
// its operand; both are marked accel.in_place and emit no instructions. The
// slice starting 264 bytes in is copied by its kernel.
// PLAN-LABEL: func.func @views
// PLAN: output_addresses = array<i64: 1024, 1536, 2048>
// PLAN: accel.relu %{{.*}} {accel.dram_address = 1024 : i64}
// PLAN: accel.reshape %{{.*}} {accel.dram_address = 1024 : i64, accel.in_place}
// PLAN: accel.slice %{{.*}} {accel.dram_address = 1536 : i64, accel.in_place, ends
// PLAN: accel.slice %{{.*}} {accel.dram_address = 2048 : i64, ends
// LOWER-LABEL: npu.program @views_p0_card0_core0
// LOWER: npu.v.relu
// LOWER: npu.dma.st dram[0x400]
// The only copy: one row of 60 floats from 264 bytes into the relu result
// (loaded from the aligned address below it, after the relu's store).
// LOWER-NEXT: npu.sync ex pop_next push_prev
// LOWER-NEXT: npu.dma.ld vrf[0x0], dram[0x500], f32 x = 62 y = 1 z = 1 dpitch = 248 pop_next push_next
// LOWER-NEXT: npu.sync ex pop_prev push_next
// LOWER-NEXT: npu.dma.st dram[0x800], vrf[0x8], f32 x = 60
// LOWER-NEXT: npu.halt
func.func @views(%x: tensor<4x64xf32>) -> (tensor<256xf32>, tensor<2x64xf32>, tensor<1x60xf32>) {
  %0:3 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x64xf32>) -> (tensor<256xf32>, tensor<2x64xf32>, tensor<1x60xf32>) {
  ^bb0(%a: tensor<4x64xf32>):
    %r = accel.relu %a : tensor<4x64xf32>
    %v = accel.reshape %r : tensor<4x64xf32> -> tensor<256xf32>
    %s = accel.slice %r {starts = array<i64: 2, 0>, ends = array<i64: 4, 64>, steps = array<i64: 1, 1>} : tensor<4x64xf32> -> tensor<2x64xf32>
    %m = accel.slice %r {starts = array<i64: 1, 2>, ends = array<i64: 2, 62>, steps = array<i64: 1, 1>} : tensor<4x64xf32> -> tensor<1x60xf32>
    accel.yield %v, %s, %m : tensor<256xf32>, tensor<2x64xf32>, tensor<1x60xf32>
  }
  return %0#0, %0#1, %0#2 : tensor<256xf32>, tensor<2x64xf32>, tensor<1x60xf32>
}

// -----

// A concat along the outermost axis whose parts are produced here and read
// only by it: the producers write straight into the concat's buffer (relu
// at its start, tanh 512 bytes in) and the concat emits nothing. The buffer
// is allocated with its first part and lives until the concat's last reader.
// PLAN-LABEL: func.func @concat_parts
// PLAN: accel.relu %{{.*}} {accel.dram_address = 1280 : i64}
// PLAN: accel.tanh %{{.*}} {accel.dram_address = 1792 : i64}
// PLAN: accel.concat %{{.*}} {accel.dram_address = 1280 : i64, accel.in_place, axis = 0 : i64}
// PLAN: accel.sigmoid %{{.*}} {accel.dram_address = 2560 : i64}
// LOWER-LABEL: npu.program @concat_parts_p0_card0_core0
// LOWER: npu.v.relu
// LOWER: npu.dma.st dram[0x500]
// LOWER: npu.v.tanh
// LOWER: npu.dma.st dram[0x700]
// The reader of the concat waits for both stores (relayed through ex).
// LOWER: npu.sync ex pop_next push_prev
// LOWER-NEXT: npu.dma.ld vrf[0x0], dram[0x500], f32 x = 320
// LOWER: npu.v.sigm
// LOWER: npu.dma.st dram[0xa00]
// LOWER-NEXT: npu.halt
// With intermediates in SHARED (the default) the concat's buffer, parts
// and all, moves there: the parts are stored into SHARED and the reader
// loads the concat from it.
// SHARED-LABEL: func.func @concat_parts
// SHARED: npu.shared_tensor at 0 : tensor<2x64xf32>
// SHARED: npu.shared_tensor at 512 : tensor<3x64xf32>
// SHARED: npu.shared_tensor at 0 : tensor<5x64xf32>
// SHARED: npu.dram_tensor at 1280 : tensor<5x64xf32>
// SHARED-LABEL: npu.program @concat_parts_p0_card0_core0
// SHARED: npu.dma.st shared[0x0]
// SHARED: npu.dma.st shared[0x200]
// SHARED: npu.dma.ld vrf[0x0], shared[0x0], f32 x = 320
// SHARED: npu.dma.st dram[0x500]
func.func @concat_parts(%x: tensor<2x64xf32>, %y: tensor<3x64xf32>) -> tensor<5x64xf32> {
  %0 = accel.card_partition(%x, %y) {card = 0 : i64} : (tensor<2x64xf32>, tensor<3x64xf32>) -> tensor<5x64xf32> {
  ^bb0(%a: tensor<2x64xf32>, %b: tensor<3x64xf32>):
    %p = accel.relu %a : tensor<2x64xf32>
    %q = accel.tanh %b : tensor<3x64xf32>
    %c = accel.concat %p, %q {axis = 0 : i64} : (tensor<2x64xf32>, tensor<3x64xf32>) -> tensor<5x64xf32>
    %d = accel.sigmoid %c : tensor<5x64xf32>
    accel.yield %d : tensor<5x64xf32>
  }
  return %0 : tensor<5x64xf32>
}

// -----

// A part with another reader is written in place too: the other reader
// (exp) reads it where it is, in the concat's buffer.
// PLAN-LABEL: func.func @concat_part_read
// PLAN: accel.relu %{{.*}} {accel.dram_address = 1280 : i64}
// PLAN: accel.concat %{{.*}} {accel.dram_address = 1280 : i64, accel.in_place, axis = 0 : i64}
// PLAN: accel.exp %{{.*}} {accel.dram_address = 2560 : i64}
// LOWER-LABEL: npu.program @concat_part_read_p0_card0_core0
// LOWER: npu.dma.st dram[0x500]
// LOWER: npu.dma.st dram[0x700]
// LOWER: npu.dma.ld vrf[0x0], dram[0x500], f32 x = 128
// LOWER-NEXT: npu.v.exp
// LOWER: npu.dma.ld vrf[0x0], dram[0x500], f32 x = 320
// LOWER-NEXT: npu.v.sigm
func.func @concat_part_read(%x: tensor<2x64xf32>, %y: tensor<3x64xf32>) -> (tensor<5x64xf32>, tensor<2x64xf32>) {
  %0:2 = accel.card_partition(%x, %y) {card = 0 : i64} : (tensor<2x64xf32>, tensor<3x64xf32>) -> (tensor<5x64xf32>, tensor<2x64xf32>) {
  ^bb0(%a: tensor<2x64xf32>, %b: tensor<3x64xf32>):
    %p = accel.relu %a : tensor<2x64xf32>
    %q = accel.tanh %b : tensor<3x64xf32>
    %c = accel.concat %p, %q {axis = 0 : i64} : (tensor<2x64xf32>, tensor<3x64xf32>) -> tensor<5x64xf32>
    %r = accel.exp %p : tensor<2x64xf32>
    %d = accel.sigmoid %c : tensor<5x64xf32>
    accel.yield %d, %r : tensor<5x64xf32>, tensor<2x64xf32>
  }
  return %0#0, %0#1 : tensor<5x64xf32>, tensor<2x64xf32>
}

// -----

// Not in place: parts interleave along an inner axis, a part is a block
// argument, or a part is both parts of the concat and a result of the
// partition. Each concat copies.
// PLAN-LABEL: func.func @concat_copies
// PLAN-NOT: accel.in_place
// PLAN: accel.yield
func.func @concat_copies(%x: tensor<2x64xf32>, %y: tensor<2x64xf32>) -> (tensor<2x128xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<2x64xf32>) {
  %0:4 = accel.card_partition(%x, %y) {card = 0 : i64} : (tensor<2x64xf32>, tensor<2x64xf32>) -> (tensor<2x128xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<2x64xf32>) {
  ^bb0(%a: tensor<2x64xf32>, %b: tensor<2x64xf32>):
    %p = accel.relu %a : tensor<2x64xf32>
    %q = accel.tanh %b : tensor<2x64xf32>
    %inner = accel.concat %p, %q {axis = 1 : i64} : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x128xf32>
    %arg = accel.concat %a, %b {axis = 0 : i64} : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<4x64xf32>
    %s = accel.sigmoid %a : tensor<2x64xf32>
    %shared = accel.concat %s, %s {axis = 0 : i64} : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<4x64xf32>
    accel.yield %inner, %arg, %shared, %s : tensor<2x128xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<2x64xf32>
  }
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x128xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<2x64xf32>
}

// -----

// A slice of a constant (a learned position table cut to the sequence
// length) that is a partition result, on a card two partitions share: the
// weights lie below the work range (here from 512 on), where the runtime
// binds results, so the slice is copied into the work range instead of
// becoming a view of the table. The slice read inside the partition is
// still a view.
// PLAN-LABEL: func.func @constant_view_result
// PLAN: accel.card_partition
// PLAN-SAME: accel.dram_work_begin = 512 : i64
// PLAN-SAME: output_addresses = array<i64: 640, 768>
// PLAN: %[[T:.*]] = accel.constant {accel.dram_address = 0 : i64} dense_resource<table>
// PLAN: %[[S:.*]] = accel.slice %[[T]] {accel.dram_address = 640 : i64, ends
// PLAN: %[[V:.*]] = accel.slice %[[T]] {accel.dram_address = 0 : i64, accel.in_place, ends
// PLAN: accel.add %[[V]], %{{.*}} {accel.dram_address = 768 : i64}
// LOWER-LABEL: npu.program @constant_view_result_p0_card0_core0
// LOWER: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 32
// LOWER: npu.dma.st dram[0x280], vrf[0x0], f32 x = 32
func.func @constant_view_result(%x: tensor<2x16xf32>, %y: tensor<64xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<64xf32>) {
  %0:2 = accel.card_partition(%x) {card = 0 : i64} : (tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  ^bb0(%a: tensor<2x16xf32>):
    %table = accel.constant dense_resource<table> : tensor<4x16xf32>
    %s = accel.slice %table {starts = array<i64: 0, 0>, ends = array<i64: 2, 16>, steps = array<i64: 1, 1>} : tensor<4x16xf32> -> tensor<2x16xf32>
    %v = accel.slice %table {starts = array<i64: 0, 0>, ends = array<i64: 2, 16>, steps = array<i64: 1, 1>} : tensor<4x16xf32> -> tensor<2x16xf32>
    %sum = accel.add %v, %a : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
    accel.yield %s, %sum : tensor<2x16xf32>, tensor<2x16xf32>
  }
  %1 = accel.host_partition(%y) {reason = "test"} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%b: tensor<64xf32>):
    %2 = accel.tanh %b : tensor<64xf32>
    accel.yield %2 : tensor<64xf32>
  }
  %3 = accel.card_partition(%1) {card = 0 : i64} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%d: tensor<64xf32>):
    %e = accel.constant dense<3.0> : tensor<64xf32>
    %4 = accel.mul %d, %e : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    accel.yield %4 : tensor<64xf32>
  }
  return %0#0, %0#1, %3 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<64xf32>
}

{-#
  dialect_resources: {
    builtin: {
      table: "0x04000000000000000000803f0000004000004040000080400000a0400000c0400000e0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000a0410000a8410000b0410000b8410000c0410000c8410000d0410000d8410000e0410000e8410000f0410000f84100000042000004420000084200000c4200001042000014420000184200001c4200002042000024420000284200002c4200003042000034420000384200003c4200004042000044420000484200004c4200005042000054420000584200005c4200006042000064420000684200006c4200007042000074420000784200007c42"
    }
  }
#-}
