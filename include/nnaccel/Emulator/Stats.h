//===- Stats.h - Counters of an emulator run -------------------*- C++ -*-===//
//
// What the cycle model measured during a run: per queue busy time and stalls,
// per core dispatch/barrier waits and MAC utilisation, per memory bytes
// moved, per card link traffic. The runtime prints these (nnaccel-run
// --stats) and tests check them against hand-computed cycle counts.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_EMULATOR_STATS_H
#define NNACCEL_EMULATOR_STATS_H

#include "nnaccel/ISA/Types.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::emulator {

/// One of a core's three instruction queues.
struct QueueStats {
  uint64_t instructions = 0;     ///< instructions executed (chain members each)
  uint64_t busyCycles = 0;       ///< cycles spent executing
  uint64_t tokenStallCycles = 0; ///< head ready but waiting for a token
  uint64_t pushStallCycles = 0;  ///< done but waiting for room in a token FIFO
  uint64_t linkWaitCycles = 0;   ///< recv waiting for its message to arrive
  uint64_t lastEndCycle = 0;     ///< completion of the last instruction
};

/// Bytes read and written per memory space (indexed by isa::Space, Dram..Acc).
struct ByteCounters {
  std::array<uint64_t, isa::NumMemSpaces> read{};
  std::array<uint64_t, isa::NumMemSpaces> written{};
  void add(const ByteCounters &o) {
    for (unsigned i = 0; i < isa::NumMemSpaces; ++i) {
      read[i] += o.read[i];
      written[i] += o.written[i];
    }
  }
};

struct CoreStats {
  unsigned card = 0;
  unsigned core = 0;
  bool active = false;      ///< had a program
  uint64_t finishCycle = 0; ///< halt dispatched and all queues drained
  uint64_t dispatched = 0;  ///< instructions dispatched (loop bodies repeat)
  uint64_t dispatchStallCycles = 0;   ///< dispatcher waiting for a full queue
  uint64_t barrierWaitCycles = 0;     ///< drain + wait for the other cores
  std::array<QueueStats, 3> queues{}; ///< ld, ex, st
  uint64_t macs = 0;                  ///< multiply-accumulates done by `mm`
  double peakMacCycles = 0;           ///< sum of macs / macs_per_cycle[wt]
  double macUtilization = 0;          ///< peakMacCycles / finishCycle
  ByteCounters bytes;                 ///< traffic issued by this core
};

struct CardStats {
  unsigned card = 0;
  ByteCounters bytes;         ///< sum over the card's cores
  uint64_t linkBytesSent = 0; ///< to other cards
  uint64_t linkBytesReceived = 0;
  uint64_t hostBytesSent = 0; ///< to the host (peer 255)
  uint64_t hostBytesReceived = 0;
};

struct Stats {
  std::string target;
  double clockMHz = 0;
  uint64_t totalCycles = 0;  ///< max finish cycle over all cores
  uint64_t instructions = 0; ///< instructions dispatched, all cores
  uint64_t macs = 0;
  double macUtilization = 0;    ///< over active cores
  std::vector<CoreStats> cores; ///< every core of every card
  std::vector<CardStats> cards;

  double microseconds() const {
    return clockMHz > 0 ? static_cast<double>(totalCycles) / clockMHz : 0;
  }
  /// Human-readable multi-line summary.
  std::string summary() const;
};

} // namespace nnaccel::emulator

#endif // NNACCEL_EMULATOR_STATS_H
