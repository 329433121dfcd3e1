//===- ProgramEmitter.h - token-aware NPU program builder -------*- C++ -*-===//
//
// Kernels append ISA instructions in program order and declare which memory
// regions each one reads and writes. The emitter derives every dependency
// (read-after-write, write-after-read, write-after-write) between the ld,
// ex and st queues from those declarations and encodes it with the fewest
// dependency tokens: a token from queue A to queue B orders everything A has
// done up to the producer before everything B does from the consumer on, so
// a dependency already implied by an earlier token costs nothing. ld <-> st
// dependencies are relayed through ex with `sync` instructions. Every token
// pushed is popped, so programs end with empty FIFOs.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_PROGRAMEMITTER_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_PROGRAMEMITTER_H

#include "nnaccel/ISA/Instruction.h"
#include "nnaccel/ISA/Program.h"

#include <cstdint>
#include <map>
#include <vector>

namespace mlir::nnaccel::npu_lowering {

namespace npu_isa = ::nnaccel::isa;

/// A byte range of one memory space: the unit of dependency tracking.
struct MemRegion {
  npu_isa::Space space;
  uint64_t begin, end; // [begin, end)
  bool overlaps(const MemRegion &other) const {
    return space == other.space && begin < other.end && other.begin < end;
  }
};

class ProgramEmitter {
public:
  /// Appends `inst` (dispatched to its own queue) with its memory effects.
  void emit(npu_isa::Instruction inst, std::vector<MemRegion> reads,
            std::vector<MemRegion> writes);

  /// Appends `halt` and returns the program.
  npu_isa::Program finish(uint32_t card, uint32_t core);

  size_t size() const { return program.size(); }

private:
  struct Access {
    size_t index; // program index of the instruction
    MemRegion region;
    bool write;
  };
  /// Makes `consumer` (not yet appended; it will execute on `queue`) wait
  /// for the instruction at program index `producer` in an adjacent queue.
  /// Returns false when an earlier token already implies the order.
  bool addToken(size_t producer, npu_isa::Queue queue,
                npu_isa::Instruction &consumer);

  std::vector<npu_isa::Instruction> program;
  /// The memory effects that can still matter, per data queue (ld, ex,
  /// st). An access is dropped once a later one of the same queue covers
  /// its region at least as strongly (a write, or both reads): anything
  /// conflicting with it conflicts with the later one, whose index is
  /// larger. This keeps the conflict search short (buffers are reused over
  /// and over) without changing a single token.
  std::vector<Access> accesses[3];
  /// For each (from, to) queue pair: the program index of the latest
  /// producer whose completion the `to` queue has already waited for.
  std::map<std::pair<int, int>, int64_t> synced;
};

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_PROGRAMEMITTER_H
