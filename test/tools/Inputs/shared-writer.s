# Writes shared[0x40, 0x140) from DRAM (loaded on two cores by
# nnaccel-emu-check-races.s).
.isa 1.0
.core card=0, core=0

dma.ld shared[0x40], dram[0x0], f32, x=64, y=1, z=1
halt
