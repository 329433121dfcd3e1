// --npu-to-asm prints lib/ISA's canonical assembly: `.isa` and `.core`
// directives, positional operands, non-zero keyword fields, then @flags.
// RUN: nnaccel-translate --npu-to-asm %s | FileCheck %s

// CHECK:      .isa 1.0
// CHECK-NEXT: .core card=0, core=1
// CHECK-NEXT: s.li s1, imm=4096
// CHECK-NEXT: loop s2, count=4, step=1024
// CHECK-NEXT: dma.ld vrf[s2], dram[0x10000+s1], f16, x=64, y=8, z=1, sy=128, dpitch=128 @push_next
// CHECK-NEXT: mm chain, vrf[s2], mrf[0x0], f16, f16, f16, m=8, k=64, n=64, apitch=128 @pop_prev @chain
// CHECK-NEXT: v.add chain, chain, vrf[0x8000], f16, f16, f16, rows=8, cols=64, bcast=row @chain
// CHECK-NEXT: v.gelu vrf[0x4000+s2], chain, f16, f16, rows=8, cols=64, dpitch=128 @push_next
// CHECK-NEXT: dma.st dram[0x20000+s2], vrf[0x4000+s2], f16, x=64, y=8, z=1, dy=128, spitch=128 @pop_prev
// CHECK-NEXT: endloop
// CHECK-NEXT: vs.mul vrf[0x0], vrf[0x0], f32, f32, rows=1, cols=16, imm=0.125
// CHECK-NEXT: halt
// CHECK-NOT: {{.}}
npu.program @card0_core1 card = 0 core = 1 {
  npu.s.li s1 imm = 4096
  npu.loop s2 count = 4 step = 1024
  npu.dma.ld vrf[s2], dram[0x10000+s1], f16 x = 64 y = 8 z = 1 sy = 128 dpitch = 128 push_next
  npu.mm chain, vrf[s2], mrf[0x0], f16, f16, f16 m = 8 k = 64 n = 64 apitch = 128 pop_prev chain
  npu.v.add chain, chain, vrf[0x8000], f16, f16, f16 rows = 8 cols = 64 bcast = row chain
  npu.v.gelu vrf[0x4000+s2], chain, f16, f16 rows = 8 cols = 64 dpitch = 128 push_next
  npu.dma.st dram[0x20000+s2], vrf[0x4000+s2], f16 x = 64 y = 8 z = 1 dy = 128 spitch = 128 pop_prev
  npu.endloop
  npu.vs.mul vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 16 imm = 0.125
  npu.halt
}
