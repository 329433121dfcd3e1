// One program per file: exporting a module with several programs needs
// --npu-program, and names that match nothing are errors.
// RUN: nnaccel-translate --npu-to-asm --npu-program=second %s | FileCheck %s
// RUN: not nnaccel-translate --npu-to-asm %s 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not nnaccel-translate --npu-to-binary --npu-program=third %s -o %t 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: .core card=0, core=1
// CHECK-NEXT: nop
// MANY: error: found 2 npu.program ops; choose one with --npu-program=<symbol> (one program per file)
// NONE: error: no npu.program named 'third'
npu.program @first card = 0 core = 0 {
  npu.halt
}
npu.program @second card = 0 core = 1 {
  npu.nop
  npu.halt
}
