// Round trip of every npu op (one per ISA instruction) in custom and generic
// form. The program has no target, so only field ranges and the
// target-independent per-instruction rules apply (an 80 x 80 `mm` tile is
// fine without a native dimension to exceed).
// RUN: nnaccel-opt %s | FileCheck %s
// RUN: nnaccel-opt %s | nnaccel-opt | FileCheck %s
// RUN: nnaccel-opt %s --mlir-print-op-generic | nnaccel-opt | FileCheck %s
// RUN: nnaccel-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: npu.program @all card = 0 core = 0 {
// GENERIC-LABEL: "npu.program"() <{card = 0 : i64, core = 0 : i64, sym_name = "all"}>
npu.program @all card = 0 core = 0 {
  // CHECK-NEXT: npu.nop{{$}}
  // GENERIC: "npu.nop"() : () -> ()
  npu.nop
  // CHECK-NEXT: npu.s.li s1 imm = 4096{{$}}
  // GENERIC: "npu.s.li"() <{imm = 4096 : i64, rd = 1 : i64}>
  npu.s.li s1 imm = 4096
  // CHECK-NEXT: npu.s.addi s2, s1 imm = -64{{$}}
  npu.s.addi s2, s1 imm = -64
  // CHECK-NEXT: npu.s.muli s3, s2 imm = 3{{$}}
  npu.s.muli s3, s2 imm = 3
  // CHECK-NEXT: npu.s.add s4, s1, s2{{$}}
  npu.s.add s4, s1, s2
  // CHECK-NEXT: npu.s.sub s5, s4, s1{{$}}
  npu.s.sub s5, s4, s1
  // CHECK-NEXT: npu.s.mul s6, s5, s2{{$}}
  npu.s.mul s6, s5, s2
  // CHECK-NEXT: npu.s.shli s7, s6 sh = 2{{$}}
  npu.s.shli s7, s6 sh = 2
  // CHECK-NEXT: npu.s.shri s8, s7 sh = 1{{$}}
  npu.s.shri s8, s7 sh = 1
  // Keyword fields equal to 0 are elided; `count = 0` is the default.
  // CHECK-NEXT: npu.loop s9 step = 1024{{$}}
  npu.loop s9 count = 0 step = 1024
  // CHECK-NEXT: npu.loop.r s10, s1 step = 64{{$}}
  npu.loop.r s10, s1 step = 64
  // CHECK-NEXT: npu.endloop{{$}}
  npu.endloop
  // CHECK-NEXT: npu.endloop{{$}}
  npu.endloop
  // CHECK-NEXT: npu.barrier id = 1 mask = 15{{$}}
  npu.barrier id = 1 mask = 15
  // CHECK-NEXT: npu.sync ex pop_prev push_next{{$}}
  // GENERIC: "npu.sync"() <{pop_prev, push_next, q = #npu<queue ex>}>
  npu.sync ex pop_prev push_next
  // CHECK-NEXT: npu.dma.ld vrf[0x0], dram[0x10000+s1], f16 x = 64 y = 8 z = 1 sy = 128 sz = 1024 dpitch = 136 pt = 1 pb = 1 pl = 1 pr = 1 push_next{{$}}
  // GENERIC: "npu.dma.ld"() <{dpitch = 136 : i64, dst = #npu.mem<vrf[0x0]>, dt = #npu<dtype f16>, pb = 1 : i64, pl = 1 : i64, pr = 1 : i64, pt = 1 : i64, push_next, src = #npu.mem<dram[0x10000+s1]>, sy = 128 : i64, sz = 1024 : i64, x = 64 : i64, y = 8 : i64, z = 1 : i64}>
  npu.dma.ld vrf[0x0], dram[0x10000+s1], f16 x = 64 y = 8 z = 1 sy = 128 sz = 1024 dpitch = 136 pt = 1 pb = 1 pl = 1 pr = 1 push_next
  // CHECK-NEXT: npu.emb.gather vrf[0x0], dram[0x1000000], dram[s3], shared[s4], dram[s5], f32 fmt = rw4 dim = 64 rowbytes = 36 nrows = 100000 nseg = 32 ityp = i64 offs = 1 pool = mean weighted = 1 dpitch = 256{{$}}
  // GENERIC: "npu.emb.gather"() <{dim = 64 : i64, dpitch = 256 : i64, dst = #npu.mem<vrf[0x0]>, dt = #npu<dtype f32>, fmt = #npu<embfmt rw4>, idx = #npu.mem<dram[s3]>, ityp = #npu<idxtype i64>, len = #npu.mem<shared[s4]>, nrows = 100000 : i64, nseg = 32 : i64, offs = 1 : i64, pool = #npu<pool mean>, rowbytes = 36 : i64, table = #npu.mem<dram[0x1000000]>, weighted = 1 : i64, wts = #npu.mem<dram[s5]>}>
  npu.emb.gather vrf[0x0], dram[0x1000000], dram[s3], shared[s4], dram[s5], f32 fmt = rw4 dim = 64 rowbytes = 36 nrows = 100000 nseg = 32 ityp = i64 offs = 1 pool = mean weighted = 1 dpitch = 256
  // CHECK-NEXT: npu.recv shared[0x0] bytes = 4096 peer = 255 chan = 7{{$}}
  npu.recv shared[0x0] bytes = 4096 peer = 255 chan = 7
  // CHECK-NEXT: npu.dma.st dram[0x20000+s2], acc[0x40], f32 x = 64 y = 8 z = 2 dy = 256 dz = 4096 spitch = 256 pop_prev{{$}}
  npu.dma.st dram[0x20000+s2], acc[0x40], f32 x = 64 y = 8 z = 2 dy = 256 dz = 4096 spitch = 256 pop_prev
  // CHECK-NEXT: npu.send vrf[0x3000] bytes = 4096 peer = 255 chan = 8{{$}}
  npu.send vrf[0x3000] bytes = 4096 peer = 255 chan = 8
  // CHECK-NEXT: npu.mm acc[0x0], vrf[s1], mrf[0x0], i32, i8, i4 m = 16 k = 80 n = 80 dpitch = 320 apitch = 80 acc = 1 azp = -3{{$}}
  npu.mm acc[0x0], vrf[s1], mrf[0x0], i32, i8, i4 m = 16 k = 80 n = 80 dpitch = 320 apitch = 80 acc = 1 azp = -3
  // CHECK-NEXT: npu.mm chain, vrf[0x0], mrf[0x0], f16, f16, f16 m = 8 k = 64 n = 64 apitch = 128 chain{{$}}
  // GENERIC: "npu.mm"() <{a = #npu.mem<vrf[0x0]>, {{.*}}, chain, {{.*}}dst = #npu.mem<chain>, {{.*}}w = #npu.mem<mrf[0x0]>, wt = #npu<dtype f16>, wvar = 0 : i64}>
  npu.mm chain, vrf[0x0], mrf[0x0], f16, f16, f16 m = 8 k = 64 n = 64 apitch = 128 chain
  // MXFP8 with E5M2 weight elements: wt = mxfp8e4m3 (code 15) and the
  // wvar bit, as in the instruction word (ISA 1.1).
  // CHECK-NEXT: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e4m3 m = 1 k = 64 n = 64 wvar = 1{{$}}
  npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e4m3 m = 1 k = 64 n = 64 wvar = 1
  // CHECK-NEXT: npu.v.add chain, chain, vrf[0x8000], f16, f16, f16 rows = 8 cols = 64 bcast = row chain{{$}}
  npu.v.add chain, chain, vrf[0x8000], f16, f16, f16 rows = 8 cols = 64 bcast = row chain
  // CHECK-NEXT: npu.v.sub vrf[0x1000], vrf[0x0], vrf[0x2400], f32, f32, f32 rows = 16 cols = 64 dpitch = 256 apitch = 256 bpitch = 4 bcast = col{{$}}
  npu.v.sub vrf[0x1000], vrf[0x0], vrf[0x2400], f32, f32, f32 rows = 16 cols = 64 dpitch = 256 apitch = 256 bpitch = 4 bcast = col
  // CHECK-NEXT: npu.v.mul vrf[0x1000], vrf[0x0], acc[0x0], f32, f32, f32 rows = 1 cols = 64 bcast = scalar{{$}}
  npu.v.mul vrf[0x1000], vrf[0x0], acc[0x0], f32, f32, f32 rows = 1 cols = 64 bcast = scalar
  // CHECK-NEXT: npu.v.max vrf[0x1000], vrf[0x0], vrf[0x40], i8, i8, i8 rows = 1 cols = 16{{$}}
  npu.v.max vrf[0x1000], vrf[0x0], vrf[0x40], i8, i8, i8 rows = 1 cols = 16
  // CHECK-NEXT: npu.v.min vrf[0x1000], vrf[0x0], vrf[0x40], bf16, bf16, f32 rows = 1 cols = 16{{$}}
  npu.v.min vrf[0x1000], vrf[0x0], vrf[0x40], bf16, bf16, f32 rows = 1 cols = 16
  // CHECK-NEXT: npu.vs.add vrf[0x1100], vrf[0x1000], f32, f32 rows = 1 cols = 16 imm = 1.250000e-01{{$}}
  npu.vs.add vrf[0x1100], vrf[0x1000], f32, f32 rows = 1 cols = 16 imm = 0.125
  // Non-finite immediates keep their exact bits (here a NaN payload).
  // CHECK-NEXT: npu.vs.mul vrf[0x1100], vrf[0x1000], f32, f32 rows = 1 cols = 16 imm = 0x7FC00001{{$}}
  npu.vs.mul vrf[0x1100], vrf[0x1000], f32, f32 rows = 1 cols = 16 imm = 0x7FC00001
  // CHECK-NEXT: npu.vs.max vrf[0x1100], vrf[0x1000], f32, f32 rows = 1 cols = 16 imm = -0.000000e+00{{$}}
  npu.vs.max vrf[0x1100], vrf[0x1000], f32, f32 rows = 1 cols = 16 imm = -0.0
  // CHECK-NEXT: npu.vs.min vrf[0x1100], vrf[0x1000], f32, f32 rows = 1 cols = 16 imm = 2.000000e+00{{$}}
  npu.vs.min vrf[0x1100], vrf[0x1000], f32, f32 rows = 1 cols = 16 imm = 2.0
  // CHECK-NEXT: npu.v.mov acc[0x0], vrf[0x0], msfp8, msfp8 rows = 2 cols = 32 dpitch = 18 apitch = 18{{$}}
  npu.v.mov acc[0x0], vrf[0x0], msfp8, msfp8 rows = 2 cols = 32 dpitch = 18 apitch = 18
  // CHECK-NEXT: npu.v.cvt acc[0x0], vrf[0x0], f32, bf16 rows = 34 cols = 34 dpitch = 136 apitch = 72{{$}}
  npu.v.cvt acc[0x0], vrf[0x0], f32, bf16 rows = 34 cols = 34 dpitch = 136 apitch = 72
  // CHECK-NEXT: npu.v.relu vrf[0x2000], vrf[0x0], i8, i8 rows = 16 cols = 64 dpitch = 64 apitch = 64{{$}}
  npu.v.relu vrf[0x2000], vrf[0x0], i8, i8 rows = 16 cols = 64 dpitch = 64 apitch = 64
  // CHECK-NEXT: npu.v.sigm vrf[0x2000], vrf[0x0], f16, fp8e4m3 rows = 1 cols = 64{{$}}
  npu.v.sigm vrf[0x2000], vrf[0x0], f16, fp8e4m3 rows = 1 cols = 64
  // CHECK-NEXT: npu.v.tanh vrf[0x2000], vrf[0x0], f16, fp8e5m2 rows = 1 cols = 64{{$}}
  npu.v.tanh vrf[0x2000], vrf[0x0], f16, fp8e5m2 rows = 1 cols = 64
  // CHECK-NEXT: npu.v.exp vrf[0x2000], vrf[0x0], f32, f32 rows = 1 cols = 64{{$}}
  npu.v.exp vrf[0x2000], vrf[0x0], f32, f32 rows = 1 cols = 64
  // CHECK-NEXT: npu.v.gelu vrf[0x2000], vrf[0x0], f16, mxint8 rows = 1 cols = 64{{$}}
  npu.v.gelu vrf[0x2000], vrf[0x0], f16, mxint8 rows = 1 cols = 64
  // CHECK-NEXT: npu.v.recip vrf[0x2100], vrf[0x2000], f32, f32 rows = 16 cols = 1 dpitch = 4 apitch = 4{{$}}
  npu.v.recip vrf[0x2100], vrf[0x2000], f32, f32 rows = 16 cols = 1 dpitch = 4 apitch = 4
  // CHECK-NEXT: npu.v.rsqrt vrf[0x2100], vrf[0x2000], f32, msfp9 rows = 1 cols = 16{{$}}
  npu.v.rsqrt vrf[0x2100], vrf[0x2000], f32, msfp9 rows = 1 cols = 16
  // CHECK-NEXT: npu.v.abs vrf[0x2100], vrf[0x2000], i16, i16 rows = 1 cols = 16{{$}}
  npu.v.abs vrf[0x2100], vrf[0x2000], i16, i16 rows = 1 cols = 16
  // CHECK-NEXT: npu.v.neg vrf[0x2100], vrf[0x2000], i32, u8 rows = 1 cols = 16{{$}}
  npu.v.neg vrf[0x2100], vrf[0x2000], i32, u8 rows = 1 cols = 16
  // CHECK-NEXT: npu.v.rsum vrf[0x2000], vrf[0x0], f32, f32 rows = 16 cols = 64 dpitch = 4 apitch = 256{{$}}
  npu.v.rsum vrf[0x2000], vrf[0x0], f32, f32 rows = 16 cols = 64 dpitch = 4 apitch = 256 axis = cols
  // CHECK-NEXT: npu.v.rmax vrf[0x2000], vrf[0x0], f32, f32 rows = 16 cols = 64 dpitch = 256 apitch = 256 axis = rows{{$}}
  npu.v.rmax vrf[0x2000], vrf[0x0], f32, f32 rows = 16 cols = 64 dpitch = 256 apitch = 256 axis = rows
  // CHECK-NEXT: npu.v.rmin vrf[0x2000], vrf[0x0], i32, i32 rows = 16 cols = 64 dpitch = 4 apitch = 256{{$}}
  npu.v.rmin vrf[0x2000], vrf[0x0], i32, i32 rows = 16 cols = 64 dpitch = 4 apitch = 256
  // CHECK-NEXT: npu.v.rqnt vrf[0x0], acc[0x0], vrf[0x1000], u4, i32 rows = 16 cols = 64 dpitch = 32 apitch = 256 zp = -3 perch = 1{{$}}
  npu.v.rqnt vrf[0x0], acc[0x0], vrf[0x1000], u4, i32 rows = 16 cols = 64 dpitch = 32 apitch = 256 zp = -3 perch = 1
  // CHECK-NEXT: npu.v.dqnt vrf[0x1200], vrf[0x1100], vrf[0x1000], f16, i8 rows = 1 cols = 16 zp = 12{{$}}
  npu.v.dqnt vrf[0x1200], vrf[0x1100], vrf[0x1000], f16, i8 rows = 1 cols = 16 zp = 12
  // CHECK-NEXT: npu.v.fill vrf[s12], f32 rows = 1 cols = 16 imm = -1.500000e+00{{$}}
  npu.v.fill vrf[s12], f32 rows = 1 cols = 16 imm = -1.5
  // CHECK-NEXT: npu.halt{{$}}
  npu.halt
}

// Flags are independent unit attributes; every combination round-trips
// even where the verifier would reject it in a targeted program.
// CHECK-LABEL: npu.program @flags card = 3 core = 17 {
npu.program @flags card = 3 core = 17 {
  // CHECK-NEXT: npu.v.relu vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 1 pop_prev pop_next push_prev push_next{{$}}
  npu.v.relu vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 1 pop_prev pop_next push_prev push_next
  // CHECK-NEXT: npu.v.relu chain, vrf[0x0], f32, f32 rows = 1 cols = 1 chain{{$}}
  npu.v.relu chain, vrf[0x0], f32, f32 rows = 1 cols = 1 chain
}

// The target may come from the module; programs keep their own `target`.
// CHECK-LABEL: module attributes {npu.target = "default"}
// CHECK: npu.program @t card = 0 core = 0 target = "brainwave-like" {
module attributes {npu.target = "default"} {
  npu.program @t card = 0 core = 0 target = "brainwave-like" {
    npu.halt
  }
  // CHECK: npu.program @u card = 0 core = 2 {
  npu.program @u card = 0 core = 2 {
    npu.halt
  }
}

// The result of a lowered op: a tensor the programs leave in DRAM.
// CHECK-LABEL: func.func @dram_tensor
// CHECK: npu.dram_tensor at 4096 : tensor<1x32xf32>
// GENERIC: "npu.dram_tensor"() <{address = 4096 : i64}> : () -> tensor<1x32xf32>
func.func @dram_tensor() -> tensor<1x32xf32> {
  %0 = npu.dram_tensor at 4096 : tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}
