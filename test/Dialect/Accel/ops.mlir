// RUN: nnaccel-opt %s | nnaccel-opt | FileCheck %s
// RUN: nnaccel-opt %s --mlir-print-op-generic | nnaccel-opt | FileCheck %s

// Round trip of every accel op through the custom assembly format and
// through the generic form. Every function exercises one op family,
// including the optional operands and attributes (fully_connected with and
// without bias, 1-D/2-D/3-D grouped/depthwise/strided/dilated convolutions,
// the three ways to give embedding bags, bidirectional LSTM with initial
// states and peepholes, GRU with linear_before_reset, ...), f16/bf16 and
// `!quant.uniform` element types, and the `#accel.placement` attribute.
// Default-valued attributes are elided by the printer; the CHECK lines rely
// on that (e.g. `layer_norm` without `axis`/`epsilon`, `gather` without
// `axis`).

// Binary elementwise ops, numpy broadcasting in either operand, integer operands.
// CHECK-LABEL: func.func @binary(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x8xf32>
// CHECK-SAME:    %[[B:[^:]+]]: tensor<8xf32>
// CHECK-SAME:    %[[I:[^:]+]]: tensor<2x3xi32>
// CHECK-SAME:    %[[J:[^:]+]]: tensor<1x3xi32>
// CHECK-NEXT:  %[[V0:.*]] = accel.add %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.sub %[[V0]], %[[A]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.mul %[[B]], %[[V1]] : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.div %[[V2]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:  %[[V4:.*]] = accel.pow %[[V3]], %[[A]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:  %[[V5:.*]] = accel.max %[[V4]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:  %[[V6:.*]] = accel.min %[[V5]], %[[A]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:  %[[V7:.*]] = accel.add %[[I]], %[[J]] : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:  return %[[V6]], %[[V7]] : tensor<4x8xf32>, tensor<2x3xi32>
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %i: tensor<2x3xi32>, %j: tensor<1x3xi32>) -> (tensor<4x8xf32>, tensor<2x3xi32>) {
  %0 = accel.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = accel.sub %0, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = accel.mul %b, %1 : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = accel.div %2, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = accel.pow %3, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = accel.max %4, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %6 = accel.min %5, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = accel.add %i, %j : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  return %6, %7 : tensor<4x8xf32>, tensor<2x3xi32>
}

// compare (every predicate prints as a bare keyword) and where with a
// broadcast condition and a rank-0 operand.
// CHECK-LABEL: func.func @compare_where(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x8xf32>
// CHECK-SAME:    %[[B:[^:]+]]: tensor<8xf32>
// CHECK-SAME:    %[[C:[^:]+]]: tensor<4x1xi1>
// CHECK-SAME:    %[[S:[^:]+]]: tensor<f32>
// CHECK-SAME:    %[[I:[^:]+]]: tensor<3xi64>
// CHECK-NEXT:  %[[V0:.*]] = accel.compare eq, %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT:  %[[V1:.*]] = accel.compare ge, %[[I]], %[[I]] : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
// CHECK-NEXT:  %[[NE:.*]] = accel.compare ne, %[[A]], %[[A]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT:  %[[LT:.*]] = accel.compare lt, %[[B]], %[[S]] : (tensor<8xf32>, tensor<f32>) -> tensor<8xi1>
// CHECK-NEXT:  %[[LE:.*]] = accel.compare le, %[[S]], %[[S]] : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:  %[[GT:.*]] = accel.compare gt, %[[C]], %[[C]] : (tensor<4x1xi1>, tensor<4x1xi1>) -> tensor<4x1xi1>
// CHECK-NEXT:  %[[V2:.*]] = accel.where %[[C]], %[[A]], %[[S]] : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.where %[[V0]], %[[V2]], %[[B]] : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:  return %[[V3]], %[[V1]] : tensor<4x8xf32>, tensor<3xi1>
func.func @compare_where(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xi1>, %s: tensor<f32>, %i: tensor<3xi64>) -> (tensor<4x8xf32>, tensor<3xi1>) {
  %0 = accel.compare eq, %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %1 = accel.compare ge, %i, %i : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %ne = accel.compare ne, %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %lt = accel.compare lt, %b, %s : (tensor<8xf32>, tensor<f32>) -> tensor<8xi1>
  %le = accel.compare le, %s, %s : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %gt = accel.compare gt, %c, %c : (tensor<4x1xi1>, tensor<4x1xi1>) -> tensor<4x1xi1>
  %2 = accel.where %c, %a, %s : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = accel.where %0, %2, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %3, %1 : tensor<4x8xf32>, tensor<3xi1>
}

// Unary elementwise ops; gelu with both approximations; clip with both,
// one or the other bound (also on integers); cast.
// CHECK-LABEL: func.func @unary(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x5xf32>
// CHECK-SAME:    %[[I:[^:]+]]: tensor<6xi32>
// CHECK-NEXT:  %[[V0:.*]] = accel.sqrt %[[X]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.exp %[[V0]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.erf %[[V1]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.tanh %[[V2]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V4:.*]] = accel.sigmoid %[[V3]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V5:.*]] = accel.relu %[[V4]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V6:.*]] = accel.neg %[[V5]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V7:.*]] = accel.abs %[[V6]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V8:.*]] = accel.gelu %[[V7]] : tensor<2x5xf32>
// CHECK-NEXT:  %[[V9:.*]] = accel.gelu %[[V8]] {approximate = #accel.gelu_approx<tanh>} : tensor<2x5xf32>
// CHECK-NEXT:  %[[V10:.*]] = accel.clip %[[V9]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x5xf32>
// CHECK-NEXT:  %[[V11:.*]] = accel.clip %[[V10]] {min = -1.500000e+00 : f32} : tensor<2x5xf32>
// CHECK-NEXT:  %[[V12:.*]] = accel.relu %[[I]] : tensor<6xi32>
// CHECK-NEXT:  %[[V13:.*]] = accel.neg %[[V12]] : tensor<6xi32>
// CHECK-NEXT:  %[[V14:.*]] = accel.abs %[[V13]] : tensor<6xi32>
// CHECK-NEXT:  %[[V15:.*]] = accel.clip %[[V14]] {max = 1.000000e+02 : f32} : tensor<6xi32>
// CHECK-NEXT:  %[[V16:.*]] = accel.cast %[[V11]] : tensor<2x5xf32> -> tensor<2x5xi8>
// CHECK-NEXT:  return %[[V11]], %[[V15]], %[[V16]] : tensor<2x5xf32>, tensor<6xi32>, tensor<2x5xi8>
func.func @unary(%x: tensor<2x5xf32>, %i: tensor<6xi32>) -> (tensor<2x5xf32>, tensor<6xi32>, tensor<2x5xi8>) {
  %0 = accel.sqrt %x : tensor<2x5xf32>
  %1 = accel.exp %0 : tensor<2x5xf32>
  %2 = accel.erf %1 : tensor<2x5xf32>
  %3 = accel.tanh %2 : tensor<2x5xf32>
  %4 = accel.sigmoid %3 : tensor<2x5xf32>
  %5 = accel.relu %4 : tensor<2x5xf32>
  %6 = accel.neg %5 : tensor<2x5xf32>
  %7 = accel.abs %6 : tensor<2x5xf32>
  %8 = accel.gelu %7 : tensor<2x5xf32>
  %9 = accel.gelu %8 {approximate = #accel.gelu_approx<tanh>} : tensor<2x5xf32>
  %10 = accel.clip %9 {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x5xf32>
  %11 = accel.clip %10 {min = -1.5 : f32} : tensor<2x5xf32>
  %12 = accel.relu %i : tensor<6xi32>
  %13 = accel.neg %12 : tensor<6xi32>
  %14 = accel.abs %13 : tensor<6xi32>
  %15 = accel.clip %14 {max = 100.0 : f32} : tensor<6xi32>
  %16 = accel.cast %11 : tensor<2x5xf32> -> tensor<2x5xi8>
  return %11, %15, %16 : tensor<2x5xf32>, tensor<6xi32>, tensor<2x5xi8>
}

// Unsigned bytes (ONNX uint8 data) are stored, reshaped and cast; casts of
// quantized types read the stored integers; round; an i32 matmul.
// CHECK-LABEL: func.func @bytes_and_round(
// CHECK-SAME:    %[[U:[^:]+]]: tensor<4xui8>
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-SAME:    %[[I:[^:]+]]: tensor<2x4xi32>
// CHECK-NEXT:  %[[V0:.*]] = accel.cast %[[U]] : tensor<4xui8> -> tensor<4xi32>
// CHECK-NEXT:  %[[V1:.*]] = accel.cast %[[U]] : tensor<4xui8> -> tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT:  %[[V2:.*]] = accel.cast %[[Q]] : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>> -> tensor<4xi32>
// CHECK-NEXT:  %[[V3:.*]] = accel.cast %[[X]] : tensor<4xf32> -> tensor<4xui8>
// CHECK-NEXT:  %[[V4:.*]] = accel.reshape %[[V3]] : tensor<4xui8> -> tensor<2x2xui8>
// CHECK-NEXT:  %[[V5:.*]] = accel.round %[[X]] : tensor<4xf32>
// CHECK-NEXT:  %[[V6:.*]] = accel.matmul %[[I]], %[[V0]] : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2xi32>
// CHECK-NEXT:  %[[C:.*]] = accel.constant dense<[0, 255]> : tensor<2xui8>
// CHECK-NEXT:  return %[[V1]], %[[V2]], %[[V4]], %[[V5]], %[[V6]], %[[C]] :
func.func @bytes_and_round(%u: tensor<4xui8>, %q: tensor<4x!quant.uniform<u8:f32, 0.5:128>>, %x: tensor<4xf32>, %i: tensor<2x4xi32>) -> (tensor<4x!quant.uniform<u8:f32, 0.5:128>>, tensor<4xi32>, tensor<2x2xui8>, tensor<4xf32>, tensor<2xi32>, tensor<2xui8>) {
  %0 = accel.cast %u : tensor<4xui8> -> tensor<4xi32>
  %1 = accel.cast %u : tensor<4xui8> -> tensor<4x!quant.uniform<u8:f32, 0.5:128>>
  %2 = accel.cast %q : tensor<4x!quant.uniform<u8:f32, 0.5:128>> -> tensor<4xi32>
  %3 = accel.cast %x : tensor<4xf32> -> tensor<4xui8>
  %4 = accel.reshape %3 : tensor<4xui8> -> tensor<2x2xui8>
  %5 = accel.round %x : tensor<4xf32>
  %6 = accel.matmul %i, %0 : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2xi32>
  %c = accel.constant dense<[0, 255]> : tensor<2xui8>
  return %1, %2, %4, %5, %6, %c : tensor<4x!quant.uniform<u8:f32, 0.5:128>>, tensor<4xi32>, tensor<2x2xui8>, tensor<4xf32>, tensor<2xi32>, tensor<2xui8>
}

// f16 and bf16 element types.
// CHECK-LABEL: func.func @half_precision(
// CHECK-SAME:    %[[H:[^:]+]]: tensor<16xf16>
// CHECK-SAME:    %[[B:[^:]+]]: tensor<4x4xbf16>
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16xf32>
// CHECK-NEXT:  %[[V0:.*]] = accel.add %[[H]], %[[H]] : (tensor<16xf16>, tensor<16xf16>) -> tensor<16xf16>
// CHECK-NEXT:  %[[V1:.*]] = accel.gelu %[[V0]] : tensor<16xf16>
// CHECK-NEXT:  %[[V2:.*]] = accel.matmul %[[B]], %[[B]] : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
// CHECK-NEXT:  %[[V3:.*]] = accel.softmax %[[V2]] {axis = 0 : i64} : tensor<4x4xbf16>
// CHECK-NEXT:  %[[V4:.*]] = accel.convert %[[X]] : tensor<16xf32> -> tensor<16xbf16>
// CHECK-NEXT:  %[[V5:.*]] = accel.convert %[[V1]] : tensor<16xf16> -> tensor<16xf32>
// CHECK-NEXT:  %[[V6:.*]] = accel.cast %[[H]] : tensor<16xf16> -> tensor<16xf32>
// CHECK-NEXT:  return %[[V1]], %[[V3]], %[[V4]], %[[V5]] : tensor<16xf16>, tensor<4x4xbf16>, tensor<16xbf16>, tensor<16xf32>
func.func @half_precision(%h: tensor<16xf16>, %b: tensor<4x4xbf16>, %x: tensor<16xf32>) -> (tensor<16xf16>, tensor<4x4xbf16>, tensor<16xbf16>, tensor<16xf32>) {
  %0 = accel.add %h, %h : (tensor<16xf16>, tensor<16xf16>) -> tensor<16xf16>
  %1 = accel.gelu %0 : tensor<16xf16>
  %2 = accel.matmul %b, %b : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
  %3 = accel.softmax %2 {axis = 0 : i64} : tensor<4x4xbf16>
  %4 = accel.convert %x : tensor<16xf32> -> tensor<16xbf16>
  %5 = accel.convert %1 : tensor<16xf16> -> tensor<16xf32>
  %6 = accel.cast %h : tensor<16xf16> -> tensor<16xf32>
  return %1, %3, %4, %5 : tensor<16xf16>, tensor<4x4xbf16>, tensor<16xbf16>, tensor<16xf32>
}

// Quantized element types: quantize/dequantize/requantize (per tensor and
// per axis), and a quantized add whose result picks its own scale.
// CHECK-LABEL: func.func @quantized(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<8xf32>
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<8x!quant.uniform<i8:f32, 1.000000e-01:3>>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<2x4x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>
// CHECK-NEXT:  %[[V0:.*]] = accel.quantize %[[X]] : tensor<8xf32> -> tensor<8x!quant.uniform<i8:f32, 1.000000e-01:3>>
// CHECK-NEXT:  %[[V1:.*]] = accel.add %[[V0]], %[[Q]] : (tensor<8x!quant.uniform<i8:f32, 1.000000e-01:3>>, tensor<8x!quant.uniform<i8:f32, 1.000000e-01:3>>) -> tensor<8x!quant.uniform<i32:f32, 1.000000e-02>>
// CHECK-NEXT:  %[[V2:.*]] = accel.requantize %[[V1]] : tensor<8x!quant.uniform<i32:f32, 1.000000e-02>> -> tensor<8x!quant.uniform<i8:f32, 1.000000e-01:3>>
// CHECK-NEXT:  %[[V3:.*]] = accel.relu %[[V2]] : tensor<8x!quant.uniform<i8:f32, 1.000000e-01:3>>
// CHECK-NEXT:  %[[V4:.*]] = accel.dequantize %[[V3]] : tensor<8x!quant.uniform<i8:f32, 1.000000e-01:3>> -> tensor<8xf32>
// CHECK-NEXT:  %[[V5:.*]] = accel.requantize %[[V3]] : tensor<8x!quant.uniform<i8:f32, 1.000000e-01:3>> -> tensor<8x!quant.uniform<i8:f32, 2.000000e-01>>
// CHECK-NEXT:  %[[V6:.*]] = accel.dequantize %[[W]] : tensor<2x4x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>> -> tensor<2x4xf32>
// CHECK-NEXT:  return %[[V4]], %[[V5]], %[[V6]] : tensor<8xf32>, tensor<8x!quant.uniform<i8:f32, 2.000000e-01>>, tensor<2x4xf32>
func.func @quantized(%x: tensor<8xf32>, %q: tensor<8x!quant.uniform<i8:f32, 0.1:3>>, %w: tensor<2x4x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> (tensor<8xf32>, tensor<8x!quant.uniform<i8:f32, 0.2>>, tensor<2x4xf32>) {
  %0 = accel.quantize %x : tensor<8xf32> -> tensor<8x!quant.uniform<i8:f32, 0.1:3>>
  %1 = accel.add %0, %q : (tensor<8x!quant.uniform<i8:f32, 0.1:3>>, tensor<8x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<8x!quant.uniform<i32:f32, 0.01>>
  %2 = accel.requantize %1 : tensor<8x!quant.uniform<i32:f32, 0.01>> -> tensor<8x!quant.uniform<i8:f32, 0.1:3>>
  %3 = accel.relu %2 : tensor<8x!quant.uniform<i8:f32, 0.1:3>>
  %4 = accel.dequantize %3 : tensor<8x!quant.uniform<i8:f32, 0.1:3>> -> tensor<8xf32>
  %5 = accel.requantize %3 : tensor<8x!quant.uniform<i8:f32, 0.1:3>> -> tensor<8x!quant.uniform<i8:f32, 0.2>>
  %6 = accel.dequantize %w : tensor<2x4x!quant.uniform<i8:f32:0, {0.5, 0.25}>> -> tensor<2x4xf32>
  return %4, %5, %6 : tensor<8xf32>, tensor<8x!quant.uniform<i8:f32, 0.2>>, tensor<2x4xf32>
}

// Quantized convolutions (accel-quantize's form): a u8 input, an i8 weight
// per output channel and an i32 bias give a real result, or one requantized
// to a type of its own.
// CHECK-LABEL: func.func @quantized_conv(
// CHECK:       accel.conv %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}groups = 2 : i64{{.*}}} : (tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01>>, tensor<2x1x3x3x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>, tensor<2x!quant.uniform<i32:f32:0, {5.000000e-02,1.000000e-01}>>) -> tensor<1x2x4x4xf32>
// CHECK:       accel.conv %{{.*}}, %{{.*}} {{{.*}}} : (tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01>>, tensor<3x2x1x1x!quant.uniform<i8:f32, 1.000000e-01>>) -> tensor<1x3x4x4x!quant.uniform<i8:f32, 2.500000e-01>>
func.func @quantized_conv(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5>>, %wd: tensor<2x1x3x3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>, %b: tensor<2x!quant.uniform<i32:f32:0, {0.05, 0.1}>>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32, 0.1>>) -> (tensor<1x2x4x4xf32>, tensor<1x3x4x4x!quant.uniform<i8:f32, 0.25>>) {
  %0 = accel.conv %x, %wd, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5>>, tensor<2x1x3x3x!quant.uniform<i8:f32:0, {0.1, 0.2}>>, tensor<2x!quant.uniform<i32:f32:0, {0.05, 0.1}>>) -> tensor<1x2x4x4xf32>
  %1 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5>>, tensor<3x2x1x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x3x4x4x!quant.uniform<i8:f32, 0.25>>
  return %0, %1 : tensor<1x2x4x4xf32>, tensor<1x3x4x4x!quant.uniform<i8:f32, 0.25>>
}

// matmul: batch broadcasting and rank-1 operands (the added dimension is
// dropped from the result).
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<2x4x8xf32>
// CHECK-SAME:    %[[B:[^:]+]]: tensor<8x16xf32>
// CHECK-SAME:    %[[V:[^:]+]]: tensor<8xf32>
// CHECK-SAME:    %[[C:[^:]+]]: tensor<3x1x4x8xi8>
// CHECK-SAME:    %[[D:[^:]+]]: tensor<5x8x2xi8>
// CHECK-NEXT:  %[[V0:.*]] = accel.matmul %[[A]], %[[B]] : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.matmul %[[V]], %[[B]] : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.matmul %[[A]], %[[V]] : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.matmul %[[C]], %[[D]] : (tensor<3x1x4x8xi8>, tensor<5x8x2xi8>) -> tensor<3x5x4x2xi8>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<2x4x16xf32>, tensor<16xf32>, tensor<2x4xf32>, tensor<3x5x4x2xi8>
func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>, %v: tensor<8xf32>, %c: tensor<3x1x4x8xi8>, %d: tensor<5x8x2xi8>) -> (tensor<2x4x16xf32>, tensor<16xf32>, tensor<2x4xf32>, tensor<3x5x4x2xi8>) {
  %0 = accel.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %1 = accel.matmul %v, %b : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  %2 = accel.matmul %a, %v : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  %3 = accel.matmul %c, %d : (tensor<3x1x4x8xi8>, tensor<5x8x2xi8>) -> tensor<3x5x4x2xi8>
  return %0, %1, %2, %3 : tensor<2x4x16xf32>, tensor<16xf32>, tensor<2x4xf32>, tensor<3x5x4x2xi8>
}

// fully_connected without bias, with bias and a transposed weight, and with
// transpose_input, alpha/beta, a row-broadcast bias and a fused clip.
// CHECK-LABEL: func.func @fully_connected(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x64xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<64x32xf32>
// CHECK-SAME:    %[[WT:[^:]+]]: tensor<32x64xf32>
// CHECK-SAME:    %[[B:[^:]+]]: tensor<32xf32>
// CHECK-SAME:    %[[XT:[^:]+]]: tensor<64x3xf32>
// CHECK-SAME:    %[[B2:[^:]+]]: tensor<3x1xf32>
// CHECK-NEXT:  %[[V0:.*]] = accel.fully_connected %[[X]], %[[W]] : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.fully_connected %[[X]], %[[WT]], %[[B]] {activation = #accel.act<relu>, transpose_weight = true} : (tensor<1x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<1x32xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.fully_connected %[[XT]], %[[W]], %[[B2]] {activation = #accel.act<clip>, activation_max = 1.000000e+00 : f32, activation_min = -1.000000e+00 : f32, alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, transpose_input = true} : (tensor<64x3xf32>, tensor<64x32xf32>, tensor<3x1xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]] : tensor<1x32xf32>, tensor<1x32xf32>, tensor<3x32xf32>
func.func @fully_connected(%x: tensor<1x64xf32>, %w: tensor<64x32xf32>, %wt: tensor<32x64xf32>, %b: tensor<32xf32>, %xt: tensor<64x3xf32>, %b2: tensor<3x1xf32>) -> (tensor<1x32xf32>, tensor<1x32xf32>, tensor<3x32xf32>) {
  %0 = accel.fully_connected %x, %w : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
  %1 = accel.fully_connected %x, %wt, %b {transpose_weight = true, activation = #accel.act<relu>} : (tensor<1x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<1x32xf32>
  %2 = accel.fully_connected %xt, %w, %b2 {transpose_input = true, alpha = 0.5 : f32, beta = 2.0 : f32, activation = #accel.act<clip>, activation_min = -1.0 : f32, activation_max = 1.0 : f32} : (tensor<64x3xf32>, tensor<64x32xf32>, tensor<3x1xf32>) -> tensor<3x32xf32>
  return %0, %1, %2 : tensor<1x32xf32>, tensor<1x32xf32>, tensor<3x32xf32>
}

// conv: 1-D, strided+padded 2-D with bias and fused relu, 3-D, grouped,
// depthwise (groups = C = F) and dilated.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[X1:[^:]+]]: tensor<1x4x10xf32>
// CHECK-SAME:    %[[W1:[^:]+]]: tensor<8x4x3xf32>
// CHECK-SAME:    %[[X2:[^:]+]]: tensor<1x3x32x32xf32>
// CHECK-SAME:    %[[W2:[^:]+]]: tensor<16x3x3x3xf32>
// CHECK-SAME:    %[[B2:[^:]+]]: tensor<16xf32>
// CHECK-SAME:    %[[X3:[^:]+]]: tensor<2x2x4x8x8xf32>
// CHECK-SAME:    %[[W3:[^:]+]]: tensor<4x2x2x3x3xf32>
// CHECK-SAME:    %[[XG:[^:]+]]: tensor<1x8x16x16xf32>
// CHECK-SAME:    %[[WG:[^:]+]]: tensor<4x2x3x3xf32>
// CHECK-SAME:    %[[WD:[^:]+]]: tensor<8x1x3x3xf32>
// CHECK-SAME:    %[[BD:[^:]+]]: tensor<8xf32>
// CHECK-NEXT:  %[[V0:.*]] = accel.conv %[[X1]], %[[W1]] {dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x4x10xf32>, tensor<8x4x3xf32>) -> tensor<1x8x8xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.conv %[[X2]], %[[W2]], %[[B2]] {activation = #accel.act<relu>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.conv %[[X3]], %[[W3]] {dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 1, 1, 1>} : (tensor<2x2x4x8x8xf32>, tensor<4x2x2x3x3xf32>) -> tensor<2x4x3x6x6xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.conv %[[XG]], %[[WG]] {dilations = array<i64: 1, 1>, groups = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x14x14xf32>
// CHECK-NEXT:  %[[V4:.*]] = accel.conv %[[XG]], %[[WD]], %[[BD]] {dilations = array<i64: 1, 1>, groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NEXT:  %[[V5:.*]] = accel.conv %[[XG]], %[[WG]] {dilations = array<i64: 2, 2>, groups = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x16x16xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x12x12xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]] : tensor<1x8x8xf32>, tensor<1x16x16x16xf32>, tensor<2x4x3x6x6xf32>, tensor<1x4x14x14xf32>, tensor<1x8x16x16xf32>, tensor<1x4x12x12xf32>
func.func @conv(%x1: tensor<1x4x10xf32>, %w1: tensor<8x4x3xf32>,
                %x2: tensor<1x3x32x32xf32>, %w2: tensor<16x3x3x3xf32>, %b2: tensor<16xf32>,
                %x3: tensor<2x2x4x8x8xf32>, %w3: tensor<4x2x2x3x3xf32>,
                %xg: tensor<1x8x16x16xf32>, %wg: tensor<4x2x3x3xf32>,
                %wd: tensor<8x1x3x3xf32>, %bd: tensor<8xf32>) -> (tensor<1x8x8xf32>, tensor<1x16x16x16xf32>, tensor<2x4x3x6x6xf32>, tensor<1x4x14x14xf32>, tensor<1x8x16x16xf32>, tensor<1x4x12x12xf32>) {
  %0 = accel.conv %x1, %w1 {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<1x4x10xf32>, tensor<8x4x3xf32>) -> tensor<1x8x8xf32>
  %1 = accel.conv %x2, %w2, %b2 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  %2 = accel.conv %x3, %w3 {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<2x2x4x8x8xf32>, tensor<4x2x2x3x3xf32>) -> tensor<2x4x3x6x6xf32>
  %3 = accel.conv %xg, %wg {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x8x16x16xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x14x14xf32>
  %4 = accel.conv %xg, %wd, %bd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %5 = accel.conv %xg, %wg {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, groups = 4 : i64} : (tensor<1x8x16x16xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x12x12xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x8x8xf32>, tensor<1x16x16x16xf32>, tensor<2x4x3x6x6xf32>, tensor<1x4x14x14xf32>, tensor<1x8x16x16xf32>, tensor<1x4x12x12xf32>
}

// Pooling: padded max_pool, ceil_mode (7 -> 4 with k=2, s=2),
// avg_pool with count_include_pad, global_avg_pool, 1-D integer max_pool.
// CHECK-LABEL: func.func @pooling(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8x32x32xf32>
// CHECK-SAME:    %[[Y:[^:]+]]: tensor<1x2x7x7xf32>
// CHECK-SAME:    %[[Z:[^:]+]]: tensor<2x3x9xi8>
// CHECK-NEXT:  %[[V0:.*]] = accel.max_pool %[[X]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x8x32x32xf32> -> tensor<1x8x16x16xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.max_pool %[[Y]] {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x7x7xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.avg_pool %[[Y]] {count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x7x7xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.global_avg_pool %[[Y]] : tensor<1x2x7x7xf32> -> tensor<1x2x1x1xf32>
// CHECK-NEXT:  %[[V4:.*]] = accel.max_pool %[[Z]] {dilations = array<i64: 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : tensor<2x3x9xi8> -> tensor<2x3x4xi8>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : tensor<1x8x16x16xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>, tensor<2x3x4xi8>
func.func @pooling(%x: tensor<1x8x32x32xf32>, %y: tensor<1x2x7x7xf32>, %z: tensor<2x3x9xi8>) -> (tensor<1x8x16x16xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>, tensor<2x3x4xi8>) {
  %0 = accel.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x8x32x32xf32> -> tensor<1x8x16x16xf32>
  %1 = accel.max_pool %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x2x7x7xf32> -> tensor<1x2x4x4xf32>
  %2 = accel.avg_pool %y {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<1x2x7x7xf32> -> tensor<1x2x4x4xf32>
  %3 = accel.global_avg_pool %y : tensor<1x2x7x7xf32> -> tensor<1x2x1x1xf32>
  %4 = accel.max_pool %z {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<2x3x9xi8> -> tensor<2x3x4xi8>
  return %0, %1, %2, %3, %4 : tensor<1x8x16x16xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>, tensor<2x3x4xi8>
}

// batch_norm, layer_norm with/without bias and a non-default axis,
// softmax (default axis elided) and log_softmax.
// CHECK-LABEL: func.func @normalization(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8x4x4xf32>
// CHECK-SAME:    %[[P:[^:]+]]: tensor<8xf32>
// CHECK-SAME:    %[[T:[^:]+]]: tensor<1x16x64xf32>
// CHECK-SAME:    %[[G:[^:]+]]: tensor<64xf32>
// CHECK-SAME:    %[[G2:[^:]+]]: tensor<16x64xf32>
// CHECK-SAME:    %[[S:[^:]+]]: tensor<2x10xf32>
// CHECK-NEXT:  %[[V0:.*]] = accel.batch_norm %[[X]], %[[P]], %[[P]], %[[P]], %[[P]] {epsilon = 1.000000e-03 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.layer_norm %[[T]], %[[G]], %[[G]] : (tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.layer_norm %[[V1]], %[[G2]] {axis = 1 : i64} : (tensor<1x16x64xf32>, tensor<16x64xf32>) -> tensor<1x16x64xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.softmax %[[S]] : tensor<2x10xf32>
// CHECK-NEXT:  %[[V4:.*]] = accel.log_softmax %[[V3]] {axis = 0 : i64} : tensor<2x10xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : tensor<1x8x4x4xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>, tensor<2x10xf32>, tensor<2x10xf32>
func.func @normalization(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>, %t: tensor<1x16x64xf32>, %g: tensor<64xf32>, %g2: tensor<16x64xf32>, %s: tensor<2x10xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>, tensor<2x10xf32>, tensor<2x10xf32>) {
  %0 = accel.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-03 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %1 = accel.layer_norm %t, %g, %g {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x16x64xf32>
  %2 = accel.layer_norm %1, %g2 {axis = 1 : i64} : (tensor<1x16x64xf32>, tensor<16x64xf32>) -> tensor<1x16x64xf32>
  %3 = accel.softmax %s {axis = -1 : i64} : tensor<2x10xf32>
  %4 = accel.log_softmax %3 {axis = 0 : i64} : tensor<2x10xf32>
  return %0, %1, %2, %3, %4 : tensor<1x8x4x4xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>, tensor<2x10xf32>, tensor<2x10xf32>
}

// Reductions: keepdims false, negative axes, all axes (empty list) to a
// scalar, keepdims default (true, elided) on integers.
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x8x3xf32>
// CHECK-SAME:    %[[I:[^:]+]]: tensor<4x8xi32>
// CHECK-NEXT:  %[[V0:.*]] = accel.reduce_sum %[[X]] {axes = array<i64: 1>, keepdims = false} : tensor<4x8x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.reduce_mean %[[X]] {axes = array<i64: -1, 1>} : tensor<4x8x3xf32> -> tensor<4x1x1xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.reduce_max %[[X]] {axes = array<i64>, keepdims = false} : tensor<4x8x3xf32> -> tensor<f32>
// CHECK-NEXT:  %[[V3:.*]] = accel.reduce_sum %[[I]] {axes = array<i64: 0>} : tensor<4x8xi32> -> tensor<1x8xi32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x3xf32>, tensor<4x1x1xf32>, tensor<f32>, tensor<1x8xi32>
func.func @reductions(%x: tensor<4x8x3xf32>, %i: tensor<4x8xi32>) -> (tensor<4x3xf32>, tensor<4x1x1xf32>, tensor<f32>, tensor<1x8xi32>) {
  %0 = accel.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<4x8x3xf32> -> tensor<4x3xf32>
  %1 = accel.reduce_mean %x {axes = array<i64: -1, 1>} : tensor<4x8x3xf32> -> tensor<4x1x1xf32>
  %2 = accel.reduce_max %x {axes = array<i64>, keepdims = false} : tensor<4x8x3xf32> -> tensor<f32>
  %3 = accel.reduce_sum %i {axes = array<i64: 0>, keepdims = true} : tensor<4x8xi32> -> tensor<1x8xi32>
  return %0, %1, %2, %3 : tensor<4x3xf32>, tensor<4x1x1xf32>, tensor<f32>, tensor<1x8xi32>
}

// Constants print with the `cst` result name.
// CHECK-LABEL: func.func @constants(
// CHECK-NEXT:  %[[V0:.*]] = accel.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.constant dense<[1, -1, 64]> : tensor<3xi64>
// CHECK-NEXT:  %[[V2:.*]] = accel.constant dense<5.000000e-01> : tensor<4xbf16>
// CHECK-NEXT:  %[[V3:.*]] = accel.constant dense<true> : tensor<i1>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<2x2xf32>, tensor<3xi64>, tensor<4xbf16>, tensor<i1>
func.func @constants() -> (tensor<2x2xf32>, tensor<3xi64>, tensor<4xbf16>, tensor<i1>) {
  %0 = accel.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = accel.constant dense<[1, -1, 64]> : tensor<3xi64>
  %2 = accel.constant dense<0.5> : tensor<4xbf16>
  %3 = accel.constant dense<true> : tensor<i1>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<3xi64>, tensor<4xbf16>, tensor<i1>
}

// reshape, transpose, concat on a negative axis, slice with negative steps,
// gather with 2-D indices, expand adding a dimension, pad in the three modes.
// CHECK-LABEL: func.func @data_movement(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK-SAME:    %[[Y:[^:]+]]: tensor<2x5x4xf32>
// CHECK-SAME:    %[[T:[^:]+]]: tensor<100x16xf32>
// CHECK-SAME:    %[[IDS:[^:]+]]: tensor<2x2xi32>
// CHECK-SAME:    %[[E:[^:]+]]: tensor<1x8xf32>
// CHECK-NEXT:  %[[V0:.*]] = accel.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.transpose %[[X]] {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.concat %[[X]], %[[Y]] {axis = -2 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.slice %[[X]] {ends = array<i64: 2, -1, 0>, starts = array<i64: 0, 2, 3>, steps = array<i64: 1, -2, -2>} : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
// CHECK-NEXT:  %[[V4:.*]] = accel.gather %[[T]], %[[IDS]] : (tensor<100x16xf32>, tensor<2x2xi32>) -> tensor<2x2x16xf32>
// CHECK-NEXT:  %[[V5:.*]] = accel.expand %[[E]] : tensor<1x8xf32> -> tensor<3x1x8xf32>
// CHECK-NEXT:  %[[V6:.*]] = accel.pad %[[X]] {pads = array<i64: 0, 1, 0, 0, 1, 2>, value = -1.000000e+00 : f32} : tensor<2x3x4xf32> -> tensor<2x5x6xf32>
// CHECK-NEXT:  %[[V7:.*]] = accel.pad %[[X]] {mode = #accel.pad_mode<reflect>, pads = array<i64: 1, 0, 0, 1, 0, 0>} : tensor<2x3x4xf32> -> tensor<4x3x4xf32>
// CHECK-NEXT:  %[[V8:.*]] = accel.pad %[[X]] {mode = #accel.pad_mode<edge>, pads = array<i64: 1, 0, 0, 1, 0, 0>} : tensor<2x3x4xf32> -> tensor<4x3x4xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V8]] : tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x8x4xf32>, tensor<2x2x2xf32>, tensor<2x2x16xf32>, tensor<3x1x8xf32>, tensor<2x5x6xf32>, tensor<4x3x4xf32>
func.func @data_movement(%x: tensor<2x3x4xf32>, %y: tensor<2x5x4xf32>, %t: tensor<100x16xf32>, %ids: tensor<2x2xi32>, %e: tensor<1x8xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x8x4xf32>, tensor<2x2x2xf32>, tensor<2x2x16xf32>, tensor<3x1x8xf32>, tensor<2x5x6xf32>, tensor<4x3x4xf32>) {
  %0 = accel.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = accel.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %2 = accel.concat %x, %y {axis = -2 : i64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x8x4xf32>
  %3 = accel.slice %x {starts = array<i64: 0, 2, 3>, ends = array<i64: 2, -1, 0>, steps = array<i64: 1, -2, -2>} : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %4 = accel.gather %t, %ids {axis = 0 : i64} : (tensor<100x16xf32>, tensor<2x2xi32>) -> tensor<2x2x16xf32>
  %5 = accel.expand %e : tensor<1x8xf32> -> tensor<3x1x8xf32>
  %6 = accel.pad %x {pads = array<i64: 0, 1, 0, 0, 1, 2>, value = -1.0 : f32} : tensor<2x3x4xf32> -> tensor<2x5x6xf32>
  %7 = accel.pad %x {pads = array<i64: 1, 0, 0, 1, 0, 0>, mode = #accel.pad_mode<reflect>} : tensor<2x3x4xf32> -> tensor<4x3x4xf32>
  %8 = accel.pad %x {pads = array<i64: 1, 0, 0, 1, 0, 0>, mode = #accel.pad_mode<edge>} : tensor<2x3x4xf32> -> tensor<4x3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %8 : tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x8x4xf32>, tensor<2x2x2xf32>, tensor<2x2x16xf32>, tensor<3x1x8xf32>, tensor<2x5x6xf32>, tensor<4x3x4xf32>
}

// embedding_bag: 2-D indices, 1-D indices with offsets (mean), with lengths
// and per-sample weights, 2-D indices with weights, integer table.
// CHECK-LABEL: func.func @embedding_bag(
// CHECK-SAME:    %[[T:[^:]+]]: tensor<1000x16xf32>
// CHECK-SAME:    %[[IDS2:[^:]+]]: tensor<4x3xi64>
// CHECK-SAME:    %[[IDS:[^:]+]]: tensor<12xi64>
// CHECK-SAME:    %[[OFF:[^:]+]]: tensor<4xi64>
// CHECK-SAME:    %[[LEN:[^:]+]]: tensor<4xi32>
// CHECK-SAME:    %[[PSW:[^:]+]]: tensor<12xf32>
// CHECK-SAME:    %[[PSW2:[^:]+]]: tensor<4x3xf32>
// CHECK-SAME:    %[[TI:[^:]+]]: tensor<10x4xi8>
// CHECK-NEXT:  %[[V0:.*]] = accel.embedding_bag %[[T]], %[[IDS2]] : (tensor<1000x16xf32>, tensor<4x3xi64>) -> tensor<4x16xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.embedding_bag %[[T]], %[[IDS]] offsets %[[OFF]] {mode = #accel.bag_mode<mean>} : (tensor<1000x16xf32>, tensor<12xi64>, tensor<4xi64>) -> tensor<4x16xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.embedding_bag %[[T]], %[[IDS]] lengths %[[LEN]] weights %[[PSW]] : (tensor<1000x16xf32>, tensor<12xi64>, tensor<4xi32>, tensor<12xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.embedding_bag %[[T]], %[[IDS2]] weights %[[PSW2]] : (tensor<1000x16xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:  %[[V4:.*]] = accel.embedding_bag %[[TI]], %[[IDS2]] : (tensor<10x4xi8>, tensor<4x3xi64>) -> tensor<4x4xi8>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x4xi8>
func.func @embedding_bag(%t: tensor<1000x16xf32>, %ids2: tensor<4x3xi64>, %ids: tensor<12xi64>, %off: tensor<4xi64>, %len: tensor<4xi32>, %psw: tensor<12xf32>, %psw2: tensor<4x3xf32>, %ti: tensor<10x4xi8>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x4xi8>) {
  %0 = accel.embedding_bag %t, %ids2 : (tensor<1000x16xf32>, tensor<4x3xi64>) -> tensor<4x16xf32>
  %1 = accel.embedding_bag %t, %ids offsets %off {mode = #accel.bag_mode<mean>} : (tensor<1000x16xf32>, tensor<12xi64>, tensor<4xi64>) -> tensor<4x16xf32>
  %2 = accel.embedding_bag %t, %ids lengths %len weights %psw : (tensor<1000x16xf32>, tensor<12xi64>, tensor<4xi32>, tensor<12xf32>) -> tensor<4x16xf32>
  %3 = accel.embedding_bag %t, %ids2 weights %psw2 {mode = #accel.bag_mode<sum>} : (tensor<1000x16xf32>, tensor<4x3xi64>, tensor<4x3xf32>) -> tensor<4x16xf32>
  %4 = accel.embedding_bag %ti, %ids2 : (tensor<10x4xi8>, tensor<4x3xi64>) -> tensor<4x4xi8>
  return %0, %1, %2, %3, %4 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x4xi8>
}

// LSTM forward with only the required operands; bidirectional with bias,
// initial states, peepholes and clip. Results get the y/y_h/y_c names.
// CHECK-LABEL: func.func @lstm(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<5x1x16xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<1x128x16xf32>
// CHECK-SAME:    %[[R:[^:]+]]: tensor<1x128x32xf32>
// CHECK-SAME:    %[[W2:[^:]+]]: tensor<2x128x16xf32>
// CHECK-SAME:    %[[R2:[^:]+]]: tensor<2x128x32xf32>
// CHECK-SAME:    %[[B2:[^:]+]]: tensor<2x256xf32>
// CHECK-SAME:    %[[H2:[^:]+]]: tensor<2x1x32xf32>
// CHECK-SAME:    %[[C2:[^:]+]]: tensor<2x1x32xf32>
// CHECK-SAME:    %[[P2:[^:]+]]: tensor<2x96xf32>
// CHECK-NEXT:  %[[Y:[^ ,]+]], %[[YH:[^ ,]+]], %[[YC:[^ ,]+]] = accel.lstm %[[X]], %[[W]], %[[R]] {hidden_size = 32 : i64} : (tensor<5x1x16xf32>, tensor<1x128x16xf32>, tensor<1x128x32xf32>) -> (tensor<5x1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
// CHECK-NEXT:  %[[BY0:[^ ,]+]], %[[BY1:[^ ,]+]], %[[BY2:[^ ,]+]] = accel.lstm %[[X]], %[[W2]], %[[R2]], %[[B2]] initial_h %[[H2]] initial_c %[[C2]] peepholes %[[P2]] {clip = 3.000000e+00 : f32, direction = #accel.rnn_direction<bidirectional>, hidden_size = 32 : i64} : (tensor<5x1x16xf32>, tensor<2x128x16xf32>, tensor<2x128x32xf32>, tensor<2x256xf32>, tensor<2x1x32xf32>, tensor<2x1x32xf32>, tensor<2x96xf32>) -> (tensor<5x2x1x32xf32>, tensor<2x1x32xf32>, tensor<2x1x32xf32>)
// CHECK-NEXT:  return %[[Y]], %[[BY0]], %[[BY1]], %[[BY2]] : tensor<5x1x1x32xf32>, tensor<5x2x1x32xf32>, tensor<2x1x32xf32>, tensor<2x1x32xf32>
func.func @lstm(%x: tensor<5x1x16xf32>, %w: tensor<1x128x16xf32>, %r: tensor<1x128x32xf32>,
                %w2: tensor<2x128x16xf32>, %r2: tensor<2x128x32xf32>, %b2: tensor<2x256xf32>,
                %h2: tensor<2x1x32xf32>, %c2: tensor<2x1x32xf32>, %p2: tensor<2x96xf32>) -> (tensor<5x1x1x32xf32>, tensor<5x2x1x32xf32>, tensor<2x1x32xf32>, tensor<2x1x32xf32>) {
  %y, %yh, %yc = accel.lstm %x, %w, %r {hidden_size = 32 : i64} : (tensor<5x1x16xf32>, tensor<1x128x16xf32>, tensor<1x128x32xf32>) -> (tensor<5x1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  %by:3 = accel.lstm %x, %w2, %r2, %b2 initial_h %h2 initial_c %c2 peepholes %p2 {hidden_size = 32 : i64, direction = #accel.rnn_direction<bidirectional>, clip = 3.0 : f32} : (tensor<5x1x16xf32>, tensor<2x128x16xf32>, tensor<2x128x32xf32>, tensor<2x256xf32>, tensor<2x1x32xf32>, tensor<2x1x32xf32>, tensor<2x96xf32>) -> (tensor<5x2x1x32xf32>, tensor<2x1x32xf32>, tensor<2x1x32xf32>)
  return %y, %by#0, %by#1, %by#2 : tensor<5x1x1x32xf32>, tensor<5x2x1x32xf32>, tensor<2x1x32xf32>, tensor<2x1x32xf32>
}

// LSTM (f16) with only initial_c of the optional operands, reverse.
// CHECK-LABEL: func.func @lstm_partial(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<3x2x4xf16>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<1x32x4xf16>
// CHECK-SAME:    %[[R:[^:]+]]: tensor<1x32x8xf16>
// CHECK-SAME:    %[[C:[^:]+]]: tensor<1x2x8xf16>
// CHECK-NEXT:  %[[Y0:[^ ,]+]], %[[Y1:[^ ,]+]], %[[Y2:[^ ,]+]] = accel.lstm %[[X]], %[[W]], %[[R]] initial_c %[[C]] {direction = #accel.rnn_direction<reverse>, hidden_size = 8 : i64} : (tensor<3x2x4xf16>, tensor<1x32x4xf16>, tensor<1x32x8xf16>, tensor<1x2x8xf16>) -> (tensor<3x1x2x8xf16>, tensor<1x2x8xf16>, tensor<1x2x8xf16>)
// CHECK-NEXT:  return %[[Y2]] : tensor<1x2x8xf16>
func.func @lstm_partial(%x: tensor<3x2x4xf16>, %w: tensor<1x32x4xf16>, %r: tensor<1x32x8xf16>, %c: tensor<1x2x8xf16>) -> tensor<1x2x8xf16> {
  %y:3 = accel.lstm %x, %w, %r initial_c %c {hidden_size = 8 : i64, direction = #accel.rnn_direction<reverse>} : (tensor<3x2x4xf16>, tensor<1x32x4xf16>, tensor<1x32x8xf16>, tensor<1x2x8xf16>) -> (tensor<3x1x2x8xf16>, tensor<1x2x8xf16>, tensor<1x2x8xf16>)
  return %y#2 : tensor<1x2x8xf16>
}

// GRU with linear_before_reset; bidirectional with bias, initial_h and clip.
// CHECK-LABEL: func.func @gru(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<3x1x4xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<1x24x4xf32>
// CHECK-SAME:    %[[R:[^:]+]]: tensor<1x24x8xf32>
// CHECK-SAME:    %[[W2:[^:]+]]: tensor<2x24x4xf32>
// CHECK-SAME:    %[[R2:[^:]+]]: tensor<2x24x8xf32>
// CHECK-SAME:    %[[B2:[^:]+]]: tensor<2x48xf32>
// CHECK-SAME:    %[[H2:[^:]+]]: tensor<2x1x8xf32>
// CHECK-NEXT:  %[[Y:[^ ,]+]], %[[H:[^ ,]+]] = accel.gru %[[X]], %[[W]], %[[R]] {hidden_size = 8 : i64, linear_before_reset = true} : (tensor<3x1x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>) -> (tensor<3x1x1x8xf32>, tensor<1x1x8xf32>)
// CHECK-NEXT:  %[[BY0:[^ ,]+]], %[[BY1:[^ ,]+]] = accel.gru %[[X]], %[[W2]], %[[R2]], %[[B2]] initial_h %[[H2]] {clip = 1.000000e+01 : f32, direction = #accel.rnn_direction<bidirectional>, hidden_size = 8 : i64} : (tensor<3x1x4xf32>, tensor<2x24x4xf32>, tensor<2x24x8xf32>, tensor<2x48xf32>, tensor<2x1x8xf32>) -> (tensor<3x2x1x8xf32>, tensor<2x1x8xf32>)
// CHECK-NEXT:  return %[[Y]], %[[BY1]] : tensor<3x1x1x8xf32>, tensor<2x1x8xf32>
func.func @gru(%x: tensor<3x1x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x24x8xf32>,
               %w2: tensor<2x24x4xf32>, %r2: tensor<2x24x8xf32>, %b2: tensor<2x48xf32>, %h2: tensor<2x1x8xf32>) -> (tensor<3x1x1x8xf32>, tensor<2x1x8xf32>) {
  %y, %h = accel.gru %x, %w, %r {hidden_size = 8 : i64, linear_before_reset = true} : (tensor<3x1x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>) -> (tensor<3x1x1x8xf32>, tensor<1x1x8xf32>)
  %by:2 = accel.gru %x, %w2, %r2, %b2 initial_h %h2 {hidden_size = 8 : i64, direction = #accel.rnn_direction<bidirectional>, clip = 10.0 : f32} : (tensor<3x1x4xf32>, tensor<2x24x4xf32>, tensor<2x24x8xf32>, tensor<2x48xf32>, tensor<2x1x8xf32>) -> (tensor<3x2x1x8xf32>, tensor<2x1x8xf32>)
  return %y, %by#1 : tensor<3x1x1x8xf32>, tensor<2x1x8xf32>
}

// transfer between cards and to the host; host_partition with several
// inputs/results and a reason, and an empty one.
// CHECK-LABEL: func.func @hardware(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x256xf32>
// CHECK-SAME:    %[[Y:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:  %[[V0:.*]] = accel.transfer %[[X]] {destination = 1 : i64, source = 0 : i64} : tensor<1x256xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.transfer %[[V0]] {destination = -1 : i64, source = 1 : i64} : tensor<1x256xf32>
// CHECK-NEXT:  %[[V2:.*]]:2 = accel.host_partition(%[[Y]], %[[V1]]) {reason = "op not supported"} : (tensor<4xf32>, tensor<1x256xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:  ^bb0(%[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<1x256xf32>):
// CHECK-NEXT:  %[[N:.*]] = accel.neg %[[A]] : tensor<4xf32>
// CHECK-NEXT:  %[[E:.*]] = accel.exp %[[N]] : tensor<4xf32>
// CHECK-NEXT:  accel.yield %[[N]], %[[E]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  accel.host_partition() : () -> () {
// CHECK-NEXT:  accel.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[V1]], %[[V2]]#0, %[[V2]]#1 : tensor<1x256xf32>, tensor<4xf32>, tensor<4xf32>
func.func @hardware(%x: tensor<1x256xf32>, %y: tensor<4xf32>) -> (tensor<1x256xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = accel.transfer %x {source = 0 : i64, destination = 1 : i64} : tensor<1x256xf32>
  %1 = accel.transfer %0 {source = 1 : i64, destination = -1 : i64} : tensor<1x256xf32>
  %2:2 = accel.host_partition (%y, %1) {reason = "op not supported"} : (tensor<4xf32>, tensor<1x256xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<1x256xf32>):
    %n = accel.neg %a : tensor<4xf32>
    %e = accel.exp %n : tensor<4xf32>
    accel.yield %n, %e : tensor<4xf32>, tensor<4xf32>
  }
  accel.host_partition () : () -> () {
    accel.yield
  }
  return %1, %2#0, %2#1 : tensor<1x256xf32>, tensor<4xf32>, tensor<4xf32>
}

// The placement attribute: full form, host, quantized precision, bf16 with
// dram, and cores only. The parser only accepts prefixes of the optional
// cores/precision/memory groups, so every case below names the earlier ones.
// CHECK-LABEL: func.func @placement(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<8xf32>
// CHECK-NEXT:  %[[V0:.*]] = accel.relu %[[X]] {accel.placement = #accel.placement<card = 0, cores = [0, 1], precision = f16, memory = local>} : tensor<8xf32>
// CHECK-NEXT:  %[[V1:.*]] = accel.neg %[[V0]] {accel.placement = #accel.placement<card = -1>} : tensor<8xf32>
// CHECK-NEXT:  %[[V2:.*]] = accel.abs %[[V1]] {accel.placement = #accel.placement<card = 3, cores = [2], precision = !quant.uniform<i8:f32, 1.000000e-01:3>>} : tensor<8xf32>
// CHECK-NEXT:  %[[V3:.*]] = accel.exp %[[V2]] {accel.placement = #accel.placement<card = 1, cores = [7], precision = bf16, memory = dram>} : tensor<8xf32>
// CHECK-NEXT:  %[[V4:.*]] = accel.sqrt %[[V3]] {accel.placement = #accel.placement<card = 2, cores = [3, 0]>} : tensor<8xf32>
// CHECK-NEXT:  return %[[V4]] : tensor<8xf32>
func.func @placement(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0, cores = [0, 1], precision = f16, memory = local>} : tensor<8xf32>
  %1 = accel.neg %0 {accel.placement = #accel.placement<card = -1>} : tensor<8xf32>
  %2 = accel.abs %1 {accel.placement = #accel.placement<card = 3, cores = [2], precision = !quant.uniform<i8:f32, 0.1:3>>} : tensor<8xf32>
  %3 = accel.exp %2 {accel.placement = #accel.placement<card = 1, cores = [7], precision = bf16, memory = dram>} : tensor<8xf32>
  %4 = accel.sqrt %3 {accel.placement = #accel.placement<card = 2, cores = [3, 0]>} : tensor<8xf32>
  return %4 : tensor<8xf32>
}

// Placement fields are independent and may come in any order.
// CHECK-LABEL: func.func @placement_any_order
func.func @placement_any_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: accel.placement = #accel.placement<card = 3, precision = f16>
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 3, precision = f16>} : tensor<4xf32>
  // CHECK: accel.placement = #accel.placement<card = -1, precision = bf16, memory = dram>
  %1 = accel.relu %0 {accel.placement = #accel.placement<card = -1, memory = dram, precision = bf16>} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// Block floating-point element types (!accel.bfp) flow through data
// movement like any other element type.
// CHECK-LABEL: func.func @block_float(
// CHECK-SAME:    %[[W:[^:]+]]: tensor<4x32x!accel.bfp<msfp8>>
// CHECK-SAME:    %[[M:[^:]+]]: tensor<2x64x!accel.bfp<mxint8>>
// CHECK-NEXT:  %[[R:.*]] = accel.reshape %[[W]] : tensor<4x32x!accel.bfp<msfp8>> -> tensor<2x64x!accel.bfp<msfp8>>
// CHECK-NEXT:  return %[[R]], %[[M]] : tensor<2x64x!accel.bfp<msfp8>>, tensor<2x64x!accel.bfp<mxint8>>
func.func @block_float(%w: tensor<4x32x!accel.bfp<msfp8>>,
                       %m: tensor<2x64x!accel.bfp<mxint8>>)
    -> (tensor<2x64x!accel.bfp<msfp8>>, tensor<2x64x!accel.bfp<mxint8>>) {
  %0 = accel.reshape %w : tensor<4x32x!accel.bfp<msfp8>> -> tensor<2x64x!accel.bfp<msfp8>>
  return %0, %m : tensor<2x64x!accel.bfp<msfp8>>, tensor<2x64x!accel.bfp<mxint8>>
}

// Calibrated ranges (accel.range) on an op and a function argument; a
// quantised result may keep its range.
// CHECK-LABEL: func.func @calibrated_range(
// CHECK-SAME:    %{{[^:]+}}: tensor<4xf32> {accel.range = array<f64: -2.500000e+00, 3.000000e+00>}
// CHECK-NEXT:  accel.relu %{{.*}} {accel.range = array<f64: 0.000000e+00, 3.000000e+00>} : tensor<4xf32>
// CHECK-NEXT:  accel.quantize %{{.*}} {accel.range = array<f64: 0.000000e+00, 3.000000e+00>}
func.func @calibrated_range(%x: tensor<4xf32> {accel.range = array<f64: -2.5, 3.0>})
    -> tensor<4x!quant.uniform<i8:f32, 0.1:3>> {
  %0 = accel.relu %x {accel.range = array<f64: 0.0, 3.0>} : tensor<4xf32>
  %1 = accel.quantize %0 {accel.range = array<f64: 0.0, 3.0>} : tensor<4xf32> -> tensor<4x!quant.uniform<i8:f32, 0.1:3>>
  return %1 : tensor<4x!quant.uniform<i8:f32, 0.1:3>>
}

// Rowwise-quantized tables (!accel.rowwise) are constants read by
// embedding_bag and gather, whose results are f32.
// CHECK-LABEL: func.func @rowwise_tables
// CHECK-NEXT:  %[[T:.*]] = accel.constant dense_resource<rw4> : tensor<4x3x!accel.rowwise<4>>
// CHECK-NEXT:  %[[U:.*]] = accel.constant dense_resource<rw8> : tensor<2x3x!accel.rowwise<8>>
// CHECK-NEXT:  accel.embedding_bag %[[T]], %{{.*}} lengths %{{.*}} weights %{{.*}} {mode = #accel.bag_mode<mean>} : (tensor<4x3x!accel.rowwise<4>>, tensor<5xi32>, tensor<2xi32>, tensor<5xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  accel.gather %[[U]], %{{.*}} : (tensor<2x3x!accel.rowwise<8>>, tensor<7xi64>) -> tensor<7x3xf32>
func.func @rowwise_tables(%ids: tensor<5xi32>, %len: tensor<2xi32>, %w: tensor<5xf32>,
                          %rows: tensor<7xi64>) -> (tensor<2x3xf32>, tensor<7x3xf32>) {
  %t = accel.constant dense_resource<rw4> : tensor<4x3x!accel.rowwise<4>>
  %u = accel.constant dense_resource<rw8> : tensor<2x3x!accel.rowwise<8>>
  %0 = accel.embedding_bag %t, %ids lengths %len weights %w {mode = #accel.bag_mode<mean>} : (tensor<4x3x!accel.rowwise<4>>, tensor<5xi32>, tensor<2xi32>, tensor<5xf32>) -> tensor<2x3xf32>
  %1 = accel.gather %u, %rows : (tensor<2x3x!accel.rowwise<8>>, tensor<7xi64>) -> tensor<7x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<7x3xf32>
}

// The rows of @rowwise_tables: 4 x (2 code bytes + f16 scale and bias) and
// 2 x (3 codes + f32 scale and bias).
{-#
  dialect_resources: {
    builtin: {
      rw4: "0x080000001032003C00000000003C00000000003C00000000003C0000",
      rw8: "0x080000000102030000803F000000000405060000803F00000000"
    }
  }
#-}
