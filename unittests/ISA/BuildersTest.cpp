//===- BuildersTest.cpp - Typed builders, field indices, decoded form -----===//
//
// The generated layers over Instructions.def agree with the descriptor
// tables: every builder writes the field its setter names, family builders
// lay fields out like their members, decode() fills every member from the
// field of the same name, and the footprints computed from the decoded form
// are the ones the field names describe.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Builders.h"
#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Decoded.h"
#include "nnaccel/ISA/Fields.h"
#include "nnaccel/ISA/Operands.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>

using namespace nnaccel::isa;

TEST_CASE("field enumerations match the descriptors", "[builders]") {
#define NNACCEL_INST(Name, Op, Mn, Q, Fields)                                  \
  CHECK(field::Name::NumFields == getDesc(Opcode::Name).numFields);
#include "nnaccel/ISA/Instructions.def"
  const InstrDesc &mm = getDesc(Opcode::Mm);
  CHECK(std::string(mm.fields[field::Mm::k].name) == "k");
  CHECK(std::string(mm.fields[field::Mm::w_addr].name) == "w.addr");
  const InstrDesc &gather = getDesc(Opcode::EmbGather);
  CHECK(std::string(gather.fields[field::EmbGather::idx_reg].name) ==
        "idx.reg");
  CHECK(std::string(gather.fields[field::EmbGather::weighted].name) ==
        "weighted");
}

TEST_CASE("typed builders write the named fields", "[builders]") {
  Instruction mm = build::Mm()
                       .dst(Space::Acc, 0x100)
                       .a(Space::Vrf, 0x40, 3)
                       .w(MemRef{Space::Mrf, 0x4000, 0})
                       .dt(DType::F32)
                       .at(DType::F16)
                       .wt(DType::BF16)
                       .m(8)
                       .k(64)
                       .n(32)
                       .apitch(128)
                       .acc(true)
                       .azp(-3);
  CHECK(mm.opcode == Opcode::Mm);
  CHECK(mm.get("dst.space") == int64_t(Space::Acc));
  CHECK(mm.get("dst.addr") == 0x100);
  CHECK(mm.get("a.reg") == 3);
  CHECK(mm.get("w.addr") == 0x4000);
  CHECK(mm.get("at") == int64_t(DType::F16));
  CHECK(mm.get("wt") == int64_t(DType::BF16));
  CHECK(mm.get("k") == 64);
  CHECK(mm.get("acc") == 1);
  CHECK(mm.get("azp") == -3);
  CHECK(printInstruction(mm) ==
        "mm acc[0x100], vrf[0x40+s3], mrf[0x4000], f32, f16, bf16, m=8, "
        "k=64, n=32, apitch=128, acc=1, azp=-3");

  Instruction fill =
      build::VFill().dst(Space::Vrf, 0).rows(1).cols(4).imm(1.5f);
  float value;
  uint32_t bits = uint32_t(fill.get("imm"));
  std::memcpy(&value, &bits, sizeof(value));
  CHECK(value == 1.5f);

  Instruction gather = build::EmbGather()
                           .idx(Space::Dram, 1)
                           .len(Space::Vrf, 2)
                           .pool(Pool::Mean)
                           .ityp(IdxType::I64)
                           .chained(false);
  CHECK(gather.get("idx.reg") == 1);
  CHECK(gather.get("len.space") == int64_t(Space::Vrf));
  CHECK(gather.get("pool") == int64_t(Pool::Mean));
  CHECK(gather.flags == 0);

  Instruction sync = build::Sync().q(Queue::Ex);
  CHECK(sync.queue() == Queue::Ex);
}

TEST_CASE("family builders lay out fields like their members", "[builders]") {
  Instruction viaFamily = build::VectorBinary(Opcode::VMax)
                              .dst(Space::Vrf, 64)
                              .a(Space::Vrf, 0)
                              .b(Space::Acc, 128)
                              .bt(DType::F16)
                              .rows(2)
                              .cols(16)
                              .bcast(Bcast::Row)
                              .chained();
  Instruction direct = build::VMax()
                           .dst(Space::Vrf, 64)
                           .a(Space::Vrf, 0)
                           .b(Space::Acc, 128)
                           .bt(DType::F16)
                           .rows(2)
                           .cols(16)
                           .bcast(Bcast::Row)
                           .chained();
  CHECK(viaFamily == direct);
  CHECK((viaFamily.flags & FlagChain) != 0);
  CHECK(familyOf(Opcode::VRsum) == Family::VectorReduce);
  CHECK(familyOf(Opcode::VsMin) == Family::VectorScalar);
  CHECK(familyOf(Opcode::VRqnt) == Family::VectorQuant);
  CHECK(familyOf(Opcode::Mm) == Family::None);
  Instruction reduce =
      build::VectorReduce(Opcode::VRmax).rows(3).cols(5).axis(Axis::Rows);
  CHECK(reduce.get("axis") == int64_t(Axis::Rows));
}

TEST_CASE("decode fills every member from its field", "[builders]") {
  // Every field of every opcode gets a distinct in-range value; the decoded
  // member of the same name must hold it.
  for (Opcode op : AllOpcodes) {
    const InstrDesc &desc = getDesc(op);
    Instruction inst(op);
    for (unsigned i = 0; i < desc.numFields; ++i) {
      const FieldDesc &f = desc.fields[i];
      inst.fields[i] = std::min<int64_t>(f.maxValue(), i + 1);
    }
    DecodedInstruction d = decode(inst);
    INFO(desc.mnemonic);
    CHECK(d.opcode == op);
    for (unsigned i = 0; i < desc.numFields; ++i) {
      std::string name = desc.fields[i].name;
      int64_t v = inst.fields[i];
      INFO(name);
      if (name == "dt")
        CHECK(int64_t(d.dt) == v);
      else if (name == "rows")
        CHECK(int64_t(d.rows) == v);
      else if (name == "k")
        CHECK(int64_t(d.k) == v);
      else if (name == "sz")
        CHECK(int64_t(d.sz) == v);
      else if (name == "nseg")
        CHECK(int64_t(d.nseg) == v);
      else if (name == "mask")
        CHECK(int64_t(d.mask) == v);
      else if (name == "step")
        CHECK(d.step == v);
      else if (name == "b.addr")
        CHECK(int64_t(d.operand(Operand::b).addr) == v);
      else if (name == "idx.reg")
        CHECK(int64_t(d.operand(Operand::idx).reg) == v);
      else if (name == "table.space")
        CHECK(int64_t(d.operand(Operand::table).space) == v);
    }
  }
}

TEST_CASE("footprints of decoded instructions", "[builders]") {
  ScalarRegs regs{};
  regs[2] = 0x1000;
  // 4 rows of 10 i4 elements (5 bytes) 16 bytes apart, from s2 + 0x20.
  Instruction load = build::DmaLd()
                         .dst(Space::Vrf, 0x20, 2)
                         .src(Space::Dram, 0)
                         .dt(DType::I4)
                         .x(10)
                         .y(4)
                         .z(1)
                         .sy(5)
                         .dpitch(16);
  std::vector<MemAccess> accesses = memoryAccesses(decode(load), regs);
  REQUIRE(accesses.size() == 2);
  CHECK(std::string(accesses[0].operand) == "src");
  CHECK(accesses[0].end - accesses[0].start == 3 * 5 + 5);
  CHECK(std::string(accesses[1].operand) == "dst");
  CHECK(accesses[1].start == 0x1020);
  CHECK(accesses[1].end == 0x1020 + 3 * 16 + 5);
  CHECK(accesses[1].write);

  // A block-float row: 32 msfp8 elements are two 9-byte blocks.
  Instruction relu = build::VRelu()
                         .dst(Space::Vrf, 0)
                         .a(Space::Vrf, 64)
                         .dt(DType::MSFP8)
                         .at(DType::MSFP8)
                         .rows(1)
                         .cols(32);
  accesses = memoryAccesses(decode(relu), regs);
  REQUIRE(accesses.size() == 2);
  CHECK(accesses[0].end - accesses[0].start == 18);

  // s.li results feed the scalar registers of later footprints.
  CHECK(scalarResult(decode(build::SLi().rd(3).imm(-5)), regs) == -5);
  CHECK(scalarResult(decode(build::SAddi().rd(3).ra(2).imm(16)), regs) ==
        0x1010);
  CHECK(!scalarResult(decode(relu), regs).has_value());
}

TEST_CASE("one element type enumeration", "[builders]") {
  CHECK(NumDTypes == 16);
  CHECK(dtypeName(DType::MXINT8) == "mxint8");
  CHECK(dtypeName(DType::MXFP8E4M3) == "mxfp8e4m3");
  CHECK(enumName(EnumKind::DType, 15) == "mxfp8e4m3");
  CHECK(::nnaccel::isBlock(DType::MXFP8E4M3));
  CHECK(::nnaccel::blockElements(DType::MXFP8E4M3) == 32);
  CHECK(::nnaccel::rowBytes(DType::MXFP8E4M3, 64) == 66);
  CHECK(enumName(EnumKind::DType, unsigned(DType::I4)) == "i4");
  // Host-only types have no ISA encoding.
  CHECK(!::nnaccel::isISADType(DType::F64));
  CHECK(enumName(EnumKind::DType, unsigned(DType::F64)).empty());
  CHECK(rowBytes(DType::U4, 7) == 4);
  CHECK(::nnaccel::denseBytes(DType::I4, {3, 7}) == 12u);
  CHECK(::nnaccel::denseBytes(DType::MSFP9, {2, 17}) == 36u);
  CHECK(::nnaccel::denseBytes(DType::F32, {}) == 4u);
  CHECK(!::nnaccel::denseBytes(DType::F32, {-1}).has_value());
  CHECK(!::nnaccel::denseBytes(DType::F32, {int64_t(1) << 62, 8}).has_value());
}
