//===- ProgramEmitterTest.cpp - dependency tokens from instructions -------===//
//
// The ProgramEmitter derives every memory dependency from the instructions
// themselves: these tests build small programs with the typed builders and
// check the tokens it places (by their flags, and by running the ISA
// verifier's token simulation over the result): RAW, WAR and WAW between
// queues, the ld -> st relay through ex, DRAM tracked per planned tensor,
// register-indirect operands, chains, groups and the FIFO-depth limit.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Conversion/AccelToNPU/ProgramEmitter.h"

#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Builders.h"
#include "nnaccel/ISA/Verifier.h"

#include <catch2/catch.hpp>

using namespace nnaccel::isa;
using mlir::nnaccel::npu_lowering::MemRegion;
using mlir::nnaccel::npu_lowering::ProgramEmitter;

namespace {

const TargetDesc &target() {
  static const TargetDesc t = [] {
    auto r = loadTarget(NNACCEL_TARGETS_DIR "/default.json");
    REQUIRE(r.ok());
    return *r;
  }();
  return t;
}

/// 16 f32 elements from DRAM `src` into VRF `dst`.
Instruction load(uint64_t dst, uint64_t src = 0) {
  return build::DmaLd()
      .dst(Space::Vrf, dst)
      .src(Space::Dram, src)
      .dt(DType::F32)
      .x(16)
      .y(1)
      .z(1)
      .sy(64)
      .dpitch(64);
}

/// VRF `dst` = relu(VRF `a`), 16 f32 elements.
Instruction relu(uint64_t dst, uint64_t a) {
  return build::VRelu()
      .dst(Space::Vrf, dst)
      .a(Space::Vrf, a)
      .dt(DType::F32)
      .at(DType::F32)
      .rows(1)
      .cols(16);
}

/// 16 f32 elements from VRF `src` to DRAM `dst`.
Instruction store(uint64_t dst, uint64_t src) {
  return build::DmaSt()
      .dst(Space::Dram, dst)
      .src(Space::Vrf, src)
      .dt(DType::F32)
      .x(16)
      .y(1)
      .z(1)
      .dy(64)
      .spitch(64);
}

/// The program's assembly without its header lines.
std::string body(const Program &program) {
  std::string text = printAsm(program), out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line[0] != '.' && line[0] != '#')
      out += line + "\n";
    pos = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

bool verifies(const Program &program) {
  std::vector<Diagnostic> diags = verifyProgram(program, target());
  for (const Diagnostic &d : diags)
    UNSCOPED_INFO(d.str(&program));
  return succeeded(diags);
}

} // namespace

TEST_CASE("read after write between queues", "[emitter]") {
  ProgramEmitter emitter;
  emitter.emit(load(0));
  emitter.emit(relu(64, 0));
  Program p = emitter.finish(0, 0);
  CHECK(body(p) == "dma.ld vrf[0x0], dram[0x0], f32, x=16, y=1, z=1, sy=64, "
                   "dpitch=64 @push_next\n"
                   "v.relu vrf[0x40], vrf[0x0], f32, f32, rows=1, cols=16 "
                   "@pop_prev\n"
                   "halt\n");
  CHECK(verifies(p));
}

TEST_CASE("disjoint buffers need no token", "[emitter]") {
  ProgramEmitter emitter;
  emitter.emit(load(0));
  emitter.emit(relu(128, 64));
  Program p = emitter.finish(0, 0);
  for (const Instruction &inst : p.instructions)
    CHECK(inst.flags == 0);
}

TEST_CASE("write after read waits for the reader", "[emitter]") {
  ProgramEmitter emitter;
  emitter.emit(load(0));
  emitter.emit(relu(64, 0));
  emitter.emit(load(0, 1024)); // overwrites what relu reads
  Program p = emitter.finish(0, 0);
  INFO(body(p));
  CHECK((p.instructions[1].flags & FlagPushPrev) != 0);
  CHECK((p.instructions[2].flags & FlagPopNext) != 0);
  CHECK(verifies(p));
}

TEST_CASE("ld to st dependencies relay through ex", "[emitter]") {
  ProgramEmitter emitter;
  emitter.emit(load(0));
  emitter.emit(store(4096, 0)); // stores what the load wrote
  Program p = emitter.finish(0, 0);
  CHECK(body(p) == "dma.ld vrf[0x0], dram[0x0], f32, x=16, y=1, z=1, sy=64, "
                   "dpitch=64 @push_next\n"
                   "sync ex @pop_prev @push_next\n"
                   "dma.st dram[0x1000], vrf[0x0], f32, x=16, y=1, z=1, "
                   "dy=64, spitch=64 @pop_prev\n"
                   "halt\n");
  CHECK(verifies(p));
}

TEST_CASE("DRAM is tracked per planned tensor", "[emitter]") {
  // The store writes the first 64 bytes of a 1 KiB tensor; the load reads
  // bytes 512..575 of it. Without the plan they do not overlap.
  for (bool planned : {false, true}) {
    std::vector<MemRegion> tensors;
    if (planned)
      tensors.push_back({Space::Dram, 0, 1024});
    tensors.push_back({Space::Dram, 4096, 8192});
    ProgramEmitter emitter(tensors);
    emitter.emit(load(0, 4096));
    emitter.emit(store(0, 0));
    emitter.emit(load(256, 512));
    Program p = emitter.finish(0, 0);
    INFO(body(p));
    // A relay sync between the store and the second load.
    bool waits = p.instructions[3].opcode == Opcode::Sync;
    CHECK(waits == planned);
    CHECK(verifies(p));
  }
}

TEST_CASE("register-indirect operands use the registers set so far",
          "[emitter]") {
  // A gather whose index list is at s1 = 0x400, inside the tensor a store
  // just wrote: the gather (ld) waits for the store (st) through ex.
  ProgramEmitter emitter(
      {{Space::Dram, 0x400, 0x500}, {Space::Dram, 0x10000, 0x20000}});
  emitter.emit(store(0x400, 0));
  emitter.emit(build::SLi().rd(1).imm(0x400));
  emitter.emit(build::EmbGather()
                   .dst(Space::Acc, 0)
                   .table(Space::Dram, 0x10000)
                   .idx(Space::Dram, 1)
                   .dt(DType::F32)
                   .fmt(EmbFmt::F32)
                   .dim(16)
                   .rowbytes(64)
                   .nrows(1024)
                   .nseg(4));
  Program p = emitter.finish(0, 0);
  INFO(body(p));
  REQUIRE(p.instructions.size() == 5); // store, s.li, sync, gather, halt
  CHECK(p.instructions[2].opcode == Opcode::Sync);
  CHECK((p.instructions[3].flags & FlagPopNext) != 0);
}

TEST_CASE("a chain waits on its first member and signals from its last",
          "[emitter]") {
  ProgramEmitter emitter;
  emitter.emit(load(256));
  emitter.emit(load(0));
  emitter.emit(load(64));
  // chain: t = a * b (forwarded), dst = t + c
  emitter.emit(build::VMul()
                   .dst(Space::Chain, 0)
                   .a(Space::Vrf, 0)
                   .b(Space::Vrf, 256)
                   .rows(1)
                   .cols(16)
                   .dpitch(64)
                   .apitch(64)
                   .bpitch(64)
                   .chained());
  emitter.emit(build::VAdd()
                   .dst(Space::Vrf, 128)
                   .a(Space::Chain, 0)
                   .b(Space::Vrf, 64)
                   .rows(1)
                   .cols(16)
                   .dpitch(64)
                   .apitch(64)
                   .bpitch(64));
  // Overwrites what the chain's first member read.
  emitter.emit(load(0, 1024));
  Program p = emitter.finish(0, 0);
  INFO(body(p));
  // The first member pops (for all three loads: the last load's token
  // covers the others, although only the second member reads it), the last
  // member pushes for the overwrite.
  CHECK((p.instructions[2].flags & FlagPushNext) != 0);
  CHECK((p.instructions[3].flags & FlagPopPrev) != 0);
  CHECK((p.instructions[3].flags & FlagPushPrev) == 0);
  CHECK((p.instructions[4].flags & (FlagPopPrev | FlagPopNext)) == 0);
  CHECK((p.instructions[4].flags & FlagPushPrev) != 0);
  CHECK((p.instructions[5].flags & FlagPopNext) != 0);
  CHECK(verifies(p));
}

TEST_CASE("a group is tracked as one buffer", "[emitter]") {
  // Three tiles loaded into a group; a reader of the first tile waits for
  // the last load (one token), not for the first.
  ProgramEmitter emitter;
  {
    ProgramEmitter::Group tiles(emitter, {Space::Vrf, 0, 192});
    emitter.emit(load(0));
    emitter.emit(load(64));
    emitter.emit(load(128));
    emitter.emit(relu(1024, 0));
  }
  Program p = emitter.finish(0, 0);
  INFO(body(p));
  CHECK((p.instructions[0].flags & FlagPushNext) == 0);
  CHECK((p.instructions[2].flags & FlagPushNext) != 0);
  CHECK(verifies(p));
}

TEST_CASE("tokens outstanding stay within the FIFO depth", "[emitter]") {
  // 100 loads, then 100 readers, each of its own load: one token each would
  // leave 100 outstanding in program order, and the loads fill the ld queue
  // before their readers are dispatched: deadlock.
  auto build = [](uint32_t depth) {
    ProgramEmitter emitter({}, depth);
    for (uint64_t i = 0; i < 100; ++i)
      emitter.emit(load(i * 64));
    for (uint64_t i = 0; i < 100; ++i)
      emitter.emit(relu(16384 + i * 64, i * 64));
    return emitter.finish(0, 0);
  };
  Program bounded = build(target().tokenFifoDepth);
  CHECK(verifies(bounded));
  int outstanding = 0, most = 0, pushes = 0;
  for (const Instruction &inst : bounded.instructions) {
    if (inst.flags & FlagPopPrev)
      --outstanding;
    if (inst.flags & FlagPushNext) {
      ++outstanding;
      ++pushes;
    }
    most = std::max(most, outstanding);
  }
  CHECK(most <= int(target().tokenFifoDepth));
  // The first readers get their own tokens, then one token from the last
  // load orders the rest.
  CHECK(pushes == int(target().tokenFifoDepth));
  Program unbounded = build(0);
  CHECK_FALSE(succeeded(verifyProgram(unbounded, target())));
}
