//===- MachineTest.cpp - Scheduling, synchronisation, faults, timing ----===//
//
// Whole-machine behaviour: token-synchronised queues, barriers across cores,
// card-to-card and host transfers, deterministic results for any thread
// count, deadlock and fault reports naming card/core/pc/instruction, cycle
// counts computed by hand from the documented formulas, and the trace JSON.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nnaccel/ISA/Encoding.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>

using namespace emutest;
using nnaccel::isa::Instruction;
using nnaccel::isa::Opcode;
using nnaccel::isa::Program;

TEST_CASE("cycle model: dma then mm synchronised by a token", "[cycles]") {
  auto target = loadTarget(); // dram 32 B/cycle, latency 200; L=16, N=64
  auto emu = makeEmu(
      target,
      {"dma.ld vrf[0x0], dram[0x0], f32, x=64, y=1, z=1 @push_next\n"
       "mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, m=1, k=64, n=64, "
       "dpitch=256, apitch=256 @pop_prev\nhalt\n"});
  auto s = runOk(*emu);
  // dma.ld: dispatched at 0, starts at 1, streams 256 B / 32 = 8 cycles,
  // lands 200 later -> token at 209.
  // mm: waits for the token (209), max(1*ceil(64/16)*1, 4096/256) = 16.
  REQUIRE(s.totalCycles == 225);
  const auto &c = s.cores[0];
  REQUIRE(c.queues[0].busyCycles == 8);
  REQUIRE(c.queues[1].busyCycles == 16);
  REQUIRE(c.queues[1].tokenStallCycles == 209 - 2);
  REQUIRE(c.dispatched == 3);
  REQUIRE(c.macs == 4096);
  REQUIRE(c.macUtilization == Approx(16.0 / 225.0));
  REQUIRE(c.bytes.read[0] == 256);
  REQUIRE(c.bytes.written[2] == 256);
  REQUIRE(s.summary().find("225 cycles") != std::string::npos);
}

TEST_CASE("cycle model: DMA latency overlaps the next transfer", "[cycles]") {
  auto target = loadTarget(); // dram 32 B/cycle, latency 200
  auto emu = makeEmu(
      target,
      {"dma.ld vrf[0x0], dram[0x0], f32, x=64, y=8, z=1, sy=256, dpitch=256\n"
       "dma.ld vrf[0x800], dram[0x800], f32, x=64, y=1, z=1 @push_next\n"
       "v.relu acc[0x0], vrf[0x800], f32, f32, rows=1, cols=64, dpitch=256, "
       "apitch=256 @pop_prev\nhalt\n"});
  auto s = runOk(*emu);
  // First load: starts at 1, streams 2048 B in 64 cycles (free at 65),
  // lands at 265. Second: streams 65..73, lands at max(265, 273) = 273.
  // v.relu: token at 273, 1 cycle -> 274; halt drains at 274.
  const auto &c = s.cores[0];
  REQUIRE(c.queues[0].busyCycles == 64 + 8);
  REQUIRE(c.queues[1].tokenStallCycles == 273 - 3);
  REQUIRE(s.totalCycles == 274);
}

TEST_CASE("cycle model: a store frees its source before its data lands",
          "[cycles]") {
  auto target = loadTarget(); // dram 32 B/cycle, latency 200
  auto emu = makeEmu(
      target, {"v.fill acc[0x0], f32, rows=1, cols=64, dpitch=256 @push_next\n"
               "dma.st dram[0x0], acc[0x0], f32, x=64, y=1, z=1 @pop_prev "
               "@push_prev\n"
               "v.fill acc[0x0], f32, rows=1, cols=64, dpitch=256, imm=1.0 "
               "@pop_next\nhalt\n"});
  auto s = runOk(*emu);
  // fill 1..2; dma.st streams 256 B in 2..10 and pushes its token then (a
  // posted write); the second fill runs 10..11. The store lands at 210,
  // and halt waits for it.
  const auto &c = s.cores[0];
  REQUIRE(c.queues[1].tokenStallCycles == 10 - 3);
  REQUIRE(s.totalCycles == 210);
}

TEST_CASE("cycle model: a chain costs its slowest stage plus fill",
          "[cycles]") {
  auto target = loadTarget();
  auto emu = makeEmu(target,
                     {"mm chain, vrf[0x0], mrf[0x0], f32, f16, f16, m=4, k=64, "
                      "n=64, apitch=128 @chain\n"
                      "v.relu acc[0x0], chain, f32, f32, rows=4, cols=64, "
                      "dpitch=256\nhalt\n"});
  auto s = runOk(*emu);
  // mm: max(4*4*1, 16384/1024) = 16; v.relu: 4*ceil(64/64) = 4; the
  // chain occupies its units 16 cycles and lands 1 * 2 fill cycles later;
  // it starts when its last member is queued (cycle 2).
  REQUIRE(s.totalCycles == 2 + 16 + 2);
  REQUIRE(s.cores[0].queues[1].busyCycles == 16);
}

// The matrix unit and the MFU pipeline are separate units: an MFU chain
// that does not touch what an mm in flight reads or writes runs beside it;
// one that does waits until the mm's results have landed.
namespace {
const char *kMm16 = "mm acc[0x0], vrf[0x0], mrf[0x0], f32, f16, f16, m=4, "
                    "k=64, n=64, dpitch=256, apitch=128\n"; // 16 cycles
} // namespace

TEST_CASE("cycle model: independent mm and MFU work overlap", "[cycles]") {
  auto target = loadTarget();
  auto emu = makeEmu(target, {std::string(kMm16) +
                              "v.relu acc[0x2000], acc[0x1000], f32, f32, "
                              "rows=1, cols=1024\nhalt\n"});
  auto s = runOk(*emu);
  // mm 1..17; v.relu (16 cycles) issues a cycle later on the MFUs: 2..18.
  REQUIRE(s.totalCycles == 18);
  REQUIRE(s.cores[0].queues[1].busyCycles == 17);
}

TEST_CASE("cycle model: an MFU op reading an mm's result waits for it",
          "[cycles]") {
  auto target = loadTarget();
  auto emu = makeEmu(target, {std::string(kMm16) +
                              "v.relu acc[0x2000], acc[0x0], f32, f32, "
                              "rows=1, cols=1024\nhalt\n"});
  auto s = runOk(*emu);
  // v.relu reads the mm's dst: 17..33.
  REQUIRE(s.totalCycles == 33);
  REQUIRE(s.cores[0].queues[1].busyCycles == 32);
}

TEST_CASE("cycle model: overwriting an mm's operand waits for the mm",
          "[cycles]") {
  auto target = loadTarget();
  auto emu = makeEmu(target, {std::string(kMm16) +
                              "v.fill vrf[0x0], f16, rows=1, cols=64\n"
                              "halt\n"});
  auto s = runOk(*emu);
  // The fill writes the mm's `a` (write after read): 17..18.
  REQUIRE(s.totalCycles == 18);
  REQUIRE(s.cores[0].queues[1].busyCycles == 17);
}

TEST_CASE("cycle model: MFU work runs one chain at a time", "[cycles]") {
  auto target = loadTarget();
  auto emu = makeEmu(target, {"v.relu acc[0x2000], acc[0x1000], f32, f32, "
                              "rows=1, cols=1024\n"
                              "v.relu acc[0x4000], acc[0x3000], f32, f32, "
                              "rows=1, cols=1024\nhalt\n"});
  auto s = runOk(*emu);
  // Independent, but both on the MFU pipeline: 1..17, 17..33.
  REQUIRE(s.totalCycles == 33);
  REQUIRE(s.cores[0].queues[1].busyCycles == 32);
}

TEST_CASE("cycle model: narrow weights take more lanes per pass", "[cycles]") {
  auto target = loadTarget(); // N=64, L=16; macs i8 4096, f16 1024
  REQUIRE(target.matrixLanesFor(DType::I8) == 64);
  REQUIRE(target.matrixLanesFor(DType::F16) == 16);
  REQUIRE(target.matrixLanesFor(DType::F32) == 16);
  auto emu =
      makeEmu(target, {"mm acc[0x0], vrf[0x0], mrf[0x0], i32, i8, i8, m=64, "
                       "k=64, n=64, dpitch=256, apitch=64\nhalt\n"});
  auto s = runOk(*emu);
  // 64 lanes of i8: max(64*ceil(64/64)*1, 262144/4096) = 64 (with 16
  // lanes the pass term would be 256, a quarter of the i8 rate).
  REQUIRE(s.cores[0].queues[1].busyCycles == 64);
  REQUIRE(s.cores[0].macUtilization == Approx(64.0 / s.totalCycles));
}

TEST_CASE("cycle model: barrier releases at the last arrival", "[cycles]") {
  auto target = loadTarget();
  auto emu =
      makeEmu(target, {".core card=0, core=0\n"
                       "v.fill acc[0x0], f32, rows=10, cols=64, dpitch=256\n"
                       "barrier id=1, mask=3\nhalt\n",
                       ".core card=0, core=1\nbarrier id=1, mask=3\nhalt\n"});
  auto s = runOk(*emu);
  // Core 0: fill 1..11, arrives at 11; both leave at 12, halt -> 13.
  REQUIRE(s.totalCycles == 13);
  REQUIRE(s.cores[0].finishCycle == 13);
  REQUIRE(s.cores[1].finishCycle == 13);
  REQUIRE(s.cores[1].barrierWaitCycles == 11);
}

TEST_CASE("cycle model: card-to-card transfer", "[cycles][cards]") {
  auto target = loadTarget("multicard-6x"); // link 5 B/cycle, 2000 latency
  auto emu =
      makeEmu(target, {".core card=0, core=0\n"
                       "send vrf[0x0], bytes=100, peer=1, chan=3\nhalt\n",
                       ".core card=1, core=0\n"
                       "recv vrf[0x40], bytes=100, peer=0, chan=3\nhalt\n"});
  std::vector<uint8_t> data(100);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 7);
  put(*emu, Space::Vrf, 0, data, 0, 0);
  auto s = runOk(*emu);
  // send starts at 1 and takes 100/5 = 20 cycles; arrival 21 + 2000.
  REQUIRE(s.totalCycles == 2021);
  REQUIRE(get<uint8_t>(*emu, Space::Vrf, 0x40, 100, 0, 1) == data);
  REQUIRE(s.cards[0].linkBytesSent == 100);
  REQUIRE(s.cards[1].linkBytesReceived == 100);
}

TEST_CASE("cores share DRAM through barriers; tokens order queues",
          "[machine]") {
  auto target = loadTarget();
  std::vector<float> in(64);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<float>(i) - 10.0f;
  // Core 0: load, scale by 2 on ex, store to shared; barrier.
  // Core 1: barrier; load from shared, add 1, store to dram.
  std::string p0 =
      ".core card=0, core=0\n"
      "dma.ld vrf[0x0], dram[0x0], f32, x=64, y=1, z=1 @push_next\n"
      "vs.mul vrf[0x100], vrf[0x0], f32, f32, rows=1, cols=64, dpitch=256, "
      "apitch=256, imm=2.0 @pop_prev @push_next\n"
      "dma.st shared[0x40], vrf[0x100], f32, x=64, y=1, z=1 @pop_prev\n"
      "barrier id=0, mask=3\nhalt\n";
  std::string p1 =
      ".core card=0, core=1\nbarrier id=0, mask=3\n"
      "dma.ld acc[0x0], shared[0x40], f32, x=64, y=1, z=1 @push_next\n"
      "vs.add acc[0x400], acc[0x0], f32, f32, rows=1, cols=64, dpitch=256, "
      "apitch=256, imm=1.0 @pop_prev @push_next\n"
      "dma.st dram[0x1000], acc[0x400], f32, x=64, y=1, z=1 @pop_prev\n"
      "halt\n";
  auto emu = makeEmu(target, {p0, p1});
  put(*emu, Space::Dram, 0, in);
  runOk(*emu);
  auto out = get<float>(*emu, Space::Dram, 0x1000, 64);
  for (size_t i = 0; i < 64; ++i)
    REQUIRE(out[i] == in[i] * 2.0f + 1.0f);
  // Memories persist: a second run gives the same result.
  runOk(*emu);
  REQUIRE(get<float>(*emu, Space::Dram, 0x1000, 64) == out);
}

TEST_CASE("loops and scalar registers drive tiled addresses", "[machine]") {
  auto target = loadTarget();
  auto emu = makeEmu(
      target, {"s.li s2, imm=3\n"
               "loop.r s1, s2, step=256\n"
               "dma.ld vrf[0x0+s1], dram[0x100+s1], f32, x=64, y=1, z=1\n"
               "endloop\n"
               "loop s3, count=0\nnop\nendloop\n"
               "s.shli s4, s2, sh=4\ns.addi s5, s4, imm=-8\n"
               "v.fill acc[0x0+s5], i32, rows=1, cols=1, dpitch=4, imm=0x7\n"
               "halt\n"});
  std::vector<int32_t> in(192);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<int32_t>(i * 3);
  put(*emu, Space::Dram, 0x100, in);
  auto s = runOk(*emu);
  REQUIRE(get<int32_t>(*emu, Space::Vrf, 0, 192) == in);
  REQUIRE(get<int32_t>(*emu, Space::Acc, 40, 1)[0] == 7);
  REQUIRE(s.cores[0].queues[0].instructions == 3);
}

TEST_CASE("host and multi-card transfers pair in FIFO order",
          "[machine][cards]") {
  auto target = loadTarget("multicard-6x");
  std::string c0 = ".core card=0, core=0\n"
                   "recv dram[0x0], bytes=64, peer=255, chan=1 @push_next\n"
                   "sync ex @pop_prev @push_next\n"
                   "send dram[0x0], bytes=64, peer=1, chan=2 @pop_prev\n"
                   "halt\n";
  std::string c1 = ".core card=1, core=3\n"
                   "recv shared[0x40], bytes=64, peer=0, chan=2 @push_next\n"
                   "sync ex @pop_prev @push_next\n"
                   "send shared[0x40], bytes=64, peer=255, chan=5 @pop_prev\n"
                   "halt\n";
  std::vector<uint8_t> msg(64);
  for (size_t i = 0; i < 64; ++i)
    msg[i] = static_cast<uint8_t>(255 - i);
  std::string trace1;
  for (unsigned threads : {1u, 6u}) {
    emulator::EmulatorOptions o;
    o.threads = threads;
    o.trace = true;
    auto emu = makeEmu(target, {c0, c1}, o);
    REQUIRE(!emu->hostSend(0, 1, msg));
    auto s = runOk(*emu);
    auto got = emu->hostReceive(1, 5);
    REQUIRE(got.size() == 1);
    REQUIRE(got[0] == msg);
    REQUIRE(emu->hostReceive(1, 5).empty());
    REQUIRE(s.cards[0].hostBytesReceived == 64);
    REQUIRE(s.cards[1].hostBytesSent == 64);
    if (threads == 1)
      trace1 = emu->traceJson();
    else
      REQUIRE(emu->traceJson() == trace1); // identical schedule
  }
}

TEST_CASE("results are independent of the worker thread count",
          "[machine][cards]") {
  auto target = loadTarget("multicard-6x");
  // Every card: compute on 2 cores, then ring-send a block to the next card.
  std::vector<std::string> progs;
  for (unsigned card = 0; card < 6; ++card) {
    for (unsigned core = 0; core < 2; ++core) {
      std::string p = fmt::format(".core card={}, core={}\n", card, core);
      p += fmt::format(
          "dma.ld vrf[0x0], dram[{:#x}], f32, x=64, y=4, z=1, sy=256, "
          "dpitch=256 @push_next\n"
          "v.exp vrf[0x400], vrf[0x0], f32, f32, rows=4, cols=64, "
          "dpitch=256, apitch=256 @pop_prev @push_next\n"
          "dma.st shared[{:#x}], vrf[0x400], f32, x=64, y=4, z=1, dy=256, "
          "spitch=256 @pop_prev\n"
          "barrier id=0, mask=3\n",
          core * 0x1000, core * 0x1000);
      if (core == 0)
        p += fmt::format("send shared[0x0], bytes=1024, peer={}, chan=0\n"
                         "recv dram[0x8000], bytes=1024, peer={}, chan=0\n",
                         (card + 1) % 6, (card + 5) % 6);
      p += "halt\n";
      progs.push_back(p);
    }
  }
  std::vector<std::vector<uint8_t>> results;
  std::vector<uint64_t> cycles;
  for (unsigned threads : {1u, 3u, 6u}) {
    emulator::EmulatorOptions o;
    o.threads = threads;
    auto emu = makeEmu(target, progs, o);
    std::mt19937 rng(5);
    for (unsigned card = 0; card < 6; ++card)
      put(*emu, Space::Dram, 0, randomFloats(rng, 512), 0, card);
    auto s = runOk(*emu);
    cycles.push_back(s.totalCycles);
    std::vector<uint8_t> all;
    for (unsigned card = 0; card < 6; ++card) {
      auto b = get<uint8_t>(*emu, Space::Dram, 0x8000, 1024, 0, card);
      all.insert(all.end(), b.begin(), b.end());
    }
    results.push_back(all);
  }
  REQUIRE(results[0] == results[1]);
  REQUIRE(results[0] == results[2]);
  REQUIRE(cycles[0] == cycles[1]);
  REQUIRE(cycles[0] == cycles[2]);
}

TEST_CASE("a card's cores on worker threads: same results and schedule",
          "[machine]") {
  // Four cores, three rounds: each core computes a block into a DRAM page
  // no one has touched (the cores allocate parts of one page at the same
  // time), meets the others at a barrier, then reads its neighbour's block.
  auto target = loadTarget();
  std::vector<std::string> progs;
  for (unsigned core = 0; core < 4; ++core) {
    std::string p = fmt::format(".core card=0, core={}\n", core);
    for (unsigned round = 0; round < 3; ++round) {
      const unsigned out = 0x100000 + round * 0x10000 + core * 0x400;
      const unsigned next =
          0x100000 + round * 0x10000 + ((core + 1) % 4) * 0x400;
      p += fmt::format(
          "dma.ld vrf[0x0], dram[{:#x}], f32, x=64, y=4, z=1, sy=256, "
          "dpitch=256 @push_next\n"
          "v.exp vrf[0x400], vrf[0x0], f32, f32, rows=4, cols=64, "
          "dpitch=256, apitch=256 @pop_prev @push_next\n"
          "dma.st dram[{:#x}], vrf[0x400], f32, x=64, y=4, z=1, dy=256, "
          "spitch=256 @pop_prev\n"
          "barrier id=0, mask=15\n"
          "dma.ld vrf[0x800], dram[{:#x}], f32, x=64, y=4, z=1, sy=256, "
          "dpitch=256 @push_next\n"
          "v.add vrf[0x0], vrf[0x800], vrf[0x400], f32, f32, f32, rows=4, "
          "cols=64, dpitch=256, apitch=256, bpitch=256 @pop_prev @push_next\n"
          "dma.st dram[{:#x}], vrf[0x0], f32, x=64, y=4, z=1, dy=256, "
          "spitch=256 @pop_prev\n"
          "barrier id=1, mask=15\n",
          round == 0 ? core * 0x400 : out - 0x10000 + 0x8000, out, next,
          out + 0x8000);
    }
    progs.push_back(p + "halt\n");
  }
  std::vector<std::vector<float>> results;
  std::vector<emulator::Stats> stats;
  for (unsigned threads : {1u, 4u}) {
    emulator::EmulatorOptions o;
    o.threads = threads;
    auto emu = makeEmu(target, progs, o);
    std::mt19937 rng(11);
    put(*emu, Space::Dram, 0, randomFloats(rng, 1024));
    stats.push_back(runOk(*emu));
    results.push_back(get<float>(*emu, Space::Dram, 0x120000, 0x2000 / 4));
  }
  // Automatic threads: the emulator times its first runs both ways
  // (warm-up and two on one thread, two on the workers) and keeps the
  // faster; every run, whichever way, gives the same results.
  {
    emulator::EmulatorOptions o;
    o.threads = 0;
    auto emu = makeEmu(target, progs, o);
    std::mt19937 rng(11);
    put(*emu, Space::Dram, 0, randomFloats(rng, 1024));
    for (int run = 0; run < 7; ++run) {
      INFO("automatic threads, run " << run);
      stats.push_back(runOk(*emu));
      results.push_back(get<float>(*emu, Space::Dram, 0x120000, 0x2000 / 4));
    }
  }
  for (size_t i = 1; i < results.size(); ++i) {
    INFO("run " << i);
    REQUIRE(results[0] == results[i]);
    REQUIRE(stats[0].totalCycles == stats[i].totalCycles);
    REQUIRE(stats[0].instructions == stats[i].instructions);
    for (size_t core = 0; core < 4; ++core) {
      REQUIRE(stats[0].cores[core].finishCycle ==
              stats[i].cores[core].finishCycle);
      REQUIRE(stats[0].cores[core].barrierWaitCycles ==
              stats[i].cores[core].barrierWaitCycles);
    }
  }
}

TEST_CASE("a fault on one of a card's threaded cores is the sequential one",
          "[machine][faults]") {
  auto target = loadTarget();
  std::vector<std::string> progs;
  for (unsigned core = 0; core < 4; ++core)
    progs.push_back(fmt::format(
        ".core card=0, core={}\nbarrier id=0, mask=15\n{}halt\n", core,
        core == 2 ? "s.li s1, imm=0xff00\n"
                    "dma.ld vrf[0x0+s1], dram[0x0], f32, x=128, y=1, z=1\n"
                  : ""));
  std::vector<std::string> messages;
  for (unsigned threads : {1u, 4u}) {
    emulator::EmulatorOptions o;
    o.threads = threads;
    auto emu = makeEmu(target, progs, o);
    messages.push_back(runError(*emu));
  }
  INFO(messages[0]);
  REQUIRE(messages[0] == messages[1]);
  REQUIRE(messages[0].find("card 0 core 2 pc 2") != std::string::npos);
}

TEST_CASE("deadlocks are reported with card, core, pc and instruction",
          "[faults]") {
  SECTION("token that never arrives") {
    auto target = loadTarget();
    auto emu = makeEmu(target, {"v.fill acc[0x0], f32, rows=1, cols=4, "
                                "dpitch=16 @pop_prev\nhalt\n"});
    std::string msg = runError(*emu);
    INFO(msg);
    REQUIRE(msg.find("deadlock") != std::string::npos);
    REQUIRE(msg.find("card 0 core 0 pc 0") != std::string::npos);
    REQUIRE(msg.find("v.fill acc[0x0]") != std::string::npos);
    REQUIRE(msg.find("token from the ld queue") != std::string::npos);
  }
  SECTION("barrier partner that never arrives") {
    // Also with the cores on threads, where core 0 waits parked at the
    // barrier that core 1 never reaches.
    auto target = loadTarget();
    for (unsigned threads : {1u, 4u}) {
      emulator::EmulatorOptions o;
      o.threads = threads;
      auto emu = makeEmu(target,
                         {".core card=0, core=0\nbarrier id=2, "
                          "mask=3\nhalt\n",
                          ".core card=0, core=1\nnop\nhalt\n"},
                         o);
      std::string msg = runError(*emu);
      INFO(msg << " (threads " << threads << ")");
      REQUIRE(msg.find("card 0 core 0 pc 0") != std::string::npos);
      REQUIRE(msg.find("barrier id=2") != std::string::npos);
      REQUIRE(msg.find("core(s) 1") != std::string::npos);
    }
  }
  SECTION("recv without a send") {
    auto target = loadTarget("multicard-6x");
    auto emu = makeEmu(target, {".core card=2, core=1\nnop\n"
                                "recv vrf[0x0], bytes=8, peer=4, chan=9\n"
                                "halt\n"});
    std::string msg = runError(*emu);
    INFO(msg);
    REQUIRE(msg.find("card 2 core 1 pc 1") != std::string::npos);
    REQUIRE(msg.find("message from card 4 on channel 9") != std::string::npos);
  }
}

TEST_CASE("faults name card, core, pc and the instruction", "[faults]") {
  auto target = loadTarget();
  SECTION("out of bounds through a register offset") {
    auto emu = makeEmu(target, {"s.li s1, imm=0xff00\n"
                                "dma.ld vrf[0x0+s1], dram[0x0], f32, x=128, "
                                "y=1, z=1\nhalt\n"});
    std::string msg = runError(*emu);
    INFO(msg);
    REQUIRE(msg.find("card 0 core 0 pc 1 (ld: `dma.ld") != std::string::npos);
    REQUIRE(msg.find("out-of-bounds") != std::string::npos);
    REQUIRE(msg.find("s1 = 65280") != std::string::npos);
  }
  SECTION("misaligned DMA") {
    auto emu = makeEmu(target, {"nop\ndma.st dram[0x4], vrf[0x0], f32, x=4, "
                                "y=1, z=1\nhalt\n"});
    std::string msg = runError(*emu);
    INFO(msg);
    REQUIRE(msg.find("card 0 core 0 pc 1 (st: `dma.st") != std::string::npos);
    REQUIRE(msg.find("misaligned") != std::string::npos);
  }
  SECTION("gather index outside the table") {
    auto emu = makeEmu(target, {"emb.gather acc[0x0], dram[0x0], vrf[s0], "
                                "vrf[s0], vrf[s0], f32, fmt=f32, dim=4, "
                                "rowbytes=16, nrows=10, nseg=1, dpitch=16\n"
                                "halt\n"});
    put(*emu, Space::Vrf, 0, std::vector<int32_t>{10});
    std::string msg = runError(*emu);
    INFO(msg);
    REQUIRE(msg.find("pc 0 (ld: `emb.gather") != std::string::npos);
    REQUIRE(msg.find("index 10") != std::string::npos);
  }
  SECTION("recv size mismatch") {
    auto emu = makeEmu(target, {"recv vrf[0x0], bytes=8, peer=255\nhalt\n"});
    REQUIRE(!emu->hostSend(0, 0, std::vector<uint8_t>(4)));
    std::string msg = runError(*emu);
    INFO(msg);
    REQUIRE(msg.find("got a message of 4 bytes") != std::string::npos);
  }
  SECTION("undefined opcode in a binary") {
    Program p;
    p.card = 0;
    p.core = 2;
    p.instructions = {Instruction(Opcode::Nop), Instruction(Opcode::Nop),
                      Instruction(Opcode::Halt)};
    auto bytes = nnaccel::isa::encodeProgram(p);
    REQUIRE(bytes.ok());
    (*bytes)[32 + 32] = 0x07; // pc 1: opcode 0x07 is undefined
    emulator::Emulator emu(target);
    auto e = emu.loadProgramBinary(*bytes);
    REQUIRE(e);
    INFO(e.message());
    REQUIRE(e.message().find("card 0 core 2 pc 1") != std::string::npos);
    REQUIRE(e.message().find("opcode") != std::string::npos);
  }
  SECTION("undefined opcode in memory") {
    Program p;
    Instruction bad;
    bad.opcode = static_cast<Opcode>(0x7F);
    p.instructions = {Instruction(Opcode::Nop), bad};
    emulator::Emulator emu(target);
    auto e = emu.loadProgram(p);
    REQUIRE(e);
    REQUIRE(e.message().find("card 0 core 0 pc 1") != std::string::npos);
  }
  SECTION("running past the end") {
    emulator::EmulatorOptions o;
    o.verifyOnLoad = false;
    auto emu = makeEmu(target, {"nop\n"}, o);
    std::string msg = runError(*emu);
    REQUIRE(msg.find("card 0 core 0 pc 1") != std::string::npos);
    REQUIRE(msg.find("without halt") != std::string::npos);
  }
  SECTION("host access out of range") {
    emulator::Emulator emu(target);
    std::vector<uint8_t> b(16);
    REQUIRE(emu.writeMemory(0, Space::Acc, 262144 - 8, b));
    REQUIRE(emu.writeMemory(3, Space::Dram, 0, b, 0)); // card 3: none
    REQUIRE(!emu.writeMemory(0, Space::Acc, 0, b, 3));
  }
}

TEST_CASE("trace JSON has one track per card/core/queue", "[trace]") {
  auto target = loadTarget();
  emulator::EmulatorOptions o;
  o.trace = true;
  auto emu = makeEmu(
      target,
      {".core card=0, core=1\n"
       "dma.ld vrf[0x0], dram[0x0], f32, x=64, y=1, z=1 @push_next\n"
       "mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, m=1, k=64, n=64, "
       "dpitch=256, apitch=256 @pop_prev @push_next\n"
       "dma.st dram[0x1000], acc[0x0], f32, x=64, y=1, z=1 @pop_prev\n"
       "halt\n"},
      o);
  runOk(*emu);
  auto doc = nlohmann::json::parse(emu->traceJson());
  REQUIRE(doc.contains("traceEvents"));
  std::set<std::string> threads, spans;
  for (const auto &e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name")
      threads.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X") {
      spans.insert(e["name"].get<std::string>());
      REQUIRE(e["pid"] == 0);
      REQUIRE(e["dur"].get<double>() > 0);
    }
  }
  for (const char *t : {"core 1 ld", "core 1 ex", "core 1 st",
                        "core 1 dispatch", "core 1 link"})
    REQUIRE(threads.count(t));
  REQUIRE(spans == std::set<std::string>{"dma.ld", "mm", "dma.st"});
}

TEST_CASE("trace JSON shows each card's link traffic", "[trace][cards]") {
  auto target = loadTarget("multicard-6x"); // link 5 B/cycle, 2000 latency
  emulator::EmulatorOptions o;
  o.trace = true;
  auto emu = makeEmu(target,
                     {".core card=0, core=0\n"
                      "send vrf[0x0], bytes=100, peer=1, chan=3\nhalt\n",
                      ".core card=1, core=0\n"
                      "recv vrf[0x40], bytes=100, peer=0, chan=3\nhalt\n"},
                     o);
  runOk(*emu);
  auto doc = nlohmann::json::parse(emu->traceJson());
  int messages = 0;
  for (const auto &e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "link")
      continue;
    ++messages;
    // The message is in flight from its send (cycle 1) until it arrives
    // (20 cycles of sending, then the link's latency).
    REQUIRE(e["pid"] == 0);
    REQUIRE(e["name"] == "to card 1, 100 bytes");
    REQUIRE(e["args"]["start_cycle"] == 1);
    REQUIRE(e["args"]["end_cycle"] == 2021);
    REQUIRE(e["args"]["chan"] == 3);
  }
  REQUIRE(messages == 1);
}

namespace {

/// Every statistic two runs of the same schedule must share.
void requireSameStats(const emulator::Stats &a, const emulator::Stats &b) {
  REQUIRE(a.totalCycles == b.totalCycles);
  REQUIRE(a.instructions == b.instructions);
  REQUIRE(a.macs == b.macs);
  REQUIRE(a.cores.size() == b.cores.size());
  for (size_t i = 0; i < a.cores.size(); ++i) {
    INFO("core " << i);
    const emulator::CoreStats &x = a.cores[i], &y = b.cores[i];
    REQUIRE(x.finishCycle == y.finishCycle);
    REQUIRE(x.dispatched == y.dispatched);
    REQUIRE(x.dispatchStallCycles == y.dispatchStallCycles);
    REQUIRE(x.barrierWaitCycles == y.barrierWaitCycles);
    REQUIRE(x.macs == y.macs);
    for (unsigned s = 0; s < 5; ++s) {
      REQUIRE(x.bytes.read[s] == y.bytes.read[s]);
      REQUIRE(x.bytes.written[s] == y.bytes.written[s]);
    }
    for (unsigned q = 0; q < 3; ++q) {
      REQUIRE(x.queues[q].instructions == y.queues[q].instructions);
      REQUIRE(x.queues[q].busyCycles == y.queues[q].busyCycles);
      REQUIRE(x.queues[q].tokenStallCycles == y.queues[q].tokenStallCycles);
    }
  }
  REQUIRE(a.summary() == b.summary());
}

/// Two cores: register-addressed loops, an mm, a chained mul/add, an
/// unpooled gather; core 1 reads core 0's result after a barrier.
std::vector<std::string> replayPrograms(int scale) {
  return {fmt::format(
              ".core card=0, core=0\n"
              "s.li s2, imm=4\n"
              "loop.r s1, s2, step=256\n"
              "dma.ld vrf[0x0+s1], dram[0x0+s1], f32, x=64, y=1, z=1\n"
              "endloop\n"
              "dma.ld mrf[0x0], dram[0x2000], f32, x=64, y=64, z=1, sy=256, "
              "dpitch=256 @push_next\n"
              "mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, m=4, k=64, "
              "n=64, dpitch=256, apitch=256 @pop_prev\n"
              "v.mul chain, acc[0x0], vrf[0x0], f32, f32, f32, rows=4, "
              "cols=64, apitch=256, bpitch=256 @chain\n"
              "vs.mul acc[0x400], chain, f32, f32, rows=4, cols=64, "
              "dpitch=256, imm={} @push_next\n"
              "dma.st dram[0x20000], acc[0x400], f32, x=64, y=4, z=1, "
              "dy=256, spitch=256 @pop_prev\n"
              "barrier id=0, mask=3\n"
              "halt\n",
              scale),
          ".core card=0, core=1\n"
          "s.li s1, imm=0x100\n"
          "emb.gather acc[0x0], dram[0x40000], vrf[s1], vrf[s1], vrf[s1], "
          "f32, fmt=f32, dim=64, rowbytes=256, nrows=8, nseg=2, pool=none, "
          "dpitch=256\n"
          "barrier id=0, mask=3\n"
          "dma.ld vrf[0x400], dram[0x20000], f32, x=64, y=4, z=1, sy=256, "
          "dpitch=256 @push_next\n"
          "v.add acc[0x400], vrf[0x400], vrf[0x400], f32, f32, f32, rows=4, "
          "cols=64, dpitch=256, apitch=256, bpitch=256 @pop_prev\n"
          "halt\n"};
}

} // namespace

TEST_CASE("schedule replay: later runs redo the work with their own data",
          "[machine][replay]") {
  // The replaying emulator (automatic threads: its first run records, the
  // later ones replay, on one thread or the workers as the probe decides)
  // against one that never replays (one thread), fed the same new data
  // every run: the same results and the same statistics each time; then
  // after a program changes.
  auto target = loadTarget();
  emulator::EmulatorOptions automatic, exact;
  automatic.threads = 0;
  exact.threads = 1;
  auto replaying = makeEmu(target, replayPrograms(3), automatic);
  auto reference = makeEmu(target, replayPrograms(3), exact);
  std::mt19937 rng(5);
  auto feed = [&](emulator::Emulator &emu, const std::vector<float> &x,
                  const std::vector<float> &w, const std::vector<float> &table,
                  const std::vector<int32_t> &ids) {
    put(emu, Space::Dram, 0, x);
    put(emu, Space::Dram, 0x2000, w);
    put(emu, Space::Dram, 0x40000, table);
    put(emu, Space::Vrf, 0x100, ids, 1);
  };
  for (int run = 0; run < 10; ++run) {
    INFO("run " << run);
    if (run == 8) {
      // A new program drops the recording: the next run records again.
      auto e = replaying->loadProgramAsm(replayPrograms(5)[0]);
      REQUIRE(!e);
      e = reference->loadProgramAsm(replayPrograms(5)[0]);
      REQUIRE(!e);
    }
    std::vector<float> x = randomFloats(rng, 256), w = randomFloats(rng, 4096),
                       table = randomFloats(rng, 8 * 64);
    std::vector<int32_t> ids = randomInts<int32_t>(rng, 2, 0, 7);
    feed(*replaying, x, w, table, ids);
    feed(*reference, x, w, table, ids);
    emulator::Stats got = runOk(*replaying), want = runOk(*reference);
    requireSameStats(got, want);
    REQUIRE(get<float>(*replaying, Space::Dram, 0x20000, 256) ==
            get<float>(*reference, Space::Dram, 0x20000, 256));
    for (unsigned core : {0u, 1u})
      REQUIRE(get<float>(*replaying, Space::Acc, 0, 512, core) ==
              get<float>(*reference, Space::Acc, 0, 512, core));
  }
}

TEST_CASE("schedule replay: a pooled gather's schedule is not replayed",
          "[machine][replay]") {
  // The lookups of a pooled gather come from its length list: a run with
  // more of them takes longer, which a replayed schedule would hide.
  auto target = loadTarget();
  emulator::EmulatorOptions o;
  o.threads = 2;
  auto emu = makeEmu(
      target, {".core card=0, core=0\n"
               "s.li s1, imm=0x100\ns.li s2, imm=0x200\n"
               "emb.gather acc[0x0], dram[0x0], vrf[s1], vrf[s2], vrf[s1], "
               "f32, fmt=f32, dim=64, rowbytes=256, nrows=64, nseg=1, "
               "pool=sum, dpitch=256\nbarrier id=0, mask=3\nhalt\n",
               ".core card=0, core=1\nbarrier id=0, mask=3\nhalt\n"});
  put(*emu, Space::Dram, 0, std::vector<float>(64 * 64, 1.0f));
  put(*emu, Space::Vrf, 0x100, std::vector<int32_t>(48, 3));
  std::vector<uint64_t> cycles;
  for (int32_t lookups : {2, 48, 2, 48}) {
    put(*emu, Space::Vrf, 0x200, std::vector<int32_t>{lookups});
    cycles.push_back(runOk(*emu).totalCycles);
    REQUIRE(get<float>(*emu, Space::Acc, 0, 1)[0] == float(lookups));
  }
  REQUIRE(cycles[1] > cycles[0]);
  REQUIRE(cycles[2] == cycles[0]);
  REQUIRE(cycles[3] == cycles[1]);
}
