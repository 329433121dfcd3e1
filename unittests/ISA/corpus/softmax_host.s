# Row softmax of a tensor received from the host, result sent back.
.isa 1.0
.core card=0, core=3
recv shared[0x0], bytes=4096, peer=255, chan=7
dma.ld vrf[0x0], shared[0x0], f32, x=64, y=16, z=1, sy=256, dpitch=256 @push_next
v.rmax vrf[0x2400], vrf[0x0], f32, f32, rows=16, cols=64, dpitch=4, apitch=256 @pop_prev
v.sub vrf[0x1000], vrf[0x0], vrf[0x2400], f32, f32, f32, rows=16, cols=64, dpitch=256, apitch=256, bpitch=4, bcast=col
v.exp vrf[0x1000], vrf[0x1000], f32, f32, rows=16, cols=64, dpitch=256, apitch=256 @chain
v.rsum vrf[0x2000], chain, f32, f32, rows=16, cols=64, dpitch=4
v.recip vrf[0x2100], vrf[0x2000], f32, f32, rows=16, cols=1, dpitch=4, apitch=4
v.mul vrf[0x3000], vrf[0x1000], vrf[0x2100], f32, f32, f32, rows=16, cols=64, dpitch=256, apitch=256, bpitch=4, bcast=col @push_next
send vrf[0x3000], bytes=4096, peer=255, chan=8 @pop_prev
barrier id=1, mask=15
halt
