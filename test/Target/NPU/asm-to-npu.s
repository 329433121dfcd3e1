# --asm-to-npu builds one npu.program named after the .core directive, with
# each instruction located at its line and column in this file.
# RUN: nnaccel-translate --asm-to-npu %s | FileCheck %s
# RUN: nnaccel-translate --asm-to-npu %s --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC
# --npu-target records the target in the program, which is then verified
# against it.
# RUN: nnaccel-translate --asm-to-npu --npu-target=default %s | FileCheck %s --check-prefix=TARGET

# CHECK:      module {
# CHECK-NEXT:   npu.program @card0_core3 card = 0 core = 3 {
# CHECK-NEXT:     npu.recv shared[0x0] bytes = 4096 peer = 255 chan = 7
# CHECK-NEXT:     npu.dma.ld vrf[0x0], shared[0x0], f32 x = 64 y = 1 z = 1 push_next
# CHECK-NEXT:     npu.v.exp vrf[0x100], vrf[0x0], f32, f32 rows = 1 cols = 64 pop_prev push_next
# CHECK-NEXT:     npu.send vrf[0x100] bytes = 256 peer = 255 chan = 8 pop_prev
# CHECK-NEXT:     npu.halt
# CHECK-NEXT:   }
# CHECK-NEXT: }
# LOC: npu.recv {{.*}} loc("{{.*}}asm-to-npu.s":24:3)
# LOC: npu.dma.ld {{.*}} loc("{{.*}}asm-to-npu.s":25:1)
# TARGET: npu.program @card0_core3 card = 0 core = 3 target = "default" {

.isa 1.0
.core card=0, core=3
  recv shared[0x0], bytes=4096, peer=255, chan=7   ; indented, trailing comment
dma.ld vrf[0x0], shared[0x0], f32, x=64, y=1, z=1 @push_next
v.exp vrf[0x100], vrf[0x0], f32, f32, rows=1, cols=64 @pop_prev @push_next
send vrf[0x100], bytes=256, peer=255, chan=8 @pop_prev
halt
