// 4-bit weights (accel-quantize{weight-bits=4}, --quantize=int8,int4-fc):
// fully_connected and matmul weights symmetric i4 in [-7, 7] per output
// column, stored N x K packed two per byte (element 2j of a row in the low
// nibble of byte j); activations, biases and convolutions as in int8.
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize{weight-bits=4}))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize))' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=W8
// RUN: not nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize{weight-bits=3}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BITS
// BITS: error: accel-quantize: weight-bits must be 8 or 4, got 3

// An MLP. Column 0 of the first weight has max 1.0, so scale 1 / 7: 0.5 ->
// 4 (round-half-even of 3.5), -1.0 -> -7 (nibble 9), 0.25 -> 2, 0.0 -> 0,
// packed 0x94 0x02. The ReLU layer requantizes to u8 for the next product,
// a matmul by a K x N constant, whose column 0 (0.5, 1.0, 0.1, -0.7: scale
// 1 / 7) becomes 4, 7, 1, -5 (nibble B): 0x74 0xB1. The bias is i32 in the
// scale input x i4 weight. The last product stays f32.
// CHECK-LABEL: func.func @mlp
// CHECK-DAG: %[[W1:.*]] = accel.constant dense_resource<weight_i4> : tensor<4x4x!quant.uniform<i4:f32:0, {0.14285714285714285,0.2857142857142857,0.057142857994352071,0.099999998297010145}>>
// CHECK-DAG: %[[B1:.*]] = accel.constant dense_resource<bias_i32> : tensor<4x!quant.uniform<i32:f32:0, {0.0033745781777277839,
// CHECK-DAG: %[[W2:.*]] = accel.constant dense_resource<weight_i4_1> : tensor<3x4x!quant.uniform<i4:f32:0,
// CHECK: %[[Q:.*]] = accel.quantize %arg0 {reciprocal_scale} : tensor<2x4xf32> -> tensor<2x4x!quant.uniform<i8:f32, 0.023622047244094488>>
// CHECK: %[[Y:.*]] = accel.fully_connected %[[Q]], %[[W1]], %[[B1]] {activation = #accel.act<relu>, transpose_weight = true} : {{.*}} -> tensor<2x4x!quant.uniform<u8:f32, 0.023529411764705882>>
// CHECK: %[[Z:.*]] = accel.fully_connected %[[Y]], %[[W2]] {{{.*}}transpose_weight = true} : {{.*}} -> tensor<2x3xf32>
// CHECK: accel.matmul %[[Z]], %{{.*}} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
// CHECK-DAG: weight_i4: "0x080000009402742942757940"
// CHECK-DAG: weight_i4_1: "0x0800000074B17C019101"
// W8-LABEL: func.func @mlp
// W8: dense_resource<weight_i8> : tensor<4x4x!quant.uniform<i8:f32:0,
// W8-NOT: i4:f32
func.func @mlp(%x: tensor<2x4xf32> {accel.range = array<f64: -2.0, 3.0>}) -> tensor<2x3xf32> {
  %w = accel.constant dense<[[0.5, -1.0, 0.25, 0.0], [1.0, 2.0, -2.0, 0.5], [0.1, 0.2, 0.3, 0.4], [-0.7, 0.7, 0.0, 0.35]]> : tensor<4x4xf32>
  %b = accel.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>
  %y = accel.fully_connected %x, %w, %b {transpose_weight = true, activation = #accel.act<relu>, accel.range = array<f64: 0.0, 6.0>} : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %w2 = accel.constant dense<[[0.5, -1.0, 0.25], [1.0, 2.0, -2.0], [0.1, 0.2, 0.3], [-0.7, 0.0, 0.1]]> : tensor<4x3xf32>
  %z = accel.matmul %y, %w2 {accel.range = array<f64: -5.0, 5.0>} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %w3 = accel.constant dense<1.0> : tensor<3x3xf32>
  %o = accel.matmul %z, %w3 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  return %o : tensor<2x3xf32>
}

// -----

// Precision hints decide per node, whatever weight-bits says: i4 gives
// 4-bit weights, i8 8-bit ones; an unhinted product takes weight-bits.
// CHECK-LABEL: func.func @hints
// CHECK: accel.fully_connected {{.*}} : (tensor<2x4x!quant.uniform<i8:f32, {{.*}}>>, tensor<4x4x!quant.uniform<i4:f32:0, {{.*}}>>) -> tensor<2x4xf32>
// CHECK: accel.fully_connected {{.*}} : (tensor<2x4x!quant.uniform<i8:f32, {{.*}}>>, tensor<4x4x!quant.uniform<i8:f32:0, {{.*}}>>) -> tensor<2x4xf32>
// CHECK: accel.fully_connected {{.*}} : (tensor<2x4x!quant.uniform<i8:f32, {{.*}}>>, tensor<4x4x!quant.uniform<i4:f32:0, {{.*}}>>) -> tensor<2x4xf32>
// CHECK: accel.fully_connected %arg0, {{.*}} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
// CHECK-NOT: accel.hint
// W8-LABEL: func.func @hints
// W8: accel.fully_connected {{.*}} : (tensor<2x4x!quant.uniform<i8:f32, {{.*}}>>, tensor<4x4x!quant.uniform<i4:f32:0, {{.*}}>>) -> tensor<2x4xf32>
// W8: accel.fully_connected {{.*}} : (tensor<2x4x!quant.uniform<i8:f32, {{.*}}>>, tensor<4x4x!quant.uniform<i8:f32:0, {{.*}}>>) -> tensor<2x4xf32>
// W8: accel.fully_connected {{.*}} : (tensor<2x4x!quant.uniform<i8:f32, {{.*}}>>, tensor<4x4x!quant.uniform<i8:f32:0, {{.*}}>>) -> tensor<2x4xf32>
func.func @hints(%x: tensor<2x4xf32> {accel.range = array<f64: -1.0, 1.0>}) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = accel.constant dense<[[0.5, -1.0, 0.25, 0.0], [1.0, 2.0, -2.0, 0.5], [0.1, 0.2, 0.3, 0.4], [-0.7, 0.7, 0.0, 0.35]]> : tensor<4x4xf32>
  %a = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = i4>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %b = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = i8>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %c = accel.fully_connected %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %d = accel.fully_connected %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %a, %b, %c, %d : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Where the card's kernel cannot take 4-bit weights the product keeps
// 8-bit ones, with a warning that says why: an odd K splits bytes.
// CHECK-LABEL: func.func @odd_k
// CHECK: accel.fully_connected {{.*}} : (tensor<2x3x!quant.uniform<i8:f32, {{.*}}>>, tensor<4x3x!quant.uniform<i8:f32:0, {{.*}}>>) -> tensor<2x4xf32>
func.func @odd_k(%x: tensor<2x3xf32> {accel.range = array<f64: -1.0, 1.0>}) -> (tensor<2x4xf32>) {
  %w = accel.constant dense<0.5> : tensor<4x3xf32>
  // expected-warning @+1 {{accel.fully_connected: keeps 8-bit weights, not 4-bit: the card's kernel cannot take them (4-bit weight rows of an odd K (3) do not split into whole-byte k tiles)}}
  %a = accel.fully_connected %x, %w {transpose_weight = true, accel.hint = #accel.hint<precision = i4>} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// ... and a partial last k tile (K = 96 at N = 64) that would start half-way
// into a DRAM granule.
// CHECK-LABEL: func.func @unaligned_tile
// CHECK: tensor<8x96x!quant.uniform<i8:f32:0,
func.func @unaligned_tile(%x: tensor<2x96xf32> {accel.range = array<f64: -1.0, 1.0>}) -> (tensor<2x8xf32>) {
  %w = accel.constant dense<0.5> : tensor<8x96xf32>
  // expected-warning @+1 {{accel.fully_connected: keeps 8-bit weights, not 4-bit: the card's kernel cannot take them (the partial last k tile of the i4 weight would start at an unaligned DRAM address (byte 32 of its rows: it must start at a multiple of 128 columns))}}
  %a = accel.fully_connected %x, %w {transpose_weight = true, accel.hint = #accel.hint<precision = i4>} : (tensor<2x96xf32>, tensor<8x96xf32>) -> tensor<2x8xf32>
  return %a : tensor<2x8xf32>
}

// -----

// Convolutions keep 8-bit weights; an i4 hint on one says so.
// CHECK-LABEL: func.func @conv
// CHECK: accel.conv {{.*}}tensor<2x2x1x1x!quant.uniform<i8:f32:0,
func.func @conv(%x: tensor<1x2x4x4xf32> {accel.range = array<f64: -1.0, 1.0>}) -> tensor<1x2x4x4xf32> {
  %w = accel.constant dense<[[[[0.5]], [[-1.0]]], [[[1.0]], [[0.25]]]]> : tensor<2x2x1x1xf32>
  // expected-warning @+1 {{accel.conv: keeps 8-bit weights, not i4: only fully_connected and matmul products take 4-bit weights}}
  %y = accel.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, accel.hint = #accel.hint<precision = i4>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
