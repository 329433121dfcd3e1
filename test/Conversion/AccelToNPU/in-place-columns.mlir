// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory=shared-intermediates=false | FileCheck %s --check-prefix=PLAN
// RUN: nnaccel-opt %s -split-input-file --accel-plan-card-memory=shared-intermediates=false --accel-lower-to-npu | FileCheck %s --check-prefix=LOWER

// A concat along the innermost axis whose parts come from kernels that can
// write their result rows at a pitch (fully_connected, matmul) is in place:
// each part gets `accel.result_pitch` = the concat's row bytes (512) and the
// address of its columns in the concat's buffer (+0 and +256), and its
// kernel stores its rows that far apart. The consumer on core 0 then waits
// at the only barrier for core 1's columns; nothing is copied.
// PLAN-LABEL: func.func @fc_columns
// PLAN: accel.fully_connected %{{.*}} {accel.dram_address = [[#C:]] : i64, accel.placement = #accel.placement<card = 0, cores = [0]>, accel.result_pitch = 512 : i64
// PLAN: accel.fully_connected %{{.*}} {accel.dram_address = [[#C+256]] : i64, accel.placement = #accel.placement<card = 0, cores = [1]>, accel.result_pitch = 512 : i64
// PLAN: accel.concat %{{.*}} {accel.dram_address = [[#C]] : i64, accel.in_place, axis = 1 : i64}
// PLAN: accel.fully_connected %{{.*}} {accel.dram_address = {{[0-9]+}} : i64, accel.placement = #accel.placement<card = 0, cores = [0]>, transpose_weight = true}
// LOWER-LABEL: npu.program @fc_columns_p0_card0_core0
// LOWER-NOT: npu.barrier
// LOWER: npu.dma.st dram[0x[[#%x,Y:]]], acc[0x0], f32 x = 64 y = 4 z = 1 dy = 512
// LOWER-NEXT: npu.barrier mask = 3
// LOWER-NEXT: npu.dma.ld vrf[0x0], dram[0x[[#%x,Y]]], f32 x = 128 y = 4 z = 1 sy = 512
// LOWER-NOT: npu.barrier
// LOWER: npu.halt
// LOWER-LABEL: npu.program @fc_columns_p0_card0_core1
// LOWER-NOT: npu.barrier
// LOWER: npu.dma.st dram[0x[[#%x,Y+0x100]]], acc[0x0], f32 x = 64 y = 4 z = 1 dy = 512
// LOWER-NEXT: npu.barrier mask = 3
// LOWER-NEXT: npu.halt
func.func @fc_columns(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    %w0 = accel.constant dense<0.5> : tensor<64x64xf32>
    %w1 = accel.constant dense<0.25> : tensor<64x64xf32>
    %w2 = accel.constant dense<0.125> : tensor<128x64xf32>
    %p = accel.fully_connected %a, %w0 {accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %q = accel.fully_connected %a, %w1 {accel.placement = #accel.placement<card = 0, cores = [1]>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %c = accel.concat %p, %q {axis = 1 : i64} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x128xf32>
    %y = accel.fully_connected %c, %w2 {accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<4x128xf32>, tensor<128x64xf32>) -> tensor<4x64xf32>
    accel.yield %y : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

// Matmul results with batch elements: all 2 x 64 rows of each part, across
// the batch, lie one concat row apart; one store per part.
// PLAN-LABEL: func.func @matmul_columns
// PLAN: accel.matmul %{{.*}} {accel.dram_address = [[#M:]] : i64, {{.*}}accel.result_pitch = 512 : i64}
// PLAN: accel.matmul %{{.*}} {accel.dram_address = [[#M+256]] : i64, {{.*}}accel.result_pitch = 512 : i64}
// PLAN: accel.concat %{{.*}} {accel.dram_address = [[#M]] : i64, accel.in_place, axis = 2 : i64}
// LOWER-LABEL: npu.program @matmul_columns_p0_card0_core0
// LOWER: npu.dma.st dram[0x[[#%x,Z:]]], acc[0x0], f32 x = 64 y = 128 z = 1 dy = 512
// LOWER-NEXT: npu.halt
// LOWER-LABEL: npu.program @matmul_columns_p0_card0_core1
// LOWER: npu.dma.st dram[0x[[#%x,Z+0x100]]], acc[0x0], f32 x = 64 y = 128 z = 1 dy = 512
// LOWER-NEXT: npu.halt
func.func @matmul_columns(%x: tensor<2x64x64xf32>) -> tensor<2x64x128xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<2x64x64xf32>) -> tensor<2x64x128xf32> {
  ^bb0(%a: tensor<2x64x64xf32>):
    %w0 = accel.constant dense<0.5> : tensor<64x64xf32>
    %w1 = accel.constant dense<0.25> : tensor<64x64xf32>
    %p = accel.matmul %a, %w0 {accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<2x64x64xf32>, tensor<64x64xf32>) -> tensor<2x64x64xf32>
    %q = accel.matmul %a, %w1 {accel.placement = #accel.placement<card = 0, cores = [1]>} : (tensor<2x64x64xf32>, tensor<64x64xf32>) -> tensor<2x64x64xf32>
    %c = accel.concat %p, %q {axis = 2 : i64} : (tensor<2x64x64xf32>, tensor<2x64x64xf32>) -> tensor<2x64x128xf32>
    accel.yield %c : tensor<2x64x128xf32>
  }
  return %0 : tensor<2x64x128xf32>
}

// -----

// Not in place, so each concat copies (on core 0, after a barrier): a part
// that is also read elsewhere (%q, yielded too), parts whose columns would
// not start DRAM-aligned (16 + 8 floats: the second at 64 bytes, but the
// 96-byte rows put its later rows off the 64-byte grid), and a part from a
// kernel that writes its result densely (relu).
// PLAN-LABEL: func.func @not_in_place
// PLAN-NOT: accel.result_pitch
// PLAN-NOT: accel.in_place
// PLAN: accel.yield
// LOWER-LABEL: npu.program @not_in_place_p0_card0_core0
// LOWER-COUNT-3: npu.barrier mask = 3
// LOWER-NOT: npu.barrier
// LOWER: npu.halt
func.func @not_in_place(%x: tensor<4x64xf32>) -> (tensor<4x128xf32>, tensor<4x64xf32>, tensor<4x24xf32>, tensor<4x128xf32>) {
  %0:4 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x64xf32>) -> (tensor<4x128xf32>, tensor<4x64xf32>, tensor<4x24xf32>, tensor<4x128xf32>) {
  ^bb0(%a: tensor<4x64xf32>):
    %w0 = accel.constant dense<0.5> : tensor<64x64xf32>
    %w1 = accel.constant dense<0.25> : tensor<64x64xf32>
    %w2 = accel.constant dense<0.125> : tensor<64x16xf32>
    %w3 = accel.constant dense<2.0> : tensor<64x8xf32>
    %p = accel.fully_connected %a, %w0 {accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %q = accel.fully_connected %a, %w1 {accel.placement = #accel.placement<card = 0, cores = [1]>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %shared = accel.concat %p, %q {axis = 1 : i64} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x128xf32>
    %r = accel.fully_connected %a, %w2 {accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<4x64xf32>, tensor<64x16xf32>) -> tensor<4x16xf32>
    %s = accel.fully_connected %a, %w3 {accel.placement = #accel.placement<card = 0, cores = [1]>} : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
    %unaligned = accel.concat %r, %s {axis = 1 : i64} : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<4x24xf32>
    %t = accel.fully_connected %a, %w0 {accel.placement = #accel.placement<card = 0, cores = [0]>} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %u = accel.relu %a {accel.placement = #accel.placement<card = 0, cores = [1]>} : tensor<4x64xf32>
    %dense = accel.concat %t, %u {axis = 1 : i64} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x128xf32>
    accel.yield %shared, %q, %unaligned, %dense : tensor<4x128xf32>, tensor<4x64xf32>, tensor<4x24xf32>, tensor<4x128xf32>
  }
  return %0#0, %0#1, %0#2, %0#3 : tensor<4x128xf32>, tensor<4x64xf32>, tensor<4x24xf32>, tensor<4x128xf32>
}
