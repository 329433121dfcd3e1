// RUN: nnaccel-opt %s | nnaccel-opt | FileCheck %s
// RUN: nnaccel-opt %s --mlir-print-op-generic | nnaccel-opt | FileCheck %s
// RUN: nnaccel-opt %s -canonicalize | FileCheck %s --check-prefix=CANON

// Constants held as `dense_resource` blobs (how the importer stores
// weights). The blobs are hex strings: a 4-byte alignment prefix
// (0x04000000) followed by little-endian f32 data.
//   blob1   = [1, 2, 3, 4, 5, 6]  (0x3F800000, 0x40000000, ... 0x40C00000)
//   weights = [2, 4]
//
// Round trip: the ops and the resource section survive unchanged.
// Canonicalize:
// - a reshape chain of a resource constant folds to a constant of the new
//   type that refers to the same blob (no copy, no new blob);
// - folders read resource-backed weights: batch_norm folds into a conv
//   whose weight is a blob (same numbers as the inline case in
//   canonicalize.mlir);
// - a folded weight larger than 64 elements is written back as a new blob
//   (`conv_bn_weight`) instead of an inline dense attribute.

// CHECK-LABEL: func.func @resource_constant()
// CHECK-NEXT:    %[[C:.*]] = accel.constant dense_resource<blob1> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[C]] : tensor<2x3xf32>
// CANON-LABEL: func.func @resource_constant()
// CANON-NEXT:    %[[C:.*]] = accel.constant dense_resource<blob1> : tensor<2x3xf32>
// CANON-NEXT:    return %[[C]] : tensor<2x3xf32>
func.func @resource_constant() -> tensor<2x3xf32> {
  %0 = accel.constant dense_resource<blob1> : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reshape_resource()
// CHECK-NEXT:    %[[C:.*]] = accel.constant dense_resource<blob1> : tensor<2x3xf32>
// CHECK-NEXT:    %[[R1:.*]] = accel.reshape %[[C]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-NEXT:    %[[R2:.*]] = accel.reshape %[[R1]] : tensor<6xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[R2]] : tensor<3x2xf32>
// CANON-LABEL: func.func @reshape_resource()
// CANON-NEXT:    %[[C:.*]] = accel.constant dense_resource<blob1> : tensor<3x2xf32>
// CANON-NEXT:    return %[[C]] : tensor<3x2xf32>
func.func @reshape_resource() -> tensor<3x2xf32> {
  %0 = accel.constant dense_resource<blob1> : tensor<2x3xf32>
  %1 = accel.reshape %0 : tensor<2x3xf32> -> tensor<6xf32>
  %2 = accel.reshape %1 : tensor<6xf32> -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @batch_norm_resource_weight(
// CHECK:         accel.constant dense_resource<weights> : tensor<2x1x1x1xf32>
// CHECK:         accel.batch_norm
// CANON-LABEL: func.func @batch_norm_resource_weight(
// CANON-SAME:      %[[X:[^:]+]]: tensor<1x1x2x2xf32>
// CANON-NEXT:    %[[B:.*]] = accel.constant dense<[0.000000e+00, 1.500000e+00]> : tensor<2xf32>
// CANON-NEXT:    %[[W:.*]] = accel.constant dense<{{\[\[\[\[}}1.000000e+00{{\]\]\]}}, {{\[\[\[}}5.000000e-01{{\]\]\]\]}}> : tensor<2x1x1x1xf32>
// CANON-NEXT:    %[[CONV:.*]] = accel.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CANON-NEXT:    return %[[CONV]] : tensor<1x2x2x2xf32>
func.func @batch_norm_resource_weight(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = accel.constant dense_resource<weights> : tensor<2x1x1x1xf32>
  %scale = accel.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %shift = accel.constant dense<[0.0, 2.0]> : tensor<2xf32>
  %mean = accel.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %var = accel.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %b = accel.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %1 = accel.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %1 : tensor<1x2x2x2xf32>
}

// 72 weights, all 1: s = 1 / sqrt(3 + 1) = 0.5, so W' is 72 x 0.5
// (0x3F000000) and b' = (0 - 1) * 0.5 + 1 = 0.5.
// CHECK-LABEL: func.func @batch_norm_large_weight(
// CHECK:         accel.batch_norm
// CANON-LABEL: func.func @batch_norm_large_weight(
// CANON-SAME:      %[[X:[^:]+]]: tensor<1x1x8x8xf32>
// CANON-NEXT:    %[[B:.*]] = accel.constant dense<5.000000e-01> : tensor<2xf32>
// CANON-NEXT:    %[[W:.*]] = accel.constant dense_resource<conv_bn_weight> : tensor<2x1x6x6xf32>
// CANON-NEXT:    %[[CONV:.*]] = accel.conv %[[X]], %[[W]], %[[B]]
// CANON-NEXT:    return %[[CONV]] : tensor<1x2x3x3xf32>
func.func @batch_norm_large_weight(%x: tensor<1x1x8x8xf32>) -> tensor<1x2x3x3xf32> {
  %w = accel.constant dense<1.0> : tensor<2x1x6x6xf32>
  %p = accel.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %v = accel.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<2x1x6x6xf32>) -> tensor<1x2x3x3xf32>
  %1 = accel.batch_norm %0, %p, %p, %p, %v {epsilon = 1.0 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %1 : tensor<1x2x3x3xf32>
}

// The round trip keeps both blobs byte for byte.
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       blob1: "0x040000000000803F0000004000004040000080400000A0400000C040",
// CHECK-NEXT:       weights: "0x040000000000004000008040"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}

// After canonicalization blob1 is still the only copy of its data (the
// reshaped constant shares it), `weights` is no longer referenced, and the
// large folded weight is a new blob of 72 halves.
// CANON:      {-#
// CANON-NEXT:   dialect_resources: {
// CANON-NEXT:     builtin: {
// CANON-NEXT:       blob1: "0x040000000000803F0000004000004040000080400000A0400000C040",
// CANON-NEXT:       conv_bn_weight: "0x04000000{{(0000003F){72}"}}
// CANON-NEXT:     }
// CANON-NEXT:   }
// CANON-NEXT: #-}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F0000004000004040000080400000A0400000C040",
      weights: "0x040000000000004000008040"
    }
  }
#-}
