// accel-set-target records the target in the module's npu.target, which
// the hardware-dependent passes then read instead of an option of their own.
//
// RUN: nnaccel-opt %s --accel-set-target=target=brainwave-like | FileCheck %s
// CHECK: module attributes {npu.target = "brainwave-like"}

// A target that cannot be loaded is an error, both when it is set and when
// a pass reads it from the module.
// RUN: not nnaccel-opt %s --accel-set-target=target=no-such-target 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SET
// SET: error: cannot load target 'no-such-target'
// RUN: not nnaccel-opt %S/Inputs/bad-module-target.mlir \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=READ
// READ: error: cannot load target 'no-such-target'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
