//===- BlockPackTest.cpp - ISA block layouts vs Numerics views ----------===//
//
// The packed ISA storage of ms-fp8/9 and mxint8 must round-trip through the
// unpacked views and agree with the Numerics encoders bit for bit.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nnaccel/Emulator/BlockPack.h"
#include "nnaccel/Emulator/ElementIO.h"
#include "nnaccel/Numerics/BlockFloat.h"
#include "nnaccel/Numerics/Mx.h"

using namespace emutest;
using nnaccel::isa::DType;
namespace num = nnaccel::numerics;

TEST_CASE("msfp rows pack into 9-byte blocks and match the encoder",
          "[blockpack]") {
  std::mt19937 rng(1);
  for (DType t : {DType::MSFP8, DType::MSFP9}) {
    auto mt = t == DType::MSFP8 ? num::MsfpType::Msfp8 : num::MsfpType::Msfp9;
    std::vector<float> x = randomFloats(rng, 64, -3, 3);
    std::vector<uint8_t> exps(4), codes(64);
    num::encodeMsfp(mt, 16, x, exps, codes);
    std::vector<uint8_t> packed(4 * 9);
    emulator::encodeBlockRow(t, x.data(), 64, packed.data());
    // Layout: exponent byte, then element 2j in the low nibble of byte 1+j.
    for (size_t b = 0; b < 4; ++b) {
      REQUIRE(packed[b * 9] == exps[b]);
      for (size_t j = 0; j < 8; ++j) {
        REQUIRE((packed[b * 9 + 1 + j] & 0xF) == codes[b * 16 + 2 * j]);
        REQUIRE((packed[b * 9 + 1 + j] >> 4) == codes[b * 16 + 2 * j + 1]);
      }
    }
    std::vector<uint8_t> e2(4), c2(64);
    emulator::unpackMsfpRow(t, packed.data(), 64, e2.data(), c2.data());
    REQUIRE(e2 == exps);
    REQUIRE(c2 == codes);
    std::vector<float> dec(64), ref(64);
    emulator::decodeBlockRow(t, packed.data(), 64, dec.data());
    num::decodeMsfp(mt, 16, exps, codes, ref);
    requireBitEqual(dec, ref);
  }
}

TEST_CASE("mxint8 rows pack into 33-byte blocks", "[blockpack]") {
  std::mt19937 rng(2);
  std::vector<float> x = randomFloats(rng, 64, -5, 5);
  std::vector<uint8_t> sc(2), el(64);
  num::encodeMx(num::MxElemType::Int8, x, sc, el);
  std::vector<uint8_t> packed(66);
  emulator::encodeBlockRow(DType::MXINT8, x.data(), 64, packed.data());
  for (size_t b = 0; b < 2; ++b) {
    REQUIRE(packed[b * 33] == sc[b]);
    for (size_t i = 0; i < 32; ++i)
      REQUIRE(packed[b * 33 + 1 + i] == el[b * 32 + i]);
  }
  std::vector<float> dec(64), ref(64);
  emulator::readRowF32(DType::MXINT8, packed.data(), 64, dec.data());
  num::decodeMx(num::MxElemType::Int8, sc, el, ref);
  requireBitEqual(dec, ref);
}

TEST_CASE("element conversions follow isa.md 3.1", "[elementio]") {
  std::vector<float> in = {1.5f, -2.5f, 1e10f, -1e10f, std::nanf(""), 0.5f};
  std::vector<int8_t> out(in.size());
  emulator::writeRowF32(DType::I8, in.data(), in.size(),
                        reinterpret_cast<uint8_t *>(out.data()));
  REQUIRE(out == std::vector<int8_t>{2, -2, 127, -128, 0, 0});
  std::vector<int32_t> wide = {300, -300, 7, -9};
  std::vector<uint8_t> packed(2);
  emulator::writeRowI32(DType::I4, wide.data(), 4, packed.data());
  // 300 -> 7, -300 -> -8 (0x8), 7 -> 7, -9 -> -8.
  REQUIRE(packed[0] == 0x87);
  REQUIRE(packed[1] == 0x87);
  std::vector<int32_t> back(4);
  emulator::readRowI32(DType::I4, packed.data(), 4, back.data());
  REQUIRE(back == std::vector<int32_t>{7, -8, 7, -8});
}
