// RUN: nnaccel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-split-ops))' \
// RUN:   | FileCheck %s --check-prefix=SPLIT
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory --accel-lower-to-npu | FileCheck %s

// The multi-core recurrent kernel (MultiCoreRecurrentKernel.cpp): an lstm
// placed on 4 cores. Core i owns hidden columns [16i, 16i + 16) of every
// gate: it gathers its columns of both bias rows (v.mov), keeps its 16 rows
// of each gate block of R in its MRF (4 tiles, DRAM rows 16i, 64 + 16i,
// ...), streams its rows of W for the XW phase, and per step multiplies all
// of h_{t-1} by its R rows (k = 64, n = 16), runs the cell on its 16
// columns, stores its h slice to its SHARED slot (64 bytes apart; the two
// exchange buffers alternate: 0x0, 0x100), and after a barrier of the 4
// cores loads all four slots as the next step's h (one DMA, x = 16,
// y = 4). Core 0 stores Y row 0, core 1 Y row 1; core 3 gathers the final
// c slices (stored at 0x200 before the last exchange) and stores Y_h and
// Y_c.
// accel-split-ops leaves the placement hint alone.
// SPLIT-LABEL: func.func @lstm4
// SPLIT: accel.lstm {{.*}}cores = [0, 1, 2, 3]
// CHECK-LABEL: npu.program @lstm4_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x0], dram[0x14080], f32 x = 256 y = 2
// CHECK-NEXT: npu.v.mov acc[0x800], acc[0x0], f32, f32 rows = 2 cols = 16 dpitch = 256 apitch = 1024
// CHECK: npu.dma.ld mrf[0x0], dram[0x4080], f32 x = 64 y = 16
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x8080], f32 x = 64 y = 16
// CHECK: npu.mm acc[0x1040], acc[0xa00], mrf[0x0], f32, f32, f32 m = 1 k = 64 n = 16 {{.*}}acc = 1
// CHECK: npu.dma.st shared[0x0], acc[0xb40], f32 x = 16 y = 1
// CHECK-NEXT: npu.barrier mask = 15
// CHECK-NEXT: npu.dma.ld acc[0xa00], shared[0x0], f32 x = 16 y = 4 z = 1 sy = 64 sz = 64 dpitch = 64
// CHECK: npu.dma.st shared[0x100], acc[0xb40], f32 x = 16 y = 1
// CHECK-NEXT: npu.barrier mask = 15
// CHECK-NEXT: npu.dma.ld acc[0xa00], shared[0x100], f32 x = 16 y = 4
// CHECK-NEXT: npu.dma.st dram[0x14880], acc[0xd40], f32 x = 64 y = 1 z = 1
// CHECK-NEXT: npu.halt
// CHECK-LABEL: npu.program @lstm4_p0_card0_core1
// CHECK: npu.v.mov acc[0x800], acc[0x40], f32, f32 rows = 2 cols = 16
// CHECK: npu.dma.ld mrf[0x0], dram[0x5080], f32 x = 64 y = 16
// CHECK: npu.dma.st shared[0x40], acc[0xb40], f32 x = 16 y = 1
// CHECK-NEXT: npu.barrier mask = 15
// CHECK: npu.dma.st dram[0x14980], acc[0xd40]
// CHECK-NEXT: npu.halt
// CHECK-LABEL: npu.program @lstm4_p0_card0_core3
// CHECK: npu.dma.ld mrf[0x0], dram[0x7080], f32 x = 64 y = 16
// CHECK: npu.dma.st shared[0xc0], acc[0xb40], f32 x = 16 y = 1
// CHECK-NEXT: npu.barrier mask = 15
// CHECK: npu.dma.st shared[0x2c0], acc[0xb00], f32 x = 16 y = 1
// CHECK-NEXT: npu.dma.st shared[0x1c0], acc[0xb40], f32 x = 16 y = 1
// CHECK-NEXT: npu.barrier mask = 15
// Y_c from the c slices, then Y_h.
// CHECK: npu.dma.ld acc[0xa00], shared[0x200], f32 x = 16 y = 4
// CHECK: npu.dma.st dram[0x14b80]
// CHECK-NEXT: npu.dma.st dram[0x14a80]
// CHECK-NEXT: npu.halt
func.func @lstm4(%x: tensor<2x1x16xf32>, %w: tensor<1x256x16xf32>, %r: tensor<1x256x64xf32>, %b: tensor<1x512xf32>) -> (tensor<2x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>) {
  %0:3 = accel.card_partition(%x, %w, %r, %b) {card = 0 : i64} : (tensor<2x1x16xf32>, tensor<1x256x16xf32>, tensor<1x256x64xf32>, tensor<1x512xf32>) -> (tensor<2x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>) {
  ^bb0(%a: tensor<2x1x16xf32>, %aw: tensor<1x256x16xf32>, %ar: tensor<1x256x64xf32>, %ab: tensor<1x512xf32>):
    %y, %h, %c = accel.lstm %a, %aw, %ar, %ab {hidden_size = 64 : i64, accel.placement = #accel.placement<card = 0, cores = [0, 1, 2, 3]>} : (tensor<2x1x16xf32>, tensor<1x256x16xf32>, tensor<1x256x64xf32>, tensor<1x512xf32>) -> (tensor<2x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>)
    accel.yield %y, %h, %c : tensor<2x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>
  }
  return %0#0, %0#1, %0#2 : tensor<2x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>
}

// -----

// A gru (linear_before_reset 0) on cores 2 and 3 next to a relu on core 0:
// the kernel's barriers name only its two cores (mask 12), with an id of
// their own (1; the partition-wide mask 13 has id 0), and the relu's core
// does not wait for them. r * h_{t-1} must be whole before the h gate's
// product: each step exchanges r * h (buffer 0x0) and then h (0x100).
// SPLIT-LABEL: func.func @gru_subset
// SPLIT: accel.gru {{.*}}cores = [2, 3]
// CHECK-LABEL: npu.program @gru_subset_p0_card0_core0
// CHECK-NOT: npu.barrier
// CHECK: npu.halt
// CHECK-LABEL: npu.program @gru_subset_p0_card0_core2
// CHECK: npu.dma.st shared[0x0], acc[0xd00], f32 x = 32 y = 1
// CHECK-NEXT: npu.barrier id = 1 mask = 12
// CHECK-NEXT: npu.dma.ld acc[0xa00], shared[0x0], f32 x = 32 y = 2
// CHECK: npu.mm acc[{{.*}}], acc[0xa00], mrf[0x8000], f32, f32, f32 m = 1 k = 64 n = 32 {{.*}}acc = 1
// CHECK: npu.dma.st shared[0x100], acc[0xb80], f32 x = 32 y = 1
// CHECK-NEXT: npu.barrier id = 1 mask = 12
// CHECK-NEXT: npu.dma.ld acc[0x900], shared[0x100], f32 x = 32 y = 2
// CHECK-LABEL: npu.program @gru_subset_p0_card0_core3
// CHECK: npu.dma.st shared[0x80], acc[0xd00], f32 x = 32 y = 1
// CHECK-NEXT: npu.barrier id = 1 mask = 12
func.func @gru_subset(%x: tensor<2x1x16xf32>, %w: tensor<1x192x16xf32>, %r: tensor<1x192x64xf32>, %b: tensor<1x384xf32>, %z: tensor<256xf32>) -> (tensor<2x1x1x64xf32>, tensor<256xf32>) {
  %0:2 = accel.card_partition(%x, %w, %r, %b, %z) {card = 0 : i64} : (tensor<2x1x16xf32>, tensor<1x192x16xf32>, tensor<1x192x64xf32>, tensor<1x384xf32>, tensor<256xf32>) -> (tensor<2x1x1x64xf32>, tensor<256xf32>) {
  ^bb0(%a: tensor<2x1x16xf32>, %aw: tensor<1x192x16xf32>, %ar: tensor<1x192x64xf32>, %ab: tensor<1x384xf32>, %az: tensor<256xf32>):
    %n = accel.relu %az {accel.placement = #accel.placement<card = 0, cores = [0]>} : tensor<256xf32>
    %y, %h = accel.gru %a, %aw, %ar, %ab {hidden_size = 64 : i64, accel.placement = #accel.placement<card = 0, cores = [2, 3]>} : (tensor<2x1x16xf32>, tensor<1x192x16xf32>, tensor<1x192x64xf32>, tensor<1x384xf32>) -> (tensor<2x1x1x64xf32>, tensor<1x1x64xf32>)
    accel.yield %y, %n : tensor<2x1x1x64xf32>, tensor<256xf32>
  }
  return %0#0, %0#1 : tensor<2x1x1x64xf32>, tensor<256xf32>
}

// -----

// Without a hint, accel-split-ops asks the kernel how many cores are worth
// it: all 4 for a batch-1 lstm with H = 256 (each step's 256 x 1024
// matrix-vector product dominates), one for H = 16 (the exchange would
// cost more than the product).
// SPLIT-LABEL: func.func @auto
// SPLIT: accel.lstm {{.*}}accel.placement = #accel.placement<card = 0, cores = [0, 1, 2, 3]>
// SPLIT: accel.lstm
// SPLIT-NOT: cores
// SPLIT: accel.yield
func.func @auto(%x: tensor<4x1x64xf32>, %w: tensor<1x1024x64xf32>, %r: tensor<1x1024x256xf32>, %x2: tensor<4x1x16xf32>, %w2: tensor<1x64x16xf32>, %r2: tensor<1x64x16xf32>) -> (tensor<4x1x1x256xf32>, tensor<4x1x1x16xf32>) {
  %0:2 = accel.card_partition(%x, %w, %r, %x2, %w2, %r2) {card = 0 : i64} : (tensor<4x1x64xf32>, tensor<1x1024x64xf32>, tensor<1x1024x256xf32>, tensor<4x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>) -> (tensor<4x1x1x256xf32>, tensor<4x1x1x16xf32>) {
  ^bb0(%a: tensor<4x1x64xf32>, %aw: tensor<1x1024x64xf32>, %ar: tensor<1x1024x256xf32>, %a2: tensor<4x1x16xf32>, %aw2: tensor<1x64x16xf32>, %ar2: tensor<1x64x16xf32>):
    %y, %h, %c = accel.lstm %a, %aw, %ar {hidden_size = 256 : i64} : (tensor<4x1x64xf32>, tensor<1x1024x64xf32>, tensor<1x1024x256xf32>) -> (tensor<4x1x1x256xf32>, tensor<1x1x256xf32>, tensor<1x1x256xf32>)
    %y2, %h2, %c2 = accel.lstm %a2, %aw2, %ar2 {hidden_size = 16 : i64} : (tensor<4x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>) -> (tensor<4x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
    accel.yield %y, %y2 : tensor<4x1x1x256xf32>, tensor<4x1x1x16xf32>
  }
  return %0#0, %0#1 : tensor<4x1x1x256xf32>, tensor<4x1x1x16xf32>
}
