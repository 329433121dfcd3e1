# An assembly error is reported at its line and column in the input file.
# RUN: not nnaccel-translate --asm-to-npu %s 2>&1 | FileCheck %s
# CHECK: asm-syntax-error.s:9:8: error:
# CHECK-NOT: error:

.isa 1.0
.core card=0, core=0
s.li s1, imm=1
dma.ld bogus[0x0], dram[0x0], f32, x=1, y=1, z=1
halt
