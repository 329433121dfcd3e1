# Input of binary-errors.test: three instructions, valid on the default
# target.
.isa 1.0
.core card=0, core=0
s.li s1, imm=64
dma.ld vrf[s1], dram[0x0], f32, x=16, y=1, z=1
halt
