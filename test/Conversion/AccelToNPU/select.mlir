// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=PLACE
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=brainwave-like},func.func(accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=ISA10

// Compare and where kernels (SelectKernels.cpp): row chunks stream through
// two VRF slots as in the elementwise kernels; v.c<pred> writes a 0/1 byte
// per element (bools are u8 on the card), v.sel keeps the on_false value
// loaded into the output chunk where the mask is 0.

// Same shapes, flattened: two loads, one compare into the u8 output chunk.
// CHECK-LABEL: func.func @compare_full
// CHECK: npu.dma.ld vrf[0x180], dram[0x0], f32 x = 384 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x780], dram[0x600], f32 x = 384 y = 1 {{.*}} push_next
// CHECK-NEXT: npu.v.clt vrf[0x0], vrf[0x180], vrf[0x780], u8, f32, f32 rows = 1 cols = 384 dpitch = 384 apitch = 1536 bpitch = 1536 pop_prev
// CHECK-NEXT: npu.dma.st dram[0xc00], vrf[0x0], u8 x = 384 y = 1
// PLACE-LABEL: func.func @compare_full
// PLACE: accel.compare {{.*}}accel.placement = #accel.placement<card = 0>
// ISA10-LABEL: func.func @compare_full
// ISA10: accel.host_reason = "accel.compare needs the ISA 1.2 mask instructions (v.ceq .. v.sel); target 'brainwave-like' implements ISA 1.0"
func.func @compare_full(%a: tensor<4x96xf32>, %b: tensor<4x96xf32>) -> tensor<4x96xi1> {
  %0 = accel.compare lt, %a, %b : (tensor<4x96xf32>, tensor<4x96xf32>) -> tensor<4x96xi1>
  return %0 : tensor<4x96xi1>
}

// -----

// A per-row lhs: swapped into b with the mirrored predicate (c <= x is
// x >= c), bcast=col.
// CHECK-LABEL: func.func @compare_swapped
// CHECK: npu.dma.ld vrf[0x94], dram[0x0], f32 x = 4 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0xe0], dram[0x40], f32 x = 37 y = 4
// CHECK-NEXT: npu.v.cge vrf[0x0], vrf[0xe0], vrf[0x94], u8, f32, f32 rows = 4 cols = 37 dpitch = 37 apitch = 148 bpitch = 4 bcast = col
func.func @compare_swapped(%a: tensor<4x1xf32>, %b: tensor<4x37xf32>) -> tensor<4x37xi1> {
  %0 = accel.compare le, %a, %b : (tensor<4x1xf32>, tensor<4x37xf32>) -> tensor<4x37xi1>
  return %0 : tensor<4x37xi1>
}

// -----

// [4, 5] against [3, 4, 5]: the output splits into 3 rows of 20, and the
// broadcast operand is one row of them (bcast=row).
// CHECK-LABEL: func.func @compare_split
// CHECK: npu.dma.ld vrf[0x0], dram[0x100], f32 x = 20 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x13c], dram[0x0], f32 x = 20 y = 3
// CHECK-NEXT: npu.v.cgt vrf[0x100], vrf[0x13c], vrf[0x0], u8, f32, f32 rows = 3 cols = 20 {{.*}} bcast = row
func.func @compare_split(%a: tensor<3x4x5xf32>, %b: tensor<4x5xf32>) -> tensor<3x4x5xi1> {
  %0 = accel.compare gt, %a, %b : (tensor<3x4x5xf32>, tensor<4x5xf32>) -> tensor<3x4x5xi1>
  return %0 : tensor<3x4x5xi1>
}

// -----

// Bools (Xor of two masks): compared as u8.
// CHECK-LABEL: func.func @compare_bool
// CHECK: npu.v.cne vrf[0x0], vrf[{{.*}}], vrf[{{.*}}], u8, u8, u8 rows = 1 cols = 40
func.func @compare_bool(%a: tensor<5x8xi1>, %b: tensor<5x8xi1>) -> tensor<5x8xi1> {
  %0 = accel.compare ne, %a, %b : (tensor<5x8xi1>, tensor<5x8xi1>) -> tensor<5x8xi1>
  return %0 : tensor<5x8xi1>
}

// -----

// Broadcast condition and on_false are materialised exactly (v.fill of the
// additive identity, -0.0 for floats and 0 for bools, then v.add with the
// broadcast); the row-vector on_true is v.sel's broadcast b. f16 values are
// selected as f16 bits.
// CHECK-LABEL: func.func @where_bcast
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], u8 x = 37 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x28], dram[0x40], f16 x = 37 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x228], dram[0xc0], f16 x = 4 y = 1
// CHECK-NEXT: npu.v.fill vrf[0x100], f16 rows = 4 cols = 37 dpitch = 74 imm = -0.000000e+00
// CHECK-NEXT: npu.v.add vrf[0x100], vrf[0x100], vrf[0x228], f16, f16, f16 rows = 4 cols = 37 {{.*}} bcast = col
// CHECK-NEXT: npu.v.fill vrf[0x270], u8 rows = 4 cols = 37 dpitch = 37
// CHECK-NEXT: npu.v.add vrf[0x270], vrf[0x270], vrf[0x0], u8, u8, u8 rows = 4 cols = 37 {{.*}} bcast = row
// CHECK-NEXT: npu.v.sel vrf[0x100], vrf[0x270], vrf[0x28], f16, u8, f16 rows = 4 cols = 37 dpitch = 74 apitch = 37 bpitch = 74 bcast = row
// CHECK-NEXT: npu.dma.st dram[0x100], vrf[0x100], f16 x = 37 y = 4
func.func @where_bcast(%c: tensor<1x37xi1>, %x: tensor<37xf16>, %y: tensor<4x1xf16>) -> tensor<4x37xf16> {
  %0 = accel.where %c, %x, %y : (tensor<1x37xi1>, tensor<37xf16>, tensor<4x1xf16>) -> tensor<4x37xf16>
  return %0 : tensor<4x37xf16>
}

// -----

// Integers: on_false is loaded straight into the output chunk.
// CHECK-LABEL: func.func @where_full
// CHECK: npu.dma.ld vrf[0x3c], dram[0x0], u8 x = 15 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x4c], dram[0x40], i32 x = 15 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x80], i32 x = 15 y = 1
// CHECK-NEXT: npu.v.sel vrf[0x0], vrf[0x3c], vrf[0x4c], i32, u8, i32 rows = 1 cols = 15
// CHECK: npu.dma.st dram[0xc0], vrf[0x0], i32 x = 15 y = 1
func.func @where_full(%c: tensor<3x5xi1>, %x: tensor<3x5xi32>, %y: tensor<3x5xi32>) -> tensor<3x5xi32> {
  %0 = accel.where %c, %x, %y : (tensor<3x5xi1>, tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}

// -----

// Larger than a slot: chunks alternate between the two slots (0x0 and
// 0x8000 on the default target) and keep their DRAM offsets aligned.
// CHECK-LABEL: func.func @where_chunks
// CHECK: npu.dma.ld vrf[0x0], dram[0x5dc00], f32 x = 1 y = 1
// CHECK: npu.v.sel vrf[0x100], vrf[0x3100], vrf[0x3d00], f32, u8, f32 rows = 3 cols = 1024
// CHECK: npu.dma.st dram[0x5dc40], vrf[0x100], f32 x = 1024 y = 3
// CHECK: npu.dma.ld vrf[0xb000], dram[0xc00], u8 x = 1024 y = 3
// CHECK: npu.v.sel vrf[0x8000], vrf[0xb000], vrf[0xbc00], f32, u8, f32 rows = 3 cols = 1024
// CHECK: npu.dma.st dram[0x60c40], vrf[0x8000]
// CHECK: npu.v.sel vrf[0x100]
func.func @where_chunks(%c: tensor<256x300xi1>, %x: tensor<256x300xf32>, %y: tensor<f32>) -> tensor<256x300xf32> {
  %0 = accel.where %c, %x, %y : (tensor<256x300xi1>, tensor<256x300xf32>, tensor<f32>) -> tensor<256x300xf32>
  return %0 : tensor<256x300xf32>
}

// -----

// Rows of 37 x 37 = 1369 f32 cannot be chunked DRAM-aligned (16-row
// multiples do not fit the VRF): 16-row x 192-column tiles, whose starts
// are 64-byte aligned, read with the DRAM row stride (sy = 5476) and the
// resident mask row at the tile's column.
// CHECK-LABEL: func.func @where_tiles
// CHECK: npu.dma.ld vrf[0x3600], dram[0x580], f32 x = 192 y = 16 z = 1 sy = 5476 dpitch = 768
// CHECK: npu.v.sel vrf[0x600], vrf[0x6600], vrf[0x3600], f32, u8, f32 rows = 16 cols = 192
// CHECK-NEXT: npu.dma.st dram[0x15c00], vrf[0x600], f32 x = 192 y = 16 z = 1 dy = 5476
// CHECK: npu.dma.ld vrf[0xb300], dram[0x880], f32 x = 192 y = 16 z = 1 sy = 5476
// CHECK: npu.v.add {{.*}}, vrf[0xc0], u8, u8, u8 rows = 16 cols = 192 {{.*}} bcast = row
func.func @where_tiles(%c: tensor<37x37xi1>, %x: tensor<1x16x37x37xf32>, %y: tensor<f32>) -> tensor<1x16x37x37xf32> {
  %0 = accel.where %c, %x, %y : (tensor<37x37xi1>, tensor<1x16x37x37xf32>, tensor<f32>) -> tensor<1x16x37x37xf32>
  return %0 : tensor<1x16x37x37xf32>
}

// -----

// The tanh GELU is one v.gelut.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: npu.v.gelut vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 32
// ISA10-LABEL: func.func @gelu_tanh
// ISA10: accel.host_reason = "the tanh gelu (v.gelut) needs ISA 1.2; target 'brainwave-like' implements ISA 1.0"
func.func @gelu_tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = accel.gelu %x {approximate = #accel.gelu_approx<tanh>} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// What stays on the host, with the reason: i64 operands (index arithmetic),
// broadcasts that are neither a row, a column nor a scalar.
// PLACE-LABEL: func.func @refused
// PLACE: accel.compare {{.*}}accel.host_reason = "accel.compare runs on the card on f32, f16, bf16, i32, i16, i8, u8 and bool tensors only (the vector units compute integers in i32)"
// PLACE: accel.where {{.*}}accel.host_reason = "only broadcasts of a row, a column or a scalar of the output (at one split of its dimensions) are lowered to the card"
func.func @refused(%a: tensor<4x8xi64>, %b: tensor<4x8xi64>, %c: tensor<2x1x8xi1>, %x: tensor<2x4x8xf32>, %y: tensor<2x4x8xf32>) -> (tensor<4x8xi1>, tensor<2x4x8xf32>) {
  %0 = accel.compare eq, %a, %b : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %1 = accel.where %c, %x, %y : (tensor<2x1x8xi1>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0, %1 : tensor<4x8xi1>, tensor<2x4x8xf32>
}
