//===- AsmTest.cpp - Assembler and disassembler ---------------------------===//
//
// asm -> binary -> asm identity over the corpus (unittests/ISA/corpus/*.s),
// the corpus verifying clean against the default target, and the assembler's
// line:column diagnostics.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Target.h"
#include "nnaccel/ISA/Verifier.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace nnaccel::isa;
namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The source without comment-only and blank lines: what the canonical
/// printer reproduces.
std::string stripComments(const std::string &text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    out += line + "\n";
  }
  return out;
}

std::vector<fs::path> corpusFiles() {
  std::vector<fs::path> files;
  for (const auto &e : fs::directory_iterator(NNACCEL_ISA_CORPUS_DIR))
    if (e.path().extension() == ".s")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string parseError(std::string_view text) {
  auto p = parseAsm(text);
  return p.ok() ? std::string("<parsed>") : p.message();
}

} // namespace

TEST_CASE("corpus: asm -> binary -> asm is the identity", "[asm]") {
  auto files = corpusFiles();
  REQUIRE(files.size() >= 5);
  for (const fs::path &f : files) {
    INFO(f.filename().string());
    std::string src = readFile(f);
    auto prog = parseAsm(src);
    REQUIRE(prog.ok());
    auto bin = encodeProgram(*prog);
    REQUIRE(bin.ok());
    auto back = decodeProgram(*bin);
    REQUIRE(back.ok());
    CHECK(*back == *prog);
    CHECK(printAsm(*back) == stripComments(src));
  }
}

TEST_CASE("corpus programs verify against the default target", "[asm]") {
  auto target = loadTarget(NNACCEL_TARGETS_DIR "/default.json");
  REQUIRE(target.ok());
  for (const fs::path &f : corpusFiles()) {
    INFO(f.filename().string());
    auto prog = parseAsm(readFile(f));
    REQUIRE(prog.ok());
    auto diags = verifyProgram(*prog, *target);
    for (const Diagnostic &d : diags)
      UNSCOPED_INFO(d.str(&*prog));
    CHECK(diags.empty());
  }
}

TEST_CASE("keyword operands may be reordered and positional ones named",
          "[asm]") {
  auto a = parseInstruction("mm acc[0x0], vrf[0x40+s2], mrf[0x0], i32, i8, "
                            "i4, m=4, k=64, n=32, dpitch=128, apitch=64");
  auto b = parseInstruction("mm apitch=64, dpitch=128, n=32, k=0x40, m=4, "
                            "wt=i4, at=i8, dt=i32, w=mrf[0], a=vrf[s2+64], "
                            "dst=acc[0]  ; comment");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);
  CHECK(printInstruction(*b) == "mm acc[0x0], vrf[0x40+s2], mrf[0x0], i32, "
                                "i8, i4, m=4, k=64, n=32, dpitch=128, "
                                "apitch=64");
}

TEST_CASE("mxfp8e4m3 (dtype 15) assembles, encodes and prints back", "[asm]") {
  std::string src = "mm acc[0x0], vrf[0x0], mrf[0x40], f32, f32, mxfp8e4m3, "
                    "m=1, k=64, n=64\nhalt\n";
  auto prog = parseAsm(src);
  REQUIRE(prog.ok());
  auto bin = encodeProgram(*prog);
  REQUIRE(bin.ok());
  auto back = decodeProgram(*bin);
  REQUIRE(back.ok());
  CHECK(*back == *prog);
  CHECK(printAsm(*back).find("mxfp8e4m3") != std::string::npos);
}

TEST_CASE("mxfp8e5m2 weights are wt=mxfp8e5m2 in assembly (code 15 + wvar)",
          "[asm]") {
  const std::string canonical =
      ".isa 1.1\n.core card=0, core=0\n"
      "mm acc[0x0], vrf[0x0], mrf[0x40], f32, f32, mxfp8e5m2, m=1, k=64, "
      "n=64\nhalt\n";
  auto prog = parseAsm(canonical);
  REQUIRE(prog.ok());
  const Instruction &mm = prog->instructions[0];
  CHECK(mm.get("wt") == int64_t(DType::MXFP8E4M3));
  CHECK(mm.get("wvar") == 1);
  // asm -> binary -> asm is the identity, and the printer names the type
  // rather than the bit.
  auto bin = encodeProgram(*prog);
  REQUIRE(bin.ok());
  auto back = decodeProgram(*bin);
  REQUIRE(back.ok());
  CHECK(*back == *prog);
  CHECK(printAsm(*back) == canonical);
  // Other spellings of the same fields: the keyword form, and code 15 with
  // the bit spelt out.
  for (const char *text :
       {"mm acc[0x0], vrf[0x0], mrf[0x40], f32, f32, m=1, k=64, n=64, "
        "wt=mxfp8e5m2",
        "mm acc[0x0], vrf[0x0], mrf[0x40], f32, f32, mxfp8e4m3, m=1, k=64, "
        "n=64, wvar=1"}) {
    INFO(text);
    auto p = parseInstruction(text);
    REQUIRE(p.ok());
    CHECK(*p == mm);
  }
  // wvar on another weight code is kept as a keyword (the verifier rejects
  // it), so the disassembler still shows what the word holds.
  auto odd = parseInstruction("mm acc[0x0], vrf[0x0], mrf[0x40], f32, f32, "
                              "mxint8, m=1, k=64, n=64, wvar=1");
  REQUIRE(odd.ok());
  CHECK(printInstruction(*odd) == "mm acc[0x0], vrf[0x0], mrf[0x40], f32, "
                                  "f32, mxint8, m=1, k=64, n=64, wvar=1");
  // Programs without the bit still print (and encode) as ISA 1.0.
  auto e4 = parseAsm("mm acc[0x0], vrf[0x0], mrf[0x40], f32, f32, "
                     "mxfp8e4m3, m=1, k=64, n=64\nhalt\n");
  REQUIRE(e4.ok());
  CHECK(printAsm(*e4).rfind(".isa 1.0\n", 0) == 0);
  // A program that declares 1.0 cannot use the 1.1 bit; mxfp8e5m2 is not a
  // type of any other field.
  CHECK(parseError(".isa 1.0\nmm acc[0x0], vrf[0x0], mrf[0x40], f32, f32, "
                   "mxfp8e5m2, m=1, k=64, n=64\n") ==
        "2:1: mm: wt=mxfp8e5m2 / wvar needs '.isa 1.1' or later (declared "
        "1.0)");
  CHECK(parseError("v.cvt vrf[0x0], vrf[0x0], mxfp8e5m2, f32, rows=1, "
                   "cols=32\n")
            .find("unknown value 'mxfp8e5m2' for 'dt'") != std::string::npos);
}

TEST_CASE("float immediates print exactly", "[asm]") {
  auto check = [](uint32_t bits) {
    Instruction inst(Opcode::VsAdd);
    inst.with("imm", bits);
    auto back = parseInstruction(printInstruction(inst));
    REQUIRE(back.ok());
    CHECK(static_cast<uint32_t>(back->get("imm")) == bits);
  };
  check(0x80000000u); // -0.0
  check(0x7FC00001u); // NaN with payload
  check(0xFF800000u); // -inf
  check(0x00000001u); // smallest subnormal
  check(0x3DCCCCCDu); // 0.1f
  auto p = parseInstruction("v.fill vrf[0x0], f32, rows=1, cols=1, imm=0.5");
  REQUIRE(p.ok());
  CHECK(p->get("imm") == 0x3F000000);
}

TEST_CASE("assembler errors carry line:column", "[asm]") {
  CHECK(parseError("nop\n  v.bogus vrf[0x0]") ==
        "2:3: unknown instruction 'v.bogus'");
  CHECK(parseError("v.relu vrm[0x0], vrf[0x0], f32, f32") ==
        "1:8: unknown memory space 'vrm' for operand 'dst' (expected dram, "
        "shared, vrf, mrf, acc or chain)");
  CHECK(parseError("v.relu vrf[0x0], vrf[0x0], f32") ==
        "1:31: missing operand 'at' of 'v.relu'");
  CHECK(parseError("dma.ld vrf[0x0], dram[0x0], f32, y=5000") ==
        "1:36: value 5000 out of range [0, 4095] for 'y' (12 bits)");
  CHECK(parseError("halt @pop_later") ==
        "1:6: unknown flag '@pop_later' (expected @pop_prev, @pop_next, "
        "@push_prev, @push_next or @chain)");
  CHECK(parseError("halt @chain @chain") == "1:13: flag '@chain' given twice");
  CHECK(parseError("loop s1, count=2, count=3") ==
        "1:19: operand 'count' given twice");
  CHECK(parseError("loop s1, cnt=2") == "1:10: 'loop' has no operand named "
                                        "'cnt'");
  CHECK(parseError("s.li s32, imm=1") ==
        "1:6: expected a scalar register s0..s31 for 'rd', got 's32'");
  CHECK(parseError("v.relu vrf[0x0], vrf[0x0], f33, f32") ==
        "1:28: unknown value 'f33' for 'dt' (expected one of: f32, f16, "
        "bf16, i32, i16, i8, u8, i4, u4, fp8e4m3, fp8e5m2, msfp8, msfp9, "
        "mxint8, i64, mxfp8e4m3)");
  CHECK(parseError("emb.gather vrf[0x0], dram[0x0], dram[0x10], dram[s1], "
                   "dram[s1], f32") ==
        "1:38: operand 'idx' is register-indirect: write dram[sN]");
  CHECK(parseError("v.relu vrf[0x0 + s1 + s2], vrf[0x0], f32, f32") ==
        "1:23: memory operand has two offset registers");
  CHECK(parseError(".isa 2.0") == "1:6: unsupported ISA version 2.0 (this "
                                  "assembler implements 1.2)");
  CHECK(parseError(".core card=1, core=70000") ==
        "1:20: expected an integer in [0, 65535]");
  CHECK(parseError(".org 0") == "1:1: unknown directive '.org'");
  CHECK(parseError("halt\n.isa 1.0") ==
        "2:1: '.isa' must appear once, before any instruction");
  CHECK(parseError("nop nop") == "1:5: too many positional operands for "
                                 "'nop'");
  CHECK(parseError("s.li s1, imm=1.5") ==
        "1:14: expected an integer for 'imm', got '1.5'");
}
