//===- TestUtil.h - Helpers for the emulator unit tests ---------*- C++ -*-===//
//
// Loading shipped targets, building an emulator from assembly, and typed
// reads/writes of emulated memory, so each test states only its program,
// its inputs and the Numerics reference it compares against.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_UNITTESTS_EMULATOR_TESTUTIL_H
#define NNACCEL_UNITTESTS_EMULATOR_TESTUTIL_H

#include "nnaccel/Emulator/Emulator.h"
#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Target.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace emutest {

using namespace nnaccel;
using isa::Space;

inline isa::TargetDesc loadTarget(const std::string &name = "default") {
  auto t =
      isa::loadTarget(std::string(NNACCEL_TARGETS_DIR) + "/" + name + ".json");
  REQUIRE(t.ok());
  return *t;
}

/// An emulator on `target` with the given per-core assembly programs loaded.
inline std::unique_ptr<emulator::Emulator>
makeEmu(const isa::TargetDesc &target, const std::vector<std::string> &asms,
        emulator::EmulatorOptions opts = {}) {
  auto emu = std::make_unique<emulator::Emulator>(target, opts);
  for (const std::string &text : asms) {
    auto e = emu->loadProgramAsm(text);
    INFO(e.message());
    REQUIRE(!e);
  }
  return emu;
}

template <typename T>
void put(emulator::Emulator &emu, Space s, uint64_t addr,
         const std::vector<T> &v, unsigned core = 0, unsigned card = 0) {
  auto e = emu.writeMemory(card, s, addr, v.data(), v.size() * sizeof(T), core);
  INFO(e.message());
  REQUIRE(!e);
}

template <typename T>
std::vector<T> get(emulator::Emulator &emu, Space s, uint64_t addr, size_t n,
                   unsigned core = 0, unsigned card = 0) {
  std::vector<T> v(n);
  auto e = emu.readMemory(card, s, addr, v.data(), n * sizeof(T), core);
  INFO(e.message());
  REQUIRE(!e);
  return v;
}

inline emulator::Stats runOk(emulator::Emulator &emu) {
  auto r = emu.run();
  INFO(r.message());
  REQUIRE(r.ok());
  return *r;
}

inline std::string runError(emulator::Emulator &emu) {
  auto r = emu.run();
  REQUIRE(!r.ok());
  return r.message();
}

inline std::vector<float> randomFloats(std::mt19937 &rng, size_t n,
                                       float lo = -2.0f, float hi = 2.0f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

template <typename T>
std::vector<T> randomInts(std::mt19937 &rng, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (T &x : v)
    x = static_cast<T>(d(rng));
  return v;
}

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// Compares float vectors bit for bit (NaNs compare by bits too).
inline void requireBitEqual(const std::vector<float> &a,
                            const std::vector<float> &b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << ": " << a[i] << " vs " << b[i]);
    REQUIRE(bits(a[i]) == bits(b[i]));
  }
}

} // namespace emutest

#endif // NNACCEL_UNITTESTS_EMULATOR_TESTUTIL_H
