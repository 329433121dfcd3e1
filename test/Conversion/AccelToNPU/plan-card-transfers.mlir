// accel-plan-card-transfers: launches and card-to-card values.
// RUN: nnaccel-opt %s -split-input-file --pass-pipeline='builtin.module(accel-set-target{target=multicard-6x},func.func(accel-outline-partitions,accel-plan-card-transfers))' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file --pass-pipeline='builtin.module(accel-set-target{target=multicard-6x},func.func(accel-outline-partitions,accel-plan-card-transfers{p2p=false}))' \
// RUN:   | FileCheck %s --check-prefix=HOST
// The lowering: recv at the consumer's start, send at the producer's end.
// RUN: nnaccel-opt %s -split-input-file --pass-pipeline='builtin.module(accel-set-target{target=multicard-6x},func.func(accel-outline-partitions,accel-plan-card-transfers),accel-plan-card-memory,accel-lower-to-npu)' \
// RUN:   | FileCheck %s --check-prefix=LOWER

// Two tables on cards 0 and 1, their sum on card 2: one launch, the bags
// go card to card.
// CHECK-LABEL: func.func @tables
// CHECK: %[[B0:.*]] = accel.card_partition(%arg0) {accel.launch = 0 : i64, card = 0 : i64}
// CHECK: %[[B1:.*]] = accel.card_partition(%arg0) {accel.launch = 0 : i64, card = 1 : i64}
// CHECK: %[[T0:.*]] = accel.transfer %[[B0]] {channel = 0 : i64, destination = 2 : i64, source = 0 : i64}
// CHECK: %[[T1:.*]] = accel.transfer %[[B1]] {channel = 1 : i64, destination = 2 : i64, source = 1 : i64}
// CHECK: accel.card_partition(%[[T0]], %[[T1]]) {accel.launch = 0 : i64, card = 2 : i64}
// Without p2p the sum starts the next launch and the bags cross the host.
// HOST-LABEL: func.func @tables
// HOST: accel.card_partition(%arg0) {accel.launch = 0 : i64, card = 0 : i64}
// HOST: accel.card_partition(%arg0) {accel.launch = 0 : i64, card = 1 : i64}
// HOST-NOT: accel.transfer
// HOST: accel.card_partition(%{{.*}}, %{{.*}}) {accel.launch = 1 : i64, card = 2 : i64}
// LOWER-LABEL: npu.program @tables_p0_card0_core0
// LOWER: npu.dma.st dram[[[BAG0:0x[0-9a-f]+]]]
// LOWER-NEXT: npu.send dram[[[BAG0]]] bytes = 256 peer = 2{{$}}
// LOWER-NEXT: npu.halt
// LOWER-LABEL: npu.program @tables_p1_card1_core0
// LOWER: npu.send dram[{{.*}}] bytes = 256 peer = 2 chan = 1
// LOWER-LABEL: npu.program @tables_p2_card2_core0
// LOWER-NEXT: npu.recv dram[[[IN0:0x[0-9a-f]+]]] bytes = 256{{$}}
// LOWER-NEXT: npu.recv dram[[[IN1:0x[0-9a-f]+]]] bytes = 256 peer = 1 chan = 1
// LOWER: npu.dma.ld vrf[{{.*}}], dram[[[IN0]]]
func.func @tables(%ids: tensor<4x2xi64>) -> tensor<4x16xf32> {
  %t0 = accel.constant dense<1.0> : tensor<64x16xf32>
  %t1 = accel.constant dense<2.0> : tensor<64x16xf32>
  %b0 = accel.embedding_bag %t0, %ids {accel.placement = #accel.placement<card = 0>} : (tensor<64x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %b1 = accel.embedding_bag %t1, %ids {accel.placement = #accel.placement<card = 1>} : (tensor<64x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %s = accel.add %b0, %b1 {accel.placement = #accel.placement<card = 2>} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// -----

// A second partition of a card and a host partition each start a launch.
// CHECK-LABEL: func.func @breaks
// CHECK: accel.card_partition(%arg0) {accel.launch = 0 : i64, card = 0 : i64}
// CHECK: accel.transfer %{{.*}} {channel = 0 : i64, destination = 1 : i64, source = 0 : i64}
// CHECK: accel.card_partition(%{{.*}}) {accel.launch = 0 : i64, card = 1 : i64}
// CHECK-NOT: accel.transfer
// CHECK: accel.card_partition(%{{.*}}) {accel.launch = 1 : i64, card = 0 : i64}
// CHECK: accel.host_partition
// CHECK: accel.card_partition(%{{.*}}) {accel.launch = 2 : i64, card = 1 : i64}
func.func @breaks(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %a = accel.relu %x {accel.placement = #accel.placement<card = 0>} : tensor<4x16xf32>
  %b = accel.relu %a {accel.placement = #accel.placement<card = 1>} : tensor<4x16xf32>
  %c = accel.relu %b {accel.placement = #accel.placement<card = 0>} : tensor<4x16xf32>
  %d = accel.relu %c {accel.placement = #accel.placement<card = -1>} : tensor<4x16xf32>
  %e = accel.relu %d {accel.placement = #accel.placement<card = 1>} : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}

// -----

// The consumer's own work comes before the `recv`: only the first op that
// reads the received value waits for it.
// LOWER-LABEL: npu.program @overlap_p1_card1_core0
// LOWER-NEXT: npu.dma.ld vrf[{{.*}}], dram[0x0]
// LOWER: npu.recv dram[[[A:0x[0-9a-f]+]]] bytes = 256{{$}}
// LOWER: npu.dma.ld vrf[{{.*}}], dram[[[A]]]
func.func @overlap(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %a = accel.relu %x {accel.placement = #accel.placement<card = 0>} : tensor<4x16xf32>
  %b = accel.relu %y {accel.placement = #accel.placement<card = 1>} : tensor<4x16xf32>
  %c = accel.add %a, %b {accel.placement = #accel.placement<card = 1>} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// Stacked lstm layers on two cards pipeline: card 0's Y goes a time step at
// a time (pieces = 4 steps), its first core sending each h_t from the
// exchanged copy in ACC as soon as it has it; card 1 receives each step
// into one of two SHARED stages before the previous step's exchange, whose
// barrier then lets every core load it (the first step: its own barrier).
// CHECK-LABEL: func.func @stacked
// CHECK: accel.card_partition(%arg0) {accel.launch = 0 : i64, card = 0 : i64}
// CHECK: accel.transfer %{{.*}} {channel = 0 : i64, destination = 1 : i64, pieces = 4 : i64, source = 0 : i64} : tensor<4x1x64xf32>
// CHECK: accel.card_partition(%{{.*}}) {accel.launch = 0 : i64, card = 1 : i64}
// HOST-LABEL: func.func @stacked
// HOST-NOT: accel.transfer
// LOWER-LABEL: npu.program @stacked_p0_card0_core0
// LOWER-COUNT-4: npu.send acc[{{.*}}] bytes = 256 peer = 1 
// LOWER-NOT: npu.send
// LOWER: npu.halt
// LOWER-LABEL: npu.program @stacked_p1_card1_core0
// LOWER: npu.recv shared[[[S0:0x[0-9a-f]+]]] bytes = 256{{$}}
// LOWER-NEXT: npu.barrier
// LOWER: npu.dma.ld vrf[0x0], shared[[[S0]]]
// LOWER: npu.recv shared[[[S1:0x[0-9a-f]+]]] bytes = 256{{$}}
// LOWER-NEXT: npu.dma.st shared
// LOWER-NEXT: npu.barrier
// LOWER: npu.dma.ld vrf[0x0], shared[[[S1]]]
// LOWER-COUNT-2: npu.recv shared
// LOWER-NOT: npu.recv
// LOWER: npu.halt
func.func @stacked(%x: tensor<4x1x64xf32>) -> tensor<4x1x1x64xf32> {
  %w = accel.constant dense<0.01> : tensor<1x256x64xf32>
  %r = accel.constant dense<0.02> : tensor<1x256x64xf32>
  %b = accel.constant dense<0.1> : tensor<1x512xf32>
  %y0, %h0, %c0 = accel.lstm %x, %w, %r, %b {hidden_size = 64 : i64, accel.placement = #accel.placement<card = 0, cores = [0, 1, 2, 3]>} : (tensor<4x1x64xf32>, tensor<1x256x64xf32>, tensor<1x256x64xf32>, tensor<1x512xf32>) -> (tensor<4x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>)
  %x1 = accel.reshape %y0 {accel.placement = #accel.placement<card = 0>} : tensor<4x1x1x64xf32> -> tensor<4x1x64xf32>
  %y1, %h1, %c1 = accel.lstm %x1, %w, %r, %b {hidden_size = 64 : i64, accel.placement = #accel.placement<card = 1, cores = [0, 1, 2, 3]>} : (tensor<4x1x64xf32>, tensor<1x256x64xf32>, tensor<1x256x64xf32>, tensor<1x512xf32>) -> (tensor<4x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>)
  return %y1 : tensor<4x1x1x64xf32>
}
