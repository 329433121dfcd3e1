// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize{scheme=asymmetric per-channel=false keep-last=false}))' \
// RUN:   | FileCheck %s --check-prefix=ASYM

// An MLP: the input range [-2, 3] gives symmetric i8 with scale 3 / 127;
// the weight is quantized per output column (column 0: max 1.0, so 0.5 ->
// 64 after round-half-even of 63.5, -1.0 -> -127, 0.25 -> 32); the bias
// becomes i32 in the accumulator's scale. The ReLU layer's only user
// quantizes its result again, so it requantizes to u8 itself (range [0, 6]:
// scale 6 / 255). The last product stays f32.
// CHECK-LABEL: func.func @mlp
// CHECK-DAG: %[[W1:.*]] = accel.constant dense_resource<weight_i8> : tensor<3x4x!quant.uniform<i8:f32:0, {0.0078740157480314959,0.015748031496062992,0.0031496063461453898}>>
// CHECK-DAG: %[[B1:.*]] = accel.constant dense_resource<bias_i32> : tensor<3x!quant.uniform<i32:f32:0,
// CHECK-DAG: %[[W2:.*]] = accel.constant dense_resource<weight_i8_1> : tensor<3x3x!quant.uniform<i8:f32:0,
// CHECK: %[[Q:.*]] = accel.quantize %arg0 {reciprocal_scale} : tensor<2x4xf32> -> tensor<2x4x!quant.uniform<i8:f32, 0.023622047244094488>>
// CHECK: %[[Y:.*]] = accel.fully_connected %[[Q]], %[[W1]], %[[B1]] {{{.*}}activation = #accel.act<relu>, transpose_weight = true} : {{.*}} -> tensor<2x3x!quant.uniform<u8:f32, 0.023529411764705882>>
// CHECK: %[[Z:.*]] = accel.fully_connected %[[Y]], %[[W2]] {{{.*}}transpose_weight = true} : {{.*}} -> tensor<2x3xf32>
// CHECK: %[[O:.*]] = accel.matmul %[[Z]], %{{.*}} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[O]]
// CHECK: weight_i8: "0x0800000040812000407F8120203F5F7F"
// Asymmetric u8 input ([-2, 3]: scale 5 / 255, zero point round(2 / scale)
// = 102), one weight scale, no requantization fusion into u8 for ReLU (the
// range [0, 6] is still u8 with zero point 0), and the last product
// quantized too.
// ASYM-LABEL: func.func @mlp
// ASYM: accel.quantize %arg0 {reciprocal_scale} : tensor<2x4xf32> -> tensor<2x4x!quant.uniform<u8:f32, 0.019607843137254902:102>>
// ASYM: tensor<3x4x!quant.uniform<i8:f32, 0.015748031496062992>>
// ASYM: -> tensor<2x3x!quant.uniform<u8:f32, 0.023529411764705882>>
// ASYM: accel.fully_connected {{.*}} -> tensor<2x3xf32>
// ASYM-NOT: accel.matmul
func.func @mlp(%x: tensor<2x4xf32> {accel.range = array<f64: -2.0, 3.0>}) -> tensor<2x3xf32> {
  %w = accel.constant dense<[[0.5, -1.0, 0.25, 0.0], [1.0, 2.0, -2.0, 0.5], [0.1, 0.2, 0.3, 0.4]]> : tensor<3x4xf32>
  %b = accel.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %y = accel.fully_connected %x, %w, %b {transpose_weight = true, activation = #accel.act<relu>, accel.range = array<f64: 0.0, 6.0>} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %w2 = accel.constant dense<[[0.5, -1.0, 0.25], [1.0, 2.0, -2.0], [0.1, 0.2, 0.3]]> : tensor<3x3xf32>
  %z = accel.matmul %y, %w2 {accel.range = array<f64: -5.0, 5.0>} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %w3 = accel.constant dense<1.0> : tensor<3x3xf32>
  %o = accel.matmul %z, %w3 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  return %o : tensor<2x3xf32>
}

// -----

// A batched matmul by a constant matrix: its rows flatten into a 2-D
// product between reshapes. The real result of the first product has two
// users, so it is not requantized. The last product (kept) and the
// activation x activation matmul stay quietly.
// CHECK-LABEL: func.func @rows
// CHECK: %[[R:.*]] = accel.reshape %arg0 : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[Q:.*]] = accel.quantize %[[R]] {reciprocal_scale} : tensor<6x4xf32> -> tensor<6x4x!quant.uniform<i8:f32, 0.031496062992125984>>
// CHECK: %[[P:.*]] = accel.fully_connected %[[Q]], %{{.*}} {{{.*}}transpose_weight = true} : {{.*}} -> tensor<6x8xf32>
// CHECK: %[[Y:.*]] = accel.reshape %[[P]] {accel.range = array<f64: -1.000000e+00, 1.000000e+00>} : tensor<6x8xf32> -> tensor<2x3x8xf32>
// CHECK: accel.matmul %[[Y]], %{{.*}} {{{.*}}} : (tensor<2x3x8xf32>, tensor<2x8x3xf32>)
// ASYM-LABEL: func.func @rows
func.func @rows(%x: tensor<2x3x4xf32> {accel.range = array<f64: -4.0, 1.0>}, %v: tensor<2x8x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3x8xf32>) {
  %w = accel.constant dense<0.5> : tensor<4x8xf32>
  %y = accel.matmul %x, %w {accel.range = array<f64: -1.0, 1.0>} : (tensor<2x3x4xf32>, tensor<4x8xf32>) -> tensor<2x3x8xf32>
  %a = accel.matmul %y, %v {accel.range = array<f64: -2.0, 2.0>} : (tensor<2x3x8xf32>, tensor<2x8x3xf32>) -> tensor<2x3x3xf32>
  %w2 = accel.constant dense<0.25> : tensor<3x3xf32>
  %o = accel.matmul %a, %w2 : (tensor<2x3x3xf32>, tensor<3x3xf32>) -> tensor<2x3x3xf32>
  return %o, %y : tensor<2x3x3xf32>, tensor<2x3x8xf32>
}

// -----

// Precision hints: i8 quantizes the last product too (and leaves the
// hint); f32 keeps a product real. A product whose input has no range
// warns, hinted or not.
// CHECK-LABEL: func.func @hints
// CHECK: accel.fully_connected %arg0, {{.*}}accel.hint = #accel.hint<precision = f32>
// CHECK: %[[Q:.*]] = accel.quantize
// CHECK: accel.fully_connected %[[Q]], %{{.*}} {transpose_weight = true}
func.func @hints(%x: tensor<2x4xf32> {accel.range = array<f64: -1.0, 1.0>}) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %w = accel.constant dense<0.5> : tensor<4x4xf32>
  %a = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = f32>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  // expected-warning @+1 {{accel.fully_connected: stays 'f32', not int8: its input has no calibrated range (--calibration)}}
  %b = accel.fully_connected %a, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %c = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = i8>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %a, %b, %c : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A hinted product that cannot be quantized says why.
func.func @variable_weight(%x: tensor<2x4xf32> {accel.range = array<f64: -1.0, 1.0>}, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
  // expected-warning @+1 {{accel.fully_connected: stays 'f32', not int8: its weight is not an f32 constant}}
  %a = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = i8>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

// ONNX MatMul + Add + Relu: the bias add joins the product as an i32 bias
// and the ReLU as its activation, so the next product's quantize fuses in
// (the result goes straight to u8). The range of the ReLU moves with it.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: %[[Q:.*]] = accel.quantize %{{.*}} {reciprocal_scale} : tensor<8x4xf32>
// CHECK: %[[Y:.*]] = accel.fully_connected %[[Q]], %{{.*}}, %{{.*}} {activation = #accel.act<relu>, transpose_weight = true} : ({{.*}}, tensor<6x!quant.uniform<i32:f32:0, {{.*}}>>) -> tensor<8x6x!quant.uniform<u8:f32, 0.015686274509803921>>
// CHECK-NOT: accel.add
// CHECK-NOT: accel.relu
// CHECK: accel.fully_connected %[[Y]]
func.func @matmul_bias_relu(%x: tensor<2x4x4xf32> {accel.range = array<f64: -1.0, 1.0>}) -> tensor<2x4x2xf32> {
  %w = accel.constant dense<0.5> : tensor<4x6xf32>
  %b = accel.constant dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]> : tensor<6xf32>
  %y = accel.matmul %x, %w {accel.range = array<f64: -2.0, 2.0>} : (tensor<2x4x4xf32>, tensor<4x6xf32>) -> tensor<2x4x6xf32>
  %z = accel.add %y, %b {accel.range = array<f64: -2.0, 3.0>} : (tensor<2x4x6xf32>, tensor<6xf32>) -> tensor<2x4x6xf32>
  %r = accel.relu %z {accel.range = array<f64: 0.0, 4.0>} : tensor<2x4x6xf32>
  %w2 = accel.constant dense<0.25> : tensor<6x2xf32>
  %o = accel.matmul %r, %w2 {accel.hint = #accel.hint<precision = i8>} : (tensor<2x4x6xf32>, tensor<6x2xf32>) -> tensor<2x4x2xf32>
  return %o : tensor<2x4x2xf32>
}
