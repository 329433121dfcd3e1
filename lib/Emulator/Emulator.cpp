//===- Emulator.cpp - Top level: loading, host interface, run loop ------===//
//
// The Machine owns the cards and drives a run: it advances every card to the
// end of a time window no longer than the card-to-card link latency (on
// worker threads when there are several cards), then delivers the link
// messages sent in that window, and repeats. Because a message sent inside a
// window cannot arrive before the window ends, cards never observe each
// other mid-window and the result is the same for any number of threads.
// When no card can move and some core has not finished, the run is
// deadlocked and the error names what each blocked core waits for.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "nnaccel/Emulator/WorkerPool.h"
#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace nnaccel::emulator {

using namespace isa;

class Machine {
public:
  Machine(const TargetDesc &t, EmulatorOptions o)
      : target(t), options(o), cm(target) {
    for (unsigned i = 0; i < target.cards; ++i)
      cards.push_back(std::make_unique<Card>(i, target, cm, options.trace,
                                             options.checkRaces));
  }

  Error load(const Program &p);
  Expected<Stats> run();
  void collectStats();
  Error locate(unsigned card, Space space, unsigned core, uint64_t addr,
               size_t size, Memory *&mem) const;

  TargetDesc target;
  EmulatorOptions options;
  CycleModel cm;
  std::vector<std::unique_ptr<Card>> cards;
  std::map<std::pair<unsigned, unsigned>, std::vector<std::vector<uint8_t>>>
      hostInbox; ///< (card, chan) -> messages from cards
  Stats stats;
  std::unique_ptr<WorkerPool> pool;

  /// With automatic threads, whether a one-card launch steps its cores on
  /// the worker threads is measured, not guessed: a warm-up run on the
  /// workers (it starts them and warms both sides' caches), then
  /// kProbeRuns runs each way, alternating so that a change of machine load
  /// weighs on both, and the faster way (by its fastest run) is kept until
  /// programs change. Short windows between barriers can cost more in
  /// hand-offs than they gain; large ones gain. Results are the same either
  /// way.
  struct CoreThreadsProbe {
    static constexpr unsigned kProbeRuns = 3;
    unsigned runs = 0;
    double serialSeconds = 0, parallelSeconds = 0;
    /// Whether run number `runs` steps the cores on the workers.
    bool parallel() const {
      if (runs == 0)
        return true; // warm-up
      if (runs <= 2 * kProbeRuns)
        return runs % 2 == 0; // serial first, then alternating
      return parallelSeconds < 0.95 * serialSeconds;
    }
    void record(bool wasParallel, double seconds) {
      const unsigned index = runs++;
      if (index == 0 || index > 2 * kProbeRuns)
        return;
      double &best = wasParallel ? parallelSeconds : serialSeconds;
      best = best == 0 ? seconds : std::min(best, seconds);
    }
  } coreThreadsProbe;
};

Error Machine::load(const Program &p) {
  if (p.card >= target.cards || p.core >= target.coresPerCard)
    return Error::make(fmt::format("program for card {} core {} does not fit "
                                   "target '{}' ({} card(s) x {} core(s))",
                                   p.card, p.core, target.name, target.cards,
                                   target.coresPerCard));
  size_t n = p.instructions.size();
  std::vector<uint32_t> match(n, UINT32_MAX);
  std::vector<uint32_t> stack;
  std::vector<Op> ops;
  ops.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Instruction &inst = p.instructions[i];
    auto at = [&](const std::string &msg) {
      return Error::make(fmt::format("card {} core {} pc {} (`{}`): {}", p.card,
                                     p.core, i, printInstruction(inst), msg));
    };
    if (!lookupOpcode(static_cast<uint8_t>(inst.opcode)))
      return Error::make(fmt::format("card {} core {} pc {}: undefined opcode "
                                     "{:#04x}",
                                     p.card, p.core, i,
                                     static_cast<unsigned>(inst.opcode)));
    if (Error e = checkFieldRanges(inst))
      return at(e.message());
    if (options.verifyOnLoad)
      if (Error e = verifyInstruction(inst, target, p.card, p.core))
        return at(e.message());
    if (inst.opcode == Opcode::Loop || inst.opcode == Opcode::LoopR)
      stack.push_back(static_cast<uint32_t>(i));
    if (inst.opcode == Opcode::EndLoop) {
      if (stack.empty())
        return at("endloop without a matching loop");
      match[i] = stack.back();
      match[stack.back()] = static_cast<uint32_t>(i);
      stack.pop_back();
    }
    ops.push_back(isa::decode(inst));
  }
  if (!stack.empty())
    return Error::make(fmt::format("card {} core {} pc {}: loop without a "
                                   "matching endloop",
                                   p.card, p.core, stack.back()));
  Core &c = cards[p.card]->cores[p.core];
  coreThreadsProbe = CoreThreadsProbe();
  cards[p.card]->programsChanged();
  c.program = p;
  c.ops = std::move(ops);
  c.match = std::move(match);
  c.footprintKind.assign(c.ops.size(), Core::Footprint::Unknown);
  c.footprints.assign(c.ops.size(), {});
  c.loaded = true;
  return Error::success();
}

Error Machine::locate(unsigned card, Space space, unsigned core, uint64_t addr,
                      size_t size, Memory *&mem) const {
  if (card >= cards.size())
    return Error::make(fmt::format("card {} does not exist (target has {})",
                                   card, cards.size()));
  Card &cd = *cards[card];
  switch (space) {
  case Space::Dram:
    mem = &cd.dram;
    break;
  case Space::Shared:
    mem = &cd.shared;
    break;
  case Space::Vrf:
  case Space::Mrf:
  case Space::Acc: {
    if (core >= cd.cores.size())
      return Error::make(fmt::format("core {} does not exist (target has {})",
                                     core, cd.cores.size()));
    Core &c = cd.cores[core];
    mem = space == Space::Vrf ? &c.vrf : space == Space::Mrf ? &c.mrf : &c.acc;
    break;
  }
  default:
    return Error::make("memory space must be dram, shared, vrf, mrf or acc");
  }
  if (!mem->contains(addr, size))
    return Error::make(fmt::format("host access [{:#x}, {:#x}) is outside {} "
                                   "({} bytes)",
                                   addr, addr + size, spaceName(space),
                                   mem->size()));
  return Error::success();
}

Expected<Stats> Machine::run() {
  // Race checking: one agent per queue of every loaded core.
  uint32_t agents = 0;
  if (options.checkRaces)
    for (auto &c : cards)
      for (Core &core : c->cores)
        if (core.loaded) {
          core.agentBase = agents;
          agents += 3;
        }
  for (auto &c : cards) {
    c->raceAgents = agents;
    c->reset();
  }
  stats = Stats();
  unsigned nc = static_cast<unsigned>(cards.size());
  unsigned threads = options.threads;
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  // One card: its cores on the threads between barriers (docs/emulator.md
  // §9) when nothing records card-wide histories and no messages flow, and
  // with automatic threads when that measured faster (CoreThreadsProbe).
  const bool mayCoreThreads =
      nc == 1 && threads > 1 && cards.front()->coresMayRunInParallel();
  const bool probing = mayCoreThreads && options.threads == 0;
  const bool coreThreads =
      mayCoreThreads && (!probing || coreThreadsProbe.parallel());
  const auto started = std::chrono::steady_clock::now();
  threads = std::min<unsigned>(
      threads,
      coreThreads ? static_cast<unsigned>(cards.front()->cores.size()) : nc);
  if (threads > 1 && (!pool || pool->workers() < threads - 1))
    pool = std::make_unique<WorkerPool>(threads - 1);
  auto recordProbe = [&] {
    if (probing)
      coreThreadsProbe.record(coreThreads,
                              std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - started)
                                  .count());
  };
  // Schedule replay: one card whose schedule cannot depend on data.
  Card &first = *cards.front();
  const bool replayable = nc == 1 && options.replaySchedules &&
                          options.threads != 1 && first.schedulesReplayable();
  // A card's cores on the workers.
  const Card::ParallelFor onWorkers =
      [&](size_t n, const std::function<void(size_t)> &fn) {
        pool->parallelFor(n, fn);
      };
  if (replayable && first.canReplay()) {
    first.replay(coreThreads && threads > 1 && pool ? &onWorkers : nullptr);
    if (first.fault) {
      first.dropRecording();
      collectStats();
      return *first.fault;
    }
    recordProbe();
    collectStats();
    return stats;
  }
  if (replayable)
    first.startRecording();
  struct StopRecording {
    Card &card;
    bool active;
    bool completed = false;
    ~StopRecording() {
      if (active)
        card.finishRecording(completed);
    }
  } stopRecording{first, replayable};
  // Lookahead: nothing sent in a window arrives before the window ends.
  uint64_t window =
      nc > 1 ? std::max<uint64_t>(1, target.linkLatencyCycles) : Never;
  for (;;) {
    bool allDone = true;
    uint64_t next = Never;
    for (auto &c : cards) {
      allDone &= c->finished();
      next = std::min(next, c->nextTime());
    }
    if (allDone)
      break;
    if (next == Never) {
      for (auto &c : cards)
        if (!c->finished()) {
          collectStats();
          return Error::make("deadlock: " + c->describeBlocked());
        }
    }
    uint64_t until =
        window == Never || next > Never - window ? Never : next + window;
    auto runCard = [&](size_t i) {
      cards[i]->runUntil(until, options.maxSteps);
    };
    if (coreThreads && threads > 1 && pool)
      first.runUntilParallel(until, options.maxSteps, onWorkers);
    else if (threads > 1 && pool)
      pool->parallelFor(nc, runCard);
    else
      for (size_t i = 0; i < nc; ++i)
        runCard(i);
    for (auto &c : cards)
      if (c->fault) {
        collectStats();
        return *c->fault;
      }
    // Deliver this window's messages in (source card, send order) order.
    for (auto &c : cards) {
      for (Message &m : c->outbox) {
        m.arrival = std::max(m.arrival, until == Never ? m.arrival : until);
        if (m.dst == HostPeer)
          hostInbox[{m.src, m.chan}].push_back(std::move(m.data));
        else
          cards[m.dst]->inbox[{m.src, m.chan}].push_back(std::move(m));
      }
      c->outbox.clear();
    }
  }
  stopRecording.completed = true;
  recordProbe();
  collectStats();
  return stats;
}

void Machine::collectStats() {
  stats.target = target.name;
  stats.clockMHz = target.clockMHz;
  stats.cores.clear();
  stats.cards.clear();
  double peak = 0, activeCycles = 0;
  for (auto &cp : cards) {
    Card &card = *cp;
    CardStats cs;
    cs.card = card.index;
    cs.linkBytesSent = card.linkBytesSent;
    cs.linkBytesReceived = card.linkBytesReceived;
    cs.hostBytesSent = card.hostBytesSent;
    cs.hostBytesReceived = card.hostBytesReceived;
    for (Core &c : card.cores) {
      CoreStats s = c.stats;
      if (s.active && c.state != Core::State::Done)
        s.finishCycle = std::max(c.dtime, c.lastFree());
      s.macUtilization =
          s.finishCycle ? s.peakMacCycles / static_cast<double>(s.finishCycle)
                        : 0;
      stats.totalCycles = std::max(stats.totalCycles, s.finishCycle);
      stats.instructions += s.dispatched;
      stats.macs += s.macs;
      if (s.active) {
        peak += s.peakMacCycles;
        activeCycles += static_cast<double>(s.finishCycle);
      }
      cs.bytes.add(s.bytes);
      stats.cores.push_back(s);
    }
    stats.cards.push_back(cs);
  }
  stats.macUtilization = activeCycles > 0 ? peak / activeCycles : 0;
}

//===----------------------------------------------------------------------===//
// Emulator
//===----------------------------------------------------------------------===//

Emulator::Emulator(const TargetDesc &target, EmulatorOptions options)
    : machine_(std::make_unique<Machine>(target, options)) {}
Emulator::~Emulator() = default;

const TargetDesc &Emulator::target() const { return machine_->target; }

Error Emulator::loadProgram(const Program &program) {
  return machine_->load(program);
}

Error Emulator::loadProgramBinary(const uint8_t *data, size_t size) {
  Expected<Program> p = decodeProgram(data, size);
  if (p)
    return machine_->load(*p);
  // Name the first undecodable word by card, core and pc when the header is
  // intact, so a corrupt instruction is reported like any other fault.
  bool header = size >= BinaryHeader::Size && data[0] == 'N' &&
                data[1] == 'N' && data[2] == 'P' && data[3] == 'U';
  if (header) {
    unsigned card = data[16] | (data[17] << 8),
             core = data[18] | (data[19] << 8);
    for (size_t off = BinaryHeader::Size; off + WordBytes <= size;
         off += WordBytes) {
      Expected<Instruction> inst = decode(data, size, off);
      if (!inst)
        return Error::make(fmt::format(
            "card {} core {} pc {}: cannot decode instruction (opcode byte "
            "{:#04x}): {}",
            card, core, (off - BinaryHeader::Size) / WordBytes, data[off],
            inst.message()));
    }
  }
  return Error::make("cannot decode program binary: " + p.message());
}

Error Emulator::loadProgramAsm(std::string_view text) {
  Expected<Program> p = parseAsm(text);
  if (!p)
    return Error::make("cannot parse program: " + p.message());
  return machine_->load(*p);
}

Error Emulator::loadProgramFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error::make(fmt::format("cannot open '{}'", path));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  bool binary = bytes.size() >= 4 && bytes[0] == 'N' && bytes[1] == 'N' &&
                bytes[2] == 'P' && bytes[3] == 'U';
  Error e =
      binary ? loadProgramBinary(bytes)
             : loadProgramAsm(std::string_view(
                   reinterpret_cast<const char *>(bytes.data()), bytes.size()));
  if (e)
    return Error::make(path + ": " + e.message());
  return Error::success();
}

void Emulator::clearPrograms() {
  for (auto &c : machine_->cards) {
    c->programsChanged();
    for (Core &core : c->cores) {
      core.loaded = false;
      core.program = Program();
      core.ops.clear();
      core.match.clear();
      core.footprintKind.clear();
      core.footprints.clear();
    }
  }
  machine_->coreThreadsProbe = Machine::CoreThreadsProbe();
}

Error Emulator::writeMemory(unsigned card, Space space, uint64_t addr,
                            const void *data, size_t size, unsigned core) {
  Memory *m = nullptr;
  if (Error e = machine_->locate(card, space, core, addr, size, m))
    return e;
  m->write(addr, data, size);
  return Error::success();
}

Error Emulator::readMemory(unsigned card, Space space, uint64_t addr, void *out,
                           size_t size, unsigned core) const {
  Memory *m = nullptr;
  if (Error e = machine_->locate(card, space, core, addr, size, m))
    return e;
  m->read(addr, out, size);
  return Error::success();
}

Expected<std::vector<uint8_t>> Emulator::readMemory(unsigned card, Space space,
                                                    uint64_t addr, size_t size,
                                                    unsigned core) const {
  std::vector<uint8_t> out(size);
  if (Error e = readMemory(card, space, addr, out.data(), size, core))
    return e;
  return out;
}

void Emulator::clearMemory() {
  for (auto &c : machine_->cards) {
    c->dram.clear();
    c->shared.clear();
    for (Core &core : c->cores) {
      core.vrf.clear();
      core.mrf.clear();
      core.acc.clear();
    }
  }
}

Error Emulator::hostSend(unsigned card, unsigned chan,
                         std::vector<uint8_t> data) {
  if (card >= machine_->cards.size())
    return Error::make(fmt::format("card {} does not exist", card));
  if (chan > 0xFFFF)
    return Error::make(fmt::format("channel {} is not a 16-bit channel", chan));
  Message m;
  m.src = HostPeer;
  m.dst = card;
  m.chan = chan;
  // Posted at cycle 0: arrives after the host link's latency and transfer.
  m.arrival =
      machine_->cm.linkSend(data.size(), true) + machine_->cm.linkLatency(true);
  m.data = std::move(data);
  machine_->cards[card]->inbox[{HostPeer, chan}].push_back(std::move(m));
  return Error::success();
}

std::vector<std::vector<uint8_t>> Emulator::hostReceive(unsigned card,
                                                        unsigned chan) {
  auto it = machine_->hostInbox.find({card, chan});
  if (it == machine_->hostInbox.end())
    return {};
  auto out = std::move(it->second);
  machine_->hostInbox.erase(it);
  return out;
}

Expected<Stats> Emulator::run() { return machine_->run(); }

const Stats &Emulator::stats() const { return machine_->stats; }

std::string Emulator::traceJson() const {
  return buildTraceJson(machine_->target, machine_->cards);
}

Error Emulator::writeTrace(const std::string &path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return Error::make(fmt::format("cannot write '{}'", path));
  out << traceJson();
  if (!out)
    return Error::make(fmt::format("error writing '{}'", path));
  return Error::success();
}

} // namespace nnaccel::emulator
