// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-split-ops))' | FileCheck %s

// Hinted cores: the layer is cut into one piece per named core, along the
// axis the hint's kind asks for (model: the weight's output columns).
// CHECK-LABEL: func.func @cores_model
// CHECK: accel.fully_connected {{.*}}accel.placement = #accel.placement<card = 0, cores = [1]>, accel.split = array<i64: 1, 0, 2>
// CHECK-SAME: -> tensor<4x128xf32>
// CHECK: accel.fully_connected {{.*}}accel.placement = #accel.placement<card = 0, cores = [2]>, accel.split = array<i64: 1, 1, 2>
// CHECK-SAME: -> tensor<4x128xf32>
// CHECK: accel.concat {{.*}}{axis = 1 : i64}
func.func @cores_model(%x: tensor<4x512xf32>) -> tensor<4x256xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x512xf32>) -> tensor<4x256xf32> {
  ^bb0(%a: tensor<4x512xf32>):
    %w = accel.constant dense<0.5> : tensor<512x256xf32>
    %1 = accel.fully_connected %a, %w {accel.hint = #accel.hint<cores = [1, 2], parallel = model>} : (tensor<4x512xf32>, tensor<512x256xf32>) -> tensor<4x256xf32>
    accel.yield %1 : tensor<4x256xf32>
  }
  return %0 : tensor<4x256xf32>
}

// -----

// Chunks with the data kind: rows, on the first cores.
// CHECK-LABEL: func.func @chunks_data
// CHECK: accel.fully_connected {{.*}}cores = [0]>, accel.split = array<i64: 0, 0, 2>
// CHECK-SAME: -> tensor<32x256xf32>
// CHECK: accel.fully_connected {{.*}}cores = [1]>, accel.split = array<i64: 0, 1, 2>
// CHECK: accel.concat {{.*}}{axis = 0 : i64}
func.func @chunks_data(%x: tensor<64x512xf32>) -> tensor<64x256xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<64x512xf32>) -> tensor<64x256xf32> {
  ^bb0(%a: tensor<64x512xf32>):
    %w = accel.constant dense<0.5> : tensor<512x256xf32>
    %1 = accel.fully_connected %a, %w {accel.hint = #accel.hint<chunks = 2, parallel = data>} : (tensor<64x512xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
    accel.yield %1 : tensor<64x256xf32>
  }
  return %0 : tensor<64x256xf32>
}

// -----

// One hinted core: the op runs whole there, even where splitting would pay.
// CHECK-LABEL: func.func @one_core
// CHECK: accel.fully_connected {{.*}}accel.placement = #accel.placement<card = 0, cores = [3]>
// CHECK-NOT: accel.split
// CHECK-NOT: accel.concat
func.func @one_core(%x: tensor<4x512xf32>) -> tensor<4x256xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x512xf32>) -> tensor<4x256xf32> {
  ^bb0(%a: tensor<4x512xf32>):
    %w = accel.constant dense<0.5> : tensor<512x256xf32>
    %1 = accel.fully_connected %a, %w {accel.hint = #accel.hint<cores = [3]>} : (tensor<4x512xf32>, tensor<512x256xf32>) -> tensor<4x256xf32>
    accel.yield %1 : tensor<4x256xf32>
  }
  return %0 : tensor<4x256xf32>
}

// -----

// Hints that cannot be honoured are warnings; the compiler's own choice
// follows (here: the usual 4-way column split, or the op whole).
// CHECK-LABEL: func.func @rejected
// CHECK: accel.fully_connected {{.*}}cores = [0]>, accel.split = array<i64: 1, 0, 4>
// CHECK: accel.fully_connected {{.*}}cores = [3]>, accel.split = array<i64: 1, 3, 4>
// CHECK: accel.reshape {{.*}}accel.placement = #accel.placement<card = 0, cores = [0]>
// CHECK: accel.relu
// CHECK-NOT: accel.split
func.func @rejected(%x: tensor<4x512xf32>, %y: tensor<2x32xf32>) -> (tensor<4x256xf32>, tensor<64xf32>, tensor<2x32xf32>) {
  %0:3 = accel.card_partition(%x, %y) {card = 0 : i64} : (tensor<4x512xf32>, tensor<2x32xf32>) -> (tensor<4x256xf32>, tensor<64xf32>, tensor<2x32xf32>) {
  ^bb0(%a: tensor<4x512xf32>, %b: tensor<2x32xf32>):
    %w = accel.constant dense<0.5> : tensor<512x256xf32>
    // expected-warning @+1 {{accel.fully_connected: core hint 7 is out of range (the card has 4 cores to use); the compiler chooses its cores}}
    %1 = accel.fully_connected %a, %w {accel.hint = #accel.hint<cores = [0, 7]>} : (tensor<4x512xf32>, tensor<512x256xf32>) -> tensor<4x256xf32>
    // expected-warning @+1 {{accel.reshape: cannot be split into 2 pieces (accel.reshape has no split rule); it runs on one core}}
    %2 = accel.reshape %b {accel.hint = #accel.hint<cores = [0, 1]>} : tensor<2x32xf32> -> tensor<64xf32>
    // expected-warning @+1 {{accel.relu: cannot be split into 64 pieces (too few aligned units along every axis it splits); the compiler chooses the split}}
    %3 = accel.relu %b {accel.hint = #accel.hint<chunks = 64>} : tensor<2x32xf32>
    accel.yield %1, %2, %3 : tensor<4x256xf32>, tensor<64xf32>, tensor<2x32xf32>
  }
  return %0#0, %0#1, %0#2 : tensor<4x256xf32>, tensor<64xf32>, tensor<2x32xf32>
}

// -----

// A kind the op has no rule of: a warning, then any rule.
// CHECK-LABEL: func.func @no_model_rule
// CHECK: accel.softmax {{.*}}cores = [0]>, accel.split = array<i64: 0, 0, 2>
func.func @no_model_rule(%x: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<256x64xf32>) -> tensor<256x64xf32> {
  ^bb0(%a: tensor<256x64xf32>):
    // expected-warning @+1 {{accel.softmax: has no model-parallel split; the compiler chooses the split}}
    %1 = accel.softmax %a {axis = -1 : i64, accel.hint = #accel.hint<chunks = 2, parallel = model>} : tensor<256x64xf32>
    accel.yield %1 : tensor<256x64xf32>
  }
  return %0 : tensor<256x64xf32>
}

// -----

// Model-parallel with too few columns: the reduction over K (the only
// other model-parallel rule). The partial results have rows to spare, so
// each piece's core sums one band of rows of all partials (views) and
// applies the ReLU to it; the bands re-join in place.
// CHECK-LABEL: func.func @reduction_bands
// CHECK: %[[P0:.*]] = accel.fully_connected {{.*}}cores = [0]>, accel.split = array<i64: -1, 0, 4>}
// CHECK-SAME: (tensor<64x1024xf32>, tensor<1024x16xf32>) -> tensor<64x16xf32>
// CHECK: %[[P3:.*]] = accel.fully_connected {{.*}}cores = [3]>, accel.split = array<i64: -1, 3, 4>}
// CHECK: %[[B0:.*]] = accel.slice %[[P0]] {accel.placement = #accel.placement<card = 0, cores = [0]>, ends = array<i64: 16, 16>, starts = array<i64: 0, 0>
// CHECK: accel.add {{.*}}cores = [0]>
// CHECK: accel.add
// CHECK: accel.add
// CHECK: %[[R0:.*]] = accel.relu {{.*}}cores = [0]>} : tensor<16x16xf32>
// CHECK: accel.slice %[[P0]] {accel.placement = #accel.placement<card = 0, cores = [1]>, ends = array<i64: 32, 16>, starts = array<i64: 16, 0>
// CHECK: %[[R3:.*]] = accel.relu {{.*}}cores = [3]>} : tensor<16x16xf32>
// CHECK: %[[J:.*]] = accel.concat %[[R0]], %{{.*}}, %{{.*}}, %[[R3]] {axis = 0 : i64}
// CHECK: accel.yield %[[J]]
func.func @reduction_bands(%x: tensor<64x4096xf32>) -> tensor<64x16xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<64x4096xf32>) -> tensor<64x16xf32> {
  ^bb0(%a: tensor<64x4096xf32>):
    %w = accel.constant dense<0.5> : tensor<4096x16xf32>
    %1 = accel.fully_connected %a, %w {activation = #accel.act<relu>, accel.hint = #accel.hint<chunks = 4, parallel = model>} : (tensor<64x4096xf32>, tensor<4096x16xf32>) -> tensor<64x16xf32>
    accel.yield %1 : tensor<64x16xf32>
  }
  return %0 : tensor<64x16xf32>
}

// -----

// A weight of 4-bit integers (packed two per byte per row) is cut at
// compile time like any other: here along K, its rows' innermost axis,
// for the reduction (the i8 input's K halves are views); the per-column
// scales stay whole.
// CHECK-LABEL: func.func @i4_reduction
// CHECK: %[[W0:.*]] = accel.constant dense_resource<slice> : tensor<2x128x!quant.uniform<i4:f32:0, {2.500000e-01,5.000000e-01}>>
// CHECK: accel.fully_connected %{{.*}}, %[[W0]] {{{.*}}accel.split = array<i64: -1, 0, 2>
// CHECK: %[[W1:.*]] = accel.constant dense_resource<slice_1> : tensor<2x128x!quant.uniform<i4:f32:0, {2.500000e-01,5.000000e-01}>>
// CHECK: accel.fully_connected %{{.*}}, %[[W1]] {{{.*}}accel.split = array<i64: -1, 1, 2>
// CHECK: slice: "0x08000000030A11181F262D343B424950575E656C737A81888F969DA4ABB2B9C0C7CED5DCE3EAF1F8FF060D141B222930373E454C535A61686F767D848B9299A0A7AEB5BC838A91989FA6ADB4BBC2C9D0D7DEE5ECF3FA01080F161D242B323940474E555C636A71787F868D949BA2A9B0B7BEC5CCD3DAE1E8EFF6FD040B121920272E353C"
// CHECK: slice_1: "0x08000000C3CAD1D8DFE6EDF4FB020910171E252C333A41484F565D646B727980878E959CA3AAB1B8BFC6CDD4DBE2E9F0F7FE050C131A21282F363D444B525960676E757C434A51585F666D747B828990979EA5ACB3BAC1C8CFD6DDE4EBF2F900070E151C232A31383F464D545B626970777E858C939AA1A8AFB6BDC4CBD2D9E0E7EEF5FC"
func.func @i4_reduction(%x: tensor<1x256x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x256x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x256x!quant.uniform<i8:f32, 0.5>>):
    %w = accel.constant dense_resource<w4> : tensor<2x256x!quant.uniform<i4:f32:0, {0.25, 0.5}>>
    %1 = accel.fully_connected %a, %w {transpose_weight = true, accel.hint = #accel.hint<chunks = 2, parallel = model>} : (tensor<1x256x!quant.uniform<i8:f32, 0.5>>, tensor<2x256x!quant.uniform<i4:f32:0, {0.25, 0.5}>>) -> tensor<1x2xf32>
    accel.yield %1 : tensor<1x2xf32>
  }
  return %0 : tensor<1x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w4: "0x08000000030A11181F262D343B424950575E656C737A81888F969DA4ABB2B9C0C7CED5DCE3EAF1F8FF060D141B222930373E454C535A61686F767D848B9299A0A7AEB5BCC3CAD1D8DFE6EDF4FB020910171E252C333A41484F565D646B727980878E959CA3AAB1B8BFC6CDD4DBE2E9F0F7FE050C131A21282F363D444B525960676E757C838A91989FA6ADB4BBC2C9D0D7DEE5ECF3FA01080F161D242B323940474E555C636A71787F868D949BA2A9B0B7BEC5CCD3DAE1E8EFF6FD040B121920272E353C434A51585F666D747B828990979EA5ACB3BAC1C8CFD6DDE4EBF2F900070E151C232A31383F464D545B626970777E858C939AA1A8AFB6BDC4CBD2D9E0E7EEF5FC"
    }
  }
#-}
