// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' \
// RUN:   | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' \
// RUN:   | FileCheck %s --check-prefix=PLACE

// Elementwise kernels: row chunks of the output stream through two VRF
// slots (at 0x0 and 0x8000 on the default target); the MFUs work in place
// and the store queue writes each chunk back.

// A row-vector bias (as in the transformer): loaded once into a resident
// VRF row, then one v.add with bcast=row per chunk.
// CHECK-LABEL: func.func @add_row
// CHECK: npu.program @add_row_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x2000], f32 x = 128 y = 1 z = 1 sy = 512 dpitch = 512
// CHECK-NEXT: npu.dma.ld vrf[0x200], dram[0x0], f32 x = 128 y = 16 z = 1 sy = 512 dpitch = 512 push_next
// CHECK-NEXT: npu.v.add vrf[0x200], vrf[0x200], vrf[0x0], f32, f32, f32 rows = 16 cols = 128 dpitch = 512 apitch = 512 bpitch = 512 bcast = row pop_prev
// CHECK: npu.dma.st dram[0x2200], vrf[0x200], f32 x = 128 y = 16 z = 1 dy = 512 spitch = 512 pop_prev
// CHECK-NEXT: npu.halt
func.func @add_row(%a: tensor<1x16x128xf32>, %b: tensor<128xf32>) -> tensor<1x16x128xf32> {
  %0 = accel.add %a, %b : (tensor<1x16x128xf32>, tensor<128xf32>) -> tensor<1x16x128xf32>
  return %0 : tensor<1x16x128xf32>
}

// -----

// Same shapes, flattened to 1024-wide rows: two loads, one v.add.
// CHECK-LABEL: func.func @add_same
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1024 y = 2 z = 1 sy = 4096 dpitch = 4096
// CHECK-NEXT: npu.dma.ld vrf[0x2000], dram[0x2000], f32 x = 1024 y = 2 z = 1 sy = 4096 dpitch = 4096 push_next
// CHECK-NEXT: npu.v.add vrf[0x0], vrf[0x0], vrf[0x2000], f32, f32, f32 rows = 2 cols = 1024 dpitch = 4096 apitch = 4096 bpitch = 4096 pop_prev
// CHECK: npu.dma.st dram[0x4000], vrf[0x0], f32 x = 1024 y = 2 z = 1 dy = 4096 spitch = 4096 pop_prev
func.func @add_same(%a: tensor<4x16x32xf32>, %b: tensor<4x16x32xf32>) -> tensor<4x16x32xf32> {
  %0 = accel.add %a, %b : (tensor<4x16x32xf32>, tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %0 : tensor<4x16x32xf32>
}

// -----

// Division by a constant scalar (the attention scale): vs.mul by 1/c.
// CHECK-LABEL: func.func @div_const
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1024 y = 2 z = 1 sy = 4096 dpitch = 4096 push_next
// CHECK-NEXT: npu.vs.mul vrf[0x0], vrf[0x0], f32, f32 rows = 2 cols = 1024 dpitch = 4096 apitch = 4096 imm = 2.500000e-01 pop_prev
// CHECK: npu.dma.st
func.func @div_const(%a: tensor<4x16x32xf32>) -> tensor<4x16x32xf32> {
  %c = accel.constant dense<4.0> : tensor<f32>
  %0 = accel.div %a, %c : (tensor<4x16x32xf32>, tensor<f32>) -> tensor<4x16x32xf32>
  return %0 : tensor<4x16x32xf32>
}

// -----

// Division by a tensor: v.recip of the divisor chunk, then v.mul.
// CHECK-LABEL: func.func @div
// CHECK: npu.dma.ld vrf[0x0]
// CHECK-NEXT: npu.dma.ld vrf[0x400]{{.*}}push_next
// CHECK-NEXT: npu.v.recip vrf[0x400], vrf[0x400], f32, f32 rows = 1 cols = 256 dpitch = 1024 apitch = 1024 pop_prev
// CHECK-NEXT: npu.v.mul vrf[0x0], vrf[0x0], vrf[0x400], f32, f32, f32 rows = 1 cols = 256
func.func @div(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = accel.div %a, %b : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A broadcast lhs of sub swaps into b: b - a = -a + b, with a per-row
// (bcast=col) operand of one value per row.
// CHECK-LABEL: func.func @rsub_col
// CHECK: npu.dma.ld vrf[0x0], dram[0x40], f32 x = 32 y = 8 z = 1 sy = 128 dpitch = 128 push_next
// CHECK-NEXT: npu.dma.ld vrf[0x400], dram[0x0], f32 x = 8 y = 1 z = 1 sy = 32 dpitch = 32 push_next
// CHECK-NEXT: npu.v.neg vrf[0x0], vrf[0x0], f32, f32 rows = 8 cols = 32 dpitch = 128 apitch = 128 pop_prev
// CHECK-NEXT: npu.v.add vrf[0x0], vrf[0x0], vrf[0x400], f32, f32, f32 rows = 8 cols = 32 dpitch = 128 apitch = 128 bpitch = 4 bcast = col pop_prev
func.func @rsub_col(%a: tensor<8x32xf32>, %b: tensor<8x1xf32>) -> tensor<8x32xf32> {
  %0 = accel.sub %b, %a : (tensor<8x1xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Per-row operand with chunked rows (8 rows of 1000 per slot): the second
// chunk's 8 values start 32 bytes into a 64-byte DRAM granule, so they are
// loaded from the granule start (16 values) and read from 0x20 bytes on.
// CHECK-LABEL: func.func @sub_col_chunked
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1000 y = 8 z = 1 sy = 4000 dpitch = 4000
// CHECK-NEXT: npu.dma.ld vrf[0x7d00], dram[[[C:0x[0-9a-f]+]]], f32 x = 8 y = 1 z = 1 sy = 32 dpitch = 32 push_next
// CHECK-NEXT: npu.v.sub vrf[0x0], vrf[0x0], vrf[0x7d00], f32, f32, f32 rows = 8 cols = 1000 dpitch = 4000 apitch = 4000 bpitch = 4 bcast = col pop_prev
// CHECK: npu.dma.ld vrf[0x8000], dram[0x7d00], f32 x = 1000 y = 8 z = 1 sy = 4000 dpitch = 4000
// CHECK-NEXT: npu.dma.ld vrf[0xfd00], dram[[[C]]], f32 x = 16 y = 1 z = 1 sy = 64 dpitch = 64 push_next
// CHECK-NEXT: npu.v.sub vrf[0x8000], vrf[0x8000], vrf[0xfd20], f32, f32, f32 rows = 8 cols = 1000 dpitch = 4000 apitch = 4000 bpitch = 4 bcast = col pop_prev
func.func @sub_col_chunked(%a: tensor<100x1000xf32>, %c: tensor<100x1xf32>) -> tensor<100x1000xf32> {
  %0 = accel.sub %a, %c : (tensor<100x1000xf32>, tensor<100x1xf32>) -> tensor<100x1000xf32>
  return %0 : tensor<100x1000xf32>
}

// -----

// A scalar that is not a constant: bcast=scalar from a resident register.
// CHECK-LABEL: func.func @max_scalar
// CHECK: npu.dma.ld vrf[0x0], dram[{{.*}}], f32 x = 1 y = 1 z = 1
// CHECK: npu.v.max vrf[0x100], vrf[0x100], vrf[0x0], f32, f32, f32 rows = 1 cols = 256 dpitch = 1024 apitch = 1024 bpitch = 1024 bcast = scalar
func.func @max_scalar(%a: tensor<16x16xf32>, %s: tensor<f32>) -> tensor<16x16xf32> {
  %0 = accel.max %a, %s : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

// min of two same-shape operands and max with a row vector: both operands
// of a chunk in the VRF, one binary MFU op each (b broadcast per row for
// the max).
// CHECK-LABEL: func.func @min_max
// CHECK: npu.v.min vrf[0x0], vrf[0x0], vrf[0x400], f32, f32, f32 rows = 1 cols = 256
// CHECK: npu.dma.ld vrf[0x0], dram[0x800], f32 x = 64 y = 1 z = 1
// CHECK: npu.v.max vrf[0x100], vrf[0x100], vrf[0x0], f32, f32, f32 rows = 4 cols = 64 {{.*}}bcast = row
func.func @min_max(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>, %r: tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %0 = accel.min %a, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = accel.max %a, %r : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %0, %1 : tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// Unary ops over 128 KiB: four 32 KiB chunks alternating between the two
// VRF slots; the third load waits (via an ex relay) until the first
// chunk's store has drained slot 0.
// CHECK-LABEL: func.func @relu_big
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1024 y = 8 z = 1 sy = 4096 dpitch = 4096 push_next
// CHECK-NEXT: npu.v.relu vrf[0x0], vrf[0x0], f32, f32 rows = 8 cols = 1024 dpitch = 4096 apitch = 4096 pop_prev
// CHECK: npu.dma.st dram[0x20000], vrf[0x0], {{.*}} push_prev
// CHECK-NEXT: npu.dma.ld vrf[0x8000], dram[0x8000]
// CHECK: npu.dma.st dram[0x28000], vrf[0x8000]
// CHECK-NEXT: npu.sync ex pop_next push_prev
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x10000], {{.*}} pop_next push_next
// CHECK: npu.dma.ld vrf[0x8000], dram[0x18000]
// CHECK: npu.dma.st dram[0x38000], vrf[0x8000]
// CHECK-NEXT: npu.halt
func.func @relu_big(%a: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %0 = accel.relu %a : tensor<64x512xf32>
  return %0 : tensor<64x512xf32>
}

// -----

// clip is vs.max/vs.min with the bounds; sqrt is 1 / rsqrt(x) (exact at 0
// and inf); pow 2 is x * x.
// CHECK-LABEL: func.func @unary_mix
// (The 4 x 8 tensors are flattened to one 32-wide row; imm = 0 is not
// printed.)
// CHECK: npu.vs.max vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 32 dpitch = 128 apitch = 128 pop_prev
// CHECK-NEXT: npu.vs.min vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 32 dpitch = 128 apitch = 128 imm = 6.000000e+00
// CHECK: npu.v.rsqrt vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 32
// CHECK-NEXT: npu.v.recip vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 32
// CHECK: npu.v.mul vrf[0x0], vrf[0x0], vrf[0x0], f32, f32, f32 rows = 1 cols = 32
// CHECK: npu.v.gelu
// CHECK: npu.v.sigm
// CHECK: npu.v.tanh
// CHECK: npu.v.exp
// CHECK: npu.v.abs
// CHECK: npu.v.neg
func.func @unary_mix(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = accel.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<4x8xf32>
  %1 = accel.sqrt %0 : tensor<4x8xf32>
  %two = accel.constant dense<2.0> : tensor<f32>
  %2 = accel.pow %1, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = accel.gelu %2 : tensor<4x8xf32>
  %4 = accel.sigmoid %3 : tensor<4x8xf32>
  %5 = accel.tanh %4 : tensor<4x8xf32>
  %6 = accel.exp %5 : tensor<4x8xf32>
  %7 = accel.abs %6 : tensor<4x8xf32>
  %8 = accel.neg %7 : tensor<4x8xf32>
  return %8 : tensor<4x8xf32>
}

// -----

// What the kernels refuse stays on the host with the reason.
// PLACE-LABEL: func.func @refused
// PLACE: accel.add {{.*}}accel.host_reason = "the broadcast repeats its operand 5000 times (at most 4096 are lowered to the card)"
// PLACE: accel.add {{.*}}accel.host_reason = "accel.add runs on the card in f32, f16 or bf16 only"
// PLACE: accel.pow {{.*}}accel.host_reason = "pow runs on the card only with exponent 2 or 0.5 (the vector units have no log/exp-based power)"
// PLACE: accel.erf {{.*}}accel.host_reason = "erf is not in the NPU ISA"
// PLACE-NOT: accel.host_reason = "{{.*}}gelu
// A broadcast repeated per batch element (2 x [3 rows of 5, one value per
// row]) whose repetitions would start 60 bytes apart:
// PLACE: accel.sub {{.*}}accel.host_reason = "a repetition of the broadcast would start at a DRAM offset that is not a multiple of 64 bytes"
func.func @refused(%a: tensor<5000x1x16xf32>, %b: tensor<1x2x16xf32>, %h: tensor<4x8xi32>, %x: tensor<4x8xf32>, %y: tensor<2x3x5xf32>, %c: tensor<3x1xf32>) -> (tensor<5000x2x16xf32>, tensor<4x8xi32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x3x5xf32>) {
  %0 = accel.add %a, %b : (tensor<5000x1x16xf32>, tensor<1x2x16xf32>) -> tensor<5000x2x16xf32>
  %1 = accel.add %h, %h : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %c3 = accel.constant dense<3.0> : tensor<f32>
  %2 = accel.pow %x, %c3 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = accel.erf %x : tensor<4x8xf32>
  %4 = accel.gelu %x {approximate = #accel.gelu_approx<tanh>} : tensor<4x8xf32>
  %5 = accel.sub %y, %c : (tensor<2x3x5xf32>, tensor<3x1xf32>) -> tensor<2x3x5xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<5000x2x16xf32>, tensor<4x8xi32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x3x5xf32>
}

// -----

// f16: operands load and store as f16 and one-step ops round to f16 on
// write. Steps whose result feeds another rounding write an f32 work
// buffer instead: the divisor's reciprocal (v.recip f16 -> f32, then v.mul
// with bt = f32) and rsqrt before its reciprocal, so each result is
// rounded to f16 once. The per-row column b is read as f16 (bpitch 2).
// CHECK-LABEL: npu.program @elt_half
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f16 x = 384 y = 1 z = 1 sy = 768 dpitch = 768
// CHECK-NEXT: npu.dma.ld vrf[0x300], dram[0x300], f16 x = 384 y = 1 z = 1 sy = 768 dpitch = 768
// CHECK-NEXT: npu.v.recip vrf[0x600], vrf[0x300], f32, f16 rows = 1 cols = 384 dpitch = 1536 apitch = 768
// CHECK-NEXT: npu.v.mul vrf[0x0], vrf[0x0], vrf[0x600], f16, f16, f32 rows = 1 cols = 384 dpitch = 768 apitch = 768 bpitch = 1536
// CHECK: npu.dma.st dram[0x640], vrf[0x0], f16 x = 384 y = 1 z = 1 dy = 768 spitch = 768
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f16 x = 384 y = 1 z = 1 sy = 768 dpitch = 768
// CHECK-NEXT: npu.v.rsqrt vrf[0x300], vrf[0x0], f32, f16 rows = 1 cols = 384 dpitch = 1536 apitch = 768
// CHECK-NEXT: npu.v.recip vrf[0x0], vrf[0x300], f16, f32 rows = 1 cols = 384 dpitch = 768 apitch = 1536
// CHECK: npu.dma.st dram[0x940], vrf[0x0], f16 x = 384 y = 1 z = 1 dy = 768 spitch = 768
// CHECK: npu.dma.ld vrf[0x0], dram[0x0], f16 x = 96 y = 4 z = 1 sy = 192 dpitch = 192
// CHECK-NEXT: npu.dma.ld vrf[0x300], dram[0x600], f16 x = 4 y = 1 z = 1 sy = 8 dpitch = 8
// CHECK-NEXT: npu.v.sub vrf[0x0], vrf[0x0], vrf[0x300], f16, f16, f16 rows = 4 cols = 96 dpitch = 192 apitch = 192 bpitch = 2 bcast = col
// CHECK: npu.dma.st dram[0xc40], vrf[0x0], f16 x = 96 y = 4 z = 1 dy = 192 spitch = 192
func.func @elt_half(%a: tensor<4x96xf16>, %b: tensor<4x96xf16>, %c: tensor<4x1xf16>) -> (tensor<4x96xf16>, tensor<4x96xf16>, tensor<4x96xf16>) {
  %0 = accel.div %a, %b : (tensor<4x96xf16>, tensor<4x96xf16>) -> tensor<4x96xf16>
  %1 = accel.sqrt %a : tensor<4x96xf16>
  %2 = accel.sub %a, %c : (tensor<4x96xf16>, tensor<4x1xf16>) -> tensor<4x96xf16>
  return %0, %1, %2 : tensor<4x96xf16>, tensor<4x96xf16>, tensor<4x96xf16>
}

// -----

// bf16 gelu: one in-place v.gelu reading and writing bf16.
// CHECK-LABEL: npu.program @gelu_bf16
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], bf16 x = 384 y = 1 z = 1 sy = 768 dpitch = 768
// CHECK-NEXT: npu.v.gelu vrf[0x0], vrf[0x0], bf16, bf16 rows = 1 cols = 384 dpitch = 768 apitch = 768
// CHECK: npu.dma.st dram[0x300], vrf[0x0], bf16 x = 384 y = 1 z = 1 dy = 768 spitch = 768
func.func @gelu_bf16(%a: tensor<4x96xbf16>) -> tensor<4x96xbf16> {
  %0 = accel.gelu %a : tensor<4x96xbf16>
  return %0 : tensor<4x96xbf16>
}

// -----

// An add of quantized tensors (accel-quantize's residual adds) adds the real
// values: per chunk both operands loaded in their storage types, v.dqnt of
// one into an f32 buffer, v.dqnt of the other (zero point 10) chained into
// the add, v.rqnt to the result's type (1 / scale = 25, zero point -3).
// CHECK-LABEL: npu.program @quantized_add
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[{{0x[0-9a-f]+}}], i8 x = 192
// CHECK-NEXT: npu.dma.ld vrf[0xc0], dram[{{0x[0-9a-f]+}}], u8 x = 192
// CHECK-NEXT: npu.v.fill vrf[0x480], f32 rows = 1 cols = 1 imm = 2.000000e-02
// CHECK-NEXT: npu.v.fill vrf[0x484], f32 rows = 1 cols = 1 imm = 5.000000e-02
// CHECK-NEXT: npu.v.fill vrf[0x488], f32 rows = 1 cols = 1 imm = 2.500000e+01
// CHECK-NEXT: npu.v.dqnt acc[0x0], vrf[0x0], vrf[0x480], f32, i8 rows = 1 cols = 192
// CHECK-NEXT: npu.v.dqnt chain, vrf[0xc0], vrf[0x484], f32, u8 rows = 1 cols = 192 {{.*}}zp = 10 {{.*}}chain
// CHECK-NEXT: npu.v.add acc[0x0], chain, acc[0x0], f32, f32, f32 rows = 1 cols = 192
// CHECK-NEXT: npu.v.rqnt vrf[0x180], acc[0x0], vrf[0x488], i8, f32 rows = 1 cols = 192 {{.*}}zp = -3
// CHECK-NEXT: npu.dma.st dram[{{0x[0-9a-f]+}}], vrf[0x180], i8 x = 192
// CHECK-NEXT: npu.halt
func.func @quantized_add(%a: tensor<2x96x!quant.uniform<i8:f32, 0.02>>, %b: tensor<2x96x!quant.uniform<u8:f32, 0.05:10>>) -> tensor<2x96x!quant.uniform<i8:f32, 0.04:-3>> {
  %0 = accel.add %a, %b : (tensor<2x96x!quant.uniform<i8:f32, 0.02>>, tensor<2x96x!quant.uniform<u8:f32, 0.05:10>>) -> tensor<2x96x!quant.uniform<i8:f32, 0.04:-3>>
  return %0 : tensor<2x96x!quant.uniform<i8:f32, 0.04:-3>>
}

// -----

// General broadcasts (EltwiseBroadcast.h). Position embeddings [16, 64]
// added to [2, 16, 64]: 2 rows of 1024 plus one resident row vector.
// CHECK-LABEL: npu.program @broadcast_trailing_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x2000], f32 x = 1024 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x1000], dram[0x0], f32 x = 1024 y = 2
// CHECK-NEXT: npu.v.add vrf[0x1000], vrf[0x1000], vrf[0x0], f32, f32, f32 rows = 2 cols = 1024 {{.*}} bcast = row
func.func @broadcast_trailing(%x: tensor<2x16x64xf32>, %p: tensor<16x64xf32>) -> tensor<2x16x64xf32> {
  %0 = accel.add %x, %p : (tensor<2x16x64xf32>, tensor<16x64xf32>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

// A broadcast row of 40 x 512 = 20480 elements is wider than the vector
// units take (16-bit pitches): b is read as a block of 20 rows of 1024,
// streamed like a full operand and read again for the second batch element
// (its chunks of 4 rows from b's offsets 0x0, 0x4000, ..., 0x10000, then
// 0x0 again).
// CHECK-LABEL: npu.program @broadcast_block_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1024 y = 4
// CHECK-NEXT: npu.dma.ld vrf[0x4000], dram[0x28000], f32 x = 1024 y = 4
// CHECK-NEXT: npu.v.add vrf[0x0], vrf[0x0], vrf[0x4000], f32, f32, f32 rows = 4 cols = 1024
// CHECK-NOT: bcast
// CHECK: npu.dma.ld vrf[0x0], dram[0x10000], f32 x = 1024 y = 4
// CHECK-NEXT: npu.dma.ld vrf[0x4000], dram[0x38000], f32 x = 1024 y = 4
// CHECK: npu.dma.ld vrf[0x8000], dram[0x14000], f32 x = 1024 y = 4
// CHECK-NEXT: npu.dma.ld vrf[0xc000], dram[0x28000], f32 x = 1024 y = 4
func.func @broadcast_block(%x: tensor<2x40x512xf32>, %p: tensor<40x512xf32>) -> tensor<2x40x512xf32> {
  %0 = accel.add %x, %p : (tensor<2x40x512xf32>, tensor<40x512xf32>) -> tensor<2x40x512xf32>
  return %0 : tensor<2x40x512xf32>
}

// -----

// [3, 4, 5, 64] * [4, 1, 64]: loops over 3 (b unchanged) and 4 (b moving
// 64 elements) around 5 rows times a row vector; the row vector is loaded
// again for each of the 12 repetitions, from b's 4 rows in turn.
// CHECK-LABEL: npu.program @broadcast_loops_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x3c00], f32 x = 64 y = 1
// CHECK-NEXT: npu.dma.ld vrf[0x100], dram[0x0], f32 x = 64 y = 5
// CHECK-NEXT: npu.v.mul {{.*}} rows = 5 cols = 64 {{.*}} bcast = row
// CHECK: npu.dma.ld vrf[0x0], dram[0x3d00], f32 x = 64 y = 1
// CHECK: npu.dma.ld vrf[0x0], dram[0x3e00], f32 x = 64 y = 1
// CHECK: npu.dma.ld vrf[0x0], dram[0x3f00], f32 x = 64 y = 1
// CHECK: npu.dma.ld vrf[0x0], dram[0x3c00], f32 x = 64 y = 1
// CHECK-COUNT-8: npu.v.mul
// CHECK-NOT: npu.v.mul
// CHECK: npu.halt
func.func @broadcast_loops(%x: tensor<3x4x5x64xf32>, %m: tensor<4x1x64xf32>) -> tensor<3x4x5x64xf32> {
  %0 = accel.mul %x, %m : (tensor<3x4x5x64xf32>, tensor<4x1x64xf32>) -> tensor<3x4x5x64xf32>
  return %0 : tensor<3x4x5x64xf32>
}

// -----

// An outer product [4, 1] * [1, 64]: 4 rows of the second operand's row
// (loaded once per row: planes of one row, source stride sz = 0, not
// printed) times one
// value per row of the first (loaded as one row of 4 values).
// CHECK-LABEL: npu.program @broadcast_outer_p0_card0_core0
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x40], f32 x = 64 y = 1 z = 4 sy = 256 dpitch = 256{{$}}
// CHECK-NEXT: npu.dma.ld vrf[0x400], dram[0x0], f32 x = 4 y = 1
// CHECK-NEXT: npu.v.mul vrf[0x0], vrf[0x0], vrf[0x400], f32, f32, f32 rows = 4 cols = 64 {{.*}} bcast = col
func.func @broadcast_outer(%c: tensor<4x1xf32>, %r: tensor<1x64xf32>) -> tensor<4x64xf32> {
  %0 = accel.mul %c, %r : (tensor<4x1xf32>, tensor<1x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
