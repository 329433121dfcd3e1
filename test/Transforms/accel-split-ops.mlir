// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-split-ops))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-split-ops{max-cores=1}))' \
// RUN:   | FileCheck %s --check-prefix=ONE
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-split-ops),accel-plan-card-memory,accel-lower-to-npu)' \
// RUN:   | FileCheck %s --check-prefix=LOWER

// With one core nothing is split.
// ONE-NOT: accel.split

// A batch-4 layer is bound by streaming its 512 KiB of weights: each of the
// default card's 4 cores computes 64 output columns with its quarter of the
// weight and bias (cut at compile time), and a concat re-joins the columns.
// Lowered, each core has its program and stores its 4 x 64 columns straight
// into the 4 x 256 result, one result row (1 KiB) apart: the concat is in
// place although the pieces' rows interleave, and no core waits for another.
// CHECK-LABEL: func.func @fc_columns
// CHECK: %[[W0:.*]] = accel.constant dense<5.000000e-01> : tensor<512x64xf32>
// CHECK: %[[B0:.*]] = accel.constant dense<1.000000e+00> : tensor<64xf32>
// CHECK: %[[P0:.*]] = accel.fully_connected %{{.*}}, %[[W0]], %[[B0]] {accel.placement = #accel.placement<card = 0, cores = [0]>, accel.split = array<i64: 1, 0, 4>}
// CHECK-SAME: -> tensor<4x64xf32>
// CHECK: %[[P1:.*]] = accel.fully_connected {{.*}}cores = [1]>, accel.split = array<i64: 1, 1, 4>
// CHECK: %[[P2:.*]] = accel.fully_connected {{.*}}cores = [2]>, accel.split = array<i64: 1, 2, 4>
// CHECK: %[[P3:.*]] = accel.fully_connected {{.*}}cores = [3]>, accel.split = array<i64: 1, 3, 4>
// CHECK: %[[J:.*]] = accel.concat %[[P0]], %[[P1]], %[[P2]], %[[P3]] {axis = 1 : i64}
// CHECK: accel.yield %[[J]]
// LOWER-LABEL: npu.program @fc_columns_p0_card0_core0 card = 0 core = 0
// LOWER-NOT: npu.barrier
// LOWER: npu.dma.st dram[0x[[#%x,Y:]]], acc[0x0], f32 x = 64 y = 4 z = 1 dy = 1024
// LOWER-NEXT: npu.halt
// LOWER-LABEL: npu.program @fc_columns_p0_card0_core1 card = 0 core = 1
// LOWER-NOT: npu.barrier
// LOWER: npu.dma.st dram[0x[[#%x,Y+0x100]]], acc[0x0], f32 x = 64 y = 4 z = 1 dy = 1024
// LOWER-NEXT: npu.halt
// LOWER-LABEL: npu.program @fc_columns_p0_card0_core3 card = 0 core = 3
// LOWER-NOT: npu.barrier
// LOWER: npu.dma.st dram[0x[[#%x,Y+0x300]]], acc[0x0], f32 x = 64 y = 4 z = 1 dy = 1024
// LOWER-NEXT: npu.halt
func.func @fc_columns(%x: tensor<4x512xf32>) -> tensor<4x256xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x512xf32>) -> tensor<4x256xf32> {
  ^bb0(%a: tensor<4x512xf32>):
    %w = accel.constant dense<0.5> : tensor<512x256xf32>
    %b = accel.constant dense<1.0> : tensor<256xf32>
    %1 = accel.fully_connected %a, %w, %b : (tensor<4x512xf32>, tensor<512x256xf32>, tensor<256xf32>) -> tensor<4x256xf32>
    accel.yield %1 : tensor<4x256xf32>
  }
  return %0 : tensor<4x256xf32>
}

// -----

// Row-wise ops: the add is cut into 4 x 64 rows (slices of the inputs are
// views; a slice that copies would run on its piece's core), and the softmax follows its producer: it reads the add's pieces,
// with no re-join in between. The cores never touch each other's rows, so
// the programs need no barrier.
// CHECK-LABEL: func.func @rows_follow
// CHECK: accel.slice %{{.*}} {accel.placement = #accel.placement<card = 0, cores = [0]>, ends = array<i64: 64, 64>, starts = array<i64: 0, 0>
// CHECK: %[[A0:.*]] = accel.add {{.*}}cores = [0]>, accel.split = array<i64: 0, 0, 4>
// CHECK: %[[A1:.*]] = accel.add {{.*}}cores = [1]>
// CHECK: %[[A2:.*]] = accel.add {{.*}}cores = [2]>
// CHECK: %[[A3:.*]] = accel.add {{.*}}cores = [3]>
// CHECK-NOT: accel.concat
// CHECK: %[[S0:.*]] = accel.softmax %[[A0]] {{{.*}}cores = [0]>, accel.split = array<i64: 0, 0, 4>}
// CHECK: %[[S1:.*]] = accel.softmax %[[A1]] {{{.*}}cores = [1]>
// CHECK: %[[S2:.*]] = accel.softmax %[[A2]]
// CHECK: %[[S3:.*]] = accel.softmax %[[A3]]
// CHECK: accel.concat %[[S0]], %[[S1]], %[[S2]], %[[S3]] {axis = 0 : i64}
// LOWER-LABEL: npu.program @rows_follow_p0_card0_core0
// LOWER-NOT: npu.barrier
// LOWER: npu.program @rows_follow_p0_card0_core3
// LOWER-NOT: npu.barrier
// LOWER: npu.halt
func.func @rows_follow(%x: tensor<256x64xf32>, %y: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %0 = accel.card_partition(%x, %y) {card = 0 : i64} : (tensor<256x64xf32>, tensor<256x64xf32>) -> tensor<256x64xf32> {
  ^bb0(%a: tensor<256x64xf32>, %c: tensor<256x64xf32>):
    %1 = accel.add %a, %c : (tensor<256x64xf32>, tensor<256x64xf32>) -> tensor<256x64xf32>
    %2 = accel.softmax %1 {axis = -1 : i64} : tensor<256x64xf32>
    accel.yield %2 : tensor<256x64xf32>
  }
  return %0 : tensor<256x64xf32>
}

// -----

// A depthwise conv splits by channels: each piece reads its channels of the
// input and has one group per channel.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[X0:.*]] = accel.slice %{{.*}} {accel.placement = #accel.placement<card = 0, cores = [0]>, ends = array<i64: 1, 16, 24, 24>, starts = array<i64: 0, 0, 0, 0>
// CHECK: %[[W0:.*]] = accel.constant dense<5.000000e-01> : tensor<16x1x3x3xf32>
// CHECK: accel.conv %[[X0]], %[[W0]] {{{.*}}cores = [0]>, accel.split = array<i64: 1, 0, 4>{{.*}}groups = 16 : i64
// CHECK: accel.slice %{{.*}} {{{.*}}cores = [1]>, ends = array<i64: 1, 32, 24, 24>, starts = array<i64: 0, 16, 0, 0>
// CHECK: accel.conv {{.*}}cores = [1]>{{.*}}groups = 16 : i64
// CHECK: accel.concat {{.*}} {axis = 1 : i64}
func.func @depthwise(%x: tensor<1x64x24x24xf32>) -> tensor<1x64x24x24xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x64x24x24xf32>) -> tensor<1x64x24x24xf32> {
  ^bb0(%a: tensor<1x64x24x24xf32>):
    %w = accel.constant dense<0.5> : tensor<64x1x3x3xf32>
    %1 = accel.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 64 : i64} : (tensor<1x64x24x24xf32>, tensor<64x1x3x3xf32>) -> tensor<1x64x24x24xf32>
    accel.yield %1 : tensor<1x64x24x24xf32>
  }
  return %0 : tensor<1x64x24x24xf32>
}

// -----

// Too little work to pay for the pieces: the op stays whole on core 0.
// CHECK-LABEL: func.func @too_small
// CHECK: accel.relu
// CHECK-NOT: accel.split
// CHECK: accel.yield
// LOWER: programs = [@too_small_p0_card0_core0]}
func.func @too_small(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x16xf32>):
    %1 = accel.relu %a : tensor<4x16xf32>
    accel.yield %1 : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}

// -----

// Cores already named (a hint) are kept; the op is not split again.
// CHECK-LABEL: func.func @hinted
// CHECK: accel.fully_connected {{.*}}#accel.placement<card = 0, cores = [2]>
// CHECK-NOT: accel.split
// LOWER: programs = [@hinted_p0_card0_core0, @hinted_p0_card0_core2]}
func.func @hinted(%x: tensor<4x512xf32>) -> tensor<4x256xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x512xf32>) -> tensor<4x256xf32> {
  ^bb0(%a: tensor<4x512xf32>):
    %w = accel.constant dense<0.5> : tensor<512x256xf32>
    %1 = accel.fully_connected %a, %w {accel.placement = #accel.placement<card = 0, cores = [2]>} : (tensor<4x512xf32>, tensor<512x256xf32>) -> tensor<4x256xf32>
    accel.yield %1 : tensor<4x256xf32>
  }
  return %0 : tensor<4x256xf32>
}

// -----

// Fixed-size bags divide by bags: each core gathers and pools a quarter of
// the bags from the shared table (a gather reads only the rows it looks
// up, so the table is not what bounds it). Ragged bags stay whole.
// CHECK-LABEL: func.func @bags
// CHECK: accel.embedding_bag %{{.*}}, %{{.*}} {accel.placement = #accel.placement<card = 0, cores = [0]>, accel.split = array<i64: 0, 0, 4>
// CHECK-SAME: (tensor<10000x64xf32>, tensor<64x32xi64>) -> tensor<64x64xf32>
// CHECK: accel.embedding_bag {{.*}}cores = [3]>, accel.split = array<i64: 0, 3, 4>
// CHECK: accel.concat {{.*}}{axis = 0 : i64}
// CHECK: accel.embedding_bag {{.*}} lengths
// CHECK-NOT: accel.split
func.func @bags(%ids: tensor<256x32xi64>, %flat: tensor<8192xi64>, %len: tensor<256xi32>) -> (tensor<256x64xf32>, tensor<256x64xf32>) {
  %0:2 = accel.card_partition(%ids, %flat, %len) {card = 0 : i64} : (tensor<256x32xi64>, tensor<8192xi64>, tensor<256xi32>) -> (tensor<256x64xf32>, tensor<256x64xf32>) {
  ^bb0(%i: tensor<256x32xi64>, %f: tensor<8192xi64>, %l: tensor<256xi32>):
    %t = accel.constant dense<0.5> : tensor<10000x64xf32>
    %1 = accel.embedding_bag %t, %i : (tensor<10000x64xf32>, tensor<256x32xi64>) -> tensor<256x64xf32>
    %2 = accel.embedding_bag %t, %f lengths %l : (tensor<10000x64xf32>, tensor<8192xi64>, tensor<256xi32>) -> tensor<256x64xf32>
    accel.yield %1, %2 : tensor<256x64xf32>, tensor<256x64xf32>
  }
  return %0#0, %0#1 : tensor<256x64xf32>, tensor<256x64xf32>
}

// -----

// A rowwise-quantized table is read whole by every piece (the bag rule never
// cuts the table, whose rows are a packed layout): the pieces share the
// constant.
// CHECK-LABEL: func.func @rowwise_bags
// CHECK: %[[T:.*]] = accel.constant dense_resource<rw4> : tensor<10000x64x!accel.rowwise<4>>
// CHECK: accel.embedding_bag %[[T]], %{{.*}} {accel.placement = #accel.placement<card = 0, cores = [0]>, accel.split = array<i64: 0, 0, 4>
// CHECK-SAME: (tensor<10000x64x!accel.rowwise<4>>, tensor<64x32xi64>) -> tensor<64x64xf32>
// CHECK: accel.embedding_bag %[[T]], {{.*}}cores = [3]>, accel.split = array<i64: 0, 3, 4>
// CHECK-NOT: accel.rowwise<4>>{{.*}}accel.slice
func.func @rowwise_bags(%ids: tensor<256x32xi64>) -> tensor<256x64xf32> {
  %0 = accel.card_partition(%ids) {card = 0 : i64} : (tensor<256x32xi64>) -> tensor<256x64xf32> {
  ^bb0(%i: tensor<256x32xi64>):
    %t = accel.constant dense_resource<rw4> : tensor<10000x64x!accel.rowwise<4>>
    %1 = accel.embedding_bag %t, %i : (tensor<10000x64x!accel.rowwise<4>>, tensor<256x32xi64>) -> tensor<256x64xf32>
    accel.yield %1 : tensor<256x64xf32>
  }
  return %0 : tensor<256x64xf32>
}

// -----

// Too few output columns to cut but a long reduction: each core multiplies
// its quarter of K (slices of the input are views, of the weight constants
// cut at compile time), only the first adds the bias, and the partial
// results are summed; the fused ReLU moves after the sum.
// CHECK-LABEL: func.func @fc_reduction
// CHECK: %[[P0:.*]] = accel.fully_connected %{{.*}}, %{{.*}}, %{{.*}} {accel.placement = #accel.placement<card = 0, cores = [0]>, accel.split = array<i64: -1, 0, 4>}
// CHECK-SAME: (tensor<1x2048xf32>, tensor<2048x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
// CHECK: %[[P1:.*]] = accel.fully_connected %{{[^,]*}}, %{{[^,]*}} {accel.placement = #accel.placement<card = 0, cores = [1]>, accel.split = array<i64: -1, 1, 4>}
// CHECK-SAME: (tensor<1x2048xf32>, tensor<2048x16xf32>) -> tensor<1x16xf32>
// CHECK: %[[P2:.*]] = accel.fully_connected {{.*}}accel.split = array<i64: -1, 2, 4>
// CHECK: %[[P3:.*]] = accel.fully_connected {{.*}}accel.split = array<i64: -1, 3, 4>
// CHECK: %[[S1:.*]] = accel.add %[[P0]], %[[P1]]
// CHECK: %[[S2:.*]] = accel.add %[[S1]], %[[P2]]
// CHECK: %[[S3:.*]] = accel.add %[[S2]], %[[P3]]
// CHECK: %[[R:.*]] = accel.relu %[[S3]]
// CHECK: accel.yield %[[R]]
func.func @fc_reduction(%x: tensor<1x8192xf32>) -> tensor<1x16xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x8192xf32>) -> tensor<1x16xf32> {
  ^bb0(%a: tensor<1x8192xf32>):
    %w = accel.constant dense<0.5> : tensor<8192x16xf32>
    %b = accel.constant dense<1.0> : tensor<16xf32>
    %1 = accel.fully_connected %a, %w, %b {activation = #accel.act<relu>} : (tensor<1x8192xf32>, tensor<8192x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
    accel.yield %1 : tensor<1x16xf32>
  }
  return %0 : tensor<1x16xf32>
}
