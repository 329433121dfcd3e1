//===- ProgramEmitter.cpp - token-aware NPU program builder ---------------===//
//
// See ProgramEmitter.h. Dependencies always point backwards in program
// order (a consumer is emitted after its producers), and tokens are added in
// program order, so the k-th push of a FIFO pairs with its k-th pop exactly
// as intended and no token is left over.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "nnaccel/ISA/Builders.h"
#include "nnaccel/ISA/Decoded.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>
#include <limits>

using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::DecodedInstruction;
using ::nnaccel::isa::Instruction;
using ::nnaccel::isa::MemAccess;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Queue;
using ::nnaccel::isa::Space;

namespace {
/// Position of a data queue in the pipeline ld -> ex -> st.
int stage(Queue queue) {
  switch (queue) {
  case Queue::Ld:
    return 0;
  case Queue::Ex:
    return 1;
  case Queue::St:
    return 2;
  case Queue::Ctl:
    return -1;
  }
  return -1;
}
} // namespace

/// Per FIFO (ld->ex, ex->ld, ex->st, st->ex), the tokens outstanding after
/// each instruction in program order. Tokens are added for the newest
/// instructions only, so every update and query covers a suffix of the
/// program; a segment tree with lazy range adds keeps both logarithmic
/// (a producer can be far back: weights loaded at the start).
struct ProgramEmitter::FifoLevels {
  /// Range add / range max over positions [0, size).
  class Tree {
  public:
    void grow(size_t size) {
      if (size <= capacity)
        return;
      // Rebuild at twice the size, keeping the current values.
      std::vector<int32_t> values(size, 0);
      for (size_t i = 0; i < count; ++i)
        values[i] = get(i);
      capacity = std::max<size_t>(2 * capacity, std::max<size_t>(size, 64));
      maxima.assign(2 * capacity, 0);
      pending.assign(2 * capacity, 0);
      for (size_t i = 0; i < count; ++i)
        add(i, i + 1, values[i]);
    }
    void append() {
      grow(count + 1);
      ++count;
    }
    void add(size_t lo, size_t hi, int32_t value) {
      add(1, 0, capacity, lo, hi, value);
    }
    int32_t max(size_t lo, size_t hi) { return max(1, 0, capacity, lo, hi); }
    int32_t get(size_t i) { return max(i, i + 1); }
    size_t size() const { return count; }

  private:
    void add(size_t node, size_t l, size_t r, size_t lo, size_t hi,
             int32_t value) {
      if (hi <= l || r <= lo)
        return;
      if (lo <= l && r <= hi) {
        maxima[node] += value;
        pending[node] += value;
        return;
      }
      size_t mid = (l + r) / 2;
      add(2 * node, l, mid, lo, hi, value);
      add(2 * node + 1, mid, r, lo, hi, value);
      maxima[node] =
          pending[node] + std::max(maxima[2 * node], maxima[2 * node + 1]);
    }
    int32_t max(size_t node, size_t l, size_t r, size_t lo, size_t hi) {
      if (hi <= l || r <= lo)
        return std::numeric_limits<int32_t>::min();
      if (lo <= l && r <= hi)
        return maxima[node];
      size_t mid = (l + r) / 2;
      int32_t best = std::max(max(2 * node, l, mid, lo, hi),
                              max(2 * node + 1, mid, r, lo, hi));
      return best == std::numeric_limits<int32_t>::min() ? best
                                                         : best + pending[node];
    }
    size_t capacity = 0, count = 0;
    std::vector<int32_t> maxima, pending;
  };

  Tree fifos[4];
};

namespace {
/// The FIFO a token from stage `from` to the adjacent stage `to` uses.
int fifoIndex(int from, int to) {
  if (from == 0)
    return 0; // ld -> ex
  if (from == 2)
    return 3;             // st -> ex
  return to == 0 ? 1 : 2; // ex -> ld, ex -> st
}
} // namespace

ProgramEmitter::ProgramEmitter(std::vector<MemRegion> tensors,
                               uint32_t tokenFifoDepth, uint64_t sharedWindow)
    : dramTensors(std::move(tensors)), tokenFifoDepth(tokenFifoDepth),
      sharedWindow(sharedWindow), levels(std::make_unique<FifoLevels>()) {
  llvm::stable_sort(dramTensors, [](const MemRegion &a, const MemRegion &b) {
    return a.end - a.begin < b.end - b.begin;
  });
}

ProgramEmitter::~ProgramEmitter() = default;
ProgramEmitter::ProgramEmitter(ProgramEmitter &&) = default;

MemRegion ProgramEmitter::trackedRegion(const MemAccess &access) const {
  constexpr uint64_t Unbounded = std::numeric_limits<uint64_t>::max();
  MemRegion region{access.space, static_cast<uint64_t>(access.start),
                   access.exact ? static_cast<uint64_t>(access.end)
                                : static_cast<uint64_t>(access.start) + 1};
  if (access.space == Space::Dram || access.space == Space::Shared) {
    // The smallest planned tensor holding the access stands for it.
    for (const MemRegion &tensor : dramTensors)
      if (tensor.contains(region))
        return tensor;
  }
  const MemRegion *group = nullptr;
  for (const MemRegion &candidate : groups)
    if (candidate.contains(region) && (!group || group->contains(candidate)))
      group = &candidate;
  if (group)
    return *group;
  if (!access.exact)
    region.end = Unbounded; // unknown extent: everything from the start
  return region;
}

void ProgramEmitter::getAccesses(const Instruction &inst,
                                 std::vector<MemRegion> &reads,
                                 std::vector<MemRegion> &writes) const {
  for (const MemAccess &access :
       npu_isa::memoryAccesses(npu_isa::decode(inst), sregs)) {
    if (access.end <= access.start && access.exact)
      continue; // touches no byte
    MemRegion region = trackedRegion(access);
    if (access.read)
      reads.push_back(region);
    if (access.write)
      writes.push_back(region);
  }
}

ProgramEmitter::Group::Group(ProgramEmitter &emitter, MemRegion region)
    : emitter(emitter), region(region) {
  emitter.groups.push_back(region);
}

ProgramEmitter::Group::~Group() {
  auto it =
      llvm::find_if(llvm::reverse(emitter.groups), [&](const MemRegion &other) {
        return other.space == region.space && other.begin == region.begin &&
               other.end == region.end;
      });
  assert(it != emitter.groups.rend() && "group ended twice");
  emitter.groups.erase(std::next(it).base());
}

bool ProgramEmitter::addToken(size_t producer, Queue queue,
                              Instruction &consumer) {
  Queue from = program[producer].queue();
  auto key = std::make_pair(stage(from), stage(queue));
  auto it = synced.find(key);
  if (it != synced.end() && static_cast<int64_t>(producer) <= it->second)
    return false;
  if (tokenFifoDepth) {
    // The token is outstanding from the producer up to the consumer, which
    // comes next in program order.
    FifoLevels::Tree &fifo = levels->fifos[fifoIndex(key.first, key.second)];
    auto fits = [&](size_t at, int32_t limit) {
      return fifo.max(at, program.size()) + 1 <= limit;
    };
    if (!fits(producer, int32_t(tokenFifoDepth) - 1)) {
      // Wait for everything the producer's queue has been given instead.
      producer = size_t(lastOfQueue[key.first]);
      assert(fits(producer, int32_t(tokenFifoDepth)) &&
             "the reserved FIFO slot is taken");
    }
    fifo.add(producer, program.size(), 1);
  }
  bool forward = stage(queue) > stage(from);
  program[producer].flags |=
      forward ? ::nnaccel::isa::FlagPushNext : ::nnaccel::isa::FlagPushPrev;
  consumer.flags |=
      forward ? ::nnaccel::isa::FlagPopPrev : ::nnaccel::isa::FlagPopNext;
  synced[key] = static_cast<int64_t>(producer);
  return true;
}

Instruction ProgramEmitter::placeSharedOperands(Instruction inst) const {
  if (!sharedWindow)
    return inst;
  const npu_isa::InstrDesc &desc = inst.desc();
  for (unsigned i = 0; i + 1 < desc.numFields; ++i) {
    if (desc.fields[i].kind != npu_isa::FieldKind::MemSpace ||
        desc.fields[i + 1].kind != npu_isa::FieldKind::MemAddr ||
        static_cast<Space>(inst.fields[i]) != Space::Dram)
      continue;
    int64_t address = inst.fields[i + 1];
    if (i + 2 < desc.numFields &&
        desc.fields[i + 2].kind == npu_isa::FieldKind::MemReg)
      address += sregs[static_cast<unsigned>(inst.fields[i + 2]) & 31u];
    if (address < int64_t(sharedWindow))
      continue;
    inst.fields[i] = static_cast<int64_t>(Space::Shared);
    inst.fields[i + 1] -= int64_t(sharedWindow);
  }
  return inst;
}

void ProgramEmitter::emit(const Instruction &original) {
  const Instruction inst = placeSharedOperands(original);
  DecodedInstruction decoded = npu_isa::decode(inst);
  if (decoded.queue == Queue::Ctl) {
    assert(chain.empty() && "control instruction inside a chain");
    assert(decoded.opcode != Opcode::Loop && decoded.opcode != Opcode::LoopR &&
           decoded.opcode != Opcode::EndLoop &&
           "the emitter tracks straight-line programs only");
    if (std::optional<int64_t> value = npu_isa::scalarResult(decoded, sregs);
        value && decoded.rd != 0)
      sregs[decoded.rd] = *value;
    push(inst);
    // A barrier waits for the three queues to drain: nothing after it
    // needs a token to wait for anything before it.
    if (decoded.opcode == Opcode::Barrier)
      for (std::vector<Access> &list : accesses)
        list.clear();
    return;
  }
  getAccesses(inst, chainReads, chainWrites);
  chain.push_back(inst);
  if (decoded.chained())
    return; // the chain continues
  std::vector<Instruction> unit = std::move(chain);
  std::vector<MemRegion> reads = std::move(chainReads),
                         writes = std::move(chainWrites);
  chain.clear();
  chainReads.clear();
  chainWrites.clear();
  append(std::move(unit), reads, writes);
}

void ProgramEmitter::append(std::vector<Instruction> unit,
                            const std::vector<MemRegion> &reads,
                            const std::vector<MemRegion> &writes) {
  Queue queue = unit.front().queue();
  for (const std::vector<MemRegion> *regions : {&reads, &writes})
    for (const MemRegion &region : *regions) {
      // (An access of unknown extent counts from its start.)
      uint64_t end = region.end == std::numeric_limits<uint64_t>::max()
                         ? region.begin + 1
                         : region.end;
      uint64_t &mark = highWater[static_cast<size_t>(region.space)];
      mark = std::max(mark, end);
    }
  // The latest conflicting instruction of each other data queue: one wait
  // on it orders all earlier ones of that queue too.
  int64_t latest[3] = {-1, -1, -1};
  auto conflict = [&](const MemRegion &region, bool isWrite) {
    for (int s = 0; s < 3; ++s)
      for (const Access &access : accesses[s])
        if ((isWrite || access.write) && access.region.overlaps(region))
          latest[s] = std::max<int64_t>(latest[s], access.index);
  };
  for (const MemRegion &region : reads)
    conflict(region, /*isWrite=*/false);
  for (const MemRegion &region : writes)
    conflict(region, /*isWrite=*/true);

  // Every wait of the unit goes on its first instruction.
  Instruction &first = unit.front();
  int self = stage(queue);
  int far = self == 0 ? 2 : self == 2 ? 0 : -1; // the non-adjacent queue
  if (far >= 0 && latest[far] >= 0) {
    // ld <-> st: relay through ex. The relay waits for the far producer
    // (unless ex already has: the relay then runs after that wait, since
    // ex is in order); being the newest ex instruction, it also covers any
    // ex producer, so the consumer needs only the relay's token.
    Instruction relay = ::nnaccel::isa::build::Sync().q(Queue::Ex);
    addToken(static_cast<size_t>(latest[far]), Queue::Ex, relay);
    push(relay);
    addToken(program.size() - 1, queue, first);
  } else {
    for (int s = 0; s < 3; ++s)
      if (s != self && latest[s] >= 0)
        addToken(static_cast<size_t>(latest[s]), queue, first);
  }
  for (Instruction &inst : unit)
    push(inst);

  // Later consumers wait for the unit's last instruction.
  size_t index = program.size() - 1;
  std::vector<Access> &mine = accesses[self];
  auto record = [&](const MemRegion &region, bool write) {
    llvm::erase_if(mine, [&](const Access &older) {
      return region.contains(older.region) && (write || !older.write);
    });
    mine.push_back({index, region, write});
  };
  for (const MemRegion &region : reads)
    record(region, false);
  for (const MemRegion &region : writes)
    record(region, true);
}

void ProgramEmitter::push(const Instruction &inst) {
  int self = stage(inst.queue());
  if (self >= 0)
    lastOfQueue[self] = int64_t(program.size());
  program.push_back(inst);
  // The instruction leaves the level its predecessor left, less the tokens
  // it pops (its own pushes are added when a consumer asks for them).
  int popped[4] = {0, 0, 0, 0};
  if (self >= 0 && (inst.flags & ::nnaccel::isa::FlagPopPrev))
    ++popped[fifoIndex(self - 1, self)];
  if (self >= 0 && (inst.flags & ::nnaccel::isa::FlagPopNext))
    ++popped[fifoIndex(self + 1, self)];
  for (int f = 0; f < 4; ++f) {
    FifoLevels::Tree &fifo = levels->fifos[f];
    int32_t level = fifo.size() ? fifo.get(fifo.size() - 1) : 0;
    fifo.append();
    fifo.add(fifo.size() - 1, fifo.size(), level - popped[f]);
  }
}

::nnaccel::isa::Program ProgramEmitter::finish(uint32_t card, uint32_t core) {
  assert(chain.empty() && "program ends inside a chain");
  push(Instruction(Opcode::Halt));
  ::nnaccel::isa::Program result;
  result.card = static_cast<uint16_t>(card);
  result.core = static_cast<uint16_t>(core);
  result.instructions = std::move(program);
  program.clear();
  for (std::vector<Access> &list : accesses)
    list.clear();
  synced.clear();
  sregs = {};
  std::fill(std::begin(lastOfQueue), std::end(lastOfQueue), -1);
  levels = std::make_unique<FifoLevels>();
  return result;
}
