//===- TraceBuilder.h - One Chrome trace for a whole run (internal) -*- C++
//-*-===//
//
// A run is a sequence of partitions, each traced differently: host ops are
// timed on the wall clock, card launches in modelled cycles by the emulator
// (which restarts at cycle 0 for every launch). TraceBuilder lays them end
// to end on one timeline -- each partition starts where the previous one
// ended -- as one Chrome trace-event process per partition, so
// chrome://tracing or Perfetto shows the request as it would unfold. The
// emulator's per-instruction events are re-homed into the partition's
// process and shifted to its start. Private to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_RUNTIME_TRACEBUILDER_H
#define NNACCEL_LIB_RUNTIME_TRACEBUILDER_H

#include <memory>
#include <string>

namespace nnaccel {
namespace runtime {

class TraceBuilder {
public:
  TraceBuilder();
  ~TraceBuilder();
  TraceBuilder(const TraceBuilder &) = delete;
  TraceBuilder &operator=(const TraceBuilder &) = delete;

  /// Current end of the timeline, in microseconds.
  double getCursor() const { return cursor; }

  /// Starts a partition's process; its spans begin at the cursor.
  void beginPartition(unsigned partition, const std::string &label);
  /// One host op of the current partition, `startMicros` after the
  /// partition's start, lasting `durMicros` (wall time).
  void addHostOp(const std::string &name, const std::string &location,
                 double startMicros, double durMicros);
  /// Merges an emulator traceJson() for the current (card) partition. A
  /// trace that does not parse is ignored: the trace is a diagnostic aid
  /// and must never fail a run.
  void addEmulatorTrace(const std::string &json);
  /// A run of the current (card) partition's setup programs (pinned
  /// weights) before its launch: its emulator trace (may be empty) and a
  /// span of `durMicros` on the summary track; the launch starts after it.
  void addSetup(const std::string &emulatorJson, const std::string &spanName,
                double durMicros);
  /// Closes the partition with a summary span of `durMicros` and advances
  /// the cursor by it.
  void endPartition(const std::string &spanName, double durMicros);

  /// The finished trace-event JSON document.
  std::string finish(const std::string &target, double clockMHz) const;

private:
  struct Events;
  std::unique_ptr<Events> events;
  double cursor = 0;
  unsigned pid = 0;
};

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_TRACEBUILDER_H
