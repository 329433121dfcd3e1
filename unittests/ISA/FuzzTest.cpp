//===- FuzzTest.cpp - Decoding and verifying arbitrary input --------------===//
//
// Bad input must never crash: random bytes, truncations and bit flips of a
// valid program, random assembly text, and random (decodable) instructions
// fed to the verifier. Fixed seeds keep failures reproducible; iteration
// counts keep the whole file well under a second.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Verifier.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

using namespace nnaccel::isa;

namespace {

std::vector<uint8_t> corpusBinary() {
  std::ifstream in(NNACCEL_ISA_CORPUS_DIR "/loop_tiles.s");
  std::ostringstream ss;
  ss << in.rdbuf();
  auto p = parseAsm(ss.str());
  REQUIRE(p.ok());
  auto b = encodeProgram(*p);
  REQUIRE(b.ok());
  return *b;
}

/// Decoding must be total; whatever decodes must re-encode to the same bytes
/// (the encoding is canonical: no two byte strings mean the same program).
void checkDecode(const std::vector<uint8_t> &bytes) {
  auto p = decodeProgram(bytes);
  if (!p.ok()) {
    CHECK(p.message().find("at byte offset") != std::string::npos);
    return;
  }
  auto again = encodeProgram(*p);
  REQUIRE(again.ok());
  CHECK(*again == bytes);
}

} // namespace

TEST_CASE("decoding random bytes never crashes", "[fuzz]") {
  std::mt19937_64 rng(0x5eed);
  std::vector<uint8_t> buf;
  for (int iter = 0; iter < 4000; ++iter) {
    buf.resize(rng() % 200);
    for (auto &b : buf)
      b = static_cast<uint8_t>(rng());
    checkDecode(buf);
    // Single words, with a plausible opcode to get past the first check.
    uint8_t word[WordBytes];
    for (auto &b : word)
      b = static_cast<uint8_t>(rng());
    word[0] = static_cast<uint8_t>(AllOpcodes[rng() % NumOpcodes]);
    auto inst = decode(word, sizeof word, 0);
    if (inst.ok()) {
      auto w = encode(*inst);
      REQUIRE(w.ok());
      CHECK(std::equal(w->begin(), w->end(), word));
    }
  }
}

TEST_CASE("truncations and bit flips of a valid program", "[fuzz]") {
  const std::vector<uint8_t> good = corpusBinary();
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + n);
    auto p = decodeProgram(cut);
    CHECK_FALSE(p.ok());
  }
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 5000; ++iter) {
    std::vector<uint8_t> b = good;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      size_t bit = rng() % (b.size() * 8);
      b[bit / 8] = static_cast<uint8_t>(b[bit / 8] ^ (1u << (bit % 8)));
    }
    checkDecode(b);
  }
}

TEST_CASE("random assembly text never crashes the parser", "[fuzz]") {
  std::mt19937_64 rng(7);
  const std::string alphabet = "abcdefsv.0123456789x[]+-=,@ #;\n\tmdlr";
  std::vector<std::string> seeds = {
      "dma.ld vrf[0x0], dram[0x40+s1], f32, x=4, y=1, z=1 @push_next",
      "mm acc[0x0], vrf[0x0], mrf[0x0], i32, i8, i4, m=1, k=64, n=64",
      "v.add chain, chain, vrf[0x0], f16, f16, f16, rows=1, cols=1 @chain",
      ".core card=1, core=2", "vs.max vrf[0x0], vrf[0x0], f32, f32, imm=1e3"};
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s = seeds[rng() % seeds.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      size_t pos = rng() % s.size();
      switch (rng() % 3) {
      case 0:
        s[pos] = alphabet[rng() % alphabet.size()];
        break;
      case 1:
        s.erase(pos, 1 + rng() % 5);
        break;
      default:
        s.insert(pos, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    auto p = parseAsm(s);
    if (p.ok()) {
      // Anything the parser accepts prints and re-parses to the same thing.
      auto again = parseAsm(printAsm(*p));
      REQUIRE(again.ok());
      CHECK(*again == *p);
    } else {
      CHECK(p.message().find(':') != std::string::npos);
    }
  }
}

TEST_CASE("the verifier survives arbitrary decodable programs", "[fuzz]") {
  auto target = loadTarget(NNACCEL_TARGETS_DIR "/default.json");
  REQUIRE(target.ok());
  std::mt19937_64 rng(1234);
  VerifyOptions opts;
  opts.maxDispatched = 20000;
  size_t accepted = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    Program p;
    size_t n = 1 + rng() % 12;
    for (size_t i = 0; i < n; ++i) {
      Instruction inst(AllOpcodes[rng() % NumOpcodes]);
      const InstrDesc &d = inst.desc();
      for (unsigned f = 0; f < d.numFields; ++f) {
        int64_t lo = d.fields[f].minValue(), hi = d.fields[f].maxValue();
        // Mostly small values so that some programs get past phase 1.
        uint64_t span = static_cast<uint64_t>(hi - lo);
        uint64_t pick = rng() % 4 ? rng() % std::min<uint64_t>(span + 1, 70)
                                  : rng() % (span + 1);
        inst.fields[f] = lo + static_cast<int64_t>(pick);
      }
      inst.flags = static_cast<uint8_t>(rng() % 4 ? 0 : rng() & FlagsMask);
      p.instructions.push_back(inst);
    }
    if (rng() % 2)
      p.instructions.push_back(Instruction(Opcode::Halt));
    auto diags = verifyProgram(p, *target, opts);
    accepted += succeeded(diags);
    for (const Diagnostic &d : diags)
      CHECK_FALSE(d.message.empty());
  }
  // The generator is random; the test is that nothing crashed or hung.
  CHECK(accepted < 1500);
}
