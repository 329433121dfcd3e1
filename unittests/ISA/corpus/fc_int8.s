# int8 fully-connected layer: y = relu(requant(x . W^T)), per-channel scales.
.isa 1.0
.core card=0, core=0
dma.ld vrf[0x0], dram[0x0], i8, x=64, y=16, z=1, sy=64, dpitch=64
dma.ld vrf[0x1000], dram[0x20000], f32, x=64, y=1, z=1
dma.ld mrf[0x0], dram[0x10000], i8, x=64, y=64, z=1, sy=64, dpitch=64 @push_next
mm acc[0x0], vrf[0x0], mrf[0x0], i32, i8, i8, m=16, k=64, n=64, dpitch=256, apitch=64 @pop_prev
v.rqnt chain, acc[0x0], vrf[0x1000], i8, i32, rows=16, cols=64, apitch=256, zp=-3, perch=1 @chain
v.relu vrf[0x2000], chain, i8, i8, rows=16, cols=64, dpitch=64 @push_next
dma.st dram[0x30000], vrf[0x2000], i8, x=64, y=16, z=1, dy=64, spitch=64 @pop_prev
halt
