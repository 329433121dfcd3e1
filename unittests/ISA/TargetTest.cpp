//===- TargetTest.cpp - Target description parsing ------------------------===//
//
// The shipped targets parse, and malformed descriptions are rejected with the
// exact key path and reason.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Target.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace nnaccel::isa;

namespace {

std::string defaultText() {
  std::ifstream in(NNACCEL_TARGETS_DIR "/default.json");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Parses the default target after `edit` modifies its JSON.
template <typename F> std::string errorAfter(F edit) {
  auto j = nlohmann::json::parse(defaultText());
  edit(j);
  auto t = parseTarget(j.dump(), "t.json");
  return t.ok() ? std::string("<ok>") : t.message();
}

} // namespace

TEST_CASE("shipped targets parse", "[target]") {
  for (const char *name : {"default", "brainwave-like", "multicard-6x"}) {
    INFO(name);
    auto t = loadTarget(std::string(NNACCEL_TARGETS_DIR "/") + name + ".json");
    REQUIRE(t.ok());
    CHECK(t->name == name);
  }
  auto d = loadTarget(NNACCEL_TARGETS_DIR "/default.json");
  REQUIRE(d.ok());
  CHECK(d->cards == 1);
  CHECK(d->coresPerCard == 4);
  CHECK(d->nativeDim == 64);
  CHECK(d->memory(Space::Vrf).bytes == 256u * 256u);
  CHECK(d->memory(Space::Dram).bytes == (uint64_t(1) << 32));
  CHECK(d->macsPerCycle.at(DType::I8) == 4096);
  CHECK(d->macsPerCycle.at(DType::MXFP8E5M2) == 4096);
  auto m = loadTarget(NNACCEL_TARGETS_DIR "/multicard-6x.json");
  REQUIRE(m.ok());
  CHECK(m->cards == 6);
  CHECK(m->memory(Space::Dram).bytes == (uint64_t(16) << 30));
}

TEST_CASE("target errors name the key", "[target]") {
  CHECK(errorAfter([](auto &j) { j["core"].erase("native_dim"); }) ==
        "t.json: core.native_dim: missing required key");
  CHECK(errorAfter([](auto &j) { j["core"]["native_dim"] = 0; }) ==
        "t.json: core.native_dim: must be in [1, 4095], got 0");
  CHECK(errorAfter([](auto &j) { j["cards"] = -2; }) ==
        "t.json: cards: expected a non-negative integer, got -2");
  CHECK(errorAfter([](auto &j) { j["dram"]["align"] = 48; }) ==
        "t.json: dram.align: must be a power of two, got 48");
  CHECK(errorAfter([](auto &j) { j["core"]["mrf"]["bytez"] = 1; }) ==
        "t.json: core.mrf.bytez: unknown key");
  CHECK(errorAfter([](auto &j) { j["core"]["matrix_lanes"] = 48; }) ==
        "t.json: core.matrix_lanes: must divide native_dim 64, got 48");
  CHECK(errorAfter([](auto &j) { j["core"]["macs_per_cycle"]["f31"] = 1; }) ==
        "t.json: core.macs_per_cycle.f31: not an element type name");
  CHECK(errorAfter([](auto &j) { j["core"]["macs_per_cycle"]["i8"] = 8192; }) ==
        "t.json: core.macs_per_cycle.i8: must be at most native_dim^2 = 4096 "
        "(one N x N weight tile a cycle), got 8192");
  CHECK(errorAfter([](auto &j) { j["core"]["macs_per_cycle"]["i8"] = 4096; }) ==
        "<ok>");
  CHECK(errorAfter([](auto &j) { j["clock_mhz"] = "fast"; }) ==
        "t.json: clock_mhz: expected a number, got \"fast\"");
  CHECK(errorAfter([](auto &j) { j["isa_version"] = "2.0"; }) ==
        "t.json: isa_version: target is for ISA '2.0', this library "
        "implements 1.2");
  CHECK(errorAfter([](auto &j) { j["isa_version"] = "1.3"; }) ==
        "t.json: isa_version: target is for ISA '1.3', this library "
        "implements 1.2");
  // mxfp8e5m2 weights are mm's wvar bit, new in 1.1: a 1.0 target cannot
  // list them, and drops to 1.0 cleanly without them.
  CHECK(errorAfter([](auto &j) { j["isa_version"] = "1.0"; }) ==
        "t.json: core.macs_per_cycle.mxfp8e5m2: needs isa_version 1.1 (mm's "
        "wvar bit), got '1.0'");
  CHECK(errorAfter([](auto &j) {
          j["isa_version"] = "1.0";
          j["core"]["macs_per_cycle"].erase("mxfp8e5m2");
        }) == "<ok>");
  // Only types mm can name are rate keys.
  CHECK(errorAfter([](auto &j) { j["core"]["macs_per_cycle"]["f64"] = 1; }) ==
        "t.json: core.macs_per_cycle.f64: not an element type name");
  CHECK(errorAfter([](auto &j) { j["link"] = 3; }) ==
        "t.json: link: must be an object");
}

TEST_CASE("malformed JSON and missing files are errors, not exceptions",
          "[target]") {
  auto t = parseTarget("{\"name\": ", "x.json");
  REQUIRE_FALSE(t.ok());
  CHECK(t.message().rfind("x.json: invalid JSON at byte", 0) == 0);
  CHECK_FALSE(parseTarget("[1,2]").ok());
  CHECK_FALSE(parseTarget("").ok());
  auto f = loadTarget("/nonexistent/target.json");
  REQUIRE_FALSE(f.ok());
  CHECK(f.message() == "/nonexistent/target.json: cannot open target file");
}
