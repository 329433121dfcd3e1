//===- RunStats.h - What one request cost ------------------------*- C++
//-*-===//
//
// The figures a Session records per run: modelled device time (cycles of
// the package's target, and microseconds at its clock) summed over the card
// partitions, measured host wall time of host partitions and of emulation,
// bytes moved between host and card DRAM, and the emulator's own summary per
// card partition. Modelled time is what the hardware would take; wall time
// is what this machine took to compute or emulate it -- tools print both.
// Like weight uploads, the setup runs of pinned weights (loading weight
// tiles into the MRFs) happen once per session rather than per request --
// again only when something evicted the tiles -- so their cycles are
// counted apart from the device latency.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_RUNTIME_RUNSTATS_H
#define NNACCEL_RUNTIME_RUNSTATS_H

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel {
namespace runtime {

struct PartitionStats {
  unsigned index = 0; ///< position in the variant's partition list
  bool onCard = false;
  unsigned card = 0;    ///< meaningful when onCard
  unsigned hostOps = 0; ///< ops run (host partitions)
  /// Modelled cycles of the launch (card partitions; 0 for host ones).
  uint64_t cycles = 0;
  /// Wall time on this machine: kernels for a host partition; uploads,
  /// emulation and read-back for a card partition.
  double wallMicros = 0;
  uint64_t bytesToCard = 0;       ///< input bindings written this run
  uint64_t weightBytesToCard = 0; ///< of which weights (first run only)
  uint64_t bytesFromCard = 0;     ///< output bindings read back
  /// Padding buckets: bytes of padded inputs the card filled itself (only
  /// the valid rows cross the host link; not in bytesToCard).
  uint64_t padBytesFilled = 0;
  /// Modelled host-link cycles of this launch's transfers (the target's
  /// host bandwidth and latency; weights, inputs and outputs each one
  /// transfer). Not part of `cycles`.
  uint64_t transferCycles = 0;
  /// Pinned weights: the partition has setup programs, and the modelled
  /// cycles of running them before this launch -- 0 when the card's MRFs
  /// already held its tiles. Not part of `cycles`.
  bool hasSetup = false;
  uint64_t setupCycles = 0;
  /// Stats::summary() of the emulator run (card partitions).
  std::string emulatorSummary;
};

struct RunStats {
  std::string variant; ///< name of the variant that ran
  std::string target;  ///< target name ("" for host-only packages)
  double clockMHz = 0; ///< the target's clock
  /// Modelled card cycles: per launch (card partitions of different cards
  /// that run side by side) its slowest card's, summed over the launches.
  uint64_t deviceCycles = 0;
  /// Launches that ran several cards' partitions side by side.
  unsigned concurrentLaunches = 0;
  double deviceMicros = 0;    ///< deviceCycles at clockMHz
  uint64_t setupCycles = 0;   ///< sum of their setupCycles (not in device*)
  double setupMicros = 0;     ///< setupCycles at clockMHz
  double hostMicros = 0;      ///< wall time of the host partitions
  double emulationMicros = 0; ///< wall time of the card partitions
  double wallMicros = 0;      ///< wall time of the whole run
  uint64_t bytesToCard = 0;
  uint64_t weightBytesToCard = 0;
  uint64_t bytesFromCard = 0;
  uint64_t padBytesFilled = 0; ///< sum of the partitions'
  /// Host-link cycles: per launch its slowest card's (each card has its own
  /// link), summed over the launches; not in device*.
  uint64_t transferCycles = 0;
  double transferMicros = 0; ///< transferCycles at clockMHz
  std::vector<PartitionStats> partitions;

  /// Multi-line human-readable report: totals, then one line per
  /// partition followed by the emulator summary of card partitions.
  std::string summary() const;
};

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_RUNTIME_RUNSTATS_H
