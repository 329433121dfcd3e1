// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-pad-recurrent))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-pad-recurrent{force-host=accel.gru,accel.lstm}))' \
// RUN:   | FileCheck %s --check-prefix=FORCED

// A gru whose 80-byte steps (H = 20 at batch 1, f32) are not DRAM-aligned
// and whose 3000 steps do not fit on chip: the card takes it with H = 32
// (128-byte steps). Constant weights are padded at compile time (zero rows
// per gate block, zero columns of R), the results sliced back to 20.
// CHECK-LABEL: func.func @gru_constant
// CHECK-NOT: dense<5.000000e-01>
// CHECK-DAG: %[[W:.*]] = accel.constant dense_resource<padded_hidden{{.*}}> : tensor<1x96x16xf32>
// CHECK-DAG: %[[R:.*]] = accel.constant dense_resource<padded_hidden{{.*}}> : tensor<1x96x32xf32>
// CHECK-DAG: %[[B:.*]] = accel.constant dense_resource<padded_hidden{{.*}}> : tensor<1x192xf32>
// CHECK: %[[Y:.*]], %[[YH:.*]] = accel.gru %{{.*}}, %[[W]], %[[R]], %[[B]] {accel.padded_hidden = 20 : i64, hidden_size = 32 : i64, linear_before_reset = true}
// CHECK-SAME: -> (tensor<3000x1x1x32xf32>, tensor<1x1x32xf32>)
// CHECK: accel.slice %[[Y]] {ends = array<i64: 3000, 1, 1, 20>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>}
// CHECK: accel.slice %[[YH]] {ends = array<i64: 1, 1, 20>
// FORCED-LABEL: func.func @gru_constant
// FORCED: accel.gru {{.*}}hidden_size = 20
func.func @gru_constant(%x: tensor<3000x1x16xf32>) -> (tensor<3000x1x1x20xf32>, tensor<1x1x20xf32>) {
  %w = accel.constant dense<0.5> : tensor<1x60x16xf32>
  %r = accel.constant dense<0.25> : tensor<1x60x20xf32>
  %b = accel.constant dense<0.125> : tensor<1x120xf32>
  %y, %h = accel.gru %x, %w, %r, %b {hidden_size = 20 : i64, linear_before_reset = true}
    : (tensor<3000x1x16xf32>, tensor<1x60x16xf32>, tensor<1x60x20xf32>, tensor<1x120xf32>)
      -> (tensor<3000x1x1x20xf32>, tensor<1x1x20xf32>)
  return %y, %h : tensor<3000x1x1x20xf32>, tensor<1x1x20xf32>
}

// -----

// Weights that are model inputs: padded by accel.pad between reshapes that
// split the gate blocks (W: 4 blocks of H rows; R also along its columns;
// B: 8 blocks; initial states and peepholes along H). H = 100 at batch 3
// (1200-byte steps) becomes 112 (1344 bytes).
// CHECK-LABEL: func.func @lstm_inputs
// CHECK: %[[W1:.*]] = accel.reshape %{{.*}} : tensor<1x400x16xf32> -> tensor<1x4x100x16xf32>
// CHECK: %[[W2:.*]] = accel.pad %[[W1]] {pads = array<i64: 0, 0, 0, 0, 0, 0, 12, 0>
// CHECK: %[[W3:.*]] = accel.reshape %[[W2]] : tensor<1x4x112x16xf32> -> tensor<1x448x16xf32>
// CHECK: accel.pad %{{.*}} {pads = array<i64: 0, 0, 0, 0, 0, 0, 12, 12>
// CHECK: accel.reshape %{{.*}} : tensor<1x4x112x112xf32> -> tensor<1x448x112xf32>
// CHECK: accel.reshape %{{.*}} : tensor<1x800xf32> -> tensor<1x8x100xf32>
// CHECK: accel.pad %{{.*}} {pads = array<i64: 0, 0, 0, 0, 0, 12>{{.*}} : tensor<1x3x100xf32> -> tensor<1x3x112xf32>
// CHECK: accel.pad %{{.*}} {pads = array<i64: 0, 0, 0, 0, 0, 12>{{.*}} : tensor<1x3x100xf32> -> tensor<1x3x112xf32>
// CHECK: accel.reshape %{{.*}} : tensor<1x300xf32> -> tensor<1x3x100xf32>
// CHECK: %[[L:.*]], %[[LH:.*]], %[[LC:.*]] = accel.lstm %{{.*}}, %[[W3]], {{.*}} {accel.padded_hidden = 100 : i64, hidden_size = 112 : i64}
// CHECK: accel.slice %[[L]] {{.*}} : tensor<500x1x3x112xf32> -> tensor<500x1x3x100xf32>
// CHECK: accel.slice %[[LH]]
// CHECK: accel.slice %[[LC]]
func.func @lstm_inputs(%x: tensor<500x3x16xf32>, %w: tensor<1x400x16xf32>, %r: tensor<1x400x100xf32>,
                       %b: tensor<1x800xf32>, %h0: tensor<1x3x100xf32>, %c0: tensor<1x3x100xf32>,
                       %p: tensor<1x300xf32>)
    -> (tensor<500x1x3x100xf32>, tensor<1x3x100xf32>, tensor<1x3x100xf32>) {
  %y, %h, %c = accel.lstm %x, %w, %r, %b initial_h %h0 initial_c %c0 peepholes %p {hidden_size = 100 : i64}
    : (tensor<500x3x16xf32>, tensor<1x400x16xf32>, tensor<1x400x100xf32>, tensor<1x800xf32>,
       tensor<1x3x100xf32>, tensor<1x3x100xf32>, tensor<1x300xf32>)
      -> (tensor<500x1x3x100xf32>, tensor<1x3x100xf32>, tensor<1x3x100xf32>)
  return %y, %h, %c : tensor<500x1x3x100xf32>, tensor<1x3x100xf32>, tensor<1x3x100xf32>
}

// -----

// Layers the card takes as they are (aligned 256-byte steps; or a short
// sequence assembled on chip) are left alone.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: accel.pad
// CHECK-NOT: padded_hidden
func.func @kept(%x: tensor<10x1x4xf32>, %w: tensor<1x192x4xf32>, %r: tensor<1x192x64xf32>,
                %w5: tensor<1x15x4xf32>, %r5: tensor<1x15x5xf32>)
    -> (tensor<10x1x1x64xf32>, tensor<10x1x1x5xf32>) {
  %y, %h = accel.gru %x, %w, %r {hidden_size = 64 : i64}
    : (tensor<10x1x4xf32>, tensor<1x192x4xf32>, tensor<1x192x64xf32>)
      -> (tensor<10x1x1x64xf32>, tensor<1x1x64xf32>)
  %y5, %h5 = accel.gru %x, %w5, %r5 {hidden_size = 5 : i64}
    : (tensor<10x1x4xf32>, tensor<1x15x4xf32>, tensor<1x15x5xf32>)
      -> (tensor<10x1x1x5xf32>, tensor<1x1x5xf32>)
  return %y, %y5 : tensor<10x1x1x64xf32>, tensor<10x1x1x5xf32>
}
