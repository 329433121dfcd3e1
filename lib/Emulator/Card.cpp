//===- Card.cpp - One card: memories, cores and the event scheduler -----===//
//
// A card owns its DRAM and shared SRAM and its cores, and advances them in
// modelled time: it repeatedly steps the agent (dispatcher or queue of some
// core) with the earliest start time, breaking ties by core and agent index,
// which makes every run of the same programs identical. When no agent can
// move the card is either finished, waiting for link messages, or
// deadlocked; describeBlocked() explains what each core waits for.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "nnaccel/Emulator/WorkerPool.h"
#include "nnaccel/ISA/Asm.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

namespace nnaccel::emulator {

using namespace isa;

Card::Card(unsigned idx, const TargetDesc &target, const CycleModel &cm,
           bool trace, bool checkRaces)
    : index(idx), dram(target.memory(Space::Dram).bytes),
      shared(target.memory(Space::Shared).bytes), t_(target), cm_(cm),
      trace_(trace), checkRaces_(checkRaces) {
  // Constructed in place: Core is movable but not nothrow-movable.
  cores = std::vector<Core>(target.coresPerCard);
  for (unsigned i = 0; i < target.coresPerCard; ++i) {
    Core &c = cores[i];
    c.card = idx;
    c.index = i;
    c.vrf = Memory(uint64_t(target.vrfRegisters) * target.vrfRegisterBytes);
    c.mrf = Memory(target.memory(Space::Mrf).bytes);
    // mm keeps weights it decoded while the MRF is unwritten.
    c.mrf.countWrites();
    c.acc = Memory(target.memory(Space::Acc).bytes);
  }
}

void Card::reset() {
  for (Core &c : cores) {
    c.state = c.loaded ? Core::State::Running : Core::State::Idle;
    c.pc = 0;
    c.dtime = 0;
    c.sregs.fill(0);
    c.loops.clear();
    c.blockedOnQueue = -1;
    c.blockedSince = 0;
    for (auto &q : c.queues)
      q.reset();
    for (auto &f : c.fifos)
      f.reset();
    c.ctx.target = &t_;
    c.ctx.cycles = &cm_;
    c.ctx.mem = {&dram, &shared, &c.vrf, &c.mrf, &c.acc};
    c.ctx.chain = ChainValue();
    c.stats = CoreStats();
    c.stats.card = index;
    c.stats.core = c.index;
    c.stats.active = c.loaded;
    c.ctx.bytes = &c.stats.bytes;
    for (unsigned q = 0; q < 3; ++q) {
      c.clocks[q].assign(checkRaces_ && c.loaded ? raceAgents : 0, 0);
      c.history[q].clear();
    }
  }
  dramHistory_.clear();
  sharedHistory_.clear();
  barriers_.clear();
  barrierCount_.assign(cores.size(), {});
  // Host messages queued before the run stay; card messages are per run.
  for (auto it = inbox.begin(); it != inbox.end();)
    it = it->first.first == HostPeer ? std::next(it) : inbox.erase(it);
  outbox.clear();
  fault.reset();
  steps = 0;
  events.clear();
  linkBytesSent = linkBytesReceived = hostBytesSent = hostBytesReceived = 0;
}

uint64_t Card::agentTime(Core &c, unsigned agent) {
  if (agent == AgentDispatch)
    return dispatcherTime(c);
  return queueTime(c, agent - AgentLd);
}

void Card::step(Core &c, unsigned agent) {
  if (agent == AgentDispatch)
    dispatchStep(c);
  else
    queueStep(c, agent - AgentLd);
}

uint64_t Card::nextTime() {
  if (fault)
    return Never;
  uint64_t best = Never;
  for (Core &c : cores) {
    if (c.state == Core::State::Idle || c.state == Core::State::Done)
      continue;
    for (unsigned a = 0; a < NumAgents; ++a)
      best = std::min(best, agentTime(c, a));
  }
  return best;
}

void Card::runUntil(uint64_t until, uint64_t maxSteps) {
  // The earliest agent of all cores steps next (ties: the first core, then
  // the first agent). Times are cached per core and recomputed for the
  // stepped core, or for all after a change to what cores share.
  agentTimes_.resize(cores.size());
  auto refresh = [&](Core &c) {
    std::array<uint64_t, NumAgents> &times = agentTimes_[c.index];
    const bool active =
        c.state != Core::State::Idle && c.state != Core::State::Done;
    for (unsigned a = 0; a < NumAgents; ++a)
      times[a] = active ? agentTime(c, a) : Never;
  };
  for (Core &c : cores)
    refresh(c);
  while (!fault) {
    uint64_t best = Never;
    Core *bc = nullptr;
    unsigned ba = 0;
    for (Core &c : cores)
      for (unsigned a = 0; a < NumAgents; ++a)
        if (agentTimes_[c.index][a] < best) {
          best = agentTimes_[c.index][a];
          bc = &c;
          ba = a;
        }
    if (!bc || best >= until)
      return;
    if (++steps > maxSteps) {
      fault = Error::make(fmt::format(
          "card {}: step budget of {} exceeded (EmulatorOptions::maxSteps)",
          index, maxSteps));
      return;
    }
    sharedChanged_ = false;
    step(*bc, ba);
    if (sharedChanged_) {
      for (Core &c : cores)
        refresh(c);
    } else {
      updateAgentTimes(*bc, ba, agentTimes_[bc->index]);
    }
  }
}

void Card::updateAgentTimes(Core &c, unsigned stepped,
                            std::array<uint64_t, NumAgents> &times) {
  if (c.state == Core::State::Idle || c.state == Core::State::Done) {
    times.fill(Never);
    return;
  }
  const bool dispatched =
      stepped == AgentDispatch &&
      (c.state == Core::State::Running || c.state == Core::State::Halted);
  for (unsigned a = 0; a < NumAgents; ++a)
    if (!dispatched || a == AgentDispatch || times[a] == Never)
      times[a] = agentTime(c, a);
}

void Card::programsChanged() {
  dropRecording();
  programTraits_.reset();
}

const Card::ProgramTraits &Card::programTraits() const {
  if (!programTraits_) {
    ProgramTraits traits;
    for (const Core &c : cores) {
      if (!c.loaded)
        continue;
      ++traits.loadedCores;
      for (const Op &op : c.ops) {
        traits.messages |=
            op.opcode == Opcode::Send || op.opcode == Opcode::Recv;
        traits.pooledGather |=
            op.opcode == Opcode::EmbGather && op.pool != Pool::None;
      }
    }
    programTraits_ = traits;
  }
  return *programTraits_;
}

bool Card::coresMayRunInParallel() const {
  if (trace_ || checkRaces_)
    return false;
  const ProgramTraits &traits = programTraits();
  return !traits.messages && traits.loadedCores > 1;
}

void Card::pushReady(size_t core) {
  readyCores_.push_back(core);
  readyCount_.store(readyCores_.size(), std::memory_order_release);
}

void Card::driveCores(const ParallelFor *parallelFor,
                      const std::function<void(size_t)> &runCore) {
  // `running` and readyCount_ change under barrierMutex_; a worker waiting
  // for work reads them without it and only locks to take a core.
  std::atomic<size_t> running{0};
  std::atomic<bool> stop{false};
  readyCount_.store(readyCores_.size(), std::memory_order_release);
  auto worker = [&](size_t) {
    for (;;) {
      if (stop.load(std::memory_order_acquire))
        return;
      if (readyCount_.load(std::memory_order_acquire) == 0 &&
          running.load(std::memory_order_acquire) != 0) {
        // Another worker's core may release a barrier: wait for work.
        cpuRelax();
        continue;
      }
      size_t i = 0;
      {
        std::lock_guard<std::mutex> lock(barrierMutex_);
        if (readyCores_.empty()) {
          // Nothing ready and nothing running: every core has finished,
          // faulted, reached its window's end or waits at a barrier that
          // cannot release.
          if (running.load(std::memory_order_relaxed) == 0)
            stop.store(true, std::memory_order_release);
          continue;
        }
        i = readyCores_.back();
        readyCores_.pop_back();
        readyCount_.store(readyCores_.size(), std::memory_order_release);
        running.fetch_add(1, std::memory_order_acq_rel);
      }
      runCore(i);
      std::lock_guard<std::mutex> lock(barrierMutex_);
      running.fetch_sub(1, std::memory_order_acq_rel);
      if (coreFaults_[i])
        stop.store(true, std::memory_order_release);
    }
  };
  parallel_ = true;
  if (parallelFor)
    (*parallelFor)(cores.size(), worker);
  else
    worker(0);
  parallel_ = false;
  readyCores_.clear();
  readyCount_.store(0, std::memory_order_release);
  for (std::optional<Error> &f : coreFaults_)
    if (f) {
      fault = std::move(f);
      break;
    }
}

void Card::runUntilParallel(uint64_t until, uint64_t maxSteps,
                            const ParallelFor &parallelFor) {
  coreFaults_.assign(cores.size(), std::nullopt);
  std::vector<uint64_t> coreSteps(cores.size(), 0);
  auto active = [](const Core &c) {
    return c.state != Core::State::Idle && c.state != Core::State::Done;
  };
  auto atBarrier = [](const Core &c) {
    return c.state == Core::State::Running && c.pc < c.ops.size() &&
           c.ops[c.pc].opcode == Opcode::Barrier;
  };
  // Cores waiting at a barrier that not all participants have reached
  // (guarded by barrierMutex_, which also orders every access to barriers_
  // while parallel_).
  std::vector<char> parked(cores.size(), 0);
  readyCores_.clear();
  for (size_t i = 0; i < cores.size(); ++i)
    if (active(cores[i]))
      readyCores_.push_back(i);
  // Steps core i alone until it finishes, faults, reaches `until` or waits
  // at a barrier other cores have yet to reach. It touches only its own
  // state, its own coreSteps / coreFaults_ entries, the memories (which a
  // race-free program never makes two cores touch unordered) and, under
  // the lock, the barriers. Its arrival is made here: a barrier's release
  // is the latest arrival whatever their order, so every core keeps
  // runUntil's schedule.
  //
  // Steps are counted in a local (the cores' entries of coreSteps share
  // cache lines, which their threads would bounce at every step) and
  // published on the way out; a core that parks publishes under the lock,
  // before a releasing core can hand it to another thread. Returns whether
  // it parked.
  auto stepCore = [&](size_t i, uint64_t &stepped) {
    Core &c = cores[i];
    // The agents' times, kept like runUntil's (updateAgentTimes).
    std::array<uint64_t, NumAgents> times;
    for (unsigned a = 0; a < NumAgents; ++a)
      times[a] = agentTime(c, a);
    while (active(c) && !coreFaults_[i]) {
      unsigned agent = 0;
      uint64_t t = Never;
      for (unsigned a = 0; a < NumAgents; ++a)
        if (times[a] < t) {
          t = times[a];
          agent = a;
        }
      if (t == Never || t >= until)
        return false;
      if (steps + ++stepped > maxSteps) {
        coreFaults_[i] = Error::make(fmt::format(
            "card {}: step budget of {} exceeded (EmulatorOptions::maxSteps)",
            index, maxSteps));
        return false;
      }
      if (agent == AgentDispatch && atBarrier(c)) {
        std::lock_guard<std::mutex> lock(barrierMutex_);
        step(c, agent);
        if (c.state == Core::State::Barrier) {
          const BarrierGen &g = barriers_[c.barrierId][c.barrierGen];
          if (!g.released) {
            coreSteps[i] = stepped;
            parked[i] = 1;
            return true;
          }
          // The last arrival: the parked participants go back to work.
          for (size_t j = 0; j < cores.size(); ++j)
            if (parked[j] && cores[j].barrierId == c.barrierId &&
                cores[j].barrierGen == c.barrierGen) {
              parked[j] = 0;
              pushReady(j);
            }
        }
      } else {
        step(c, agent);
      }
      updateAgentTimes(c, agent, times);
    }
    return false;
  };
  auto runCore = [&](size_t i) {
    uint64_t stepped = coreSteps[i];
    if (!stepCore(i, stepped))
      coreSteps[i] = stepped;
  };
  driveCores(&parallelFor, runCore);
  for (uint64_t n : coreSteps)
    steps += n;
}

//===----------------------------------------------------------------------===//
// Schedule replay
//===----------------------------------------------------------------------===//

bool Card::schedulesReplayable() const {
  if (trace_ || checkRaces_)
    return false;
  // A pooled gather's lookups come from its length or offset list, and its
  // cycles with them; an unpooled one looks up one row per segment.
  const ProgramTraits &traits = programTraits();
  return !traits.pooledGather && !traits.messages;
}

void Card::startRecording() {
  recorded_.assign(cores.size(), {});
  recordedStats_.clear();
  replayReady_ = false;
  recording_ = true;
}

void Card::finishRecording(bool completed) {
  recording_ = false;
  replayReady_ = completed && !fault;
  if (!replayReady_) {
    recorded_.clear();
    return;
  }
  recordedStats_.clear();
  for (const Core &c : cores)
    recordedStats_.push_back(c.stats);
  recordedSteps_ = steps;
  // Number the barriers (id, generation) densely: a replay counts the
  // arrivals of barrier `slot` in a vector, with no lookup.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> slots;
  for (std::vector<ReplayEvent> &events : recorded_)
    for (ReplayEvent &ev : events)
      if (ev.kind == ReplayEvent::Barrier)
        ev.slot = slots
                      .try_emplace({ev.pc, ev.generation},
                                   static_cast<uint32_t>(slots.size()))
                      .first->second;
  recordedBarriers_ = slots.size();
}

void Card::dropRecording() {
  recording_ = replayReady_ = false;
  recorded_.clear();
  recordedStats_.clear();
}

void Card::recordExecution(const Core &c, uint32_t pc, const EffAddrs &eff,
                           bool chainHead) {
  recorded_[c.index].push_back(
      {chainHead ? ReplayEvent::ChainHead : ReplayEvent::ChainMember, pc, 0, 0,
       0, eff});
}

void Card::recordBarrier(const Core &c, unsigned id, uint32_t mask,
                         size_t generation) {
  recorded_[c.index].push_back({ReplayEvent::Barrier, id, mask,
                                static_cast<uint32_t>(generation), 0,
                                EffAddrs{}});
}

void Card::replay(const ParallelFor *parallelFor) {
  coreFaults_.assign(cores.size(), std::nullopt);
  // Per core: the next event; a parked core's barrier slot.
  std::vector<size_t> cursor(cores.size(), 0);
  std::vector<uint32_t> waitsAt(cores.size());
  std::vector<char> parked(cores.size(), 0);
  std::vector<uint32_t> &arrived = replayArrivals_;
  arrived.assign(recordedBarriers_, 0);
  readyCores_.clear();
  for (size_t i = 0; i < cores.size(); ++i)
    if (cores[i].loaded)
      readyCores_.push_back(i);
  // Core i's recorded executions in order up to a barrier that other cores
  // have yet to reach (then parked) or its end.
  auto runCore = [&](size_t i) {
    Core &c = cores[i];
    const std::vector<ReplayEvent> &events = recorded_[i];
    // A local cursor (the cores' entries of `cursor` share cache lines,
    // which their threads would bounce at every event), published when
    // the core stops: under the lock when it parks, before a releasing core
    // can hand it to another thread.
    size_t at = cursor[i];
    for (; at < events.size(); ++at) {
      const ReplayEvent &ev = events[at];
      if (ev.kind == ReplayEvent::Barrier) {
        std::lock_guard<std::mutex> lock(barrierMutex_);
        const uint32_t key = ev.slot;
        uint32_t &mask = arrived[key];
        mask |= 1u << c.index;
        if (mask != ev.mask) {
          cursor[i] = at + 1;
          parked[i] = 1;
          waitsAt[i] = key;
          return;
        }
        for (size_t j = 0; j < cores.size(); ++j)
          if (parked[j] && waitsAt[j] == key) {
            parked[j] = 0;
            pushReady(j);
          }
        continue;
      }
      if (ev.kind == ReplayEvent::ChainHead)
        c.ctx.chain.valid = false;
      ExecResult r;
      if (Error e = executeUnit(c.ops[ev.pc], ev.eff, c.ctx, r)) {
        setFault(c, ev.pc, e.message());
        cursor[i] = at;
        return;
      }
    }
    cursor[i] = at;
    c.state = Core::State::Done;
  };
  driveCores(parallelFor, runCore);
  if (fault)
    return;
  // The schedule is the recorded run's, and so is everything it counted.
  for (size_t i = 0; i < cores.size(); ++i)
    cores[i].stats = recordedStats_[i];
  steps = recordedSteps_;
}

bool Card::finished() const {
  for (const Core &c : cores)
    if (c.state != Core::State::Idle && c.state != Core::State::Done)
      return false;
  return true;
}

std::string Card::blockedReason(const Core &c, unsigned agent) const {
  static const char *const QNames[3] = {"ld", "ex", "st"};
  static const char *const FifoFrom[4] = {"ld", "ex", "ex", "st"};
  static const char *const FifoTo[4] = {"ex", "ld", "st", "ex"};
  if (agent == AgentDispatch) {
    if (c.state == Core::State::Barrier) {
      auto it = barriers_.find(c.barrierId);
      const BarrierGen &g = it->second[c.barrierGen];
      std::string missing;
      for (unsigned k = 0; k < 32; ++k)
        if ((g.mask >> k & 1u) && !(g.arrived >> k & 1u))
          missing += (missing.empty() ? "" : ", ") + std::to_string(k);
      return fmt::format("{}: waits at barrier id={} mask={:#x} for core(s) "
                         "{} that never arrive",
                         where(c, c.pc), c.barrierId, g.mask, missing);
    }
    if (c.state == Core::State::Running && c.blockedOnQueue >= 0)
      return fmt::format("{}: dispatcher waits for room in the full {} queue",
                         where(c, c.pc), QNames[c.blockedOnQueue]);
    return {};
  }
  unsigned q = agent - AgentLd;
  const QueueState &qs = c.queues[q];
  if (qs.pendingPush)
    return fmt::format("{}: waits for room in a full token FIFO to push its "
                       "token",
                       where(c, qs.pendingPc));
  if (qs.entries.empty())
    return {};
  const QueueEntry &head = qs.entries.front();
  const Op &op = c.ops[head.pc];
  if (op.opcode == Opcode::Recv) {
    auto it = inbox.find({op.peer, op.chan});
    if (it == inbox.end() || it->second.empty())
      return fmt::format("{}: waits for a message from {} on channel {} that "
                         "is never sent",
                         where(c, head.pc),
                         op.peer == HostPeer ? std::string("the host")
                                             : fmt::format("card {}", op.peer),
                         op.chan);
  }
  std::array<unsigned, 4> need{};
  size_t len = 1;
  if (q == 1)
    while (len <= qs.entries.size() && c.ops[qs.entries[len - 1].pc].chained())
      ++len;
  if (len > qs.entries.size())
    return fmt::format("{}: waits for the rest of its chain to be dispatched",
                       where(c, head.pc));
  for (size_t i = 0; i < len; ++i) {
    uint8_t f = c.ops[qs.entries[i].pc].flags;
    auto add = [&](unsigned from) {
      for (unsigned k = 0; k < 4; ++k)
        if (std::string_view(FifoFrom[k]) == QNames[from] &&
            std::string_view(FifoTo[k]) == QNames[q])
          ++need[k];
    };
    if ((f & FlagPopPrev) && q > 0)
      add(q - 1);
    if ((f & FlagPopNext) && q < 2)
      add(q + 1);
  }
  for (unsigned k = 0; k < 4; ++k)
    if (c.fifos[k].times.size() < need[k])
      return fmt::format("{}: waits for a token from the {} queue (the {}->{} "
                         "FIFO is empty and nothing left can push one)",
                         where(c, head.pc), FifoFrom[k], FifoFrom[k],
                         FifoTo[k]);
  return {};
}

std::string Card::describeBlocked() const {
  // Queue heads first: they are the root cause more often than a dispatcher
  // that merely waits for a drained queue.
  std::vector<std::string> reasons;
  for (const Core &c : cores) {
    if (c.state == Core::State::Idle || c.state == Core::State::Done)
      continue;
    for (unsigned a : {AgentLd, AgentEx, AgentSt, AgentDispatch}) {
      std::string r = blockedReason(c, a);
      if (!r.empty())
        reasons.push_back(std::move(r));
    }
  }
  std::string out;
  for (size_t i = 0; i < reasons.size(); ++i)
    out += (i ? "; " : "") + reasons[i];
  return out;
}

} // namespace nnaccel::emulator
