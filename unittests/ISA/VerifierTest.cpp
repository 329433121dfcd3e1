//===- VerifierTest.cpp - Program verifier --------------------------------===//
//
// One test per class of bad program, each checking the exact diagnostic
// (instruction index and message), plus a few accepted edge cases.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Verifier.h"
#include "nnaccel/ISA/Asm.h"

#include <catch2/catch.hpp>

using namespace nnaccel::isa;

namespace {

const TargetDesc &target() {
  static const TargetDesc t = [] {
    auto r = loadTarget(NNACCEL_TARGETS_DIR "/default.json");
    REQUIRE(r.ok());
    return *r;
  }();
  return t;
}

/// Verifies `body` (wrapped with a trailing halt unless it has one) and
/// returns the diagnostics rendered one per line.
std::string verify(const std::string &body, bool addHalt = true) {
  auto prog = parseAsm(body + (addHalt ? "\nhalt\n" : ""));
  REQUIRE(prog.ok());
  std::string out;
  for (const Diagnostic &d : verifyProgram(*prog, target()))
    out += d.str(&*prog) + "\n";
  return out;
}

std::string err(size_t index, const char *mnemonic, const std::string &msg) {
  return "error: instruction " + std::to_string(index) + " (" + mnemonic +
         "): " + msg + "\n";
}

const char *LoadX =
    "dma.ld vrf[0x0], dram[0x0], f16, x=64, y=8, z=1, sy=128, dpitch=128";

} // namespace

TEST_CASE("verifier accepts a minimal program", "[verifier]") {
  CHECK(verify("") == "");
  CHECK(verify(std::string(LoadX) +
               " @push_next\n"
               "v.relu vrf[0x1000], vrf[0x0], f16, f16, rows=8, cols=64, "
               "dpitch=128, apitch=128 @pop_prev") == "");
}

TEST_CASE("verifier: field ranges and undefined enumerators", "[verifier]") {
  Instruction inst(Opcode::VRelu);
  inst.with("rows", 1).with("cols", 1).with("dst.space", 7);
  Program p;
  p.instructions = {inst, Instruction(Opcode::Halt)};
  auto d = verifyProgram(p, target());
  REQUIRE(d.size() == 1);
  CHECK(d[0].index == 0);
  CHECK(d[0].message ==
        "v.relu: field 'dst.space' value 7 is not a valid memory space (0..5)");
}

TEST_CASE("verifier: operand spaces and element types", "[verifier]") {
  CHECK(verify("mm acc[0x0], vrf[0x0], vrf[0x0], i32, i8, i8, m=1, k=64, "
               "n=64") ==
        err(0, "mm", "operand 'w' may not be in vrf (allowed: mrf)"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], f32, i8, f16, m=1, k=64, "
               "n=64") ==
        err(0, "mm", "unsupported matrix type combination i8 x f16 -> f32"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], i32, i8, i8, m=1, k=65, "
               "n=64") ==
        err(0, "mm", "tile 65x64 (k x n) exceeds the native dimension 64"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], f32, f16, msfp8, m=1, "
               "k=40, n=64") ==
        err(0, "mm", "k 40 is not a multiple of the msfp8 block size 16"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e4m3, m=1, "
               "k=48, n=64") ==
        err(0, "mm", "k 48 is not a multiple of the mxfp8e4m3 block size 32"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], f32, fp8e4m3, mxfp8e4m3, "
               "m=1, k=64, n=64") ==
        err(0, "mm",
            "unsupported matrix type combination fp8e4m3 x mxfp8e4m3 -> "
            "f32"));
  // mxfp8e5m2 (wt code 15 + wvar): the mxfp8e4m3 rules, and wvar only
  // with code 15.
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxfp8e5m2, m=1, "
               "k=48, n=64") ==
        err(0, "mm", "k 48 is not a multiple of the mxfp8e5m2 block size 32"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], f32, fp8e5m2, mxfp8e5m2, "
               "m=1, k=64, n=64") ==
        err(0, "mm",
            "unsupported matrix type combination fp8e5m2 x mxfp8e5m2 -> "
            "f32"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, mxint8, m=1, "
               "k=64, n=64, wvar=1") ==
        err(0, "mm",
            "wvar=1 (E5M2 weight elements) is only defined with "
            "wt=mxfp8e4m3 (code 15; assembly wt=mxfp8e5m2), not wt=mxint8"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, m=1, k=64, "
               "n=64, wvar=1") ==
        err(0, "mm",
            "wvar=1 (E5M2 weight elements) is only defined with "
            "wt=mxfp8e4m3 (code 15; assembly wt=mxfp8e5m2), not wt=f32"));
  CHECK(verify("v.exp vrf[0x0], vrf[0x0], f32, i32, rows=1, cols=4") ==
        err(0, "v.exp", "v.exp needs a floating-point input, got i32"));
  CHECK(verify("v.add vrf[0x0], vrf[0x0], vrf[0x0], f32, f32, i8, rows=1, "
               "cols=4") ==
        err(0, "v.add",
            "operands mix integer and floating types (f32 and "
            "i8)"));
  CHECK(verify("v.mov vrf[0x0], vrf[0x0], f32, f16, rows=1, cols=4") ==
        err(0, "v.mov",
            "v.mov copies bits: dt f32 must equal at f16 (use "
            "v.cvt to convert)"));
  CHECK(verify("dma.st vrf[0x0], dram[0x0], f32, x=1, y=1, z=1") ==
        err(0, "dma.st",
            "operand 'src' may not be in dram (allowed: shared, "
            "vrf, acc)"));
  CHECK(verify("v.relu vrf[0x0], vrf[0x0], f32, f32, rows=4, cols=8, "
               "dpitch=16, apitch=32") ==
        err(0, "v.relu",
            "'dpitch' pitch 16 is smaller than one row (8 x f32 "
            "= 32 bytes)"));
  CHECK(
      verify("emb.gather vrf[0x0], dram[0x0], dram[s0], dram[s0], "
             "dram[s0], f32, fmt=rw8, dim=64, rowbytes=64, nrows=1, nseg=1") ==
      err(0, "emb.gather",
          "rowbytes 64 is smaller than one rw8 row of 64 "
          "elements (72 bytes)"));
}

TEST_CASE("verifier: queue and flag legality", "[verifier]") {
  CHECK(verify(std::string(LoadX) + " @pop_prev") ==
        err(0, "dma.ld",
            "the ld queue has no previous queue (@pop_prev/"
            "@push_prev)"));
  CHECK(verify("s.li s1, imm=1 @push_next") ==
        err(0, "s.li", "control instructions cannot pop or push tokens"));
  CHECK(verify(std::string(LoadX) + " @chain") ==
        err(0, "dma.ld", "@chain is only valid on compute instructions"));
  CHECK(verify("sync ctl") ==
        err(0, "sync", "sync must name the ld, ex or st queue"));
}

TEST_CASE("verifier: memory bounds and alignment", "[verifier]") {
  // vrf is 64 KiB in the default target.
  // Ending exactly at the end of the vrf is fine ...
  CHECK(verify("dma.ld vrf[0xff00], dram[0x0], f32, x=64, y=1, z=1") == "");
  CHECK(verify("dma.ld vrf[0xff04], dram[0x0], f32, x=64, y=1, z=1") ==
        err(0, "dma.ld",
            "operand 'dst' accesses vrf[0xff04, 0x10004) "
            "outside the 65536-byte vrf"));
  // ... and a register offset makes only the last iteration overflow.
  CHECK(verify("loop s1, count=5, step=16384\n"
               "dma.ld vrf[s1], dram[0x0], f32, x=64, y=1, z=1\n"
               "endloop") == err(1, "dma.ld",
                                 "operand 'dst' accesses vrf[0x10000, 0x10100) "
                                 "outside the 65536-byte vrf (s1 = 65536)"));
  CHECK(verify("dma.ld vrf[0x0], dram[0x20], f32, x=64, y=1, z=1") ==
        err(0, "dma.ld",
            "operand 'src' address 0x20 in dram is not 64-byte "
            "aligned"));
  CHECK(verify("dma.ld vrf[0x2], dram[0x0], f32, x=1, y=1, z=1") ==
        err(0, "dma.ld",
            "operand 'dst' address 0x2 in vrf is not 4-byte "
            "aligned"));
}

TEST_CASE("verifier: undefined scalar registers", "[verifier]") {
  CHECK(verify("s.addi s2, s1, imm=4") ==
        err(0, "s.addi",
            "reads scalar register s1 before any instruction "
            "writes it"));
  CHECK(verify("dma.ld vrf[s7], dram[0x0], f32, x=1, y=1, z=1") ==
        err(0, "dma.ld",
            "reads scalar register s7 before any instruction "
            "writes it"));
  CHECK(verify("s.li s0, imm=4") ==
        err(0, "s.li", "writes s0, which is hardwired to zero"));
  CHECK(verify("loop s3, count=2\ns.addi s4, s3, imm=1\nendloop") == "");
}

TEST_CASE("verifier: reads of never-written on-chip memory", "[verifier]") {
  CHECK(verify("v.relu vrf[0x1000], vrf[0x200], f32, f32, rows=1, cols=4") ==
        err(0, "v.relu",
            "operand 'a' reads vector register v2, which no "
            "earlier instruction writes"));
  CHECK(verify("mm acc[0x0], vrf[0x0], mrf[0x0], i32, i8, i8, m=1, k=64, "
               "n=64, acc=1\n") ==
        err(0, "mm",
            "operand 'a' reads vector register v0, which no earlier "
            "instruction writes"));
  CHECK(verify("v.fill vrf[0x0], i8, rows=1, cols=64\n"
               "dma.ld mrf[0x0], dram[0x0], i8, x=64, y=64, z=1, sy=64, "
               "dpitch=64 @push_next\n"
               "mm acc[0x40], vrf[0x0], mrf[0x0], i32, i8, i8, m=1, k=64, "
               "n=64, acc=1 @pop_prev") ==
        err(2, "mm",
            "operand 'dst' reads acc bytes [0x40, 0x80), which no "
            "earlier instruction writes"));
}

TEST_CASE("verifier: dependency tokens", "[verifier]") {
  CHECK(verify(std::string(LoadX) + " @push_next") ==
        err(0, "dma.ld",
            "unbalanced dependency tokens: 1 token(s) pushed "
            "from ld to ex are never popped"));
  CHECK(verify(std::string(LoadX) +
               "\n"
               "v.relu vrf[0x1000], vrf[0x0], f16, f16, rows=8, cols=64, "
               "dpitch=128, apitch=128 @pop_prev") ==
        err(1, "v.relu",
            "deadlock: this ex instruction waits for a token "
            "from ld to ex that is never pushed"));
  // A token cycle: ld waits for ex, which waits for ld.
  CHECK(verify("dma.ld vrf[0x0], dram[0x0], f32, x=1, y=1, z=1 @pop_next "
               "@push_next\n"
               "sync ex @pop_prev @push_prev") ==
        err(0, "dma.ld",
            "deadlock: this ld instruction waits for a token "
            "from ex to ld that is never pushed"));
  // A full token FIFO stalls ld, a full ld queue stalls dispatch, and the
  // st instruction ex waits for is never dispatched.
  std::string full = verify("sync ex @pop_next\n"
                            "loop s1, count=50\nsync ld @push_next\nendloop\n"
                            "sync st @push_prev\n"
                            "loop s1, count=50\nsync ex @pop_prev\nendloop");
  CHECK(full == err(2, "sync",
                    "deadlock: this ld instruction cannot push: "
                    "the ld to ex token FIFO is full (8 tokens "
                    "never popped); dispatch of instruction 2 "
                    "blocks on a full ld queue"));
  CHECK(verify("loop s1, count=8\nsync ld @push_next\nendloop\n"
               "loop s1, count=8\nsync ex @pop_prev\nendloop") == "");
}

TEST_CASE("verifier: loops and halt", "[verifier]") {
  CHECK(verify("loop s1, count=2") ==
        err(1, "halt", "halt inside a loop") +
            err(0, "loop", "loop is never closed by endloop"));
  CHECK(verify("endloop") ==
        err(0, "endloop", "endloop without a matching loop"));
  CHECK(verify("loop s1, count=1\nloop s2, count=1\nloop s3, count=1\n"
               "loop s4, count=1\nloop s5, count=1\nendloop\nendloop\n"
               "endloop\nendloop\nendloop") ==
        err(4, "loop",
            "loop nesting depth 5 exceeds the target's loop_depth "
            "4"));
  CHECK(verify("nop", false) ==
        err(0, "nop", "program does not end with halt"));
  CHECK(verify("halt\nnop", false) ==
        err(0, "halt", "halt must be the last instruction") +
            err(1, "nop", "program does not end with halt"));
  CHECK(verify("s.li s1, imm=-1\nloop.r s2, s1\nendloop") ==
        err(1, "loop.r", "loop count register s1 holds -1"));
  // A zero-trip loop skips its body, including out-of-bounds accesses.
  CHECK(verify("loop s1, count=0\n"
               "dma.ld vrf[0xfffff0], dram[0x0], f32, x=64, y=1, z=1\n"
               "endloop") == "");
}

TEST_CASE("verifier: chains", "[verifier]") {
  const std::string load = std::string(LoadX) + " @push_next\n";
  CHECK(verify(load + "v.relu vrf[0x1000], chain, f16, f16, rows=8, cols=64, "
                      "dpitch=128 @pop_prev") ==
        err(1, "v.relu",
            "reads the chain but the previous instruction does "
            "not forward its result (@chain)"));
  CHECK(verify(load + "v.relu chain, vrf[0x0], f16, f16, rows=8, cols=64, "
                      "apitch=128 @pop_prev @chain\n"
                      "v.exp vrf[0x1000], vrf[0x0], f16, f16, rows=8, cols=64, "
                      "dpitch=128, apitch=128") ==
        err(1, "v.relu",
            "@chain forwards to 'v.exp', which does not read "
            "the chain as operand 'a'"));
  CHECK(verify(load + "v.relu chain, vrf[0x0], f16, f16, rows=8, cols=64, "
                      "apitch=128 @pop_prev") ==
        err(1, "v.relu",
            "writes to the chain without @chain: the result is "
            "lost"));
  CHECK(verify(load + "v.relu chain, vrf[0x0], f16, f16, rows=8, cols=64, "
                      "apitch=128 @pop_prev @chain\n"
                      "v.exp vrf[0x1000], chain, f32, f32, rows=8, cols=64, "
                      "dpitch=256") ==
        err(2, "v.exp",
            "chain type mismatch: producer writes f16, this "
            "instruction reads f32"));
  CHECK(verify(load + "v.relu chain, vrf[0x0], f16, f16, rows=8, cols=64, "
                      "apitch=128 @pop_prev @chain\n"
                      "v.exp vrf[0x1000], chain, f16, f16, rows=4, cols=64, "
                      "dpitch=128") ==
        err(2, "v.exp",
            "chain shape mismatch: producer yields 8x64, this "
            "instruction reads 4x64"));
  CHECK(verify(load + "v.relu chain, vrf[0x0], f16, f16, rows=8, cols=64, "
                      "apitch=128 @pop_prev @chain @push_next\n"
                      "v.exp vrf[0x1000], chain, f16, f16, rows=8, cols=64, "
                      "dpitch=128") ==
        err(1, "v.relu",
            "only the last instruction of a chain may push "
            "tokens"));
  CHECK(verify(load + "v.relu chain, vrf[0x0], f16, f16, rows=8, cols=64, "
                      "apitch=128 @pop_prev @chain\n"
                      "v.exp chain, chain, f16, f16, rows=8, cols=64 @chain\n"
                      "v.tanh vrf[0x1000], chain, f16, f16, rows=8, cols=64, "
                      "dpitch=128") ==
        err(1, "v.relu",
            "chain uses 3 MFU operations but the target has 2 "
            "MFUs"));
  // Chains may not straddle a loop boundary.
  CHECK(verify(load + "loop s1, count=1\n"
                      "v.relu chain, vrf[0x0], f16, f16, rows=8, cols=64, "
                      "apitch=128 @pop_prev @chain\nendloop") ==
        err(2, "v.relu",
            "@chain forwards to 'endloop', which does not read "
            "the chain as operand 'a'"));
}

TEST_CASE("verifier: barriers and card-to-card transfers", "[verifier]") {
  Program p;
  p.core = 2;
  auto parsed = parseAsm("barrier id=3, mask=3\nhalt");
  REQUIRE(parsed.ok());
  p.instructions = parsed->instructions;
  auto d = verifyProgram(p, target());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str(&p) == "error: instruction 0 (barrier): barrier mask 0x3 "
                        "does not include this core (2)");
  CHECK(verify("barrier id=3, mask=0x11") ==
        err(0, "barrier",
            "barrier mask 0x11 names cores beyond the 4 of the "
            "target"));
  CHECK(verify("send shared[0x0], bytes=64, peer=1") ==
        err(0, "send",
            "peer 1 is not another card of the target (cards "
            "0..0, this card 0, 255 = host)"));
  CHECK(verify("recv vrf[0x0], bytes=0, peer=255") ==
        err(0, "recv", "bytes must be at least 1"));
  Program wrongCore;
  wrongCore.core = 9;
  wrongCore.instructions = {Instruction(Opcode::Halt)};
  auto w = verifyProgram(wrongCore, target());
  REQUIRE(w.size() == 1);
  CHECK(w[0].str() == "error: program: program is for core 9 but the target "
                      "has 4 core(s) per card");
}

TEST_CASE("verifier: dispatch budget gives a warning", "[verifier]") {
  auto prog = parseAsm("loop s1, count=100000\nnop\nendloop\nhalt");
  REQUIRE(prog.ok());
  VerifyOptions opts;
  opts.maxDispatched = 1000;
  auto d = verifyProgram(*prog, target(), opts);
  REQUIRE(d.size() == 1);
  CHECK(d[0].severity == Diagnostic::Severity::Warning);
  CHECK(succeeded(d));
  CHECK(d[0].str().rfind("warning: program: dynamic checks stopped after "
                         "1000",
                         0) == 0);
}

TEST_CASE("verifyInstruction is usable on its own", "[verifier]") {
  auto inst = parseInstruction("mm chain, vrf[0x0], mrf[0x0], f32, f16, "
                               "msfp9, m=1, k=64, n=64 @chain");
  REQUIRE(inst.ok());
  CHECK_FALSE(verifyInstruction(*inst, target()));
  auto bw = loadTarget(NNACCEL_TARGETS_DIR "/multicard-6x.json");
  REQUIRE(bw.ok());
  auto e = verifyInstruction(*inst, *bw);
  REQUIRE(e);
  CHECK(e.message() == "target 'multicard-6x' has no matrix support for "
                       "msfp9 weights (core.macs_per_cycle)");
  // mxfp8e4m3 weights: f32/f16/bf16 activations on default; brainwave-like
  // lists no MX mode.
  auto mx = parseInstruction("mm chain, vrf[0x0], mrf[0x0], f32, f16, "
                             "mxfp8e4m3, m=1, k=64, n=64 @chain");
  REQUIRE(mx.ok());
  CHECK_FALSE(verifyInstruction(*mx, target()));
  auto bwl = loadTarget(NNACCEL_TARGETS_DIR "/brainwave-like.json");
  REQUIRE(bwl.ok());
  auto e2 = verifyInstruction(*mx, *bwl);
  REQUIRE(e2);
  CHECK(e2.message().find("no matrix support for mxfp8e4m3 weights") !=
        std::string::npos);
  // mxfp8e5m2 likewise: default lists it, brainwave-like does not.
  auto mx5 = parseInstruction("mm chain, vrf[0x0], mrf[0x0], f32, bf16, "
                              "mxfp8e5m2, m=1, k=64, n=64 @chain");
  REQUIRE(mx5.ok());
  CHECK_FALSE(verifyInstruction(*mx5, target()));
  auto e3 = verifyInstruction(*mx5, *bwl);
  REQUIRE(e3);
  CHECK(e3.message() == "target 'brainwave-like' has no matrix support for "
                        "mxfp8e5m2 weights (core.macs_per_cycle)");
}

TEST_CASE("verifier: compares and v.sel (ISA 1.2)", "[verifier]") {
  const std::string fill = "v.fill vrf[0x0], f32, rows=1, cols=8, dpitch=32\n"
                           "v.fill vrf[0x100], f32, rows=1, cols=8, dpitch=32\n"
                           "v.fill vrf[0x200], u8, rows=1, cols=8, dpitch=8\n";
  // A compare may write its mask in any whole-byte type, not a block type.
  CHECK(verify(fill + "v.clt vrf[0x300], vrf[0x0], vrf[0x100], u8, f32, f32, "
                      "rows=1, cols=8, dpitch=8, apitch=32, bpitch=32")
            .empty());
  CHECK(verify(fill + "v.ceq vrf[0x300], vrf[0x0], vrf[0x100], msfp8, f32, "
                      "f32, rows=1, cols=16, dpitch=9, apitch=64, bpitch=64") ==
        err(3, "v.ceq", "v.ceq cannot write its 0/1 mask as msfp8"));
  // The mask may be in another domain than the values; dst = bt.
  CHECK(verify(fill + "v.sel vrf[0x0], vrf[0x200], vrf[0x100], f32, u8, f32, "
                      "rows=1, cols=8, dpitch=32, apitch=8, bpitch=32")
            .empty());
  CHECK(verify(fill + "v.sel vrf[0x0], vrf[0x200], vrf[0x100], f16, u8, f32, "
                      "rows=1, cols=8, dpitch=16, apitch=8, bpitch=32") ==
        err(3, "v.sel", "v.sel selects bits: dt f16 must equal bt f32"));
  CHECK(verify(fill + "v.sel chain, vrf[0x200], vrf[0x100], f32, u8, f32, "
                      "rows=1, cols=8, apitch=8, bpitch=32 @chain\n"
                      "v.mov vrf[0x0], chain, f32, f32, rows=1, cols=8, "
                      "dpitch=32") ==
        err(3, "v.sel",
            "v.sel reads its destination and cannot write the chain"));
}
