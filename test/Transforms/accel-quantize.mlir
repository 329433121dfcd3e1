// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize{scheme=asymmetric per-channel=false keep-last=false}))' \
// RUN:   | FileCheck %s --check-prefix=ASYM
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize{keep-last-precision=f16}))' 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=F16
// RUN: not nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize{scheme=affine}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCHEME
// SCHEME: error: accel-quantize: unknown scheme 'affine' (symmetric or asymmetric)
// RUN: not nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize{keep-last-precision=i8}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KEEP
// KEEP: error: accel-quantize: keep-last-precision must be f32, f16 or bf16, got 'i8'

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

// -----

// Convolutions. The first one (the stem) stays f32 (keep-first-conv). The
// 1x1 conv after it gets a per-tensor input, an i8 weight with one scale
// per output channel (axis 0 of F x C x 1 x 1: column 0 has max 1.0, 0.5 ->
// 64 after round-half-even of 63.5) and an i32 bias; its only user
// quantizes its result again, so it requantizes to u8 itself, and its
// clip(0, 6) goes: the u8 range [0, 6] lies inside it. The depthwise conv
// reads that u8 result; its range [0, 8] reaches past its clip's 6, so the
// clip stays. The 1x1 conv after it keeps a real result (its user is the
// last product, which stays f32).
// CHECK-LABEL: func.func @convs
// CHECK: %[[A:.*]] = accel.conv %arg0, %{{.*}} {{{.*}}} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK: %[[Q:.*]] = accel.quantize %[[A]] {reciprocal_scale} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.0078740157480314959>>
// CHECK: %[[E:.*]] = accel.conv %[[Q]], %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 0.0078740157480314959>>, tensor<4x2x1x1x!quant.uniform<i8:f32:0, {0.0078740157480314959,0.0078740157480314959,0.015748031496062992,0.003937007874015748}>>, tensor<4x!quant.uniform<i32:f32:0, {{.*}}>>) -> tensor<1x4x4x4x!quant.uniform<u8:f32, 0.023529411764705882>>
// CHECK: %[[D:.*]] = accel.conv %[[E]], %{{.*}} {activation = #accel.act<clip>, activation_max = 6.000000e+00 : f32, activation_min = 0.000000e+00 : f32, {{.*}}groups = 4 : i64{{.*}}} : (tensor<1x4x4x4x!quant.uniform<u8:f32, 0.023529411764705882>>, tensor<4x1x3x3x!quant.uniform<i8:f32:0, {{.*}}>>) -> tensor<1x4x4x4x!quant.uniform<u8:f32, 0.031372549019607843>>
// CHECK: %[[P:.*]] = accel.conv %[[D]], %{{.*}} {{{.*}}} : ({{.*}}) -> tensor<1x2x4x4xf32>
// CHECK: accel.conv %[[P]], %{{.*}} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK: weight_i8: "0x0800000040817F207F007F7F"
// Asymmetric, one weight scale, the last product quantized too: u8 inputs
// with zero points, per-tensor weights, and the last conv requantizing the
// 1x1 conv before it (range [-3, 3]: zero point 128).
// ASYM-LABEL: func.func @convs
// ASYM: accel.quantize %{{.*}} -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.0078431372549019607:128>>
// ASYM: tensor<4x2x1x1x!quant.uniform<i8:f32, 0.015748031496062992>>
// ASYM: -> tensor<1x2x4x4x!quant.uniform<u8:f32, 0.023529411764705882:128>>
// ASYM: accel.conv {{.*}} -> tensor<1x2x4x4xf32>
func.func @convs(%x: tensor<1x2x4x4xf32> {accel.range = array<f64: -1.0, 1.0>}) -> tensor<1x2x4x4xf32> {
  %w0 = accel.constant dense<0.5> : tensor<2x2x1x1xf32>
  %a = accel.conv %x, %w0 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.range = array<f64: -1.0, 1.0>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %w = accel.constant dense<[[[[0.5]], [[-1.0]]], [[[1.0]], [[0.25]]], [[[2.0]], [[0.0]]], [[[0.5]], [[0.5]]]]> : tensor<4x2x1x1xf32>
  %b = accel.constant dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>
  %e = accel.conv %a, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, activation = #accel.act<clip>, activation_min = 0.0 : f32, activation_max = 6.0 : f32, accel.range = array<f64: 0.0, 6.0>} : (tensor<1x2x4x4xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %wd = accel.constant dense<0.1> : tensor<4x1x3x3xf32>
  %d = accel.conv %e, %wd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64, activation = #accel.act<clip>, activation_min = 0.0 : f32, activation_max = 6.0 : f32, accel.range = array<f64: 0.0, 8.0>} : (tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  %wp = accel.constant dense<0.25> : tensor<2x4x1x1xf32>
  %p = accel.conv %d, %wp {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.range = array<f64: -3.0, 3.0>} : (tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
  %wl = accel.constant dense<0.5> : tensor<2x2x1x1xf32>
  %o = accel.conv %p, %wl {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}

// -----

// Convolution hints: i8 quantizes the first conv too; f32 keeps a conv
// real. A grouped conv that is not depthwise is not quantized, nor is a
// 3-D one (the card has no int8 kernel for it: it would run on the host),
// and they say so when hinted.
// CHECK-LABEL: func.func @conv_hints
// CHECK: %[[Q:.*]] = accel.quantize %arg0
// CHECK: accel.conv %[[Q]], {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: accel.conv %arg0, {{.*}}accel.hint = #accel.hint<precision = f32>
// CHECK: accel.conv %arg0, {{.*}}groups = 2
// CHECK: %[[Q3:.*]] = accel.quantize %arg0
// CHECK: accel.conv %[[Q3]], {{.*}} : (tensor<1x4x4x4x!quant.uniform<i8:f32, {{.*}}>>, tensor<4x4x3x3x!quant.uniform<i8:f32:0, {{.*}}>>) -> tensor<1x4x4x4xf32>
// CHECK: accel.conv %arg1, {{.*}} : (tensor<1x2x3x4x4xf32>, tensor<2x2x3x3x3xf32>) -> tensor<1x2x3x4x4xf32>
func.func @conv_hints(%x: tensor<1x4x4x4xf32> {accel.range = array<f64: -1.0, 1.0>}, %v: tensor<1x2x3x4x4xf32> {accel.range = array<f64: -1.0, 1.0>}) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x3x4x4xf32>) {
  %w = accel.constant dense<0.5> : tensor<4x4x1x1xf32>
  %a = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.hint = #accel.hint<precision = i8>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %b = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.hint = #accel.hint<precision = f32>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %wg = accel.constant dense<0.5> : tensor<4x2x1x1xf32>
  // expected-warning @+1 {{accel.conv: stays 'f32', not int8: only convolutions with groups = 1 and depthwise ones are quantized}}
  %c = accel.conv %x, %wg {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64, accel.hint = #accel.hint<precision = i8>} : (tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  %w3 = accel.constant dense<0.5> : tensor<4x4x3x3xf32>
  %d = accel.conv %x, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, accel.hint = #accel.hint<precision = i8>} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %wv = accel.constant dense<0.5> : tensor<2x2x3x3x3xf32>
  // expected-warning @+1 {{accel.conv: stays 'f32', not int8: the card has no int8 kernel for it (int8 convolutions run on the card in 1-D and 2-D with static shapes only)}}
  %e = accel.conv %v, %wv {strides = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1>, accel.hint = #accel.hint<precision = i8>} : (tensor<1x2x3x4x4xf32>, tensor<2x2x3x3x3xf32>) -> tensor<1x2x3x4x4xf32>
  return %a, %b, %c, %d, %e : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x2x3x4x4xf32>
}

// -----

// Dense k x k convolutions (groups 1) are quantized where the target has
// an int8 kernel for them (the implicit GEMM): the first one, a 3x3 stem,
// stays f32 (keep-first-conv); the 3x3 conv reading its ReLU gets a u8
// input, an i8 weight per output channel, an i32 bias, and requantizes its
// result for the next int8 conv (its ReLU goes: the u8 range [0, 6] lies
// inside it); the strided, dilated 3x3 after it keeps a real result (its
// user, the last product, stays f32).
// CHECK-LABEL: func.func @dense_convs
// CHECK: %[[S:.*]] = accel.conv %arg0, %{{.*}}, %{{.*}} {{{.*}}} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
// CHECK: %[[Q:.*]] = accel.quantize %[[S]] {reciprocal_scale} : tensor<1x8x8x8xf32> -> tensor<1x8x8x8x!quant.uniform<u8:f32, 0.015686274509803921>>
// CHECK: %[[C:.*]] = accel.conv %[[Q]], %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8x!quant.uniform<u8:f32, 0.015686274509803921>>, tensor<8x8x3x3x!quant.uniform<i8:f32:0, {{.*}}>>, tensor<8x!quant.uniform<i32:f32:0, {{.*}}>>) -> tensor<1x8x8x8x!quant.uniform<u8:f32, 0.023529411764705882>>
// CHECK: %[[D:.*]] = accel.conv %[[C]], %{{.*}} {{{.*}}dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8x!quant.uniform<u8:f32, 0.023529411764705882>>, tensor<8x8x3x3x!quant.uniform<i8:f32:0, {{.*}}>>) -> tensor<1x8x4x4xf32>
// CHECK: accel.conv %[[D]], %{{.*}} : (tensor<1x8x4x4xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x4x4xf32>
func.func @dense_convs(%x: tensor<1x4x8x8xf32> {accel.range = array<f64: -1.0, 1.0>}) -> tensor<1x2x4x4xf32> {
  %w0 = accel.constant dense<0.25> : tensor<8x4x3x3xf32>
  %b0 = accel.constant dense<0.1> : tensor<8xf32>
  %s = accel.conv %x, %w0, %b0 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>, accel.range = array<f64: 0.0, 4.0>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %w1 = accel.constant dense<0.125> : tensor<8x8x3x3xf32>
  %b1 = accel.constant dense<-0.2> : tensor<8xf32>
  %c = accel.conv %s, %w1, %b1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>, accel.range = array<f64: 0.0, 6.0>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %w2 = accel.constant dense<0.1> : tensor<8x8x3x3xf32>
  %d = accel.conv %c, %w2 {strides = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, accel.range = array<f64: -2.0, 2.0>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %w3 = accel.constant dense<0.5> : tensor<2x8x1x1xf32>
  %o = accel.conv %d, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}

// -----

// A real conv whose only user quantizes its result quantizes it in its
// epilogue where its card kernel can: the stem (3 channels, stride 2) does,
// and its ReLU goes (the u8 range [0, 4] lies inside it). A 1x1 f32 conv's
// kernel (the conv kept f32 by its hint) cannot, so its quantize stays.
// CHECK-LABEL: func.func @real_conv_quantizes
// CHECK: %[[S:.*]] = accel.conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4x!quant.uniform<u8:f32, 0.015686274509803921>>
// CHECK-NOT: accel.quantize %[[S]]
// CHECK: accel.conv %[[S]],
// CHECK: %[[P:.*]] = accel.conv %arg1, {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: accel.quantize %[[P]]
func.func @real_conv_quantizes(%x: tensor<1x3x8x8xf32> {accel.range = array<f64: -1.0, 1.0>}, %y: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %w = accel.constant dense<0.1> : tensor<4x3x3x3xf32>
  %s = accel.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>, accel.range = array<f64: 0.0, 4.0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  %w1 = accel.constant dense<0.25> : tensor<4x4x1x1xf32>
  %a = accel.conv %s, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %p = accel.conv %y, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.range = array<f64: -1.0, 1.0>, accel.hint = #accel.hint<precision = f32>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %b = accel.conv %p, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.range = array<f64: -1.0, 1.0>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %wl = accel.constant dense<0.5> : tensor<4x4x1x1xf32>
  %o = accel.conv %b, %wl {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  return %a, %o, %p : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// Residual adds: an add whose users all quantize its result (int8 convs) or
// are adds adds quantized operands into its range's type; the quantize of
// the conv operand is fused into that conv, and the int8 conv after the add
// reads its result directly. The second add's result is returned, so it
// stays f32 and reads the first one through a dequantize.
// CHECK-LABEL: func.func @residual
// CHECK: %[[X:.*]] = accel.quantize %arg0 {reciprocal_scale} : tensor<1x4x4x4xf32> -> tensor<1x4x4x4x!quant.uniform<i8:f32, 0.015748031496062992>>
// CHECK: %[[P:.*]] = accel.conv %[[X]], {{.*}} -> tensor<1x4x4x4x!quant.uniform<i8:f32, 0.015748031496062992>>
// CHECK: %[[R:.*]] = accel.add %[[P]], %[[X]] : (tensor<1x4x4x4x!quant.uniform<i8:f32, 0.015748031496062992>>, tensor<1x4x4x4x!quant.uniform<i8:f32, 0.015748031496062992>>) -> tensor<1x4x4x4x!quant.uniform<i8:f32, 0.031496062992125984>>
// CHECK: %[[D:.*]] = accel.dequantize %[[R]] : tensor<1x4x4x4x!quant.uniform<i8:f32, 0.031496062992125984>> -> tensor<1x4x4x4xf32>
// CHECK: %[[E:.*]] = accel.conv %[[R]], {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: %[[S:.*]] = accel.add %[[E]], %[[D]] {{.*}}: (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: return %[[S]]
func.func @residual(%x: tensor<1x4x4x4xf32> {accel.range = array<f64: -2.0, 2.0>}) -> tensor<1x4x4x4xf32> {
  %w = accel.constant dense<0.25> : tensor<4x4x1x1xf32>
  %p = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.range = array<f64: -2.0, 2.0>, accel.hint = #accel.hint<precision = i8>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %r = accel.add %p, %x {accel.range = array<f64: -4.0, 4.0>} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e = accel.conv %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, accel.range = array<f64: -1.0, 1.0>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = accel.add %e, %r {accel.range = array<f64: -5.0, 5.0>} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %wl = accel.constant dense<0.5> : tensor<4x4x1x1xf32>
  %o = accel.conv %s, %wl {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  return %s : tensor<1x4x4x4xf32>
}

// -----

// A product requantizes its result only where its kernel takes the
// narrower result: for a batch of two, the first conv's u8 images (16 x 7 x
// 7 bytes each) would start at unaligned DRAM addresses, so it keeps its
// real result (f32 images are aligned) and a quantize follows.
// CHECK-LABEL: func.func @batch_requantize
// CHECK: %[[A:.*]] = accel.conv %{{.*}} -> tensor<2x16x7x7xf32>
// CHECK: %[[Q:.*]] = accel.quantize %[[A]] {reciprocal_scale} : tensor<2x16x7x7xf32> -> tensor<2x16x7x7x!quant.uniform<u8:f32, 0.015686274509803921>>
// CHECK: accel.conv %[[Q]], {{.*}} -> tensor<2x16x7x7xf32>
func.func @batch_requantize(%x: tensor<2x8x7x7xf32> {accel.range = array<f64: -1.0, 1.0>}) -> tensor<2x16x7x7xf32> {
  %w1 = accel.constant dense<0.1> : tensor<16x8x3x3xf32>
  %a = accel.conv %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>, accel.range = array<f64: 0.0, 4.0>, accel.hint = #accel.hint<precision = i8>} : (tensor<2x8x7x7xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x7x7xf32>
  %w2 = accel.constant dense<0.05> : tensor<16x16x3x3xf32>
  %b = accel.conv %a, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, accel.range = array<f64: -2.0, 2.0>} : (tensor<2x16x7x7xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x7x7xf32>
  %w3 = accel.constant dense<0.5> : tensor<16x16x1x1xf32>
  %o = accel.conv %b, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<2x16x7x7xf32>, tensor<16x16x1x1xf32>) -> tensor<2x16x7x7xf32>
  return %o : tensor<2x16x7x7xf32>
}

// -----

// ResNet's basic block: conv 3x3 + ReLU, conv 3x3, add of the block input,
// ReLU. The add's only user is a ReLU whose users all quantize (the next
// block's conv and add): the add takes the ReLU's u8 range (zero point 0:
// saturation at 0 is the ReLU) and the ReLU goes. The second block's ReLU
// is returned, so its add and ReLU stay f32.
// CHECK-LABEL: func.func @residual_relu
// CHECK: %[[X:.*]] = accel.quantize %arg0 {reciprocal_scale} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4x!quant.uniform<u8:f32, 0.0078431372549019607>>
// CHECK: %[[A:.*]] = accel.conv %[[X]], {{.*}} -> tensor<1x8x4x4x!quant.uniform<u8:f32, 0.0078431372549019607>>
// CHECK: %[[B:.*]] = accel.conv %[[A]], {{.*}} -> tensor<1x8x4x4x!quant.uniform<i8:f32, 0.015748031496062992>>
// CHECK: %[[R:.*]] = accel.add %[[B]], %[[X]] : ({{.*}}) -> tensor<1x8x4x4x!quant.uniform<u8:f32, 0.011764705882352941>>
// CHECK-NOT: accel.relu
// CHECK: %[[D:.*]] = accel.dequantize %[[R]]
// CHECK: %[[C:.*]] = accel.conv %[[R]], {{.*}} -> tensor<1x8x4x4xf32>
// CHECK: %[[S:.*]] = accel.add %[[C]], %[[D]] {{.*}}-> tensor<1x8x4x4xf32>
// CHECK: %[[T:.*]] = accel.relu %[[S]]
// CHECK: return %[[T]]
// ASYM-LABEL: func.func @residual_relu
// ASYM: accel.add {{.*}} -> tensor<1x8x4x4x!quant.uniform<u8:f32, 0.011764705882352941>>
// ASYM-NOT: accel.relu
// ASYM: accel.add
// ASYM: accel.relu
func.func @residual_relu(%x: tensor<1x8x4x4xf32> {accel.range = array<f64: 0.0, 2.0>}) -> tensor<1x8x4x4xf32> {
  %w = accel.constant dense<0.1> : tensor<8x8x3x3xf32>
  %a = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>, accel.range = array<f64: 0.0, 2.0>, accel.hint = #accel.hint<precision = i8>} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %b = accel.conv %a, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, accel.range = array<f64: -2.0, 2.0>} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %r0 = accel.add %b, %x {accel.range = array<f64: -1.0, 3.0>} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = accel.relu %r0 {accel.range = array<f64: 0.0, 3.0>} : tensor<1x8x4x4xf32>
  %c = accel.conv %r, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, accel.range = array<f64: -2.0, 2.0>} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %s0 = accel.add %c, %r {accel.range = array<f64: -2.0, 4.0>} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %s = accel.relu %s0 {accel.range = array<f64: 0.0, 4.0>} : tensor<1x8x4x4xf32>
  %wl = accel.constant dense<0.5> : tensor<8x8x1x1xf32>
  %o = accel.conv %s, %wl {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %s : tensor<1x8x4x4xf32>
}

// -----

// keep-last-precision=f16: the kept last product gets a precision hint
// that accel-apply-precision honours.
// F16-LABEL: func.func @head
// F16: accel.fully_connected %{{.*}} {accel.hint = #accel.hint<precision = f16>, transpose_weight = true} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
func.func @head(%x: tensor<2x4xf32> {accel.range = array<f64: -1.0, 1.0>}) -> tensor<2x3xf32> {
  %w = accel.constant dense<0.5> : tensor<3x4xf32>
  %y = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
