# SparseLengthsWeightedSum over a 4-bit rowwise table, plus a plain gather.
.isa 1.0
.core card=0, core=2
s.li s3, imm=4096
s.li s4, imm=8192
s.li s5, imm=12288
emb.gather vrf[0x0], dram[0x1000000], dram[s3], dram[s4], dram[s5], f32, fmt=rw4, dim=64, rowbytes=36, nrows=100000, nseg=32, pool=sum, weighted=1, dpitch=256 @push_next
emb.gather acc[0x0], dram[0x2000000], dram[s3], dram[s0], dram[s0], f16, fmt=rw8, dim=32, rowbytes=40, nrows=5000, nseg=16, ityp=i64, dpitch=64
sync ex @pop_prev @push_next
dma.st dram[0x100000], vrf[0x0], f32, x=64, y=32, z=1, dy=256, spitch=256 @pop_prev
halt
