//===- ProgramEmitter.cpp - token-aware NPU program builder ---------------===//
//
// See ProgramEmitter.h. Dependencies always point backwards in program
// order (a consumer is emitted after its producers), and tokens are added in
// program order, so the k-th push of a FIFO pairs with its k-th pop exactly
// as intended and no token is left over.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Instruction;
using ::nnaccel::isa::Opcode;
using ::nnaccel::isa::Queue;

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

bool ProgramEmitter::addToken(size_t producer, Queue queue,
                              Instruction &consumer) {
  Queue from = program[producer].queue();
  auto key = std::make_pair(stage(from), stage(queue));
  auto it = synced.find(key);
  if (it != synced.end() && static_cast<int64_t>(producer) <= it->second)
    return false;
  bool forward = stage(queue) > stage(from);
  program[producer].flags |=
      forward ? ::nnaccel::isa::FlagPushNext : ::nnaccel::isa::FlagPushPrev;
  consumer.flags |=
      forward ? ::nnaccel::isa::FlagPopPrev : ::nnaccel::isa::FlagPopNext;
  synced[key] = static_cast<int64_t>(producer);
  return true;
}

void ProgramEmitter::emit(Instruction inst, std::vector<MemRegion> reads,
                          std::vector<MemRegion> writes) {
  Queue queue = inst.queue();
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

  int self = stage(queue);
  if (self >= 0) {
    int far = self == 0 ? 2 : self == 2 ? 0 : -1; // the non-adjacent queue
    if (far >= 0 && latest[far] >= 0) {
      // ld <-> st: relay through ex. The relay waits for the far producer
      // (unless ex already has: the relay then runs after that wait, since
      // ex is in order); being the newest ex instruction, it also covers any
      // ex producer, so the consumer needs only the relay's token.
      Instruction relay(Opcode::Sync);
      relay.set("q", static_cast<int64_t>(Queue::Ex));
      addToken(static_cast<size_t>(latest[far]), Queue::Ex, relay);
      program.push_back(relay);
      addToken(program.size() - 1, queue, inst);
    } else {
      for (int s = 0; s < 3; ++s)
        if (s != self && latest[s] >= 0)
          addToken(static_cast<size_t>(latest[s]), queue, inst);
    }
  }
  size_t index = program.size();
  program.push_back(inst);
  if (self < 0)
    return; // control instructions never take part in a conflict
  std::vector<Access> &mine = accesses[self];
  auto record = [&](const MemRegion &region, bool write) {
    llvm::erase_if(mine, [&](const Access &older) {
      return older.region.space == region.space &&
             region.begin <= older.region.begin &&
             older.region.end <= region.end && (write || !older.write);
    });
    mine.push_back({index, region, write});
  };
  for (const MemRegion &region : reads)
    record(region, false);
  for (const MemRegion &region : writes)
    record(region, true);
}

::nnaccel::isa::Program ProgramEmitter::finish(uint32_t card, uint32_t core) {
  program.push_back(Instruction(Opcode::Halt));
  ::nnaccel::isa::Program result;
  result.card = static_cast<uint16_t>(card);
  result.core = static_cast<uint16_t>(core);
  result.instructions = std::move(program);
  program.clear();
  for (std::vector<Access> &list : accesses)
    list.clear();
  synced.clear();
  return result;
}
