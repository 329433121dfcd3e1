# nnaccel-emu --check-races: a data race fails the run with a message naming
# both instructions, the memory and the bytes, and exit status 1. Without
# the option the same program runs (the emulator's schedule happens to load
# before it computes); with the tokens that order it, it is race-free.
#
# RUN: not nnaccel-emu --target %nnaccel_src_root/targets/default.json --check-races %s 2>&1 | FileCheck %s
# CHECK: nnaccel-emu: error: card 0 core 0 pc 1 (ex: `mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, m=2, k=64, n=64, dpitch=256, apitch=256`): data race on vrf[0x0, 0x200):
# CHECK-SAME: this instruction reads operand 'a' vrf[0x0, 0x200), which card 0 core 0 pc 0 (ld: `dma.ld vrf[0x0], dram[0x0], f32, x=64, y=2, z=1, sy=256, dpitch=256`) wrote (operand 'dst' vrf[0x0, 0x200))
# CHECK-SAME: with no token, barrier or send/recv ordering the two
#
# RUN: nnaccel-emu --target %nnaccel_src_root/targets/default.json %s | FileCheck %s --check-prefix=UNCHECKED
# UNCHECKED: ok:
#
# RUN: sed -e 's/^dma.ld .*/& @push_next/' -e 's/^mm .*/& @pop_prev/' %s > %t.s
# RUN: nnaccel-emu --target %nnaccel_src_root/targets/default.json --check-races %t.s | FileCheck %s --check-prefix=ORDERED
# ORDERED: ok: 249 cycles
#
# Two cores writing the same SHARED bytes, with and without a barrier.
# RUN: not nnaccel-emu --target %nnaccel_src_root/targets/default.json --check-races %S/Inputs/shared-writer.s --core 1 %S/Inputs/shared-writer.s 2>&1 | FileCheck %s --check-prefix=SHARED
# SHARED: error: card 0 core 1 pc 0 (ld: `dma.ld shared[0x40], dram[0x0], f32, x=64, y=1, z=1`): data race on shared[0x40, 0x140):
# SHARED-SAME: this instruction writes operand 'dst' shared[0x40, 0x140), which card 0 core 0 pc 0 (ld: `dma.ld shared[0x40], dram[0x0], f32, x=64, y=1, z=1`) wrote (operand 'dst' shared[0x40, 0x140))
# RUN: sed -e 's/^halt/barrier id=0, mask=3\nhalt/' %S/Inputs/shared-writer.s > %t.first.s
# RUN: sed -e 's/^dma.ld/barrier id=0, mask=3\n&/' %S/Inputs/shared-writer.s > %t.second.s
# RUN: nnaccel-emu --target %nnaccel_src_root/targets/default.json --check-races %t.first.s --core 1 %t.second.s | FileCheck %s --check-prefix=UNCHECKED

.isa 1.0
.core card=0, core=0

dma.ld vrf[0x0], dram[0x0], f32, x=64, y=2, z=1, sy=256, dpitch=256
mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, m=2, k=64, n=64, dpitch=256, apitch=256
halt
