//===- Machine.h - Emulated cards, cores and their scheduler ----*- C++ -*-===//
//
// The emulator's internal state: cards (DRAM, shared SRAM, barriers,
// mailboxes) holding cores (dispatcher, scalar registers, loop stack, the
// ld/ex/st queues, token FIFOs, local memories, chain register).
//
// Scheduling is a discrete-event simulation in modelled time. Each core has
// four agents -- the dispatcher and three queues -- and a card repeatedly
// steps the runnable agent with the earliest time (ties: lowest core, then
// dispatcher, ld, ex, st), so the order of every memory access is a function
// of the programs alone. An instruction executes atomically when it starts;
// tokens, barriers and messages carry the times at which they become
// available. Cards only interact through link messages, which take at least
// the link latency to arrive, so the Machine advances all cards in windows of
// that length in parallel and exchanges messages between windows
// (conservative parallel simulation): results are independent of threads.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_LIB_EMULATOR_MACHINE_H
#define NNACCEL_LIB_EMULATOR_MACHINE_H

#include "CycleModel.h"
#include "Op.h"
#include "RaceDetector.h"
#include "RingBuffer.h"
#include "Units.h"

#include "nnaccel/Emulator/Emulator.h"
#include "nnaccel/Emulator/Memory.h"
#include "nnaccel/ISA/Operands.h"
#include "nnaccel/ISA/Program.h"

#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nnaccel::emulator {

constexpr uint64_t Never = std::numeric_limits<uint64_t>::max();
constexpr unsigned HostPeer = 255;

/// A link message in flight or waiting in a mailbox.
struct Message {
  unsigned src = 0, dst = 0, chan = 0;
  std::vector<uint8_t> data;
  uint64_t arrival = 0;
  VectorClock clock; ///< the sender's (race checking; empty from the host)
};

struct QueueEntry {
  uint32_t pc = 0;
  uint64_t enqueueTime = 0;
  EffAddrs eff{};
  /// Footprints resolved at dispatch (kept for the ex queue's hazard checks
  /// and when checking races): the core's cached footprints of a static
  /// instruction (Core::footprints), or this entry's own.
  const std::vector<isa::MemAccess> *cached = nullptr;
  std::vector<isa::MemAccess> own;
  const std::vector<isa::MemAccess> &accesses() const {
    return cached ? *cached : own;
  }
};

/// Token FIFO: the times at which the queued tokens became available and,
/// when checking races, the pushers' clocks.
struct TokenFifo {
  RingBuffer<uint64_t> times;
  std::deque<VectorClock> clocks;
  uint64_t lastPop = 0;

  void reset() {
    times.clear();
    clocks.clear();
    lastPop = 0;
  }
};

/// An ex chain whose results have not all landed yet: a later chain that
/// touches what it reads or writes waits for `landsAt`. Its members'
/// footprints are referred to, not copied: a static instruction's are the
/// core's cached ones (Core::footprints, stable for the session), a
/// dynamic one's are moved in from its queue entry (`owned`).
struct InFlightChain {
  uint64_t landsAt = 0;
  std::vector<const std::vector<isa::MemAccess> *> footprints;
  std::vector<std::vector<isa::MemAccess>> owned;
};

struct QueueState {
  RingBuffer<QueueEntry> entries;
  uint64_t freeAt = 0; ///< takes its next instruction
  /// Its last instruction's result is visible (>= freeAt: a DMA's latency
  /// runs after the queue is free). Results land in order.
  uint64_t doneAt = 0;
  uint8_t pendingPush = 0; ///< push flags waiting for FIFO room
  uint64_t pendingSince = 0;
  uint32_t pendingPc = 0;
  // The ex queue only: its matrix unit and MFU pipeline are separate units
  // (Queues.cpp), each free again at these times; the chains still in
  // flight; the end of the busy time counted so far (busy is the union of
  // the units' busy spans, so it never exceeds the elapsed time).
  uint64_t mvuFreeAt = 0, mfuFreeAt = 0, busyUntil = 0;
  std::vector<InFlightChain> inFlight;

  /// The state of a new run, keeping the containers' storage.
  void reset() {
    entries.clear();
    freeAt = doneAt = 0;
    pendingPush = 0;
    pendingSince = 0;
    pendingPc = 0;
    mvuFreeAt = mfuFreeAt = busyUntil = 0;
    for (InFlightChain &f : inFlight)
      f.landsAt = 0; // landed: the next chain reuses the record
  }
};

/// One trace span: an instruction (or chain) on a queue, or a dispatcher wait.
struct TraceEvent {
  uint16_t core = 0;
  uint8_t track = 0; ///< 0 ld, 1 ex, 2 st, 3 dispatcher, 4 link (a
                     ///< message from its send to its arrival)
  uint16_t members = 1;
  uint32_t pc = 0;
  uint64_t start = 0, end = 0;
};

/// Agents of a core, in tie-break order.
enum Agent : unsigned { AgentDispatch, AgentLd, AgentEx, AgentSt, NumAgents };

struct Core {
  enum class State { Idle, Running, Barrier, Halted, Done };
  struct LoopFrame {
    uint32_t loopPc;
    uint64_t count, iter;
    unsigned idx;
    int64_t step;
  };

  unsigned card = 0, index = 0;
  bool loaded = false;
  isa::Program program;
  std::vector<Op> ops;
  std::vector<uint32_t> match; ///< loop <-> endloop partner pc
  /// Per pc, the footprints of an instruction whose addresses use no
  /// scalar register, resolved and checked at its first dispatch and
  /// reused after (no allocation or check per dispatch).
  enum class Footprint : uint8_t { Unknown, Static, Dynamic };
  std::vector<Footprint> footprintKind;
  std::vector<std::vector<isa::MemAccess>> footprints;
  /// Footprint lists of executed dynamic instructions, kept for the next
  /// dispatches to fill (no allocation per dispatch once warm).
  std::vector<std::vector<isa::MemAccess>> spareFootprints;
  std::vector<isa::MemAccess> takeFootprintList() {
    if (spareFootprints.empty())
      return {};
    std::vector<isa::MemAccess> list = std::move(spareFootprints.back());
    spareFootprints.pop_back();
    return list;
  }
  void recycleFootprintList(std::vector<isa::MemAccess> &&list) {
    constexpr size_t kMaxSpare = 64;
    if (list.capacity() && spareFootprints.size() < kMaxSpare)
      spareFootprints.push_back(std::move(list));
  }

  Memory vrf, mrf, acc;

  // Run state.
  State state = State::Idle;
  uint32_t pc = 0;
  uint64_t dtime = 0;
  std::array<int64_t, 32> sregs{};
  std::vector<LoopFrame> loops;
  int blockedOnQueue = -1;
  uint64_t blockedSince = 0;
  size_t barrierGen = 0; ///< index into the card's generation list
  unsigned barrierId = 0;
  uint64_t barrierStart = 0;
  std::array<QueueState, 3> queues;
  std::array<TokenFifo, 4> fifos;
  ExecContext ctx;
  CoreStats stats;

  // Race checking (EmulatorOptions::checkRaces).
  uint32_t agentBase = 0; ///< agent id of the ld queue (ex +1, st +2)
  std::array<VectorClock, 3> clocks;    ///< per queue
  std::array<AccessHistory, 3> history; ///< vrf, mrf, acc

  bool drained() const {
    for (const auto &q : queues)
      if (!q.entries.empty() || q.pendingPush)
        return false;
    return true;
  }
  uint64_t lastFree() const {
    uint64_t t = 0;
    for (const auto &q : queues)
      t = std::max({t, q.freeAt, q.doneAt});
    return t;
  }
};

/// One barrier instance: the k-th barrier with a given id.
struct BarrierGen {
  uint32_t mask = 0;
  uint32_t arrived = 0; ///< bit per core
  uint64_t release = 0;
  bool released = false;
  VectorClock clock; ///< join of the arrived cores' queues (race checking)
};

class Card {
public:
  Card(unsigned index, const isa::TargetDesc &target, const CycleModel &cm,
       bool trace, bool checkRaces);

  unsigned index = 0;
  Memory dram, shared;
  std::vector<Core> cores;
  /// Race checking: the number of agents of the run (3 per loaded core of
  /// any card), set with the cores' agentBase before reset().
  uint32_t raceAgents = 0;

  /// Resets run state (not memories or programs) before a run.
  void reset();
  /// Earliest time at which some agent can act, or Never.
  uint64_t nextTime();
  /// Steps agents while the earliest runnable one is before `until`.
  void runUntil(uint64_t until, uint64_t maxSteps);
  /// Runs fn(0 .. n-1), possibly on several threads, and returns when all
  /// are done.
  using ParallelFor =
      std::function<void(size_t, const std::function<void(size_t)> &)>;
  /// runUntil with the cores on `parallelFor`'s threads (docs/emulator.md
  /// §9): a core's timing depends only on its own queues and on barrier
  /// releases (the latest arrival, whatever the arrivals' order), so each
  /// core steps alone, makes its own barrier arrivals and waits, off its
  /// thread, for a barrier's last participant. The same schedule and, for
  /// a race-free program, the same results as runUntil. Only when
  /// coresMayRunInParallel().
  void runUntilParallel(uint64_t until, uint64_t maxSteps,
                        const ParallelFor &parallelFor);
  /// No trace or race checking (they record into card-wide histories), no
  /// send/recv (the mailboxes are the card's), and at least two loaded
  /// cores.
  bool coresMayRunInParallel() const;

  /// Schedule replay (docs/emulator.md §9). Whether the loaded programs'
  /// schedule cannot depend on data: no pooled emb.gather (its length or
  /// offset list sizes the transfer), no send/recv (arrivals), no trace or
  /// race checking. Scalar registers only ever hold immediates and their
  /// arithmetic, so loops, addresses, every instruction's cycles and every
  /// barrier are the same in every run.
  bool schedulesReplayable() const;
  /// A run between startRecording() and finishRecording() records, per
  /// core, the instructions its queues execute (with their effective
  /// addresses, chains marked) and its barrier arrivals, in order, and at
  /// its end the statistics. replay() then executes the same instructions
  /// again with no scheduling (each core in its order, the barriers
  /// between the cores kept; on `parallelFor`'s threads or, when null,
  /// this one), and sets the recorded statistics, which the skipped
  /// schedule would have reproduced. Loading programs drops the recording.
  void startRecording();
  void finishRecording(bool completed);
  void dropRecording();
  /// A program was loaded or cleared: drops the recording and what was
  /// derived from the programs.
  void programsChanged();
  bool canReplay() const { return replayReady_; }
  void replay(const ParallelFor *parallelFor);
  bool finished() const;
  /// Describes what every unfinished core is waiting for (for deadlocks).
  std::string describeBlocked() const;

  // Mailboxes.
  std::map<std::pair<unsigned, unsigned>, std::deque<Message>> inbox;
  std::vector<Message> outbox;

  std::optional<Error> fault;
  uint64_t steps = 0;
  std::vector<TraceEvent> events;
  uint64_t linkBytesSent = 0, linkBytesReceived = 0, hostBytesSent = 0,
           hostBytesReceived = 0;

  /// "card C core K pc P (q: `asm`)" for messages.
  std::string where(const Core &c, uint32_t pc) const;

private:
  uint64_t agentTime(Core &c, unsigned agent);
  /// Brings `times`, core `c`'s agents' next times, up to date after its
  /// agent `stepped` stepped: all of them, except after a dispatch, which
  /// changes the dispatcher and appends to at most one queue (a queue
  /// whose head is ready keeps its time; only an empty one, or an ex queue
  /// waiting for the rest of a chain, may become ready).
  void updateAgentTimes(Core &c, unsigned stepped,
                        std::array<uint64_t, NumAgents> &times);
  void step(Core &c, unsigned agent);
  /// Runs runCore(i) for readyCores_ on `parallelFor`'s threads (this one
  /// when null) until no core is ready or running, or one faulted; runCore
  /// may make cores ready (under barrierMutex_). Moves the lowest core's
  /// fault to `fault`.
  void driveCores(const ParallelFor *parallelFor,
                  const std::function<void(size_t)> &runCore);
  void recordExecution(const Core &c, uint32_t pc, const EffAddrs &eff,
                       bool chainHead);
  void recordBarrier(const Core &c, unsigned id, uint32_t mask,
                     size_t generation);
  uint64_t dispatcherTime(Core &c);
  void dispatchStep(Core &c);
  uint64_t queueTime(Core &c, unsigned q, size_t *groupLen = nullptr,
                     uint64_t *tokenTime = nullptr);
  /// Earliest start (>= `from`) of the ex chain of `len` entries at the
  /// head of the ex queue: when the units it uses are free and the chains
  /// in flight it depends on have landed.
  uint64_t exUnitsReady(const Core &c, size_t len, uint64_t from) const;
  void queueStep(Core &c, unsigned q);
  void setFault(const Core &c, uint32_t pc, const std::string &msg);
  Error checkAccesses(const Core &c,
                      const std::vector<isa::MemAccess> &accesses);
  /// Race checking of the accesses of queue entry `e` executed by queue `q`
  /// (`r`: its result). Sets a fault and returns false on a race.
  bool checkRaces(Core &c, unsigned q, const QueueEntry &e,
                  const ExecResult &r);
  AccessHistory &historyOf(Core &c, isa::Space space);
  std::string blockedReason(const Core &c, unsigned agent) const;

  const isa::TargetDesc &t_;
  const CycleModel &cm_;
  bool trace_;
  bool checkRaces_;
  AccessHistory dramHistory_, sharedHistory_;
  std::map<unsigned, std::vector<BarrierGen>> barriers_;
  std::vector<std::map<unsigned, size_t>> barrierCount_; ///< per core, per id
  /// runUntil's cache of every agent's next time, per core. A step changes
  /// only its own core's times, except through what cores share within a
  /// card: barriers and the inbox, whose changes set sharedChanged_.
  std::vector<std::array<uint64_t, NumAgents>> agentTimes_;
  bool sharedChanged_ = false;
  /// runUntilParallel: faults are recorded per core (the lowest core's is
  /// reported), as the cores step on different threads.
  bool parallel_ = false;
  std::vector<std::optional<Error>> coreFaults_;
  /// While parallel_: orders the cores' accesses to barriers_ (arrivals
  /// and the reads of a waiting core) and the work list readyCores_.
  mutable std::mutex barrierMutex_;
  std::vector<size_t> readyCores_;
  /// readyCores_.size(), for workers that wait without the lock.
  std::atomic<size_t> readyCount_{0};
  /// Makes `core` ready (barrierMutex_ held).
  void pushReady(size_t core);

  /// One recorded step of a core (schedule replay): an instruction its
  /// queues executed, first of its chain or a later member, or a barrier
  /// arrival (pc: the barrier id).
  struct ReplayEvent {
    enum Kind : uint8_t { ChainHead, ChainMember, Barrier };
    Kind kind;
    uint32_t pc;
    uint32_t mask;       ///< Barrier: its participants
    uint32_t generation; ///< Barrier: its k-th use of the id
    uint32_t slot = 0;   ///< Barrier: (id, generation) numbered densely
    EffAddrs eff;
  };
  bool recording_ = false, replayReady_ = false;
  std::vector<std::vector<ReplayEvent>> recorded_; ///< per core
  /// What the launch decisions need of the loaded programs, derived once
  /// per program change (not by a pass over every instruction per run).
  struct ProgramTraits {
    unsigned loadedCores = 0;
    bool messages = false;     ///< send or recv
    bool pooledGather = false; ///< emb.gather with pooling
  };
  const ProgramTraits &programTraits() const;
  mutable std::optional<ProgramTraits> programTraits_;
  std::vector<CoreStats> recordedStats_;
  uint64_t recordedSteps_ = 0;
  size_t recordedBarriers_ = 0;
  std::vector<uint32_t> replayArrivals_; ///< per barrier slot, reused
};

/// Executes one queued instruction's functional part (dma, gather, mm,
/// vector ops; sync does nothing): what queueStep and replay share.
Error executeUnit(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                  ExecResult &r);

/// Chrome trace-event JSON for the events recorded by `cards` (Trace.cpp).
std::string buildTraceJson(const isa::TargetDesc &target,
                           const std::vector<std::unique_ptr<Card>> &cards);

} // namespace nnaccel::emulator

#endif // NNACCEL_LIB_EMULATOR_MACHINE_H
