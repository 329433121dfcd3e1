// Verifier diagnostics of the npu dialect. Every rule comes from lib/ISA:
// field ranges (checkFieldRanges), per-instruction rules
// (verifyInstruction) and, for programs with a target, the program verifier
// (verifyProgram), reported at the instruction concerned.
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Syntax.
//===----------------------------------------------------------------------===//

npu.program @p card = 0 core = 0 {
  // expected-error @below {{expected a memory space (dram, shared, vrf, mrf, acc or chain), got 'sram'}}
  npu.v.relu sram[0x0], vrf[0x0], f32, f32 rows = 1 cols = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{expected a scalar register s0..s31, got 'r1'}}
  npu.s.li r1 imm = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{'f17' is not one of: f32 f16 bf16 i32 i16 i8 u8 i4 u4 fp8e4m3 fp8e5m2 msfp8 msfp9 mxint8 i64}}
  npu.v.relu vrf[0x0], vrf[0x0], f17, f32 rows = 1 cols = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{a register-indirect operand has no address: write dram[sN]}}
  npu.emb.gather vrf[0x0], dram[0x0], dram[0x40], dram[s0], dram[s0], f32 dim = 1 rowbytes = 4 nrows = 1 nseg = 1
}

// -----

//===----------------------------------------------------------------------===//
// Field ranges (checkFieldRanges).
//===----------------------------------------------------------------------===//

npu.program @p card = 0 core = 0 {
  // expected-error @below {{'npu.dma.ld' op dma.ld: field 'src.addr' value 1099511627776 out of range [0, 1099511627775] (40 bits)}}
  npu.dma.ld vrf[0x0], dram[0x10000000000], f32 x = 1 y = 1 z = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{'npu.s.li' op s.li: field 'rd' value 32 out of range [0, 31] (5 bits)}}
  npu.s.li s32 imm = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{field 'dst.reg' value 40 out of range [0, 31]}}
  npu.v.fill vrf[0x0+s40], f32 rows = 1 cols = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{'npu.loop' op loop: field 'count' value 4294967296 out of range [0, 4294967295] (32 bits)}}
  npu.loop s1 count = 4294967296
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{field 'imm' value -140737488355329 out of range [-140737488355328, 140737488355327] (48 bits)}}
  npu.s.li s1 imm = -140737488355329
}

// -----

// The generic form can spell what the custom syntax cannot.
npu.program @p card = 0 core = 0 {
  // expected-error @below {{operand 'idx' is register-indirect and has no address field; write dram[sN]}}
  "npu.emb.gather"() <{dst = #npu.mem<vrf[0x0]>, table = #npu.mem<dram[0x0]>, idx = #npu.mem<dram[0x40]>, len = #npu.mem<dram[s0]>, wts = #npu.mem<dram[s0]>, dt = #npu<dtype f32>}> : () -> ()
}

// -----

//===----------------------------------------------------------------------===//
// Per-instruction rules (verifyInstruction), no target needed.
//===----------------------------------------------------------------------===//

npu.program @p card = 0 core = 0 {
  // expected-error @below {{'npu.mm' op operand 'w' may not be in vrf (allowed: mrf)}}
  npu.mm acc[0x0], vrf[0x0], vrf[0x0], f32, f32, f32 m = 1 k = 1 n = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{operand 'src' may not be in vrf (allowed: dram, shared)}}
  npu.dma.ld acc[0x0], vrf[0x0], f32 x = 1 y = 1 z = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{operand 'b' may not be in chain (allowed: vrf, acc)}}
  npu.v.add vrf[0x0], vrf[0x0], chain, f32, f32, f32 rows = 1 cols = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{control instructions cannot pop or push tokens}}
  npu.s.li s1 imm = 1 push_next
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{the ld queue has no previous queue (@pop_prev/@push_prev)}}
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1 y = 1 z = 1 pop_prev
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{the st queue has no next queue (@pop_next/@push_next)}}
  npu.dma.st dram[0x0], vrf[0x0], f32 x = 1 y = 1 z = 1 push_next
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{@chain is only valid on compute instructions}}
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 1 y = 1 z = 1 chain
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{sync must name the ld, ex or st queue}}
  npu.sync ctl
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{v.mov copies bits: dt f16 must equal at f32 (use v.cvt to convert)}}
  npu.v.mov vrf[0x0], vrf[0x100], f16, f32 rows = 1 cols = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{v.exp needs a floating-point input, got i8}}
  npu.v.exp vrf[0x0], vrf[0x100], f32, i8 rows = 1 cols = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{unsupported matrix type combination i8 x f16 -> f32}}
  npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, i8, f16 m = 1 k = 1 n = 1
}

// -----

// wvar (E5M2 weight elements) is defined for wt = mxfp8e4m3 only.
npu.program @p card = 0 core = 0 {
  // expected-error @below {{'npu.mm' op wvar=1 (E5M2 weight elements) is only defined with wt=mxfp8e4m3 (code 15; assembly wt=mxfp8e5m2), not wt=mxint8}}
  npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxint8 m = 1 k = 32 n = 1 wvar = 1
}

// -----

// The bit is one bit wide.
npu.program @p card = 0 core = 0 {
  // expected-error @below {{'npu.mm' op mm: field 'wvar' value 2 out of range [0, 1] (1 bits)}}
  npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e4m3 m = 1 k = 32 n = 1 wvar = 2
}

// -----

// brainwave-like has no MX mode, E5M2 included.
npu.program @p card = 0 core = 0 target = "brainwave-like" {
  // expected-error @below {{target 'brainwave-like' has no matrix support for mxfp8e5m2 weights (core.macs_per_cycle)}}
  npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e4m3 m = 1 k = 32 n = 1 wvar = 1
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{'apitch' pitch 64 is smaller than one row (64 x f32 = 256 bytes)}}
  npu.v.relu vrf[0x0], vrf[0x100], f32, f32 rows = 2 cols = 64 dpitch = 256 apitch = 64
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{rows and cols must be at least 1}}
  npu.v.relu vrf[0x0], vrf[0x100], f32, f32 rows = 1
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{cols 10 is not a multiple of the msfp8 block size 16}}
  npu.v.mov vrf[0x0], vrf[0x100], msfp8, msfp8 rows = 1 cols = 10
}

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{offs requires pooling (pool=sum or pool=mean)}}
  npu.emb.gather vrf[0x0], dram[0x0], dram[s0], dram[s0], dram[s0], f32 dim = 4 rowbytes = 16 nrows = 1 nseg = 1 offs = 1
}

// -----

npu.program @p card = 0 core = 1 {
  // expected-error @below {{barrier mask 0x1 does not include this core (1)}}
  npu.barrier id = 0 mask = 1
}

// -----

npu.program @p card = 2 core = 0 {
  // expected-error @below {{peer 2 is not another card of the target}}
  npu.send dram[0x0] bytes = 16 peer = 2 chan = 0
}

// -----

//===----------------------------------------------------------------------===//
// Program structure.
//===----------------------------------------------------------------------===//

// expected-error @below {{'npu.nop' op expects parent op 'npu.program'}}
npu.nop

// -----

npu.program @p card = 0 core = 0 {
  // expected-error @below {{cannot appear in an npu.program: its body holds only npu instruction ops}}
  npu.program @q card = 0 core = 1 {
  }
}

// -----

// expected-error @below {{'npu.program' op card 70000 is not in [0, 65535]}}
npu.program @p card = 70000 core = 0 {
}

// -----

// expected-error @below {{'npu.program' op cannot load target 'no-such-target'}}
npu.program @p card = 0 core = 0 target = "no-such-target" {
  npu.halt
}

// -----

// expected-error @below {{'builtin.module' op 'npu.target' must be a non-empty string naming a target}}
module attributes {npu.target = 3} {
}

// -----

//===----------------------------------------------------------------------===//
// Target-dependent per-instruction rules.
//===----------------------------------------------------------------------===//

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{tile 128x64 (k x n) exceeds the native dimension 64}}
  npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f16, f16 m = 1 k = 128 n = 64 dpitch = 256 apitch = 256
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "brainwave-like" {
  // expected-error @below {{target 'brainwave-like' has no matrix support for f32 weights (core.macs_per_cycle)}}
  npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 1 k = 1 n = 1
  npu.halt
}

// -----

// expected-error @below {{'npu.program' op program is for core 4 but the target has 4 core(s) per card}}
npu.program @p card = 0 core = 4 target = "default" {
  npu.halt
}

// -----

//===----------------------------------------------------------------------===//
// Whole-program rules (verifyProgram), which need a target.
//===----------------------------------------------------------------------===//

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{'npu.nop' op program does not end with halt}}
  npu.nop
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{halt must be the last instruction}}
  npu.halt
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{endloop without a matching loop}}
  npu.endloop
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{reads scalar register s5 before any instruction writes it}}
  npu.dma.ld vrf[s5], dram[0x0], f32 x = 16 y = 1 z = 1
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{writes s0, which is hardwired to zero}}
  npu.s.li s0 imm = 1
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 1 z = 1
  // expected-error @below {{reads the chain but the previous instruction does not forward its result (@chain)}}
  npu.v.relu vrf[0x100], chain, f32, f32 rows = 1 cols = 16
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 1 z = 1
  // expected-error @below {{writes to the chain without @chain: the result is lost}}
  npu.v.relu chain, vrf[0x0], f32, f32 rows = 1 cols = 16
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 1 z = 1
  npu.v.relu chain, vrf[0x0], f32, f32 rows = 1 cols = 16 chain
  // expected-error @below {{chain type mismatch: producer writes f32, this instruction reads f16}}
  npu.v.exp vrf[0x100], chain, f16, f16 rows = 1 cols = 16
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 1 z = 1
  npu.v.relu chain, vrf[0x0], f32, f32 rows = 1 cols = 16 chain
  // expected-error @below {{only the first instruction of a chain may pop tokens}}
  npu.v.exp vrf[0x100], chain, f32, f32 rows = 1 cols = 16 pop_prev
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 1 z = 1
  // expected-error @below {{chain uses 3 MFU operations but the target has 2 MFUs}}
  npu.v.relu chain, vrf[0x0], f32, f32 rows = 1 cols = 16 chain
  npu.v.exp chain, chain, f32, f32 rows = 1 cols = 16 chain
  npu.v.neg vrf[0x100], chain, f32, f32 rows = 1 cols = 16
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{unbalanced dependency tokens: 1 token(s) pushed from ld to ex are never popped}}
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 1 z = 1 push_next
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 16 y = 1 z = 1
  // expected-error @below {{deadlock: this ex instruction waits for a token from ld to ex that is never pushed}}
  npu.v.relu vrf[0x100], vrf[0x0], f32, f32 rows = 1 cols = 16 pop_prev
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{operand 'src' accesses dram[0x100000000, 0x100000040) outside the 4294967296-byte dram}}
  npu.dma.ld vrf[0x0], dram[0x100000000], f32 x = 16 y = 1 z = 1
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  npu.s.li s1 imm = 262144
  // expected-error @below {{operand 'dst' accesses acc[0x40000, 0x40040) outside the 262144-byte acc (s1 = 262144)}}
  npu.dma.ld acc[s1], dram[0x0], f32 x = 16 y = 1 z = 1
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{operand 'dst' address 0x4 in mrf is not 64-byte aligned}}
  npu.dma.ld mrf[0x4], dram[0x0], f32 x = 16 y = 1 z = 1
  npu.halt
}

// -----

npu.program @p card = 0 core = 0 target = "default" {
  // expected-error @below {{operand 'a' reads vector register v0, which no earlier instruction writes}}
  npu.v.relu vrf[0x100], vrf[0x0], f32, f32 rows = 1 cols = 16
  npu.halt
}

// -----

// The module's npu.target applies to programs that name none.
module attributes {npu.target = "default"} {
  npu.program @p card = 0 core = 0 {
    // expected-error @below {{program does not end with halt}}
    npu.nop
  }
}

// -----

func.func @dram_tensor_negative() -> tensor<4xf32> {
  // expected-error @below {{'npu.dram_tensor' op address -64 is negative}}
  %0 = npu.dram_tensor at -64 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dram_tensor_dynamic() -> tensor<?xf32> {
  // expected-error @below {{'npu.dram_tensor' op needs a statically shaped tensor, got 'tensor<?xf32>'}}
  %0 = npu.dram_tensor at 64 : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// expected-error @below {{pinned_mrf must hold [begin, end) pairs}}
npu.program @p card = 0 core = 0 attributes {pinned_mrf = array<i64: 0>} {
  npu.halt
}

// -----

// expected-error @below {{pinned_mrf range [4096, 64) is not a non-empty range of non-negative addresses}}
npu.program @p card = 0 core = 0 attributes {pinned_mrf = array<i64: 4096, 64>} {
  npu.halt
}

// -----

// An mm may read MRF tiles a setup program pinned (pinned_mrf), but not
// the bytes next to them.
npu.program @p card = 0 core = 0 target = "default" attributes {pinned_mrf = array<i64: 0, 16384>} {
  npu.dma.ld vrf[0x0], dram[0x0], f32 x = 64 y = 1 z = 1 push_next
  npu.mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32 m = 1 k = 64 n = 64 pop_prev
  // expected-error @below {{operand 'w' reads mrf bytes [0x4000, 0x4040), which no earlier instruction writes}}
  npu.mm acc[0x0], vrf[0x0], mrf[0x4000], f32, f32, f32 m = 1 k = 64 n = 64
  npu.halt
}
