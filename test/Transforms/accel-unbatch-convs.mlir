// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=default},func.func(accel-unbatch-convs))' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=default},func.func(accel-unbatch-convs,accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=PLACE

// Two images of 15 filters of 17 x 17 f32: each image's result is 17,340
// bytes, not a multiple of the 64-byte DRAM alignment, so the card's conv
// refuses the batch. One conv per image reads its slice; a concat (staged
// flat through the VRF) joins them, all on the card.
// CHECK-LABEL: func.func @unaligned_images(
// CHECK: %[[X0:.+]] = accel.slice %arg0 {ends = array<i64: 1, 5, 17, 17>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>}
// CHECK: %[[Y0:.+]] = accel.conv %[[X0]], %arg1, %arg2 {{.*}} -> tensor<1x15x17x17xf32>
// CHECK: %[[X1:.+]] = accel.slice %arg0 {ends = array<i64: 2, 5, 17, 17>, starts = array<i64: 1, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>}
// CHECK: %[[Y1:.+]] = accel.conv %[[X1]], %arg1, %arg2 {{.*}} -> tensor<1x15x17x17xf32>
// CHECK: %[[Y:.+]] = accel.concat %[[Y0]], %[[Y1]] {axis = 0 : i64}
// CHECK: return %[[Y]]
// PLACE-LABEL: func.func @unaligned_images(
// PLACE-NOT: host_reason
// PLACE-NOT: card = -1
// PLACE: return
func.func @unaligned_images(%x: tensor<2x5x17x17xf32>, %w: tensor<15x5x1x1xf32>, %b: tensor<15xf32>) -> tensor<2x15x17x17xf32> {
  %0 = accel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x5x17x17xf32>, tensor<15x5x1x1xf32>, tensor<15xf32>) -> tensor<2x15x17x17xf32>
  return %0 : tensor<2x15x17x17xf32>
}

// -----

// Aligned images (16 filters of 4 x 4 f32: 1 KiB each): the card takes
// the batch as it is.
// CHECK-LABEL: func.func @aligned_images(
// CHECK-NOT: accel.slice
// CHECK: accel.conv %arg0, %arg1, %arg2 {{.*}} -> tensor<2x16x4x4xf32>
// CHECK-NOT: accel.concat
func.func @aligned_images(%x: tensor<2x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>) -> tensor<2x16x4x4xf32> {
  %0 = accel.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x8x4x4xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<2x16x4x4xf32>
  return %0 : tensor<2x16x4x4xf32>
}

// -----

// A conv hinted to the host is left alone.
// CHECK-LABEL: func.func @hinted(
// CHECK-NOT: accel.slice
// CHECK: accel.conv %arg0, %arg1, %arg2 {{.*}} -> tensor<2x15x17x17xf32>
func.func @hinted(%x: tensor<2x5x17x17xf32>, %w: tensor<15x5x1x1xf32>, %b: tensor<15xf32>) -> tensor<2x15x17x17xf32> {
  %0 = accel.conv %x, %w, %b {accel.hint = #accel.hint<card = -1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x5x17x17xf32>, tensor<15x5x1x1xf32>, tensor<15xf32>) -> tensor<2x15x17x17xf32>
  return %0 : tensor<2x15x17x17xf32>
}
