//===- Session.h - Executing a model package ---------------------*- C++
//-*-===//
//
// A Session runs requests on one loaded Model. It owns the mutable state of
// execution: one functional emulator (the "card") with its programs and the
// weights already uploaded to its DRAM, and the statistics and trace of the
// last run. Running a request means: check the named inputs against the
// signature, pick the variant for their shapes, pad bucketed dimensions,
// run the partitions in order -- host partitions op by op through
// runHostOp, card partitions by writing their Input bindings to card DRAM,
// running the core programs and reading their Output bindings back -- and
// slice bucketed output dimensions to the actual sizes.
//
// Threading model: a Model is immutable and shared freely. A Session
// serialises its own run() calls with a mutex, so calling one Session from
// several threads is safe but not concurrent; for concurrency use one
// Session per thread over the same Model, or a RequestQueue
// (RequestQueue.h), which owns N sessions and serves requests on N worker
// threads.
//
// Plain C++17; no LLVM/MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_RUNTIME_SESSION_H
#define NNACCEL_RUNTIME_SESSION_H

#include "nnaccel/Runtime/Model.h"
#include "nnaccel/Runtime/RunStats.h"
#include "nnaccel/Runtime/Tensor.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nnaccel {
namespace runtime {

struct SessionOptions {
  /// Record a per-instruction emulator trace for card partitions (costs
  /// memory proportional to the executed instructions). Without it
  /// traceJson() still has one span per partition.
  bool trace = false;
  /// Emulator worker threads (EmulatorOptions::threads): 0 = one per card
  /// up to the host's cores, 1 = on the calling thread. Results do not
  /// depend on it.
  unsigned emulatorThreads = 0;
  /// Check card partitions for data races between queues and cores
  /// (EmulatorOptions::checkRaces): a race fails the run with a message
  /// naming both instructions.
  bool checkRaces = false;
  /// Replay a card launch's recorded schedule when it cannot depend on
  /// data (EmulatorOptions::replaySchedules): the same outputs and
  /// statistics, without re-running the cycle-level scheduler.
  bool replaySchedules = true;
};

struct SessionImpl;

class Session {
public:
  /// Creates a session (and its emulator when the model has card
  /// partitions). Fails if the emulator cannot be set up.
  static Expected<std::unique_ptr<Session>>
  create(std::shared_ptr<const Model> model, SessionOptions options = {});
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Runs one request. `inputs` maps every input name of the signature to a
  /// tensor of the port's dtype and shape (bucketed dimensions: any size up
  /// to the largest bucket). Returns the outputs in signature order
  /// (Model::getOutputs() has their names). Errors name the input, the
  /// partition, or the op that failed; a failed run leaves the session
  /// usable.
  Expected<std::vector<Tensor>>
  run(const std::map<std::string, Tensor> &inputs);
  /// As above with the inputs in signature order.
  Expected<std::vector<Tensor>> run(const std::vector<Tensor> &inputs);

  /// Statistics of the last successful run (empty before the first).
  RunStats getLastStats() const;
  /// Chrome trace-event JSON of the last successful run: one process per
  /// partition on one timeline. Card partitions are placed by modelled
  /// device time (with per-instruction events when SessionOptions::trace),
  /// host partitions by their measured wall time, one event per op.
  std::string getTraceJson() const;

  const Model &getModel() const;
  const std::shared_ptr<const Model> &getModelPtr() const;
  const SessionOptions &getOptions() const;

private:
  explicit Session(std::unique_ptr<SessionImpl> impl);
  std::unique_ptr<SessionImpl> impl;
};

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_RUNTIME_SESSION_H
