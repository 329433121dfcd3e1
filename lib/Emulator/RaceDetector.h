//===- RaceDetector.h - Happens-before data-race detection ------*- C++ -*-===//
//
// EmulatorOptions::checkRaces: a FastTrack-style detector of unsynchronised
// accesses. Every agent that touches memory -- each ld/ex/st queue of each
// loaded core -- has a vector clock with one component per agent. A queue
// advances its own component once per instruction (a chain is one
// instruction), and learns the clocks of others where the ISA orders
// execution: a token carries the pusher's clock to the popper, a barrier
// joins the clocks of every participating core's queues and hands the join
// to all of them, and a link message carries the sender's clock to the
// matching recv. An access by agent A at epoch (A, c) is ordered after an
// earlier access (B, c') iff c' <= clock_A[B].
//
// Each memory (DRAM and SHARED per card, VRF/MRF/ACC per core) keeps an
// AccessHistory: disjoint byte ranges, each with the last write and the
// reads since that write (at most one per agent; a read that is ordered
// after an older one replaces it). An access conflicting with an earlier one
// that it is not ordered after -- two writes, or a read and a write, of
// overlapping bytes by different agents -- is a data race.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_LIB_EMULATOR_RACEDETECTOR_H
#define NNACCEL_LIB_EMULATOR_RACEDETECTOR_H

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace nnaccel::emulator {

/// One component per agent (queue of a loaded core), indexed by agent id.
using VectorClock = std::vector<uint64_t>;

/// dst = max(dst, src) componentwise (an empty src is the zero clock).
void joinClock(VectorClock &dst, const VectorClock &src);

/// An access as the detector remembers it.
struct AccessRecord {
  uint64_t clock = 0;         ///< the agent's epoch; 0 = no access
  int64_t start = 0, end = 0; ///< the whole operand footprint (for messages)
  const char *operand = "";   ///< operand name ("dst", "a", ...)
  uint32_t agent = 0;
  uint32_t pc = 0;
  uint16_t core = 0;
  uint8_t queue = 0;

  bool valid() const { return clock != 0; }
  /// Happens before an access whose agent has clock `vc`.
  bool orderedBefore(const VectorClock &vc) const { return clock <= vc[agent]; }
  bool operator==(const AccessRecord &o) const {
    return clock == o.clock && agent == o.agent && pc == o.pc &&
           start == o.start && end == o.end && operand == o.operand;
  }
};

/// A conflict found by AccessHistory::access.
struct RaceReport {
  AccessRecord earlier;
  bool earlierWrites = false;
  uint64_t start = 0, end = 0; ///< bytes both accesses touch
};

/// Access history of one memory: disjoint byte ranges with the last write
/// and the reads since.
class AccessHistory {
public:
  /// Checks `a` (a write if `write`, else a read of [a.start, a.end) by
  /// a.agent, whose clock is `vc`) against the earlier accesses, then
  /// records it. Returns the conflict at the lowest address, if any (the
  /// access is then not recorded).
  std::optional<RaceReport> access(const AccessRecord &a, bool write,
                                   const VectorClock &vc);
  void clear() { segs_.clear(); }
  size_t size() const { return segs_.size(); }

private:
  struct Segment {
    uint64_t end = 0;
    AccessRecord write;
    AccessRecord read;                   ///< first read since the write
    std::vector<AccessRecord> moreReads; ///< unordered reads of other agents
    bool sameState(const Segment &o) const {
      return write == o.write && read == o.read && moreReads == o.moreReads;
    }
  };
  using Map = std::map<uint64_t, Segment>;

  /// Makes `x` a segment boundary (if a segment spans it).
  void split(uint64_t x);
  /// Merges equal neighbours among the segments starting in [from, to].
  void merge(uint64_t from, uint64_t to);
  static void addRead(Segment &g, const AccessRecord &a, const VectorClock &vc);

  Map segs_; ///< keyed by start
};

} // namespace nnaccel::emulator

#endif // NNACCEL_LIB_EMULATOR_RACEDETECTOR_H
