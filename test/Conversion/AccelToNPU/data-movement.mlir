// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=PLACE

// Data-movement kernels: every op is a set of strided box copies, cut into
// DMA-in / DMA-out pairs staged in two alternating 32 KiB VRF slots.

// reshape: a view of its operand (accel.in_place), no instructions; the
// result is bound at the input's address.
// CHECK-LABEL: func.func @reshape
// CHECK: output_addresses = array<i64: 0>
// CHECK: npu.dram_tensor at 0 : tensor<16x128xf32>
// CHECK: npu.program @reshape_p0_card0_core0
// CHECK-NEXT: npu.halt
func.func @reshape(%a: tensor<16x4x32xf32>) -> tensor<16x128xf32> {
  %0 = accel.reshape %a : tensor<16x4x32xf32> -> tensor<16x128xf32>
  return %0 : tensor<16x128xf32>
}

// -----

// Transposes of the attention heads. Swapping the two outer dimensions keeps
// rows contiguous: one 3-D box (y and z strides swapped). Moving the
// innermost dimension uses the x=1 element gather: 128 planes of 16
// elements 512 bytes apart become 128 dense rows.
// CHECK-LABEL: func.func @transpose
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 32 y = 16 z = 4 sy = 512 sz = 128 dpitch = 128 push_next
// CHECK: npu.dma.st dram[0x2000], vrf[0x0], f32 x = 32 y = 16 z = 4 dy = 128 dz = 2048 spitch = 128 pop_prev
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1 y = 16 z = 128 sy = 512 sz = 4 dpitch = 4
// CHECK: npu.dma.st dram[0x4000], vrf[0x0], f32 x = 16 y = 128 z = 1 dy = 64 spitch = 64 pop_prev
func.func @transpose(%a: tensor<16x4x32xf32>) -> (tensor<4x16x32xf32>, tensor<4x32x16xf32>) {
  %0 = accel.transpose %a {permutation = array<i64: 1, 0, 2>} : tensor<16x4x32xf32> -> tensor<4x16x32xf32>
  %1 = accel.transpose %a {permutation = array<i64: 1, 2, 0>} : tensor<16x4x32xf32> -> tensor<4x32x16xf32>
  return %0, %1 : tensor<4x16x32xf32>, tensor<4x32x16xf32>
}

// -----

// Slice of the fused QKV projection: rows of 128 with a 384-element pitch.
// CHECK-LABEL: func.func @slice
// CHECK: npu.dma.ld vrf[0x0], dram[0x200], f32 x = 128 y = 16 z = 1 sy = 1536 dpitch = 512 push_next
// CHECK: npu.dma.st dram[0x6000], vrf[0x0], f32 x = 128 y = 16 z = 1 dy = 512 spitch = 512 pop_prev
func.func @slice(%a: tensor<16x1x384xf32>) -> tensor<16x1x128xf32> {
  %0 = accel.slice %a {starts = array<i64: 0, 0, 128>, ends = array<i64: 16, 1, 256>, steps = array<i64: 1, 1, 1>} : tensor<16x1x384xf32> -> tensor<16x1x128xf32>
  return %0 : tensor<16x1x128xf32>
}

// -----

// A step of 4 along the rows merges with the row dimension into one
// 128-element gather with a 16-byte stride.
// CHECK-LABEL: func.func @slice_step
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1 y = 128 z = 1 sy = 16 dpitch = 4 push_next
// CHECK: npu.dma.st dram[0x800], vrf[0x0], f32 x = 128 y = 1 z = 1 spitch = 512 pop_prev
func.func @slice_step(%a: tensor<8x64xf32>) -> tensor<8x16xf32> {
  %0 = accel.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 8, 64>, steps = array<i64: 1, 4>} : tensor<8x64xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// concat: one box per input, stored with the output's row pitch (192 B).
// CHECK-LABEL: func.func @concat
// Small leaves go through eight VRF slots, their stores behind the loads
// (software pipelining: several loads in flight).
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 2 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld vrf[0x2000], dram[0x80], f32 x = 32 y = 2 z = 1 sy = 128 dpitch = 128
// CHECK: npu.dma.st dram[0x180], vrf[0x0], f32 x = 16 y = 2 z = 1 dy = 192 spitch = 64
// CHECK: npu.dma.st dram[0x1c0], vrf[0x2000], f32 x = 32 y = 2 z = 1 dy = 192 spitch = 128
func.func @concat(%a: tensor<2x16xf32>, %b: tensor<2x32xf32>) -> tensor<2x48xf32> {
  %0 = accel.concat %a, %b {axis = 1 : i64} : (tensor<2x16xf32>, tensor<2x32xf32>) -> tensor<2x48xf32>
  return %0 : tensor<2x48xf32>
}

// -----

// Zero padding of the last two dimensions by <= 7: the DMA engine inserts
// the zeros while loading, and the padded planes are stored in one go.
// CHECK-LABEL: func.func @pad
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 8 y = 8 z = 3 sy = 32 sz = 256 dpitch = 44 pt = 1 pb = 1 pl = 2 pr = 1 push_next
// CHECK: npu.dma.st dram[0x300], vrf[0x0], f32 x = 11 y = 30 z = 1 dy = 44 spitch = 44 pop_prev
func.func @pad(%a: tensor<3x8x8xf32>) -> tensor<3x10x11xf32> {
  %0 = accel.pad %a {pads = array<i64: 0, 1, 2, 0, 1, 1>} : tensor<3x8x8xf32> -> tensor<3x10x11xf32>
  return %0 : tensor<3x10x11xf32>
}

// -----

// Other constant pads: v.fill a row with the value, store it over the
// output, then copy the interior.
// CHECK-LABEL: func.func @pad_fill
// CHECK: npu.v.fill vrf[0x0], f32 rows = 1 cols = 64 dpitch = 256 imm = 1.500000e+00 push_next
// CHECK-NEXT: npu.dma.st dram[0x80], vrf[0x0], f32 x = 64 y = 1 z = 1 spitch = 256 pop_prev
// CHECK-NEXT: npu.dma.ld vrf[0x2000], dram[0x0], f32 x = 32 y = 1 z = 1 dpitch = 128 push_next
// CHECK: npu.dma.st dram[0xc0], vrf[0x2000], f32 x = 32 y = 1 z = 1 spitch = 128 pop_prev
func.func @pad_fill(%a: tensor<2x16xf32>) -> tensor<4x16xf32> {
  %0 = accel.pad %a {pads = array<i64: 1, 0, 1, 0>, value = 1.5 : f32} : tensor<2x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// expand of a row: the same row read 8 times (plane stride 0).
// CHECK-LABEL: func.func @expand
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 32 y = 1 z = 8 dpitch = 128 push_next
// CHECK: npu.dma.st dram[0x80], vrf[0x0], f32 x = 32 y = 1 z = 8 dz = 128 spitch = 128 pop_prev
func.func @expand(%a: tensor<1x32xf32>) -> tensor<8x32xf32> {
  %0 = accel.expand %a : tensor<1x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A source offset that is not 64-byte aligned (column 1): the load starts at
// the aligned address below with one extra element per row, and the store
// reads from 4 bytes into each staged row.
// CHECK-LABEL: func.func @slice_shift
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 8 y = 1 z = 4 sz = 32 dpitch = 32 push_next
// CHECK: npu.dma.st dram[0x80], vrf[0x4], f32 x = 7 y = 1 z = 4 dz = 28 spitch = 32 pop_prev
func.func @slice_shift(%a: tensor<4x8xf32>) -> tensor<4x7xf32> {
  %0 = accel.slice %a {starts = array<i64: 0, 1>, ends = array<i64: 4, 8>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// Reversing all three dimensions: one leaf per source column; the gathers
// from unaligned columns load 1 + delta elements per gathered element and
// the store picks the last one (x = 1).
// CHECK-LABEL: func.func @transpose_shift
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1 y = 2 z = 16 sy = 2048 sz = 128 dpitch = 4 push_next
// CHECK-NEXT: npu.dma.ld vrf[0x2000], dram[0x0], f32 x = 2 y = 2 z = 16 sy = 2048 sz = 128 dpitch = 8 push_next
// CHECK: npu.dma.st dram[0x1000], vrf[0x0], f32 x = 2 y = 16 z = 1 dy = 8 spitch = 8 pop_prev
// CHECK: npu.dma.st dram[0x1080], vrf[0x2004], f32 x = 1 y = 2 z = 16 dy = 4 dz = 8 spitch = 8 pop_prev
// CHECK-COUNT-30: npu.dma.st
// CHECK-NEXT: npu.halt
func.func @transpose_shift(%a: tensor<2x16x32xf32>) -> tensor<32x16x2xf32> {
  %0 = accel.transpose %a {permutation = array<i64: 2, 1, 0>} : tensor<2x16x32xf32> -> tensor<32x16x2xf32>
  return %0 : tensor<32x16x2xf32>
}

// -----

// What the kernels refuse stays on the host with the reason.
// PLACE-LABEL: func.func @refused
// An f16 concat whose second part starts 6 bytes into each row: neither a
// box copy nor the VRF staging (4-byte VRF alignment) can place it.
// PLACE: accel.concat {{.*}}accel.host_reason = "a transfer would start at a DRAM offset that is not a multiple of 64 bytes; a concat part would be staged at a VRF offset that is not a multiple of 4 bytes"
// PLACE: accel.slice {{.*}}accel.host_reason = "slices with negative steps are not lowered to the card"
// PLACE: accel.expand {{.*}}accel.host_reason = "broadcasting along the innermost dimension is not lowered to the card"
// PLACE: accel.pad {{.*}}accel.host_reason = "only constant-mode pad is lowered to the card"
// PLACE: accel.reshape {{.*}}accel.host_reason = "accel.reshape moves card floats (f32, f16, bf16) and 8-, 16- or 32-bit integer or quantized elements only"
func.func @refused(%a: tensor<4x1xf32>, %x: tensor<4x8xf32>, %i: tensor<4x8xi64>, %c: tensor<4x3xf16>, %h: tensor<4x8xf16>) -> (tensor<4x11xf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x10xf32>, tensor<32xi64>) {
  %0 = accel.concat %c, %h {axis = 1 : i64} : (tensor<4x3xf16>, tensor<4x8xf16>) -> tensor<4x11xf16>
  %1 = accel.slice %x {starts = array<i64: 0, 7>, ends = array<i64: 4, -1>, steps = array<i64: 1, -1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = accel.expand %a : tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = accel.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = #accel.pad_mode<reflect>} : tensor<4x8xf32> -> tensor<4x10xf32>
  %4 = accel.reshape %i : tensor<4x8xi64> -> tensor<32xi64>
  return %0, %1, %2, %3, %4 : tensor<4x11xf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x10xf32>, tensor<32xi64>
}

// -----

// A concat whose parts' rows would be stored at unaligned DRAM offsets
// (wide&deep's dense features next to its embeddings: the second part
// starts 12 bytes into each 44-byte row) is assembled in the VRF: each
// part's rows are loaded at its column offset of the staged rows (dpitch =
// the output row), then the chunk is stored at once. Rows per chunk keep
// every chunk start aligned in the output and in both parts (a multiple of
// 16 rows: 736 of the 744 that fit half the VRF), and the chunks alternate
// between the two VRF halves.
// CHECK-LABEL: func.func @concat_staged
// CHECK: npu.program
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 3 y = 736 z = 1 sy = 12 dpitch = 44
// CHECK-NEXT: npu.dma.ld vrf[0xc], dram[0x6000], f32 x = 8 y = 736 z = 1 sy = 32 dpitch = 44
// CHECK: npu.dma.st dram[0x16000], vrf[0x0], f32 x = 11 y = 736 z = 1 dy = 44 spitch = 44
// CHECK-NEXT: npu.dma.ld vrf[0x8000], dram[0x2280], f32 x = 3 y = 736
// CHECK-NEXT: npu.dma.ld vrf[0x800c], dram[0xbc00], f32 x = 8 y = 736
// CHECK: npu.dma.st dram[0x1de80], vrf[0x8000], f32 x = 11 y = 736
// CHECK: npu.dma.ld vrf[0x0], dram[0x4500], f32 x = 3 y = 576
// CHECK: npu.dma.ld vrf[0xc], dram[0x11800], f32 x = 8 y = 576
// CHECK: npu.dma.st dram[0x25d00], vrf[0x0], f32 x = 11 y = 576
// CHECK-NEXT: npu.halt
func.func @concat_staged(%c: tensor<2048x3xf32>, %x: tensor<2048x8xf32>) -> tensor<2048x11xf32> {
  %0 = accel.concat %c, %x {axis = 1 : i64} : (tensor<2048x3xf32>, tensor<2048x8xf32>) -> tensor<2048x11xf32>
  return %0 : tensor<2048x11xf32>
}

// -----

// The images of a batch (accel-unbatch-convs' concat) are one output row
// of 2 x 4335 f32, wider than a VRF slot, and the second image starts
// 17,340 bytes in: staged flat in aligned chunks of 8176 elements behind a
// 64-byte guard (slot + 0x40). Chunk 0 takes all of the first image and
// the start of the second; chunk 1 continues the second image from its
// element 3841, loaded from the aligned element 3840 below (0x7fc0) into
// the guard's last 4 bytes (0x803c), and stores from the chunk start.
// CHECK-LABEL: func.func @concat_flat
// CHECK: npu.program
// CHECK-NEXT: npu.dma.ld vrf[0x40], dram[0x0], f32 x = 4335 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x43fc], dram[0x43c0], f32 x = 3841 y = 1
// CHECK: npu.dma.st dram[0x8780], vrf[0x40], f32 x = 8176 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x803c], dram[0x7fc0], f32 x = 495 y = 1
// CHECK: npu.dma.st dram[0x10740], vrf[0x8040], f32 x = 494 y = 1
// CHECK-NEXT: npu.halt
func.func @concat_flat(%a: tensor<1x15x17x17xf32>, %b: tensor<1x15x17x17xf32>) -> tensor<2x15x17x17xf32> {
  %0 = accel.concat %a, %b {axis = 0 : i64} : (tensor<1x15x17x17xf32>, tensor<1x15x17x17xf32>) -> tensor<2x15x17x17xf32>
  return %0 : tensor<2x15x17x17xf32>
}

// -----

// Regression: a negative concat axis counts from the end (it used to index
// the stride table out of range and produce a wild DRAM address).
// CHECK-LABEL: func.func @concat_negative_axis
// CHECK: npu.program
// CHECK-NOT: accel.host_reason
func.func @concat_negative_axis(%a: tensor<2x16xf32>, %b: tensor<2x16xf32>) -> tensor<2x32xf32> {
  %0 = accel.concat %a, %b {axis = -1 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

// f16 transpose with odd rows (31 elements, 62 bytes): the gathers of
// columns 1, 3, ... start 2 bytes past an aligned address, so their shifted
// loads get one element of left padding (pl = 1) and the store reads from
// a 4-byte aligned VRF address (vrf 0x8004 = slot 1 + (1 + 1) * 2).
// CHECK-LABEL: npu.program @transpose_half
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f16 x = 1 y = 2 z = 16 sy = 992 sz = 62 dpitch = 2
// CHECK-NEXT: npu.dma.ld vrf[0x2000], dram[0x0], f16 x = 2 y = 2 z = 16 sy = 992 sz = 62 dpitch = 6 pl = 1
// CHECK-NEXT: npu.dma.ld vrf[0x4000], dram[0x0], f16 x = 3 y = 2 z = 16 sy = 992 sz = 62 dpitch = 6
// CHECK: npu.dma.st dram[0x7c0], vrf[0x0], f16 x = 2 y = 16 z = 1 dy = 4 spitch = 4
// CHECK: npu.dma.st dram[0x800], vrf[0x2004], f16 x = 1 y = 2 z = 16 dy = 2 dz = 4 spitch = 6
// CHECK: npu.dma.st dram[0x840], vrf[0x4004], f16 x = 1 y = 2 z = 16 dy = 2 dz = 4 spitch = 6
func.func @transpose_half(%a: tensor<2x16x31xf16>) -> tensor<31x16x2xf16> {
  %0 = accel.transpose %a {permutation = array<i64: 2, 1, 0>} : tensor<2x16x31xf16> -> tensor<31x16x2xf16>
  return %0 : tensor<31x16x2xf16>
}

// -----

// Quantized tensors move as their stored integers: a concat of two int8
// parts of one quantized type (the re-join of a conv split by output
// channels) and a transpose copy i8 elements. (Placed on the card by the
// user: alone, they would not be worth a card round trip.)
// CHECK-LABEL: func.func @quantized_moves
// CHECK: npu.program
// CHECK: npu.dma.ld vrf[{{.*}}], dram[{{.*}}], i8
// CHECK: npu.dma.st dram[{{.*}}], vrf[{{.*}}], i8
// PLACE-LABEL: func.func @quantized_moves
// PLACE: accel.concat {{.*}}#accel.placement<card = 0>
// PLACE-NOT: host_reason
// PLACE: accel.transpose {{.*}}#accel.placement<card = 0>
// PLACE-NOT: host_reason
func.func @quantized_moves(%a: tensor<1x8x8x8x!quant.uniform<i8:f32, 0.5>>, %b: tensor<1x8x8x8x!quant.uniform<i8:f32, 0.5>>) -> (tensor<1x16x8x8x!quant.uniform<i8:f32, 0.5>>, tensor<1x8x8x8x!quant.uniform<i8:f32, 0.5>>) {
  %0 = accel.concat %a, %b {axis = 1 : i64, accel.placement = #accel.placement<card = 0>} : (tensor<1x8x8x8x!quant.uniform<i8:f32, 0.5>>, tensor<1x8x8x8x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x16x8x8x!quant.uniform<i8:f32, 0.5>>
  %1 = accel.transpose %a {permutation = array<i64: 0, 2, 3, 1>, accel.placement = #accel.placement<card = 0>} : tensor<1x8x8x8x!quant.uniform<i8:f32, 0.5>> -> tensor<1x8x8x8x!quant.uniform<i8:f32, 0.5>>
  return %0, %1 : tensor<1x16x8x8x!quant.uniform<i8:f32, 0.5>>, tensor<1x8x8x8x!quant.uniform<i8:f32, 0.5>>
}

// -----

// Parts quantized differently cannot share a tensor, and a pad value is a
// real number: both stay on the host, saying why.
// PLACE-LABEL: func.func @quantized_host
// PLACE: accel.concat {{.*}}accel.host_reason = "accel.concat with mixed element types is not lowered to the card"
// PLACE: accel.pad {{.*}}accel.host_reason = "pad of integer or quantized tensors is not lowered to the card"
func.func @quantized_host(%a: tensor<1x64x!quant.uniform<i8:f32, 0.5>>, %b: tensor<1x64x!quant.uniform<i8:f32, 0.25>>) -> (tensor<2x64x!quant.uniform<i8:f32, 0.5>>, tensor<1x72x!quant.uniform<i8:f32, 0.5>>) {
  %0 = accel.concat %a, %b {axis = 0 : i64} : (tensor<1x64x!quant.uniform<i8:f32, 0.5>>, tensor<1x64x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x64x!quant.uniform<i8:f32, 0.5>>
  %1 = accel.pad %a {pads = array<i64: 0, 4, 0, 4>, value = 0.0 : f32} : tensor<1x64x!quant.uniform<i8:f32, 0.5>> -> tensor<1x72x!quant.uniform<i8:f32, 0.5>>
  return %0, %1 : tensor<2x64x!quant.uniform<i8:f32, 0.5>>, tensor<1x72x!quant.uniform<i8:f32, 0.5>>
}
