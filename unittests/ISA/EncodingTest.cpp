//===- EncodingTest.cpp - Instruction tables and binary encoding ----------===//
//
// Round trips every instruction through the binary encoding (and the
// assembler) with boundary field values, and checks that the decoder rejects
// each malformed input with the byte offset of the problem.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Builders.h"
#include "nnaccel/ISA/Decoded.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace nnaccel::isa;

namespace {

/// Fills every field of `op` with its minimum, maximum or a mid pattern.
Instruction boundary(Opcode op, int mode, uint8_t flags) {
  Instruction inst(op);
  inst.flags = flags;
  const InstrDesc &d = inst.desc();
  for (unsigned i = 0; i < d.numFields; ++i) {
    const FieldDesc &f = d.fields[i];
    int64_t lo = f.minValue(), hi = f.maxValue();
    inst.fields[i] = mode == 0 ? lo : mode == 1 ? hi : lo + (hi - lo) / 3;
  }
  return inst;
}

} // namespace

TEST_CASE("instruction table is consistent", "[encoding]") {
  std::set<std::string> mnemonics;
  std::set<unsigned> opcodes;
  for (Opcode op : AllOpcodes) {
    const InstrDesc &d = getDesc(op);
    CHECK(d.opcode == op);
    CHECK(mnemonics.insert(d.mnemonic).second);
    CHECK(opcodes.insert(static_cast<unsigned>(op)).second);
    CHECK(d.usedBits <= WordBits);
    CHECK(lookupMnemonic(d.mnemonic) == &d);
    CHECK(lookupOpcode(static_cast<uint8_t>(op)) == &d);
    std::set<std::string> names;
    unsigned expectOffset = HeaderBits;
    for (unsigned i = 0; i < d.numFields; ++i) {
      CHECK(names.insert(d.fields[i].name).second);
      CHECK(d.fields[i].offset == expectOffset);
      CHECK(d.fields[i].width >= 1);
      CHECK(d.fields[i].width <= 63);
      expectOffset += d.fields[i].width;
    }
    CHECK(d.usedBits == expectOffset);
  }
  CHECK(NumOpcodes >= 45);
  CHECK(lookupMnemonic("v.bogus") == nullptr);
  CHECK(lookupOpcode(0xFF) == nullptr);
}

TEST_CASE("every instruction round-trips with boundary fields", "[encoding]") {
  const uint8_t flagSets[] = {0, FlagsMask, FlagPopPrev | FlagPushNext,
                              FlagChain};
  for (Opcode op : AllOpcodes)
    for (int mode = 0; mode < 3; ++mode)
      for (uint8_t flags : flagSets) {
        Instruction inst = boundary(op, mode, flags);
        INFO(getDesc(op).mnemonic << " mode " << mode << " flags "
                                  << unsigned(flags));
        auto word = encode(inst);
        REQUIRE(word.ok());
        CHECK((*word)[0] == static_cast<uint8_t>(op));
        auto back = decode(word->data(), word->size(), 0);
        REQUIRE(back.ok());
        CHECK(*back == inst);
        // The assembler is exact too: print -> parse gives the same fields.
        std::string text = printInstruction(inst);
        auto parsed = parseInstruction(text);
        INFO(text);
        REQUIRE(parsed.ok());
        CHECK(*parsed == inst);
      }
}

TEST_CASE("signed fields keep their sign through the encoding", "[encoding]") {
  Instruction inst(Opcode::SLi);
  inst.with("rd", 7).with("imm", -1);
  auto w = encode(inst);
  REQUIRE(w.ok());
  auto back = decode(w->data(), w->size(), 0);
  REQUIRE(back.ok());
  CHECK(back->get("imm") == -1);
  CHECK(back->get("rd") == 7);
}

TEST_CASE("encoder rejects out-of-range fields naming the field",
          "[encoding]") {
  Instruction inst(Opcode::DmaLd);
  inst.with("y", 4096);
  auto w = encode(inst);
  REQUIRE_FALSE(w.ok());
  CHECK(w.message() == "dma.ld: field 'y' value 4096 out of range [0, 4095] "
                       "(12 bits)");

  Instruction bad(Opcode::VAdd);
  // Every 4-bit dtype value is defined since mxfp8e4m3 (15); the 3-bit
  // space field still has undefined values.
  bad.with("dst.space", 7);
  auto w2 = encode(bad);
  REQUIRE_FALSE(w2.ok());
  CHECK(w2.message().find("field 'dst.space' value 7 is not a valid "
                          "memory space") != std::string::npos);

  Instruction neg(Opcode::Mm);
  neg.with("azp", -257);
  CHECK_FALSE(encode(neg).ok());
  Instruction flags(Opcode::Nop);
  flags.flags = 0x20;
  CHECK(encode(flags).message() == "nop: undefined flag bits 0x20");
}

TEST_CASE("decoder rejects malformed words with byte offsets", "[encoding]") {
  Program p;
  p.instructions.push_back(Instruction(Opcode::Nop));
  p.instructions.push_back(
      Instruction(Opcode::VRelu).with("rows", 1).with("cols", 1));
  auto bytes = encodeProgram(p);
  REQUIRE(bytes.ok());
  std::vector<uint8_t> b = *bytes;

  SECTION("unknown opcode") {
    b[64] = 0xEE;
    auto r = decodeProgram(b);
    REQUIRE_FALSE(r.ok());
    CHECK(r.message() == "instruction 1: at byte offset 64: unknown opcode "
                         "0xee");
  }
  SECTION("reserved header bits") {
    b[33] |= 0x80;
    auto r = decode(b, 32);
    REQUIRE_FALSE(r.ok());
    CHECK(r.message() == "at byte offset 33: nop: reserved header bits 13-15 "
                         "are 0x4, must be zero");
  }
  SECTION("reserved tail bits") {
    b[64 + 31] = 1;
    auto r = decode(b, 64);
    REQUIRE_FALSE(r.ok());
    CHECK(r.message().rfind("at byte offset 95: v.relu: reserved bits", 0) ==
          0);
  }
  SECTION("undefined enumerator") {
    // v.relu: dst.space is the first field, at bit 16 (byte 2).
    b[64 + 2] = 7;
    auto r = decode(b, 64);
    REQUIRE_FALSE(r.ok());
    CHECK(r.message() == "at byte offset 66: v.relu: field 'dst.space' has "
                         "undefined value 7");
  }
  SECTION("truncated word") {
    auto r = decode(b.data(), b.size() - 1, 64);
    REQUIRE_FALSE(r.ok());
    CHECK(r.message() == "at byte offset 64: truncated instruction: 31 bytes "
                         "available, 32 needed");
  }
}

TEST_CASE("program container header is validated", "[encoding]") {
  Program p;
  p.card = 3;
  p.core = 9;
  p.instructions.push_back(Instruction(Opcode::Halt));
  auto bytes = encodeProgram(p);
  REQUIRE(bytes.ok());
  REQUIRE(bytes->size() == BinaryHeader::Size + WordBytes);
  const std::vector<uint8_t> &b = *bytes;
  CHECK(std::string(b.begin(), b.begin() + 4) == "NNPU");
  CHECK(b[4] == IsaVersionMajor);
  CHECK(b[8] == 1);
  CHECK(b[12] == WordBytes);
  CHECK(b[16] == 3);
  CHECK(b[18] == 9);
  auto back = decodeProgram(b);
  REQUIRE(back.ok());
  CHECK(*back == p);

  auto corrupt = [&](size_t at, uint8_t v) {
    std::vector<uint8_t> c = b;
    c[at] = v;
    return decodeProgram(c).message();
  };
  CHECK(corrupt(0, 'X') == "at byte offset 0: bad magic, not an NNPU program");
  CHECK(corrupt(4, 2).rfind("at byte offset 4: unsupported ISA version 2.0",
                            0) == 0);
  CHECK(corrupt(12, 16) == "at byte offset 12: word size 16 bytes, expected "
                           "32");
  CHECK(corrupt(14, 1) == "at byte offset 14: undefined header flags 0x0001");
  CHECK(corrupt(25, 1) == "at byte offset 25: reserved header byte is "
                          "nonzero");
  CHECK(corrupt(8, 2).find("header declares 2 instructions (96 bytes) but "
                           "the file has 64 bytes") != std::string::npos);
  std::vector<uint8_t> shortHeader(b.begin(), b.begin() + 10);
  CHECK(decodeProgram(shortHeader).message() ==
        "at byte offset 0: truncated header: 10 bytes, need 32");
}

TEST_CASE("field accessors", "[encoding]") {
  Instruction inst(Opcode::Mm);
  CHECK(inst.set("k", 64));
  CHECK_FALSE(inst.set("nonexistent", 1));
  CHECK(inst.get("k") == 64);
  CHECK(inst.get("nonexistent") == 0);
  CHECK(inst.desc().fieldIndex("w.addr").has_value());
  CHECK(inst.queue() == Queue::Ex);
  Instruction sync(Opcode::Sync);
  sync.with("q", static_cast<int64_t>(Queue::St));
  CHECK(sync.queue() == Queue::St);
  CHECK(rowBytes(DType::MSFP8, 64) == 36);
  CHECK(rowBytes(DType::MXINT8, 64) == 66);
  CHECK(rowBytes(DType::I4, 7) == 4);
  CHECK(rowBytes(DType::BF16, 7) == 14);
}

TEST_CASE("mm's wvar bit: mxfp8e5m2 is code 15 plus bit 254, ISA 1.1",
          "[encoding]") {
  // The typed builder takes the weight type the unit computes with.
  Instruction e5m2 = build::Mm()
                         .dst(Space::Acc, 0)
                         .a(Space::Vrf, 0)
                         .w(Space::Mrf, 0x40)
                         .dt(DType::F32)
                         .at(DType::F32)
                         .wt(DType::MXFP8E5M2)
                         .m(1)
                         .k(64)
                         .n(64);
  CHECK(e5m2.get("wt") == int64_t(DType::MXFP8E4M3));
  CHECK(e5m2.get("wvar") == 1);
  CHECK(decode(e5m2).wt == DType::MXFP8E5M2);
  CHECK(decode(e5m2).wvar);
  // The same word with wvar = 0 is mxfp8e4m3, the only difference bit 254
  // (bit 6 of byte 31).
  Instruction e4m3 = e5m2;
  e4m3.set("wvar", 0);
  CHECK(decode(e4m3).wt == DType::MXFP8E4M3);
  auto w5 = encode(e5m2), w4 = encode(e4m3);
  REQUIRE(w5.ok());
  REQUIRE(w4.ok());
  CHECK((*w5)[31] == 0x40);
  CHECK((*w4)[31] == 0x00);
  for (unsigned i = 0; i < 31; ++i)
    CHECK((*w5)[i] == (*w4)[i]);
  // wt (bits 168-171) holds code 15 in both.
  CHECK(((*w5)[21] & 0x0F) == 15);
  // Setting another weight type clears the bit again.
  Instruction back = build::Mm().wt(DType::MXFP8E5M2).wt(DType::MXINT8);
  CHECK(back.get("wvar") == 0);
  CHECK(back.get("wt") == int64_t(DType::MXINT8));

  // The header records the lowest minor the program needs: 1.1 with wvar,
  // 1.0 (byte-identical to before the bit existed) without.
  Program p5, p4;
  p5.instructions = {e5m2, Instruction(Opcode::Halt)};
  p4.instructions = {e4m3, Instruction(Opcode::Halt)};
  CHECK(p5.requiredMinor() == 1);
  CHECK(p4.requiredMinor() == 0);
  auto b5 = encodeProgram(p5), b4 = encodeProgram(p4);
  REQUIRE(b5.ok());
  REQUIRE(b4.ok());
  CHECK((*b5)[6] == 1);
  CHECK((*b4)[6] == 0);
  auto d5 = decodeProgram(*b5);
  REQUIRE(d5.ok());
  CHECK(*d5 == p5);
  CHECK(decode(d5->instructions[0]).wt == DType::MXFP8E5M2);

  // A 1.0 header cannot carry the bit: for a 1.0 decoder it is reserved.
  std::vector<uint8_t> old = *b5;
  old[6] = 0;
  auto r = decodeProgram(old);
  REQUIRE_FALSE(r.ok());
  CHECK(r.message() == "instruction 0: at byte offset 63: mm: wvar (bit 254) "
                       "is an ISA 1.1 field but the header says 1.0");
  // A 1.1 header on a program that needs only 1.0 is kept: it decodes,
  // re-encodes to the same bytes and says 1.1.
  std::vector<uint8_t> declared = *b4;
  declared[6] = 1;
  auto d4 = decodeProgram(declared);
  REQUIRE(d4.ok());
  CHECK(d4->isaMinor == 1);
  CHECK(d4->versionMinor() == 1);
  auto again = encodeProgram(*d4);
  REQUIRE(again.ok());
  CHECK(*again == declared);
  // Minors above this library's are still rejected.
  old[6] = 3;
  CHECK(decodeProgram(old).message() ==
        "at byte offset 4: unsupported ISA version 1.3 (this decoder "
        "implements 1.2)");

  // mxfp8e5m2 has no 4-bit code: any other type field rejects it.
  Instruction dma = build::DmaLd().dt(DType::MXFP8E5M2).x(32).y(1).z(1);
  auto wd = encode(dma);
  REQUIRE_FALSE(wd.ok());
  CHECK(wd.message() == "dma.ld: field 'dt' value 20 is not a valid "
                        "enumerator (0..15)");
  CHECK(storageCode(DType::MXFP8E5M2) == DType::MXFP8E4M3);
  CHECK(storageCode(DType::MXINT8) == DType::MXINT8);
}

TEST_CASE("ISA 1.2 opcodes raise the header's minor and are rejected under "
          "1.1",
          "[encoding]") {
  auto prog = parseAsm("v.fill vrf[0x0], f32, rows=1, cols=8, dpitch=32\n"
                       "v.gelut vrf[0x0], vrf[0x0], f32, f32, rows=1, "
                       "cols=8, dpitch=32, apitch=32\nhalt\n");
  REQUIRE(prog.ok());
  CHECK(prog->requiredMinor() == 2);
  auto bytes = encodeProgram(*prog);
  REQUIRE(bytes.ok());
  CHECK((*bytes)[6] == 2);
  auto back = decodeProgram(*bytes);
  REQUIRE(back.ok());
  CHECK(*back == *prog);
  std::vector<uint8_t> old = *bytes;
  old[6] = 1;
  CHECK(decodeProgram(old).message() ==
        "instruction 1: at byte offset 64: v.gelut: opcode 0x43 (v.gelut) is "
        "an ISA 1.2 instruction but the header says 1.1");
  auto declared = parseAsm(".isa 1.1\nv.sel vrf[0x0], vrf[0x100], "
                           "vrf[0x200], f32, u8, f32, rows=1, cols=8\nhalt\n");
  CHECK(declared.message() ==
        "2:1: v.sel: the opcode needs '.isa 1.2' or later (declared 1.1)");
}
