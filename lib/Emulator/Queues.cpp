//===- Queues.cpp - A core's ld/ex/st queues and token FIFOs ------------===//
//
// Each queue runs its instructions one at a time, in order. The head starts
// when the previous instruction has completed, it has been dispatched, and
// the tokens it pops are available (a chain starts once all its members
// are dispatched and runs as one unit); it executes atomically at its start
// time and completes after its modelled duration, then pushes its tokens --
// waiting, with the queue blocked, while a destination FIFO is full.
// `send` posts a link message; `recv` waits for one.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "nnaccel/ISA/Asm.h"

#include <fmt/format.h>

#include <algorithm>

namespace nnaccel::emulator {

using namespace isa;

namespace {

/// Rows of a DMA store the race detector checks one by one at most.
constexpr uint64_t kMaxRaceRows = 4096;

/// FIFO index of the token path from queue `from` to queue `to`, or -1.
int fifoIndex(unsigned from, unsigned to) {
  if (from == 0 && to == 1)
    return 0;
  if (from == 1 && to == 0)
    return 1;
  if (from == 1 && to == 2)
    return 2;
  if (from == 2 && to == 1)
    return 3;
  return -1;
}

/// Tokens popped (per FIFO) by flags `f` on queue `q`.
void popNeeds(unsigned q, uint8_t f, std::array<unsigned, 4> &need) {
  if (f & FlagPopPrev) {
    int i = fifoIndex(q - 1, q);
    if (i >= 0)
      ++need[i];
  }
  if (f & FlagPopNext) {
    int i = fifoIndex(q + 1, q);
    if (i >= 0)
      ++need[i];
  }
}

/// The FIFOs pushed by flags `f` on queue `q`: at most two, held in place
/// (the scheduler asks for every step; no allocation).
struct PushTargets {
  int fifo[2] = {};
  unsigned count = 0;
  const int *begin() const { return fifo; }
  const int *end() const { return fifo + count; }
};
PushTargets pushTargets(unsigned q, uint8_t f) {
  PushTargets out;
  if (f & FlagPushPrev)
    out.fifo[out.count++] = fifoIndex(q, q - 1);
  if (f & FlagPushNext)
    out.fifo[out.count++] = fifoIndex(q, q + 1);
  return out;
}

constexpr unsigned ExQueue = static_cast<unsigned>(Queue::Ex);

/// The ex units a chain of `len` entries at the head of `qs` uses: the
/// matrix unit for an `mm`, the MFU pipeline for vector members; `sync`
/// waits for both and for everything in flight.
struct ExUnits {
  bool mvu = false, mfu = false, serial = false;
};
ExUnits exUnits(const Core &c, const QueueState &qs, size_t len) {
  ExUnits u;
  for (size_t i = 0; i < len; ++i) {
    Opcode opcode = c.ops[qs.entries[i].pc].opcode;
    if (opcode == Opcode::Mm)
      u.mvu = true;
    else if (opcode == Opcode::Sync)
      u.serial = true;
    else
      u.mfu = true;
  }
  return u;
}

/// Whether two footprints conflict (same bytes, at least one writes).
bool conflicts(const MemAccess &a, const MemAccess &b) {
  return a.space == b.space && (a.write || b.write) && a.start < b.end &&
         b.start < a.end;
}

} // namespace

Error executeUnit(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                  ExecResult &r) {
  switch (op.opcode) {
  case Opcode::Sync:
    r.cycles = CycleModel::SyncCycles;
    return Error::success();
  case Opcode::DmaLd:
  case Opcode::DmaSt:
    return executeDma(op, eff, ctx, r);
  case Opcode::EmbGather:
    return executeGather(op, eff, ctx, r);
  case Opcode::Mm:
    return executeMatrix(op, eff, ctx, r);
  default:
    return executeVector(op, eff, ctx, r);
  }
}

uint64_t Card::queueTime(Core &c, unsigned q, size_t *groupLen,
                         uint64_t *tokenTime) {
  QueueState &qs = c.queues[q];
  if (qs.pendingPush) {
    uint64_t t = qs.pendingSince;
    for (int i : pushTargets(q, qs.pendingPush)) {
      if (c.fifos[i].times.size() >= t_.tokenFifoDepth)
        return Never;
      t = std::max(t, c.fifos[i].lastPop);
    }
    return t;
  }
  if (qs.entries.empty())
    return Never;
  size_t len = 1;
  if (q == static_cast<unsigned>(Queue::Ex))
    while (c.ops[qs.entries[len - 1].pc].chained()) {
      if (len == qs.entries.size())
        return Never; // the rest of the chain is not dispatched yet
      ++len;
    }
  std::array<unsigned, 4> need{};
  for (size_t i = 0; i < len; ++i)
    popNeeds(q, c.ops[qs.entries[i].pc].flags, need);
  uint64_t tok = 0;
  for (unsigned i = 0; i < 4; ++i) {
    if (c.fifos[i].times.size() < need[i])
      return Never;
    if (need[i])
      tok = std::max(tok, c.fifos[i].times[need[i] - 1]);
  }
  const Op &head = c.ops[qs.entries[0].pc];
  if (head.opcode == Opcode::Recv) {
    auto it = inbox.find({head.peer, head.chan});
    if (it == inbox.end() || it->second.empty())
      return Never;
  }
  if (groupLen)
    *groupLen = len;
  if (tokenTime)
    *tokenTime = tok;
  uint64_t t = std::max({qs.freeAt, qs.entries[len - 1].enqueueTime, tok});
  return q == ExQueue ? exUnitsReady(c, len, t) : t;
}

uint64_t Card::exUnitsReady(const Core &c, size_t len, uint64_t from) const {
  const QueueState &qs = c.queues[ExQueue];
  ExUnits units = exUnits(c, qs, len);
  uint64_t t = from;
  if (units.serial)
    return std::max({t, qs.mvuFreeAt, qs.mfuFreeAt, qs.doneAt});
  if (units.mvu)
    t = std::max(t, qs.mvuFreeAt);
  if (units.mfu)
    t = std::max(t, qs.mfuFreeAt);
  // Read-after-write, write-after-read and write-after-write on the bytes
  // of a chain still in flight wait until it has landed.
  for (const InFlightChain &f : qs.inFlight) {
    if (f.landsAt <= t)
      continue;
    bool hazard = false;
    for (size_t i = 0; i < len && !hazard; ++i)
      for (const MemAccess &a : qs.entries[i].accesses()) {
        for (const std::vector<MemAccess> *list : f.footprints) {
          hazard =
              std::any_of(list->begin(), list->end(),
                          [&](const MemAccess &b) { return conflicts(a, b); });
          if (hazard)
            break;
        }
        if (hazard)
          break;
      }
    if (hazard)
      t = f.landsAt;
  }
  return t;
}

void Card::queueStep(Core &c, unsigned q) {
  QueueState &qs = c.queues[q];
  QueueStats &st = c.stats.queues[q];
  if (qs.pendingPush) {
    uint64_t t = queueTime(c, q);
    for (int i : pushTargets(q, qs.pendingPush)) {
      c.fifos[i].times.push_back(t);
      if (checkRaces_)
        c.fifos[i].clocks.push_back(c.clocks[q]);
    }
    st.pushStallCycles += t - qs.pendingSince;
    qs.freeAt = t;
    st.lastEndCycle = t;
    qs.pendingPush = 0;
    return;
  }
  size_t len = 1;
  uint64_t tok = 0;
  uint64_t start = queueTime(c, q, &len, &tok);
  uint64_t ready = std::max(qs.freeAt, qs.entries[len - 1].enqueueTime);
  if (tok > ready)
    st.tokenStallCycles += tok - ready;

  // Pop tokens.
  std::array<unsigned, 4> need{};
  uint8_t pushFlags = 0;
  for (size_t i = 0; i < len; ++i) {
    const Op &op = c.ops[qs.entries[i].pc];
    popNeeds(q, op.flags, need);
    pushFlags |= op.flags & (FlagPushPrev | FlagPushNext);
  }
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned k = 0; k < need[i]; ++k) {
      c.fifos[i].times.pop_front();
      c.fifos[i].lastPop = start;
      if (checkRaces_) { // the push happens before this instruction
        joinClock(c.clocks[q], c.fifos[i].clocks.front());
        c.fifos[i].clocks.pop_front();
      }
    }
  // A new epoch of this queue for the instruction (or chain).
  if (checkRaces_)
    ++c.clocks[q][c.agentBase + q];

  // Execute the instruction or chain.
  ExecContext &ctx = c.ctx;
  ctx.chain.valid = false;
  uint64_t cycles = 0, slowest = 0, end = 0, recvWait = 0, latency = 0;
  bool posted = false;
  for (size_t i = 0; i < len; ++i) {
    const QueueEntry &e = qs.entries[i];
    const Op &op = c.ops[e.pc];
    ExecResult r;
    Error err;
    if (recording_)
      recordExecution(c, e.pc, e.eff, i == 0);
    switch (op.opcode) {
    case Opcode::Send: {
      bool host = op.peer == HostPeer;
      if (!host && (op.peer >= t_.cards || op.peer == index)) {
        err = Error::make(fmt::format("send to peer {}, which is not another "
                                      "card or the host (255)",
                                      op.peer));
        break;
      }
      Memory &m = *ctx.mem[static_cast<unsigned>(op.mem[OpSrc].space)];
      Message msg;
      msg.src = index;
      msg.dst = op.peer;
      msg.chan = op.chan;
      msg.data.resize(op.bytes);
      m.read(static_cast<uint64_t>(e.eff[OpSrc]), msg.data.data(), op.bytes);
      ctx.bytes->read[static_cast<unsigned>(op.mem[OpSrc].space)] += op.bytes;
      r.cycles = cm_.linkSend(op.bytes, host);
      msg.arrival = start + r.cycles + cm_.linkLatency(host);
      if (checkRaces_)
        msg.clock = c.clocks[q];
      (host ? hostBytesSent : linkBytesSent) += op.bytes;
      if (trace_)
        events.push_back(
            {static_cast<uint16_t>(c.index), 4, 1, e.pc, start, msg.arrival});
      outbox.push_back(std::move(msg));
      break;
    }
    case Opcode::Recv: {
      auto &box = inbox[{op.peer, op.chan}];
      Message msg = std::move(box.front());
      box.pop_front();
      sharedChanged_ = true; // another core may wait on the same channel
      if (checkRaces_)       // the matching send happens before this recv
        joinClock(c.clocks[q], msg.clock);
      if (msg.data.size() != op.bytes) {
        err = Error::make(fmt::format(
            "recv of {} bytes from {} on channel {} got a message of {} bytes",
            op.bytes,
            op.peer == HostPeer ? std::string("the host")
                                : fmt::format("card {}", op.peer),
            op.chan, msg.data.size()));
        break;
      }
      Memory &m = *ctx.mem[static_cast<unsigned>(op.mem[OpDst].space)];
      m.write(static_cast<uint64_t>(e.eff[OpDst]), msg.data.data(), op.bytes);
      ctx.bytes->written[static_cast<unsigned>(op.mem[OpDst].space)] +=
          op.bytes;
      (op.peer == HostPeer ? hostBytesReceived : linkBytesReceived) += op.bytes;
      uint64_t done = std::max(start + CycleModel::MinCycles, msg.arrival);
      r.cycles = done - start;
      recvWait = r.cycles - CycleModel::MinCycles;
      st.linkWaitCycles += recvWait;
      break;
    }
    default:
      err = executeUnit(op, e.eff, ctx, r);
      break;
    }
    if (err) {
      setFault(c, e.pc, err.message());
      return;
    }
    if (checkRaces_ && !checkRaces(c, q, e, r))
      return;
    cycles += r.cycles;
    slowest = std::max(slowest, r.cycles);
    latency = std::max(latency, r.latency);
    posted = r.posted;
    c.stats.macs += r.macs;
    c.stats.peakMacCycles += r.peakMacCycles;
  }
  // The ex queue's matrix unit and MFU pipeline are separate units (as in
  // Brainwave's and Intel's NPU, where a chain's MVU stage overlaps the
  // previous chain's MFU stages): a chain occupies the units it uses for
  // its slowest member; the pipeline fill is latency, after which its
  // results land. The next chain issues a cycle later once its units are
  // free and nothing it touches is still in flight (exUnitsReady).
  bool exPipelined = false;
  if (q == ExQueue) {
    ExUnits units = exUnits(c, qs, len);
    exPipelined = !units.serial;
    cycles = std::max(slowest, CycleModel::MinCycles);
    end = start + cycles;
    if (units.mvu || units.serial)
      qs.mvuFreeAt = end;
    if (units.mfu || units.serial)
      qs.mfuFreeAt = end;
    latency = CycleModel::chainFill(len);
    // Busy time is the union of the units' busy spans.
    st.busyCycles += end - std::min(end, std::max(start, qs.busyUntil));
    qs.busyUntil = std::max(qs.busyUntil, end);
    const uint64_t landsAt = end + latency;
    if (exPipelined) {
      // A chain that has landed by now no longer matters: its record (and
      // the capacity of its footprint list) takes this chain.
      auto landed = std::find_if(
          qs.inFlight.begin(), qs.inFlight.end(),
          [&](const InFlightChain &f) { return f.landsAt <= start; });
      InFlightChain &f =
          landed != qs.inFlight.end() ? *landed : qs.inFlight.emplace_back();
      f.landsAt = landsAt;
      f.footprints.clear();
      for (std::vector<MemAccess> &own : f.owned)
        c.recycleFootprintList(std::move(own));
      f.owned.clear();
      for (size_t i = 0; i < len; ++i) {
        QueueEntry &e = qs.entries[i];
        if (e.cached)
          f.footprints.push_back(e.cached);
        else
          f.owned.push_back(std::move(e.own)); // the entry goes next
      }
      for (const std::vector<MemAccess> &own : f.owned)
        f.footprints.push_back(&own);
    }
  } else {
    end = start + cycles;
    st.busyCycles += cycles - recvWait;
  }
  // Results land in order behind the queue's earlier ones. Tokens go out
  // when the result has landed, or for a posted write when its source has
  // been read (the buffer is free again).
  const uint64_t done = std::max(qs.doneAt, end + latency);
  const uint64_t tokenTime = posted ? end : done;
  st.instructions += len;
  uint32_t headPc = qs.entries[0].pc;
  for (size_t i = 0; i < len; ++i)
    c.recycleFootprintList(std::move(qs.entries[i].own));
  qs.entries.pop_front(len);

  // The dispatcher may have been waiting for room in this queue.
  if (c.blockedOnQueue == static_cast<int>(q)) {
    if (start > c.dtime) {
      c.stats.dispatchStallCycles += start - c.dtime;
      c.dtime = start;
    }
    c.blockedOnQueue = -1;
  }

  // Push tokens, or wait for room.
  uint8_t pending = 0;
  for (int i : pushTargets(q, pushFlags)) {
    if (c.fifos[i].times.size() < t_.tokenFifoDepth) {
      c.fifos[i].times.push_back(tokenTime);
      if (checkRaces_)
        c.fifos[i].clocks.push_back(c.clocks[q]);
    } else
      pending |= (i == fifoIndex(q, q - 1)) ? FlagPushPrev : FlagPushNext;
  }
  qs.freeAt = pending ? tokenTime : exPipelined ? start + 1 : end;
  qs.doneAt = done;
  st.lastEndCycle = done;
  if (pending) {
    qs.pendingPush = pending;
    qs.pendingSince = tokenTime;
    qs.pendingPc = headPc;
  }
  if (trace_)
    events.push_back({static_cast<uint16_t>(c.index), static_cast<uint8_t>(q),
                      static_cast<uint16_t>(len), headPc, start, end});
}

AccessHistory &Card::historyOf(Core &c, Space space) {
  switch (space) {
  case Space::Dram:
    return dramHistory_;
  case Space::Shared:
    return sharedHistory_;
  case Space::Vrf:
    return c.history[0];
  case Space::Mrf:
    return c.history[1];
  default:
    return c.history[2];
  }
}

bool Card::checkRaces(Core &c, unsigned q, const QueueEntry &e,
                      const ExecResult &r) {
  const VectorClock &vc = c.clocks[q];
  AccessRecord rec;
  rec.agent = c.agentBase + q;
  rec.clock = vc[rec.agent];
  rec.pc = e.pc;
  rec.core = static_cast<uint16_t>(c.index);
  rec.queue = static_cast<uint8_t>(q);
  for (const MemAccess &a : e.accesses()) {
    if (a.space == Space::Chain || !(a.read || a.write))
      continue;
    rec.start = a.start;
    rec.end = a.end;
    rec.operand = a.operand;
    // A pooled gather's index/weight lists: the footprint is one entry,
    // the execution knows how many it read.
    if (!a.exact)
      rec.end =
          a.start + (a.end - a.start) * static_cast<int64_t>(r.listEntries);
    AccessHistory &history = historyOf(c, a.space);
    std::optional<RaceReport> race;
    // A DMA store with gaps between its rows (a part of a tensor written as
    // columns of it, next to another core's columns) is checked row by row,
    // each row recorded as its own access; up to a bound, beyond which the
    // bounding range stands for it (stricter, never missing a race). Reads
    // keep their bounding range: nothing reads columns next to another
    // core's writes, and per-row records of element-strided loads would
    // cost more than they tell.
    const uint64_t boxRows = a.planes * a.rows;
    const bool denseRows = a.rows == 1 || a.rowPitch == a.rowBytes;
    const bool densePlanes =
        a.planes == 1 || a.planePitch == (a.rows - 1) * a.rowPitch + a.rowBytes;
    if (a.write && a.rowBytes && boxRows <= kMaxRaceRows &&
        !(denseRows && densePlanes)) {
      for (uint64_t p = 0; p < a.planes && !race; ++p)
        for (uint64_t row = 0; row < a.rows && !race; ++row) {
          rec.start = a.start +
                      static_cast<int64_t>(p * a.planePitch + row * a.rowPitch);
          rec.end = rec.start + static_cast<int64_t>(a.rowBytes);
          race = history.access(rec, a.write, vc);
        }
    } else {
      race = history.access(rec, a.write, vc);
    }
    if (!race)
      continue;
    std::string sp(spaceName(a.space));
    auto range = [&](uint64_t b, uint64_t en) {
      return fmt::format("{}[{:#x}, {:#x})", sp, b, en);
    };
    const AccessRecord &p = race->earlier;
    setFault(c, e.pc,
             fmt::format("data race on {}: this instruction {} operand '{}' "
                         "{}, which {} {} (operand '{}' {}) with no token, "
                         "barrier or send/recv ordering the two",
                         range(race->start, race->end),
                         a.write ? "writes" : "reads", a.operand,
                         range(static_cast<uint64_t>(rec.start),
                               static_cast<uint64_t>(rec.end)),
                         where(cores[p.core], p.pc),
                         race->earlierWrites ? "wrote" : "read", p.operand,
                         range(static_cast<uint64_t>(p.start),
                               static_cast<uint64_t>(p.end))));
    return false;
  }
  return true;
}

} // namespace nnaccel::emulator
