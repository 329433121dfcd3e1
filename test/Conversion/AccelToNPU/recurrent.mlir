// RUN: nnaccel-opt %s --pass-pipeline='builtin.module(func.func(accel-assign-placement,accel-outline-partitions),accel-lower-to-npu)' | FileCheck %s

// accel.lstm: X . W^T for all steps of the chunk first (W tiles through an
// MRF slot), R resident in the MRF, then per step: mm of h_{t-1} (in ACC)
// accumulating onto the step's gates, both biases (bcast=row), sigmoid on
// the contiguous i/o/f blocks, tanh on c~, the cell update and Y[t] stored
// while the next step computes (h alternates between two ACC slots).
// When a step's slice of Y is not DRAM-aligned, Y, Y_h and Y_c are
// assembled in ACC and stored once.

// The backward direction's bias slice (120 floats) would start at an
// unaligned DRAM address: the only layer here left on the host.
// CHECK: accel.gru {{.*}}accel.host_reason = "the backward direction's W, R, B or P slice, or a chunk of X, of this gru would start at an unaligned DRAM address (the slices' bytes must be multiples of 64)"
// CHECK-NOT: accel.host_reason

func.func @lstm_fwd(%x: tensor<3x1x16xf32>, %w: tensor<1x64x16xf32>, %r: tensor<1x64x16xf32>, %b: tensor<1x128xf32>) -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>) {
  %y, %h, %c = accel.lstm %x, %w, %r, %b {hidden_size = 16 : i64} : (tensor<3x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>) -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
  return %y, %h, %c : tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>
}
func.func @lstm_peephole(%x: tensor<3x1x16xf32>, %w: tensor<1x64x16xf32>, %r: tensor<1x64x16xf32>, %b: tensor<1x128xf32>, %p: tensor<1x48xf32>) -> tensor<3x1x1x16xf32> {
  %y, %h, %c = accel.lstm %x, %w, %r, %b peepholes %p {hidden_size = 16 : i64} : (tensor<3x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>, tensor<1x48xf32>) -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
  return %y : tensor<3x1x1x16xf32>
}
func.func @lstm_unaligned(%x: tensor<3x1x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>) -> tensor<3x1x1x3xf32> {
  %y, %h, %c = accel.lstm %x, %w, %r {hidden_size = 3 : i64} : (tensor<3x1x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>) -> (tensor<3x1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>)
  return %y : tensor<3x1x1x3xf32>
}

// CHECK-LABEL: npu.program @lstm_fwd_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x300], dram[0x20c0], f32 x = 64 y = 2 z = 1 sy = 256 dpitch = 256
// CHECK-NEXT: npu.v.fill acc[0x540], f32 rows = 1 cols = 16 dpitch = 64
// CHECK-NEXT: npu.v.fill acc[0x500], f32 rows = 1 cols = 16 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x10c0], f32 x = 16 y = 64 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 3 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0xc0], f32 x = 16 y = 64 z = 1 sy = 64 dpitch = 64 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x4000], f32, f32, f32 m = 3 k = 16 n = 64 dpitch = 256 apitch = 64 pop_prev
// Step 0.
// CHECK-NEXT: npu.mm acc[0x0], acc[0x540], mrf[0x0], f32, f32, f32 m = 1 k = 16 n = 64 dpitch = 256 apitch = 64 acc = 1
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], acc[0x300], f32, f32, f32 rows = 1 cols = 64 dpitch = 256 apitch = 256 bpitch = 256 bcast = row
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], acc[0x400], f32, f32, f32 rows = 1 cols = 64 dpitch = 256 apitch = 256 bpitch = 256 bcast = row
// CHECK-NEXT: npu.v.sigm acc[0x0], acc[0x0], f32, f32 rows = 1 cols = 48 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.tanh acc[0xc0], acc[0xc0], f32, f32 rows = 1 cols = 16 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.mul acc[0x5c0], acc[0x80], acc[0x500], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 256 bpitch = 64
// CHECK-NEXT: npu.v.mul acc[0x600], acc[0x0], acc[0xc0], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 256 bpitch = 256
// CHECK-NEXT: npu.v.add acc[0x500], acc[0x5c0], acc[0x600], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 bpitch = 64
// CHECK-NEXT: npu.v.tanh acc[0x5c0], acc[0x500], f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64
// CHECK-NEXT: npu.v.mul acc[0x580], acc[0x40], acc[0x5c0], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 256 bpitch = 64 push_next
// CHECK-NEXT: npu.dma.st dram[0x22c0], acc[0x580], f32 x = 16 y = 1 z = 1 dy = 64 spitch = 64 pop_prev push_prev
// Step 1 reads h from the other slot.
// CHECK-NEXT: npu.mm acc[0x100], acc[0x580], mrf[0x0], f32, f32, f32 m = 1 k = 16 n = 64 dpitch = 256 apitch = 64 acc = 1
// CHECK: npu.dma.st dram[0x2300], acc[0x540], f32 x = 16 y = 1 z = 1 dy = 64 spitch = 64 pop_prev
// CHECK: npu.dma.st dram[0x2340], acc[0x580]
// Y_h and Y_c.
// CHECK-NEXT: npu.dma.st dram[0x2380], acc[0x580], f32 x = 16 y = 1 z = 1 dy = 64 spitch = 64
// CHECK-NEXT: npu.dma.st dram[0x23c0], acc[0x500], f32 x = 16 y = 1 z = 1 dy = 64 spitch = 64
// CHECK-NEXT: npu.halt

// Peepholes (P row i, o, f at acc[0x640]): P_i*c and P_f*c are added to
// the i and f gates before their sigmoids, P_o*c' to o after the cell update.
// CHECK-LABEL: npu.program @lstm_peephole_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x300], dram[0x20c0], f32 x = 64 y = 2 z = 1 sy = 256 dpitch = 256
// CHECK-NEXT: npu.dma.ld acc[0x640], dram[0x22c0], f32 x = 48 y = 1 z = 1 sy = 192 dpitch = 192
// CHECK: npu.v.add acc[0x0], acc[0x0], acc[0x400], f32, f32, f32 rows = 1 cols = 64 dpitch = 256 apitch = 256 bpitch = 256 bcast = row
// CHECK-NEXT: npu.v.mul acc[0x5c0], acc[0x500], acc[0x640], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], acc[0x5c0], f32, f32, f32 rows = 1 cols = 16 dpitch = 256 apitch = 256 bpitch = 64
// CHECK-NEXT: npu.v.mul acc[0x5c0], acc[0x500], acc[0x6c0], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.add acc[0x80], acc[0x80], acc[0x5c0], f32, f32, f32 rows = 1 cols = 16 dpitch = 256 apitch = 256 bpitch = 64
// CHECK-NEXT: npu.v.sigm acc[0x0], acc[0x0], f32, f32 rows = 1 cols = 16 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.sigm acc[0x80], acc[0x80], f32, f32 rows = 1 cols = 16 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.tanh acc[0xc0], acc[0xc0], f32, f32 rows = 1 cols = 16 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.mul acc[0x5c0], acc[0x80], acc[0x500]
// CHECK-NEXT: npu.v.mul acc[0x600], acc[0x0], acc[0xc0]
// CHECK-NEXT: npu.v.add acc[0x500], acc[0x5c0], acc[0x600]
// CHECK-NEXT: npu.v.mul acc[0x5c0], acc[0x500], acc[0x680], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.add acc[0x40], acc[0x40], acc[0x5c0], f32, f32, f32 rows = 1 cols = 16 dpitch = 256 apitch = 256 bpitch = 64
// CHECK-NEXT: npu.v.sigm acc[0x40], acc[0x40], f32, f32 rows = 1 cols = 16 dpitch = 256 apitch = 256
// CHECK-NEXT: npu.v.tanh acc[0x5c0], acc[0x500]
// CHECK-NEXT: npu.v.mul acc[0x580], acc[0x40], acc[0x5c0]

// A step's Y slice is 12 bytes: h_t is written straight into its Y row in
// ACC (acc[0x280] + 12 t), the next step's mm reads it from there, and Y,
// Y_h and Y_c leave with one DMA each at the end.
// CHECK-LABEL: npu.program @lstm_unaligned_p0_card0_core0
// CHECK-NEXT: npu.v.fill acc[0x2c0], f32 rows = 1 cols = 3 dpitch = 12
// CHECK-NEXT: npu.v.fill acc[0x140], f32 rows = 1 cols = 3 dpitch = 12
// CHECK: npu.mm acc[0x0], acc[0x2c0], mrf[0x0], f32, f32, f32 m = 1 k = 3 n = 12 dpitch = 48 apitch = 12 acc = 1
// CHECK: npu.v.mul acc[0x280], acc[0xc], acc[0x200]
// CHECK-NEXT: npu.mm acc[0x30], acc[0x280], mrf[0x0], f32, f32, f32 m = 1 k = 3 n = 12 dpitch = 48 apitch = 12 acc = 1
// CHECK-NOT: npu.dma.st
// CHECK: npu.v.mul acc[0x28c], acc[0x3c], acc[0x200]
// CHECK-NEXT: npu.mm acc[0x60], acc[0x28c], mrf[0x0]
// CHECK-NOT: npu.dma.st
// CHECK: npu.v.mul acc[0x298], acc[0x6c], acc[0x200]
// CHECK-NEXT: npu.v.mov acc[0x2c0], acc[0x298], f32, f32 rows = 1 cols = 3 dpitch = 12 apitch = 12
// CHECK-NEXT: npu.v.mov acc[0x300], acc[0x140], f32, f32 rows = 1 cols = 3 dpitch = 12 apitch = 12
// CHECK-NEXT: npu.dma.st dram[0x1c0], acc[0x280], f32 x = 3 y = 1 z = 3 dy = 12 dz = 12 spitch = 12
// CHECK-NEXT: npu.dma.st dram[0x200], acc[0x2c0], f32 x = 3 y = 1 z = 1 dy = 12 dz = 12 spitch = 12
// CHECK-NEXT: npu.dma.st dram[0x240], acc[0x300], f32 x = 3 y = 1 z = 1 dy = 12 dz = 12 spitch = 12
// CHECK-NEXT: npu.halt

// The first layer of examples/models/lstm_small (S = 20, I = 64, H = 256):
// X . W^T for all 20 steps first (W streamed through two MRF slots), then R
// (64 tiles = the whole 1 MiB MRF) is loaded once. The recurrent mm's read
// R as a whole, so one token orders them after the last R load (one token
// per tile would deadlock: FIFO depth 8, ld queue depth 32).
func.func @lstm_small_layer1(%x: tensor<20x1x64xf32>, %w: tensor<1x1024x64xf32>, %r: tensor<1x1024x256xf32>, %b: tensor<1x2048xf32>) -> (tensor<20x1x1x256xf32>, tensor<1x1x256xf32>, tensor<1x1x256xf32>) {
  %y, %h, %c = accel.lstm %x, %w, %r, %b {hidden_size = 256 : i64} : (tensor<20x1x64xf32>, tensor<1x1024x64xf32>, tensor<1x1024x256xf32>, tensor<1x2048xf32>) -> (tensor<20x1x1x256xf32>, tensor<1x1x256xf32>, tensor<1x1x256xf32>)
  return %y, %h, %c : tensor<20x1x1x256xf32>, tensor<1x1x256xf32>, tensor<1x1x256xf32>
}
// CHECK-LABEL: npu.program @lstm_small_layer1_p0_card0_core0
// CHECK: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 20 k = 64 n = 64 dpitch = 4096 apitch = 256 pop_prev push_prev
// CHECK: npu.mm acc[0xf00], vrf[0x0], mrf[0x4000], f32, f32, f32 m = 20 k = 64 n = 64 dpitch = 4096 apitch = 256 pop_prev push_prev
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[{{.*}}], f32 x = 64 y = 64 z = 1 sy = 1024 dpitch = 256 pop_next
// CHECK: npu.dma.ld mrf[0xfc000], dram[{{.*}}], f32 x = 64 y = 64 z = 1 sy = 1024 dpitch = 256 push_next
// CHECK-NEXT: npu.mm acc[0x0], acc[0x16400], mrf[0x0], f32, f32, f32 m = 1 k = 64 n = 64 dpitch = 4096 apitch = 1024 acc = 1 pop_prev
// CHECK-NEXT: npu.mm acc[0x0], acc[0x16500], mrf[0x4000], f32, f32, f32 m = 1 k = 64 n = 64 dpitch = 4096 apitch = 1024 acc = 1
// CHECK-NOT: npu.dma.ld mrf
// CHECK: npu.halt

// accel.gru (gate order z, r, h), linear_before_reset = 0: the input and
// recurrence biases are loaded as two rows, initial_h into h slot 0, R as
// two tile groups (z/r rows, then h rows) pinned in the MRF once, X . W^T
// for all steps. Per step: h . R_zr^T accumulates onto the z/r gates, both
// biases, sigmoid; r * h feeds the R_h mm (acc onto the h gate), Rb_h, Wb_h,
// tanh; h' = (1 - z) * n + z * h into the other h slot, stored as Y[t]
// while the next step computes.
func.func @gru_fwd(%x: tensor<3x1x16xf32>, %w: tensor<1x48x16xf32>, %r: tensor<1x48x16xf32>, %b: tensor<1x96xf32>, %h0: tensor<1x1x16xf32>) -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>) {
  %y, %h = accel.gru %x, %w, %r, %b initial_h %h0 {hidden_size = 16 : i64} : (tensor<3x1x16xf32>, tensor<1x48x16xf32>, tensor<1x48x16xf32>, tensor<1x96xf32>, tensor<1x1x16xf32>) -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>)
  return %y, %h : tensor<3x1x1x16xf32>, tensor<1x1x16xf32>
}
// CHECK-LABEL: npu.program @gru_fwd_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x240], dram[0x18c0], f32 x = 48 y = 2 z = 1 sy = 192 dpitch = 192
// CHECK-NEXT: npu.dma.ld acc[0x3c0], dram[0x1a40], f32 x = 16 y = 1 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0xcc0], f32 x = 16 y = 32 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x14c0], f32 x = 16 y = 16 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 3 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x8000], dram[0xc0], f32 x = 16 y = 48 z = 1 sy = 64 dpitch = 64 push_next
// CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x8000], f32, f32, f32 m = 3 k = 16 n = 48 dpitch = 192 apitch = 64 pop_prev
// Step 0: h_{-1} in slot acc[0x3c0].
// CHECK-NEXT: npu.mm acc[0x0], acc[0x3c0], mrf[0x0], f32, f32, f32 m = 1 k = 16 n = 32 dpitch = 192 apitch = 64 acc = 1
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], acc[0x240], f32, f32, f32 rows = 1 cols = 32 dpitch = 192 apitch = 192 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], acc[0x300], f32, f32, f32 rows = 1 cols = 32 dpitch = 192 apitch = 192 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.sigm acc[0x0], acc[0x0], f32, f32 rows = 1 cols = 32 dpitch = 192 apitch = 192
// CHECK-NEXT: npu.v.mul acc[0x4c0], acc[0x40], acc[0x3c0], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 192 bpitch = 64
// CHECK-NEXT: npu.mm acc[0x80], acc[0x4c0], mrf[0x4000], f32, f32, f32 m = 1 k = 16 n = 16 dpitch = 192 apitch = 64 acc = 1
// CHECK-NEXT: npu.v.add acc[0x80], acc[0x80], acc[0x380], f32, f32, f32 rows = 1 cols = 16 dpitch = 192 apitch = 192 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.add acc[0x80], acc[0x80], acc[0x2c0], f32, f32, f32 rows = 1 cols = 16 dpitch = 192 apitch = 192 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.tanh acc[0x80], acc[0x80], f32, f32 rows = 1 cols = 16 dpitch = 192 apitch = 192
// CHECK-NEXT: npu.v.neg acc[0x440], acc[0x0], f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 192
// CHECK-NEXT: npu.vs.add acc[0x440], acc[0x440], f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 imm = 1.000000e+00
// CHECK-NEXT: npu.v.mul acc[0x440], acc[0x440], acc[0x80], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 bpitch = 192
// CHECK-NEXT: npu.v.mul acc[0x480], acc[0x0], acc[0x3c0], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 192 bpitch = 64
// CHECK-NEXT: npu.v.add acc[0x400], acc[0x440], acc[0x480], f32, f32, f32 rows = 1 cols = 16 dpitch = 64 apitch = 64 bpitch = 64 push_next
// CHECK-NEXT: npu.dma.st dram[0x1a80], acc[0x400], f32 x = 16 y = 1 z = 1 dy = 64 spitch = 64 pop_prev push_prev
// Step 1 reads h from the other slot; R stays pinned.
// CHECK-NEXT: npu.mm acc[0xc0], acc[0x400], mrf[0x0], f32, f32, f32 m = 1 k = 16 n = 32 dpitch = 192 apitch = 64 acc = 1
// CHECK-NOT: npu.dma.ld
// CHECK: npu.v.add acc[0x3c0], acc[0x440], acc[0x480]
// CHECK-NOT: npu.dma.ld
// CHECK: npu.dma.st dram[0x1ac0], acc[0x3c0]
// CHECK-NOT: npu.dma.ld
// CHECK: npu.dma.st dram[0x1b00], acc[0x400]
// Y_h.
// CHECK-NEXT: npu.dma.st dram[0x1b40], acc[0x400], f32 x = 16 y = 1 z = 1 dy = 64 spitch = 64
// CHECK-NEXT: npu.halt

// f16, linear_before_reset = 1, no initial_h: tensors, R tiles and the mm
// operands are f16, gates and the h state f32. h . R_h^T goes to its own f32
// buffer, gets Rb_h, is scaled by r and added to the h gate; the new f32 h
// is converted to f16 (the next step's mm operand and Y[t]).
func.func @gru_lbr_f16(%x: tensor<2x1x32xf16>, %w: tensor<1x96x32xf16>, %r: tensor<1x96x32xf16>, %b: tensor<1x192xf16>) -> (tensor<2x1x1x32xf16>, tensor<1x1x32xf16>) {
  %y, %h = accel.gru %x, %w, %r, %b {hidden_size = 32 : i64, linear_before_reset = true} : (tensor<2x1x32xf16>, tensor<1x96x32xf16>, tensor<1x96x32xf16>, tensor<1x192xf16>) -> (tensor<2x1x1x32xf16>, tensor<1x1x32xf16>)
  return %y, %h : tensor<2x1x1x32xf16>, tensor<1x1x32xf16>
}
// CHECK-LABEL: npu.program @gru_lbr_f16_p0_card0_core0
// CHECK-NEXT: npu.dma.ld acc[0x300], dram[0x3080], f16 x = 96 y = 2 z = 1 sy = 192 dpitch = 192
// CHECK-NEXT: npu.v.fill acc[0x700], f16 rows = 1 cols = 32 dpitch = 64
// CHECK-NEXT: npu.v.cvt acc[0x480], acc[0x700], f32, f16 rows = 1 cols = 32 dpitch = 128 apitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x0], dram[0x1880], f16 x = 32 y = 64 z = 1 sy = 64 dpitch = 64
// CHECK-NEXT: npu.dma.ld mrf[0x2000], dram[0x2880], f16 x = 32 y = 32 z = 1 sy = 64 dpitch = 64
// CHECK: npu.mm acc[0x0], vrf[0x0], mrf[0x4000], f32, f16, f16 m = 2 k = 32 n = 64 dpitch = 384 apitch = 64
// CHECK: npu.mm acc[0x100], vrf[0x0], mrf[0x6000], f32, f16, f16 m = 2 k = 32 n = 32 dpitch = 384 apitch = 64
// CHECK-NEXT: npu.mm acc[0x0], acc[0x700], mrf[0x0], f32, f16, f16 m = 1 k = 32 n = 64 dpitch = 384 apitch = 64 acc = 1
// CHECK-NEXT: npu.mm acc[0x680], acc[0x700], mrf[0x2000], f32, f16, f16 m = 1 k = 32 n = 32 dpitch = 128 apitch = 64
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], acc[0x300], f32, f32, f16 rows = 1 cols = 64 dpitch = 384 apitch = 384 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.add acc[0x0], acc[0x0], acc[0x3c0], f32, f32, f16 rows = 1 cols = 64 dpitch = 384 apitch = 384 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.sigm acc[0x0], acc[0x0], f32, f32 rows = 1 cols = 64 dpitch = 384 apitch = 384
// CHECK-NEXT: npu.v.add acc[0x680], acc[0x680], acc[0x440], f32, f32, f16 rows = 1 cols = 32 dpitch = 128 apitch = 128 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.mul acc[0x680], acc[0x80], acc[0x680], f32, f32, f32 rows = 1 cols = 32 dpitch = 128 apitch = 384 bpitch = 128
// CHECK-NEXT: npu.v.add acc[0x100], acc[0x100], acc[0x680], f32, f32, f32 rows = 1 cols = 32 dpitch = 384 apitch = 384 bpitch = 128
// CHECK-NEXT: npu.v.add acc[0x100], acc[0x100], acc[0x380], f32, f32, f16 rows = 1 cols = 32 dpitch = 384 apitch = 384 bpitch = 192 bcast = row
// CHECK-NEXT: npu.v.tanh acc[0x100], acc[0x100], f32, f32 rows = 1 cols = 32 dpitch = 384 apitch = 384
// CHECK: npu.v.add acc[0x500], acc[0x580], acc[0x600], f32, f32, f32 rows = 1 cols = 32 dpitch = 128 apitch = 128 bpitch = 128
// CHECK-NEXT: npu.v.cvt acc[0x780], acc[0x500], f16, f32 rows = 1 cols = 32 dpitch = 64 apitch = 128 push_next
// CHECK-NEXT: npu.dma.st dram[0x3200], acc[0x780], f16 x = 32 y = 1 z = 1 dy = 64 spitch = 64 pop_prev
// CHECK-NEXT: npu.mm acc[0x180], acc[0x780], mrf[0x0], f32, f16, f16 m = 1 k = 32 n = 64 dpitch = 384 apitch = 64 acc = 1

// f16 per-step slices of 16 halves (32 bytes) are not DRAM-aligned: the f16
// h_t (next step's mm operand) goes to its Y row in ACC (acc[0x4c0] + 32 t),
// the f32 state alternates between two slots; Y and Y_h are stored once.
// CHECK-LABEL: npu.program @gru_unaligned_p0_card0_core0
// CHECK-NEXT: npu.v.fill acc[0x540], f16 rows = 1 cols = 16 dpitch = 32
// CHECK-NEXT: npu.v.cvt acc[0x300], acc[0x540], f32, f16 rows = 1 cols = 16 dpitch = 64 apitch = 32
// CHECK: npu.mm acc[0x0], acc[0x540], mrf[0x0], f32, f16, f16 m = 1 k = 16 n = 32 dpitch = 192 apitch = 32 acc = 1
// CHECK: npu.v.cvt acc[0x4c0], acc[0x340], f16, f32 rows = 1 cols = 16 dpitch = 32 apitch = 64
// CHECK-NEXT: npu.mm acc[0xc0], acc[0x4c0], mrf[0x0], f32, f16, f16 m = 1 k = 16 n = 32 dpitch = 192 apitch = 32 acc = 1
// CHECK-NOT: npu.dma.st
// CHECK: npu.v.cvt acc[0x4e0], acc[0x300], f16, f32 rows = 1 cols = 16 dpitch = 32 apitch = 64
// CHECK-NEXT: npu.mm acc[0x180], acc[0x4e0], mrf[0x0]
// CHECK-NOT: npu.dma.st
// CHECK: npu.v.cvt acc[0x500], acc[0x340], f16, f32 rows = 1 cols = 16 dpitch = 32 apitch = 64
// CHECK-NEXT: npu.v.mov acc[0x540], acc[0x500], f16, f16 rows = 1 cols = 16 dpitch = 32 apitch = 32
// CHECK-NEXT: npu.dma.st dram[0x7c0], acc[0x4c0], f16 x = 16 y = 1 z = 3 dy = 32 dz = 32 spitch = 32
// CHECK-NEXT: npu.dma.st dram[0x840], acc[0x540], f16 x = 16 y = 1 z = 1 dy = 32 dz = 32 spitch = 32
// CHECK-NEXT: npu.halt
func.func @gru_unaligned(%x: tensor<3x1x4xf16>, %w: tensor<1x48x4xf16>, %r: tensor<1x48x16xf16>) -> tensor<3x1x1x16xf16> {
  %y, %h = accel.gru %x, %w, %r {hidden_size = 16 : i64} : (tensor<3x1x4xf16>, tensor<1x48x4xf16>, tensor<1x48x16xf16>) -> (tensor<3x1x1x16xf16>, tensor<1x1x16xf16>)
  return %y : tensor<3x1x1x16xf16>
}

func.func @gru_bidir_unaligned_bias(%x: tensor<2x1x16xf32>, %w: tensor<2x60x16xf32>, %r: tensor<2x60x20xf32>, %b: tensor<2x120xf32>) -> tensor<2x2x1x20xf32> {
  %y, %h = accel.gru %x, %w, %r, %b {hidden_size = 20 : i64, direction = #accel.rnn_direction<bidirectional>} : (tensor<2x1x16xf32>, tensor<2x60x16xf32>, tensor<2x60x20xf32>, tensor<2x120xf32>) -> (tensor<2x2x1x20xf32>, tensor<2x1x20xf32>)
  return %y : tensor<2x2x1x20xf32>
}

// H = 5: R_h starts 2H * H floats = 200 bytes into R, not DRAM-aligned. The
// h block's tile is loaded from row 0 instead (all 15 rows, aligned), its
// product (n = 15) goes to a scratch row and only the last 5 columns
// (acc[0x240] + 40) are added onto the h gate, as one f32 addition like
// mm's acc = 1.
// CHECK-LABEL: npu.program @gru_small_h_p0_card0_core0
// CHECK: npu.dma.ld mrf[0x0], dram[0x100], f32 x = 5 y = 10 z = 1 sy = 20 dpitch = 20
// CHECK-NEXT: npu.dma.ld mrf[0x4000], dram[0x100], f32 x = 5 y = 15 z = 1 sy = 20 dpitch = 20
// CHECK: npu.v.mul acc[0x200], acc[0x14], acc[0x2c0], f32, f32, f32 rows = 1 cols = 5 dpitch = 20 apitch = 60 bpitch = 20
// CHECK-NEXT: npu.mm acc[0x240], acc[0x200], mrf[0x4000], f32, f32, f32 m = 1 k = 5 n = 15 dpitch = 60 apitch = 20
// CHECK-NEXT: npu.v.add acc[0x28], acc[0x28], acc[0x268], f32, f32, f32 rows = 1 cols = 5 dpitch = 60 apitch = 60 bpitch = 60
// CHECK: npu.halt
func.func @gru_small_h(%x: tensor<2x1x3xf32>, %w: tensor<1x15x3xf32>, %r: tensor<1x15x5xf32>, %b: tensor<1x30xf32>) -> (tensor<2x1x1x5xf32>, tensor<1x1x5xf32>) {
  %y, %h = accel.gru %x, %w, %r, %b {hidden_size = 5 : i64} : (tensor<2x1x3xf32>, tensor<1x15x3xf32>, tensor<1x15x5xf32>, tensor<1x30xf32>) -> (tensor<2x1x1x5xf32>, tensor<1x1x5xf32>)
  return %y, %h : tensor<2x1x1x5xf32>, tensor<1x1x5xf32>
}

// H = 3, linear_before_reset = 1: h . R_h^T is computed over rows 0..8 of R
// into the scratch and used from its column 6 (acc[0x200] + 24).
// CHECK-LABEL: npu.program @gru_small_h_lbr_p0_card0_core0
// CHECK: npu.dma.ld mrf[0x4000], dram[0xc0], f32 x = 3 y = 9 z = 1 sy = 12 dpitch = 12
// CHECK: npu.mm acc[0x200], acc[0xc0], mrf[0x4000], f32, f32, f32 m = 1 k = 3 n = 9 dpitch = 36 apitch = 12
// CHECK-NEXT: npu.v.sigm acc[0x0], acc[0x0], f32, f32 rows = 1 cols = 6 dpitch = 36 apitch = 36
// CHECK-NEXT: npu.v.mul acc[0x218], acc[0xc], acc[0x218], f32, f32, f32 rows = 1 cols = 3 dpitch = 36 apitch = 36 bpitch = 36
// CHECK-NEXT: npu.v.add acc[0x18], acc[0x18], acc[0x218], f32, f32, f32 rows = 1 cols = 3 dpitch = 36 apitch = 36 bpitch = 36
// CHECK: npu.halt
func.func @gru_small_h_lbr(%x: tensor<1x1x3xf32>, %w: tensor<1x9x3xf32>, %r: tensor<1x9x3xf32>) -> tensor<1x1x1x3xf32> {
  %y, %h = accel.gru %x, %w, %r {hidden_size = 3 : i64, linear_before_reset = true} : (tensor<1x1x3xf32>, tensor<1x9x3xf32>, tensor<1x9x3xf32>) -> (tensor<1x1x1x3xf32>, tensor<1x1x3xf32>)
  return %y : tensor<1x1x1x3xf32>
}
