# 3-D strided load with halo padding into shared memory, then widen to f32.
.isa 1.0
.core card=0, core=0
dma.ld shared[0x0], dram[0x0], bf16, x=32, y=32, z=4, sy=64, sz=2048, dpitch=72, pt=1, pb=1, pl=1, pr=1
dma.ld vrf[0x0], shared[0x0], bf16, x=34, y=34, z=1, sy=72, dpitch=72 @push_next
v.cvt acc[0x0], vrf[0x0], f32, bf16, rows=34, cols=34, dpitch=136, apitch=72 @pop_prev
vs.mul acc[0x0], acc[0x0], f32, f32, rows=34, cols=34, dpitch=136, apitch=136, imm=0.125 @push_next
dma.st dram[0x10000], acc[0x0], f32, x=34, y=34, z=1, dy=136, spitch=136 @pop_prev
halt
