# MXFP8 weights with E5M2 elements (ISA 1.1): the assembler's
# wt=mxfp8e5m2 is mxfp8e4m3's code 15 plus mm's wvar bit. In the npu dialect
# the two fields are two attributes; back to assembly (also through the
# binary, whose header then says 1.1) it is mxfp8e5m2 again.
# RUN: nnaccel-translate --asm-to-npu --npu-target=default %s | FileCheck %s --check-prefix=NPU
# RUN: nnaccel-translate --asm-to-npu %s | nnaccel-translate --npu-to-asm | FileCheck %s --check-prefix=ASM
# RUN: nnaccel-translate --asm-to-npu %s | nnaccel-translate --npu-to-binary -o %t.bin
# RUN: od -An -tx1 -j6 -N2 %t.bin | FileCheck %s --check-prefix=MINOR
# RUN: nnaccel-translate --binary-to-npu %t.bin | nnaccel-translate --npu-to-asm | FileCheck %s --check-prefix=ASM
# A program that declares 1.0 cannot use the bit.
# RUN: sed 's/^\.isa 1\.1/.isa 1.0/' %s > %t.s
# RUN: not nnaccel-translate --asm-to-npu %t.s 2>&1 | FileCheck %s --check-prefix=OLD

# NPU: npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e4m3 m = 2 k = 64 n = 64 dpitch = 256 apitch = 256 wvar = 1 pop_prev
# ASM: .isa 1.1
# ASM: mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e5m2, m=2, k=64, n=64, dpitch=256, apitch=256 @pop_prev
# ASM-NOT: wvar
# MINOR: 01 00
# OLD: .tmp.s:25:1: error: mm: wt=mxfp8e5m2 / wvar needs '.isa 1.1' or later (declared 1.0)

.isa 1.1
.core card=0, core=0
dma.ld vrf[0x0], dram[0x2000], f32, x=64, y=2, z=1, sy=256, dpitch=256
dma.ld mrf[0x0], dram[0x0], mxfp8e4m3, x=64, y=64, z=1, sy=66, dpitch=66 @push_next
mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e5m2, m=2, k=64, n=64, dpitch=256, apitch=256 @pop_prev
halt
