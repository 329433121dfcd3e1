//===- ProgramEmitter.h - token-aware NPU program builder -------*- C++ -*-===//
//
// Kernels append ISA instructions in program order; the emitter works out
// what each one reads and writes from its own fields (isa::memoryAccesses on
// the decoded instruction, with the scalar registers the program has set so
// far) and derives every dependency (read-after-write, write-after-read,
// write-after-write) between the ld, ex and st queues. It encodes them with
// the fewest dependency tokens: a token from queue A to queue B orders
// everything A has done up to the producer before everything B does from
// the consumer on, so a dependency already implied by an earlier token costs
// nothing. ld <-> st dependencies are relayed through ex with `sync`
// instructions. Every token pushed is popped, so programs end with empty
// FIFOs.
//
// Granularity. On-chip memories (VRF, MRF, ACC, SHARED) are tracked byte
// for byte (the footprint's bounding range). Card DRAM is tracked per
// tensor of the memory plan: an access stands for the smallest planned
// tensor that contains it, so an op's first load of a tensor waits for the
// producer's last store into it. Accesses whose extent depends on memory
// contents (the index and weight lists of a pooled emb.gather) cover the
// whole tensor they start in.
//
// A kernel can also ask for an on-chip region to be tracked as one buffer
// (ProgramEmitter::Group): every access inside it then stands for the whole
// region, so its readers wait for its last writer and vice versa. A
// recurrent kernel does this for its resident weight tiles: the first step
// waits for the last tile load only, instead of one token per tile (which
// would overflow the token FIFOs).
//
// Token FIFOs hold `token_fifo_depth` tokens. Counted in program order, the
// tokens pushed and not yet popped on a FIFO never exceed that depth: a
// dependency whose token would overflow it waits instead for the latest
// instruction its producer's queue has been given (one token then orders
// everything that queue has done). Below the limit a slot stays in reserve
// for exactly that fallback, so it always fits. (Dispatch is in order: a
// push that finds its FIFO full while the consumers that would drain it are
// not dispatched yet would deadlock the core.)
//
// Chains (docs/isa.md §5) issue as one unit: the emitter holds the members
// of a chain until its last one arrives, puts every wait of the chain on
// its first member and records all its accesses at its last member, the
// only one that may signal.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_CONVERSION_ACCELTONPU_PROGRAMEMITTER_H
#define NNACCEL_LIB_CONVERSION_ACCELTONPU_PROGRAMEMITTER_H

#include "nnaccel/ISA/Instruction.h"
#include "nnaccel/ISA/Operands.h"
#include "nnaccel/ISA/Program.h"

#include <cstdint>
#include <map>
#include <memory>
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
  bool contains(const MemRegion &other) const {
    return space == other.space && begin <= other.begin && other.end <= end;
  }
};

class ProgramEmitter {
public:
  /// `dramTensors`: the DRAM ranges of the memory plan's tensors (any
  /// order; ranges may nest, e.g. views into a buffer). `tokenFifoDepth`:
  /// the target's token FIFO depth (0: unbounded). `sharedWindow`: when
  /// non-zero, a DRAM operand at or above it is the memory plan's alias of
  /// SHARED address (operand - sharedWindow), and is emitted as that SHARED
  /// operand (npu_lowering::getSharedWindow); kernels need not know where
  /// a value lives.
  explicit ProgramEmitter(std::vector<MemRegion> dramTensors = {},
                          uint32_t tokenFifoDepth = 0,
                          uint64_t sharedWindow = 0);
  ~ProgramEmitter();
  ProgramEmitter(ProgramEmitter &&);

  /// Appends `inst`, dispatched to its own queue, with the dependency
  /// tokens its memory accesses need.
  void emit(const npu_isa::Instruction &inst);

  /// While alive, tracks every access inside `region` as an access to the
  /// whole of it (see the file comment). Groups may nest; the innermost
  /// (smallest) holding an access wins.
  class Group {
  public:
    Group(ProgramEmitter &emitter, MemRegion region);
    ~Group();
    Group(const Group &) = delete;
    Group &operator=(const Group &) = delete;

  private:
    ProgramEmitter &emitter;
    MemRegion region;
  };

  /// Appends `halt` and returns the program.
  npu_isa::Program finish(uint32_t card, uint32_t core);

  /// Instructions emitted so far (chain members held back included).
  size_t size() const { return program.size() + chain.size(); }

  /// The end of the highest byte of `space` the program has accessed so far
  /// (0: none): how much of an on-chip memory its kernels need.
  uint64_t getHighWater(npu_isa::Space space) const {
    return highWater[static_cast<size_t>(space)];
  }

  /// The memory regions `inst` reads and writes when it is the next
  /// instruction, as the emitter tracks them (for tests and diagnostics).
  void getAccesses(const npu_isa::Instruction &inst,
                   std::vector<MemRegion> &reads,
                   std::vector<MemRegion> &writes) const;

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
  /// Appends a complete unit: one instruction, or a whole chain, whose
  /// accesses are `reads` and `writes`.
  void append(std::vector<npu_isa::Instruction> unit,
              const std::vector<MemRegion> &reads,
              const std::vector<MemRegion> &writes);
  /// Appends one instruction to the program.
  void push(const npu_isa::Instruction &inst);
  /// `inst` with its DRAM operands in the SHARED window moved to SHARED.
  npu_isa::Instruction placeSharedOperands(npu_isa::Instruction inst) const;
  /// The tracked region of one access (see the file comment).
  MemRegion trackedRegion(const npu_isa::MemAccess &access) const;

  std::vector<npu_isa::Instruction> program;
  /// Members of a chain whose last member has not been emitted yet, and
  /// their accesses.
  std::vector<npu_isa::Instruction> chain;
  std::vector<MemRegion> chainReads, chainWrites;
  /// Scalar register values set by the program so far (straight-line code:
  /// kernels emit no loops).
  npu_isa::ScalarRegs sregs{};
  /// The plan's DRAM tensors, smallest first.
  std::vector<MemRegion> dramTensors;
  /// Live groups (Group), in creation order.
  std::vector<MemRegion> groups;
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
  /// Per memory space, the end of the highest byte accessed.
  uint64_t highWater[npu_isa::NumMemSpaces] = {};
  /// Program index of the latest instruction of each data queue.
  int64_t lastOfQueue[3] = {-1, -1, -1};
  /// Tokens outstanding on each FIFO after each instruction, in program
  /// order (ProgramEmitter.cpp).
  uint32_t tokenFifoDepth;
  uint64_t sharedWindow;
  struct FifoLevels;
  std::unique_ptr<FifoLevels> levels;
};

} // namespace mlir::nnaccel::npu_lowering

#endif // NNACCEL_LIB_CONVERSION_ACCELTONPU_PROGRAMEMITTER_H
