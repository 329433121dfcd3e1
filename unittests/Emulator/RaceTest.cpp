//===- RaceTest.cpp - Data-race detection (EmulatorOptions::checkRaces) ---===//
//
// Seeded races written as assembly: read-after-write, write-after-read and
// write-after-write between the queues of one core, two cores writing the
// same SHARED bytes, chains, loops, card-to-card transfers. Each racy
// program must fail with a message naming both instructions (card, core,
// pc, queue and text) and the bytes; the same program ordered by a token,
// a sync relay, a barrier or a send/recv must run cleanly, as must
// read-read sharing. The interval structure is checked against a
// byte-by-byte reference.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "RaceDetector.h"

#include <fmt/format.h>

#include <optional>

using namespace emutest;

namespace {

emulator::EmulatorOptions raceOptions(unsigned threads = 1) {
  emulator::EmulatorOptions o;
  o.threads = threads;
  o.checkRaces = true;
  return o;
}

/// Runs `asms` with race checking and returns the error message.
std::string raceError(const isa::TargetDesc &target,
                      const std::vector<std::string> &asms) {
  auto emu = makeEmu(target, asms, raceOptions());
  std::string msg = runError(*emu);
  INFO(msg);
  REQUIRE(msg.find("data race") != std::string::npos);
  return msg;
}

/// Runs `asms` with race checking, which must find nothing.
emulator::Stats raceFree(const isa::TargetDesc &target,
                         const std::vector<std::string> &asms) {
  auto emu = makeEmu(target, asms, raceOptions());
  return runOk(*emu);
}

bool has(const std::string &msg, const std::string &what) {
  INFO("message: " << msg);
  INFO("expected: " << what);
  bool found = msg.find(what) != std::string::npos;
  CHECK(found);
  return found;
}

const char *const LoadV0 = "dma.ld vrf[0x0], dram[0x0], f32, x=64, y=1, z=1";
const char *const MmV0 = "mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, "
                         "m=1, k=64, n=64, dpitch=256, apitch=256";
const char *const ReluV0 = "v.relu acc[0x0], vrf[0x0], f32, f32, rows=1, "
                           "cols=64, dpitch=256, apitch=256";
const char *const FillV0 =
    "v.fill vrf[0x0], f32, rows=1, cols=64, dpitch=256, imm=0x3f800000";

} // namespace

TEST_CASE("race checking is off by default", "[races]") {
  auto target = loadTarget();
  auto emu = makeEmu(target, {fmt::format("{}\n{}\nhalt\n", LoadV0, MmV0)});
  runOk(*emu);
}

TEST_CASE("read after write between queues", "[races]") {
  auto target = loadTarget();
  SECTION("dma.ld writes the VRF, mm reads it without a token") {
    std::string msg =
        raceError(target, {fmt::format("{}\n{}\nhalt\n", LoadV0, MmV0)});
    // The reader (mm, which runs second) reports; the writer is named.
    REQUIRE(msg.rfind(fmt::format("card 0 core 0 pc 1 (ex: `{}`): data race "
                                  "on vrf[0x0, 0x100)",
                                  MmV0),
                      0) == 0);
    has(msg, "this instruction reads operand 'a' vrf[0x0, 0x100)");
    has(msg, fmt::format("card 0 core 0 pc 0 (ld: `{}`) wrote (operand 'dst' "
                         "vrf[0x0, 0x100)",
                         LoadV0));
  }
  SECTION("ordered by a token") {
    raceFree(target, {fmt::format("{} @push_next\n{} @pop_prev\nhalt\n", LoadV0,
                                  MmV0)});
  }
  SECTION("a token pushed before the write does not order it") {
    std::string msg = raceError(
        target,
        {fmt::format("dma.ld vrf[0x400], dram[0x0], f32, x=64, y=1, z=1 "
                     "@push_next\n{}\n{} @pop_prev\nhalt\n",
                     LoadV0, MmV0)});
    has(msg, "card 0 core 0 pc 2 (ex: `mm");
    has(msg, "card 0 core 0 pc 1 (ld: `dma.ld vrf[0x0]");
  }
  SECTION("overlap of one byte range inside larger accesses") {
    // dma.ld writes vrf[0x80, 0x180); v.relu reads vrf[0x0, 0x100).
    std::string msg = raceError(
        target, {fmt::format("dma.ld vrf[0x80], dram[0x0], f32, x=64, y=1, "
                             "z=1\n{}\nhalt\n",
                             ReluV0)});
    has(msg, "data race on vrf[0x80, 0x100)");
    has(msg, "operand 'dst' vrf[0x80, 0x180)");
  }
  SECTION("disjoint bytes do not race") {
    raceFree(target, {fmt::format("dma.ld vrf[0x100], dram[0x0], f32, x=64, "
                                  "y=1, z=1\n{}\nhalt\n",
                                  ReluV0)});
  }
}

TEST_CASE("write after read between queues", "[races]") {
  auto target = loadTarget();
  SECTION("racy: ld refills a buffer ex is reading") {
    std::string msg =
        raceError(target, {fmt::format("{}\n{}\nhalt\n", ReluV0, LoadV0)});
    REQUIRE(msg.rfind(fmt::format("card 0 core 0 pc 1 (ld: `{}`): data race "
                                  "on vrf[0x0, 0x100): this instruction "
                                  "writes operand 'dst'",
                                  LoadV0),
                      0) == 0);
    has(msg,
        fmt::format("card 0 core 0 pc 0 (ex: `{}`) read (operand 'a'", ReluV0));
  }
  SECTION("ordered by a token from ex back to ld") {
    raceFree(target, {fmt::format("{} @push_prev\n{} @pop_next\nhalt\n", ReluV0,
                                  LoadV0)});
  }
}

TEST_CASE("write after write between queues", "[races]") {
  auto target = loadTarget();
  SECTION("racy") {
    std::string msg =
        raceError(target, {fmt::format("{}\n{}\nhalt\n", LoadV0, FillV0)});
    has(msg, "card 0 core 0 pc 1 (ex: `v.fill vrf[0x0]");
    has(msg, "this instruction writes operand 'dst' vrf[0x0, 0x100)");
    has(msg, "card 0 core 0 pc 0 (ld: `dma.ld vrf[0x0]");
    has(msg, "wrote (operand 'dst'");
  }
  SECTION("ordered") {
    raceFree(target, {fmt::format("{} @push_next\n{} @pop_prev\nhalt\n", LoadV0,
                                  FillV0)});
  }
}

TEST_CASE("sync relays tokens, and with them the ordering", "[races]") {
  auto target = loadTarget();
  const char *store = "dma.st dram[0x1000], vrf[0x0], f32, x=64, y=1, z=1";
  SECTION("ld -> st without tokens") {
    std::string msg =
        raceError(target, {fmt::format("{}\n{}\nhalt\n", LoadV0, store)});
    has(msg, "card 0 core 0 pc 1 (st: `dma.st");
    has(msg, "card 0 core 0 pc 0 (ld: `dma.ld");
  }
  SECTION("ld -> sync ex -> st") {
    raceFree(target, {fmt::format("{} @push_next\n"
                                  "sync ex @pop_prev @push_next\n"
                                  "{} @pop_prev\nhalt\n",
                                  LoadV0, store)});
  }
  SECTION("the relay must itself be ordered after the producer") {
    // The sync pops nothing: it passes on a token that says nothing about
    // the dma.ld (which pushes a token nobody needs, popped at the end).
    std::string msg =
        raceError(target, {fmt::format("{} @push_next\n"
                                       "sync ex @push_next\n"
                                       "{} @pop_prev\n"
                                       "sync ex @pop_prev\nhalt\n",
                                       LoadV0, store)});
    has(msg, "card 0 core 0 pc 2 (st: `dma.st");
  }
}

TEST_CASE("read-read sharing is not a race", "[races]") {
  auto target = loadTarget();
  // ex and st both read vrf[0x0] after the load, concurrently.
  raceFree(target,
           {fmt::format("{} @push_next\n"
                        "sync ex @pop_prev @push_next\n"
                        "{}\n"
                        "dma.st dram[0x1000], vrf[0x0], f32, x=64, y=1, z=1 "
                        "@pop_prev\nhalt\n",
                        LoadV0, ReluV0)});
  // Two cores read the same SHARED and DRAM bytes.
  std::vector<std::string> progs;
  for (unsigned core = 0; core < 4; ++core)
    progs.push_back(fmt::format(".core card=0, core={}\n"
                                "dma.ld vrf[0x0], shared[0x0], f32, x=64, y=1, "
                                "z=1\n{}\nhalt\n",
                                core, LoadV0));
  raceFree(target, progs);
}

TEST_CASE("two cores writing the same SHARED bytes", "[races]") {
  auto target = loadTarget();
  std::string w0 = "dma.ld shared[0x100], dram[0x0], f32, x=64, y=1, z=1";
  std::string w1 = "dma.ld shared[0x180], dram[0x400], f32, x=64, y=1, z=1";
  SECTION("without a barrier") {
    std::string msg =
        raceError(target, {".core card=0, core=0\n" + w0 + "\nhalt\n",
                           ".core card=0, core=1\n" + w1 + "\nhalt\n"});
    // Same start time: core 0 runs first, core 1 reports.
    REQUIRE(msg.rfind("card 0 core 1 pc 0 (ld: `" + w1 +
                          "`): data race on shared[0x180, 0x200)",
                      0) == 0);
    has(msg, "card 0 core 0 pc 0 (ld: `" + w0 +
                 "`) wrote (operand 'dst' shared[0x100, 0x200)");
  }
  SECTION("a barrier orders them") {
    raceFree(
        target,
        {".core card=0, core=0\n" + w0 + "\nbarrier id=2, mask=3\nhalt\n",
         ".core card=0, core=1\nbarrier id=2, mask=3\n" + w1 + "\nhalt\n"});
  }
  SECTION("a barrier of other cores does not") {
    std::string msg = raceError(
        target,
        {".core card=0, core=0\n" + w0 + "\nhalt\n",
         ".core card=0, core=1\nbarrier id=0, mask=6\n" + w1 + "\nhalt\n",
         ".core card=0, core=2\nbarrier id=0, mask=6\nhalt\n"});
    has(msg, "card 0 core 1 pc 1 (ld: `" + w1 + "`)");
    has(msg, "card 0 core 0 pc 0 (ld: `" + w0 + "`)");
  }
  SECTION("a reader on another core after the barrier, and one before it") {
    std::string rd = "dma.ld vrf[0x0], shared[0x100], f32, x=64, y=1, z=1";
    raceFree(
        target,
        {".core card=0, core=0\n" + w0 + "\nbarrier id=0, mask=3\nhalt\n",
         ".core card=0, core=1\nbarrier id=0, mask=3\n" + rd + "\nhalt\n"});
    // The read comes second in time but before the barrier: still a race.
    std::string msg = raceError(target, {".core card=0, core=0\n" + w0 +
                                             "\nbarrier id=0, mask=3\nhalt\n",
                                         ".core card=0, core=1\nnop\n" + rd +
                                             "\nbarrier id=0, mask=3\nhalt\n"});
    has(msg, "card 0 core 1 pc 1 (ld: `" + rd + "`)");
    has(msg, "card 0 core 0 pc 0");
  }
}

TEST_CASE("two cores storing interleaved columns of one tensor", "[races]") {
  // A 4 x 128 f32 tensor at dram[0x1000] (rows 0x200 apart): core 0 stores
  // columns 0-63, core 1 columns 64-127, each as one strided DMA whose
  // bounding ranges overlap. Only the bytes each row writes count.
  auto target = loadTarget();
  std::string left = "dma.st dram[0x1000], vrf[0x0], f32, x=64, y=4, z=1, "
                     "dy=512, spitch=256";
  std::string right = "dma.st dram[0x1100], vrf[0x0], f32, x=64, y=4, z=1, "
                      "dy=512, spitch=256";
  SECTION("disjoint columns do not race") {
    raceFree(target, {".core card=0, core=0\n" + left + "\nhalt\n",
                      ".core card=0, core=1\n" + right + "\nhalt\n"});
  }
  SECTION("overlapping columns do") {
    std::string shifted = "dma.st dram[0x10c0], vrf[0x0], f32, x=64, y=4, "
                          "z=1, dy=512, spitch=256";
    std::string msg =
        raceError(target, {".core card=0, core=0\n" + left + "\nhalt\n",
                           ".core card=0, core=1\n" + shifted + "\nhalt\n"});
    has(msg, "data race on dram[0x10c0, 0x1100)");
  }
  SECTION("a reader of whole rows races with both") {
    std::string rd = "dma.ld vrf[0x0], dram[0x1000], f32, x=128, y=4, z=1, "
                     "sy=512, dpitch=512";
    std::string msg =
        raceError(target, {".core card=0, core=0\n" + left + "\nhalt\n",
                           ".core card=0, core=1\n" + right + "\nnop\nnop\n" +
                               rd + "\nhalt\n"});
    has(msg, "card 0 core 1 pc 3 (ld: `" + rd + "`)");
  }
}

TEST_CASE("a barrier orders the queues of its own core", "[races]") {
  auto target = loadTarget();
  raceFree(target,
           {fmt::format("{}\nbarrier id=0, mask=1\n{}\nhalt\n", LoadV0, MmV0)});
}

TEST_CASE("a chain is one unit", "[races]") {
  auto target = loadTarget();
  // The chain pops on its first member; the last member reads vrf[0x400],
  // also written by the load before the token.
  std::string chain =
      "mm chain, vrf[0x0], mrf[0x0], f32, f32, f32, m=1, k=64, n=64, "
      "apitch=256 @pop_prev @chain\n"
      "v.add acc[0x0], chain, vrf[0x400], f32, f32, f32, rows=1, cols=64, "
      "dpitch=256, bpitch=256{}\n";
  std::string loads = "dma.ld vrf[0x400], dram[0x400], f32, x=64, y=1, z=1\n" +
                      std::string(LoadV0) + " @push_next\n";
  SECTION("ordered: tokens of the first member cover the whole chain") {
    raceFree(target, {loads + fmt::format(chain, " @push_next") +
                      "dma.st dram[0x1000], acc[0x0], f32, x=64, y=1, z=1 "
                      "@pop_prev\nhalt\n"});
  }
  SECTION("the chain's write races with an unordered store") {
    // The store runs first (the chain waits for its token), the chain's
    // last member then overwrites what it read.
    std::string msg =
        raceError(target, {loads + fmt::format(chain, "") +
                           "dma.st dram[0x1000], acc[0x0], f32, x=64, y=1, "
                           "z=1\nhalt\n"});
    has(msg, "card 0 core 0 pc 3 (ex: `v.add acc[0x0], chain, vrf[0x400]");
    has(msg, "this instruction writes operand 'dst' acc[0x0, 0x100)");
    has(msg, "card 0 core 0 pc 4 (st: `dma.st");
    has(msg, "read (operand 'src' acc[0x0, 0x100)");
  }
  SECTION("a member reading a buffer loaded after the token") {
    std::string late = std::string(LoadV0) +
                       " @push_next\n"
                       "dma.ld vrf[0x400], dram[0x400], f32, x=64, y=1, z=1\n";
    std::string msg =
        raceError(target, {late + fmt::format(chain, "") + "halt\n"});
    has(msg, "card 0 core 0 pc 3 (ex: `v.add");
    has(msg, "this instruction reads operand 'b' vrf[0x400, 0x500)");
    has(msg, "card 0 core 0 pc 1 (ld: `dma.ld vrf[0x400]");
  }
}

TEST_CASE("loops: effective addresses at dispatch", "[races]") {
  auto target = loadTarget();
  // Iteration k loads buffer k and computes on buffer k (ordered), or on
  // buffer k+1, which the next iteration's load writes (a race).
  auto prog = [](const char *readOffset) {
    return fmt::format(
        "loop s1, count=4, step=256\n"
        "dma.ld vrf[0x0+s1], dram[0x0+s1], f32, x=64, y=1, z=1 @push_next\n"
        "v.relu acc[0x0+s1], vrf[{}+s1], f32, f32, rows=1, cols=64, "
        "dpitch=256, apitch=256 @pop_prev\n"
        "endloop\nhalt\n",
        readOffset);
  };
  raceFree(target, {prog("0x0")});
  std::string msg = raceError(target, {prog("0x100")});
  has(msg, "vrf[0x100, 0x200)");
  has(msg, "card 0 core 0 pc 1 (ld: `dma.ld vrf[s1], dram[s1]");
  has(msg, "card 0 core 0 pc 2 (ex: `v.relu");
}

TEST_CASE("send -> recv orders across cards", "[races][cards]") {
  auto target = loadTarget("multicard-6x");
  // Card 0's st queue stores to DRAM and sends; card 1 bounces the message
  // back; card 0's ld queue receives it and then loads what was stored.
  // Only the round trip orders the store before the load.
  std::string c0 = ".core card=0, core=0\n"
                   "dma.st dram[0x0], vrf[0x0], f32, x=64, y=1, z=1\n"
                   "send vrf[0x100], bytes=64, peer=1, chan=1\n"
                   "recv vrf[0x200], bytes=64, peer=1, chan=2\n"
                   "dma.ld vrf[0x400], dram[0x0], f32, x=64, y=1, z=1\n"
                   "halt\n";
  auto c1 = [](const char *relay) {
    return fmt::format(".core card=1, core=0\n"
                       "recv vrf[0x0], bytes=64, peer=0, chan=1{}\n"
                       "{}"
                       "send vrf[0x40], bytes=64, peer=0, chan=2{}\n"
                       "halt\n",
                       *relay ? " @push_next" : "", relay,
                       *relay ? " @pop_prev" : "");
  };
  for (unsigned threads : {1u, 6u}) {
    auto emu = makeEmu(target, {c0, c1("sync ex @pop_prev @push_next\n")},
                       raceOptions(threads));
    runOk(*emu);
  }
  // Without the relay, card 1 may send before it receives: nothing orders
  // card 0's store before its load.
  std::string msg;
  for (unsigned threads : {1u, 6u}) {
    auto emu = makeEmu(target, {c0, c1("")}, raceOptions(threads));
    std::string m = runError(*emu);
    if (threads == 1)
      msg = m;
    else
      REQUIRE(m == msg); // deterministic
  }
  has(msg, "card 0 core 0 pc 3 (ld: `dma.ld vrf[0x400], dram[0x0]");
  has(msg, "data race on dram[0x0, 0x100)");
  has(msg, "card 0 core 0 pc 0 (st: `dma.st dram[0x0]");
}

TEST_CASE("a clean multi-card program reports nothing, identically for any "
          "thread count",
          "[races][cards]") {
  auto target = loadTarget("multicard-6x");
  std::vector<std::string> progs;
  for (unsigned card = 0; card < 6; ++card)
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
  std::vector<uint64_t> cycles;
  for (bool check : {false, true})
    for (unsigned threads : {1u, 6u}) {
      emulator::EmulatorOptions o;
      o.threads = threads;
      o.checkRaces = check;
      auto emu = makeEmu(target, progs, o);
      cycles.push_back(runOk(*emu).totalCycles);
      // Every run starts afresh: a second run is clean too.
      runOk(*emu);
    }
  // The detector does not change the schedule.
  for (uint64_t c : cycles)
    REQUIRE(c == cycles[0]);
}

TEST_CASE("pooled gather: the index list extent is known at execution",
          "[races]") {
  auto target = loadTarget();
  // Lengths [2, 2]: the gather reads indices at vrf[0x100, 0x110); the
  // footprint at dispatch only covers the first entry. v.fill writes the
  // last index entry concurrently.
  std::string gather = "emb.gather acc[0x0], dram[0x0], vrf[s1], vrf[s2], "
                       "vrf[s0], f32, fmt=f32, dim=64, rowbytes=256, "
                       "nrows=4, nseg=2, pool=sum, dpitch=256";
  std::string fill = "v.fill vrf[0x10c], i32, rows=1, cols=1, dpitch=4";
  std::string prog = "s.li s1, imm=0x100\ns.li s2, imm=0x200\n" + gather +
                     "\n" + fill + "\nhalt\n";
  auto emu = makeEmu(target, {prog}, raceOptions());
  put(*emu, Space::Vrf, 0x100, std::vector<int32_t>{0, 1, 2, 3});
  put(*emu, Space::Vrf, 0x200, std::vector<int32_t>{2, 2});
  std::string msg = runError(*emu);
  has(msg, "data race on vrf[0x10c, 0x110)");
  has(msg, "card 0 core 0 pc 3 (ex: `v.fill");
  has(msg, "card 0 core 0 pc 2 (ld: `emb.gather");
  has(msg, "read (operand 'idx' vrf[0x100, 0x110)");
}

//===----------------------------------------------------------------------===//
// AccessHistory against a byte-by-byte reference
//===----------------------------------------------------------------------===//

namespace {

using emulator::AccessHistory;
using emulator::AccessRecord;
using emulator::VectorClock;

/// The same rules, one byte at a time.
struct ByteHistory {
  struct Byte {
    AccessRecord write;
    std::vector<AccessRecord> reads;
  };
  std::vector<Byte> bytes;
  explicit ByteHistory(size_t n) : bytes(n) {}

  /// (first conflicting byte, earlier access), or nothing (then recorded).
  std::optional<std::pair<uint64_t, AccessRecord>>
  access(const AccessRecord &a, bool write, const VectorClock &vc) {
    for (auto i = static_cast<size_t>(a.start); i < static_cast<size_t>(a.end);
         ++i) {
      const Byte &b = bytes[i];
      if (b.write.valid() && !b.write.orderedBefore(vc))
        return std::make_pair(uint64_t(i), b.write);
      if (write)
        for (const AccessRecord &r : b.reads)
          if (!r.orderedBefore(vc))
            return std::make_pair(uint64_t(i), r);
    }
    for (auto i = static_cast<size_t>(a.start); i < static_cast<size_t>(a.end);
         ++i) {
      Byte &b = bytes[i];
      if (write) {
        b.write = a;
        b.reads.clear();
        continue;
      }
      std::vector<AccessRecord> keep;
      for (const AccessRecord &r : b.reads)
        if (!r.orderedBefore(vc))
          keep.push_back(r);
      keep.push_back(a);
      b.reads = keep;
    }
    return std::nullopt;
  }
};

} // namespace

TEST_CASE("AccessHistory matches a byte-by-byte reference", "[races]") {
  std::mt19937 rng(17);
  constexpr unsigned Agents = 4, Size = 96;
  const char *const Names[2] = {"a", "dst"};
  int racedTrials = 0, totalSteps = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    AccessHistory h;
    ByteHistory ref(Size);
    std::vector<VectorClock> clocks(Agents, VectorClock(Agents, 0));
    bool raced = false;
    unsigned syncPercent = 50 + rng() % 51;
    for (int step = 0; step < 300 && !raced; ++step) {
      ++totalSteps;
      unsigned agent = rng() % Agents;
      VectorClock &vc = clocks[agent];
      // Learn what others did so far (a barrier) or what one did (a
      // token), more or less often in different trials.
      if (rng() % 100 < syncPercent)
        for (const VectorClock &other : clocks)
          emulator::joinClock(vc, other);
      else if (rng() % 2)
        emulator::joinClock(vc, clocks[rng() % Agents]);
      ++vc[agent];
      AccessRecord a;
      a.agent = agent;
      a.clock = vc[agent];
      a.pc = static_cast<uint32_t>(step);
      a.start = static_cast<int64_t>(rng() % Size);
      a.end = std::min<int64_t>(Size, a.start + 1 + rng() % 24);
      bool write = rng() % 3 == 0;
      a.operand = Names[write];
      auto got = h.access(a, write, vc);
      auto want = ref.access(a, write, vc);
      INFO("trial " << trial << " step " << step);
      REQUIRE(got.has_value() == want.has_value());
      if (got) {
        REQUIRE(got->start == want->first);
        REQUIRE(got->earlier == want->second);
        REQUIRE(got->start < got->end);
        REQUIRE(got->end <= static_cast<uint64_t>(a.end));
        raced = true;
        ++racedTrials;
      }
    }
  }
  // Both outcomes are exercised, over many accesses.
  REQUIRE(racedTrials > 100);
  REQUIRE(racedTrials < 1000);
  REQUIRE(totalSteps > 20000);
  // Writes collapse the history of their range into one segment.
  AccessHistory h;
  VectorClock vc{5};
  AccessRecord a;
  a.clock = 5;
  for (int64_t s = 0; s < 64; s += 8) {
    a.start = s;
    a.end = s + 8;
    REQUIRE(!h.access(a, false, vc));
  }
  REQUIRE(h.size() == 8);
  a.start = 0;
  a.end = 64;
  REQUIRE(!h.access(a, true, vc));
  REQUIRE(h.size() == 1);
  // Reads of the same agent over the whole range merge back too.
  a.clock = 6;
  vc[0] = 6;
  for (int64_t s = 0; s < 64; s += 16) {
    a.start = s;
    a.end = s + 16;
    REQUIRE(!h.access(a, false, vc));
  }
  REQUIRE(h.size() == 4);
  a.start = 0;
  a.end = 64;
  REQUIRE(!h.access(a, false, vc));
  REQUIRE(h.size() == 1);
}
