//===- Core.cpp - A core's dispatcher: control, scalar and loop unit ----===//
//
// The dispatcher fetches a core's program in order, executes control and
// scalar instructions itself, resolves the effective addresses of queued
// instructions (checking bounds and alignment, which are known exactly at
// dispatch because scalar registers never depend on memory) and appends them
// to their queue. It stalls on a full queue, and at a barrier until its own
// queues have drained and every participating core has arrived.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Operands.h"

#include <fmt/format.h>

namespace nnaccel::emulator {

using namespace isa;

std::string Card::where(const Core &c, uint32_t pc) const {
  if (pc >= c.program.instructions.size())
    return fmt::format("card {} core {} pc {}", index, c.index, pc);
  const Instruction &inst = c.program.instructions[pc];
  return fmt::format("card {} core {} pc {} ({}: `{}`)", index, c.index, pc,
                     queueName(inst.queue()), printInstruction(inst));
}

void Card::setFault(const Core &c, uint32_t pc, const std::string &msg) {
  std::optional<Error> &slot = parallel_ ? coreFaults_[c.index] : fault;
  if (!slot)
    slot = Error::make(where(c, pc) + ": " + msg);
}

Error Card::checkAccesses(const Core &c,
                          const std::vector<MemAccess> &accesses) {
  for (const MemAccess &a : accesses) {
    const Memory *m = nullptr;
    switch (a.space) {
    case Space::Dram:
      m = &dram;
      break;
    case Space::Shared:
      m = &shared;
      break;
    case Space::Vrf:
      m = &c.vrf;
      break;
    case Space::Mrf:
      m = &c.mrf;
      break;
    case Space::Acc:
      m = &c.acc;
      break;
    default:
      continue;
    }
    std::string_view sp = spaceName(a.space);
    if (a.start < 0 || a.end < a.start ||
        static_cast<uint64_t>(a.end) > m->size())
      return Error::make(fmt::format(
          "out-of-bounds access: operand '{}' [{}{:#x}, {:#x}) is outside {} "
          "({} bytes){}",
          a.operand, a.start < 0 ? "-" : "",
          a.start < 0 ? static_cast<uint64_t>(-a.start)
                      : static_cast<uint64_t>(a.start),
          static_cast<uint64_t>(std::max<int64_t>(a.end, 0)), sp, m->size(),
          a.reg ? fmt::format(" (s{} = {})", a.reg, c.sregs[a.reg]) : ""));
    uint64_t spaceAlign = t_.memory(a.space).align;
    auto start = static_cast<uint64_t>(a.start);
    if ((spaceAlign && start % spaceAlign) || (a.align && start % a.align))
      return Error::make(fmt::format(
          "misaligned access: operand '{}' address {:#x} in {} is not a "
          "multiple of {}",
          a.operand, start, sp,
          spaceAlign && start % spaceAlign ? spaceAlign : a.align));
  }
  return Error::success();
}

uint64_t Card::dispatcherTime(Core &c) {
  switch (c.state) {
  case Core::State::Idle:
  case Core::State::Done:
    return Never;
  case Core::State::Halted:
    return c.drained() ? std::max(c.dtime, c.lastFree()) : Never;
  case Core::State::Barrier: {
    std::unique_lock<std::mutex> lock(barrierMutex_, std::defer_lock);
    if (parallel_)
      lock.lock();
    const BarrierGen &g = barriers_[c.barrierId][c.barrierGen];
    return g.released ? std::max(g.release, c.dtime) : Never;
  }
  case Core::State::Running:
    break;
  }
  if (c.pc >= c.ops.size())
    return c.dtime;
  const Op &op = c.ops[c.pc];
  if (op.opcode == Opcode::Barrier)
    return c.drained() ? std::max(c.dtime, c.lastFree()) : Never;
  if (op.queue != Queue::Ctl) {
    auto q = static_cast<unsigned>(op.queue);
    if (c.queues[q].entries.size() >= t_.instrQueueDepth) {
      if (c.blockedOnQueue < 0) {
        c.blockedOnQueue = static_cast<int>(q);
        c.blockedSince = c.dtime;
      }
      return Never;
    }
  }
  return c.dtime;
}

namespace {
const char *fifoName(unsigned i) {
  static const char *const Names[4] = {"ld->ex", "ex->ld", "ex->st", "st->ex"};
  return Names[i];
}
} // namespace

void Card::dispatchStep(Core &c) {
  if (c.state == Core::State::Halted) {
    c.state = Core::State::Done;
    c.stats.finishCycle = std::max(c.dtime, c.lastFree());
    for (unsigned i = 0; i < 4; ++i)
      if (!c.fifos[i].times.empty()) {
        uint32_t haltPc = static_cast<uint32_t>(c.ops.size() - 1);
        setFault(c, haltPc,
                 fmt::format("program ended with {} token(s) left in the {} "
                             "FIFO (every push must be popped)",
                             c.fifos[i].times.size(), fifoName(i)));
        return;
      }
    return;
  }
  if (c.state == Core::State::Barrier) {
    std::unique_lock<std::mutex> lock(barrierMutex_, std::defer_lock);
    if (parallel_)
      lock.lock();
    const BarrierGen &g = barriers_[c.barrierId][c.barrierGen];
    uint64_t release = std::max(g.release, c.dtime);
    c.stats.barrierWaitCycles += release - c.barrierStart;
    if (trace_)
      events.push_back({static_cast<uint16_t>(c.index), 3, 1, c.pc,
                        c.barrierStart, release + CycleModel::DispatchCycles});
    c.dtime = release + CycleModel::DispatchCycles;
    c.state = Core::State::Running;
    // Everything every participant did before the barrier happens before
    // everything this core's queues do after it.
    if (checkRaces_)
      for (VectorClock &vc : c.clocks)
        joinClock(vc, g.clock);
    ++c.pc;
    return;
  }
  if (c.pc >= c.ops.size()) {
    setFault(c, c.pc, "ran past the end of the program without halt");
    return;
  }
  const uint32_t pc = c.pc;
  const Op &op = c.ops[pc];
  ++c.stats.dispatched;
  auto writeReg = [&](unsigned rd, int64_t v) {
    if (rd == 0) {
      setFault(c, pc, "writes s0, which is hard-wired to zero");
      return false;
    }
    c.sregs[rd] = v;
    return true;
  };
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  const int64_t *s = c.sregs.data();

  switch (op.opcode) {
  case Opcode::Nop:
    break;
  case Opcode::Halt:
    if (!c.loops.empty()) {
      setFault(c, pc, "halt inside a loop");
      return;
    }
    c.state = Core::State::Halted;
    c.dtime += CycleModel::DispatchCycles;
    return;
  case Opcode::Loop:
  case Opcode::LoopR: {
    int64_t count =
        op.opcode == Opcode::Loop ? static_cast<int64_t>(op.count) : s[op.cnt];
    if (count < 0) {
      setFault(c, pc,
               fmt::format("negative loop count {} in s{}", count, op.cnt));
      return;
    }
    if (c.match[pc] == UINT32_MAX) {
      setFault(c, pc, "loop without a matching endloop");
      return;
    }
    if (count == 0) {
      c.pc = c.match[pc] + 1;
      c.dtime += CycleModel::DispatchCycles;
      return;
    }
    if (c.loops.size() >= t_.loopDepth) {
      setFault(
          c, pc,
          fmt::format("loop nesting exceeds core.loop_depth {}", t_.loopDepth));
      return;
    }
    c.loops.push_back({pc, static_cast<uint64_t>(count), 0, op.idx, op.step});
    if (op.idx)
      c.sregs[op.idx] = 0;
    break;
  }
  case Opcode::EndLoop: {
    if (c.loops.empty() || c.loops.back().loopPc != c.match[pc]) {
      setFault(c, pc, "endloop without a matching loop");
      return;
    }
    Core::LoopFrame &f = c.loops.back();
    if (++f.iter < f.count) {
      if (f.idx)
        c.sregs[f.idx] = wrap(f.iter * u(f.step));
      c.pc = f.loopPc + 1;
      c.dtime += CycleModel::DispatchCycles;
      return;
    }
    c.loops.pop_back();
    break;
  }
  case Opcode::Barrier: {
    uint32_t mask = op.mask;
    if (!(mask >> c.index & 1u)) {
      setFault(c, pc,
               fmt::format("barrier mask {:#x} does not include this "
                           "core",
                           mask));
      return;
    }
    if (t_.coresPerCard < 32 && (mask >> t_.coresPerCard)) {
      setFault(c, pc,
               fmt::format("barrier mask {:#x} names cores beyond the "
                           "{} of the target",
                           mask, t_.coresPerCard));
      return;
    }
    size_t k = barrierCount_[c.index][op.id]++;
    auto &gens = barriers_[op.id];
    if (k >= gens.size()) {
      gens.resize(k + 1);
      gens[k].mask = mask;
    }
    BarrierGen &g = gens[k];
    if (g.mask != mask) {
      setFault(c, pc,
               fmt::format("barrier id={} #{}: mask {:#x} differs from "
                           "the mask {:#x} another core used",
                           op.id, k, mask, g.mask));
      return;
    }
    uint64_t arrival = std::max(c.dtime, c.lastFree());
    if (recording_)
      recordBarrier(c, op.id, mask, k);
    g.arrived |= 1u << c.index;
    if (checkRaces_) // the queues have drained: their clocks are final
      for (const VectorClock &vc : c.clocks)
        joinClock(g.clock, vc);
    g.release = std::max(g.release, arrival);
    if (g.arrived == g.mask)
      g.released = true;
    sharedChanged_ = true; // the other participants' dispatchers see it
    c.state = Core::State::Barrier;
    c.barrierId = op.id;
    c.barrierGen = k;
    c.barrierStart = c.dtime;
    return;
  }
  case Opcode::SLi:
  case Opcode::SAddi:
  case Opcode::SMuli:
  case Opcode::SAdd:
  case Opcode::SSub:
  case Opcode::SMul:
  case Opcode::SShli:
  case Opcode::SShri:
    if (!writeReg(op.rd, *scalarResult(op, c.sregs)))
      return;
    break;
  default: {
    // A queued instruction.
    if (op.queue == Queue::Ctl) {
      setFault(c, pc, "sync must name the ld, ex or st queue");
      return;
    }
    uint8_t f = op.flags;
    if ((op.queue == Queue::Ld && (f & (FlagPopPrev | FlagPushPrev))) ||
        (op.queue == Queue::St && (f & (FlagPopNext | FlagPushNext)))) {
      setFault(c, pc,
               fmt::format("illegal token flag for the {} queue",
                           queueName(op.queue)));
      return;
    }
    if ((f & FlagChain) && op.queue != Queue::Ex) {
      setFault(c, pc, "@chain is only valid on compute instructions");
      return;
    }
    QueueEntry e;
    e.pc = pc;
    e.enqueueTime = c.dtime + CycleModel::DispatchCycles;
    for (unsigned i = 0; i < NumOperandIds; ++i) {
      const MemOperand &mo = op.mem[i];
      e.eff[i] = mo.present ? wrap(mo.addr + u(s[mo.reg])) : 0;
    }
    // The ex queue's hazard checks need the footprints too.
    const bool keep = checkRaces_ || op.queue == Queue::Ex;
    Core::Footprint &kind = c.footprintKind[pc];
    if (kind == Core::Footprint::Static) {
      if (keep)
        e.cached = &c.footprints[pc];
    } else {
      std::vector<MemAccess> accesses = c.takeFootprintList();
      memoryAccesses(op, c.sregs, accesses);
      if (Error err = checkAccesses(c, accesses)) {
        setFault(c, pc, err.message());
        return;
      }
      const bool isStatic =
          std::none_of(accesses.begin(), accesses.end(),
                       [](const MemAccess &a) { return a.reg != 0; });
      if (isStatic) {
        kind = Core::Footprint::Static;
        c.footprints[pc] = std::move(accesses);
        if (keep)
          e.cached = &c.footprints[pc];
      } else {
        kind = Core::Footprint::Dynamic;
        if (keep)
          e.own = std::move(accesses);
        else
          c.recycleFootprintList(std::move(accesses));
      }
    }
    auto q = static_cast<unsigned>(op.queue);
    if (c.blockedOnQueue == static_cast<int>(q))
      c.blockedOnQueue = -1;
    c.queues[q].entries.push_back(std::move(e));
    break;
  }
  }
  c.dtime += CycleModel::DispatchCycles;
  ++c.pc;
}

} // namespace nnaccel::emulator
