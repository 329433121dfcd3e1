// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-apply-precision{default=f16}))' | FileCheck %s
// RUN: not nnaccel-opt %s --pass-pipeline='builtin.module(func.func(accel-apply-precision{default=f8}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// The whole model in f16 (nnaccel-compile --quantize=fp16): a chain of
// card ops converts once on the way in and the converts between them
// cancel; the op producing the function's result stays f32, and a hinted
// op keeps its hint's precision.
// CHECK-LABEL: func.func @chain
// CHECK: %[[X:.*]] = accel.convert %arg0 : tensor<4x64xf32> -> tensor<4x64xf16>
// CHECK: %[[A:.*]] = accel.fully_connected %[[X]], %{{.*}} : (tensor<4x64xf16>, tensor<64x64xf16>) -> tensor<4x64xf16>
// CHECK: %[[B:.*]] = accel.relu %[[A]] : tensor<4x64xf16>
// CHECK: %[[C:.*]] = accel.convert %[[B]] : tensor<4x64xf16> -> tensor<4x64xf32>
// CHECK: %[[D:.*]] = accel.fully_connected %[[C]], %{{.*}} {accel.hint = #accel.hint<precision = f32>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
// CHECK: %[[E:.*]] = accel.relu %[[D]] : tensor<4x64xf32>
// CHECK: return %[[E]]
// BAD: default precision must be f32, f16 or bf16, got 'f8'
module attributes {npu.target = "default"} {
func.func @chain(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %w = accel.constant dense<0.5> : tensor<64x64xf32>
  %a = accel.fully_connected %x, %w : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %b = accel.relu %a : tensor<4x64xf32>
  %w2 = accel.constant dense<0.25> : tensor<64x64xf32>
  %d = accel.fully_connected %b, %w2 {accel.hint = #accel.hint<precision = f32>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %e = accel.relu %d : tensor<4x64xf32>
  return %e : tensor<4x64xf32>
}
}
