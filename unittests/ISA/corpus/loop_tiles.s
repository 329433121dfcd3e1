# Tiled f16 linear + bias + gelu, one Brainwave-style chain per tile.
.isa 1.0
.core card=0, core=1
dma.ld mrf[0x0], dram[0x0], f16, x=64, y=64, z=1, sy=128, dpitch=128
dma.ld vrf[0x8000], dram[0x2000], f16, x=64, y=1, z=1
loop s1, count=4, step=1024
dma.ld vrf[s1], dram[0x10000+s1], f16, x=64, y=8, z=1, sy=128, dpitch=128 @push_next
mm chain, vrf[s1], mrf[0x0], f16, f16, f16, m=8, k=64, n=64, apitch=128 @pop_prev @chain
v.add chain, chain, vrf[0x8000], f16, f16, f16, rows=8, cols=64, bcast=row @chain
v.gelu vrf[0x4000+s1], chain, f16, f16, rows=8, cols=64, dpitch=128 @push_next
dma.st dram[0x20000+s1], vrf[0x4000+s1], f16, x=64, y=8, z=1, dy=128, spitch=128 @pop_prev
endloop
halt
