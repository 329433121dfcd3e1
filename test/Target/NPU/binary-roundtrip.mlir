// npu -> binary -> npu is the identity (the binary is lib/ISA's program file:
// a 32-byte header, then one 32-byte word per instruction), and re-encoding
// the decoded program gives the same bytes.
// RUN: nnaccel-translate --npu-to-binary %s -o %t.bin
// RUN: wc -c < %t.bin | FileCheck %s --check-prefix=SIZE
// RUN: nnaccel-translate --binary-to-npu %t.bin | FileCheck %s
// RUN: nnaccel-translate --binary-to-npu %t.bin | nnaccel-translate --npu-to-binary -o %t.again.bin
// RUN: cmp %t.bin %t.again.bin
// Instruction i is located at line 0, column = its byte offset (32 + 32 i).
// RUN: nnaccel-translate --binary-to-npu %t.bin --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC

// SIZE: 256

// CHECK:      npu.program @card1_core2 card = 1 core = 2 {
// CHECK-NEXT:   npu.s.li s1 imm = -140737488355328
// CHECK-NEXT:   npu.emb.gather acc[0x0], dram[0xffffffffff+s31], dram[s1], shared[s1], dram[s0], bf16 fmt = bf16 dim = 8 rowbytes = 16 nrows = 4294967295 nseg = 2 ityp = i64 offs = 1 pool = sum dpitch = 16
// CHECK-NEXT:   npu.sync st pop_prev
// CHECK-NEXT:   npu.v.rmin vrf[0x0], acc[0x0], f32, f32 rows = 2 cols = 8 dpitch = 32 apitch = 32 axis = rows
// CHECK-NEXT:   npu.vs.add vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 1 imm = 0xFF800000 push_prev
// CHECK-NEXT:   npu.mm chain, vrf[0x0], mrf[0x0], f32, bf16, msfp9 m = 1 k = 32 n = 16 apitch = 64 chain
// CHECK-NEXT:   npu.v.relu vrf[0x40], chain, f32, f32 rows = 1 cols = 16
// CHECK-NEXT: }
// LOC: npu.s.li {{.*}} loc("{{.*}}.bin":0:32)
// LOC: npu.emb.gather {{.*}} loc("{{.*}}.bin":0:64)
npu.program @p card = 1 core = 2 {
  npu.s.li s1 imm = -140737488355328
  npu.emb.gather acc[0x0], dram[0xFFFFFFFFFF+s31], dram[s1], shared[s1], dram[s0], bf16 fmt = bf16 dim = 8 rowbytes = 16 nrows = 4294967295 nseg = 2 ityp = i64 offs = 1 pool = sum dpitch = 16
  npu.sync st pop_prev
  npu.v.rmin vrf[0x0], acc[0x0], f32, f32 rows = 2 cols = 8 dpitch = 32 apitch = 32 axis = rows
  npu.vs.add vrf[0x0], vrf[0x0], f32, f32 rows = 1 cols = 1 imm = 0xFF800000 push_prev
  npu.mm chain, vrf[0x0], mrf[0x0], f32, bf16, msfp9 m = 1 k = 32 n = 16 apitch = 64 chain
  npu.v.relu vrf[0x40], chain, f32, f32 rows = 1 cols = 16
}
