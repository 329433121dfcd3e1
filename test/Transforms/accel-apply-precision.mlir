// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-apply-precision))' | FileCheck %s

// A layer hinted to f16: its input converted, its constant weight rounded
// at compile time (the f32 original goes), the product in f16 and the
// result converted back for its users.
// CHECK-LABEL: func.func @to_f16
// CHECK-NOT: tensor<64x32xf32>
// CHECK: %[[X:.*]] = accel.convert %arg0 : tensor<4x64xf32> -> tensor<4x64xf16>
// CHECK: %[[W:.*]] = accel.constant dense<5.000000e-01> : tensor<64x32xf16>
// CHECK: %[[Y:.*]] = accel.fully_connected %[[X]], %[[W]] {accel.hint = #accel.hint<precision = f16>} : (tensor<4x64xf16>, tensor<64x32xf16>) -> tensor<4x32xf16>
// CHECK: %[[R:.*]] = accel.convert %[[Y]] : tensor<4x32xf16> -> tensor<4x32xf32>
// CHECK: return %[[R]]
func.func @to_f16(%x: tensor<4x64xf32>) -> tensor<4x32xf32> {
  %w = accel.constant dense<0.5> : tensor<64x32xf32>
  %0 = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = f16>} : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// An f16 op asked for bf16; one asked for its own type is left alone.
// CHECK-LABEL: func.func @between_narrow
// CHECK: accel.convert %arg0 : tensor<8xf16> -> tensor<8xbf16>
// CHECK: accel.sigmoid {{.*}} : tensor<8xbf16>
// CHECK: accel.convert {{.*}} : tensor<8xbf16> -> tensor<8xf16>
// CHECK: accel.relu %arg0 {accel.hint = #accel.hint<precision = f16>} : tensor<8xf16>
func.func @between_narrow(%x: tensor<8xf16>) -> (tensor<8xf16>, tensor<8xf16>) {
  %0 = accel.sigmoid %x {accel.hint = #accel.hint<precision = bf16>} : tensor<8xf16>
  %1 = accel.relu %x {accel.hint = #accel.hint<precision = f16>} : tensor<8xf16>
  return %0, %1 : tensor<8xf16>, tensor<8xf16>
}

// -----

// Precisions the card kernel lacks: a warning with the reason, the op keeps
// its types and the hint loses the precision (so nobody warns twice).
// CHECK-LABEL: func.func @rejected
// CHECK: accel.erf %arg0 : tensor<4xf32>
// CHECK: accel.tanh %arg0 {accel.hint = #accel.hint<cores = [1]>} : tensor<4xf32>
func.func @rejected(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-warning @+1 {{accel.erf: cannot compute in 'bf16': erf is not in the NPU ISA; it computes in 'f32'}}
  %0 = accel.erf %x {accel.hint = #accel.hint<precision = bf16>} : tensor<4xf32>
  // expected-warning @+1 {{accel.tanh: cannot compute in 'f64': the card computes in f32, f16 or bf16}}
  %1 = accel.tanh %x {accel.hint = #accel.hint<cores = [1], precision = f64>} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A constant the op reads twice is erased once when its rounded copies
// replace it (erasing it per operand was a use after free).
// CHECK-LABEL: func.func @same_constant_twice() -> tensor<64x64xf32>
// CHECK-NOT: tensor<64x64xf32>
// CHECK: accel.matmul {{.*}} : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
// CHECK: accel.convert {{.*}} : tensor<64x64xf16> -> tensor<64x64xf32>
func.func @same_constant_twice() -> tensor<64x64xf32> {
  %c = accel.constant dense<0.5> : tensor<64x64xf32>
  %0 = accel.matmul %c, %c {accel.hint = #accel.hint<precision = f16>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
