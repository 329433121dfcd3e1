// accel-partition-cards on a target of 3 cards with 64 KiB of DRAM each.
// RUN: nnaccel-opt %s -split-input-file --pass-pipeline='builtin.module(accel-set-target{target=%S/Inputs/tiny-dram-3x.json},func.func(accel-assign-placement,accel-partition-cards))' \
// RUN:   | FileCheck %s
// One card only: the model does not fit, the error says by how much and
// names the largest tensors.
// RUN: not nnaccel-opt %s -split-input-file --pass-pipeline='builtin.module(accel-set-target{target=%S/Inputs/tiny-dram-3x.json},func.func(accel-assign-placement,accel-partition-cards{cards=1}))' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not nnaccel-opt %s -split-input-file --pass-pipeline='builtin.module(accel-set-target{target=%S/Inputs/tiny-dram-3x.json},func.func(accel-assign-placement,accel-partition-cards{cards=4}))' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOUR
// FOUR: error: accel-partition-cards: 4 cards asked for, the target 'tiny-dram-3x' has 3

// 64 KiB of tables, equally used: in program order, in runs of about a
// third of their lookup traffic per card; the dense product goes to the roomiest card and the ops
// are regrouped so that each card's ops are adjacent (one partition per
// card run).
// CHECK-LABEL: func.func @tables
// CHECK:      accel.embedding_bag %cst, %arg0 {accel.placement = #accel.placement<card = 0>}
// CHECK-NEXT: accel.embedding_bag %cst_0, %arg0 {accel.placement = #accel.placement<card = 1>}
// CHECK-NEXT: accel.fully_connected %arg1, %cst_2 {accel.placement = #accel.placement<card = 1>}
// CHECK-NEXT: accel.embedding_bag %cst_1, %arg0 {accel.placement = #accel.placement<card = 2>}
// ONE: error: the model needs 67584 bytes of card DRAM (weights and activations), 67584 bytes per card on 1 card(s), but a card of 'tiny-dram-3x' has 65536 bytes; use more cards (--cards, at most 3), narrower weights (--quantize) or a target with more DRAM
// ONE: note: 32768 bytes: a weight of accel.embedding_bag
// ONE: note: 16384 bytes: a weight of accel.embedding_bag
// ONE: note: 16384 bytes: a weight of accel.embedding_bag
// ONE: note: 1024 bytes: a weight of accel.fully_connected
// ONE: note: 256 bytes: the result of accel.embedding_bag
func.func @tables(%ids: tensor<4x2xi64>, %x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %t0 = accel.constant dense<1.0> : tensor<512x16xf32>
  %t1 = accel.constant dense<2.0> : tensor<256x16xf32>
  %t2 = accel.constant dense<3.0> : tensor<256x16xf32>
  %w = accel.constant dense<0.5> : tensor<16x16xf32>
  %b0 = accel.embedding_bag %t0, %ids : (tensor<512x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %b1 = accel.embedding_bag %t1, %ids : (tensor<256x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %b2 = accel.embedding_bag %t2, %ids : (tensor<256x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %y = accel.fully_connected %x, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %b0, %b1, %b2, %y : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A model that fits one card stays where accel-assign-placement put it.
// CHECK-LABEL: func.func @fits
// CHECK: accel.embedding_bag %cst, %arg0 {accel.placement = #accel.placement<card = 0>}
// CHECK: accel.embedding_bag %cst_0, %arg0 {accel.placement = #accel.placement<card = 0>}
func.func @fits(%ids: tensor<4x2xi64>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %t0 = accel.constant dense<1.0> : tensor<256x16xf32>
  %t1 = accel.constant dense<2.0> : tensor<256x16xf32>
  %b0 = accel.embedding_bag %t0, %ids : (tensor<256x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %b1 = accel.embedding_bag %t1, %ids : (tensor<256x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  return %b0, %b1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Ops whose card a hint names keep it and count first; the other table
// takes the middle card's share; a dense chain stays on one card while it
// has room.
// CHECK-LABEL: func.func @chain
// CHECK:      accel.embedding_bag %cst, %arg0 {accel.hint = #accel.hint<card = 2>, accel.placement = #accel.placement<card = 2>}
// CHECK:      accel.embedding_bag %cst_0, %arg0 {accel.placement = #accel.placement<card = 1>}
// CHECK:      accel.fully_connected %arg1, %cst_1 {accel.placement = #accel.placement<card = 0>}
// CHECK-NEXT: accel.fully_connected %{{.*}}, %cst_1 {accel.placement = #accel.placement<card = 0>}
func.func @chain(%ids: tensor<4x2xi64>, %x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %t0 = accel.constant dense<1.0> : tensor<768x16xf32>
  %t1 = accel.constant dense<2.0> : tensor<768x16xf32>
  %w = accel.constant dense<0.5> : tensor<16x16xf32>
  %b0 = accel.embedding_bag %t0, %ids {accel.hint = #accel.hint<card = 2>} : (tensor<768x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %b1 = accel.embedding_bag %t1, %ids : (tensor<768x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %y0 = accel.fully_connected %x, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %y1 = accel.fully_connected %y0, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %b0, %b1, %y1 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A product over a concat of two cards' bags is split by its reduction:
// each card multiplies its own bag by its rows of the weight (the bias with
// the first), the product's card adds the partials and applies the ReLU.
// CHECK-LABEL: func.func @sharded
// CHECK-NOT:  tensor<32x8xf32>
// CHECK:      %[[BIAS:.*]] = accel.constant dense<2.500000e-01> : tensor<8xf32>
// CHECK-NEXT: %[[W0:.*]] = accel.constant dense<5.000000e-01> : tensor<16x8xf32>
// CHECK-NEXT: %[[W1:.*]] = accel.constant dense<5.000000e-01> : tensor<16x8xf32>
// CHECK:      %[[B0:.*]] = accel.embedding_bag %cst, %arg0 {accel.placement = #accel.placement<card = 0>}
// CHECK-NEXT: %[[P0:.*]] = accel.fully_connected %[[B0]], %[[W0]], %[[BIAS]] {accel.placement = #accel.placement<card = 0>}
// CHECK-NEXT: %[[B1:.*]] = accel.embedding_bag %cst_0, %arg0 {accel.placement = #accel.placement<card = 2>}
// CHECK-NEXT: %[[P1:.*]] = accel.fully_connected %[[B1]], %[[W1]] {accel.placement = #accel.placement<card = 2>}
// CHECK-NEXT: %[[S:.*]] = accel.add %[[P0]], %[[P1]] {accel.placement = #accel.placement<card = 1>}
// CHECK-NEXT: %[[R:.*]] = accel.relu %[[S]] {accel.placement = #accel.placement<card = 1>}
// CHECK-NEXT: return %[[R]]
func.func @sharded(%ids: tensor<4x2xi64>) -> tensor<4x8xf32> {
  %t0 = accel.constant dense<1.0> : tensor<512x16xf32>
  %t1 = accel.constant dense<2.0> : tensor<512x16xf32>
  %w = accel.constant dense<0.5> : tensor<32x8xf32>
  %b = accel.constant dense<0.25> : tensor<8xf32>
  %b0 = accel.embedding_bag %t0, %ids : (tensor<512x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %b1 = accel.embedding_bag %t1, %ids : (tensor<512x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %c = accel.concat %b0, %b1 {axis = 1 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x32xf32>
  %y = accel.fully_connected %c, %w, %b {activation = #accel.act<relu>} : (tensor<4x32xf32>, tensor<32x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A product of more than half a card (64 KiB of weight on 64 KiB cards) is
// cut along its output columns into pieces of at most half a card (whole
// 64-column tiles), re-joined by a concat, and the pieces placed like any
// other ops; the whole weight is gone.
// CHECK-LABEL: func.func @oversized
// CHECK-NOT:  tensor<64x256xf32> =
// CHECK:      accel.fully_connected %arg0, %{{.*}} {accel.placement = #accel.placement<card = 0>} : (tensor<4x64xf32>, tensor<64x128xf32>) -> tensor<4x128xf32>
// CHECK-NEXT: accel.fully_connected %arg0, %{{.*}} {accel.placement = #accel.placement<card = 0>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
// CHECK-NEXT: accel.fully_connected %arg0, %{{.*}} {accel.placement = #accel.placement<card = 1>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
// CHECK-NEXT: accel.concat %{{.*}}, %{{.*}}, %{{.*}} {accel.placement = #accel.placement<card = 1>, axis = 1 : i64}
func.func @oversized(%x: tensor<4x64xf32>) -> tensor<4x256xf32> {
  %w = accel.constant dense<0.5> : tensor<64x256xf32>
  %y = accel.fully_connected %x, %w : (tensor<4x64xf32>, tensor<64x256xf32>) -> tensor<4x256xf32>
  return %y : tensor<4x256xf32>
}

// -----

// Tables balance the rows they gather per run (indices x row bytes), not
// their size: the two hot tables (512 lookups each) go to different cards,
// the cold ones (8 each) join the second; a split by bytes would have put
// both hot tables on one card.
// CHECK-LABEL: func.func @lookups
// CHECK:      accel.embedding_bag %cst, %arg0 {accel.placement = #accel.placement<card = 0>}
// CHECK-NEXT: accel.embedding_bag %cst_0, %arg0 {accel.placement = #accel.placement<card = 2>}
// CHECK-NEXT: accel.embedding_bag %cst_1, %arg1 {accel.placement = #accel.placement<card = 2>}
// CHECK-NEXT: accel.embedding_bag %cst_2, %arg1 {accel.placement = #accel.placement<card = 2>}
func.func @lookups(%hot: tensor<64x8xi64>, %cold: tensor<4x2xi64>) -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %t0 = accel.constant dense<1.0> : tensor<256x16xf32>
  %t1 = accel.constant dense<2.0> : tensor<256x16xf32>
  %t2 = accel.constant dense<3.0> : tensor<256x16xf32>
  %t3 = accel.constant dense<4.0> : tensor<256x16xf32>
  %b0 = accel.embedding_bag %t0, %hot : (tensor<256x16xf32>, tensor<64x8xi64>) -> tensor<64x16xf32>
  %b1 = accel.embedding_bag %t1, %hot : (tensor<256x16xf32>, tensor<64x8xi64>) -> tensor<64x16xf32>
  %b2 = accel.embedding_bag %t2, %cold : (tensor<256x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  %b3 = accel.embedding_bag %t3, %cold : (tensor<256x16xf32>, tensor<4x2xi64>) -> tensor<4x16xf32>
  return %b0, %b1, %b2, %b3 : tensor<64x16xf32>, tensor<64x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A wide-input, narrow-output product of more than half a card (K = 1024,
// N = 16: 64 KiB of weight) is cut along its reduction instead: each piece
// gets a slice of the input and its rows of the weight, the first the
// bias, and sums join the partial results. Far fewer bytes cross cards (a
// 4 x 16 partial from each piece against the whole 4 x 1024 input to each).
// CHECK-LABEL: func.func @oversized_reduction
// CHECK-NOT:  tensor<1024x16xf32> =
// CHECK:      %[[X0:.*]] = accel.slice %arg0 {{.*}} : tensor<4x1024xf32> -> tensor<4x384xf32>
// CHECK:      %[[P0:.*]] = accel.fully_connected %[[X0]], %{{.*}}, %{{.*}} {accel.placement = #accel.placement<card = 0>} : (tensor<4x384xf32>, tensor<384x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK:      %[[X1:.*]] = accel.slice %arg0 {{.*}} : tensor<4x1024xf32> -> tensor<4x320xf32>
// CHECK:      %[[P1:.*]] = accel.fully_connected %[[X1]], %{{.*}} {accel.placement = #accel.placement<card = {{[0-2]}}>} : (tensor<4x320xf32>, tensor<320x16xf32>) -> tensor<4x16xf32>
// CHECK:      accel.fully_connected {{.*}} : (tensor<4x320xf32>, tensor<320x16xf32>) -> tensor<4x16xf32>
// CHECK:      accel.add %[[P0]], %[[P1]]
// CHECK:      accel.add
// CHECK-NOT:  accel.concat
func.func @oversized_reduction(%x: tensor<4x1024xf32>) -> tensor<4x16xf32> {
  %w = accel.constant dense<0.5> : tensor<1024x16xf32>
  %b = accel.constant dense<0.25> : tensor<16xf32>
  %y = accel.fully_connected %x, %w, %b : (tensor<4x1024xf32>, tensor<1024x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
